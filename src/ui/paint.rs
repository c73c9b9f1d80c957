//! Picture shapes (inches) to egui shapes (screen points), and labels that stay readable.
//!
//! Geometry scales with the zoom; strokes keep at least a hairline; labels are sized in screen
//! points within limits, and placed so they do not sit on each other or on the troops.

use std::sync::Arc;

use bevy::math::Vec2;
use bevy_egui::egui::{self, Color32, FontFamily, FontId, Galley, Pos2, Rect};

use super::camera::View;
use crate::picture::{Area, LabelAsk, LabelKind, Rgba, Shape, Stroke, palette};

/// The thinnest line drawn, screen points: hairlines stay visible when zoomed out.
const MIN_STROKE: f32 = 1.0;
/// Below this zoom (points an inch) the 1" grid is a grey wash: leave it out.
const MINOR_GRID_MIN_PPI: f32 = 7.0;
/// The pale front edge of a stand is never thinner than this, so facing reads when zoomed out.
const FRONT_EDGE_MIN: f32 = 2.5;

pub(crate) fn table_font() -> FontFamily {
    FontFamily::Name("table".into())
}

pub(crate) fn table_font_bold() -> FontFamily {
    FontFamily::Name("table-bold".into())
}

pub(crate) fn colour(c: Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(c[0], c[1], c[2], c[3])
}

pub(crate) fn rgb(c: [u8; 3]) -> Color32 {
    Color32::from_rgb(c[0], c[1], c[2])
}

fn stroke_px(s: &Stroke, ppi: f32) -> f32 {
    (s.width * ppi).max(MIN_STROKE)
}

/// Triangle indices of a (possibly concave) polygon, from earcut; empty if it is degenerate.
pub(crate) fn triangulate(points: &[Vec2]) -> Vec<u32> {
    if points.len() < 3 {
        return Vec::new();
    }
    let flat: Vec<f32> = points.iter().flat_map(|p| [p.x, p.y]).collect();
    earcutr::earcut(&flat, &[], 2).map(|t| t.into_iter().map(|i| i as u32).collect()).unwrap_or_default()
}

/// A picture shape with its fill triangulated once (terrain is cached, troops are drawn fresh).
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub shape: Shape,
    pub triangles: Vec<u32>,
}

impl Prepared {
    pub fn new(shape: Shape) -> Self {
        let triangles = match &shape {
            Shape::Polygon { points, fill: Some(_), .. } if points.len() > 4 => triangulate(points),
            _ => Vec::new(),
        };
        Prepared { shape, triangles }
    }
}

fn is_minor_grid(s: &Stroke) -> bool {
    s.colour == palette::GRID_MINOR
}

fn is_grid(s: &Stroke) -> bool {
    [palette::GRID_MINOR, palette::GRID_MAJOR, palette::GRID_FOOT].contains(&s.colour)
}

/// The stroke as drawn on screen: width clamped, the minor grid faded in as one zooms in.
pub(crate) fn screen_stroke(s: &Stroke, ppi: f32) -> egui::Stroke {
    let mut c = s.colour;
    let mut width = stroke_px(s, ppi);
    if is_grid(s) {
        let fade = if is_minor_grid(s) { ((ppi - MINOR_GRID_MIN_PPI) / 6.0).clamp(0.0, 1.0) } else { 1.0 };
        c[3] = (c[3] as f32 * fade) as u8;
    }
    if s.colour == palette::FRONT_EDGE {
        width = width.max(FRONT_EDGE_MIN);
    }
    egui::Stroke::new(width, colour(c))
}

/// Shapes left out at this zoom: the 1" grid when it would be a grey wash.
pub(crate) fn hidden_at(s: &Shape, ppi: f32) -> bool {
    matches!(s, Shape::Line { stroke, .. } if is_minor_grid(stroke) && ppi < MINOR_GRID_MIN_PPI)
}

