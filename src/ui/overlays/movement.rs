//! Movement overlay (M): where the selected unit can go this move, and a ghost of a dragged move.
//!
//! The envelope shows each kind of move out to the unit's allowance: the forward and oblique fan
//! (±45°, 6.1, 6.3), the side-step bands (half rate, 6.3), the wheel of each end about the other
//! (6.3), and a march column's reach (5.1). A drag becomes one `MoveStep` and `plan_move` says
//! whether it is legal, what it costs and where it first meets disordering terrain (6.6); the
//! window decides nothing.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::scene::{Prim, Scene, Tag, colours};
use super::shapes::{arc_points, centre_of, fan, max_wheel, side_band, wheel_path};
use crate::rules::engine::Engine;
use crate::scenario::model::Formation;
use crate::table::arc::Arc;
use crate::table::footprint::{Footprint, bearing_vector, vector_bearing};
use crate::table::geom::{point_along, polyline_length, turn_about};
use crate::table::movement::{Allowance, End, MoveCites, MoveReport, MoveRules, MoveStep, StandMove, plan_move};
use crate::table::situation::{Situation, UnitInfo};

/// A unit's movement allowance, from the MOVEMENT chart (6.1), and where the number comes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AllowanceInfo {
    pub allowance: Allowance,
    /// "Line infantry in line: 6\"".
    pub what: String,
    /// The chart's source for the number: "OTP 6.6" or "reconstructed: …".
    pub source: String,
    pub reconstructed: bool,
}


/// How far the unit can go in one move, as its engine's `reach` says (OTP: the MOVEMENT chart
/// for the formation it is in, 6.1; a march column also gets the road allowance, 5.1, which
/// `plan_move` grants only if it stays on the road). `unit` is the game's entity.
pub(crate) fn allowance(engine: &dyn Engine, unit: Entity) -> Option<AllowanceInfo> {
    let r = engine.reach(unit)?;
    Some(AllowanceInfo { allowance: r.allowance, what: r.what, reconstructed: r.source.is_reconstructed(), source: r.source.cited(engine.rules()) })
}

/// What a drag does, decided by where it starts (and Shift).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DragKind {
    /// Forward, or oblique up to 45° (6.1, 6.3).
    Advance,
    /// Sideways keeping the facing, at half rate (6.3): Shift-drag.
    SideStep,
    /// Wheel about the given end (the other end was grabbed, 6.3).
    Wheel(End),
    /// A march column's head along a path, the stands following (5.1).
    Path,
    /// One stand of a skirmish line on its own, keeping its facing (5.3, 6.4).
    Stand(usize),
}

/// Within this many degrees of straight ahead a drag is a move forward, not an oblique.
const STRAIGHT: f32 = 3.0;

fn wrap180(a: f32) -> f32 {
    let a = a.rem_euclid(360.0);
    if a > 180.0 { a - 360.0 } else { a }
}

/// The stands of a line from left to right (by where they stand).
fn left_to_right(u: &UnitInfo) -> Vec<usize> {
    let Some(mid) = u.stands.get(u.stands.len() / 2) else { return Vec::new() };
    let right = mid.footprint.right();
    let mut order: Vec<usize> = (0..u.stands.len()).collect();
    order.sort_by(|&a, &b| u.stands[a].footprint.centre.dot(right).total_cmp(&u.stands[b].footprint.centre.dot(right)));
    order
}

/// A skirmish line moves stand by stand (5.3); Shift drags it as a whole line.
pub(crate) fn by_stand(u: &UnitInfo) -> bool {
    u.formation == Formation::Skirmish && u.stands.len() > 1
}

/// What a drag starting at `grab` on the unit does: a column follows its head; a skirmish line's
/// stand moves alone (with Shift the whole line moves, as a line without Shift); Shift
/// side-steps; an end stand (or, for one or two stands, the outer quarter of the front) wheels
/// about the other end; anywhere else moves forward or obliques.
pub(crate) fn grab_kind(u: &UnitInfo, grab: Vec2, shift: bool) -> DragKind {
    if u.in_column() && u.stands.len() > 1 {
        return DragKind::Path;
    }
    if by_stand(u) && !shift {
        let dist = |k: usize| u.stands[k].footprint.centre.distance(grab);
        let on = (0..u.stands.len()).find(|&k| u.stands[k].footprint.contains(grab));
        let k = on.or_else(|| (0..u.stands.len()).min_by(|&a, &b| dist(a).total_cmp(&dist(b))));
        return DragKind::Stand(k.unwrap_or(0));
    }
    if shift && !by_stand(u) {
        return DragKind::SideStep;
    }
    let order = left_to_right(u);
    let Some(arc) = Arc::of_unit(u) else { return DragKind::Advance };
    let n = order.len();
    let end = if n >= 3 {
        let nearest = (0..n).min_by(|&a, &b| u.stands[a].footprint.centre.distance(grab).total_cmp(&u.stands[b].footprint.centre.distance(grab)));
        match nearest {
            Some(i) if i == order[0] => Some(End::Right),
            Some(i) if i == order[n - 1] => Some(End::Left),
            _ => None,
        }
    } else {
        let width = arc.front_left.distance(arc.front_right).max(1e-3);
        let x = (grab - arc.front_left).dot(bearing_vector(arc.facing + 90.0)) / width;
        if x < 0.25 {
            Some(End::Right)
        } else if x > 0.75 {
            Some(End::Left)
        } else {
            None
        }
    };
    match end {
        Some(pivot) => DragKind::Wheel(pivot),
        None => DragKind::Advance,
    }
}

