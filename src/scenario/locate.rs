//! Finding where in a file a problem lies, so every error reads `file:line:col: message`.
//!
//! serde gives positions for syntax and type errors. For the checks made after parsing, the text
//! is read once more into a [`Spans`] tree: the byte offset of every value exactly as ron's own
//! parser delimits it (ron's `RawValue` borrows each value's text from the source), struct fields
//! by name and list items by index. A [`Locus`] is a path through that tree, so a name that also
//! appears in a comment or an objective, or is written with escapes or as a raw string, cannot
//! mislead it: nothing searches the text for a name.

use std::fmt;

use ron::value::RawValue;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One step of a path into a file: a struct field, or an item of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Field(&'static str),
    Index(usize),
}

/// Where a problem is: a path from the top of the file, and the name of the item it is in (for
/// messages that cannot give a line).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Locus {
    pub path: Vec<Step>,
    pub name: Option<String>,
}

impl Locus {
    pub fn top(field: &'static str) -> Self {
        Locus { path: vec![Step::Field(field)], name: None }
    }
    pub fn field(mut self, field: &'static str) -> Self {
        self.path.push(Step::Field(field));
        self
    }
    pub fn index(mut self, index: usize) -> Self {
        self.path.push(Step::Index(index));
        self
    }
    /// The item's name, for [`Locus::describe`].
    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }
    /// A readable path for when the text cannot be searched, e.g. `sides[1].brigades[0] ("Second Brigade")`.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            match step {
                Step::Field(f) if out.is_empty() => out.push_str(f),
                Step::Field(f) => {
                    out.push('.');
                    out.push_str(f);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        if let Some(name) = &self.name {
            out.push_str(&format!(" ({name:?})"));
        }
        out
    }
}

/// 1-based line and column of a byte offset (columns count characters, as editors do).
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Every value of a file with its byte offset; struct fields also keep their key's offset.
#[derive(Clone, Debug, PartialEq)]
pub struct Spans {
    pub at: usize,
    /// Just past the value's last byte (the editor replaces a value by its span).
    pub end: usize,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A struct (or map): each field's name, the offset of its key, its value.
    Fields(Vec<(String, usize, Spans)>),
    Items(Vec<Spans>),
    Leaf,
}