/// A closed outline's stroke, solid or dashed.
fn outline(points: &[Pos2], s: &Stroke, ppi: f32, closed: bool, out: &mut Vec<egui::Shape>) {
    let stroke = screen_stroke(s, ppi);
    match s.dash {
        Some(d) => {
            let mut path = points.to_vec();
            if closed && let Some(&first) = points.first() {
                path.push(first);
            }
            let dash = (d * ppi).max(2.0);
            egui::Shape::dashed_line_many(&path, stroke, dash, dash, out);
        }
        None if closed => out.push(egui::Shape::closed_line(points.to_vec(), stroke)),
        None => out.push(egui::Shape::line(points.to_vec(), stroke)),
    }
}

/// Paint one shape that is not a label. `triangles` come from `Prepared` (or are empty for
/// convex polygons of up to four corners).
pub(crate) fn shape(view: &View, s: &Shape, triangles: &[u32], out: &mut Vec<egui::Shape>) {
    let ppi = view.ppi;
    match s {
        Shape::Polygon { points, fill, stroke } => {
            let screen: Vec<Pos2> = points.iter().map(|&p| view.to_screen(p)).collect();
            if let Some(f) = fill {
                if points.len() <= 4 {
                    out.push(egui::Shape::convex_polygon(screen.clone(), colour(*f), egui::Stroke::NONE));
                } else {
                    let own;
                    let tris = if triangles.is_empty() {
                        own = triangulate(points);
                        &own
                    } else {
                        triangles
                    };
                    let mut mesh = egui::Mesh::default();
                    let c = colour(*f);
                    for &p in &screen {
                        mesh.colored_vertex(p, c);
                    }
                    for t in tris.chunks_exact(3) {
                        mesh.add_triangle(t[0], t[1], t[2]);
                    }
                    out.push(egui::Shape::mesh(mesh));
                }
            }
            if let Some(st) = stroke {
                outline(&screen, st, ppi, true, out);
            }
        }
        Shape::Line { points, stroke } => {
            if hidden_at(s, ppi) {
                return;
            }
            let screen: Vec<Pos2> = points.iter().map(|&p| view.to_screen(p)).collect();
            outline(&screen, stroke, ppi, false, out);
        }
        Shape::Circle { centre, radius, fill, stroke } => {
            let c = view.to_screen(*centre);
            let mut r = radius * ppi;
            // The morale marker stays a readable badge however far out one zooms.
            if *fill == Some(palette::MORALE_MARKER) {
                r = r.max(MORALE_BADGE_MIN_RADIUS);
            }
            if let Some(f) = fill {
                out.push(egui::Shape::circle_filled(c, r, colour(*f)));
            }
            if let Some(st) = stroke {
                if st.dash.is_some() {
                    let n = ((r * 0.6) as usize).clamp(24, 180);
                    let pts: Vec<Pos2> = (0..n)
                        .map(|i| {
                            let a = i as f32 / n as f32 * std::f32::consts::TAU;
                            c + egui::vec2(a.cos(), a.sin()) * r
                        })
                        .collect();
                    outline(&pts, st, ppi, true, out);
                } else {
                    out.push(egui::Shape::circle_stroke(c, r, egui::Stroke::new(stroke_px(st, ppi), colour(st.colour))));
                }
            }
        }
        Shape::Label { .. } => {}
    }
}

/// Smallest radius of the morale-marker badge on screen.
pub(crate) const MORALE_BADGE_MIN_RADIUS: f32 = 7.0;

/// Letter height in screen points for a label of `size` inches: readable at any zoom, growing a
/// little when zoomed in.
pub(crate) fn label_px(kind: LabelKind, size: f32, ppi: f32) -> f32 {
    match kind {
        LabelKind::Unit => (size * ppi).clamp(26.0 * size, 40.0 * size),
        LabelKind::Terrain | LabelKind::Scale => (size * ppi).clamp((22.0 * size).max(10.0), 34.0 * size),
    }
}

