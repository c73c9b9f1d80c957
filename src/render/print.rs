//! `otp render --print A4|Letter`: the table at true scale, tiled over pages a player lays on the
//! real table. One PDF: a page map first (the whole table shrunk, with the tiles over it), then
//! the tiles row by row (rows A, B… from the far edge, columns 1, 2… from the left), then the
//! set-up sheet (every unit's place and facing by side and brigade). Each page is SVG in points
//! drawn from the same `picture` as the window, then turned into PDF by `render::pdf`.

use std::fmt::Write as _;
use std::path::Path;

use bevy::math::Vec2;

use super::{FONT_FAMILY, escape, write_shapes};
use crate::picture::{self, Shape, label_width};
use crate::scenario::model::{Arm, Scenario, Unit};

/// Points an inch: at scale 1 the inch grid prints a line every 72 pt.
pub const PT: f32 = 72.0;
/// Paper left unprinted round each page, inches: most printers cannot print the last quarter inch.
pub const MARGIN: f32 = 0.5;
/// The least overlap between neighbouring tiles, inches of paper.
pub const OVERLAP: f32 = 0.5;
/// More pages than this is a mistake in `--scale`, not a table anyone will tape together.
pub const MAX_PAGES: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Paper {
    #[value(name = "A4")]
    A4,
    #[value(name = "Letter")]
    Letter,
}

impl Paper {
    /// Portrait width and height in points.
    pub fn size(self) -> Vec2 {
        match self {
            // 210 x 297 mm.
            Paper::A4 => Vec2::new(210.0, 297.0) / 25.4 * PT,
            Paper::Letter => Vec2::new(8.5, 11.0) * PT,
        }
    }

    /// Width and height in points, turned if `landscape`.
    pub fn oriented(self, landscape: bool) -> Vec2 {
        let s = self.size();
        if landscape { Vec2::new(s.y, s.x) } else { s }
    }

    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "Letter",
        }
    }
}

/// How the table falls on pages: the tile every page shows and the step from one to the next,
/// in table inches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub paper: Paper,
    pub landscape: bool,
    pub scale: f32,
    /// The page, points.
    pub page: Vec2,
    /// The table, inches.
    pub table: Vec2,
    /// Table inches one page shows.
    pub tile: Vec2,
    /// Table inches from one page's corner to the next page's.
    pub step: Vec2,
    pub cols: usize,
    pub rows: usize,
}

/// Tiles of `tile` every `step` needed to cover `length`.
fn count(length: f32, tile: f32, step: f32) -> usize {
    if length <= tile + 1e-3 { 1 } else { ((length - tile) / step - 1e-3).ceil() as usize + 1 }
}

impl Layout {
    /// The tiling of a table on a paper at a scale, portrait or landscape, whichever takes fewer
    /// pages (on a tie, the one shaped like the table).
    pub fn new(table: Vec2, paper: Paper, scale: f32) -> Result<Layout, String> {
        if !scale.is_finite() || !(0.1..=10.0).contains(&scale) {
            return Err("--scale with --print must be 0.1 to 10 (1 is true size)".into());
        }
        let fit = |landscape: bool| {
            let page = paper.oriented(landscape);
            let tile = (page / PT - 2.0 * MARGIN) / scale;
            // Pages start on whole or half inches where the tile allows, so their coordinates read
            // cleanly; the overlap is then a little more than the least.
            let raw = tile - OVERLAP / scale;
            let step = Vec2::new(if raw.x >= 0.5 { (raw.x * 2.0).floor() / 2.0 } else { raw.x }, if raw.y >= 0.5 { (raw.y * 2.0).floor() / 2.0 } else { raw.y });
            let (cols, rows) = (count(table.x, tile.x, step.x), count(table.y, tile.y, step.y));
            Layout { paper, landscape, scale, page, table, tile, step, cols, rows }
        };
        let (portrait, landscape) = (fit(false), fit(true));
        let wide = table.x > table.y;
        let best = match portrait.tiles().cmp(&landscape.tiles()) {
            std::cmp::Ordering::Less => portrait,
            std::cmp::Ordering::Greater => landscape,
            std::cmp::Ordering::Equal if wide => landscape,
            std::cmp::Ordering::Equal => portrait,
        };
        if best.tiles() + 2 > MAX_PAGES {
            return Err(format!("at --scale {scale} the table takes {} pages of {}; lower --scale", best.tiles(), paper.name()));
        }
        Ok(best)
    }

    pub fn tiles(&self) -> usize {
        self.cols * self.rows
    }

    /// The table point at a tile's top-left corner (rows count down from the far edge).
    pub fn corner(&self, row: usize, col: usize) -> Vec2 {
        Vec2::new(col as f32 * self.step.x, self.table.y - row as f32 * self.step.y)
    }

