//! `otp render`: a scenario set-up as SVG or PNG, drawn from the same `picture` as the window.

use std::fmt::Write as _;
use std::path::Path;

use crate::picture::{Picture, Rgba, Shape, Stroke};

pub mod pdf;
pub mod print;

/// Pixels per inch of a PNG unless asked otherwise: a 6' x 4' table is 1440 x 960.
pub const DEFAULT_PNG_SCALE: f32 = 20.0;
/// Margin around the table, inches.
const MARGIN: f32 = 1.0;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const FONT_FAMILY: &str = "DejaVu Sans";

fn paint(attr: &str, c: Option<Rgba>) -> String {
    match c {
        None => format!(" {attr}=\"none\""),
        Some(c) => format!(" {attr}=\"rgb({},{},{})\" {attr}-opacity=\"{:.3}\"", c[0], c[1], c[2], c[3] as f32 / 255.0),
    }
}

fn stroke(s: Option<Stroke>) -> String {
    match s {
        None => " stroke=\"none\"".into(),
        Some(s) => {
            let mut out = paint("stroke", Some(s.colour));
            // Square ends: roads and streams stop at the table edge, fences read as rails.
            let _ = write!(out, " stroke-width=\"{:.3}\" stroke-linejoin=\"round\" stroke-linecap=\"butt\"", s.width);
            if let Some(d) = s.dash {
                let _ = write!(out, " stroke-dasharray=\"{d:.3} {d:.3}\"");
            }
            out
        }
    }
}

/// Text as XML character data or a quoted attribute value. Characters XML 1.0 cannot carry at
/// all, not even escaped (NUL and most control characters), become U+FFFD: the SVG stays valid
/// and shows that something was there.
pub fn escape(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// SVG text of a picture. The table's y runs up; SVG's runs down, so y is flipped here.
pub fn svg(picture: &Picture, title: &str) -> String {
    let (w, h) = (picture.width + 2.0 * MARGIN, picture.depth + 2.0 * MARGIN + 1.5);
    let fy = |y: f32| picture.depth + MARGIN - y;
    let fx = |x: f32| x + MARGIN;
    let mut out = String::new();
    let _ = writeln!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.2} {h:.2}" width="{:.0}" height="{:.0}" font-family="{FONT_FAMILY}">"#, w * 12.0, h * 12.0);
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let bg = crate::picture::palette::BACKGROUND;
    let _ = writeln!(out, r#"<rect x="0" y="0" width="{w:.2}" height="{h:.2}" fill="rgb({},{},{})"/>"#, bg[0], bg[1], bg[2]);
    write_shapes(&mut out, &picture.shapes, &fx, &fy, |_| true);
    // Title and a scale bar under the table.
    let y = picture.depth + 2.0 * MARGIN + 0.6;
    let _ = writeln!(out, r#"<text x="{MARGIN}" y="{y:.2}" font-size="0.8" fill="rgb(235,230,210)">{}</text>"#, escape(title));
    let x0 = w - MARGIN - 13.0;
    let _ = writeln!(out, r#"<g stroke="rgb(235,230,210)" stroke-width="0.12"><line x1="{x0:.2}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}"/><line x1="{x0:.2}" y1="{:.2}" x2="{x0:.2}" y2="{:.2}"/><line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/><line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/></g>"#,
        x0 + 12.0, y - 0.3, y + 0.3, x0 + 6.0, y - 0.2, x0 + 6.0, y + 0.2, x0 + 12.0, y - 0.3, x0 + 12.0, y + 0.3);
    for (dx, t) in [(0.0, "0"), (6.0, "6\""), (12.0, "12\"")] {
        let _ = writeln!(out, r#"<text x="{:.2}" y="{:.2}" font-size="0.6" text-anchor="middle" fill="rgb(235,230,210)">{}</text>"#, x0 + dx, y + 0.9, escape(t));
    }
    out.push_str("</svg>\n");
    out
}

/// SVG elements for shapes, each point through `fx`/`fy` (table inches to SVG units; SVG's y runs
/// down). Sizes and widths stay in table inches, so a caller scales them with a group transform.
/// `keep` lets a printed tile skip what falls off it.
pub(crate) fn write_shapes(out: &mut String, shapes: &[Shape], fx: &dyn Fn(f32) -> f32, fy: &dyn Fn(f32) -> f32, keep: impl Fn(&Shape) -> bool) {
    let point_list = |pts: &[bevy::math::Vec2]| pts.iter().map(|p| format!("{:.3},{:.3}", fx(p.x), fy(p.y))).collect::<Vec<_>>().join(" ");
    for shape in shapes.iter().filter(|s| keep(s)) {
        match shape {
            Shape::Polygon { points, fill, stroke: s } => {
                let _ = writeln!(out, r#"<polygon points="{}"{}{}/>"#, point_list(points), paint("fill", *fill), stroke(*s));
            }
            Shape::Line { points, stroke: s } => {
                let _ = writeln!(out, r#"<polyline points="{}" fill="none"{}/>"#, point_list(points), stroke(Some(*s)));
            }
            Shape::Circle { centre, radius, fill, stroke: s } => {
                let _ = writeln!(out, r#"<circle cx="{:.3}" cy="{:.3}" r="{radius:.3}"{}{}/>"#, fx(centre.x), fy(centre.y), paint("fill", *fill), stroke(*s));
            }
            Shape::Label { at, text, size, colour: c, .. } => {
                let halo = " stroke=\"rgb(255,255,255)\" stroke-opacity=\"0.7\" paint-order=\"stroke\"";
                let _ = writeln!(
                    out,
                    r#"<text x="{:.3}" y="{:.3}" font-size="{size:.3}" text-anchor="middle" dominant-baseline="central"{}{halo} stroke-width="{:.3}">{}</text>"#,
                    fx(at.x),
                    fy(at.y),
                    paint("fill", Some(*c)),
                    size * 0.25,
                    escape(text)
                );
            }
        }
    }
}

/// Rasterise `svg` text to PNG bytes at `scale` pixels an inch (its nominal size is 12 px an inch).
pub fn png(svg_text: &str, scale: f32) -> Result<Vec<u8>, String> {
    png_at(svg_text, scale / 12.0)
}

/// usvg's options with the bundled font, so every machine draws the same letters.
pub(crate) fn usvg_options() -> resvg::usvg::Options<'static> {
    let mut options = resvg::usvg::Options::default();
    options.fontdb_mut().load_font_data(FONT.to_vec());
    options.font_family = FONT_FAMILY.to_string();
    options
}

/// Rasterise SVG text at `k` pixels per SVG unit.
pub fn png_at(svg_text: &str, k: f32) -> Result<Vec<u8>, String> {
    let tree = resvg::usvg::Tree::from_str(svg_text, &usvg_options()).map_err(|e| e.to_string())?;
    let size = tree.size();
    let (w, h) = ((size.width() * k).ceil() as u32, (size.height() * k).ceil() as u32);
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("a {w} x {h} pixel image is too large; lower --scale"));
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h).ok_or("cannot allocate the image")?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(k, k), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// Write a picture to `.svg` or `.png` by the output's extension.
pub fn write(picture: &Picture, title: &str, out: &Path, scale: f32) -> Result<(), String> {
    let text = svg(picture, title);
    match out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => crate::scenario::write_atomically(out, &text).map_err(|e| e.to_string()),
        Some("png") => {
            let bytes = png(&text, scale)?;
            crate::scenario::write_bytes_atomically(out, &bytes).map_err(|e| e.to_string())
        }
        _ => Err(format!("{}: the output must end in .svg or .png", out.display())),
    }
}
