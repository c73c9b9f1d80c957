//! What an overlay draws, in table inches, and how it is painted: translucent fills and hatching
//! under the troops, lines, ghosts and markers over them, and tags (labels on small plates) in
//! screen pixels so that they read at any zoom.

use bevy::math::Vec2;
use bevy_egui::egui::{self, Color32, Pos2, Rect};

use super::super::camera::View;
use super::super::paint::{self, LabelStyle, Taken};
use crate::table::footprint::Footprint;

/// The overlays' colours. Each overlay has its own hue, and every meaning is also said in words
/// or shown by a pattern (hatching, dashes, ✔/✖), so nothing rests on telling red from green.
pub(crate) mod colours {
    use bevy_egui::egui::Color32;

    const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Color32 {
        Color32::from_rgba_premultiplied(
            ((r as u16 * a as u16) / 255) as u8,
            ((g as u16 * a as u16) / 255) as u8,
            ((b as u16 * a as u16) / 255) as u8,
            a,
        )
    }

    pub const INK: Color32 = Color32::from_rgb(28, 24, 20);

    /// A translucent overlay colour as it looks on the cloth, for the legend's swatches.
    pub fn on_cloth(c: Color32) -> Color32 {
        let cloth = crate::picture::palette::CLOTH;
        let a = c.a() as u16;
        let mix = |v: u8, k: u8| (v as u16 + (k as u16 * (255 - a)) / 255).min(255) as u8;
        Color32::from_rgb(mix(c.r(), cloth[0]), mix(c.g(), cloth[1]), mix(c.b(), cloth[2]))
    }

    // Firing arcs (8.1): amber, darker for nearer artillery bands.
    pub const ARC_FILL: [Color32; 3] = [rgba(205, 40, 10, 150), rgba(240, 128, 20, 105), rgba(250, 222, 70, 80)];
    pub const ARC_SMALL_ARMS: Color32 = rgba(240, 128, 20, 92);
    pub const ARC_OUTLINE: Color32 = Color32::from_rgb(168, 82, 6);
    pub const ARC_TAG: Color32 = Color32::from_rgb(255, 214, 153);

    // Enfilade and flank zones (8.11, 9.1): violet, hatched.
    pub const ZONE_FLANK: Color32 = rgba(136, 64, 196, 66);
    pub const ZONE_REAR: Color32 = rgba(136, 64, 196, 100);
    pub const ZONE_HATCH: Color32 = rgba(90, 30, 150, 150);
    pub const ZONE_LINE: Color32 = Color32::from_rgb(112, 40, 176);
    pub const ZONE_TAG: Color32 = Color32::from_rgb(226, 208, 250);

    // Line of sight (8.7–8.9).
    pub const SIGHT_CLEAR: Color32 = Color32::from_rgb(40, 208, 100);
    pub const SIGHT_BLOCKED: Color32 = Color32::from_rgb(238, 48, 58);
    pub const SIGHT_WOODS: Color32 = Color32::from_rgb(20, 90, 40);
    pub const SIGHT_CLEAR_TAG: Color32 = Color32::from_rgb(200, 245, 214);
    pub const SIGHT_BLOCKED_TAG: Color32 = Color32::from_rgb(255, 206, 202);
    pub const CASING: Color32 = rgba(16, 16, 16, 150);

    // Movement (6.x): teal envelope, green or red ghost.
    pub const MOVE_FILL: Color32 = rgba(0, 168, 196, 46);
    pub const MOVE_SIDE: Color32 = rgba(0, 168, 196, 30);
    pub const MOVE_LINE: Color32 = Color32::from_rgb(0, 118, 150);
    pub const MOVE_TAG: Color32 = Color32::from_rgb(190, 236, 250);
    pub const GHOST_OK_FILL: Color32 = rgba(60, 210, 100, 120);
    pub const GHOST_OK_EDGE: Color32 = Color32::from_rgb(14, 120, 50);
    pub const GHOST_BAD_FILL: Color32 = rgba(236, 56, 56, 120);
    pub const GHOST_BAD_EDGE: Color32 = Color32::from_rgb(160, 16, 16);
    pub const GHOST_REACH_EDGE: Color32 = Color32::from_rgb(14, 120, 50);
    pub const GHOST_OK_TAG: Color32 = Color32::from_rgb(200, 245, 214);
    pub const GHOST_BAD_TAG: Color32 = Color32::from_rgb(255, 206, 202);
    pub const WARNING: Color32 = Color32::from_rgb(255, 178, 0);
    pub const WARNING_TAG: Color32 = Color32::from_rgb(255, 234, 170);
}