/// How a label is set off from what is under it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LabelStyle {
    /// On a small paper tag (troops): `border` for the selected unit.
    Tag { border: Option<Color32>, fill: Color32 },
    /// Map lettering with a pale halo (terrain, objectives).
    Halo(Color32),
    /// Bare text (inside a badge).
    Plain,
}

pub(crate) const TAG_FILL: Color32 = Color32::from_rgba_premultiplied(236, 232, 214, 225);
const TAG_PAD: egui::Vec2 = egui::vec2(4.0, 1.0);

pub(crate) fn galley(ctx: &egui::Context, text: &str, px: f32, bold: bool, colour: Color32) -> Arc<Galley> {
    let family = if bold { table_font_bold() } else { table_font() };
    ctx.fonts_mut(|f| f.layout_no_wrap(text.to_owned(), FontId::new(px, family), colour))
}

/// The box a label takes, centred on `centre`, tag padding included.
pub(crate) fn label_rect(g: &Galley, centre: Pos2, style: LabelStyle) -> Rect {
    let r = Rect::from_center_size(centre, g.size());
    match style {
        LabelStyle::Tag { .. } => r.expand2(TAG_PAD),
        LabelStyle::Halo(_) => r.expand(1.0),
        LabelStyle::Plain => r,
    }
}

pub(crate) fn label(g: Arc<Galley>, centre: Pos2, style: LabelStyle, out: &mut Vec<egui::Shape>) {
    let text_rect = Rect::from_center_size(centre, g.size());
    let pos = text_rect.min;
    match style {
        LabelStyle::Tag { border, fill } => {
            let r = text_rect.expand2(TAG_PAD);
            let stroke = border.map(|c| egui::Stroke::new(2.0, c)).unwrap_or(egui::Stroke::new(1.0, Color32::from_black_alpha(90)));
            out.push(egui::Shape::Rect(egui::epaint::RectShape::new(r, 3.0, fill, stroke, egui::StrokeKind::Outside)));
        }
        LabelStyle::Halo(h) => {
            for d in [egui::vec2(-1.0, 0.0), egui::vec2(1.0, 0.0), egui::vec2(0.0, -1.0), egui::vec2(0.0, 1.0), egui::vec2(-1.0, -1.0), egui::vec2(1.0, 1.0), egui::vec2(1.0, -1.0), egui::vec2(-1.0, 1.0)] {
                out.push(egui::Shape::galley_with_override_text_color(pos + d, g.clone(), h));
            }
        }
        LabelStyle::Plain => {}
    }
    out.push(egui::Shape::galley(pos, g, Color32::BLACK));
}

/// Rectangles already taken on screen, for placing labels.
#[derive(Default)]
pub(crate) struct Taken(pub Vec<Rect>);

impl Taken {
    pub fn hits(&self, r: Rect) -> bool {
        self.0.iter().any(|o| o.intersects(r))
    }
    /// How much of `r` is covered, in square points.
    pub fn overlap(&self, r: Rect) -> f32 {
        self.0.iter().map(|o| o.intersect(r)).filter(|i| i.is_positive()).map(|i| i.area()).sum()
    }
    pub fn add(&mut self, r: Rect) {
        self.0.push(r);
    }
}

fn area(r: Rect) -> Area {
    Area { min: Vec2::new(r.min.x, r.min.y), max: Vec2::new(r.max.x, r.max.y) }
}

fn pos(v: Vec2) -> Pos2 {
    Pos2::new(v.x, v.y)
}

/// A label to place on screen: its box's size, where it belongs, the direction it would rather
/// move in, and its offset from `anchor` last time (for labels that should not hop about).
pub(crate) struct ScreenLabel {
    pub anchor: Pos2,
    pub size: egui::Vec2,
    pub prefer: egui::Vec2,
    pub previous: Option<egui::Vec2>,
}

