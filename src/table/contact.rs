//! The geometry of a charge (OTP 9.1–9.3, 9.8, 9.9, 9.12, with 6.5–6.9): where the attacker
//! ends in contact, what its move costs and crosses, where it stops when it closes only part of
//! the way, and who touches whom. No dice: the closure roll and the melee are the rules'.
//!
//! The move itself is planned by [`movement::plan_move`] (one sweep for interpenetration,
//! terrain and obstacles, 6.5–6.7): a line wheels to face the target and then advances
//! (obliquely when it must), a march column follows its head to the point of contact (5.1).
//! [`ChargePath::steps`] are those steps, so the engine can plan them again against the
//! attacker's real allowance.

use bevy::math::Vec2;
use serde::Serialize;

use super::arc::Arc;
use super::aspect::{AttackZone, attack_zone};
use super::footprint::{Footprint, vector_bearing};
use super::geom::{Aabb, EPS, crosses_polyline, point_along, polyline_length};
use super::movement::{self, Allowance, End, MoveProblem, MoveRules, MoveStep, TOUCH};
use super::situation::{Outline, Situation};
use crate::scenario::model::{DisorderType, StreamKind, Terrain};

/// Stands this close (inches, edge to edge) are in contact (9.8 overlaps, 9.9 skirmishers).
pub const CONTACT_REACH: f32 = 0.1;

/// A wall, fence or breastwork this close in front of a face (inches) is one the defender stands
/// behind: the attacker stops against it, and stands on either side of it are in contact (6.9
/// "close to contact units located at the edge of, or behind, cover"; the reach of
/// `rules::otp::fire::cover::BEHIND_REACH`).
pub const ACROSS_OBSTACLE: f32 = 1.0;

/// Which face of the target the attacker's front is placed against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Face {
    Front,
    /// The target's left flank (its left hand, looking the way it faces).
    LeftFlank,
    RightFlank,
    Rear,
}

/// A charge from where the attacker stands to contact with the target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChargePath {
    pub attacker: usize,
    pub target: usize,
    /// 9.1: judged from where the attacker starts; a wheel that starts in front stays a front attack.
    pub zone: AttackZone,
    /// The face of the target contacted: the front for a front attack, the flank end nearer the
    /// attacker for a flank attack, the rear for a rear attack.
    pub face: Face,
    /// The attacker's stands where they start.
    pub start: Vec<Footprint>,
    /// The attacker's stands in contact, facing the target (a column: its head stand against it).
    pub stands: Vec<Footprint>,
    /// The attacker's facing in contact (bearing).
    pub facing: f32,
    /// The move, as [`movement::plan_move`] steps.
    pub steps: Vec<MoveStep>,
    /// Inches the charge move costs (6.1, 6.3, 6.7), as `plan_move` prices the steps.
    pub distance: f32,
    /// Edge-to-edge distance from the attacker to the target at the start (9.12: cavalry in the
    /// open from more than 12").
    pub original_distance: f32,
    /// 9.12: the attacker went up a hill slope on the way: the defender fights uphill.
    pub climbed_slope: bool,
    /// 9.12: the attacker came down a hill slope: it attacks downhill.
    pub descended_slope: bool,
    /// 9.12: the attacker crossed a ford (a river ford or a large stream).
    pub crossed_ford: bool,
    /// Disordering terrain started in or met on the way (6.6; forbidden to charging cavalry,
    /// 6.9, and to a special move, 6.8).
    pub disordering: Vec<(String, DisorderType)>,
    /// Linear obstructions crossed (6.7; forbidden to charging cavalry, 6.9).
    pub obstacles: Vec<String>,
    /// 9.12 "in the open": no disordering terrain and no linear obstruction on the way.
    pub in_the_open: bool,
    /// 6.5: other units the attacker's stands would pass through, in the order met.
    pub interpenetrates: Vec<String>,
    /// Anything else that forbids the move as planned (a town, a river off its fords…).
    pub problem: Option<MoveProblem>,
}

impl ChargePath {
    /// The move can be made as planned: nothing in the way and nothing forbidden (the
    /// allowance is the engine's to check against [`ChargePath::distance`]).
    pub fn clear(&self) -> bool {
        self.interpenetrates.is_empty() && self.problem.is_none()
    }
}

/// The target's face the attacker goes for: a segment of the target's outline (`a` to `b`,
/// left to right as the attacker sees it) and its outward normal.
struct TargetFace {
    face: Face,
    a: Vec2,
    b: Vec2,
    normal: Vec2,
}