/// One thing an overlay draws. Widths and dashes are screen points; places are inches.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Prim {
    /// A filled area (may be concave).
    Fill { points: Vec<Vec2>, colour: Color32 },
    /// A polyline; `dash` in screen points; `casing` draws a dark edge under it for contrast.
    Line { points: Vec<Vec2>, colour: Color32, width: f32, dash: Option<f32>, closed: bool, casing: bool },
    /// Parallel lines across a convex area, `spacing` points apart at `angle` degrees on screen.
    Hatch { points: Vec<Vec2>, colour: Color32, spacing: f32, angle: f32 },
    /// Stands drawn as a ghost: fill, edge, and the front edge picked out.
    Stands { stands: Vec<Footprint>, fill: Color32, edge: Color32, dash: bool },
    /// An arrow from one point to another (a move).
    Arrow { from: Vec2, to: Vec2, colour: Color32 },
    /// A round badge with a letter or symbol: ⚠ disorder, ✖ blocked.
    Badge { at: Vec2, text: &'static str, fill: Color32, ink: Color32 },
}

/// A label on a small plate, in screen pixels, placed near `at` clear of what is taken.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tag {
    pub at: Vec2,
    pub text: String,
    pub fill: Color32,
    pub border: Color32,
    pub bold: bool,
    /// Directions (table) to try stepping out along, in order; empty: up, down, right, left.
    pub dirs: Vec<Vec2>,
}

impl Tag {
    pub fn new(at: Vec2, text: impl Into<String>, fill: Color32, border: Color32) -> Tag {
        Tag { at, text: text.into(), fill, border, bold: false, dirs: Vec::new() }
    }
    pub fn bold(mut self) -> Tag {
        self.bold = true;
        self
    }
    pub fn towards(mut self, dirs: &[Vec2]) -> Tag {
        self.dirs = dirs.to_vec();
        self
    }
}

/// An overlay's drawing: under the troops, over them, and its tags.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Scene {
    pub under: Vec<Prim>,
    pub over: Vec<Prim>,
    pub tags: Vec<Tag>,
}

impl Scene {
    pub fn extend(&mut self, other: Scene) {
        self.under.extend(other.under);
        self.over.extend(other.over);
        self.tags.extend(other.tags);
    }
}

/// Tag text size, screen points.
pub(crate) const TAG_PX: f32 = 12.5;
/// Tags wrap at this width, screen points.
const TAG_WRAP: f32 = 420.0;

fn tag_galley(ctx: &egui::Context, text: &str, bold: bool) -> std::sync::Arc<egui::Galley> {
    let family = if bold { paint::table_font_bold() } else { paint::table_font() };
    ctx.fonts_mut(|f| f.layout(text.to_owned(), egui::FontId::new(TAG_PX, family), colours::INK, TAG_WRAP))
}

fn screen(view: &View, points: &[Vec2]) -> Vec<Pos2> {
    points.iter().map(|&p| view.to_screen(p)).collect()
}

fn polyline(points: Vec<Pos2>, stroke: egui::Stroke, dash: Option<f32>, closed: bool, out: &mut Vec<egui::Shape>) {
    let mut path = points;
    if closed && let Some(&first) = path.first() {
        path.push(first);
    }
    match dash {
        Some(d) => egui::Shape::dashed_line_many(&path, stroke, d, d * 0.8, out),
        None => out.push(egui::Shape::line(path, stroke)),
    }
}

