//! Movement: whether a requested move is legal, what each part of it costs, and where it
//! first meets disordering terrain. No dice: a disorder roll and the movement chart belong to
//! the rules engine, which passes the allowance in, and so do the rules: every cost,
//! permission and citation comes from the rule set's [`MoveRules`]. The table supplies the
//! geometry: sweeps, overlaps, wheels, obliques, bends, a column following its head.
//!
//! A move is a list of steps taken in order. Every step that moves stands is swept: the stands
//! are sampled at least every 1/4" of travel of the fastest-moving corner, and the convex hull
//! of each stand's consecutive positions must not overlap another unit's stand, so a stand
//! cannot slip through a corner between two samples.

use bevy::math::Vec2;
use serde::{Deserialize, Serialize};

use super::arc::Arc;
use super::footprint::{Footprint, vector_bearing};
use super::geom::{Aabb, EPS, convex_hull, convex_near_polyline, convex_overlap_depth, convex_touches_polygon, crosses_polyline, point_along, point_polyline_distance, point_segment_distance, polyline_length, turn_by};
use super::situation::{Feature, Outline, Situation, UnitInfo};
use crate::picture::inside;
use crate::scenario::model::{DisorderType, Formation, Terrain};

/// A rule set's refusal of a step: the rule and the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub section: &'static str,
    pub reason: String,
}

impl Refused {
    pub fn new(section: &'static str, reason: impl Into<String>) -> Self {
        Refused { section, reason: reason.into() }
    }
}

/// The rules of the rule set that the table checks for it, by their citations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveCites {
    /// The allowance, and a forward move (OTP 6.1).
    pub allowance: &'static str,
    /// Changes of formation: before movement, not to the one it is in (OTP 6.2).
    pub formation: &'static str,
    /// Obliques, side steps, wheels and about faces (OTP 6.3).
    pub manoeuvre: &'static str,
    /// Bending a line to conform to cover, and straightening it (OTP 6.4).
    pub bend: &'static str,
    /// Units may not interpenetrate (OTP 6.5).
    pub interpenetrate: &'static str,
    /// Doubling up a stand to open a gap (OTP 6.5).
    pub double_up: &'static str,
    /// A river crossed only at its fords (OTP 6.6).
    pub ford: &'static str,
    /// Linear obstacles (OTP 6.7).
    pub obstacle: &'static str,
    /// A march column following its head, and the road (OTP 5.1).
    pub road: &'static str,
    /// Skirmishers moving stand by stand and keeping one line (OTP 5.3).
    pub skirmish: &'static str,
    /// A skirmish line's stand-by-stand move, conforming at no extra cost (OTP 6.4).
    pub stand_by_stand: &'static str,
    /// The basing a new formation is laid out by (OTP 1.1).
    pub basing: &'static str,
    /// A roll for disordering terrain entered or started in (OTP 6.6).
    pub disorder: &'static str,
}

/// What a terrain feature does to a unit moving through it, by the rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TerrainEffect {
    None,
    Disorder(DisorderType),
    /// Crossing its outline (a hill slope) disorders; being on it does not.
    Slope(DisorderType),
    /// Not to be entered: the rule and why.
    Forbidden(&'static str, &'static str),
    /// A river: crossed only within a ford's width, which disorders.
    Ford(DisorderType),
}

/// Parts of a move priced as a share of the full allowance, by the rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Share {
    /// About face in place (a column countermarches).
    AboutFace,
    /// Bend a wing of the line, or straighten it.
    Bend,
    /// Double up a stand, or restore it.
    DoubleUp,
}

/// Steps a rule set may forbid a unit, before any geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Move at all after changing formation this move.
    MoveAfterFormationChange,
    /// Wheel on an end.
    Wheel,
    /// Follow a path (its head leading).
    Path,
    /// Move its stands one by one.
    StandByStand,
    /// Bend a wing of the line.
    Bend,
    /// Earn the road allowance by staying on the road.
    Road,
}

/// A change of formation the rule set allows: its price as a share of the full allowance, the
/// rule, and the share in words ("1/2").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FormationPrice {
    pub share: f32,
    pub section: &'static str,
    pub words: &'static str,
}

/// A rule set's movement rules, which the table's sweep applies. Numbers are plain fields; who
/// may do what and what terrain does to whom are functions of the unit, so a rule set fills one
/// struct of data (OTP's is `rules::otp::engine::move_rules::OTP`).
#[derive(Clone, Copy, Debug)]
pub struct MoveRules {
    pub cite: MoveCites,
    /// The farthest an oblique may turn off the facing (degrees).
    pub oblique_max: f32,
    /// Inches paid for each inch of side step.
    pub side_step_rate: f32,
    /// The farthest a bent wing may swing (degrees).
    pub bend_max: f32,
    /// A skirmish line's stands, edge to edge (inches): the least and the most.
    pub skirmish_gap: (f32, f32),
    /// Share of the allowance that must remain to double up.
    pub double_up_needs: f32,
    /// Why a move over the allowance earned no road allowance.
    pub road_note: &'static str,
    /// Whether the unit may take this kind of step.
    pub may: fn(&UnitInfo, Ask) -> Result<(), Refused>,
    /// What a part of a move costs the unit, given its full allowance: inches, and the item's words.
    pub share: fn(&UnitInfo, Share, f32) -> (f32, &'static str),
    /// Whether the unit may form `to`, and what it costs.
    pub form: fn(&UnitInfo, Formation) -> Result<FormationPrice, Refused>,
    /// What a terrain feature does to the unit.
    pub terrain: fn(&Terrain, &UnitInfo) -> TerrainEffect,
    /// Whether a terrain feature is a linear obstacle, paid for by the rank.
    pub obstacle: fn(&Terrain) -> bool,
    /// Inches a rank of the unit pays to cross a linear obstacle, or why it cannot.
    pub crossing: fn(&Terrain, &UnitInfo) -> Result<f32, String>,
}

/// Stands may touch; they overlap when they share more than this depth (inches).
pub const TOUCH: f32 = 0.01;
/// The longest any corner travels between two samples of a sweep (inches).
pub const SWEEP_STEP: f32 = 0.25;

/// Inches of movement for the unit's formation at the start of the move (6.1), from the
/// MOVEMENT chart, which the rules engine owns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Allowance {
    pub full: f32,
    /// The full allowance with the road bonus, for a march column that stays on a road (5.1).
    pub road: Option<f32>,
}

impl Allowance {
    pub fn new(full: f32) -> Self {
        Allowance { full, road: None }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum End {
    Left,
    Right,
}

/// One part of a move. Angles are degrees; positive turns clockwise (to the right).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MoveStep {
    /// Straight ahead (6.1).
    Forward(f32),
    /// Up to 45° off the facing, keeping the facing (6.3); angle + to the right.
    Oblique { angle: f32, distance: f32 },
    /// Sideways keeping the facing at half rate: costs twice the distance (6.3); + to the right.
    SideStep(f32),
    /// One end stays put and the other swings (6.3); the moving end's front corner pays its arc.
    Wheel { pivot: End, angle: f32 },
    /// Free in line, 1/4 move in column (6.3).
    AboutFace,
    /// A march column's head through these points, the stands following in its track (5.1).
    Path(Vec<Vec2>),
    /// Before moving, for half the move (6.2); loose order for a quarter (5.4).
    ChangeFormation(Formation),
    /// 6.4: swing the last `stands` stands at one end forward (+) or back (-) to conform to
    /// cover or refuse a flank, for 1/4 move (free in skirmish line).
    Bend { end: End, stands: usize, angle: f32 },
    /// 6.4: back to a straight line on the middle stand, 1/4 move.
    Straighten,
    /// 6.5: one stand steps behind a neighbour to open a gap, 1/4 move.
    DoubleUp { stand: usize, behind: usize },
    /// 6.5: the doubled stand back in its place, 1/4 move.
    Undouble,
    /// 5.3, 6.4: a skirmish line's stands each moved on their own, straight to a new place;
    /// the move costs the longest single stand's path. (Last: replays save steps by variant.)
    Stands(Vec<StandMove>),
}

/// One stand of a skirmish line moved on its own (5.3): its index in the unit and where its
/// centre ends, facing `facing` (degrees).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StandMove {
    pub stand: usize,
    pub to: Vec2,
    pub facing: f32,
}

/// A skirmish line's stands keep the rule set's gap (OTP 5.3: 1" to 3"), edge to edge; this
/// much slack (inches) absorbs rounding in a hand-placed stand.
pub const SKIRMISH_SLACK: f32 = 0.05;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveItem {
    pub step: usize,
    pub section: &'static str,
    pub what: String,
    pub inches: f32,
}

/// Why a move is not allowed: the step, the rule and the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveProblem {
    pub step: usize,
    pub section: &'static str,
    pub reason: String,
}

/// 6.6: where the move first reaches a piece of disordering terrain. The unit stops there and
/// the rules engine rolls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TerrainContact {
    pub step: usize,
    pub terrain: String,
    pub disorder: DisorderType,
    /// A point of the stand in the terrain where it first touches.
    pub at: Vec2,
    /// Inches of the move spent when it touches.
    pub after: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReport {
    pub items: Vec<MoveItem>,
    pub spent: f32,
    /// The allowance that applies: the road allowance when the bonus was earned (5.1).
    pub allowance: f32,
    pub road_bonus: bool,
    /// The first thing wrong; the report stops at that step.
    pub problem: Option<MoveProblem>,
    /// Where the stands end (before the step that went wrong, if one did).
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    /// Disordering terrain the unit is in or across at the start: it dices before moving (6.6).
    pub starts_in: Vec<(String, DisorderType)>,
    /// New disordering terrain reached, in order (6.6: a roll for each).
    pub disorder: Vec<TerrainContact>,
    /// A stand in "double up" at the end (6.5: the unit must restore it before ending).
    pub doubled_up: Option<usize>,
    pub off_table: bool,
    /// Attached guns carried along (7.5): where they end and how far they went. The engine
    /// holds them to their own formation's allowance.
    pub carried: Vec<Carried>,
}

/// An attached artillery stand moved with its infantry (7.5).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Carried {
    pub unit: String,
    pub stands: Vec<Footprint>,
    /// The farthest any of its stands' centres travelled, inches.
    pub travelled: f32,
}