/// The target's frame: a column's is its head stand, a line's its middle stand (as 9.1's
/// `aspect::directly_behind`); the extents of all its corners in that frame.
fn target_face(s: &Situation, target: usize, zone: AttackZone, attacker_centre: Vec2) -> TargetFace {
    let t = s.unit(target);
    let frame = if t.in_column() { &t.stands[0] } else { &t.stands[t.stands.len() / 2] }.footprint;
    let (o, fwd, right) = (frame.centre, frame.forward(), frame.right());
    let (mut l, mut r, mut back, mut front) = (f32::INFINITY, f32::NEG_INFINITY, f32::INFINITY, f32::NEG_INFINITY);
    for c in t.stands.iter().flat_map(|st| st.footprint.corners()) {
        let d = c - o;
        (l, r) = (l.min(d.dot(right)), r.max(d.dot(right)));
        (back, front) = (back.min(d.dot(fwd)), front.max(d.dot(fwd)));
    }
    let p = |x: f32, y: f32| o + right * x + fwd * y;
    match zone {
        // Seen from in front, the target's right is the attacker's left.
        AttackZone::Front => TargetFace { face: Face::Front, a: p(r, front), b: p(l, front), normal: fwd },
        AttackZone::Rear => TargetFace { face: Face::Rear, a: p(l, back), b: p(r, back), normal: -fwd },
        AttackZone::Flank if (attacker_centre - o).dot(right) < 0.0 => TargetFace { face: Face::LeftFlank, a: p(l, front), b: p(l, back), normal: -right },
        AttackZone::Flank => TargetFace { face: Face::RightFlank, a: p(r, back), b: p(r, front), normal: right },
    }
}

/// How far out from the face the farthest linear obstruction lies that runs in front of it
/// within [`ACROSS_OBSTACLE`], over the part of the face from `x0` to `x1` inches along it
/// (the obstruction sampled every 1/20"), if one does.
fn obstacle_standoff(s: &Situation, face: &TargetFace, x0: f32, x1: f32) -> Option<f32> {
    let along = (face.b - face.a).normalize_or_zero();
    let mut far: Option<f32> = None;
    for f in s.features() {
        let (Terrain::Obstacle { .. }, Outline::Line(path)) = (&s.terrain()[f.index], &f.outline) else { continue };
        for w in path.windows(2) {
            let n = (w[0].distance(w[1]) / 0.05).ceil().max(1.0) as usize;
            for k in 0..=n {
                let d = w[0].lerp(w[1], k as f32 / n as f32) - face.a;
                let (x, h) = (d.dot(along), d.dot(face.normal));
                if x >= x0 - EPS && x <= x1 + EPS && h > -EPS && h <= ACROSS_OBSTACLE {
                    far = Some(far.map_or(h.max(0.0), |m: f32| m.max(h)));
                }
            }
        }
    }
    far
}

/// Degrees in (-180, 180].
fn wrap(deg: f32) -> f32 {
    let d = deg.rem_euclid(360.0);
    if d > 180.0 { d - 360.0 } else { d }
}

/// The steps that bring the attacker's front centre to `contact` facing `facing`: a march
/// column follows its head (5.1); anything else takes the cheaper of two ways (6.3): turn to
/// the final facing and advance, obliquely when it must (side-stepping only what an oblique
/// cannot reach); or wheel on one end to aim, march straight, and wheel on the same end to face
/// the target. With them, their plan on a bare table ([`movement::plan_bare`]): each way is
/// planned once, for where it arrives and what it costs.
fn steps_to(s: &Situation, rules: &MoveRules, unit: usize, contact: Vec2, normal: Vec2, facing: f32) -> (Vec<MoveStep>, movement::BarePlan) {
    let planned = |steps: Vec<MoveStep>| {
        let report = movement::plan_bare(s, unit, &steps, rules);
        (steps, report)
    };
    let u = s.unit(unit);
    if u.in_column() && u.stands.len() > 1 {
        let head = u.stands[0].footprint.front_centre();
        let straight = (contact - head).normalize_or_zero().dot(-normal) > 0.9998;
        // Come on square to the face for the last inch, so the head stand meets it flat.
        let lead = contact + normal * 1.0_f32.min(head.distance(contact) / 2.0);
        return planned(if straight { vec![MoveStep::Path(vec![contact])] } else { vec![MoveStep::Path(vec![lead, contact])] });
    }
    let column = u.in_column();
    let now = u.stands[0].footprint.facing;
    let mut direct = turn(now, facing);
    direct.extend(advance(&pose(s, rules, unit, &direct), column, contact));
    let (p0, _) = front_of(&u.footprints(), column);
    let Some(arc) = Arc::of_unit(u) else { return planned(direct) };
    if p0.distance(contact) < 1.0 || u.stands.len() < 2 {
        return planned(direct);
    }
    // Wheel on one end to aim, march, wheel on the same end to face the target: a turn by θ1
    // about A, a march m, a turn by θ2 about A + m puts the front centre at
    // A + m + R(θ1 + θ2)(p0 - A), so m is what is left, and θ1 aims the march along it.
    let total = wrap(facing - now);
    let arrives = |plan: &movement::BarePlan| {
        let end = &plan.stands;
        front_of(end, column).0.distance(contact) < 0.02 && wrap(end[0].facing - facing).abs() < 0.1
    };
    let mut best = planned(direct);
    for (pivot, a) in [(End::Left, arc.front_left), (End::Right, arc.front_right)] {
        let m = contact - a - Vec2::from_angle(-total.to_radians()).rotate(p0 - a);
        let mut theta1 = wrap(vector_bearing(m) - now);
        if theta1.abs() > 90.0 || m.length() < EPS {
            continue;
        }
        if theta1.abs() <= 0.05 {
            theta1 = 0.0; // a hair off straight ahead: march straight, the final wheel takes it all
        }
        let theta2 = wrap(total - theta1);
        let mut steps = Vec::new();
        if theta1.abs() > 0.05 {
            steps.push(MoveStep::Wheel { pivot, angle: theta1 });
        }
        steps.push(MoveStep::Forward(m.length()));
        if theta2.abs() > 0.05 {
            steps.push(MoveStep::Wheel { pivot, angle: theta2 });
        }
        let way = planned(steps);
        if arrives(&way.1) && (!arrives(&best.1) || way.1.spent + 0.01 < best.1.spent) {
            best = way;
        }
    }
    best
}