/// Place screen labels in order with `picture::place_labels` (the one placement, shared with
/// `otp render`): each clear of what is taken and of the others, inside `within`. Each box is
/// added to `taken`; the flag says whether its spot is clear.
pub(crate) fn place(labels: &[ScreenLabel], taken: &mut Taken, within: Rect) -> Vec<(Rect, bool)> {
    let v = |p: egui::Vec2| Vec2::new(p.x, p.y);
    let asks: Vec<LabelAsk> = labels.iter().map(|l| LabelAsk { anchor: Vec2::new(l.anchor.x, l.anchor.y), size: v(l.size), prefer: v(l.prefer), previous: l.previous.map(v) }).collect();
    let mut areas: Vec<Area> = taken.0.iter().map(|&r| area(r)).collect();
    let placed = crate::picture::place_labels(&asks, &mut areas, area(within));
    placed
        .into_iter()
        .zip(labels)
        .map(|(p, l)| {
            let r = Rect::from_center_size(pos(p.centre), l.size);
            taken.add(r);
            (r, p.clear)
        })
        .collect()
}

/// The screen box of a polygon.
pub(crate) fn screen_bounds(view: &View, points: &[Vec2]) -> Rect {
    Rect::from_points(&points.iter().map(|&p| view.to_screen(p)).collect::<Vec<_>>())
}

/// Where a label goes: starting at `centre`, stepping out along each of `dirs` in turn (nearest
/// steps first) until it is clear of everything taken; the least covered spot if none is.
/// The flag says whether the spot is clear.
pub(crate) fn place_near(size: egui::Vec2, centre: Pos2, dirs: &[egui::Vec2], taken: &Taken, within: Rect, steps: usize) -> (Rect, bool) {
    let step = size.y.min(size.x) * 0.5 + 1.0;
    let mut best: Option<(f32, Rect)> = None;
    for k in 0..steps.max(1) {
        for (j, d) in dirs.iter().enumerate() {
            let d = if d.length_sq() > 1e-6 { d.normalized() } else { egui::vec2(0.0, -1.0) };
            let r = Rect::from_center_size(centre + d * step * k as f32, size);
            let cost = taken.overlap(r) + if within.contains_rect(r) { 0.0 } else { 40.0 };
            if cost == 0.0 {
                return (r, true);
            }
            // Prefer near spots and the first direction: a little cost for each step out.
            let cost = cost + k as f32 * 4.0 + j as f32 * 2.0;
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, r));
            }
            if k == 0 {
                break;
            }
        }
    }
    (best.map(|(_, r)| r).unwrap_or(Rect::from_center_size(centre, size)), false)
}

/// The name part of a terrain label ("Oak Wood · regular woods · type C" → "Oak Wood").
pub(crate) fn short_label(text: &str) -> &str {
    text.split(" · ").next().unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concave_polygons_triangulate_and_labels_stay_readable() {
        // An L shape: 6 corners, 4 triangles.
        let l = [Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 1.0), Vec2::new(1.0, 1.0), Vec2::new(1.0, 4.0), Vec2::new(0.0, 4.0)];
        assert_eq!(triangulate(&l).len(), 12);
        for ppi in [2.0, 15.0, 60.0, 240.0] {
            let u = label_px(LabelKind::Unit, 0.5, ppi);
            assert!((13.0..=20.0).contains(&u), "{ppi}: {u}");
            let t = label_px(LabelKind::Terrain, 0.5, ppi);
            assert!((11.0..=17.0).contains(&t), "{ppi}: {t}");
        }
        assert_eq!(short_label("Oak Wood · regular woods · type C"), "Oak Wood");
    }

    #[test]
    fn labels_step_away_from_what_is_taken() {
        let mut taken = Taken::default();
        taken.add(Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(100.0, 20.0)));
        let within = Rect::from_min_max(egui::pos2(-500.0, -500.0), egui::pos2(500.0, 500.0));
        let (r, clear) = place_near(egui::vec2(60.0, 14.0), egui::pos2(50.0, 10.0), &[egui::vec2(0.0, -1.0)], &taken, within, 10);
        assert!(clear && !taken.hits(r) && r.center().y < 0.0, "{r:?}");
    }
}