impl MoveReport {
    pub fn legal(&self) -> bool {
        self.problem.is_none()
    }
    pub fn remaining(&self) -> f32 {
        (self.allowance - self.spent).max(0.0)
    }
}

/// How the stands move during one step, `t` from 0 to 1.
enum Motion {
    Shift(Vec2),
    Turn { pivot: Vec2, degrees: f32 },
    /// Each listed stand turns about its own pivot (a bend: only the wing moves).
    TurnSome { stands: Vec<usize>, pivot: Vec2, degrees: f32 },
    Follow { trail: Vec<Vec2>, head: f32, length: f32, behind: Vec<f32> },
    /// One stand goes straight to a new place, turning as it goes (a skirmisher, 5.3).
    Stand { stand: usize, to: Footprint },
}

impl Motion {
    /// A shift or a turn of the whole unit: attached guns go along (7.5).
    fn rigid(&self) -> bool {
        matches!(self, Motion::Shift(_) | Motion::Turn { .. })
    }

    fn pose(&self, base: &[Footprint], t: f32) -> Vec<Footprint> {
        let mut out = Vec::with_capacity(base.len());
        self.pose_into(base, t, &mut out);
        out
    }

    /// [`Motion::pose`] written into `out` (a sweep reuses one for all its samples).
    fn pose_into(&self, base: &[Footprint], t: f32, out: &mut Vec<Footprint>) {
        // Every stand turned turns by the same angle: its sine and cosine once.
        let turn = |f: &Footprint, pivot: Vec2, degrees: f32, sin_cos: (f32, f32)| Footprint { centre: turn_by(f.centre, pivot, sin_cos), facing: (f.facing + degrees * t).rem_euclid(360.0), ..*f };
        let sin_cos = |degrees: f32| (degrees * t).to_radians().sin_cos();
        out.clear();
        match self {
            Motion::Shift(d) => out.extend(base.iter().map(|f| Footprint { centre: f.centre + *d * t, ..*f })),
            Motion::Turn { pivot, degrees } => {
                let sc = sin_cos(*degrees);
                out.extend(base.iter().map(|f| turn(f, *pivot, *degrees, sc)))
            }
            Motion::TurnSome { stands, pivot, degrees } => {
                let sc = sin_cos(*degrees);
                out.extend(base.iter().enumerate().map(|(i, f)| if stands.contains(&i) { turn(f, *pivot, *degrees, sc) } else { *f }))
            }
            Motion::Follow { trail, head, length, behind } => out.extend(base.iter().zip(behind).map(|(f, &back)| {
                // Each stand's front and rear ride the head's track, `back` inches behind it.
                let s = head + length * t - back;
                let (front, rear) = (point_along(trail, s), point_along(trail, s - f.depth));
                let facing = if front.distance(rear) > EPS { vector_bearing(front - rear) } else { f.facing };
                Footprint { centre: (front + rear) / 2.0, facing, ..*f }
            })),
            Motion::Stand { stand, to } => {
                out.extend_from_slice(base);
                let f = &base[*stand];
                let turn = (to.facing - f.facing + 180.0).rem_euclid(360.0) - 180.0;
                out[*stand] = Footprint { centre: f.centre.lerp(to.centre, t), facing: (f.facing + turn * t).rem_euclid(360.0), ..*f };
            }
        }
    }

    /// The farthest any corner travels, to space the samples.
    fn travel(&self, base: &[Footprint]) -> f32 {
        let reach = |pivot: Vec2, f: &Footprint| f.corners().iter().map(|c| c.distance(pivot)).fold(0.0, f32::max);
        match self {
            Motion::Shift(d) => d.length(),
            Motion::Turn { pivot, degrees } => degrees.to_radians().abs() * base.iter().map(|f| reach(*pivot, f)).fold(0.0, f32::max),
            Motion::TurnSome { stands, pivot, degrees } => degrees.to_radians().abs() * stands.iter().map(|&i| reach(*pivot, &base[i])).fold(0.0, f32::max),
            // A stand on a bend turns as it goes: allow for its corners swinging wider.
            Motion::Follow { length, .. } => length * 1.5,
            Motion::Stand { stand, to } => {
                let f = &base[*stand];
                let turn = ((to.facing - f.facing + 180.0).rem_euclid(360.0) - 180.0).to_radians().abs();
                f.centre.distance(to.centre) + turn * f.frontage.hypot(f.depth) / 2.0
            }
        }
    }
}

struct Plan<'a> {
    s: &'a Situation,
    rules: &'a MoveRules,
    unit: usize,
    info: UnitInfo,
    allowance: Allowance,
    spent: f32,
    items: Vec<MoveItem>,
    moved: bool,
    changed_formation: bool,
    doubled: Option<(usize, Footprint)>,
    on_road: bool,
    /// Features already met: those touched at the start, then each new contact.
    met: Vec<usize>,
    starts_in: Vec<(String, DisorderType)>,
    disorder: Vec<TerrainContact>,
    off_table: bool,
    /// Units attached to this one (7.5), with their stands as they are now and where they began.
    carried: Vec<(usize, Vec<Footprint>, Vec<Footprint>)>,
    /// Planned as if nothing else were on the table ([`plan_bare`]): no unit or terrain to meet,
    /// and no words for the items, which nobody reads.
    bare: bool,
}

fn problem(step: usize, section: &'static str, reason: impl Into<String>) -> MoveProblem {
    MoveProblem { step, section, reason: reason.into() }
}

/// Stands of a line in order from left to right (by where they stand, not their index).
fn left_to_right(unit: &UnitInfo) -> Vec<usize> {
    let Some(mid) = unit.stands.get(unit.stands.len() / 2) else { return Vec::new() };
    let right = mid.footprint.right();
    let mut order: Vec<usize> = (0..unit.stands.len()).collect();
    order.sort_by(|&a, &b| unit.stands[a].footprint.centre.dot(right).total_cmp(&unit.stands[b].footprint.centre.dot(right)));
    order
}

fn touches(feature: &Feature, corners: &[Vec2]) -> bool {
    // Most features are nowhere near: their boxes settle it before any polygon test.
    if !feature.bbox.overlaps(&Aabb::of(corners).grow(0.05)) {
        return false;
    }
    match &feature.outline {
        Outline::Area(poly) => convex_touches_polygon(corners, poly),
        Outline::Ribbon { path, half_width } => convex_near_polyline(corners, path, *half_width),
        Outline::Line(path) => convex_near_polyline(corners, path, 0.0),
    }
}

/// A point of the stand inside the feature, to say where the contact is.
fn contact_point(outline: &Outline, f: &Footprint) -> Vec2 {
    let corners = f.corners();
    match outline {
        Outline::Area(poly) => corners.iter().copied().find(|&c| inside(poly, c)).or_else(|| poly.iter().copied().find(|&p| f.contains(p))).unwrap_or(f.front_centre()),
        Outline::Ribbon { path, .. } | Outline::Line(path) => {
            corners.iter().copied().min_by(|a, b| point_polyline_distance(*a, path).total_cmp(&point_polyline_distance(*b, path))).unwrap_or(f.centre)
        }
    }
}

impl<'a> Plan<'a> {
    fn new(s: &'a Situation, rules: &'a MoveRules, unit: usize, allowance: Allowance) -> Self {
        let mut plan = Plan::blank(s, rules, unit, s.unit(unit).clone(), allowance, false);
        plan.carried = (0..s.units().len()).filter(|&i| s.unit(i).attached_to.as_deref() == Some(s.unit(unit).name.as_str())).map(|i| (i, s.unit(i).footprints(), s.unit(i).footprints())).collect();
        let start = plan.info.footprints();
        for (i, f) in s.features.iter().enumerate() {
            if let Some(kind) = plan.disorder_at(i, &start) {
                plan.met.push(i);
                plan.starts_in.push((s.terrain()[f.index].name().to_string(), kind));
            }
        }
        plan
    }

    /// Nothing spent, met or carried yet.
    fn blank(s: &'a Situation, rules: &'a MoveRules, unit: usize, info: UnitInfo, allowance: Allowance, bare: bool) -> Self {
        Plan {
            s,
            rules,
            unit,
            info,
            allowance,
            spent: 0.0,
            items: Vec::new(),
            moved: false,
            changed_formation: false,
            doubled: None,
            on_road: true,
            met: Vec::new(),
            starts_in: Vec::new(),
            disorder: Vec::new(),
            off_table: false,
            carried: Vec::new(),
            bare,
        }
    }

    fn stands(&self) -> Vec<Footprint> {
        self.info.footprints()
    }

    fn effect(&self, feature: usize) -> TerrainEffect {
        (self.rules.terrain)(&self.s.terrain()[self.s.features[feature].index], &self.info)
    }

    /// The disordering type of a feature the stands are in (or, for a slope, across).
    fn disorder_at(&self, feature: usize, stands: &[Footprint]) -> Option<DisorderType> {
        self.disorder_among(feature, self.effect(feature), stands, |i| stands[i].corners())
    }

    /// [`Plan::disorder_at`] given the feature's `effect` and each stand's corners by its index.
    fn disorder_among(&self, feature: usize, effect: TerrainEffect, stands: &[Footprint], corners: impl Fn(usize) -> [Vec2; 4]) -> Option<DisorderType> {
        let f = &self.s.features[feature];
        let (kind, slope) = match effect {
            TerrainEffect::Disorder(d) | TerrainEffect::Ford(d) => (d, false),
            TerrainEffect::Slope(d) => (d, true),
            _ => return None,
        };
        stands
            .iter()
            .enumerate()
            .any(|(i, st)| {
                let c = corners(i);
                match (&f.outline, slope) {
                    // Across a contour: some of the stand inside it and some outside.
                    (Outline::Area(poly), true) => {
                        let n = c.iter().filter(|&&p| inside(poly, p)).count();
                        (n > 0 && n < 4) || poly.iter().any(|&p| st.contains(p))
                    }
                    _ => touches(f, &c),
                }
            })
            .then_some(kind)
    }

    /// A river may be crossed only at a ford: the stand must be within the ford's width.
    fn off_ford(&self, feature: usize, st: &Footprint) -> bool {
        let Terrain::Stream { fords, .. } = &self.s.terrain()[self.s.features[feature].index] else { return false };
        !fords.iter().any(|ford| st.corners().iter().all(|c| c.distance(Vec2::from(ford.at)) <= ford.width / 2.0 + st.frontage.max(st.depth) / 2.0))
    }

