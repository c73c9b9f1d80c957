//! The ruler: drag between two points to measure. An end on a stand snaps the measurement to the
//! edges: stand to stand it is the edge-to-edge distance between the nearest stands of the two
//! units (`Footprint::distance`), stand to point it is from the nearest stand edge.

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::camera::View;
use super::paint::{self, LabelStyle};
use super::table_view::{Troops, UnitGeom};
use super::UiSet;
use crate::picture::palette;
use crate::table::footprint::Footprint;

#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct Ruler {
    /// Ruler mode: left-drag measures instead of panning.
    pub enabled: bool,
    pub from: Option<Vec2>,
    pub to: Option<Vec2>,
    pub dragging: bool,
}

impl Ruler {
    pub fn toggle(&mut self) {
        self.enabled = !self.enabled;
        if !self.enabled {
            self.clear();
        }
    }
    pub fn clear(&mut self) {
        self.from = None;
        self.to = None;
        self.dragging = false;
    }
}

/// What the ruler reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Measure {
    /// The measured segment (snapped to stand edges where an end is on a stand).
    pub a: Vec2,
    pub b: Vec2,
    pub inches: f32,
    /// Names of the units at the ends, if any.
    pub from: Option<String>,
    pub to: Option<String>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Ruler>()
        .add_systems(Update, keyboard.run_if(not(egui_wants_any_keyboard_input)))
        .add_systems(EguiPrimaryContextPass, draw.in_set(UiSet::Tools).run_if(super::fonts_ready));
}

fn keyboard(keys: Res<ButtonInput<KeyCode>>, mut ruler: ResMut<Ruler>) {
    if keys.just_pressed(KeyCode::KeyR) {
        ruler.toggle();
    }
    if keys.just_pressed(KeyCode::Escape) {
        ruler.clear();
    }
}

fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-9)).clamp(0.0, 1.0);
    a + ab * t
}

/// The point of a stand nearest to `p` (p itself when inside).
pub(crate) fn closest_on_stand(f: &Footprint, p: Vec2) -> Vec2 {
    if f.contains(p) {
        return p;
    }
    let c = f.corners();
    (0..4).map(|i| closest_on_segment(p, c[i], c[(i + 1) % 4])).min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p))).unwrap_or(p)
}

/// The nearest points of two stands (a corner of one and an edge of the other, for stands apart).
fn closest_between(f: &Footprint, g: &Footprint) -> (Vec2, Vec2) {
    let mut best = (f.centre, g.centre, f32::INFINITY);
    for c in f.corners() {
        let q = closest_on_stand(g, c);
        let d = c.distance(q);
        if d < best.2 {
            best = (c, q, d);
        }
    }
    for c in g.corners() {
        let q = closest_on_stand(f, c);
        let d = c.distance(q);
        if d < best.2 {
            best = (q, c, d);
        }
    }
    (best.0, best.1)
}

/// Measure between two table points; `tolerance` (inches) widens stands for picking.
pub(crate) fn measure(from: Vec2, to: Vec2, troops: &[UnitGeom], tolerance: f32) -> Measure {
    let ua = super::table_view::unit_at(troops, from, tolerance);
    let ub = super::table_view::unit_at(troops, to, tolerance);
    let name = |u: Option<&UnitGeom>| u.map(|u| u.name.clone());
    match (ua, ub) {
        (Some(a), Some(b)) if a.entity != b.entity => {
            let mut best: Option<(f32, &Footprint, &Footprint)> = None;
            for f in &a.stands {
                for g in &b.stands {
                    let d = f.distance(g);
                    if best.is_none_or(|(bd, _, _)| d < bd) {
                        best = Some((d, f, g));
                    }
                }
            }
            match best {
                Some((d, f, g)) => {
                    let (p, q) = closest_between(f, g);
                    Measure { a: p, b: q, inches: d, from: name(Some(a)), to: name(Some(b)) }
                }
                None => Measure { a: from, b: to, inches: from.distance(to), from: None, to: None },
            }
        }
        (Some(a), None) => {
            let p = nearest_edge(&a.stands, to);
            Measure { a: p, b: to, inches: p.distance(to), from: name(Some(a)), to: None }
        }
        (None, Some(b)) => {
            let q = nearest_edge(&b.stands, from);
            Measure { a: from, b: q, inches: from.distance(q), from: None, to: name(Some(b)) }
        }
        _ => Measure { a: from, b: to, inches: from.distance(to), from: None, to: None },
    }
}

fn nearest_edge(stands: &[Footprint], p: Vec2) -> Vec2 {
    stands.iter().map(|f| closest_on_stand(f, p)).min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p))).unwrap_or(p)
}

/// Inches to one decimal, as a wargamer reads a tape.
pub(crate) fn inches_text(d: f32) -> String {
    format!("{:.1}\"", d)
}