/// Paints primitives (table inches) as egui shapes.
pub(crate) fn paint(view: &View, prims: &[Prim], out: &mut Vec<egui::Shape>) {
    for p in prims {
        match p {
            Prim::Fill { points, colour } => fill(view, points, *colour, out),
            Prim::Line { points, colour, width, dash, closed, casing } => {
                let pts = screen(view, points);
                if *casing {
                    polyline(pts.clone(), egui::Stroke::new(width + 2.5, colours::CASING), *dash, *closed, out);
                }
                polyline(pts, egui::Stroke::new(*width, *colour), *dash, *closed, out);
            }
            Prim::Hatch { points, colour, spacing, angle } => {
                let pts = screen(view, points);
                for [a, b] in hatch(&pts, *spacing, *angle) {
                    out.push(egui::Shape::line_segment([a, b], egui::Stroke::new(1.0, *colour)));
                }
            }
            Prim::Stands { stands, fill: f, edge, dash } => {
                for s in stands {
                    let c = screen(view, &s.corners());
                    if f.a() > 0 {
                        out.push(egui::Shape::convex_polygon(c.clone(), *f, egui::Stroke::NONE));
                    }
                    polyline(c, egui::Stroke::new(2.0, *edge), dash.then_some(5.0), true, out);
                    // The front edge, so the ghost's facing reads.
                    let inset = s.forward() * 0.04;
                    let front = [view.to_screen(s.front_left() - inset), view.to_screen(s.front_right() - inset)];
                    out.push(egui::Shape::line_segment(front, egui::Stroke::new(3.0, *edge)));
                }
            }
            Prim::Arrow { from, to, colour } => {
                let (a, b) = (view.to_screen(*from), view.to_screen(*to));
                if a.distance(b) < 6.0 {
                    continue;
                }
                let dir = (b - a).normalized();
                let normal = egui::vec2(-dir.y, dir.x);
                out.extend(egui::Shape::dashed_line(&[a, b - dir * 6.0], egui::Stroke::new(2.0, *colour), 6.0, 4.0));
                let head = vec![b, b - dir * 11.0 + normal * 5.5, b - dir * 11.0 - normal * 5.5];
                out.push(egui::Shape::convex_polygon(head, *colour, egui::Stroke::NONE));
            }
            Prim::Badge { .. } => {}
        }
    }
}

/// Keeps tags off the ghosts: their stands' screen boxes are taken.
pub(crate) fn reserve(view: &View, prims: &[Prim], taken: &mut Taken) {
    for p in prims {
        if let Prim::Stands { stands, .. } = p {
            for s in stands {
                taken.add(paint::screen_bounds(view, &s.corners()));
            }
        }
    }
}

/// Badges are painted with the tags (on top of everything), as they carry text.
pub(crate) fn paint_badges(ctx: &egui::Context, view: &View, prims: &[Prim], taken: &mut Taken, out: &mut Vec<egui::Shape>) {
    for p in prims {
        if let Prim::Badge { at, text, fill, ink } = p {
            let c = view.to_screen(*at);
            let r = 9.0;
            out.push(egui::Shape::circle_filled(c, r + 1.5, colours::INK));
            out.push(egui::Shape::circle_filled(c, r, *fill));
            let g = paint::galley(ctx, text, 12.0, true, *ink);
            out.push(egui::Shape::galley(c - g.size() / 2.0, g, *ink));
            taken.add(Rect::from_center_size(c, egui::vec2(2.0 * r, 2.0 * r)));
        }
    }
}

fn fill(view: &View, points: &[Vec2], colour: Color32, out: &mut Vec<egui::Shape>) {
    if points.len() < 3 {
        return;
    }
    let pts = screen(view, points);
    let tris = paint::triangulate(points);
    let mut mesh = egui::Mesh::default();
    for &p in &pts {
        mesh.colored_vertex(p, colour);
    }
    for t in tris.chunks_exact(3) {
        mesh.add_triangle(t[0], t[1], t[2]);
    }
    out.push(egui::Shape::mesh(mesh));
}

/// Hatching: segments of parallel lines `spacing` apart at `angle` degrees (screen, clockwise from
/// +x) inside a convex screen polygon.
pub(crate) fn hatch(poly: &[Pos2], spacing: f32, angle: f32) -> Vec<[Pos2; 2]> {
    if poly.len() < 3 || spacing < 1.0 {
        return Vec::new();
    }
    let (s, c) = angle.to_radians().sin_cos();
    let dir = egui::vec2(c, s);
    let normal = egui::vec2(-s, c);
    let offsets: Vec<f32> = poly.iter().map(|p| p.to_vec2().dot(normal)).collect();
    let (lo, hi) = offsets.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &o| (a.min(o), b.max(o)));
    let along: Vec<f32> = poly.iter().map(|p| p.to_vec2().dot(dir)).collect();
    let (a0, a1) = along.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &o| (a.min(o), b.max(o)));
    let poly_v: Vec<Vec2> = poly.iter().map(|p| Vec2::new(p.x, p.y)).collect();
    let mut out = Vec::new();
    // Lines on a fixed grid (multiples of the spacing), so hatching does not crawl as one pans.
    let mut k = (lo / spacing).ceil();
    while k * spacing <= hi {
        let o = k * spacing;
        let base = normal * o;
        let (p, q) = (base + dir * (a0 - 1.0), base + dir * (a1 + 1.0));
        if let Some((a, b)) = super::shapes::clip_segment(Vec2::new(p.x, p.y), Vec2::new(q.x, q.y), &poly_v) {
            out.push([Pos2::new(a.x, a.y), Pos2::new(b.x, b.y)]);
        }
        k += 1.0;
    }
    out
}