    /// Other units' stands that could be met by a motion reaching `reach` beyond the unit.
    fn others_near(&self, stands: &[Footprint], reach: f32) -> Vec<usize> {
        if self.bare {
            return Vec::new();
        }
        let corners: Vec<Vec2> = stands.iter().flat_map(|f| f.corners()).collect();
        let mut out = Vec::new();
        // An attached gun is part of its unit for interpenetration (7.5): it is never in the way.
        self.s.grid.query(Aabb::of(&corners).grow(reach), |i| {
            let unit = self.s.stands[i].unit;
            if unit != self.unit && !self.carried.iter().any(|(c, _, _)| *c == unit) {
                out.push(i);
            }
        });
        out
    }

    /// 6.5: the stands at rest here overlap no other unit.
    fn check_place(&self, step: usize, stands: &[Footprint]) -> Result<(), MoveProblem> {
        for i in self.others_near(stands, 0.0) {
            let other = &self.s.stands[i];
            if stands.iter().any(|f| convex_overlap_depth(&f.corners(), &other.corners) > TOUCH) {
                return Err(problem(step, self.rules.cite.interpenetrate, format!("the stands would overlap {} (units may not interpenetrate)", self.s.unit(other.unit).name)));
            }
        }
        Ok(())
    }

    /// Sweeps the stands through a motion costing `cost` inches: interpenetration (6.5),
    /// towns and rivers, disordering terrain (6.6), road (5.1) and linear obstacles (6.7).
    fn sweep(&mut self, step: usize, motion: Motion, cost: f32) -> Result<(), MoveProblem> {
        if self.bare {
            // Nothing to meet: every sample would pass, and the last is the motion's end.
            let end = motion.pose(&self.stands(), 1.0);
            self.info.stands.iter_mut().zip(end).for_each(|(s, f)| s.footprint = f);
            return self.spend(step, "", String::new(), cost);
        }
        let own = self.info.stands.len();
        let mut base = self.stands();
        if motion.rigid() {
            base.extend(self.carried.iter().flat_map(|(_, now, _)| now.iter().copied()));
        }
        let travel = motion.travel(&base);
        let n = (travel / SWEEP_STEP).ceil().max(1.0) as usize;
        let others = self.others_near(&base, travel + 1.0);
        // Worked out once for all the samples: what no motion changes (a stand's corners where
        // it starts and its half diagonal, what each feature does to the unit, which features
        // are linear obstacles and roads), and each sample's corners once a sample, only when
        // there is something to test them against.
        let base_corners: Vec<[Vec2; 4]> = base.iter().map(|f| f.corners()).collect();
        let half_diagonal: Vec<f32> = base.iter().map(|f| f.frontage.hypot(f.depth) / 2.0).collect();
        // A unit already overlapping another at the start (a set-up slip) may move away from it.
        // Stands whose bounding circles are apart do not overlap: no polygon test for them.
        let ignore: Vec<usize> = others
            .iter()
            .copied()
            .filter(|&i| {
                let other = &self.s.stands[i];
                base.iter().zip(&base_corners).zip(&half_diagonal).any(|((f, c), r)| f.centre.distance(other.footprint.centre) <= r + other.radius + TOUCH && convex_overlap_depth(c, &other.corners) > TOUCH)
            })
            .collect();
        // No point of a stand goes farther than the motion's travel from where it starts (as for
        // `others`): terrain whose box lies beyond that is never met, so it is never tested.
        let corners: Vec<Vec2> = base_corners.iter().flatten().copied().collect();
        let area = Aabb::of(&corners).grow(travel + 1.0);
        let features: Vec<usize> = (0..self.s.features.len()).filter(|&f| self.s.features[f].bbox.overlaps(&area)).collect();
        // Terrain the unit is already in (a unit deployed in a town, 6.13) does not stop it leaving.
        let already_in: Vec<usize> = features.iter().copied().filter(|&f| base_corners.iter().any(|c| touches(&self.s.features[f], c))).collect();
        // Each stand's own neighbours: no point of it goes farther than `travel` either.
        let near_stand: Vec<Vec<usize>> = base
            .iter()
            .zip(&half_diagonal)
            .map(|(f, r)| {
                let reach = travel + r + TOUCH;
                others.iter().copied().filter(|&i| !ignore.contains(&i) && f.centre.distance(self.s.stands[i].footprint.centre) <= reach + self.s.stands[i].radius).collect()
            })
            .collect();
        let mut crossed: Vec<(usize, usize)> = Vec::new();
        let effects: Vec<TerrainEffect> = features.iter().map(|&f| self.effect(f)).collect();
        let s = self.s;
        let obstacles: Vec<(usize, &[Vec2])> = features
            .iter()
            .filter(|&&f| self.is_obstacle(f))
            .filter_map(|&f| match &s.features[f].outline {
                Outline::Line(path) | Outline::Ribbon { path, .. } => Some((f, path.as_slice())),
                Outline::Area(_) => None,
            })
            .collect();
        let roads: Vec<(&[Vec2], f32)> = features
            .iter()
            .map(|&f| &s.features[f])
            .filter(|f| matches!(s.terrain()[f.index], Terrain::Road { .. }))
            .filter_map(|f| match &f.outline {
                Outline::Ribbon { path, half_width } => Some((path.as_slice(), *half_width)),
                _ => None,
            })
            .collect();
        let corners_needed = !features.is_empty() || near_stand.iter().any(|n| !n.is_empty());
        let mut prev_corners: Vec<[Vec2; 4]> = if corners_needed { base_corners } else { Vec::new() };
        let mut cur_corners = Vec::with_capacity(prev_corners.len());
        let mut prev = base.clone();
        let mut cur = Vec::with_capacity(base.len());
        for k in 1..=n {
            let t = k as f32 / n as f32;
            motion.pose_into(&base, t, &mut cur);
            if corners_needed {
                cur_corners.clear();
                cur_corners.extend(cur.iter().map(|f| f.corners()));
            }
            for (j, (a, b)) in prev.iter().zip(&cur).enumerate() {
                // The swept hull lies within this circle: stands beyond it need no polygon test.
                let (mid, reach) = ((a.centre + b.centre) / 2.0, a.centre.distance(b.centre) / 2.0 + half_diagonal[j]);
                let mut near = near_stand[j].iter().copied().filter(|&i| mid.distance(self.s.stands[i].footprint.centre) <= reach + self.s.stands[i].radius + TOUCH).peekable();
                let hit = if near.peek().is_none() {
                    None
                } else {
                    let mut pts = prev_corners[j].to_vec();
                    pts.extend(cur_corners[j]);
                    let hull = convex_hull(&pts);
                    near.find(|&i| convex_overlap_depth(&hull, &self.s.stands[i].corners) > TOUCH)
                };
                if let Some(i) = hit {
                    let who = &self.s.unit(self.s.stands[i].unit).name;
                    let mover = if j < own { format!("stand {j}") } else { "the attached gun (7.5)".to_string() };
                    return Err(problem(step, self.rules.cite.interpenetrate, format!("{mover} would pass through {who} about {:.2}\" into this step (units may not interpenetrate)", cost * t)));
                }
                if j >= own {
                    // The gun's own terrain is the engine's concern (7.5: its formation's allowance).
                    continue;
                }
                for &(f, path) in &obstacles {
                    if crosses_polyline(a.centre, b.centre, path) && !crossed.contains(&(f, j)) {
                        crossed.push((f, j));
                    }
                }
                self.on_road &= roads.iter().any(|&(path, half_width)| point_polyline_distance(b.centre, path) <= half_width + EPS);
                self.off_table |= !self.s.on_table(b.centre);
            }
            for (&f, &effect) in features.iter().zip(&effects) {
                let feature = &self.s.features[f];
                if let TerrainEffect::Forbidden(section, why) = effect
                    && !already_in.contains(&f)
                    && cur_corners.iter().any(|c| touches(feature, c))
                {
                    return Err(problem(step, section, format!("{}: {why}", self.s.terrain()[feature.index].name())));
                }
                if let TerrainEffect::Ford(_) = effect
                    && !already_in.contains(&f)
                    && cur.iter().zip(&cur_corners).any(|(st, c)| touches(feature, c) && self.off_ford(f, st))
                {
                    return Err(problem(step, self.rules.cite.ford, format!("{} is a river: it is crossed only at its fords", self.s.terrain()[feature.index].name())));
                }
                if self.met.contains(&f) {
                    continue;
                }
                if let Some(kind) = self.disorder_among(f, effect, &cur, |i| cur_corners[i]) {
                    self.met.push(f);
                    let t = self.first_touch(&motion, &base, f, t - 1.0 / n as f32, t);
                    let at_pose = motion.pose(&base, t);
                    let at = at_pose.iter().find(|st| self.disorder_at(f, std::slice::from_ref(st)).is_some()).map(|st| contact_point(&feature.outline, st)).unwrap_or(at_pose[0].centre);
                    self.disorder.push(TerrainContact { step, terrain: self.s.terrain()[feature.index].name().to_string(), disorder: kind, at, after: self.spent + cost * t });
                }
            }
            std::mem::swap(&mut prev, &mut cur);
            std::mem::swap(&mut prev_corners, &mut cur_corners);
        }
        let mut end = prev.into_iter();
        self.info.stands.iter_mut().zip(end.by_ref()).for_each(|(s, f)| s.footprint = f);
        if motion.rigid() {
            for (_, now, _) in &mut self.carried {
                now.iter_mut().zip(end.by_ref()).for_each(|(s, f)| *s = f);
            }
        }
        self.spend(step, "", String::new(), cost)?;
        self.pay_obstacles(step, &crossed)
    }