    /// The tile a table point is printed on, counting each tile from its corner to the next's.
    pub fn tile_of(&self, p: Vec2) -> (usize, usize) {
        let col = (p.x / self.step.x).floor().clamp(0.0, (self.cols - 1) as f32) as usize;
        let row = ((self.table.y - p.y) / self.step.y).floor().clamp(0.0, (self.rows - 1) as f32) as usize;
        (row, col)
    }

    /// Points per table inch.
    fn k(&self) -> f32 {
        PT * self.scale
    }
}

/// A row's letters: A…Z, then AA, AB…
pub fn row_name(mut row: usize) -> String {
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (row % 26) as u8) as char);
        if row < 26 {
            return s;
        }
        row = row / 26 - 1;
    }
}

/// A tile's name: its row's letters and its column's number, "B3".
pub fn tile_name(row: usize, col: usize) -> String {
    format!("{}{}", row_name(row), col + 1)
}

/// Inches as a player reads them: "10", "20.7".
fn inches(v: f32) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A compass bearing as three figures: "045°", "022.5°".
fn bearing(deg: f32) -> String {
    let d = deg.rem_euclid(360.0);
    if (d - d.round()).abs() < 0.05 { format!("{:03}°", d.round() as u32 % 360) } else { format!("{d:05.1}°") }
}

#[derive(Clone, Debug, PartialEq)]
pub enum PageKind {
    Map,
    Tile { row: usize, col: usize },
    Sheet,
}

/// One printed page as SVG whose user unit is the point.
#[derive(Clone, Debug)]
pub struct PrintPage {
    pub kind: PageKind,
    pub svg: String,
}

const INK: &str = "rgb(30,28,24)";
const MARK: &str = "rgb(170,20,60)";

fn open_page(out: &mut String, size: Vec2, title: &str) {
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.3}" height="{h:.3}" viewBox="0 0 {w:.3} {h:.3}" font-family="{FONT_FAMILY}">"#,
        w = size.x,
        h = size.y
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
}

