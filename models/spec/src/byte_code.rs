//! [`byte_code!`](crate::byte_code): an enum whose values are one byte of
//! a wire, a register or a probe, declared once. Each variant and its code
//! is written in one place; the list of every value and the decoding of a
//! byte come from that declaration, not from a second list or a `match`
//! that would have to be kept in step with it.

/// Declare `enum Name { Variant = code, … }` as a `#[repr(u8)]` enum with
/// `Debug, Clone, Copy, PartialEq, Eq`, and give it:
/// - `Name::ALL`: every variant, in declaration order;
/// - `Name::from_byte(b)`: the variant whose code is `b`, or `None`;
/// - `value.name()`: the word a waveform viewer or a log shows for it,
///   given as `Variant = code => "word"`, or else the variant's own name.
///
/// Attributes before `enum` (documentation, further derives) and on each
/// variant are kept.
///
/// ```
/// tpb_spec::byte_code! {
///     /// A light.
///     pub enum Light {
///         Red = 1,
///         /// Between the two.
///         Amber = 2 => "amber",
///         Green = 4,
///     }
/// }
/// assert_eq!(Light::ALL, [Light::Red, Light::Amber, Light::Green]);
/// assert_eq!(Light::from_byte(4), Some(Light::Green));
/// assert_eq!(Light::from_byte(3), None);
/// assert_eq!(Light::Amber as u8, 2);
/// assert_eq!((Light::Amber.name(), Light::Green.name()), ("amber", "Green"));
/// ```
#[macro_export]
macro_rules! byte_code {
    (@name $variant:ident $word:literal) => {
        $word
    };
    (@name $variant:ident) => {
        stringify!($variant)
    };
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $code:literal $(=> $word:literal)?,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        $vis enum $name {
            $($(#[$vmeta])* $variant = $code,)+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The value whose code is `b`, if there is one.
            pub fn from_byte(b: u8) -> Option<$name> {
                Self::ALL.into_iter().find(|v| *v as u8 == b)
            }

            /// The word shown for this value.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $crate::byte_code!(@name $variant $($word)?),)+
                }
            }
        }
    };
}