    /// Bisects between two samples for where the stands first touch a feature.
    fn first_touch(&self, motion: &Motion, base: &[Footprint], feature: usize, mut lo: f32, mut hi: f32) -> f32 {
        for _ in 0..8 {
            let mid = (lo + hi) / 2.0;
            if self.disorder_at(feature, &motion.pose(base, mid)).is_some() {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// A linear obstacle, by the rule set (OTP 6.7: walls, fences, breastworks and narrow streams).
    fn is_obstacle(&self, feature: usize) -> bool {
        (self.rules.obstacle)(&self.s.terrain()[self.s.features[feature].index])
    }

    /// Linear obstacles are paid by the rank, at the rule set's price (OTP 6.7). A column
    /// crosses rank by rank (each stand that crossed); a line is one rank.
    fn pay_obstacles(&mut self, step: usize, crossed: &[(usize, usize)]) -> Result<(), MoveProblem> {
        let mut seen: Vec<usize> = crossed.iter().map(|c| c.0).collect();
        seen.dedup();
        for f in seen {
            let t = &self.s.terrain()[self.s.features[f].index];
            let cite = self.rules.cite.obstacle;
            let per = (self.rules.crossing)(t, &self.info).map_err(|why| problem(step, cite, why))?;
            let ranks = if self.info.in_column() { crossed.iter().filter(|c| c.0 == f).count() } else { 1 };
            self.spend(step, cite, format!("crossing {}: {ranks} rank(s) at {per}\" a rank", t.name()), ranks as f32 * per)?;
        }
        Ok(())
    }

    /// A part of the move, its words built only for a plan that keeps them (not a bare one).
    fn item(&mut self, step: usize, section: &'static str, inches: f32, what: impl FnOnce() -> String) {
        if !self.bare {
            self.items.push(MoveItem { step, section, what: what(), inches });
        }
    }

    /// Adds a cost (an item when `what` is given) and checks the allowance.
    fn spend(&mut self, step: usize, section: &'static str, what: String, inches: f32) -> Result<(), MoveProblem> {
        self.spent += inches;
        if !what.is_empty() && !self.bare {
            self.items.push(MoveItem { step, section, what, inches });
        }
        let most = self.allowance.full.max(self.allowance.road.unwrap_or(0.0));
        if self.spent > most + EPS {
            return Err(problem(step, self.rules.cite.allowance, format!("the move needs {:.2}\" but the allowance is {:.2}\"", self.spent, most)));
        }
        Ok(())
    }

    /// The rule set's verdict on a kind of step, as a problem of this step.
    fn may(&self, step: usize, ask: Ask) -> Result<(), MoveProblem> {
        (self.rules.may)(&self.info, ask).map_err(|r| problem(step, r.section, r.reason))
    }

    /// A part of the move priced by the rule set from the full allowance, and its words.
    fn share(&self, what: Share) -> (f32, &'static str) {
        (self.rules.share)(&self.info, what, self.allowance.full)
    }

    /// Checks that the unit may move now (not doubled up, not barred after a change of
    /// formation) and marks it as moving.
    fn may_move(&mut self, step: usize) -> Result<(), MoveProblem> {
        if self.doubled.is_some() {
            return Err(problem(step, self.rules.cite.double_up, "a unit cannot move while it has a stand doubled up"));
        }
        if self.changed_formation {
            self.may(step, Ask::MoveAfterFormationChange)?;
        }
        self.moved = true;
        Ok(())
    }

    /// Takes the steps in order, up to the first that goes wrong: its problem.
    fn take(&mut self, steps: &[MoveStep]) -> Option<MoveProblem> {
        for (i, step) in steps.iter().enumerate() {
            // A step that goes wrong leaves no trace but the problem: the unit stays where it was.
            let (info, spent, items, disorder, carried) = (self.info.clone(), self.spent, self.items.len(), self.disorder.len(), self.carried.clone());
            if let Err(p) = self.step(i, step) {
                self.info = info;
                self.carried = carried;
                self.spent = spent;
                self.items.truncate(items);
                self.disorder.truncate(disorder);
                return Some(p);
            }
        }
        None
    }

    fn step(&mut self, i: usize, step: &MoveStep) -> Result<(), MoveProblem> {
        let cite = self.rules.cite;
        match step {
            MoveStep::Forward(d) | MoveStep::Oblique { distance: d, .. } if *d < 0.0 => Err(problem(i, cite.allowance, "a move forward cannot be negative (about face first)")),
            MoveStep::Forward(d) => {
                self.may_move(i)?;
                let fwd = self.info.stands[0].footprint.forward();
                self.item(i, cite.allowance, *d, || format!("forward {d:.2}\""));
                self.sweep(i, Motion::Shift(fwd * *d), *d)
            }
            MoveStep::Oblique { angle, distance } => {
                if angle.abs() > self.rules.oblique_max + EPS {
                    return Err(problem(i, cite.manoeuvre, format!("an oblique move is at most {}° off the facing, not {angle:.1}°", self.rules.oblique_max)));
                }
                self.may_move(i)?;
                let dir = super::footprint::bearing_vector(self.info.stands[0].footprint.facing + angle);
                self.item(i, cite.manoeuvre, *distance, || format!("oblique {angle:.1}° for {distance:.2}\""));
                self.sweep(i, Motion::Shift(dir * *distance), *distance)
            }
            MoveStep::SideStep(d) => {
                self.may_move(i)?;
                let right = self.info.stands[0].footprint.right();
                let cost = self.rules.side_step_rate * d.abs();
                self.item(i, cite.manoeuvre, cost, || format!("side step {:.2}\" at half rate", d.abs()));
                self.sweep(i, Motion::Shift(right * *d), cost)
            }
            MoveStep::Wheel { pivot, angle } => {
                self.may(i, Ask::Wheel)?;
                self.may_move(i)?;
                let arc = Arc::of_unit(&self.info).ok_or_else(|| problem(i, cite.manoeuvre, "no stands"))?;
                let (fixed, swinging) = match pivot {
                    End::Left => (arc.front_left, arc.front_right),
                    End::Right => (arc.front_right, arc.front_left),
                };
                let cost = angle.to_radians().abs() * fixed.distance(swinging);
                self.item(i, cite.manoeuvre, cost, || format!("wheel {angle:.1}° on the {pivot:?} end: the other end moves {cost:.2}\"").to_lowercase());
                self.sweep(i, Motion::Turn { pivot: fixed, degrees: *angle }, cost)
            }
            MoveStep::AboutFace => {
                self.may_move(i)?;
                let (cost, what) = self.share(Share::AboutFace);
                let mut stands = self.info.stands.clone();
                stands.iter_mut().for_each(|s| s.footprint.facing = (s.footprint.facing + 180.0).rem_euclid(360.0));
                if self.info.in_column() {
                    stands.reverse(); // the countermarch puts the rear stand at the head
                }
                self.info.stands = stands;
                self.check_place(i, &self.stands())?;
                self.spend(i, cite.manoeuvre, what.into(), cost)
            }
            MoveStep::Path(points) => {
                self.may(i, Ask::Path)?;
                self.may_move(i)?;
                let motion = self.follow(points);
                let Motion::Follow { length, .. } = motion else { unreachable!() };
                self.item(i, cite.road, length, || format!("column follows its head {length:.2}\""));
                self.sweep(i, motion, length)
            }
            MoveStep::ChangeFormation(to) => self.change_formation(i, *to),
            MoveStep::Bend { end, stands, angle } => self.bend(i, *end, *stands, *angle),
            MoveStep::Straighten => self.straighten(i),
            MoveStep::DoubleUp { stand, behind } => self.double_up(i, *stand, *behind),
            MoveStep::Undouble => {
                let Some((stand, home)) = self.doubled.take() else { return Err(problem(i, cite.double_up, "no stand is doubled up")) };
                let (cost, _) = self.share(Share::DoubleUp);
                self.info.stands[stand].footprint = home;
                self.check_place(i, &self.stands())?;
                self.spend(i, cite.double_up, format!("stand {stand} back in its place"), cost)
            }
            MoveStep::Stands(moves) => self.stands_apart(i, moves),
        }
    }

    /// 5.3, 6.4: a skirmish line's stands moved one by one. Each is swept on its own (6.5
    /// interpenetration, 6.6 terrain, 6.7 obstacles, as any move) and pays its own path; the
    /// step costs the longest, each stand moving up to the allowance, and conforming to cover
    /// costs nothing more (6.4). Afterwards the stands must still be one skirmish line.
    fn stands_apart(&mut self, i: usize, moves: &[StandMove]) -> Result<(), MoveProblem> {
        self.may(i, Ask::StandByStand)?;
        let skirmish = self.rules.cite.skirmish;
        let n = self.info.stands.len();
        if let Some(m) = moves.iter().find(|m| m.stand >= n) {
            return Err(problem(i, skirmish, format!("the unit has no stand {} (it has {n})", m.stand)));
        }
        if let Some(m) = moves.iter().enumerate().find(|(k, m)| moves[..*k].iter().any(|o| o.stand == m.stand)).map(|(_, m)| m) {
            return Err(problem(i, skirmish, format!("stand {} is moved twice in one step", m.stand)));
        }
        self.may_move(i)?;
        let (before, items) = (self.spent, self.items.len());
        let mut paid: Vec<(usize, f32)> = Vec::new();
        for m in moves {
            let from = self.info.stands[m.stand].footprint;
            let to = Footprint { centre: m.to, facing: m.facing.rem_euclid(360.0), ..from };
            let path = from.centre.distance(to.centre);
            self.spent = before;
            self.sweep(i, Motion::Stand { stand: m.stand, to }, path)?;
            paid.push((m.stand, self.spent - before));
        }
        // The obstacles each stand crossed are in its own cost: one item says it all.
        let extras: Vec<String> = self.items.drain(items..).map(|it| it.what).collect();
        self.check_skirmish_line(i)?;
        let longest = paid.iter().map(|p| p.1).fold(0.0, f32::max);
        let each: Vec<String> = paid.iter().map(|(k, c)| format!("stand {k} {c:.2}\"")).collect();
        let crossing = if extras.is_empty() { String::new() } else { format!("; {}", extras.join("; ")) };
        self.spent = before;
        self.spend(i, self.rules.cite.stand_by_stand, format!("skirmishers move stand by stand ({}{crossing}): the longest counts", each.join(", ")), longest)
    }

    /// One rank, each stand the rule set's gap from the next (by index, left to right), none
    /// overlapping (OTP 5.3: 1" to 3").
    fn check_skirmish_line(&self, i: usize) -> Result<(), MoveProblem> {
        let f = self.stands();
        let ((least, most), cite) = (self.rules.skirmish_gap, self.rules.cite.skirmish);
        for a in 0..f.len() {
            for b in a + 1..f.len() {
                if convex_overlap_depth(&f[a].corners(), &f[b].corners()) > TOUCH {
                    return Err(problem(i, cite, format!("stands {a} and {b} would overlap: a skirmish line keeps its stands {least}\" to {most}\" apart")));
                }
            }
        }
        for (k, w) in f.windows(2).enumerate() {
            let gap = w[0].distance(&w[1]);
            if !(least - SKIRMISH_SLACK..=most + SKIRMISH_SLACK).contains(&gap) {
                return Err(problem(i, cite, format!("stands {k} and {} would be {gap:.2}\" apart: a skirmish line keeps them {least}\" to {most}\" apart", k + 1)));
            }
        }
        Ok(())
    }

    /// The column's track: from its rear stand forward through every stand to the head, then on
    /// through the points. Each stand keeps its distance behind the head along the track.
    fn follow(&self, points: &[Vec2]) -> Motion {
        let mut trail: Vec<Vec2> = Vec::new();
        for st in self.info.stands.iter().rev() {
            let f = &st.footprint;
            for p in [f.centre - f.forward() * (f.depth / 2.0), f.front_centre()] {
                if trail.last().is_none_or(|q| q.distance(p) > EPS) {
                    trail.push(p);
                }
            }
        }
        let head = polyline_length(&trail);
        let fronts: Vec<Vec2> = self.info.stands.iter().map(|s| s.footprint.front_centre()).collect();
        let mut behind = vec![0.0];
        for w in fronts.windows(2) {
            behind.push(behind[behind.len() - 1] + w[0].distance(w[1]));
        }
        let start = trail.len();
        trail.extend(points.iter().copied());
        let length = polyline_length(&trail[start - 1..]);
        Motion::Follow { trail, head, length, behind }
    }

    fn change_formation(&mut self, i: usize, to: Formation) -> Result<(), MoveProblem> {
        let (from, cite) = (self.info.formation, self.rules.cite);
        if to == from {
            return Err(problem(i, cite.formation, format!("the unit is already in {to:?}")));
        }
        if self.moved {
            return Err(problem(i, cite.formation, "changes of formation occur before movement"));
        }
        if self.doubled.is_some() {
            return Err(problem(i, cite.double_up, "restore the doubled-up stand first"));
        }
        if self.info.is_bent() {
            return Err(problem(i, cite.bend, "straighten the bent line first"));
        }
        let price = (self.rules.form)(&self.info, to).map_err(|r| problem(i, r.section, r.reason))?;
        // The new formation stands on the centre of the old front, facing the same way.
        let arc = Arc::of_unit(&self.info).ok_or_else(|| problem(i, cite.formation, "no stands"))?;
        let at = (arc.front_left + arc.front_right) / 2.0;
        let placed = self.info.relaid(to, at, arc.facing).map_err(|e| problem(i, cite.basing, e.to_string()))?;
        self.check_place(i, &placed)?;
        self.info.formation = to;
        self.info.stands.iter_mut().zip(placed).for_each(|(s, f)| s.footprint = f);
        self.changed_formation = true;
        let FormationPrice { share, section, words } = price;
        self.spend(i, section, format!("change formation {from:?} to {to:?} ({words} move)"), self.allowance.full * share)
    }

    fn bend(&mut self, i: usize, end: End, k: usize, angle: f32) -> Result<(), MoveProblem> {
        self.may(i, Ask::Bend)?;
        let (order, most) = (left_to_right(&self.info), self.rules.bend_max);
        if k == 0 || k >= order.len() || angle.abs() > most + EPS {
            return Err(problem(i, self.rules.cite.bend, format!("bend {k} of {} stands through {angle:.1}°: at least one stand must stay, and at most {most}°", order.len())));
        }
        self.may_move(i)?;
        let wing: Vec<usize> = match end {
            End::Left => order[..k].to_vec(),
            End::Right => order[order.len() - k..].to_vec(),
        };
        // The joint stand of the wing turns on its inside corner: the front corner when it
        // swings forward, the rear corner when it is refused, so it never swings into the line.
        let joint = &self.info.stands[if end == End::Left { wing[k - 1] } else { wing[0] }].footprint;
        let (pivot, degrees) = match (end, angle >= 0.0) {
            (End::Left, true) => (joint.front_right(), angle),
            (End::Left, false) => (joint.rear_right(), angle),
            (End::Right, true) => (joint.front_left(), -angle),
            (End::Right, false) => (joint.rear_left(), -angle),
        };
        let (cost, words) = self.share(Share::Bend);
        self.item(i, self.rules.cite.bend, cost, || format!("bend the {end:?} {k} stand(s) {angle:.1}° ({words})").to_lowercase());
        self.sweep(i, Motion::TurnSome { stands: wing, pivot, degrees }, cost)
    }

    fn straighten(&mut self, i: usize) -> Result<(), MoveProblem> {
        if !self.info.is_bent() {
            return Err(problem(i, self.rules.cite.bend, "the line is not bent"));
        }
        self.may_move(i)?;
        let order = left_to_right(&self.info);
        let mid = order[order.len() / 2];
        let m = self.info.stands[mid].footprint;
        let place = |from: &[usize], sign: f32, stands: &mut Vec<Footprint>| {
            let mut edge = m.centre + m.right() * (sign * m.frontage / 2.0);
            for &j in from {
                let f = &mut stands[j];
                let centre = edge + m.right() * (sign * (self.info.gap + f.frontage / 2.0));
                *f = Footprint { centre, facing: m.facing, ..*f };
                edge = centre + m.right() * (sign * f.frontage / 2.0);
            }
        };
        let mut stands = self.stands();
        let at = order.len() / 2;
        place(&order[at + 1..], 1.0, &mut stands);
        place(&order[..at].iter().rev().copied().collect::<Vec<_>>(), -1.0, &mut stands);
        self.check_place(i, &stands)?;
        self.info.stands.iter_mut().zip(stands).for_each(|(s, f)| s.footprint = f);
        let (cost, _) = self.share(Share::Bend);
        self.spend(i, self.rules.cite.bend, "straighten the line (1/4 move)".into(), cost)
    }

    fn double_up(&mut self, i: usize, stand: usize, behind: usize) -> Result<(), MoveProblem> {
        let (n, cite) = (self.info.stands.len(), self.rules.cite.double_up);
        if stand >= n || behind >= n || stand == behind {
            return Err(problem(i, cite, format!("no such pair of stands ({stand} behind {behind})")));
        }
        if self.doubled.is_some() {
            return Err(problem(i, cite, "only a single stand may double up"));
        }
        if self.allowance.full - self.spent < self.allowance.full * self.rules.double_up_needs - EPS {
            return Err(problem(i, cite, "a unit with less than half its move left may not double up"));
        }
        let host = self.info.stands[behind].footprint;
        let home = self.info.stands[stand].footprint;
        let f = Footprint { centre: host.centre - host.forward() * ((host.depth + home.depth) / 2.0), facing: host.facing, ..home };
        let mut stands = self.stands();
        stands[stand] = f;
        self.check_place(i, &stands)?;
        self.info.stands[stand].footprint = f;
        self.doubled = Some((stand, home));
        let (cost, _) = self.share(Share::DoubleUp);
        self.spend(i, cite, format!("stand {stand} doubles up behind stand {behind}"), cost)
    }
}

/// Where a move leaves the unit's stands and what it costs with nothing else on the table.
#[derive(Clone, Debug, PartialEq)]
pub struct BarePlan {
    pub stands: Vec<Footprint>,
    pub spent: f32,
}

/// The steps of one unit as [`plan_move`] plans them alone on a bare table (no other unit, no
/// terrain, attached to none, no allowance to keep to): pure geometry, so each step that moves
/// the stands is priced and put at its end without sampling the way. A step that goes wrong
/// (one the rule set forbids the unit) leaves the stands where they were before it.
pub fn plan_bare(s: &Situation, unit: usize, steps: &[MoveStep], rules: &MoveRules) -> BarePlan {
    let mut alone = s.unit(unit).clone();
    alone.attached_to = None;
    let mut plan = Plan::blank(s, rules, unit, alone, Allowance::new(f32::MAX / 4.0), true);
    plan.take(steps);
    BarePlan { stands: plan.info.footprints(), spent: plan.spent }
}

/// Plans a move of one unit, step by step: legal or not (the first problem, with its rule),
/// the inches each part costs, and where the move meets disordering terrain.
pub fn plan_move(s: &Situation, unit: usize, steps: &[MoveStep], allowance: Allowance, rules: &MoveRules) -> MoveReport {
    let mut plan = Plan::new(s, rules, unit, allowance);
    let mut problem_found = plan.take(steps);
    // The road allowance is for a unit the rule set allows it that stayed on the road all the way.
    let road_bonus = plan.moved && plan.on_road && (rules.may)(&plan.info, Ask::Road).is_ok() && allowance.road.is_some();
    let effective = if road_bonus { allowance.road.unwrap_or(allowance.full) } else { allowance.full };
    if problem_found.is_none() && plan.spent > effective + EPS {
        let why = if allowance.road.is_some() && !road_bonus { format!(" ({}, {})", rules.road_note, rules.cite.road) } else { String::new() };
        problem_found = Some(problem(steps.len().saturating_sub(1), rules.cite.allowance, format!("the move needs {:.2}\" but the allowance is {effective:.2}\"{why}", plan.spent)));
    }
    MoveReport {
        items: plan.items,
        spent: plan.spent,
        allowance: effective,
        road_bonus,
        problem: problem_found,
        stands: plan.info.footprints(),
        formation: plan.info.formation,
        starts_in: plan.starts_in,
        disorder: plan.disorder,
        doubled_up: plan.doubled.map(|d| d.0),
        off_table: plan.off_table,
        carried: plan
            .carried
            .iter()
            .filter(|(_, now, start)| now != start)
            .map(|(i, now, start)| Carried {
                unit: s.unit(*i).name.clone(),
                stands: now.clone(),
                travelled: now.iter().zip(start).map(|(a, b)| a.centre.distance(b.centre)).fold(0.0, f32::max),
            })
            .collect(),
    }
}

/// A unit met by a retreat.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InTheWay {
    pub unit: String,
    pub friendly: bool,
    /// Inches of the retreat before it meets the unit.
    pub after: f32,
}

/// 6.11: a retreat straight away from the enemy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RetreatPath {
    /// The bearing of the retreat.
    pub bearing: f32,
    /// Where the stands would end with nothing in the way.
    pub stands: Vec<Footprint>,
    /// Units the retreat runs into, in the order met: a friendly unit rolls against its CV (6.11).
    pub in_the_way: Vec<InTheWay>,
    pub off_table: bool,
}

/// 6.11: the path of a retreat of `distance` inches straight away from `enemy`: from the
/// enemy's nearest point to the retreating unit's centre, onward, keeping formation, facing and
/// frontage (a straight line never backtracks). Terrain costs are ignored in retreat (6.11).
pub fn retreat(s: &Situation, unit: usize, enemy: usize, distance: f32) -> RetreatPath {
    let me = s.unit(unit);
    let (_, centre, _) = s.spans[unit];
    let from = s.unit_stands(enemy).iter().flat_map(|st| st.corners.iter().zip(st.corners.iter().cycle().skip(1))).map(|(&a, &b)| super::geom::closest_on_segment(centre, a, b)).min_by(|a, b| a.distance(centre).total_cmp(&b.distance(centre)));
    let away = from.map(|p| centre - p).filter(|d| d.length() > EPS).map(Vec2::normalize).unwrap_or_else(|| -me.stands[0].footprint.forward());
    shift_path(s, unit, away, distance)
}

/// 6.11: a unit carried `distance` inches along the unit vector `away` (a friendly unit moving
/// with a retreat that ran into it), keeping formation and facing: where it ends and what it
/// runs into on the way.
pub fn shift_path(s: &Situation, unit: usize, away: Vec2, distance: f32) -> RetreatPath {
    let me = s.unit(unit);
    let motion = Motion::Shift(away * distance);
    let base = me.footprints();
    let n = (distance / SWEEP_STEP).ceil().max(1.0) as usize;
    let mut in_the_way: Vec<InTheWay> = Vec::new();
    let mut off_table = false;
    let corners: Vec<Vec2> = base.iter().flat_map(|f| f.corners()).collect();
    let mut near = Vec::new();
    s.grid.query(Aabb::of(&corners).grow(distance), |i| near.push(i));
    let radius = base.iter().map(|f| f.frontage.hypot(f.depth) / 2.0).fold(0.0, f32::max);
    // Only stands within reach of some stand's track (its centre's straight line) can be met.
    let shift = away * distance;
    near.retain(|&i| {
        let other = &s.stands[i];
        other.unit != unit && base.iter().any(|f| point_segment_distance(other.footprint.centre, f.centre, f.centre + shift) <= radius + other.radius + TOUCH + 0.01)
    });
    // One pose buffer for all the samples; a sample's corners of a stand only when some stand
    // near it needs the polygon test, and then once.
    let (mut cur, mut corners) = (Vec::with_capacity(base.len()), vec![None; base.len()]);
    for k in 1..=n {
        let t = k as f32 / n as f32;
        motion.pose_into(&base, t, &mut cur);
        off_table |= cur.iter().any(|f| !s.on_table(f.centre));
        corners.fill(None);
        for &i in &near {
            let other = &s.stands[i];
            let name = &s.unit(other.unit).name;
            if in_the_way.iter().any(|w| &w.unit == name) {
                continue;
            }
            // Stands whose bounding circles are apart cannot overlap: no polygon test for them.
            let apart = |centre: Vec2| centre.distance(other.footprint.centre) > radius + other.radius + TOUCH;
            if cur.iter().zip(&mut corners).any(|(f, c)| !apart(f.centre) && convex_overlap_depth(c.get_or_insert_with(|| f.corners()), &other.corners) > TOUCH) {
                in_the_way.push(InTheWay { unit: name.clone(), friendly: s.unit(other.unit).side == me.side, after: distance * t });
            }
        }
    }
    RetreatPath { bearing: vector_bearing(away), stands: motion.pose(&base, 1.0), in_the_way, off_table }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::engine::move_rules::{OTP, commander_ride_cost};
    // Most tests here are OTP's rules (6.x) through the table's geometry: they plan with OTP's MoveRules.
    use crate::scenario::model::{Arm, Construction, Ford, GunSize, ObstacleKind, Point, StreamKind, UnitType, WoodsDensity};
    use crate::rules::otp::fire::range::fire_mode;
    use crate::table::arc::FireMode;
    use crate::table::testing::{close, rect, table, v, with_terrain};

    /// 16 muskets in line: four 2" stands, front from (16, 10) to (24, 10), facing up the table.
    fn line() -> UnitInfo {
        UnitInfo::foot("Line", 0, 16, Formation::Line, v(20.0, 10.0), 0.0)
    }

    /// 12 muskets in march column: three stands, head front centred on (x, 10).
    fn column(x: f32) -> UnitInfo {
        UnitInfo::foot("Column", 0, 12, Formation::Column, v(x, 10.0), 0.0)
    }

    fn enemy(x: f32, y: f32) -> UnitInfo {
        UnitInfo::foot("Enemy", 1, 8, Formation::Line, v(x, y), 180.0)
    }

    fn plan(s: &Situation, steps: &[MoveStep], full: f32) -> MoveReport {
        plan_move(s, 0, steps, Allowance::new(full), &OTP)
    }

    fn section(r: &MoveReport) -> &'static str {
        r.problem.as_ref().map(|p| p.section).unwrap_or("legal")
    }