/// The front corners a wheel turns on and swings: (fixed, swinging).
fn wheel_ends(u: &UnitInfo, pivot: End) -> Option<(Vec2, Vec2)> {
    let arc = Arc::of_unit(u)?;
    Some(match pivot {
        End::Left => (arc.front_left, arc.front_right),
        End::Right => (arc.front_right, arc.front_left),
    })
}

/// The move a drag through `points` (table inches, the first where it started) asks for.
pub(crate) fn step(u: &UnitInfo, kind: DragKind, points: &[Vec2]) -> Option<MoveStep> {
    let (&first, &last) = (points.first()?, points.last()?);
    let head = u.stands.first()?.footprint;
    let d = last - first;
    match kind {
        DragKind::Advance => {
            if d.length() < 0.02 {
                return None;
            }
            let angle = wrap180(vector_bearing(d) - head.facing);
            Some(if angle.abs() <= STRAIGHT { MoveStep::Forward(d.dot(head.forward()).max(0.0)) } else { MoveStep::Oblique { angle, distance: d.length() } })
        }
        DragKind::SideStep => {
            let s = d.dot(head.right());
            (s.abs() >= 0.02).then_some(MoveStep::SideStep(s))
        }
        DragKind::Wheel(pivot) => {
            let (fixed, _) = wheel_ends(u, pivot)?;
            if first.distance(fixed) < 0.05 || last.distance(fixed) < 0.05 {
                return None;
            }
            let angle = wrap180(vector_bearing(last - fixed) - vector_bearing(first - fixed));
            (angle.abs() >= 0.1).then_some(MoveStep::Wheel { pivot, angle })
        }
        DragKind::Path => {
            let start = head.front_centre();
            let mut path: Vec<Vec2> = Vec::new();
            for &p in &points[1..] {
                let q = start + (p - first);
                if path.last().copied().unwrap_or(start).distance(q) >= 0.05 {
                    path.push(q);
                }
            }
            (!path.is_empty()).then_some(MoveStep::Path(path))
        }
        DragKind::Stand(k) => {
            let f = u.stands.get(k)?.footprint;
            (d.length() >= 0.02).then_some(MoveStep::Stands(vec![StandMove { stand: k, to: f.centre + d, facing: f.facing }]))
        }
    }
}

/// The polyline cut `length` inches along from its start.
fn truncate(path: &[Vec2], length: f32) -> Vec<Vec2> {
    let mut out = vec![path[0]];
    let mut left = length;
    for w in path.windows(2) {
        let seg = w[0].distance(w[1]);
        if seg >= left {
            out.push(w[0].lerp(w[1], if seg > 0.0 { left / seg } else { 0.0 }));
            return out;
        }
        left -= seg;
        out.push(w[1]);
    }
    out
}

/// The same move, a fraction `f` of the way.
fn scaled(u: &UnitInfo, step: &MoveStep, f: f32) -> MoveStep {
    match step {
        MoveStep::Forward(d) => MoveStep::Forward(d * f),
        MoveStep::Oblique { angle, distance } => MoveStep::Oblique { angle: *angle, distance: distance * f },
        MoveStep::SideStep(d) => MoveStep::SideStep(d * f),
        MoveStep::Wheel { pivot, angle } => MoveStep::Wheel { pivot: *pivot, angle: angle * f },
        MoveStep::Path(points) => {
            let start = u.stands[0].footprint.front_centre();
            let full: Vec<Vec2> = std::iter::once(start).chain(points.iter().copied()).collect();
            let cut = truncate(&full, polyline_length(&full) * f);
            MoveStep::Path(cut[1..].to_vec())
        }
        MoveStep::Stands(moves) => MoveStep::Stands(
            moves.iter().filter_map(|m| u.stands.get(m.stand).map(|s| StandMove { to: s.footprint.centre.lerp(m.to, f), ..*m })).collect(),
        ),
        other => other.clone(),
    }
}