fn text(out: &mut String, at: Vec2, size: f32, anchor: &str, extra: &str, t: &str) {
    let _ = writeln!(out, r#"<text x="{:.2}" y="{:.2}" font-size="{size}" text-anchor="{anchor}" fill="{INK}"{extra}>{}</text>"#, at.x, at.y, escape(t));
}

/// A shape's extent on the table, for skipping what falls off a tile.
fn bounds(shape: &Shape) -> (Vec2, Vec2) {
    let of = |pts: &[Vec2], pad: f32| {
        let lo = pts.iter().copied().fold(Vec2::splat(f32::MAX), Vec2::min);
        let hi = pts.iter().copied().fold(Vec2::splat(f32::MIN), Vec2::max);
        (lo - pad, hi + pad)
    };
    match shape {
        Shape::Polygon { points, stroke, .. } => of(points, stroke.map_or(0.0, |s| s.width)),
        Shape::Line { points, stroke } => of(points, stroke.width),
        Shape::Circle { centre, radius, stroke, .. } => of(&[*centre], radius + stroke.map_or(0.0, |s| s.width)),
        Shape::Label { at, text, size, .. } => {
            let half = Vec2::new(label_width(text, *size) / 2.0, *size);
            (*at - half, *at + half)
        }
    }
}

/// A tile: the table clipped to its part, its name, the table's inches along two edges, its
/// neighbours' names at the other edges, corner marks, and dashed lines where the right and
/// lower neighbours' edges fall.
fn tile_page(p: &picture::Picture, l: &Layout, row: usize, col: usize, number: usize, pages: usize, name: &str) -> String {
    let (k, m) = (l.k(), MARGIN * PT);
    let size = l.tile * k;
    let corner = l.corner(row, col);
    let (lo, hi) = (Vec2::new(corner.x, corner.y - l.tile.y), Vec2::new(corner.x + l.tile.x, corner.y));
    let mut out = String::new();
    open_page(&mut out, l.page, &format!("{name} {}", tile_name(row, col)));
    let _ = writeln!(out, r#"<defs><clipPath id="tile"><rect x="{m}" y="{m}" width="{:.3}" height="{:.3}"/></clipPath></defs>"#, size.x, size.y);
    let _ = writeln!(out, r#"<g clip-path="url(#tile)"><g transform="translate({m} {m}) scale({k})">"#);
    let keep = |s: &Shape| {
        let (a, b) = bounds(s);
        a.x <= hi.x && b.x >= lo.x && a.y <= hi.y && b.y >= lo.y
    };
    write_shapes(&mut out, &p.shapes, &|x| x - corner.x, &|y| corner.y - y, keep);
    out.push_str("</g></g>\n");
    // Where the right and lower neighbours' edges fall: trim a page's left and top margins and lay
    // its edge on these lines.
    let dash = format!(r#" stroke="{MARK}" stroke-width="0.8" stroke-dasharray="4 3" fill="none""#);
    if col + 1 < l.cols {
        let x = m + l.step.x * k;
        let _ = writeln!(out, r#"<line x1="{x:.3}" y1="{:.3}" x2="{x:.3}" y2="{:.3}"{dash}/>"#, m - 10.0, m + size.y + 10.0);
    }
    if row + 1 < l.rows {
        let y = m + l.step.y * k;
        let _ = writeln!(out, r#"<line x1="{:.3}" y1="{y:.3}" x2="{:.3}" y2="{y:.3}"{dash}/>"#, m - 10.0, m + size.x + 10.0);
    }
    // Corner marks in the margin, on the lines of the tile's edges.
    let mut marks = String::new();
    for (cx, dx) in [(m, -1.0), (m + size.x, 1.0)] {
        for (cy, dy) in [(m, -1.0), (m + size.y, 1.0)] {
            let _ = write!(marks, "M{:.2} {cy:.2}h{:.2}M{cx:.2} {:.2}v{:.2}", cx + dx * 3.0, dx * 12.0, cy + dy * 3.0, dy * 12.0);
        }
    }
    let _ = writeln!(out, r#"<path d="{marks}" stroke="{INK}" stroke-width="0.5" fill="none"/>"#);
    // The table's inches every 6" (every inch when a page shows little), below and left of the tile.
    let every = if l.tile.x.min(l.tile.y) < 6.0 { 1.0 } else { 6.0 };
    let mut x = (lo.x / every).ceil() * every;
    // None on the corner marks.
    let clear_of_corners = |v: f32, length: f32| v > 6.0 && v < length - 6.0;
    while x <= hi.x.min(l.table.x) + 1e-3 {
        let px = (x - lo.x) * k;
        if clear_of_corners(px, size.x) {
            text(&mut out, Vec2::new(m + px, m + size.y + 9.0), 6.5, "middle", "", &format!("{}″", inches(x)));
        }
        x += every;
    }
    let mut y = (lo.y.max(0.0) / every).ceil() * every;
    while y <= hi.y + 1e-3 {
        let py = m + (hi.y - y) * k;
        // Not under the left neighbour's name.
        if clear_of_corners(py - m, size.y) && (col == 0 || (py - l.page.y / 2.0).abs() > 25.0) {
            text(&mut out, Vec2::new(m - 3.0, py + 2.3), 6.5, "end", "", &format!("{}″", inches(y)));
        }
        y += every;
    }
    // Its name and place, and its neighbours at their edges.
    let x_to = hi.x.min(l.table.x);
    let y_from = lo.y.max(0.0);
    text(&mut out, Vec2::new(m, 20.0), 14.0, "start", r#" font-weight="bold""#, &tile_name(row, col));
    text(
        &mut out,
        Vec2::new(m + 32.0, 20.0),
        8.0,
        "start",
        "",
        &format!("{name}   x {}″ to {}″, y {}″ to {}″", inches(lo.x), inches(x_to), inches(y_from), inches(hi.y)),
    );
    let scale = if l.scale == 1.0 { "true size".to_string() } else { format!("scale {}", l.scale) };
    text(&mut out, Vec2::new(l.page.x - m, 20.0), 8.0, "end", "", &format!("page {number} of {pages} · {} {scale} · print at 100%", l.paper.name()));
    let side = |out: &mut String, at: Vec2, rotate: f32, t: String| {
        let _ = writeln!(
            out,
            r#"<text x="{:.2}" y="{:.2}" font-size="9" font-weight="bold" text-anchor="middle" fill="{MARK}" transform="rotate({rotate} {:.2} {:.2})">{}</text>"#,
            at.x,
            at.y,
            at.x,
            at.y,
            escape(&t)
        );
    };
    if row > 0 {
        side(&mut out, Vec2::new(l.page.x / 2.0, m - 5.0), 0.0, format!("▲ {}", tile_name(row - 1, col)));
    }
    if row + 1 < l.rows {
        side(&mut out, Vec2::new(l.page.x / 2.0, m + size.y + 22.0), 0.0, format!("▼ {}", tile_name(row + 1, col)));
    }
    if col > 0 {
        side(&mut out, Vec2::new(m - 14.0, l.page.y / 2.0), -90.0, format!("▲ {}", tile_name(row, col - 1)));
    }
    if col + 1 < l.cols {
        side(&mut out, Vec2::new(m + size.x + 12.0, l.page.y / 2.0), 90.0, format!("▲ {}", tile_name(row, col + 1)));
    }
    out.push_str("</svg>\n");
    out
}

/// The first page: the whole table shrunk to fit, each tile's part outlined and named, and how to
/// print and join the pages.
fn map_page(p: &picture::Picture, l: &Layout, name: &str, pages: usize, sheets: usize) -> String {
    let page = l.paper.oriented(l.table.x >= l.table.y);
    let m = MARGIN * PT;
    let notes = [
        format!(
            "Page 1 is this map; pages 2 to {} are the table in {} rows (A, B… from the far edge) of {} columns (1, 2… from the left), each {}″ × {}″ of table, overlapping by at least {}″.",
            l.tiles() + 1,
            l.rows,
            l.cols,
            inches(l.tile.x),
            inches(l.tile.y),
            inches(OVERLAP / l.scale)
        ),
        if l.scale == 1.0 {
            "Print at 100% (actual size, not “fit to page”): the grid squares are then 1 inch; measure one before you cut.".to_string()
        } else {
            format!("Print at 100% (actual size, not “fit to page”): at scale {} a grid square is then {}″; measure one before you cut.", l.scale, l.scale)
        },
        "Trim each page's left and top margins, lay the cut edge on its neighbour's dashed line with the grid lines meeting, and tape it from behind.".to_string(),
        format!("The last {} the set-up sheet: where each unit stands and faces, and the page it is on.", if sheets == 1 { "page is".to_string() } else { format!("{sheets} pages are") }),
    ];
    let top = m + 26.0;
    let room = Vec2::new(page.x - 2.0 * m, page.y - top - m - 14.0 * notes.len() as f32 - 6.0);
    let k = (room.x / l.table.x).min(room.y / l.table.y);
    let at = Vec2::new(m + (room.x - l.table.x * k) / 2.0, top);
    let mut out = String::new();
    open_page(&mut out, page, &format!("{name}: page map"));
    text(&mut out, Vec2::new(m, m + 6.0), 14.0, "start", r#" font-weight="bold""#, &format!("{name} — page map"));
    let scale = if l.scale == 1.0 { "true size".to_string() } else { format!("scale {}", l.scale) };
    let what = format!(
        "{pages} pages of {} {} at {scale}: table {}″ × {}″",
        l.paper.name(),
        if l.landscape { "landscape" } else { "portrait" },
        inches(l.table.x),
        inches(l.table.y)
    );
    text(&mut out, Vec2::new(page.x - m, m + 6.0), 9.0, "end", "", &what);
    let _ = writeln!(out, r#"<g transform="translate({:.3} {:.3}) scale({k:.4})">"#, at.x, at.y);
    let ty = l.table.y;
    write_shapes(&mut out, &p.shapes, &|x| x, &|y| ty - y, |_| true);
    out.push_str("</g>\n");
    // Each tile's own part: from its corner to the next tile's, the last ones to the table's edge.
    // Names in each part's top-left corner, small enough to leave the troops readable.
    let font = (l.step.x.min(l.step.y) * k * 0.3).clamp(4.0, 14.0);
    for row in 0..l.rows {
        for col in 0..l.cols {
            let c = l.corner(row, col);
            let x1 = if col + 1 == l.cols { l.table.x } else { c.x + l.step.x };
            let y0 = if row + 1 == l.rows { 0.0 } else { c.y - l.step.y };
            let (px, py) = (at.x + c.x * k, at.y + (ty - c.y) * k);
            let (w, h) = ((x1 - c.x) * k, (c.y - y0) * k);
            let _ = writeln!(out, r#"<rect x="{px:.2}" y="{py:.2}" width="{w:.2}" height="{h:.2}" fill="none" stroke="{MARK}" stroke-width="0.8"/>"#);
            let _ = writeln!(
                out,
                r#"<text x="{:.2}" y="{:.2}" font-size="{font:.1}" fill="{MARK}" stroke="rgb(255,255,255)" stroke-opacity="0.8" stroke-width="{:.2}" paint-order="stroke">{}</text>"#,
                px + font * 0.2,
                py + font * 0.95,
                font * 0.2,
                tile_name(row, col)
            );
        }
    }
    let mut y = at.y + l.table.y * k + 16.0;
    for n in &notes {
        text(&mut out, Vec2::new(m, y), 8.0, "start", "", n);
        y += 14.0;
    }
    out.push_str("</svg>\n");
    out
}

/// One line of the set-up sheet.
enum Line {
    Side { name: String, colour: [u8; 3], commander: Option<String> },
    Brigade(String),
    Unit { page: String, name: String, what: String, figures: u32, at: [f32; 2], facing: f32 },
    /// A line under a unit: the unit its guns are attached to.
    Note(String),
}

fn arm_and_formation(u: &Unit) -> String {
    let arm = match u.arm {
        Arm::Infantry => "Infantry".to_string(),
        Arm::Cavalry => "Cavalry".to_string(),
        Arm::Artillery { gun, galloper } => format!("{gun:?} guns{}", if galloper { " (galloper)" } else { "" }),
    };
    format!("{arm}, {:?}", u.formation)
}

fn sheet_lines(s: &Scenario, l: &Layout) -> Vec<Line> {
    let mut lines = Vec::new();
    let place = |at: Vec2| {
        let (r, c) = l.tile_of(at);
        format!("({}″, {}″) on {}", inches(at.x), inches(at.y), tile_name(r, c))
    };
    for (si, side) in s.sides.iter().enumerate() {
        let commander = side.commander.as_ref().map(|c| match c.at {
            Some(at) => format!("{} at {}", c.name, place(Vec2::from(at))),
            None => c.name.clone(),
        });
        lines.push(Line::Side { name: side.name.clone(), colour: crate::scenario::spawn::side_colour(side, si), commander });
        for b in &side.brigades {
            let at = b.commander.at.map(Vec2::from).unwrap_or_else(|| crate::scenario::spawn::behind_unit(&b.units[0]));
            let placed = if b.commander.at.is_some() { "" } else { " (4″ behind its first unit)" };
            lines.push(Line::Brigade(format!("{} — {} at {}{placed}", b.name, b.commander.name, place(at))));
            for u in &b.units {
                let (r, c) = l.tile_of(Vec2::from(u.at));
                lines.push(Line::Unit { page: tile_name(r, c), name: u.name.clone(), what: arm_and_formation(u), figures: u.figures, at: u.at, facing: u.facing });
                if let Some(with) = &u.attached_to {
                    lines.push(Line::Note(format!("attached to {with}")));
                }
            }
        }
    }
    lines
}

/// The sheet's rows, heights in points, laid over as many portrait pages as they need.
fn sheet_pages(s: &Scenario, l: &Layout) -> Vec<String> {
    let page = l.paper.size();
    let m = MARGIN * PT;
    let lines = sheet_lines(s, l);
    let height = |line: &Line| match line {
        Line::Side { .. } => 32.0,
        Line::Brigade(_) => 16.0,
        Line::Unit { .. } | Line::Note(_) => 11.5,
    };
    // Columns, points from the left margin: page, unit, arm and formation, figures, x, y, facing
    // (the numbers right-aligned).
    let col = [0.0, 28.0, 214.0, 366.0, 408.0, 448.0, 500.0];
    let header = |out: &mut String, y: f32| {
        let bold = r#" font-weight="bold""#;
        for (i, (t, anchor)) in [("Page", "start"), ("Unit", "start"), ("Arm, formation", "start"), ("Figures", "end"), ("x", "end"), ("y", "end"), ("Facing", "end")].iter().enumerate() {
            text(out, Vec2::new(m + col[i], y), 8.0, anchor, bold, t);
        }
        let _ = writeln!(out, r#"<line x1="{m}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{INK}" stroke-width="0.5"/>"#, y + 3.0, m + col[6], y + 3.0);
    };
    let mut pages = Vec::new();
    let mut out = String::new();
    let mut y = 0.0;
    let first_top = m + 62.0;
    let bottom = page.y - m;
    let start = |out: &mut String, first: bool| -> f32 {
        open_page(out, page, &format!("{}: set-up sheet", s.name));
        if first {
            text(out, Vec2::new(m, m + 6.0), 14.0, "start", r#" font-weight="bold""#, &format!("{} — set-up sheet", s.name));
            let notes = [
                "x, y: inches from the table's lower-left corner (x to the right, y up the table) to the centre of the unit's front edge",
                "(for a column, its head stand's front edge). Facing: compass bearing, 000° up the table (towards the far edge), 090° to the right.",
                "Page: the tile of the printed table the point falls on. Brigade commanders stand where shown.",
            ];
            for (i, n) in notes.iter().enumerate() {
                text(out, Vec2::new(m, m + 24.0 + 10.5 * i as f32), 7.5, "start", "", n);
            }
            first_top
        } else {
            m + 10.0
        }
    };
    for line in &lines {
        if pages.is_empty() && out.is_empty() {
            y = start(&mut out, true);
        } else if y + height(line) > bottom {
            out.push_str("</svg>\n");
            pages.push(std::mem::take(&mut out));
            y = start(&mut out, false);
        }
        match line {
            Line::Side { name, colour, commander } => {
                y += 18.0;
                let _ = writeln!(out, r#"<rect x="{m}" y="{:.2}" width="10" height="10" fill="rgb({},{},{})"/>"#, y - 9.0, colour[0], colour[1], colour[2]);
                let title = match commander {
                    Some(c) => format!("{name} — {c}"),
                    None => name.clone(),
                };
                text(&mut out, Vec2::new(m + 16.0, y), 11.0, "start", r#" font-weight="bold""#, &title);
                y += 14.0;
                header(&mut out, y);
            }
            Line::Brigade(t) => {
                y += 16.0;
                text(&mut out, Vec2::new(m, y - 3.0), 8.5, "start", r#" font-weight="bold""#, t);
            }
            Line::Note(t) => {
                y += 11.5;
                let _ = writeln!(out, r#"<text x="{:.2}" y="{:.2}" font-size="7.5" font-style="italic" fill="rgb(90,86,80)">{}</text>"#, m + col[1] + 8.0, y - 2.0, escape(t));
            }
            Line::Unit { page, name, what, figures, at, facing } => {
                y += 11.5;
                let cells = [page.clone(), name.clone(), what.clone(), figures.to_string(), format!("{}″", inches(at[0])), format!("{}″", inches(at[1])), bearing(*facing)];
                for (i, c) in cells.iter().enumerate() {
                    text(&mut out, Vec2::new(m + col[i], y - 2.0), 8.0, if i >= 3 { "end" } else { "start" }, "", c);
                }
            }
        }
    }
    out.push_str("</svg>\n");
    pages.push(out);
    pages
}

/// The set-up as it prints: the window's picture on a pale cloth (a table's worth of solid green
/// is a lot of ink and hides pencil marks), with a grid and table edge drawn as thin lines on
/// paper rather than lines a screen can show when zoomed out.
pub fn paper_picture(s: &Scenario, text: f32) -> picture::Picture {
    use picture::palette;
    let mut p = picture::setup_with_labels(s, text);
    for shape in &mut p.shapes {
        match shape {
            Shape::Polygon { fill: Some(fill), .. } if *fill == palette::CLOTH => *fill = PAPER_CLOTH,
            Shape::Polygon { fill: None, stroke: Some(st), .. } if st.colour == palette::TABLE_EDGE => st.width = 0.04,
            Shape::Line { stroke, .. } if [palette::GRID_MINOR, palette::GRID_MAJOR, palette::GRID_FOOT].contains(&stroke.colour) => {
                stroke.width *= 0.4;
                stroke.colour[3] = stroke.colour[3].saturating_add(40);
            }
            _ => {}
        }
    }
    p
}

/// Label sizes on the tiles against the whole-table view's: unit names 0.15" high at scale 1.
pub const TILE_TEXT: f32 = 0.3;

/// The cloth on paper: the window's green, mostly white.
pub const PAPER_CLOTH: picture::Rgba = [226, 234, 212, 255];

/// Every page of a printed scenario: the map, the tiles row by row, the set-up sheet.
pub fn pages(s: &Scenario, paper: Paper, scale: f32) -> Result<(Layout, Vec<PrintPage>), String> {
    let l = Layout::new(Vec2::new(s.table.width, s.table.depth), paper, scale)?;
    // The map keeps the whole-table view's labels; the tiles' letters print about 0.15" high
    // (unit names) at any scale.
    let picture = paper_picture(s, (TILE_TEXT / scale).min(1.0));
    let sheets = sheet_pages(s, &l);
    let total = 1 + l.tiles() + sheets.len();
    let mut pages = vec![PrintPage { kind: PageKind::Map, svg: map_page(&paper_picture(s, 1.0), &l, &s.name, total, sheets.len()) }];
    for row in 0..l.rows {
        for col in 0..l.cols {
            pages.push(PrintPage { kind: PageKind::Tile { row, col }, svg: tile_page(&picture, &l, row, col, pages.len() + 1, total, &s.name) });
        }
    }
    pages.extend(sheets.into_iter().map(|svg| PrintPage { kind: PageKind::Sheet, svg }));
    Ok((l, pages))
}

/// The printed scenario as PDF bytes.
pub fn pdf(s: &Scenario, paper: Paper, scale: f32) -> Result<(Layout, usize, Vec<u8>), String> {
    let (l, pages) = pages(s, paper, scale)?;
    let options = super::usvg_options();
    let pdf_pages = pages.iter().map(|p| super::pdf::page(&p.svg, &options)).collect::<Result<Vec<_>, _>>()?;
    Ok((l, pages.len(), super::pdf::document(&pdf_pages, &s.name)))
}

/// Write the printed scenario to a `.pdf`; nothing is written unless every page was made.
pub fn write(s: &Scenario, paper: Paper, scale: f32, out: &Path) -> Result<(Layout, usize), String> {
    if out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() != Some("pdf") {
        return Err(format!("{}: with --print the output must end in .pdf", out.display()));
    }
    let (l, n, bytes) = pdf(s, paper, scale)?;
    crate::scenario::write_bytes_atomically(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok((l, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str) -> Scenario {
        crate::scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).expect("a shipped scenario loads")
    }


    /// Stroked straight segments of a content stream whose stroke colour is black (the inch
    /// grid's), as ((x1, y1), (x2, y2)) in points.
    fn black_segments(content: &str) -> Vec<((f32, f32), (f32, f32))> {
        let (mut nums, mut stroke, mut at, mut path, mut found) = (Vec::<f32>::new(), [1.0f32; 3], (0.0, 0.0), Vec::new(), Vec::new());
        for token in content.split_whitespace() {
            if let Ok(v) = token.parse::<f32>() {
                nums.push(v);
                continue;
            }
            let n = nums.len();
            match token {
                "RG" => stroke = [nums[n - 3], nums[n - 2], nums[n - 1]],
                "m" => at = (nums[n - 2], nums[n - 1]),
                "l" => {
                    let to = (nums[n - 2], nums[n - 1]);
                    path.push((at, to));
                    at = to;
                }
                "S" if stroke == [0.0; 3] => found.append(&mut path),
                "S" | "f" | "f*" | "B" | "B*" | "n" => path.clear(),
                _ => {}
            }
            nums.clear();
        }
        found
    }

    /// The distinct positions of the long vertical (x) and horizontal (y) black lines.
    fn grid_lines(content: &str) -> (Vec<f32>, Vec<f32>) {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for ((x1, y1), (x2, y2)) in black_segments(content) {
            if x1 == x2 && (y2 - y1).abs() > 100.0 {
                xs.push(x1);
            } else if y1 == y2 && (x2 - x1).abs() > 100.0 {
                ys.push(y1);
            }
        }
        for v in [&mut xs, &mut ys] {
            v.sort_by(f32::total_cmp);
            v.dedup_by(|a, b| (*a - *b).abs() < 0.01);
        }
        (xs, ys)
    }

    fn spacing(v: &[f32]) -> Vec<f32> {
        v.windows(2).map(|w| w[1] - w[0]).collect()
    }

    #[test]
    fn cowpens_on_a4_is_a_map_110_tiles_and_a_sheet_with_an_inch_every_72_points() {
        let s = scenario("scenarios/cowpens.ron");
        let (l, pages, pdf) = pdf(&s, Paper::A4, 1.0).unwrap();
        // By hand: A4 landscape less 1/2" margins shows 10.69" x 7.27" of a 96" x 72" table; pages
        // start every 10" across and 6.5" down (the least overlap 1/2", whole half inches): 1 + 9
        // columns and 1 + 10 rows. Portrait would take 15 x 8 = 120.
        assert!(l.landscape);
        assert_eq!((l.cols, l.rows, l.step), (10, 11, Vec2::new(10.0, 6.5)));
        assert_eq!(pages, 1 + 110 + 1, "map, tiles, one sheet");
        let text = String::from_utf8_lossy(&pdf);
        assert_eq!(text.matches("/Type /Page ").count(), pages);
        assert!(text.contains(&format!("/Count {pages} ")));
        assert_eq!(text.matches("/MediaBox [0 0 841.89 595.276]").count(), 110 + 1, "tiles and map on landscape A4");
        let contents = crate::render::pdf::contents(&pdf);
        assert_eq!(contents.len(), pages);
        // B3 (row 1, column 2: page 2 + 10 + 2) shows x 20" to 30.7" and y 58.2" to 65.5": its left
        // edge is the 20" line at the margin (36 pt), then a line every inch, 72 pt apart.
        let (xs, ys) = grid_lines(&contents[1 + 10 + 2]);
        assert_eq!(xs.len(), 11, "x = 20\" to 30\": {xs:?}");
        assert_eq!(xs[0], 36.0);
        assert!(spacing(&xs).iter().all(|d| (d - 72.0).abs() < 0.01), "{xs:?}");
        assert_eq!(ys.len(), 7, "y = 59\" to 65\": {ys:?}");
        assert!(spacing(&ys).iter().all(|d| (d - 72.0).abs() < 0.01), "{ys:?}");
        // The 65.5" top edge is half an inch above the 65" line: 36 pt below the page's top margin.
        assert!((ys[6] - (595.276 - 36.0 - 36.0)).abs() < 0.01, "{ys:?}");
    }

    #[test]
    fn scale_two_prints_an_inch_every_144_points_on_more_pages() {
        let s = scenario("scenarios/teaching.ron");
        let (one, ..) = pages(&s, Paper::Letter, 1.0).unwrap();
        let (l, n, pdf) = pdf(&s, Paper::Letter, 2.0).unwrap();
        assert!(l.tiles() > 3 * one.tiles(), "{} tiles at 2, {} at 1", l.tiles(), one.tiles());
        let contents = crate::render::pdf::contents(&pdf);
        assert_eq!(contents.len(), n);
        let (xs, ys) = grid_lines(&contents[1]);
        assert!(xs.len() >= 3 && ys.len() >= 3, "{xs:?} {ys:?}");
        assert!(spacing(&xs).iter().chain(&spacing(&ys)).all(|d| (d - 144.0).abs() < 0.01), "{xs:?} {ys:?}");
    }

    #[test]
    fn a_table_smaller_than_a_page_is_one_tile() {
        let l = Layout::new(Vec2::new(10.0, 7.0), Paper::A4, 1.0).unwrap();
        assert_eq!((l.cols, l.rows, l.landscape), (1, 1, true));
        // Letter less its margins is 7.5" x 10": landscape, it holds 10" x 7" too.
        assert_eq!(Layout::new(Vec2::new(10.0, 7.0), Paper::Letter, 1.0).unwrap().tiles(), 1);
        // One inch more and it takes two.
        assert_eq!(Layout::new(Vec2::new(11.0, 7.0), Paper::A4, 1.0).unwrap().tiles(), 2);
        let mut s = scenario("tests/fixtures/good/small.ron");
        s.table.width = 10.0;
        s.table.depth = 7.0;
        let (_, pages) = pages(&s, Paper::A4, 1.0).unwrap();
        let kinds: Vec<&PageKind> = pages.iter().map(|p| &p.kind).collect();
        assert_eq!(kinds, [&PageKind::Map, &PageKind::Tile { row: 0, col: 0 }, &PageKind::Sheet]);
        assert!(pages[1].svg.contains(">A1</text>"));
        assert!(!pages[1].svg.contains("▲") && !pages[1].svg.contains("stroke-dasharray=\"4 3\""), "no neighbours, no overlap lines");
    }

    #[test]
    fn a_scale_that_would_print_a_wall_is_refused() {
        assert!(Layout::new(Vec2::new(96.0, 72.0), Paper::A4, 10.0).unwrap_err().contains("lower --scale"));
        assert!(Layout::new(Vec2::new(96.0, 72.0), Paper::A4, 0.0).unwrap_err().contains("0.1 to 10"));
        assert!(Layout::new(Vec2::new(96.0, 72.0), Paper::A4, f32::NAN).is_err());
    }

    #[test]
    fn rows_run_past_z_and_a_point_is_on_the_tile_named_for_it() {
        assert_eq!([0, 25, 26, 27, 51, 52].map(row_name), ["A", "Z", "AA", "AB", "AZ", "BA"]);
        let l = Layout::new(Vec2::new(96.0, 72.0), Paper::A4, 1.0).unwrap();
        for p in [Vec2::ZERO, Vec2::new(96.0, 72.0), Vec2::new(45.0, 12.0), Vec2::new(10.0, 65.5), Vec2::new(95.9, 0.1)] {
            let (r, c) = l.tile_of(p);
            let corner = l.corner(r, c);
            assert!(p.x >= corner.x - 1e-4 && p.x <= corner.x + l.tile.x && p.y <= corner.y + 1e-4 && p.y >= corner.y - l.tile.y, "{p} on {}", tile_name(r, c));
        }
    }

    /// The text of a page's `<text>` elements by their y, each row's cells in order.
    fn rows(svg: &str) -> Vec<(String, Vec<String>)> {
        let mut rows: Vec<(String, Vec<String>)> = Vec::new();
        for part in svg.split("<text ").skip(1) {
            let y = part.split("y=\"").nth(1).and_then(|r| r.split('"').next()).unwrap().to_string();
            let content = part.split('>').nth(1).and_then(|r| r.split("</text").next()).unwrap().to_string();
            match rows.iter_mut().find(|(ry, _)| *ry == y) {
                Some((_, cells)) => cells.push(content),
                None => rows.push((y, vec![content])),
            }
        }
        rows
    }

    #[test]
    fn the_sheet_lists_every_unit_with_its_place_facing_and_tile() {
        let s = scenario("scenarios/cowpens.ron");
        let (l, pages) = pages(&s, Paper::A4, 1.0).unwrap();
        let sheet: Vec<(String, Vec<String>)> = pages.iter().filter(|p| p.kind == PageKind::Sheet).flat_map(|p| rows(&p.svg)).collect();
        let mut listed = 0;
        for side in &s.sides {
            assert!(sheet.iter().any(|(_, cells)| cells.iter().any(|c| c.starts_with(&escape(&side.name)))), "{}", side.name);
            for b in &side.brigades {
                assert!(sheet.iter().any(|(_, cells)| cells.iter().any(|c| c.starts_with(&escape(&b.name)) && c.contains(&escape(&b.commander.name)))), "{}", b.name);
                for u in &b.units {
                    let (_, cells) = sheet.iter().find(|(_, cells)| cells.get(1) == Some(&escape(&u.name))).unwrap_or_else(|| panic!("{} is not on the sheet", u.name));
                    let (r, c) = l.tile_of(Vec2::from(u.at));
                    let want = [tile_name(r, c), escape(&u.name), arm_and_formation(u), u.figures.to_string(), format!("{}″", inches(u.at[0])), format!("{}″", inches(u.at[1])), bearing(u.facing)];
                    assert_eq!(cells, &want);
                    listed += 1;
                }
            }
        }
        assert_eq!(listed, 23, "Cowpens's 23 units");
        assert_eq!(sheet.iter().filter(|(_, cells)| cells.len() == 7 && cells[0] != "Page").count(), 23, "and no other unit rows");
        assert_eq!((bearing(0.0), bearing(45.0), bearing(359.99), bearing(-90.0), bearing(22.5)), ("000°".into(), "045°".into(), "000°".into(), "270°".into(), "022.5°".into()));
    }
}