    /// A 2-gun section attached at the line's right end (7.5), touching it.
    fn attached_gun() -> UnitInfo {
        let mut gun = UnitInfo::battery("Guns", 0, GunSize::Light, 2, Formation::Unlimbered, v(24.5, 10.0), 0.0);
        gun.attached_to = Some("Line".into());
        gun
    }

    #[test]
    fn attached_guns_go_with_their_unit() {
        // OTP 7.5: the gun moves with its unit and is never in its way; it does not pass through others.
        let s = table(vec![line(), attached_gun()]);
        let r = plan(&s, &[MoveStep::Oblique { distance: 3.0, angle: 30.0 }], 6.0);
        assert!(r.legal(), "{:?}", r.problem);
        assert_eq!(r.carried.len(), 1);
        assert!(close(r.carried[0].travelled, 3.0), "{}", r.carried[0].travelled);
        let gap = r.stands[3].distance(&r.carried[0].stands[0]);
        assert!(gap < 0.01, "still in contact after the move ({gap})");
        // A side step carries it too (a shift of the whole unit).
        let r = plan(&s, &[MoveStep::SideStep(-2.0)], 6.0);
        assert!(r.legal() && close(r.carried[0].travelled, 2.0));
        // The carried gun runs into a unit the line itself clears.
        let s = table(vec![line(), attached_gun(), enemy(26.3, 13.0)]);
        let r = plan(&s, &[MoveStep::Forward(4.0)], 6.0);
        let p = r.problem.expect("blocked");
        assert_eq!(p.section, "6.5");
        assert!(p.reason.contains("attached gun"), "{}", p.reason);
    }

