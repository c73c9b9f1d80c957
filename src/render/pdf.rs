//! SVG pages joined into one PDF. svg2pdf and krilla-svg, the pure-Rust converters, are built on
//! older usvg releases than the resvg 0.49 `render` uses (a second usvg and font stack), so this
//! is a small converter of its own: usvg parses and lays out each page exactly as the PNG path
//! does (the bundled DejaVu Sans), and the parsed tree's paths are written as PDF path operators.
//! Text arrives as glyph outlines (usvg's `flattened`), so nothing depends on the reader's fonts;
//! the price is that the PDF's text cannot be selected. Only what `render` draws is handled:
//! solid colours with opacity, strokes with dashes, caps and joins, paint order, clip paths.
//! Gradients, patterns, images, masks and filters are not drawn.

use std::fmt::Write as _;
use std::io::Write as _;

use resvg::usvg::tiny_skia_path::{PathSegment, Point, Transform};
use resvg::usvg::{self, FillRule, Group, LineCap, LineJoin, Node, Paint, PaintOrder};

/// One page: its size in points and its content stream, in PDF's coordinates (y up, points).
#[derive(Clone, Debug)]
pub struct Page {
    pub width: f32,
    pub height: f32,
    pub content: String,
    /// Fill and stroke opacities (0–255) used, each an ExtGState named `/G{index}`.
    states: Vec<(u8, u8)>,
}

/// A PDF page from SVG text whose user unit is the point (`viewBox="0 0 W H"`, W x H points).
pub fn page(svg_text: &str, options: &usvg::Options) -> Result<Page, String> {
    let tree = usvg::Tree::from_str(svg_text, options).map_err(|e| e.to_string())?;
    let (width, height) = (tree.size().width(), tree.size().height());
    let mut w = Writer { out: String::new(), states: Vec::new(), state: None };
    // SVG's y runs down from the top, PDF's up from the bottom.
    w.group(tree.root(), Transform::from_row(1.0, 0.0, 0.0, -1.0, 0.0, height), 1.0);
    Ok(Page { width, height, content: w.out, states: w.states })
}

struct Writer {
    out: String,
    states: Vec<(u8, u8)>,
    state: Option<usize>,
}

