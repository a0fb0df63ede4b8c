//! [`hdl_new!`](crate::hdl_new): a block's struct literal that names the
//! fields needing nothing but their default (most ports, flip-flops and
//! locals) and gives a value only to the rest.

/// `hdl_new! { Block { a, b, c: value, d } }` is `Block { a:
/// Default::default(), b: Default::default(), c: value, d:
/// Default::default() }`. The fields keep the order they are written in:
/// rust-hdl numbers each signal as it is made.
///
/// ```
/// #[derive(Default, Debug, PartialEq)]
/// struct Pair {
///     a: u32,
///     b: u32,
/// }
/// let p = tpb_hdl::hdl_new! { Pair { a, b: 7 } };
/// assert_eq!(p, Pair { a: 0, b: 7 });
/// ```
#[macro_export]
macro_rules! hdl_new {
    (@value) => {
        Default::default()
    };
    (@value $value:expr) => {
        $value
    };
    ($name:ident { $($field:ident $(: $value:expr)?),* $(,)? }) => {
        $name { $($field: $crate::hdl_new!(@value $($value)?)),* }
    };
}