    #[test]
    fn forward_within_the_allowance() {
        // OTP 6.1: the allowance is the chart's for the formation; the rules engine passes it in.
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::Forward(4.0)], 6.0);
        assert!(r.legal() && close(r.spent, 4.0) && close(r.remaining(), 2.0));
        assert!(close(r.stands[0].front_left().y, 14.0));
        assert_eq!(section(&plan(&s, &[MoveStep::Forward(7.0)], 6.0)), "6.1");
    }

    #[test]
    fn no_passing_through_another_unit() {
        // OTP 6.5: units may not interpenetrate, along the whole move and not just at its end.
        let s = table(vec![line(), enemy(20.0, 14.0)]);
        assert!(plan(&s, &[MoveStep::Forward(4.0)], 6.0).legal(), "touching is not interpenetrating");
        let r = plan(&s, &[MoveStep::Forward(6.0)], 6.0);
        assert_eq!(section(&r), "6.5");
        assert!(r.problem.unwrap().reason.contains("Enemy"));
        assert!(close(r.stands[0].centre.y, line().stands[0].footprint.centre.y), "the unit stays put");
    }

    #[test]
    fn oblique_up_to_45_degrees() {
        // OTP 6.3
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::Oblique { angle: 30.0, distance: 5.0 }], 6.0);
        assert!(r.legal() && close(r.spent, 5.0));
        assert!(close(r.stands[0].facing, 0.0), "obliquing keeps the facing");
        assert!(close(r.stands[0].centre.x, 16.0 + 1.0 + 2.5));
        assert_eq!(section(&plan(&s, &[MoveStep::Oblique { angle: 50.0, distance: 1.0 }], 6.0)), "6.3");
    }

    #[test]
    fn side_step_at_half_rate() {
        // OTP 6.3: a side step is half the normal move, keeping facing: 2" costs 4".
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::SideStep(-2.0)], 6.0);
        assert!(r.legal() && close(r.spent, 4.0) && close(r.stands[0].centre.x, 15.0));
        assert_eq!(section(&plan(&s, &[MoveStep::SideStep(3.5)], 6.0)), "6.1");
    }

    #[test]
    fn wheel_pays_the_moving_end_and_keeps_the_pivot() {
        // OTP 6.3: one end stays; the other moves no more than the allowance. An 8" line
        // wheeling 30° moves its far end 8 x pi/6 = 4.19"; 45° (6.28") is more than 6".
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::Wheel { pivot: End::Left, angle: 30.0 }], 6.0);
        assert!(r.legal() && close(r.spent, 8.0 * std::f32::consts::PI / 6.0), "{r:?}");
        assert!((r.stands[0].front_left() - v(16.0, 10.0)).length() < 1e-3, "the pivot stays");
        assert!(r.stands.iter().all(|f| close(f.facing, 30.0)));
        assert_eq!(section(&plan(&s, &[MoveStep::Wheel { pivot: End::Right, angle: -45.0 }], 6.0)), "6.1");
        assert_eq!(section(&plan(&table(vec![column(20.0)]), &[MoveStep::Wheel { pivot: End::Left, angle: 30.0 }], 6.0)), "6.3");
    }

    #[test]
    fn about_face_free_in_line_quarter_in_column() {
        // OTP 6.3: a line about-faces at no cost; a column countermarches for 1/4 move.
        let r = plan(&table(vec![line()]), &[MoveStep::AboutFace], 6.0);
        assert!(r.legal() && r.spent == 0.0 && close(r.stands[0].facing, 180.0));
        let c = column(20.0);
        let r = plan(&table(vec![c.clone()]), &[MoveStep::AboutFace], 8.0);
        assert!(r.legal() && close(r.spent, 2.0));
        assert_eq!(r.stands[0].centre, c.stands[2].footprint.centre, "the rear stand leads");
    }

    #[test]
    fn column_follows_its_head() {
        // OTP 5.1: the march column's stands follow the head along its track.
        let s = table(vec![column(20.0)]);
        let r = plan(&s, &[MoveStep::Path(vec![v(20.0, 14.0), v(24.0, 14.0)])], 10.0);
        assert!(r.legal() && close(r.spent, 8.0), "{r:?}");
        assert!((r.stands[0].front_centre() - v(24.0, 14.0)).length() < 1e-3);
        assert!(close(r.stands[0].facing, 90.0));
        assert!((r.stands[2].front_centre() - v(22.5, 14.0)).length() < 1e-3, "{:?}", r.stands[2]);
        assert_eq!(section(&plan(&table(vec![line()]), &[MoveStep::Path(vec![v(20.0, 14.0)])], 6.0)), "5.1");
    }

    #[test]
    fn change_of_formation_costs_half_and_stops_militia() {
        // OTP 6.2: before moving, for half the move; militia may only change formation.
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::ChangeFormation(Formation::Column), MoveStep::Forward(3.0)], 6.0);
        assert!(r.legal() && close(r.spent, 6.0) && r.formation == Formation::Column);
        assert!((r.stands[0].front_centre() - v(20.0, 13.0)).length() < 1e-3, "column formed on the centre of the front");
        assert_eq!(section(&plan(&s, &[MoveStep::ChangeFormation(Formation::Column), MoveStep::Forward(4.0)], 6.0)), "6.1");
        assert_eq!(section(&plan(&s, &[MoveStep::Forward(1.0), MoveStep::ChangeFormation(Formation::Column)], 6.0)), "6.2");
        let militia = UnitInfo::sketch("Militia", 0, UnitType::Militia, Arm::Infantry, None, 8, Formation::Line, v(20.0, 10.0), 0.0);
        let s = table(vec![militia]);
        assert_eq!(section(&plan(&s, &[MoveStep::ChangeFormation(Formation::Column), MoveStep::Forward(1.0)], 6.0)), "6.2");
        // 5.4: loose order is a quarter move.
        assert!(close(plan(&s, &[MoveStep::ChangeFormation(Formation::LooseOrder)], 6.0).spent, 1.5));
        // 5.3: line infantry cannot skirmish.
        assert_eq!(section(&plan(&table(vec![line()]), &[MoveStep::ChangeFormation(Formation::Skirmish)], 6.0)), "5.3");
    }

    #[test]
    fn the_rule_set_supplies_the_numbers_and_citations() {
        // The sweep is the table's; the limits, rates and rules are the rule set's. A set whose
        // obliques go to 60°, whose side steps cost their length, citing its own rules "R1"...
        let mine = MoveRules { oblique_max: 60.0, side_step_rate: 1.0, cite: MoveCites { allowance: "R1", manoeuvre: "R3", ..OTP.cite }, ..OTP };
        let s = table(vec![line()]);
        let oblique = [MoveStep::Oblique { angle: 50.0, distance: 2.0 }];
        assert!(plan_move(&s, 0, &oblique, Allowance::new(6.0), &mine).legal());
        // OTP 6.3: at most 45°.
        assert_eq!(section(&plan(&s, &oblique, 6.0)), "6.3");
        assert_eq!(plan_move(&s, 0, &[MoveStep::Oblique { angle: 70.0, distance: 2.0 }], Allowance::new(6.0), &mine).problem.map(|p| p.section), Some("R3"));
        assert!(close(plan_move(&s, 0, &[MoveStep::SideStep(2.0)], Allowance::new(6.0), &mine).spent, 2.0));
        assert!(close(plan(&s, &[MoveStep::SideStep(2.0)], 6.0).spent, 4.0), "OTP 6.3: half rate");
        assert_eq!(plan_move(&s, 0, &[MoveStep::Forward(7.0)], Allowance::new(6.0), &mine).problem.map(|p| p.section), Some("R1"));
    }

    #[test]
    fn bent_line_quarter_each_way() {
        // OTP 6.4: 1/4 move to bend (refuse a flank), 1/4 to straighten.
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::Bend { end: End::Right, stands: 1, angle: -90.0 }], 6.0);
        assert!(r.legal() && close(r.spent, 1.5), "{r:?}");
        assert!(close(r.stands[3].facing, 90.0));
        let bent = s.with_stands(0, &r.stands, Formation::Line);
        assert_eq!(fire_mode(bent.unit(0)), FireMode::PerStand, "8.1: a bent line fires by stand");
        let r = plan(&bent, &[MoveStep::Straighten], 6.0);
        assert!(r.legal() && close(r.spent, 1.5));
        for (a, b) in r.stands.iter().zip(line().stands) {
            assert!((a.centre - b.footprint.centre).length() < 1e-3 && close(a.facing, 0.0));
        }
    }

    #[test]
    fn double_up_quarter_and_quarter() {
        // OTP 6.5: 1/4 to double up, 1/4 to restore; no moving while doubled, and not with less
        // than half the move left.
        let s = table(vec![line()]);
        let r = plan(&s, &[MoveStep::DoubleUp { stand: 3, behind: 2 }, MoveStep::Undouble], 6.0);
        assert!(r.legal() && close(r.spent, 3.0) && r.doubled_up.is_none());
        let r = plan(&s, &[MoveStep::DoubleUp { stand: 3, behind: 2 }], 6.0);
        assert_eq!(r.doubled_up, Some(3));
        assert!(close(r.stands[3].centre.x, 21.0) && close(r.stands[3].centre.y, 9.625 - 0.75));
        assert_eq!(section(&plan(&s, &[MoveStep::DoubleUp { stand: 3, behind: 2 }, MoveStep::Forward(1.0)], 6.0)), "6.5");
        assert_eq!(section(&plan(&s, &[MoveStep::Forward(3.5), MoveStep::DoubleUp { stand: 3, behind: 2 }], 6.0)), "6.5");
    }

    fn woods(density: WoodsDensity, outline: Vec<Point>) -> Terrain {
        Terrain::Woods { name: "Woods".into(), density, outline, disorder: None }
    }

    #[test]
    fn first_touch_of_disordering_terrain() {
        // OTP 6.6: the unit stops where it first reaches disordering terrain and rolls; regular
        // woods are type C, but militia, lights and Indians treat all woods as type A.
        let s = with_terrain(vec![line()], vec![woods(WoodsDensity::Regular, rect(10.0, 13.0, 30.0, 20.0))]);
        let r = plan(&s, &[MoveStep::Forward(5.0)], 6.0);
        assert!(r.legal());
        let c = &r.disorder[0];
        assert_eq!((c.terrain.as_str(), c.disorder), ("Woods", DisorderType::C));
        assert!((c.after - 3.0).abs() < 0.01 && (c.at.y - 13.0).abs() < 0.01, "{c:?}");
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, None, 8, Formation::Line, v(20.0, 10.0), 0.0);
        let s = with_terrain(vec![lights], vec![woods(WoodsDensity::Dense, rect(10.0, 13.0, 30.0, 20.0))]);
        assert_eq!(plan(&s, &[MoveStep::Forward(5.0)], 6.0).disorder[0].disorder, DisorderType::A);
        let s = with_terrain(vec![line()], vec![woods(WoodsDensity::Light, rect(10.0, 5.0, 30.0, 20.0))]);
        let r = plan(&s, &[MoveStep::Forward(1.0)], 6.0);
        assert_eq!(r.starts_in, vec![("Woods".to_string(), DisorderType::B)]);
        assert!(r.disorder.is_empty(), "no new terrain");
    }

    fn fence(impassable_to_artillery: bool) -> Terrain {
        Terrain::Obstacle { name: "Fence".into(), kind: ObstacleKind::Fence, path: vec![[0.0, 12.0], [48.0, 12.0]], impassable_to_artillery }
    }

    #[test]
    fn linear_obstacles_cost_per_rank() {
        // OTP 6.7: 1" a rank for infantry, 2" for mounted cavalry and limbered guns; a column
        // crosses rank by rank; the scenario names obstacles guns cannot cross.
        let r = plan(&with_terrain(vec![line()], vec![fence(false)]), &[MoveStep::Forward(4.0)], 6.0);
        assert!(r.legal() && close(r.spent, 5.0), "{r:?}");
        let horse = UnitInfo::sketch("Horse", 0, UnitType::Line, Arm::Cavalry, None, 8, Formation::Line, v(20.0, 10.0), 0.0);
        assert!(close(plan(&with_terrain(vec![horse], vec![fence(false)]), &[MoveStep::Forward(4.0)], 6.0).spent, 6.0));
        let s = with_terrain(vec![column(20.0)], vec![fence(false)]);
        assert_eq!(section(&plan(&s, &[MoveStep::Forward(4.0)], 6.0)), "6.1", "4\" and three ranks at 1\"");
        assert!(close(plan(&s, &[MoveStep::Forward(4.0)], 8.0).spent, 7.0));
        let guns = UnitInfo::battery("Guns", 0, GunSize::Light, 2, Formation::Limbered, v(20.0, 11.0), 0.0);
        assert_eq!(section(&plan(&with_terrain(vec![guns.clone()], vec![fence(true)]), &[MoveStep::Forward(3.0)], 12.0)), "6.7");
        assert!(close(plan(&with_terrain(vec![guns], vec![fence(false)]), &[MoveStep::Forward(3.0)], 12.0).spent, 5.0));
    }

    #[test]
    fn road_bonus_only_for_a_column_on_the_road() {
        // OTP 5.1, 6.1: a unit must be in march column, on the road, for the road bonus.
        let road = || vec![Terrain::Road { name: "Pike".into(), path: vec![[20.0, 0.0], [20.0, 40.0]], width: 1.0 }];
        let allowance = Allowance { full: 6.0, road: Some(12.0) };
        let r = plan_move(&with_terrain(vec![column(20.0)], road()), 0, &[MoveStep::Forward(9.0)], allowance, &OTP);
        assert!(r.legal() && r.road_bonus && r.allowance == 12.0, "{r:?}");
        let r = plan_move(&with_terrain(vec![line()], road()), 0, &[MoveStep::Forward(9.0)], allowance, &OTP);
        assert!(!r.legal() && r.problem.unwrap().reason.contains("5.1"));
        let r = plan_move(&with_terrain(vec![column(30.0)], road()), 0, &[MoveStep::Forward(9.0)], allowance, &OTP);
        assert!(!r.legal() && !r.road_bonus);
    }

    #[test]
    fn towns_only_in_column() {
        // OTP 6.13: through towns by march column only; skirmishers as type D terrain.
        let town = || vec![Terrain::Town { name: "Town".into(), outline: rect(14.0, 13.0, 26.0, 20.0), capacity: 5 }];
        assert_eq!(section(&plan(&with_terrain(vec![line()], town()), &[MoveStep::Forward(4.0)], 6.0)), "6.13");
        let r = plan(&with_terrain(vec![column(20.0)], town()), &[MoveStep::Forward(4.0)], 6.0);
        assert!(r.legal() && r.disorder.is_empty(), "towns are not disordering terrain");
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, None, 6, Formation::Skirmish, v(20.0, 10.0), 0.0);
        let r = plan(&with_terrain(vec![lights], town()), &[MoveStep::Forward(4.0)], 6.0);
        assert_eq!(r.disorder[0].disorder, DisorderType::D);
        let deployed = UnitInfo::foot("Deployed", 0, 8, Formation::Line, v(20.0, 16.0), 180.0);
        assert!(plan(&with_terrain(vec![deployed], town()), &[MoveStep::Forward(5.0)], 6.0).legal(), "a unit in the town may leave it");
        let house = Terrain::Building { name: "House".into(), at: [20.0, 14.0], size: [2.0, 2.0], facing: 0.0, construction: Construction::Wood, capacity: 1 };
        assert_eq!(section(&plan(&with_terrain(vec![column(20.0)], vec![house]), &[MoveStep::Forward(4.0)], 6.0)), "6.13");
    }

    #[test]
    fn rivers_only_at_fords() {
        // OTP 6.6 (and the scenario's river): fords are type B; elsewhere a river is impassable.
        let river = || vec![Terrain::Stream { name: "River".into(), kind: StreamKind::River, path: vec![[0.0, 13.0], [48.0, 13.0]], width: 1.0, fords: vec![Ford { at: [20.0, 13.0], width: 3.0 }] }];
        let r = plan(&with_terrain(vec![column(20.0)], river()), &[MoveStep::Forward(5.0)], 6.0);
        assert!(r.legal() && r.disorder[0].disorder == DisorderType::B, "{r:?}");
        assert_eq!(section(&plan(&with_terrain(vec![column(30.0)], river()), &[MoveStep::Forward(5.0)], 6.0)), "6.6");
    }

    #[test]
    fn retreat_straight_away_naming_friends_in_the_way() {
        // OTP 6.11: away from the enemy, keeping frontage; a friendly unit in the way rolls.
        let support = UnitInfo::foot("Support", 0, 16, Formation::Line, v(20.0, 6.0), 0.0);
        let s = table(vec![line(), enemy(20.0, 14.0), support]);
        let r = retreat(&s, 0, 1, 6.0);
        assert!(close(r.bearing, 180.0), "{r:?}");
        assert_eq!(r.in_the_way.len(), 1);
        let w = &r.in_the_way[0];
        assert!(w.friendly && w.unit == "Support" && w.after > 3.25 && w.after <= 3.5 + 1e-3, "{w:?}");
        assert!(close(r.stands[0].centre.y, 9.625 - 6.0) && close(r.stands[0].facing, 0.0));
    }

    #[test]
    fn a_friend_swept_along_keeps_its_facing_and_meets_what_is_behind() {
        // OTP 6.11: a friendly unit that fails its CV roll moves with the retreat, straight on.
        let support = UnitInfo::foot("Support", 0, 16, Formation::Line, v(20.0, 6.0), 0.0);
        let rear = UnitInfo::foot("Rear", 0, 16, Formation::Line, v(20.0, 2.0), 0.0);
        let s = table(vec![line(), enemy(20.0, 14.0), support, rear]);
        let r = shift_path(&s, 2, v(0.0, -1.0), 2.0);
        assert!(close(r.stands[0].centre.y, 5.625 - 2.0) && close(r.stands[0].facing, 0.0), "{r:?}");
        assert!(r.in_the_way.is_empty(), "{r:?}");
        let r = shift_path(&s, 2, v(0.0, -1.0), 4.0);
        assert_eq!(r.in_the_way.first().map(|w| w.unit.as_str()), Some("Rear"));
    }

    #[test]
    fn commanders_ride_as_skirmishers() {
        // OTP 6.12 (optional): 1" for each linear obstruction crossed; inches in disordering
        // terrain count double; open ground costs its length.
        let wall = Terrain::Obstacle { name: "Wall".into(), kind: ObstacleKind::StoneWall, path: vec![[10.0, 0.0], [10.0, 40.0]], impassable_to_artillery: false };
        let s = with_terrain(vec![line()], vec![wall, woods(WoodsDensity::Regular, rect(20.0, 0.0, 24.0, 40.0))]);
        assert!(close(commander_ride_cost(&s, v(0.0, 30.0), v(8.0, 30.0)), 8.0));
        assert!(close(commander_ride_cost(&s, v(0.0, 30.0), v(12.0, 30.0)), 13.0));
        assert!(close(commander_ride_cost(&s, v(12.0, 30.0), v(26.0, 30.0)), 18.0));
    }

    /// 16 light infantry in skirmish line, front centred on (20, 10): eight 1" stands 2" apart (5.3).
    fn skirmishers() -> UnitInfo {
        UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(crate::scenario::model::Weapon::Musket), 16, Formation::Skirmish, v(20.0, 10.0), 0.0)
    }

    /// Stand `k` of `u` moved by `by`, turned to `facing`.
    fn nudge(u: &UnitInfo, k: usize, by: Vec2, facing: f32) -> StandMove {
        StandMove { stand: k, to: u.stands[k].footprint.centre + by, facing }
    }

    #[test]
    fn skirmish_stands_move_one_by_one() {
        // OTP 5.3: skirmishers measure movement from each stand; 6.4: each stand is moved
        // independently, conforming to cover at no extra cost. The longest path counts.
        let u = skirmishers();
        let s = table(vec![u.clone()]);
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 1, v(0.0, 2.0), 0.0), nudge(&u, 2, v(0.0, 1.0), 20.0)])], 6.0);
        assert!(r.legal(), "{:?}", r.problem);
        assert!(close(r.spent, 2.0), "the longest stand's path: {}", r.spent);
        assert!(close(r.stands[1].centre.y, u.stands[1].footprint.centre.y + 2.0) && close(r.stands[2].facing, 20.0));
        assert_eq!(r.stands[0], u.stands[0].footprint, "the others stay");
        assert_eq!(r.stands[3], u.stands[3].footprint);
        // Turning a stand in place to face cover costs nothing (6.4).
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 3, Vec2::ZERO, 330.0)])], 6.0);
        assert!(r.legal() && r.spent == 0.0, "{r:?}");
        // 6.7: a stand crossing a fence pays its own inch (a skirmish line is one rank).
        let s = with_terrain(vec![u.clone()], vec![fence(false)]);
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 1, v(0.0, 2.5), 0.0), nudge(&u, 2, v(0.0, 1.0), 0.0)])], 6.0);
        assert!(r.legal() && close(r.spent, 3.5), "{r:?}");
    }

    #[test]
    fn skirmish_stands_keep_one_line() {
        // OTP 5.3: stands 1" to 3" apart, one rank; a stand dragged 4" from its neighbour is refused.
        let u = skirmishers();
        let s = table(vec![u.clone()]);
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 0, v(-2.0, 0.0), 0.0)])], 6.0);
        let p = r.problem.clone().expect("too far apart");
        assert_eq!(p.section, "5.3");
        assert!(p.reason.contains("stands 0 and 1"), "{}", p.reason);
        assert_eq!(r.stands, u.footprints(), "nothing moved");
        // Closer than 1", or on top of a neighbour.
        assert_eq!(section(&plan(&s, &[MoveStep::Stands(vec![nudge(&u, 0, v(1.5, 0.0), 0.0)])], 6.0)), "5.3");
        assert_eq!(section(&plan(&s, &[MoveStep::Stands(vec![nudge(&u, 0, v(4.0, 0.0), 0.0)])], 6.0)), "5.3");
        // OTP 6.1: each stand moves up to the allowance.
        let all = |d: f32| MoveStep::Stands((0..u.stands.len()).map(|k| nudge(&u, k, v(0.0, d), 0.0)).collect());
        let r = plan(&s, &[all(7.0)], 6.0);
        assert_eq!(section(&r), "6.1");
        let r = plan(&s, &[all(6.0)], 6.0);
        assert!(r.legal() && close(r.spent, 6.0), "every stand 6\" is a 6\" move: {r:?}");
        // 5.3: only a skirmish line moves stand by stand.
        let r = plan(&table(vec![line()]), &[MoveStep::Stands(vec![StandMove { stand: 0, to: v(17.0, 11.0), facing: 0.0 }])], 6.0);
        assert_eq!(section(&r), "5.3");
    }

    #[test]
    fn skirmish_stands_do_not_interpenetrate() {
        // OTP 6.5: each stand's own path is swept against other units.
        let u = skirmishers();
        let x = u.stands[1].footprint.centre.x;
        let s = table(vec![u.clone(), enemy(x, 12.0)]);
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 1, v(0.0, 4.0), 0.0)])], 6.0);
        let p = r.problem.expect("blocked");
        assert_eq!(p.section, "6.5");
        assert!(p.reason.contains("stand 1") && p.reason.contains("Enemy"), "{}", p.reason);
        // The stand beside it goes by.
        let r = plan(&s, &[MoveStep::Stands(vec![nudge(&u, 3, v(0.0, 2.0), 0.0)])], 6.0);
        assert!(r.legal(), "{:?}", r.problem);
    }
}