/// 6.3: from facing `from` to facing `to`: about face (free in line) when more than 90°, then
/// a wheel the short way round.
fn turn(from: f32, to: f32) -> Vec<MoveStep> {
    let mut steps = Vec::new();
    let mut delta = wrap(to - from);
    if delta.abs() > 90.0 {
        steps.push(MoveStep::AboutFace);
        delta = wrap(delta - 180.0);
    }
    if delta.abs() > 0.05 {
        steps.push(MoveStep::Wheel { pivot: if delta > 0.0 { End::Right } else { End::Left }, angle: delta });
    }
    steps
}

/// 6.1, 6.3: from `stands` (as they face) straight or obliquely to put the front centre on
/// `contact`, side-stepping only what a 45° oblique cannot reach.
fn advance(stands: &[Footprint], column: bool, contact: Vec2) -> Vec<MoveStep> {
    let Some(first) = stands.first() else { return Vec::new() };
    let (fwd, right) = (first.forward(), first.right());
    let (p, _) = front_of(stands, column);
    let d = contact - p;
    let (f, l) = (d.dot(fwd), d.dot(right));
    if f <= EPS {
        if l.abs() > EPS { vec![MoveStep::SideStep(l)] } else { Vec::new() }
    } else if l.abs() <= 0.01 {
        vec![MoveStep::Forward(f)]
    } else if l.abs() <= f {
        vec![MoveStep::Oblique { angle: l.atan2(f).to_degrees(), distance: d.length() }]
    } else {
        vec![MoveStep::SideStep(l - l.signum() * f), MoveStep::Oblique { angle: 45.0 * l.signum(), distance: f * std::f32::consts::SQRT_2 }]
    }
}

/// The centre of the front of a set of stands laid out as the unit is, and its half-width (a
/// column's front is its head stand; a line's runs between its outer front corners, as 8.1's arc).
fn front_of(stands: &[Footprint], column: bool) -> (Vec2, f32) {
    let head = stands[0];
    if column {
        return (head.front_centre(), head.frontage / 2.0);
    }
    let right = head.right();
    let key = |p: &Vec2| p.dot(right);
    let left = stands.iter().map(|f| f.front_left()).min_by(|a, b| key(a).total_cmp(&key(b))).unwrap_or(head.front_left());
    let rightmost = stands.iter().map(|f| f.front_right()).max_by(|a, b| key(a).total_cmp(&key(b))).unwrap_or(head.front_right());
    ((left + rightmost) / 2.0, left.distance(rightmost) / 2.0)
}

/// Where `steps` put the unit's stands, as `plan_move` moves them, on a bare table: nothing in
/// the way, so the answer is pure geometry.
fn pose(s: &Situation, rules: &MoveRules, unit: usize, steps: &[MoveStep]) -> Vec<Footprint> {
    movement::plan_bare(s, unit, steps, rules).stands
}

/// Edge-to-edge distance between a set of stands and a unit.
fn gap(s: &Situation, stands: &[Footprint], unit: usize) -> f32 {
    let t = s.unit(unit);
    stands.iter().flat_map(|a| t.stands.iter().map(move |b| a.distance(&b.footprint))).fold(f32::INFINITY, f32::min)
}

/// Ground level along the way from each stand's start to its end: (went up, went down).
fn slopes(s: &Situation, start: &[Footprint], end: &[Footprint]) -> (bool, bool) {
    let (mut up, mut down) = (false, false);
    for (a, b) in start.iter().zip(end) {
        let hills = s.hills_in(Aabb::of(&[a.centre, b.centre]));
        if hills.is_empty() {
            continue; // off every hill the ground is level all the way
        }
        let n = (a.centre.distance(b.centre) / 0.25).ceil().max(1.0) as usize;
        let mut level = s.ground_elevation_among(&hills, a.centre);
        for k in 1..=n {
            let here = s.ground_elevation_among(&hills, a.centre.lerp(b.centre, k as f32 / n as f32));
            up |= here > level;
            down |= here < level;
            if up && down {
                return (true, true);
            }
            level = here;
        }
    }
    (up, down)
}