/// What one value is made of, each part still as ron's raw text borrowed from the source.
enum Shape<'a> {
    Fields(Vec<(String, &'a RawValue)>),
    Items(Vec<&'a RawValue>),
    /// `Some(x)`, a newtype: the value inside.
    Inner(&'a RawValue),
    Leaf,
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any RON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<'de>, A::Error> {
        let mut fields = Vec::new();
        while let Some(key) = map.next_key::<KeyName>()? {
            fields.push((key.0, map.next_value()?));
        }
        Ok(Shape::Fields(fields))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(raw) = seq.next_element()? {
            items.push(raw);
        }
        Ok(Shape::Items(items))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Shape<'de>, D::Error> {
        Ok(Shape::Inner(Deserialize::deserialize(d)?))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Shape<'de>, D::Error> {
        Ok(Shape::Inner(Deserialize::deserialize(d)?))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_char<E: de::Error>(self, _: char) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_none<E: de::Error>(self) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Shape<'de>, E> {
        Ok(Shape::Leaf)
    }
}

impl<'de> Deserialize<'de> for Shape<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

/// A struct field's name or a map key, as text.
struct KeyName(String);

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<KeyName, E> {
                Ok(KeyName(s.to_string()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<KeyName, E> {
                Ok(KeyName(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<KeyName, E> {
                Ok(KeyName(n.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Offset of `part` within `src`, when it is a slice of it.
fn offset_in(src: &str, part: &str) -> Option<usize> {
    let at = (part.as_ptr() as usize).checked_sub(src.as_ptr() as usize)?;
    (at + part.len() <= src.len()).then_some(at)
}

/// How far into `text` its first character that is neither blank nor in a comment lies.
fn skip_blanks(text: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if trimmed.starts_with("//") {
            at += trimmed.find('\n').map_or(trimmed.len(), |n| n + 1);
        } else if trimmed.starts_with("/*") {
            at += trimmed.find("*/").map_or(trimmed.len(), |n| n + 2);
        } else {
            return at;
        }
    }
}

/// The key written before a field's value: back over `:` and blanks to the identifier's start.
fn key_before(src: &str, value_at: usize) -> usize {
    let before = src[..value_at].trim_end();
    let Some(before) = before.strip_suffix(':') else { return value_at };
    let name = before.trim_end();
    let start = name.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
    if start == name.len() { value_at } else { start }
}

impl Spans {
    /// The spans of a whole file, or None when ron cannot read it.
    pub fn of(src: &str) -> Option<Spans> {
        let raw: &RawValue = ron::Options::default().from_str(src).ok()?;
        Some(Spans::node(src, raw.get_ron()))
    }

    /// One value and everything in it. ron's recursion limit bounds the depth.
    fn node(src: &str, text: &str) -> Spans {
        // ron's raw text of an item starts with the blanks and comments before it.
        let text = text.get(skip_blanks(text)..).unwrap_or(text);
        let at = offset_in(src, text).unwrap_or(0);
        let kind = match ron::Options::default().from_str::<Shape>(text) {
            Ok(Shape::Fields(fields)) => Kind::Fields(
                fields
                    .into_iter()
                    .map(|(name, raw)| {
                        // The key before the value as written (`Some(x)`, not the `x` inside).
                        let key = offset_in(src, raw.get_ron()).map_or(at, |v| key_before(src, v));
                        (name, key, Spans::node(src, raw.get_ron()))
                    })
                    .collect(),
            ),
            Ok(Shape::Items(items)) => Kind::Items(items.into_iter().map(|raw| Spans::node(src, raw.get_ron())).collect()),
            // `Some(x)`: the value inside, but the span of the whole (replacing it replaces both).
            Ok(Shape::Inner(raw)) => return Spans { at, end: at + text.len(), ..Spans::node(src, raw.get_ron()) },
            Ok(Shape::Leaf) | Err(_) => Kind::Leaf,
        };
        Spans { at, end: at + text.len(), kind }
    }

    /// The value of a field, with its key's offset.
    pub fn field(&self, name: &str) -> Option<(usize, &Spans)> {
        match &self.kind {
            Kind::Fields(fields) => fields.iter().find(|(n, ..)| n == name).map(|(_, key, v)| (*key, v)),
            _ => None,
        }
    }

    /// Where an item is best shown: its `name:` when it has one, else where it starts.
    fn item_at(&self) -> usize {
        self.field("name").map_or(self.at, |(key, _)| key)
    }
}

/// Line and column of a locus in `src`, whose spans (or a part of them, e.g. a save's scenario)
/// are `spans`. A field the file leaves out is shown at the item it belongs to.
pub fn locate(src: &str, spans: &Spans, locus: &Locus) -> Option<(usize, usize)> {
    if locus.path.is_empty() {
        return None;
    }
    let (mut node, mut at) = (spans, spans.at);
    for step in &locus.path {
        let next = match (step, &node.kind) {
            (Step::Field(f), _) => node.field(f),
            (Step::Index(i), Kind::Items(items)) => items.get(*i).map(|item| (item.item_at(), item)),
            _ => None,
        };
        match next {
            Some((found, child)) => (at, node) = (found, child),
            None => break,
        }
    }
    Some(line_col(src, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r##"(
    name: "Demo", // name: "A"
    objectives: [(name: "A", at: (1.0, 2.0))],
    units: [
        (name: "A", weapon: Some(Musket), figures: 4),
        (name: "B \"the\" \u{42}", text: "figures: 9", figures: 12),
        (name: r#"A"#, figures: 5),
    ],
)"##;

    #[test]
    fn finds_the_field_inside_the_item_by_its_place_in_the_file() {
        let spans = Spans::of(SRC).unwrap();
        let unit = |i: usize| Locus::top("units").index(i);
        assert_eq!(locate(SRC, &spans, &unit(1).field("figures")), Some((6, 56)), "not the figures inside a string");
        assert_eq!(locate(SRC, &spans, &unit(2).field("figures")), Some((7, 24)), "a raw-string name");
        assert_eq!(locate(SRC, &spans, &unit(0)), Some((5, 10)), "the unit, not the comment or the objective");
        assert_eq!(locate(SRC, &spans, &unit(0).field("facing")), Some((5, 10)), "a field left out: the item");
        assert_eq!(locate(SRC, &spans, &unit(0).field("weapon")), Some((5, 21)), "the key of a Some(..)");
        assert_eq!(locate(SRC, &spans, &Locus::top("units")), Some((4, 5)));
        assert_eq!(locate(SRC, &spans, &Locus::default()), None);
    }

    #[test]
    fn columns_count_characters_and_lines_survive_crlf() {
        let src = "(\r\n    name: \"Ünïcode\",\r\n    units: [],\r\n)";
        let spans = Spans::of(src).unwrap();
        assert_eq!(locate(src, &spans, &Locus::top("units")), Some((3, 5)));
        assert_eq!(line_col("é\nab", 4), (2, 2));
    }

    #[test]
    fn describes_a_path_for_messages_without_a_line() {
        let locus = Locus::top("sides").index(1).field("brigades").index(0).named("Second Brigade").field("chit");
        assert_eq!(locus.describe(), "sides[1].brigades[0].chit (\"Second Brigade\")");
    }
}
