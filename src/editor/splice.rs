//! Saving an edited scenario into the text it was read from, so a designer's comments survive.
//!
//! What is kept: the file byte for byte when nothing was edited; otherwise every comment and
//! every line of layout outside the items that changed. The file is compared item by item —
//! the particulars (name, table, history…), each terrain feature, objective, side, brigade,
//! unit and wagon — and only a changed item's text is written anew (one line if it was on one
//! line); an added item goes after its neighbour in the style of its siblings, a deleted one
//! goes with the comment lines above it. A comment *inside* a changed item is lost with it.
//! The result is read back and must equal the scenario; if it does not (a layout this does not
//! follow), the whole file is written by the serializer under the file's opening comment block.

use serde::Serialize;

use crate::scenario::locate::{Kind, Spans};
use crate::scenario::model::*;
use crate::scenario::{self, without_bom};

/// `src` (which read as `old`) changed to say `new`.
pub fn splice(src: &str, old: &Scenario, new: &Scenario) -> String {
    if old == new {
        return src.to_string();
    }
    let body = without_bom(src);
    let bom = &src[..src.len() - body.len()];
    let spliced = Spans::of(body).map(|spans| {
        let mut p = Patch { src: body, edits: Vec::new() };
        p.scenario(&spans, old, new);
        p.apply()
    });
    match spliced {
        Some(text) if scenario::from_ron::<Scenario>(&text, "").ok().as_ref() == Some(new) => {
            format!("{bom}{text}")
        }
        _ => format!("{bom}{}{}", header(body), scenario::to_ron(new)),
    }
}

/// The comment block a file opens with (its title, sources, scales), kept by a full rewrite.
fn header(body: &str) -> String {
    let lines: Vec<&str> = body.lines().take_while(|l| l.trim_start().starts_with("//") || l.trim().is_empty()).collect();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// RON for a value: pretty (an item that spanned lines), or on one line.
fn ron_text<T: Serialize>(value: &T, one_line: bool) -> String {
    let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ".to_string());
    let config = if one_line { config.compact_structs(true).compact_arrays(true).compact_maps(true).new_line(" ".to_string()) } else { config };
    ron::Options::default().to_string_pretty(value, config).expect("scenarios always serialise")
}

struct Patch<'a> {
    src: &'a str,
    /// (start, end, replacement), no two overlapping.
    edits: Vec<(usize, usize, String)>,
}