/// How much of a blocked charge path [`charge_path_finding`] works out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blockers {
    /// Every unit in the way, each taken off a copy of the table in turn (the refusal names
    /// them, and what else stops the move once they are gone).
    Every,
    /// Only the first: the charge is refused either way (6.5), so an automatic player weighing
    /// many charges need not find the rest.
    First,
}

/// 9.1, 9.7: the charge of `attacker` into contact with `target`, moving by the rule set's `rules`.
pub fn charge_path(s: &Situation, attacker: usize, target: usize, rules: &MoveRules) -> ChargePath {
    charge_path_finding(s, attacker, target, rules, Blockers::Every, None)
}

/// As [`charge_path`], finding every unit in the way or only the first (`blockers`). With a
/// unit in the way the path always has a `problem` or an entry in `interpenetrates`, so the
/// charge is refused whichever is asked. Given a `reach`, a path longer than it on the bare
/// table is not planned on the real one (which only adds to it): its `distance` is the bare
/// table's, and the rest is left empty, for a caller that will refuse it for its length.
pub fn charge_path_finding(s: &Situation, attacker: usize, target: usize, rules: &MoveRules, blockers: Blockers, reach: Option<f32>) -> ChargePath {
    let zone = attack_zone(s, attacker, target);
    let a = s.unit(attacker);
    let start = a.footprints();
    let centre = start.iter().map(|f| f.centre).sum::<Vec2>() / start.len().max(1) as f32;
    let face = target_face(s, target, zone, centre);
    let facing = vector_bearing(-face.normal);
    // The point of contact: the attacker's front centre carried straight onto the face, slid
    // along it only as far as it must to put as much of its front against the face as fits.
    let (p0, half) = front_of(&start, a.in_column());
    let along = (face.b - face.a).normalize_or_zero();
    let len = face.a.distance(face.b);
    let x = (p0 - face.a).dot(along);
    let (lo, hi) = if 2.0 * half >= len { (len / 2.0, len / 2.0) } else { (half, len - half) };
    // A hair off the face (touching, never overlapping, 6.5), or against the obstacle the
    // target stands behind.
    let mut x = x.clamp(lo, hi);
    // A line with gaps (skirmishers, loose order) must still put a stand against a narrow face
    // (a gun, a column's head): failing that, slide so the nearest stand meets its middle.
    let offsets: Vec<(f32, f32)> = start.iter().map(|f| ((f.centre - p0).dot(a.stands[0].footprint.right()), f.frontage / 2.0)).collect();
    let overlap = |x: f32| offsets.iter().map(|&(o, w)| ((x + o + w).min(len) - (x + o - w).max(0.0)).max(0.0)).fold(0.0, f32::max);
    if overlap(x) < (len / 2.0).min(0.5)
        && let Some(&(o, _)) = offsets.iter().min_by(|p, q| (x + p.0 - len / 2.0).abs().total_cmp(&(x + q.0 - len / 2.0).abs()))
    {
        x = len / 2.0 - o;
    }
    let standoff = obstacle_standoff(s, &face, x - half, x + half).map_or(TOUCH / 2.0, |d| d + TOUCH / 2.0);
    let contact = face.a + along * x + face.normal * standoff;
    let (steps, bare) = steps_to(s, rules, attacker, contact, face.normal, facing);
    let stands = bare.stands.clone();
    // The same steps on the real table: 6.5, terrain and obstacles. A unit in the way is named
    // and taken off a copy of the table, so every unit in the way is found, not just the first.
    // The table itself until a unit in the way must come off a copy of it. Past the `reach`
    // the real table is not asked.
    let beyond = reach.is_some_and(|r| bare.spent > r);
    let mut table = std::borrow::Cow::Borrowed(s);
    let mut keep: Vec<usize> = (0..s.units().len()).collect();
    let mut interpenetrates = Vec::new();
    let report = (!beyond).then(|| loop {
        let me = keep.iter().position(|&i| i == attacker).expect("the attacker stays");
        let report = movement::plan_move(&table, me, &steps, Allowance::new(f32::MAX / 4.0), rules);
        let blocker = report.problem.as_ref().filter(|p| p.section == rules.cite.interpenetrate).and_then(|p| {
            keep.iter().enumerate().filter(|&(_, &i)| i != attacker && p.reason.contains(&s.unit(i).name)).max_by_key(|&(_, &i)| s.unit(i).name.len()).map(|(k, _)| k)
        });
        match blocker {
            Some(k) if interpenetrates.len() < 16 => {
                interpenetrates.push(s.unit(keep[k]).name.clone());
                if blockers == Blockers::First {
                    break report;
                }
                keep.remove(k);
                table = std::borrow::Cow::Owned(Situation::new(s.table(), s.terrain().to_vec(), keep.iter().map(|&i| s.unit(i).clone()).collect()));
            }
            _ => break report,
        }
    });
    let terrain = |name: &str| s.terrain().iter().find(|t| t.name() == name);
    let mut disordering: Vec<(String, DisorderType)> = report.as_ref().map_or_else(Vec::new, |r| r.starts_in.clone());
    disordering.extend(report.iter().flat_map(|r| &r.disorder).map(|c| (c.terrain.clone(), c.disorder)));
    let crossed_ford = disordering.iter().any(|(n, _)| matches!(terrain(n), Some(Terrain::Stream { kind: StreamKind::River | StreamKind::Large, .. })));
    let obstacles: Vec<String> = report
        .iter()
        .flat_map(|r| &r.items)
        .filter(|i| i.section == "6.7")
        .filter_map(|i| i.what.strip_prefix("crossing ").and_then(|w| w.split(": ").next()).map(str::to_string))
        .collect();
    let (climbed_slope, descended_slope) = if beyond { (false, false) } else { slopes(s, &start, &stands) };
    let in_the_open = disordering.is_empty() && obstacles.is_empty();
    ChargePath {
        attacker,
        target,
        zone,
        face: face.face,
        original_distance: gap(s, &start, target),
        start,
        stands,
        facing,
        // Priced on the real table; when the move is blocked there, or not asked, its geometry alone.
        distance: match &report {
            Some(r) if r.problem.is_some() => r.spent.max(bare.spent),
            Some(r) => r.spent,
            None => bare.spent,
        },
        steps,
        climbed_slope,
        descended_slope,
        crossed_ford,
        disordering,
        obstacles,
        in_the_open,
        interpenetrates,
        problem: report.and_then(|r| r.problem),
    }
}