fn draw(mut contexts: EguiContexts, ruler: Res<Ruler>, view: Res<View>, troops: Res<Troops>) -> Result {
    let (Some(from), Some(to)) = (ruler.from, ruler.to) else { return Ok(()) };
    if from.distance(to) * view.ppi < 3.0 {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let m = measure(from, to, &troops.0, 3.0 / view.ppi);
    let (a, b) = (view.to_screen(m.a), view.to_screen(m.b));
    let mut out = Vec::new();
    let dark = egui::Color32::from_rgb(25, 22, 18);
    let tape = paint::colour(palette::MORALE_MARKER);
    // Where the drag really started and ended, when the ends snapped to stands.
    for (raw, snapped) in [(from, m.a), (to, m.b)] {
        if raw.distance(snapped) * view.ppi > 2.0 {
            let (r, s) = (view.to_screen(raw), view.to_screen(snapped));
            out.extend(egui::Shape::dashed_line(&[r, s], egui::Stroke::new(1.5, dark), 4.0, 3.0));
            out.push(egui::Shape::circle_filled(r, 3.0, dark));
        }
    }
    out.push(egui::Shape::line_segment([a, b], egui::Stroke::new(6.0, dark)));
    out.push(egui::Shape::line_segment([a, b], egui::Stroke::new(3.0, tape)));
    // Inch ticks along the tape, longer every 6".
    let dir = (b - a).normalized();
    let normal = egui::vec2(-dir.y, dir.x);
    if view.ppi >= 5.0 {
        let n = m.inches.floor() as i32;
        for i in 1..=n {
            let p = a + dir * (i as f32 * view.ppi);
            let len = if i % 6 == 0 { 7.0 } else { 3.5 };
            out.push(egui::Shape::line_segment([p - normal * len, p + normal * len], egui::Stroke::new(if i % 6 == 0 { 2.0 } else { 1.2 }, dark)));
        }
    }
    for p in [a, b] {
        out.push(egui::Shape::line_segment([p - normal * 8.0, p + normal * 8.0], egui::Stroke::new(3.0, dark)));
        out.push(egui::Shape::circle_filled(p, 3.5, tape));
        out.push(egui::Shape::circle_stroke(p, 3.5, egui::Stroke::new(1.5, dark)));
    }
    // The reading beside the middle of the tape, on the side away from the screen's top-left.
    let side = if normal.y < 0.0 { -normal } else { normal };
    let big = paint::galley(ctx, &inches_text(m.inches), 17.0, true, dark);
    let note = match (&m.from, &m.to) {
        (Some(x), Some(y)) => Some(format!("edge to edge: {x} → {y}")),
        (Some(x), None) => Some(format!("from {x}")),
        (None, Some(y)) => Some(format!("to {y}")),
        (None, None) => None,
    };
    let mid = a + (b - a) / 2.0;
    let big_rect = paint::label_rect(&big, mid, LabelStyle::Tag { border: None, fill: paint::TAG_FILL });
    let offset = side * (big_rect.size().length() / 2.0 + 8.0);
    let fill = egui::Color32::from_rgba_unmultiplied(250, 238, 170, 240);
    paint::label(big, mid + offset, LabelStyle::Tag { border: Some(dark), fill }, &mut out);
    if let Some(note) = note {
        let g = paint::galley(ctx, &note, 11.5, false, dark);
        let below = mid + offset + egui::vec2(0.0, big_rect.height() / 2.0 + g.size().y / 2.0 + 6.0);
        paint::label(g, below, LabelStyle::Tag { border: None, fill: paint::TAG_FILL }, &mut out);
    }
    painter.extend(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(name: &str, x: f32, y: f32, n: usize) -> UnitGeom {
        let stands = (0..n).map(|i| Footprint { centre: Vec2::new(x + 2.0 * i as f32, y), facing: 0.0, frontage: 2.0, depth: 0.75 }).collect();
        UnitGeom { entity: Entity::from_raw_u32(n as u32 + (x as u32) * 10).unwrap(), name: name.into(), stands }
    }

    #[test]
    fn ends_on_stands_measure_edge_to_edge() {
        let troops = vec![unit("A", 0.0, 0.0, 4), unit("B", 1.0, 10.0, 3)];
        // From the middle of A to the middle of B: 10" between centres, less two half-depths.
        let m = measure(Vec2::new(3.0, 0.1), Vec2::new(3.0, 10.2), &troops, 0.0);
        assert!((m.inches - 9.25).abs() < 1e-3, "{m:?}");
        assert!((m.a.distance(m.b) - m.inches).abs() < 1e-3, "the drawn segment is the measured one");
        assert_eq!((m.from.as_deref(), m.to.as_deref()), (Some("A"), Some("B")));
        // From A to open ground: from A's front edge.
        let m = measure(Vec2::new(3.0, 0.0), Vec2::new(3.0, 5.0), &troops, 0.0);
        assert!((m.inches - 4.625).abs() < 1e-3, "{m:?}");
        // Open ground to open ground: as the crow flies.
        let m = measure(Vec2::new(-5.0, 0.0), Vec2::new(-5.0, 7.5), &troops, 0.0);
        assert!((m.inches - 7.5).abs() < 1e-4);
        assert_eq!(inches_text(7.46), "7.5\"");
    }
}
