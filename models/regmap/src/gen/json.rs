//! The elaborated map as pretty JSON (for scripts and other tools).
use crate::RegMap;

pub fn render(map: &RegMap) -> String {
    let mut s = serde_json::to_string_pretty(map).expect("the map model always serializes");
    s.push('\n');
    s
}