/// The steps of the path cut short: every step that moves the stands scaled by `k` (0–1), the
/// turns kept whole.
fn scaled(s: &Situation, path: &ChargePath, k: f32) -> Vec<MoveStep> {
    path.steps
        .iter()
        .map(|st| match st {
            MoveStep::Forward(d) => MoveStep::Forward(d * k),
            MoveStep::SideStep(d) => MoveStep::SideStep(d * k),
            MoveStep::Oblique { angle, distance } => MoveStep::Oblique { angle: *angle, distance: distance * k },
            MoveStep::Path(points) => {
                let mut track = vec![s.unit(path.attacker).stands[0].footprint.front_centre()];
                track.extend(points.iter().copied());
                let cut = polyline_length(&track) * k;
                let mut kept: Vec<Vec2> = Vec::new();
                let mut run = 0.0;
                for w in track.windows(2) {
                    let l = w[0].distance(w[1]);
                    if run + l >= cut {
                        kept.push(point_along(w, cut - run));
                        break;
                    }
                    run += l;
                    kept.push(w[1]);
                }
                MoveStep::Path(kept)
            }
            other => other.clone(),
        })
        .collect()
}

/// The stands along the path where the gap to the target is `wanted` inches (bisection on how
/// much of the path is taken; the gap shrinks as the attacker goes).
fn stop_at_gap(s: &Situation, rules: &MoveRules, path: &ChargePath, wanted: f32) -> Vec<Footprint> {
    let at = |k: f32| pose(s, rules, path.attacker, &scaled(s, path, k));
    if wanted >= gap(s, &path.start, path.target) {
        return path.start.clone();
    }
    let (mut lo, mut hi) = (0.0_f32, 1.0_f32);
    for _ in 0..24 {
        let mid = (lo + hi) / 2.0;
        if gap(s, &at(mid), path.target) > wanted { lo = mid } else { hi = mid }
    }
    at(lo)
}

/// 9.2: the attacker's stands after closing `fraction` (0–1) of the distance to the target
/// along the charge path ("close 1/2 the distance"): the edge-to-edge gap is cut by `fraction`.
pub fn part_way(s: &Situation, rules: &MoveRules, path: &ChargePath, fraction: f32) -> Vec<Footprint> {
    stop_at_gap(s, rules, path, path.original_distance * (1.0 - fraction.clamp(0.0, 1.0)))
}

/// 9.3: the attacker's stands stopped `inches` short of contact along the charge path ("stop 2"
/// from the defender, or the visibility distance in woods, whichever is less": the caller
/// passes the lesser).
pub fn short_of_contact(s: &Situation, rules: &MoveRules, path: &ChargePath, inches: f32) -> Vec<Footprint> {
    stop_at_gap(s, rules, path, inches.max(0.0))
}

