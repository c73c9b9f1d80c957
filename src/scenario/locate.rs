//! Finding where in a scenario file a problem lies, so every error reads `file:line:col: message`.
//!
//! serde gives positions for syntax and type errors; for the checks made after parsing we find
//! the named item (`name: "…"`, the n-th one for duplicates) and then the field inside it.

/// Where a problem is: inside the `nth` item called `name` (if any), at `field` (if any).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Locus {
    pub name: Option<(String, usize)>,
    pub fields: Vec<&'static str>,
}

impl Locus {
    pub fn top(field: &'static str) -> Self {
        Locus { name: None, fields: vec![field] }
    }
    pub fn item(name: &str) -> Self {
        Locus { name: Some((name.to_string(), 0)), fields: vec![] }
    }
    pub fn nth(mut self, nth: usize) -> Self {
        if let Some((_, n)) = &mut self.name {
            *n = nth;
        }
        self
    }
    pub fn field(mut self, field: &'static str) -> Self {
        self.fields.push(field);
        self
    }
    /// A readable path for when the text cannot be searched.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.name.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        parts.extend(self.fields.iter().map(|f| f.to_string()));
        parts.join(".")
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte offset of the next `key:` at or after `from` (a whole identifier followed by a colon),
/// skipping string literals and comments.
fn find_key(src: &str, key: &str, from: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut i = from;
    while i < src.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < src.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if src[i..].starts_with("//") => i = src[i..].find('\n').map_or(src.len(), |n| i + n),
            _ if src[i..].starts_with(key)
                && !src[..i].chars().next_back().is_some_and(is_ident)
                && src[i + key.len()..].trim_start().starts_with(':')
                && !src[i + key.len()..].starts_with(|c: char| is_ident(c)) =>
            {
                return Some(i);
            }
            _ => i += src[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    None
}

/// Offset of the `nth` `name: "<name>"` in the file.
fn find_named(src: &str, name: &str, nth: usize) -> Option<usize> {
    let mut from = 0;
    let mut seen = 0;
    while let Some(at) = find_key(src, "name", from) {
        let rest = src[at + 4..].trim_start().strip_prefix(':')?.trim_start();
        if let Some(value) = rest.strip_prefix('"')
            && value.strip_prefix(name).is_some_and(|v| v.starts_with('"'))
        {
            if seen == nth {
                return Some(at);
            }
            seen += 1;
        }
        from = at + 4;
    }
    None
}

/// Line and column of a locus, or None when the text does not show it.
pub fn locate(src: &str, locus: &Locus) -> Option<(usize, usize)> {
    let mut at = match &locus.name {
        Some((name, nth)) => find_named(src, name, *nth)?,
        None => 0,
    };
    for field in &locus.fields {
        match find_key(src, field, at) {
            Some(found) => at = found,
            None => break,
        }
    }
    if locus.name.is_none() && locus.fields.is_empty() {
        return None;
    }
    Some(line_col(src, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"(
    name: "Demo", // name: "Fake"
    units: [
        (name: "A", figures: 4),
        (name: "B", text: "figures: 9", figures: 12),
        (name: "A", figures: 5),
    ],
)"#;

    #[test]
    fn finds_the_field_inside_the_named_item() {
        assert_eq!(locate(SRC, &Locus::item("B").field("figures")), Some((5, 41)));
        assert_eq!(locate(SRC, &Locus::item("A").nth(1).field("figures")), Some((6, 21)));
        assert_eq!(locate(SRC, &Locus::item("Fake")), None, "comments are not searched");
        assert_eq!(locate(SRC, &Locus::top("units")), Some((3, 5)));
    }
}