/// A number as PDF writes it: at most three decimals, no trailing zeros.
fn num(v: f32) -> String {
    let s = format!("{:.3}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

fn colour(paint: &Paint) -> Option<[f32; 3]> {
    match paint {
        Paint::Color(c) => Some([c.red, c.green, c.blue].map(|v| v as f32 / 255.0)),
        _ => None,
    }
}

impl Writer {
    fn group(&mut self, g: &Group, ts: Transform, opacity: f32) {
        let ts = ts.pre_concat(g.transform());
        // Group opacity is folded into each child's: exact for what `render` draws, where
        // grouped shapes do not overlap.
        let opacity = opacity * g.opacity().get();
        let clipped = g.clip_path().is_some();
        if let Some(clip) = g.clip_path() {
            self.out.push_str("q\n");
            self.clip_group(clip.root(), ts.pre_concat(clip.transform()));
            self.out.push_str("W n\n");
            // A clip resets nothing, but `Q` will restore the graphics state: forget the one set.
            self.state = None;
        }
        for node in g.children() {
            match node {
                Node::Group(child) => self.group(child, ts, opacity),
                Node::Path(p) => self.path(p, ts, opacity),
                Node::Text(t) => self.group(t.flattened(), ts, opacity),
                Node::Image(_) => {}
            }
        }
        if clipped {
            self.out.push_str("Q\n");
            self.state = None;
        }
    }

    /// A clip path's outlines as one path (nonzero union).
    fn clip_group(&mut self, g: &Group, ts: Transform) {
        let ts = ts.pre_concat(g.transform());
        for node in g.children() {
            match node {
                Node::Group(child) => self.clip_group(child, ts),
                Node::Path(p) => self.outline(p.data(), ts),
                Node::Text(t) => self.clip_group(t.flattened(), ts),
                Node::Image(_) => {}
            }
        }
    }

    fn outline(&mut self, data: &usvg::tiny_skia_path::Path, ts: Transform) {
        let map = |mut p: Point| {
            ts.map_point(&mut p);
            format!("{} {}", num(p.x), num(p.y))
        };
        let mut last = Point::zero();
        for seg in data.segments() {
            match seg {
                PathSegment::MoveTo(p) => {
                    let _ = writeln!(self.out, "{} m", map(p));
                    last = p;
                }
                PathSegment::LineTo(p) => {
                    let _ = writeln!(self.out, "{} l", map(p));
                    last = p;
                }
                PathSegment::QuadTo(q, p) => {
                    // A quadratic as the cubic that traces it.
                    let c1 = Point::from_xy(last.x + 2.0 / 3.0 * (q.x - last.x), last.y + 2.0 / 3.0 * (q.y - last.y));
                    let c2 = Point::from_xy(p.x + 2.0 / 3.0 * (q.x - p.x), p.y + 2.0 / 3.0 * (q.y - p.y));
                    let _ = writeln!(self.out, "{} {} {} c", map(c1), map(c2), map(p));
                    last = p;
                }
                PathSegment::CubicTo(c1, c2, p) => {
                    let _ = writeln!(self.out, "{} {} {} c", map(c1), map(c2), map(p));
                    last = p;
                }
                PathSegment::Close => self.out.push_str("h\n"),
            }
        }
    }

    /// Select the ExtGState for these opacities (none is written for opaque paint).
    fn opacity(&mut self, fill: u8, stroke: u8) {
        let i = match self.states.iter().position(|&s| s == (fill, stroke)) {
            Some(i) => i,
            None => {
                self.states.push((fill, stroke));
                self.states.len() - 1
            }
        };
        if self.state != Some(i) {
            let _ = writeln!(self.out, "/G{i} gs");
            self.state = Some(i);
        }
    }

    fn path(&mut self, p: &usvg::Path, ts: Transform, opacity: f32) {
        if !p.is_visible() {
            return;
        }
        let fill = p.fill().and_then(|f| Some((colour(f.paint())?, f.opacity().get() * opacity, f.rule())));
        // Stroke widths and dashes scale with the transform (uniform in what `render` draws).
        let k = (ts.sx * ts.sy - ts.kx * ts.ky).abs().sqrt();
        let stroke = p.stroke().and_then(|s| Some((colour(s.paint())?, s.opacity().get() * opacity, s)));
        if fill.is_none() && stroke.is_none() {
            return;
        }
        let alpha = |a: f32| (a.clamp(0.0, 1.0) * 255.0).round() as u8;
        self.opacity(fill.map_or(255, |f| alpha(f.1)), stroke.as_ref().map_or(255, |s| alpha(s.1)));
        self.out.push_str("q\n");
        if let Some((c, _, _)) = fill {
            let _ = writeln!(self.out, "{} {} {} rg", num(c[0]), num(c[1]), num(c[2]));
        }
        if let Some((c, _, s)) = &stroke {
            let _ = writeln!(self.out, "{} {} {} RG", num(c[0]), num(c[1]), num(c[2]));
            let cap = match s.linecap() {
                LineCap::Butt => 0,
                LineCap::Round => 1,
                LineCap::Square => 2,
            };
            let join = match s.linejoin() {
                LineJoin::Miter | LineJoin::MiterClip => 0,
                LineJoin::Round => 1,
                LineJoin::Bevel => 2,
            };
            let _ = writeln!(self.out, "{} w {cap} J {join} j {} M", num(s.width().get() * k), num(s.miterlimit().get()));
            if let Some(dash) = s.dasharray() {
                let d: Vec<String> = dash.iter().map(|d| num(d * k)).collect();
                let _ = writeln!(self.out, "[{}] {} d", d.join(" "), num(s.dashoffset() * k));
            }
        }
        let even_odd = matches!(fill, Some((_, _, FillRule::EvenOdd)));
        let fill_op = if even_odd { "f*" } else { "f" };
        match (fill.is_some(), stroke.is_some(), p.paint_order()) {
            (true, true, PaintOrder::FillAndStroke) => {
                self.outline(p.data(), ts);
                self.out.push_str(if even_odd { "B*\n" } else { "B\n" });
            }
            (true, true, PaintOrder::StrokeAndFill) => {
                // A halo: the stroke under the fill, so the path is drawn twice.
                self.outline(p.data(), ts);
                self.out.push_str("S\n");
                self.outline(p.data(), ts);
                let _ = writeln!(self.out, "{fill_op}");
            }
            (true, false, _) => {
                self.outline(p.data(), ts);
                let _ = writeln!(self.out, "{fill_op}");
            }
            _ => {
                self.outline(p.data(), ts);
                self.out.push_str("S\n");
            }
        }
        self.out.push_str("Q\n");
        // `Q` brings back the state from before `q`, which is the one selected above.
    }
}

/// Text as a PDF string: UTF-16BE with its byte-order mark, in hex, so any name survives.
fn text_string(t: &str) -> String {
    let mut s = String::from("<FEFF");
    for u in t.encode_utf16() {
        let _ = write!(s, "{u:04X}");
    }
    s.push('>');
    s
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

/// The pages as one PDF file (1.4, content streams compressed).
pub fn document(pages: &[Page], title: &str) -> Vec<u8> {
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets: Vec<usize> = Vec::new();
    let mut object = |out: &mut Vec<u8>, body: &[u8]| {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", offsets.len()).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    // Objects 1–3: catalog, page tree, info; then each page and its content, in pairs.
    let kids: Vec<String> = (0..pages.len()).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    object(&mut out, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(&mut out, format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), pages.len()).as_bytes());
    object(&mut out, format!("<< /Title {} /Producer (otp render --print) >>", text_string(title)).as_bytes());
    for (i, p) in pages.iter().enumerate() {
        let states: String = p.states.iter().enumerate().map(|(j, (f, s))| format!(" /G{j} << /Type /ExtGState /ca {} /CA {} >>", num(*f as f32 / 255.0), num(*s as f32 / 255.0))).collect();
        let page = format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Resources << /ExtGState <<{states} >> >> /Contents {} 0 R >>",
            num(p.width),
            num(p.height),
            5 + 2 * i
        );
        object(&mut out, page.as_bytes());
        let z = deflate(p.content.as_bytes());
        let mut body = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", z.len()).into_bytes();
        body.extend_from_slice(&z);
        body.extend_from_slice(b"\nendstream");
        object(&mut out, &body);
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1);
    for o in &offsets {
        let _ = writeln!(table, "{o:010} 00000 n ");
    }
    let _ = write!(table, "trailer\n<< /Size {} /Root 1 0 R /Info 3 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1);
    out.extend_from_slice(table.as_bytes());
    out
}

/// The decompressed content streams of a PDF this module wrote, in page order: for tests and
/// checks that read the output back.
pub fn contents(pdf: &[u8]) -> Vec<String> {
    use std::io::Read as _;
    let mut found = Vec::new();
    let mut rest = pdf;
    while let Some(i) = find(rest, b"/FlateDecode >>\nstream\n") {
        let head = &rest[..i];
        let len_at = find_last(head, b"/Length ").expect("a length before the stream");
        let len: usize = std::str::from_utf8(&head[len_at + 8..]).ok().and_then(|s| s.split_whitespace().next()).and_then(|n| n.parse().ok()).expect("a length");
        let start = i + b"/FlateDecode >>\nstream\n".len();
        let mut text = String::new();
        flate2::read::ZlibDecoder::new(&rest[start..start + len]).read_to_string(&mut text).expect("a content stream this module wrote");
        found.push(text);
        rest = &rest[start + len..];
    }
    found
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_holds_its_paths_in_points_with_y_up_and_the_file_reads_back() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
            <rect x="10" y="10" width="50" height="20" fill="rgb(255,0,0)" fill-opacity="0.5"/>
            <line x1="72" y1="0" x2="72" y2="100" fill="none" stroke="black" stroke-width="2" stroke-dasharray="3 3"/>
        </svg>"#;
        let p = page(svg, &crate::render::usvg_options()).unwrap();
        assert_eq!((p.width, p.height), (200.0, 100.0));
        // The rectangle's top-left (10, 10) in SVG is (10, 90) in PDF.
        assert!(p.content.contains("10 90 m"), "{}", p.content);
        assert!(p.content.contains("1 0 0 rg") && p.content.contains("72 100 m\n72 0 l\nS"), "{}", p.content);
        assert!(p.content.contains("[3 3] 0 d"), "{}", p.content);
        let pdf = document(&[p.clone(), p], "Ça ira");
        assert!(pdf.starts_with(b"%PDF-1.4") && pdf.ends_with(b"%%EOF\n"));
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("/Count 2") && text.contains("/ca 0.502 /CA 1"), "a page count and the fill's opacity");
        assert_eq!(contents(&pdf).len(), 2);
        // Every xref offset points at its object.
        let xref = text.rfind("xref\n").unwrap();
        for (n, line) in text[xref..].lines().skip(3).take_while(|l| l.ends_with(" n ")).enumerate() {
            let at: usize = line[..10].parse().unwrap();
            assert!(pdf[at..].starts_with(format!("{} 0 obj", n + 1).as_bytes()), "object {} at {at}", n + 1);
        }
    }
}