/// Two stands in contact: within [`CONTACT_REACH`], or within [`ACROSS_OBSTACLE`] with a linear
/// obstruction between their centres.
fn stands_touch(s: &Situation, a: &Footprint, b: &Footprint) -> bool {
    let d = a.distance(b);
    d <= CONTACT_REACH
        || (d <= ACROSS_OBSTACLE + CONTACT_REACH
            && s.features().iter().any(|f| matches!((&s.terrain()[f.index], &f.outline), (Terrain::Obstacle { .. }, Outline::Line(p)) if crosses_polyline(a.centre, b.centre, p))))
}

/// Stand indices of `unit` in contact with a stand of `other`.
fn touching(s: &Situation, unit: usize, other: usize) -> impl Iterator<Item = usize> + '_ {
    let theirs = s.unit(other).footprints();
    s.unit(unit).stands.iter().enumerate().filter(move |(_, st)| theirs.iter().any(|f| stands_touch(s, &st.footprint, f))).map(|(i, _)| i)
}

/// 9.8: enemy units whose stands touch or overlap `unit`'s (within [`CONTACT_REACH`], or
/// across a wall, fence or breastwork).
pub fn units_in_contact(s: &Situation, unit: usize) -> Vec<usize> {
    let me = s.unit(unit);
    let corners: Vec<Vec2> = s.unit_stands(unit).iter().flat_map(|r| r.corners).collect();
    let mut near: Vec<usize> = Vec::new();
    s.grid.query(Aabb::of(&corners).grow(ACROSS_OBSTACLE + CONTACT_REACH), |i| {
        let u = s.stands[i].unit;
        if s.unit(u).side != me.side && !near.contains(&u) {
            near.push(u);
        }
    });
    near.sort_unstable();
    near.retain(|&u| touching(s, unit, u).next().is_some());
    near
}