/// Places and paints tags, most important first, clear of what is taken when possible. Teaching
/// tags are always shown while their place is on screen: when no clear spot is found they take
/// the least covered one, kept inside the view.
pub(crate) fn paint_tags(ctx: &egui::Context, view: &View, tags: &[Tag], taken: &mut Taken, out: &mut Vec<egui::Shape>) {
    let shown: Vec<&Tag> = tags.iter().filter(|t| view.rect.expand(40.0).contains(view.to_screen(t.at))).collect();
    let mut galleys = Vec::with_capacity(shown.len());
    let mut asks = Vec::with_capacity(shown.len());
    for t in &shown {
        let g = tag_galley(ctx, &t.text, t.bold);
        let style = LabelStyle::Tag { border: Some(t.border), fill: t.fill };
        let size = paint::label_rect(&g, Pos2::ZERO, style).size() + egui::vec2(2.0, 2.0);
        let prefer = t.dirs.first().map(|&d| View::dir_to_screen(d)).unwrap_or(egui::vec2(0.0, -1.0));
        asks.push(paint::ScreenLabel { anchor: view.to_screen(t.at), size, prefer, previous: None });
        galleys.push((g, style));
    }
    // Tags of every overlay shown are placed together, clear of each other (the one placement
    // the unit labels use).
    let placed = paint::place(&asks, taken, view.rect);
    for (((r, _), ask), (t, (g, style))) in placed.into_iter().zip(&asks).zip(shown.into_iter().zip(galleys)) {
        let anchor = ask.anchor;
        // A tag pushed away from its place keeps a thin leader line to it.
        if !r.expand(4.0).contains(anchor) && r.center().distance(anchor) > r.height() {
            let end = Pos2::new(anchor.x.clamp(r.left() + 3.0, r.right() - 3.0), anchor.y.clamp(r.top(), r.bottom()));
            out.push(egui::Shape::line_segment([anchor, end], egui::Stroke::new(1.5, t.border.gamma_multiply(0.8))));
            out.push(egui::Shape::circle_filled(anchor, 2.5, t.border));
        }
        paint::label(g, r.center(), style, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_of_several_overlays_stay_on_screen_and_clear_of_each_other() {
        // Three tags wanting the same spot at the screen's edge (an arc's, a flank's and a
        // ghost's), and a stand under it.
        let view = Rect::from_min_max(Pos2::new(0.0, 30.0), Pos2::new(800.0, 600.0));
        let mut taken = Taken::default();
        taken.add(Rect::from_center_size(Pos2::new(10.0, 40.0), egui::vec2(30.0, 12.0)));
        let ask = || paint::ScreenLabel { anchor: Pos2::new(10.0, 40.0), size: egui::vec2(120.0, 18.0), prefer: egui::vec2(0.0, -1.0), previous: None };
        let placed = paint::place(&[ask(), ask(), ask()], &mut taken, view);
        for (i, (r, clear)) in placed.iter().enumerate() {
            assert!(*clear && view.contains_rect(*r), "tag {i} at {r:?}");
            assert!(placed.iter().enumerate().all(|(j, (o, _))| i == j || !o.intersects(*r)), "tag {i} overlaps another");
            assert!(!r.intersects(taken.0[0]), "tag {i} is on the stand");
        }
    }

    #[test]
    fn hatching_stays_inside_and_is_evenly_spaced() {
        let square = [Pos2::new(0.0, 0.0), Pos2::new(100.0, 0.0), Pos2::new(100.0, 100.0), Pos2::new(0.0, 100.0)];
        let lines = hatch(&square, 10.0, 45.0);
        // Diagonals 10 points apart across a 100-point square: about 141/10 of them.
        assert!((12..=16).contains(&lines.len()), "{}", lines.len());
        for [a, b] in &lines {
            for p in [a, b] {
                assert!(p.x >= -0.01 && p.x <= 100.01 && p.y >= -0.01 && p.y <= 100.01, "{p:?}");
            }
            assert!(((b.y - a.y) / (b.x - a.x) - 1.0).abs() < 1e-3, "at 45°");
        }
        assert!(hatch(&square[..2], 10.0, 0.0).is_empty());
    }
}