impl Patch<'_> {
    fn apply(mut self) -> String {
        self.edits.sort_by_key(|e| (e.0, e.1));
        let mut out = String::with_capacity(self.src.len());
        let mut at = 0;
        for (start, end, text) in self.edits {
            out.push_str(&self.src[at..start.max(at)]);
            out.push_str(&text);
            at = end.max(at);
        }
        out.push_str(&self.src[at..]);
        out
    }

    /// The blanks that open the line `at` is on.
    fn indent(&self, at: usize) -> &str {
        let line = self.src[..at].rfind('\n').map_or(0, |n| n + 1);
        let lead = &self.src[line..at];
        let n = lead.len() - lead.trim_start().len();
        &lead[..n]
    }

    /// An item of a few lines is written on one; a long one (a side, a list) pretty.
    fn short(&self, span: &Spans) -> bool {
        self.src[span.at..span.end].lines().count() <= 3
    }

    /// `text` with its later lines indented as the line at `at`.
    fn indented(&self, text: &str, at: usize) -> String {
        text.replace('\n', &format!("\n{}", self.indent(at)))
    }

    fn replace<T: Serialize>(&mut self, span: &Spans, value: &T) {
        let one_line = self.short(span);
        let text = self.indented(&ron_text(value, one_line), span.at);
        self.edits.push((span.at, span.end, text));
    }

    /// A struct field: replaced where written, else written before the struct's close.
    fn field<T: Serialize + PartialEq>(&mut self, parent: &Spans, name: &str, old: &T, new: &T) {
        if old == new {
            return;
        }
        match parent.field(name) {
            Some((_, span)) => self.replace(span, new),
            None => {
                // Before the closing parenthesis, after the last field (and its comma).
                let close = self.src[..parent.end].rfind(')').unwrap_or(parent.end);
                let last_end = match &parent.kind {
                    Kind::Fields(f) => f.iter().map(|(_, _, s)| s.end).max().unwrap_or(parent.at + 1),
                    _ => parent.at + 1,
                };
                let comma = self.after_comma(last_end).is_some();
                let key_at = match &parent.kind {
                    Kind::Fields(f) => f.first().map_or(close, |(_, k, _)| *k),
                    _ => close,
                };
                let multi = self.src[parent.at..parent.end].contains('\n');
                let value = ron_text(new, !multi);
                let text = if multi { format!("{}\n{}{name}: {},", if comma { "" } else { "," }, self.indent(key_at), self.indented(&value, key_at)) } else { format!("{}{name}: {value}", if comma { " " } else { ", " }) };
                let at = self.after_comma(last_end).unwrap_or(last_end);
                self.edits.push((at, at, text));
            }
        }
    }

    /// Just past the comma that follows `end` (blanks between), if one does.
    fn after_comma(&self, end: usize) -> Option<usize> {
        let rest = &self.src[end..];
        let blanks = rest.len() - rest.trim_start().len();
        rest[blanks..].starts_with(',').then_some(end + blanks + 1)
    }

    /// A list of items: kept, changed (`item` writes the change), added or deleted, by the
    /// longest run of items common to both.
    fn list<T: Serialize + PartialEq>(&mut self, list: Option<&Spans>, name: &str, parent: &Spans, old: &[T], new: &[T], item: fn(&mut Self, &Spans, &T, &T)) {
        if old == new {
            return;
        }
        let Some(list) = list else {
            return self.field(parent, name, &old, &new);
        };
        let spans = match &list.kind {
            Kind::Items(items) if items.len() == old.len() && !items.is_empty() => items,
            _ => return self.replace(list, &new),
        };
        let one_line = spans.iter().all(|s| self.short(s));
        let indent_at = spans[0].at;
        let inside = self.indent(indent_at).len() == self.src[..indent_at].rfind('\n').map_or(indent_at, |n| indent_at - n - 1);
        // Longest common subsequence of equal items.
        let (n, m) = (old.len(), new.len());
        let mut lcs = vec![vec![0u16; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if old[i] == new[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        // Where an added item goes: after the last old item kept or written (its comma), or
        // after the bracket.
        let mut anchor: Option<usize> = None;
        let mut pending_old: Vec<usize> = Vec::new();
        let mut pending_new: Vec<usize> = Vec::new();
        let flush = |p: &mut Self, olds: &mut Vec<usize>, news: &mut Vec<usize>, anchor: &mut Option<usize>| {
            let pairs = olds.len().min(news.len());
            for k in 0..pairs {
                item(p, &spans[olds[k]], &old[olds[k]], &new[news[k]]);
                *anchor = Some(olds[k]);
            }
            for &o in &olds[pairs..] {
                p.delete(spans, o);
            }
            for &nw in &news[pairs..] {
                p.insert(list, spans, *anchor, &new[nw], one_line, inside);
            }
            olds.clear();
            news.clear();
        };
        while i < n || j < m {
            if i < n && j < m && old[i] == new[j] {
                flush(self, &mut pending_old, &mut pending_new, &mut anchor);
                anchor = Some(i);
                i += 1;
                j += 1;
            } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
                pending_new.push(j);
                j += 1;
            } else {
                pending_old.push(i);
                i += 1;
            }
        }
        flush(self, &mut pending_old, &mut pending_new, &mut anchor);
    }

    /// Remove item `k` with the comment lines above it and its comma.
    fn delete(&mut self, spans: &[Spans], k: usize) {
        let start = match k {
            0 => self.src[..spans[0].at].rfind('[').map_or(spans[0].at, |b| b + 1),
            _ => self.after_comma(spans[k - 1].end).unwrap_or(spans[k - 1].end),
        };
        let end = self.after_comma(spans[k].end).unwrap_or(spans[k].end);
        self.edits.push((start, end, String::new()));
    }

    /// Add `value` after old item `after` (or first), in the siblings' style.
    fn insert<T: Serialize>(&mut self, list: &Spans, spans: &[Spans], after: Option<usize>, value: &T, one_line: bool, own_lines: bool) {
        let text = self.indented(&ron_text(value, one_line), spans[0].at);
        let (at, comma) = match after {
            Some(k) => match self.after_comma(spans[k].end) {
                Some(c) => (c, ""),
                None => (spans[k].end, ","),
            },
            None => (self.src[..spans[0].at].rfind('[').map_or(list.at + 1, |b| b + 1), ""),
        };
        let gap = if own_lines { format!("\n{}", self.indent(spans[0].at)) } else { " ".to_string() };
        let text = match after {
            Some(_) => format!("{comma}{gap}{text},"),
            None => format!("{gap}{text},"),
        };
        self.edits.push((at, at, text));
    }

    fn scenario(&mut self, top: &Spans, old: &Scenario, new: &Scenario) {
        self.field(top, "name", &old.name, &new.name);
        self.field(top, "rules", &old.rules, &new.rules);
        self.field(top, "description", &old.description, &new.description);
        self.field(top, "history", &old.history, &new.history);
        self.field(top, "table", &old.table, &new.table);
        self.field(top, "basing", &old.basing, &new.basing);
        self.field(top, "optional_rules", &old.optional_rules, &new.optional_rules);
        self.field(top, "turn_limit", &old.turn_limit, &new.turn_limit);
        self.list(top.field("terrain").map(|f| f.1), "terrain", top, &old.terrain, &new.terrain, Patch::whole);
        self.list(top.field("objectives").map(|f| f.1), "objectives", top, &old.objectives, &new.objectives, Patch::whole);
        self.list(top.field("sides").map(|f| f.1), "sides", top, &old.sides, &new.sides, Patch::side);
    }

    fn whole<T: Serialize>(&mut self, span: &Spans, _old: &T, new: &T) {
        self.replace(span, new);
    }

    fn side(&mut self, span: &Spans, old: &Side, new: &Side) {
        if !matches!(span.kind, Kind::Fields(_)) {
            return self.replace(span, new);
        }
        self.field(span, "name", &old.name, &new.name);
        self.field(span, "colour", &old.colour, &new.colour);
        self.field(span, "commander", &old.commander, &new.commander);
        self.field(span, "nation", &old.nation, &new.nation);
        self.field(span, "moves_first", &old.moves_first, &new.moves_first);
        self.field(span, "posture", &old.posture, &new.posture);
        self.list(span.field("brigades").map(|f| f.1), "brigades", span, &old.brigades, &new.brigades, Patch::brigade);
        self.list(span.field("wagons").map(|f| f.1), "wagons", span, &old.wagons, &new.wagons, Patch::whole);
    }

    fn brigade(&mut self, span: &Spans, old: &Brigade, new: &Brigade) {
        if !matches!(span.kind, Kind::Fields(_)) {
            return self.replace(span, new);
        }
        self.field(span, "name", &old.name, &new.name);
        self.field(span, "chit", &old.chit, &new.chit);
        self.field(span, "commander", &old.commander, &new.commander);
        self.field(span, "posture", &old.posture, &new.posture);
        self.list(span.field("units").map(|f| f.1), "units", span, &old.units, &new.units, Patch::whole);
    }
}