/// 9.9: the indices of `unit`'s stands touching a stand of one of `enemies`.
pub fn stands_in_contact(s: &Situation, unit: usize, enemies: &[usize]) -> Vec<usize> {
    let mut out: Vec<usize> = enemies.iter().flat_map(|&e| touching(s, unit, e).collect::<Vec<_>>()).collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::engine::move_rules::OTP;
    use crate::scenario::model::{Arm, Ford, Formation, UnitType};
    use crate::table::situation::UnitInfo;
    use crate::table::testing::{rect, table, v, with_terrain};

    /// 16 muskets in line facing north: front from (16, 20) to (24, 20), rear at y = 19.25.
    fn target() -> UnitInfo {
        UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 20.0), 0.0)
    }

    fn near(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn front_charge_meets_front_to_front() {
        // OTP 9.7: the attacker is moved into contact with the target's front, facing it. Straight
        // ahead 10" (front y = 30 to y = 20): the move costs the 10" (less the hair it stops off).
        let s = table(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)]);
        let p = charge_path(&s, 1, 0, &OTP);
        assert_eq!((p.zone, p.face), (AttackZone::Front, Face::Front));
        assert!(near(p.original_distance, 10.0, 1e-3) && near(p.distance, 10.0, 0.01), "{p:?}");
        assert!(p.stands.iter().all(|f| near(f.facing, 180.0, 0.01) && near(f.front_centre().y, 20.0, 0.01)), "{:?}", p.stands);
        assert!(p.clear() && p.in_the_open && p.obstacles.is_empty());
        let moved = s.with_stands(1, &p.stands, Formation::Line);
        assert_eq!(units_in_contact(&moved, 1), vec![0]);
        assert!(units_in_contact(&s, 1).is_empty(), "10\" apart is not contact");
    }

    // OTP 9.7, 6.9: weighing a charge against a reach, a path longer than it on the bare table is
    // not planned on the real one (the charge is refused for its length either way); within the
    // reach the path is the whole one.
    #[test]
    fn a_path_beyond_the_reach_stops_at_the_bare_tables_length() {
        let s = table(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)]);
        let whole = charge_path(&s, 1, 0, &OTP);
        let within = charge_path_finding(&s, 1, 0, &OTP, Blockers::Every, Some(12.0));
        assert_eq!(format!("{within:?}"), format!("{whole:?}"));
        let beyond = charge_path_finding(&s, 1, 0, &OTP, Blockers::Every, Some(6.0));
        assert!(near(beyond.distance, whole.distance, 1e-4) && beyond.distance > 6.0, "{beyond:?}");
        assert_eq!((beyond.zone, beyond.face, beyond.steps.clone()), (whole.zone, whole.face, whole.steps.clone()));
    }

    #[test]
    fn flank_and_rear_by_starting_position() {
        // OTP 9.1: a flank attack starts behind the line drawn out along the target's front (here
        // east of the target, its stands' centres at y 17 and 19 < 20); it meets the flank end.
        let flank = UnitInfo::foot("A", 0, 8, Formation::Line, v(32.0, 18.0), 270.0);
        let s = table(vec![target(), flank]);
        let p = charge_path(&s, 1, 0, &OTP);
        assert_eq!((p.zone, p.face), (AttackZone::Flank, Face::RightFlank));
        // Facing west, its front against the right end stand's side edge (x = 24).
        assert!(p.stands.iter().all(|f| near(f.facing, 270.0, 0.01) && near(f.front_centre().x, 24.0, 0.01)), "{:?}", p.stands);
        // OTP 9.1: directly behind: it meets the rear edge (y = 19.25), facing the target's way.
        let rear = UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 12.0), 0.0);
        let p = charge_path(&table(vec![target(), rear]), 1, 0, &OTP);
        assert_eq!((p.zone, p.face), (AttackZone::Rear, Face::Rear));
        assert!(p.stands.iter().all(|f| near(f.facing, 0.0, 0.01) && near(f.front_centre().y, 19.25, 0.01)), "{:?}", p.stands);
    }

    #[test]
    fn a_wheel_that_starts_in_front_is_a_front_attack() {
        // OTP 9.1: "wheeling into contact with the flank doesn't count if the wheel starts in
        // front of this line". Off to the east but in front of the line (centres at y 21, 23),
        // facing west: the charge wheels to face the front, and it is a front attack.
        let a = UnitInfo::foot("A", 0, 8, Formation::Line, v(30.0, 22.0), 270.0);
        let p = charge_path(&table(vec![target(), a]), 1, 0, &OTP);
        assert_eq!((p.zone, p.face), (AttackZone::Front, Face::Front));
        assert!(p.steps.iter().any(|st| matches!(st, MoveStep::Wheel { .. })), "{:?}", p.steps);
        assert!(p.stands.iter().all(|f| near(f.facing, 180.0, 0.01)), "{:?} {:?}", p.steps, p.stands);
    }

    #[test]
    fn far_off_to_the_side_it_wheels_rather_than_side_steps() {
        // OTP 6.3: 20" off to the side and 10" ahead. Side-stepping 10" at half rate (20") and
        // obliquing 14.14" costs 34.14"; wheeling towards the target, marching and wheeling back
        // to face it costs less, and ends in the same place.
        let a = UnitInfo::foot("A", 0, 8, Formation::Line, v(40.0, 30.0), 180.0);
        let p = charge_path(&table(vec![target(), a]), 1, 0, &OTP);
        assert!(!p.steps.iter().any(|st| matches!(st, MoveStep::SideStep(_))), "{:?}", p.steps);
        assert!(p.distance < 34.0, "{}", p.distance);
        assert!(p.stands.iter().all(|f| near(f.facing, 180.0, 0.1) && near(f.front_centre().y, 20.0, 0.02)), "{:?}", p.stands);
        assert_eq!(p.zone, AttackZone::Front);
    }

    #[test]
    fn a_column_contacts_with_its_head() {
        // OTP 5.1, 9.9: a march column follows its head to the target; the head stand's front
        // meets the target's front, the other stands behind it.
        let c = UnitInfo::foot("C", 0, 12, Formation::Column, v(21.0, 30.0), 180.0);
        let s = table(vec![target(), c]);
        let p = charge_path(&s, 1, 0, &OTP);
        assert!(matches!(p.steps[..], [MoveStep::Path(_)]), "{:?}", p.steps);
        let head = p.stands[0];
        assert!(near(head.front_centre().y, 20.0, 0.01) && near(head.front_centre().x, 21.0, 0.01), "{head:?}");
        assert!(p.stands[1..].iter().all(|f| f.centre.y > head.centre.y + 0.5));
        let moved = s.with_stands(1, &p.stands, Formation::Column);
        assert_eq!(stands_in_contact(&moved, 1, &[0]), vec![0], "only the head touches");
    }

    #[test]
    fn part_way_and_short_of_contact() {
        // OTP 9.2: close 1/2 the distance (10" → 5" apart); 9.3: stop 2" off.
        let s = table(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)]);
        let p = charge_path(&s, 1, 0, &OTP);
        let gap = |stands: &[Footprint]| super::gap(&s, stands, 0);
        assert!(near(gap(&part_way(&s, &OTP, &p, 0.5)), 5.0, 0.01), "{}", gap(&part_way(&s, &OTP, &p, 0.5)));
        assert!(near(gap(&short_of_contact(&s, &OTP, &p, 2.0)), 2.0, 0.01));
        assert!(near(gap(&part_way(&s, &OTP, &p, 0.0)), 10.0, 0.01));
        // The same for a column on its path.
        let c = UnitInfo::foot("C", 0, 12, Formation::Column, v(26.0, 30.0), 200.0);
        let s = table(vec![target(), c]);
        let p = charge_path(&s, 1, 0, &OTP);
        assert!(near(super::gap(&s, &part_way(&s, &OTP, &p, 0.5), 0), p.original_distance / 2.0, 0.02));
    }

    #[test]
    fn every_unit_in_the_way_is_named() {
        // OTP 6.5: units may not interpenetrate: a friend and another enemy in the lane, in the
        // order the charge meets them.
        let units = vec![
            target(),
            UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 40.0), 180.0),
            UnitInfo::foot("Friend", 0, 8, Formation::Line, v(20.0, 34.0), 180.0),
            UnitInfo::foot("Other", 1, 8, Formation::Line, v(20.0, 27.0), 0.0),
        ];
        let p = charge_path(&table(units), 1, 0, &OTP);
        assert_eq!(p.interpenetrates, vec!["Friend".to_string(), "Other".to_string()]);
        assert!(!p.clear());
    }

    #[test]
    fn slopes_fords_and_the_open() {
        // OTP 9.12: the defender is uphill when the attacker climbed a slope; the attacker
        // downhill when it came down one; a ford counts for the defender; 6.6 disordering terrain.
        let hill = Terrain::Hill { name: "Hill".into(), elevation: 1, outline: rect(0.0, 15.0, 72.0, 25.0), slope: None };
        let up = charge_path(&with_terrain(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)], vec![hill.clone()]), 1, 0, &OTP);
        assert!(up.climbed_slope && !up.descended_slope && up.in_the_open, "a slight slope does not disorder");
        let low = UnitInfo::foot("Low", 1, 16, Formation::Line, v(20.0, 30.0), 180.0);
        let down = charge_path(&with_terrain(vec![low, UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 20.0), 0.0)], vec![hill]), 1, 0, &OTP);
        assert!(down.descended_slope && !down.climbed_slope);
        let creek = Terrain::Stream { name: "Creek".into(), kind: StreamKind::Large, path: vec![[0.0, 25.0], [72.0, 25.0]], width: 1.0, fords: vec![Ford { at: [20.0, 25.0], width: 10.0 }] };
        let ford = charge_path(&with_terrain(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)], vec![creek]), 1, 0, &OTP);
        assert!(ford.crossed_ford && !ford.in_the_open, "{ford:?}");
        assert_eq!(ford.disordering, vec![("Creek".to_string(), DisorderType::B)]);
    }

    #[test]
    fn behind_a_wall_contact_is_across_it() {
        // OTP 6.9, 9.12: a defender behind a wall is contacted across it: the attacker stops
        // against the wall (0.5" in front), crosses nothing, and the two are in contact.
        let wall = Terrain::Obstacle { name: "Wall".into(), kind: crate::scenario::model::ObstacleKind::StoneWall, path: vec![[10.0, 20.5], [30.0, 20.5]], impassable_to_artillery: false };
        let s = with_terrain(vec![target(), UnitInfo::foot("A", 0, 16, Formation::Line, v(20.0, 30.0), 180.0)], vec![wall]);
        let p = charge_path(&s, 1, 0, &OTP);
        assert!(p.obstacles.is_empty() && near(p.stands[0].front_centre().y, 20.5, 0.02), "{p:?}");
        let moved = s.with_stands(1, &p.stands, Formation::Line);
        assert_eq!(units_in_contact(&moved, 1), vec![0]);
        assert_eq!(units_in_contact(&moved, 0), vec![1]);
    }

    #[test]
    fn a_skirmish_line_puts_a_stand_against_a_narrow_target() {
        // OTP 9.9: skirmishers fight with the stands in contact: charging a 1" gun stand, the
        // line slides so that a stand, not a gap, meets it.
        let gun = UnitInfo::battery("Gun", 1, crate::scenario::model::GunSize::Light, 2, Formation::Unlimbered, v(20.0, 20.0), 0.0);
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, None, 8, Formation::Skirmish, v(20.0, 30.0), 180.0);
        let s = table(vec![gun, lights]);
        let p = charge_path(&s, 1, 0, &OTP);
        let moved = s.with_stands(1, &p.stands, Formation::Skirmish);
        assert_eq!(stands_in_contact(&moved, 1, &[0]).len(), 1, "{:?}", p.stands);
    }

    #[test]
    fn skirmishers_count_only_stands_in_contact() {
        // OTP 9.9: a skirmish line of four 2-figure stands 1.5" apart; an enemy stand touching
        // only its left-hand stand. Friends touching are not in contact (9.8 is about enemies).
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, None, 8, Formation::Skirmish, v(20.0, 20.0), 0.0);
        let left = lights.stands[0].footprint;
        let enemy = UnitInfo::foot("E", 1, 4, Formation::Line, left.front_centre() + v(0.0, 0.05), 180.0);
        let friend = UnitInfo::foot("F", 0, 4, Formation::Line, lights.stands[3].footprint.rear_right() + v(1.0, 0.0), 0.0);
        let s = table(vec![lights, enemy, friend]);
        assert_eq!(stands_in_contact(&s, 0, &[1]), vec![0]);
        assert_eq!(units_in_contact(&s, 0), vec![1]);
    }
}