/// Where the stands would be if the move were carried out as dragged, legal or not (for the
/// red ghost). A column's path shows its head stand only.
fn attempted(u: &UnitInfo, step: &MoveStep) -> Vec<Footprint> {
    let shift = |v: Vec2| u.stands.iter().map(|s| Footprint { centre: s.footprint.centre + v, ..s.footprint }).collect();
    let head = u.stands[0].footprint;
    match step {
        MoveStep::Forward(d) => shift(head.forward() * *d),
        MoveStep::Oblique { angle, distance } => shift(bearing_vector(head.facing + angle) * *distance),
        MoveStep::SideStep(d) => shift(head.right() * *d),
        MoveStep::Wheel { pivot, angle } => match wheel_ends(u, *pivot) {
            Some((fixed, _)) => u
                .stands
                .iter()
                .map(|s| Footprint { centre: turn_about(s.footprint.centre, fixed, *angle), facing: (s.footprint.facing + angle).rem_euclid(360.0), ..s.footprint })
                .collect(),
            None => Vec::new(),
        },
        MoveStep::Path(points) => {
            let start = head.front_centre();
            let full: Vec<Vec2> = std::iter::once(start).chain(points.iter().copied()).collect();
            let end = *full.last().unwrap_or(&start);
            let len = polyline_length(&full);
            let back = point_along(&full, (len - head.depth).max(0.0));
            let dir = if end.distance(back) > 1e-3 { end - back } else { head.forward() };
            let facing = vector_bearing(dir);
            vec![Footprint { centre: end - bearing_vector(facing) * (head.depth / 2.0), facing, ..head }]
        }
        MoveStep::Stands(moves) => {
            let mut out = u.footprints();
            for m in moves {
                if let Some(f) = out.get_mut(m.stand) {
                    *f = Footprint { centre: m.to, facing: m.facing, ..*f };
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// A dragged move, as the geometry judges it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Preview {
    pub kind: DragKind,
    pub step: MoveStep,
    pub report: MoveReport,
    /// Where the stands would be as dragged (the ghost when it is not allowed).
    pub attempted: Vec<Footprint>,
    /// When not allowed: the farthest the same move could go, if any of it is allowed.
    pub reach: Option<MoveReport>,
    /// Where the drag started and ended, for the arrow.
    pub from: Vec2,
    pub to: Vec2,
    pub path: Vec<Vec2>,
    /// The rule set's sections, for the tags.
    pub cite: MoveCites,
}

/// Asks `plan_move` about a drag. When the move is not allowed, asks again for shorter versions
/// of it to find how far it could go (bisection to 1/512 of the move: under a twentieth of an
/// inch for any allowance in the charts).
pub(crate) fn preview(s: &Situation, unit: usize, kind: DragKind, points: &[Vec2], allowance: Allowance, rules: &MoveRules) -> Option<Preview> {
    let u = s.unit(unit);
    let step = step(u, kind, points)?;
    let report = plan_move(s, unit, std::slice::from_ref(&step), allowance, rules);
    let mut reach = None;
    if !report.legal() {
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        for _ in 0..9 {
            let mid = (lo + hi) / 2.0;
            let r = plan_move(s, unit, &[scaled(u, &step, mid)], allowance, rules);
            if r.legal() {
                lo = mid;
                reach = Some(r);
            } else {
                hi = mid;
            }
        }
        if lo < 0.02 {
            reach = None;
        }
    }
    let arc = Arc::of_unit(u)?;
    let mid = (arc.front_left + arc.front_right) / 2.0;
    let (from, to, path) = match &step {
        MoveStep::Path(p) => {
            let start = u.stands[0].footprint.front_centre();
            (start, *p.last().unwrap_or(&start), std::iter::once(start).chain(p.iter().copied()).collect())
        }
        MoveStep::Wheel { pivot, angle } => {
            let (fixed, swinging) = wheel_ends(u, *pivot)?;
            let path = wheel_path(fixed, swinging, *angle);
            (swinging, *path.last().unwrap_or(&swinging), path)
        }
        MoveStep::Stands(moves) => {
            let from = moves.first().and_then(|m| u.stands.get(m.stand)).map_or(mid, |s| s.footprint.centre);
            let to = moves.first().map_or(from, |m| m.to);
            (from, to, vec![from, to])
        }
        _ => {
            let d = attempted(u, &step).first().map(|f| f.centre - u.stands[0].footprint.centre).unwrap_or_default();
            (mid, mid + d, vec![mid, mid + d])
        }
    };
    Some(Preview { kind, attempted: attempted(u, &step), step, report, reach, from, to, path, cite: rules.cite })
}

fn inches(x: f32) -> String {
    let s = format!("{x:.1}");
    format!("{}\"", s.strip_suffix(".0").unwrap_or(&s))
}

/// The one-line verdict on a dragged move.
pub(crate) fn verdict(p: &Preview) -> String {
    let r = &p.report;
    match &r.problem {
        None => format!("✔ {} of {} used · {} left", inches(r.spent), inches(r.allowance), inches(r.remaining())),
        Some(problem) => format!("✖ not allowed ({}): {}", problem.section, problem.reason),
    }
}

/// The envelope: every kind of move out to the allowance.
/// Each tag cites the rule set's own sections (`rules.cite`) and numbers.
pub(crate) fn envelope(s: &Situation, unit: usize, info: &AllowanceInfo, rules: &MoveRules) -> Scene {
    let c = &rules.cite;
    let mut out = Scene::default();
    let u = s.unit(unit);
    let Some(arc) = Arc::of_unit(u) else { return out };
    let a = info.allowance.full;
    let line = colours::MOVE_LINE;
    let tag = |at: Vec2, text: String, dirs: &[Vec2]| Tag::new(at, text, colours::MOVE_TAG, line).towards(dirs);
    let (fwd, right) = (bearing_vector(arc.facing), bearing_vector(arc.facing + 90.0));
    if u.in_column() && u.stands.len() > 1 {
        let head = u.stands[0].footprint.front_centre();
        let mut ring = Vec::new();
        arc_points(head, a, 0.0, 360.0, &mut ring);
        ring.pop();
        out.under.push(Prim::Fill { points: ring.clone(), colour: colours::MOVE_FILL });
        out.under.push(Prim::Line { points: ring, colour: line, width: 1.5, dash: Some(6.0), closed: true, casing: false });
        out.tags.push(tag(head + fwd * a, format!("column's head: {} along any path ({})", inches(a), c.road), &[fwd, right]));
        if let Some(road) = info.allowance.road {
            let mut ring = Vec::new();
            arc_points(head, road, 0.0, 360.0, &mut ring);
            ring.pop();
            out.under.push(Prim::Line { points: ring, colour: line, width: 1.0, dash: Some(3.0), closed: true, casing: false });
            out.tags.push(tag(head - fwd * road, format!("{} if it keeps to a road all the way ({})", inches(road), c.road), &[-fwd, right]));
        }
        return out;
    }
    // Forward and oblique: the front may go anywhere in the fan (6.1, 6.3).
    let f = fan(arc.front_left, arc.front_right, arc.facing, a);
    out.under.push(Prim::Fill { points: f.clone(), colour: colours::MOVE_FILL });
    out.under.push(Prim::Line { points: f, colour: line, width: 1.5, dash: Some(6.0), closed: true, casing: false });
    let mid = (arc.front_left + arc.front_right) / 2.0;
    out.tags.push(tag(mid + fwd * a, format!("forward or oblique (≤{:.0}°): {} ({}, {})", rules.oblique_max, inches(a), c.allowance, c.manoeuvre), &[fwd, right, -right]).bold());
    // Side steps at half rate (6.3).
    let order = left_to_right(u);
    let side = a / rules.side_step_rate.max(1.0);
    if let (Some(&l), Some(&r)) = (order.first(), order.last()) {
        let (lf, rf) = (u.stands[l].footprint, u.stands[r].footprint);
        for (front, rear, outward) in [(lf.front_left(), lf.rear_left(), -right), (rf.front_right(), rf.rear_right(), right)] {
            let band = side_band(front, rear, outward, side).to_vec();
            out.under.push(Prim::Fill { points: band.clone(), colour: colours::MOVE_SIDE });
            out.under.push(Prim::Hatch { points: band.clone(), colour: colours::MOVE_LINE.gamma_multiply(0.5), spacing: 7.0, angle: 90.0 - arc.facing });
            out.under.push(Prim::Line { points: band, colour: line, width: 1.0, dash: Some(4.0), closed: true, casing: false });
        }
        let at = lf.rear_left() - right * side;
        out.tags.push(tag(at, format!("side step ≤ {} ({})", inches(side), c.manoeuvre), &[-fwd, -right]));
    }
    // Wheels: each end about the other, the swinging end spending the allowance (6.3).
    let width = arc.front_left.distance(arc.front_right);
    let most = max_wheel(width, a);
    for (pivot, end, sign) in [(arc.front_right, arc.front_left, 1.0f32), (arc.front_left, arc.front_right, -1.0)] {
        let path = wheel_path(pivot, end, sign * most);
        let Some(&last) = path.last() else { continue };
        let mut wedge = vec![pivot];
        wedge.extend(path.iter().copied());
        out.under.push(Prim::Fill { points: wedge, colour: colours::MOVE_SIDE });
        out.under.push(Prim::Line { points: vec![pivot, last], colour: line, width: 1.0, dash: Some(4.0), closed: false, casing: false });
        out.under.push(Prim::Line { points: path.clone(), colour: line, width: 2.0, dash: None, closed: false, casing: false });
        if path.len() >= 2 {
            out.under.push(Prim::Arrow { from: path[path.len() - 2], to: last, colour: line });
        }
        if sign > 0.0 {
            out.tags.push(tag(last, format!("wheel ≤ {most:.0}°: an end moves {} on its arc ({})", inches(a), c.manoeuvre), &[-right, fwd]));
        }
    }
    out
}

/// Of `stands` (the unit's, after the move), those the dragged step moves: a skirmisher's
/// stands moved one by one (5.3), else all of them.
fn moved(p: &Preview, stands: &[Footprint]) -> Vec<Footprint> {
    match &p.step {
        MoveStep::Stands(m) => m.iter().filter_map(|m| stands.get(m.stand).copied()).collect(),
        _ => stands.to_vec(),
    }
}

/// The ghost of a dragged move, its verdict, and where it meets disordering terrain.
pub(crate) fn preview_scene(p: &Preview) -> Scene {
    judged_scene(p, p.report.legal(), verdict(p))
}

/// The ghost of a dragged move, green or red by `legal` (in a game: the engine's verdict), with
/// `text` on its tag. The ghost stands where the geometry puts it, or where it was dragged.
pub(crate) fn judged_scene(p: &Preview, legal: bool, text: String) -> Scene {
    let mut out = Scene::default();
    let arrow = if legal { colours::GHOST_OK_EDGE } else { colours::GHOST_BAD_EDGE };
    if p.path.len() > 2 {
        out.over.push(Prim::Line { points: p.path.clone(), colour: arrow, width: 2.0, dash: Some(6.0), closed: false, casing: true });
        let n = p.path.len();
        out.over.push(Prim::Arrow { from: p.path[n - 2], to: p.path[n - 1], colour: arrow });
    } else {
        out.over.push(Prim::Arrow { from: p.from, to: p.to, colour: arrow });
    }
    let ghost = if p.report.legal() { p.report.stands.clone() } else { p.attempted.clone() };
    let (fill, edge, tag_fill) = if legal {
        (colours::GHOST_OK_FILL, colours::GHOST_OK_EDGE, colours::GHOST_OK_TAG)
    } else {
        (colours::GHOST_BAD_FILL, colours::GHOST_BAD_EDGE, colours::GHOST_BAD_TAG)
    };
    if let Some(reach) = &p.reach {
        out.over.push(Prim::Stands { stands: moved(p, &reach.stands), fill: colours::GHOST_OK_FILL.gamma_multiply(0.5), edge: colours::GHOST_REACH_EDGE, dash: true });
        let c = centre_of(&moved(p, &reach.stands));
        let text = format!("✔ can reach this far: {} used · {} left", inches(reach.spent), inches(reach.remaining()));
        let back = (p.from - p.to).normalize_or_zero();
        out.tags.push(Tag::new(c, text, colours::GHOST_OK_TAG, colours::GHOST_OK_EDGE).towards(&[back.perp(), -back.perp(), back]));
    }
    out.over.push(Prim::Stands { stands: ghost.clone(), fill, edge, dash: false });
    // The tag goes by the stands that move (a skirmisher's one stand, or the whole unit).
    let focus = moved(p, &ghost);
    let fwd = focus.first().map(|f| f.forward()).unwrap_or(Vec2::Y);
    let front = focus.iter().map(|f| f.front_centre()).sum::<Vec2>() / focus.len().max(1) as f32;
    let mut text = text;
    // What else the move pays for (6.7 obstacles), from the move or, refused, from its allowed part.
    let items = if p.report.legal() { &p.report.items } else { p.reach.as_ref().map(|r| &r.items).unwrap_or(&p.report.items) };
    let extras: Vec<String> = items.iter().filter(|i| i.section == p.cite.obstacle).map(|i| format!("+ {} ({})", i.what, p.cite.obstacle)).collect();
    if !extras.is_empty() {
        text.push_str(&format!("\n{}", extras.join("\n")));
    }
    if p.report.off_table {
        text.push_str("\noff the table edge");
    }
    out.tags.push(Tag::new(front, text, tag_fill, edge).bold().towards(&[fwd, fwd.perp(), -fwd.perp()]));
    let contacts = if p.report.legal() { &p.report.disorder } else { p.reach.as_ref().map(|r| &r.disorder).unwrap_or(&p.report.disorder) };
    for c in contacts {
        out.over.push(Prim::Badge { at: c.at, text: "!", fill: colours::WARNING, ink: colours::INK });
        let text = format!("⚠ {}: disordering terrain type {:?}, roll here ({}), after {}", c.terrain, c.disorder, p.cite.disorder, inches(c.after));
        out.tags.push(Tag::new(c.at, text, colours::WARNING_TAG, colours::INK).towards(&[-fwd.perp(), fwd.perp(), -fwd]));
    }
    for (name, kind) in &p.report.starts_in {
        out.tags.push(Tag::new(p.from, format!("starts in {name} (type {kind:?}): rolls before moving ({})", p.cite.disorder), colours::WARNING_TAG, colours::INK).towards(&[-fwd]));
    }
    out
}

/// A move built of steps on the table, in a game (6.1, 6.3: the facing changes as the unit
/// moves): where the unit stands after each step and the inches used by then, as the geometry
/// plans them. The engine judges the whole move each time a step is added.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Built {
    pub steps: Vec<MoveStep>,
    /// After each step: the stands and the inches the move has used so far.
    pub after: Vec<(Vec<Footprint>, f32)>,
    pub formation: Formation,
}

/// Plans the steps one prefix at a time (`plan_move` over the first k steps), for the ghost of
/// each step.
pub(crate) fn build(s: &Situation, unit: usize, steps: &[MoveStep], allowance: Allowance, rules: &MoveRules) -> Built {
    let mut formation = s.unit(unit).formation;
    let after = (1..=steps.len())
        .map(|k| {
            let r = plan_move(s, unit, &steps[..k], allowance, rules);
            formation = r.formation;
            (r.stands, r.spent)
        })
        .collect();
    Built { steps: steps.to_vec(), after, formation }
}

impl Built {
    /// Inches the whole built move uses.
    pub fn spent(&self) -> f32 {
        self.after.last().map_or(0.0, |(_, s)| *s)
    }

    /// Where the unit stands when the built steps are done (the first stands of its next drag).
    pub fn stands(&self) -> Option<&[Footprint]> {
        self.after.last().map(|(f, _)| f.as_slice())
    }

    /// The table with the unit where the built steps leave it: the next drag starts there.
    pub fn situation(&self, s: &Situation, unit: usize) -> Situation {
        match self.stands() {
            Some(f) => s.with_stands(unit, f, self.formation),
            None => s.clone(),
        }
    }

    /// Whether a point is on the ghost's stands.
    pub fn contains(&self, p: Vec2) -> bool {
        self.stands().is_some_and(|f| f.iter().any(|f| f.contains(p)))
    }
}

/// The table with the unit where `steps` leave it (as the table is, with none).
pub(crate) fn built_situation(s: &Situation, unit: usize, steps: &[MoveStep], allowance: Allowance, rules: &MoveRules) -> Situation {
    if steps.is_empty() { s.clone() } else { build(s, unit, steps, allowance, rules).situation(s, unit) }
}

/// "2.9\" of 6\" used · 3.1\" left" after `used` inches of an operation allowing `most`.
pub(crate) fn used_left(used: f32, most: Option<f32>) -> String {
    match most {
        Some(m) => format!("{} of {} used · {} left", inches(used), inches(m), inches((m - used).max(0.0))),
        None => format!("{} used", inches(used)),
    }
}

/// The ghost of a built move: each step's stands, numbered, with the inches used and left after
/// it (`before`: spent in the operation before this move), and how to order, shorten or drop it.
pub(crate) fn built_scene(b: &Built, before: f32, most: Option<f32>, dragging: bool) -> Scene {
    let mut out = Scene::default();
    let n = b.after.len();
    for (k, ((stands, spent), step)) in b.after.iter().zip(&b.steps).enumerate() {
        let last = k + 1 == n;
        let (fill, edge) = if last { (colours::GHOST_OK_FILL, colours::GHOST_OK_EDGE) } else { (colours::GHOST_OK_FILL.gamma_multiply(0.4), colours::GHOST_REACH_EDGE) };
        out.over.push(Prim::Stands { stands: stands.clone(), fill, edge, dash: !last });
        let fwd = stands.first().map(|f| f.forward()).unwrap_or(Vec2::Y);
        let front = stands.iter().map(|f| f.front_centre()).sum::<Vec2>() / stands.len().max(1) as f32;
        let mut text = format!("{}. {step} · {}", k + 1, used_left(before + spent, most));
        if last && !dragging {
            text.push_str("\nEnter or click: order it · Backspace: back a step · Esc: drop");
        }
        // Earlier steps' tags only when the unit stands elsewhere after them; beside, not ahead.
        let dirs = if last { vec![fwd, fwd.perp(), -fwd.perp()] } else { vec![-fwd.perp(), fwd.perp()] };
        out.tags.push(Tag::new(front, text, colours::GHOST_OK_TAG, colours::GHOST_OK_EDGE).towards(&dirs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Arm, Terrain, UnitType, Weapon};
    use crate::ui::overlays::testing::{table, v};

    /// The movement rules of the teaching battle's engine (OTP's), asked as the window asks.
    fn otp_rules() -> &'static MoveRules {
        crate::rules::registry::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap().move_rules()
    }

    fn line() -> UnitInfo {
        // 16 figures in line facing north, front from (16, 10) to (24, 10).
        UnitInfo::foot("Line", 0, 16, Formation::Line, v(20.0, 10.0), 0.0)
    }

    /// A line's 6" move (OTP 6.1, the MOVEMENT chart), for the geometry's tests.
    fn six() -> AllowanceInfo {
        AllowanceInfo { allowance: Allowance::new(6.0), what: "infantry in line: 6\"".into(), source: "OTP 6.6".into(), reconstructed: false }
    }

    #[test]
    fn the_allowance_comes_from_the_engine() {
        // OTP 6.1 via the engine's MOVEMENT chart: infantry line 6" (6.6), column 10"
        // (reconstructed), with the road bonus (5.1).
        use crate::rules::cite::RuleSetId;
        let mut scenario = crate::scenario::default_scenario();
        let g = crate::rules::registry::open(RuleSetId::Otp, scenario.clone(), 1).unwrap();
        let unit = |g: &dyn Engine, n: &str| {
            let w = g.world();
            w.try_query::<(Entity, &crate::scenario::spawn::Unit)>().unwrap().iter(w).find(|(_, u)| u.name == n).map(|(e, _)| e).unwrap()
        };
        let a = allowance(g.as_ref(), unit(g.as_ref(), "33rd Foot")).unwrap();
        assert_eq!(a.allowance, Allowance { full: 6.0, road: None });
        assert!(a.what.contains("line: 6\""), "{}", a.what);
        assert!(a.source.starts_with("OTP"), "{}", a.source);
        let u = scenario.sides.iter_mut().flat_map(|s| s.brigades.iter_mut()).flat_map(|b| b.units.iter_mut()).find(|u| u.name == "33rd Foot").unwrap();
        u.formation = Formation::Column;
        let g = crate::rules::registry::open(RuleSetId::Otp, scenario, 1).unwrap();
        let a = allowance(g.as_ref(), unit(g.as_ref(), "33rd Foot")).unwrap();
        assert_eq!(a.allowance.full, 10.0);
        assert!(a.allowance.road.unwrap() > 10.0 && a.reconstructed);
        assert_eq!(a.allowance, g.reach(unit(g.as_ref(), "33rd Foot")).unwrap().allowance, "the engine's reach, as it gives it");
    }

    #[test]
    fn drags_become_moves() {
        let u = line();
        let grab = v(20.0, 9.6);
        assert_eq!(grab_kind(&u, grab, false), DragKind::Advance);
        assert_eq!(grab_kind(&u, grab, true), DragKind::SideStep);
        // The end stands wheel about the other end (6.3).
        assert_eq!(grab_kind(&u, v(17.0, 9.6), false), DragKind::Wheel(End::Right));
        assert_eq!(grab_kind(&u, v(23.0, 9.6), false), DragKind::Wheel(End::Left));
        assert_eq!(step(&u, DragKind::Advance, &[grab, grab + v(0.1, 4.0)]), Some(MoveStep::Forward(4.0)), "nearly straight is straight");
        let Some(MoveStep::Oblique { angle, distance }) = step(&u, DragKind::Advance, &[grab, grab + bearing_vector(30.0) * 5.0]) else { panic!() };
        assert!((angle - 30.0).abs() < 1e-3 && (distance - 5.0).abs() < 1e-4);
        assert_eq!(step(&u, DragKind::SideStep, &[grab, grab + v(-2.0, 0.3)]), Some(MoveStep::SideStep(-2.0)));
        // Grab the left end and pull it forward: a clockwise wheel about the right end.
        let Some(MoveStep::Wheel { pivot: End::Right, angle }) = step(&u, DragKind::Wheel(End::Right), &[v(16.5, 9.8), v(17.0, 13.0)]) else { panic!() };
        assert!(angle > 20.0 && angle < 45.0, "{angle}");
        let col = UnitInfo::foot("Col", 0, 16, Formation::Column, v(20.0, 10.0), 0.0);
        assert_eq!(grab_kind(&col, v(20.0, 9.0), false), DragKind::Path);
        let Some(MoveStep::Path(p)) = step(&col, DragKind::Path, &[v(20.0, 9.0), v(20.0, 12.0), v(23.0, 14.0)]) else { panic!() };
        assert!((p[0] - v(20.0, 13.0)).length() < 1e-4 && (p[1] - v(23.0, 15.0)).length() < 1e-4, "{p:?}");
    }

    #[test]
    fn a_skirmish_line_is_dragged_stand_by_stand() {
        // OTP 5.3, 6.4: each stand of a skirmish line moves on its own; Shift moves the line.
        let u = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 16, Formation::Skirmish, v(20.0, 10.0), 0.0);
        let c = u.stands[2].footprint.centre;
        assert_eq!(grab_kind(&u, c + v(0.1, 0.1), false), DragKind::Stand(2));
        assert_eq!(grab_kind(&u, c, true), DragKind::Advance, "Shift: the whole line");
        let Some(MoveStep::Stands(m)) = step(&u, DragKind::Stand(2), &[c, c + v(0.0, 2.0)]) else { panic!() };
        assert_eq!(m, vec![StandMove { stand: 2, to: c + v(0.0, 2.0), facing: 0.0 }]);
        let s = table(vec![u.clone()]);
        let a = six().allowance;
        let p = preview(&s, 0, DragKind::Stand(2), &[c, c + v(0.0, 2.0)], a, otp_rules()).unwrap();
        assert!(p.report.legal(), "{:?}", p.report.problem);
        assert_eq!(p.report.stands[3], u.stands[3].footprint, "the others stay");
        // Dragged too far from its neighbours: red (5.3), the ghost where it was dragged.
        let p = preview(&s, 0, DragKind::Stand(2), &[c, c + v(0.0, 4.0)], a, otp_rules()).unwrap();
        assert_eq!(p.report.problem.as_ref().map(|x| x.section), Some("5.3"));
        assert!((p.attempted[2].centre - (c + v(0.0, 4.0))).length() < 1e-4 && p.attempted[1] == u.stands[1].footprint);
        assert!(p.reach.is_some(), "part of the way is allowed");
    }

    #[test]
    fn a_move_too_long_is_red_with_its_rule_and_shows_how_far_it_could_go() {
        let s = table(vec![line()]);
        let a = six().allowance;
        let grab = v(20.0, 9.6);
        let p = preview(&s, 0, DragKind::Advance, &[grab, grab + v(0.0, 4.0)], a, otp_rules()).unwrap();
        assert!(p.report.legal());
        assert_eq!(verdict(&p), "✔ 4\" of 6\" used · 2\" left");
        assert!((p.report.stands[0].centre.y - (s.unit(0).stands[0].footprint.centre.y + 4.0)).abs() < 1e-3);
        let p = preview(&s, 0, DragKind::Advance, &[grab, grab + v(0.0, 8.0)], a, otp_rules()).unwrap();
        assert!(!p.report.legal());
        assert!(verdict(&p).starts_with("✖ not allowed (6.1)"), "{}", verdict(&p));
        assert!((p.attempted[0].centre.y - (s.unit(0).stands[0].footprint.centre.y + 8.0)).abs() < 1e-3, "the red ghost is where it was dragged");
        let reach = p.reach.unwrap();
        assert!((reach.spent - 6.0).abs() < 0.02, "reaches the full 6\": {}", reach.spent);
        // Beyond 45° no part of an oblique is allowed: no reach.
        let p = preview(&s, 0, DragKind::Advance, &[grab, grab + bearing_vector(70.0) * 3.0], a, otp_rules()).unwrap();
        assert_eq!(p.report.problem.as_ref().map(|x| x.section), Some("6.3"));
        assert!(p.reach.is_none());
    }

    #[test]
    fn disordering_terrain_is_marked_where_the_move_meets_it() {
        // OTP 6.6: the unit marches into a wood; the contact is on the wood's edge, typed.
        let u = UnitInfo::sketch("Line", 0, UnitType::Line, Arm::Infantry, Some(Weapon::Musket), 16, Formation::Line, v(20.0, 10.0), 0.0);
        let wood = Terrain::Woods { name: "Wood".into(), density: crate::scenario::model::WoodsDensity::Regular, outline: vec![[10.0, 13.0], [30.0, 13.0], [30.0, 20.0], [10.0, 20.0]], disorder: None };
        let s = crate::table::situation::Situation::new(crate::scenario::model::Table { width: 72.0, depth: 48.0 }, vec![wood], vec![u]);
        let p = preview(&s, 0, DragKind::Advance, &[v(20.0, 9.6), v(20.0, 14.6)], Allowance::new(6.0), otp_rules()).unwrap();
        assert!(p.report.legal());
        let sc = preview_scene(&p);
        assert!(sc.over.iter().any(|x| matches!(x, Prim::Badge { at, .. } if (at.y - 13.0).abs() < 0.05)), "{:?}", sc.over);
        assert!(sc.tags.iter().any(|t| t.text.contains("Wood") && t.text.contains("(6.6)")));
    }

    // OTP 6.1, 6.3: a move built of steps shows each step's ghost with the inches used and left
    // after it, in the rules' words; the next drag starts where the last step left the unit.
    #[test]
    fn a_built_move_shows_each_step_with_inches_used_and_left() {
        let s = table(vec![line()]);
        let a = six().allowance;
        let steps = vec![MoveStep::Wheel { pivot: End::Right, angle: 17.29 }, MoveStep::Forward(2.0)];
        let b = build(&s, 0, &steps, a, otp_rules());
        assert_eq!(b.after.len(), 2);
        let (wheel, total) = (b.after[0].1, b.spent());
        assert!(wheel > 2.0 && (total - wheel - 2.0).abs() < 1e-3, "{wheel} then {total}");
        let sc = built_scene(&b, 0.0, Some(6.0), false);
        let texts: Vec<&str> = sc.tags.iter().map(|t| t.text.as_str()).collect();
        assert!(texts[0].starts_with(&format!("1. wheel 17° on the right flank · {} of 6\" used · {} left", inches(wheel), inches(6.0 - wheel))), "{texts:?}");
        assert!(texts[1].starts_with(&format!("2. forward 2\" · {} of 6\" used · {} left", inches(total), inches(6.0 - total))), "{texts:?}");
        assert!(texts[1].contains("Enter") && texts[1].contains("Backspace"), "{texts:?}");
        // The next step starts from the wheeled ghost, facing as the wheel left it.
        let after = built_situation(&s, 0, &steps, a, otp_rules());
        assert!((after.unit(0).stands[0].footprint.facing - 17.29).abs() < 1e-3);
        assert!(b.contains(after.unit(0).stands[0].footprint.centre) && !b.contains(s.unit(0).stands[0].footprint.centre + v(0.0, -3.0)));
    }

    #[test]
    fn the_envelope_fan_spans_45_degrees_each_side_out_to_the_allowance() {
        let s = table(vec![line()]);
        let info = six();
        let sc = envelope(&s, 0, &info, otp_rules());
        let Some(Prim::Fill { points, .. }) = sc.under.first() else { panic!() };
        let (fl, fr) = (v(16.0, 10.0), v(24.0, 10.0));
        assert!((points[0] - fl).length() < 1e-3 && (points[points.len() - 1] - fr).length() < 1e-3);
        assert!((vector_bearing(points[1] - fl) - 315.0).abs() < 1e-2, "left edge at -45°");
        assert!((vector_bearing(points[points.len() - 2] - fr) - 45.0).abs() < 1e-2, "right edge at +45°");
        let far = points.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!((far - 16.0).abs() < 1e-3, "straight ahead ends at the 6\" allowance: {far}");
        assert!(sc.tags.iter().any(|t| t.text.contains("side step ≤ 3\" (6.3)")), "OTP 6.3: half rate, cited");
        assert!(sc.tags.iter().any(|t| t.text.starts_with("wheel ≤ 43°")), "{:?}", sc.tags);
    }
}
