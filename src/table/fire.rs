//! Who can fire at whom: per stand, range and arc and sight; the nearest-target preference and
//! split fire (OTP 8.1); the eligibility matrix; friends in an arc within a reach (OTP 8.4's
//! canister restriction). Who fires from where, how far and how distances are measured are the
//! rule set's ([`FireRules`]).

use bevy::math::Vec2;
use serde::Serialize;

use super::arc::{Arc, FireMode};
use super::aspect::{behind_lines, unit_enfilades};
use super::geom::{Aabb, EPS, apart_distance, convex_distance};
pub use super::range::FireRules;
use super::range::{stand_to_unit, within, within_range};
use super::sight::{Scratch, Sight, SightOptions, WoodsOnLine, nearest_first, prepare, stand_sight, woodiest};
use super::situation::{Situation, StandRec, UnitInfo};

/// What the rules engine has decided before the geometry is asked.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FireOptions {
    /// The rule set's fire rules.
    #[serde(skip)]
    pub rules: &'static FireRules,
    /// OTP 7.3 elevation bonus: inches added to artillery's long range (0 unless granted).
    pub extra_range: f32,
    /// OTP 8.9 artillery firing ball fires over units on lower ground.
    pub ball: bool,
}

impl PartialEq for FireOptions {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.rules, other.rules) && self.extra_range == other.extra_range && self.ball == other.ball
    }
}

impl FireOptions {
    /// No extra range, small-arms or canister sight.
    pub fn new(rules: &'static FireRules) -> Self {
        FireOptions { rules, extra_range: 0.0, ball: false }
    }

    fn sight(&self) -> SightOptions {
        SightOptions { ball: self.ball, ..SightOptions::default() }
    }
}

/// One firing stand against one target unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StandFire {
    /// Index of the stand in its unit.
    pub stand: usize,
    pub figures: u32,
    /// Edge to edge, to the nearest part of the target.
    pub range: f32,
    /// Some of the target is inside the arc this stand fires through (8.1).
    pub in_arc: bool,
    /// Some of the target inside the arc is within this stand's range (8.1); never for a unit
    /// that cannot fire (8.13 column, limbered guns).
    pub bears: bool,
    /// The stand's sight of the target (8.8); None where it was not needed (not bearing, in the
    /// eligibility sweep).
    pub sight: Option<Sight>,
    /// The stand's centre is behind the target's front line (8.11).
    pub enfilade: bool,
}

impl StandFire {
    /// Bears and sees: its figures count in the fire (8.1, 8.8).
    pub fn can_fire(&self) -> bool {
        self.bears && self.sight.as_ref().is_some_and(|s| s.clear)
    }
}

/// One unit against one target unit, stand by stand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FireGeometry {
    pub firer: usize,
    pub target: usize,
    pub mode: FireMode,
    /// From the nearest stand of the firer, edge to edge.
    pub range: f32,
    pub in_range: bool,
    pub in_arc: bool,
    pub stands: Vec<StandFire>,
}

impl FireGeometry {
    pub fn bearing(&self) -> impl Iterator<Item = &StandFire> {
        self.stands.iter().filter(|s| s.bears)
    }
    pub fn firing(&self) -> impl Iterator<Item = &StandFire> {
        self.stands.iter().filter(|s| s.can_fire())
    }
    pub fn figures_firing(&self) -> u32 {
        self.firing().map(|s| s.figures).sum()
    }
    /// The stands a unit-level answer speaks for: those that bear, or all when none do.
    pub fn considered(&self) -> Vec<&StandFire> {
        self.considering().collect()
    }
    /// [`FireGeometry::considered`], one by one.
    fn considering(&self) -> impl Iterator<Item = &StandFire> {
        let any = self.bearing().next().is_some();
        self.stands.iter().filter(move |s| s.bears || !any)
    }
    /// 8.8: some considered stand sees the target.
    pub fn los_clear(&self) -> bool {
        self.considered().iter().any(|s| s.sight.as_ref().is_some_and(|v| v.clear))
    }
    /// 8.7: the woods on the sight line that decides the visibility roll: of the considered
    /// stands' clear lines (each stand's crossing the least woods), the one crossing the most.
    pub fn woods_in(&self) -> f32 {
        self.woodiest().map_or(0.0, |v| v.woods.total())
    }
    /// 8.7: that line's woods feature by feature, by their own names.
    pub fn woods_on_line(&self) -> Vec<WoodsOnLine> {
        self.woodiest().map(|v| v.woods_on_line.clone()).unwrap_or_default()
    }
    fn woodiest(&self) -> Option<&Sight> {
        woodiest(self.considering().filter_map(|s| s.sight.as_ref()))
    }
    /// 8.8: what blocks the considered stands' sight, nearest first (empty when clear).
    pub fn blocked_by(&self) -> Vec<String> {
        if self.los_clear() {
            return Vec::new();
        }
        let mut names: Vec<String> = Vec::new();
        for n in self.considered().iter().filter_map(|s| s.sight.as_ref()).flat_map(|v| v.blocked_by.iter()) {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        names
    }
    /// 8.11: every considered stand is behind the target's front line.
    pub fn enfilade(&self, s: &Situation) -> bool {
        unit_enfilades(s, self.firer, self.considering().map(|f| f.stand), self.target)
    }
}

/// The stand-by-stand work behind every fire question. With `report`, every stand's sight is
/// traced and blockers named; without, only bearing stands look, and stop at the first clear line.
/// `arcs` are the firer's stands' arcs ([`arcs_of`]), worked out once by callers that assess many targets.
/// `stands` is space for the answer's stands (emptied first), so a sweep can reuse one.
#[allow(clippy::too_many_arguments)]
pub(crate) fn assess(s: &Situation, sc: &mut Scratch, firer: usize, target: usize, opts: FireOptions, report: bool, arcs: &[Option<Arc>], mut stands: Vec<StandFire>) -> FireGeometry {
    let fu = s.unit(firer);
    let rules = opts.rules;
    let mode = (rules.mode)(fu);
    let max = reach_of(fu, opts);
    // 8.11: the target's front lines, for every stand's enfilade.
    let (fronts, n) = front_lines_of(s, target);
    let fronts = &fronts[..n];
    let mut prepared = false;
    stands.clear();
    stands.reserve(fu.stands.len());
    for (i, st) in s.unit_stands(firer).iter().enumerate() {
        let range = stand_to_unit(s, (firer, i), target);
        let arc = arcs[i];
        let (mut in_arc, mut bears) = (false, false);
        // A stand farther than its range from the whole target cannot bear on any part of it.
        let may_bear = max.is_some_and(|m| within(rules, range, m));
        for ts in s.unit_stands(target) {
            let Some(arc) = arc else { break };
            if bears || (in_arc && !may_bear) {
                break;
            }
            arc.clip(&ts.corners, &mut sc.clip, &mut sc.tmp);
            if sc.clip.is_empty() {
                continue;
            }
            in_arc = true;
            // Boxes apart need no overlap test (as `stand_to_unit`).
            let distance = || if st.bbox.gap_squared(&Aabb::of(&sc.clip)) > EPS * EPS { apart_distance(&st.corners, &sc.clip) } else { convex_distance(&st.corners, &sc.clip) };
            bears |= may_bear && max.is_some_and(|m| within(rules, distance(), m));
        }
        let sight = (report || bears).then(|| {
            if !prepared {
                prepare(s, sc, firer, target);
                prepared = true;
            }
            stand_sight(s, sc, firer, i, opts.sight(), report)
        });
        stands.push(StandFire { stand: i, figures: fu.stands[i].figures, range, in_arc, bears, sight, enfilade: behind_lines(fronts, st.footprint.centre) });
    }
    let range = stands.iter().map(|f| f.range).fold(f32::INFINITY, f32::min);
    FireGeometry { firer, target, mode, range, in_range: within_range(rules, fu, range, opts.extra_range), in_arc: stands.iter().any(|f| f.in_arc), stands }
}

/// Each stand's arc (8.1): its own or its unit's ([`Arc::of_unit`]), by the firer's fire mode.
fn arcs_of(s: &Situation, firer: usize, opts: FireOptions, out: &mut Vec<Option<Arc>>) {
    let fu = s.unit(firer);
    out.clear();
    if (opts.rules.mode)(fu) == FireMode::PerStand {
        out.extend(fu.stands.iter().map(|st| Some(Arc::of_stand(&st.footprint))));
    } else {
        let arc = Arc::of_unit(fu);
        out.extend(fu.stands.iter().map(|_| arc));
    }
}

/// [`super::aspect::front_lines`] of a unit from the table's stands, whose forward vectors are worked out
/// already (the same numbers to the bit: `Footprint::front_centre`'s arithmetic), without a list.
fn front_lines_of(s: &Situation, unit: usize) -> ([(Vec2, Vec2); 2], usize) {
    let line = |st: &StandRec| (st.footprint.centre + st.forward * (st.footprint.depth / 2.0), st.forward);
    let stands = s.unit_stands(unit);
    match stands {
        [] => ([(Vec2::ZERO, Vec2::ZERO); 2], 0),
        [only] => ([line(only); 2], 1),
        [first, ..] if s.unit(unit).in_column() => ([line(first); 2], 1),
        [first, .., last] => ([line(first), line(last)], 2),
    }
}

/// The longest the unit fires (None for a unit that cannot fire at all).
fn reach_of(fu: &UnitInfo, opts: FireOptions) -> Option<f32> {
    (opts.rules.reach)(fu, opts.extra_range).filter(|_| (opts.rules.mode)(fu) != FireMode::None)
}

/// True when no stand of `target` can be within `max` of any of `firer`'s, by the units'
/// bounding circles, an inch to spare: rounding up (OTP 8.4) reaches up to an inch beyond the
/// nominal range, and no rule set measures a distance shorter than it is.
fn beyond_reach(s: &Situation, firer: usize, target: usize, max: f32) -> bool {
    let ((_, cf, rf), (_, ct, rt)) = (&s.spans[firer], &s.spans[target]);
    // The boxes as well: a line's circle is as wide as its front, its box hardly deeper than a stand.
    cf.distance(*ct) - rf - rt > max + 1.0 || s.boxes[firer].gap_squared(&s.boxes[target]) > (max + 1.0) * (max + 1.0)
}

/// Everything about one unit firing on another, every stand's sight traced and blockers named.
pub fn fire_geometry(s: &Situation, firer: usize, target: usize, opts: FireOptions) -> FireGeometry {
    let mut arcs = Vec::new();
    arcs_of(s, firer, opts, &mut arcs);
    assess(s, &mut Scratch::default(), firer, target, opts, true, &arcs, Vec::new())
}

/// One cell of the eligibility matrix: a firer and an enemy unit within its range.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Eligible {
    pub firer: usize,
    pub target: usize,
    pub range: f32,
    pub in_arc: bool,
    pub stands_bearing: u32,
    pub figures_bearing: u32,
    /// Bearing and with a clear line of sight: the figures that fire (8.1, 8.8).
    pub stands_firing: u32,
    pub figures_firing: u32,
    pub woods_in: f32,
    pub enfilade: bool,
}

/// The eligibility matrix: every unit that can fire against every enemy unit within its range
/// (pairs not listed are out of range, or the firer cannot fire: 8.13 column, no weapon).
/// Units farther apart than the firer's range are culled by bounding circles before any
/// stand is looked at.
pub fn eligibility(s: &Situation, opts: FireOptions) -> Vec<Eligible> {
    let mut sc = Scratch::default();
    let mut out = Vec::new();
    let mut near: Vec<usize> = Vec::new();
    let (mut stands, mut arcs) = (Vec::new(), Vec::new());
    for (f, fu) in s.units().iter().enumerate() {
        let Some(max) = reach_of(fu, opts) else { continue };
        let (_, cf, rf) = s.spans[f];
        // Only units whose circle is within reach of the firer's can be in range: the grid of
        // units finds them, and they are taken in the table's order as before.
        near.clear();
        s.unit_grid.query(Aabb { min: cf, max: cf }.grow(rf + max + 1.0), |t| {
            if s.unit(t).side != fu.side && !beyond_reach(s, f, t, max) {
                near.push(t);
            }
        });
        near.sort_unstable();
        arcs_of(s, f, opts, &mut arcs);
        for &t in &near {
            let g = assess(s, &mut sc, f, t, opts, false, &arcs, std::mem::take(&mut stands));
            if g.in_range {
                let count = |it: &mut dyn Iterator<Item = &StandFire>| it.fold((0, 0), |(n, k), x| (n + 1, k + x.figures));
                let (stands_bearing, figures_bearing) = count(&mut g.bearing());
                let (stands_firing, figures_firing) = count(&mut g.firing());
                // 8.11 as `FireGeometry::enfilade`: each stand's flag was worked out from the same front lines.
                let mut considered = g.considering().peekable();
                let enfilade = considered.peek().is_some() && considered.all(|x| x.enfilade);
                out.push(Eligible { firer: f, target: t, range: g.range, in_arc: g.in_arc, stands_bearing, figures_bearing, stands_firing, figures_firing, woods_in: g.woods_in(), enfilade });
            }
            stands = g.stands;
        }
    }
    out
}

/// A target some of a unit's stands can fire on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetChoice {
    pub target: usize,
    pub name: String,
    pub range: f32,
    /// The stands (indices in the firing unit) that bear on it and see it.
    pub stands: Vec<usize>,
    pub figures: u32,
}

/// Every enemy unit at least one stand can fire on, nearest first (8.1: "the closest target
/// should be fired at in preference to a further target").
pub fn targets(s: &Situation, firer: usize, opts: FireOptions) -> Vec<TargetChoice> {
    let mut sc = Scratch::default();
    let side = s.unit(firer).side;
    // A unit beyond the firer's reach has no stand bearing on it (so none firing): only those
    // within it are assessed.
    let Some(max) = reach_of(s.unit(firer), opts) else { return Vec::new() };
    let mut arcs = Vec::new();
    arcs_of(s, firer, opts, &mut arcs);
    let mut list: Vec<TargetChoice> = (0..s.units().len())
        .filter(|&t| s.unit(t).side != side && !beyond_reach(s, firer, t, max))
        .map(|t| assess(s, &mut sc, firer, t, opts, false, &arcs, Vec::new()))
        .filter(|g| g.firing().next().is_some())
        .map(|g| TargetChoice {
            target: g.target,
            name: s.unit(g.target).name.clone(),
            range: g.range,
            stands: g.firing().map(|f| f.stand).collect(),
            figures: g.figures_firing(),
        })
        .collect();
    list.sort_by(|a, b| a.range.total_cmp(&b.range).then(a.target.cmp(&b.target)));
    list
}

/// 8.1: the target a unit should fire on: the closest eligible one.
pub fn nearest_target(s: &Situation, firer: usize, opts: FireOptions) -> Option<TargetChoice> {
    targets(s, firer, opts).into_iter().next()
}

/// 8.1 split fire: every stand that can fire on the nearest eligible target fires on it; a unit
/// may fire at more than one target only when its stands cannot all fire at the same one, so
/// each remaining stand takes its own nearest target. One entry a target, nearest first.
pub fn split_fire(s: &Situation, firer: usize, opts: FireOptions) -> Vec<TargetChoice> {
    let choices = targets(s, firer, opts);
    let Some(first) = choices.first() else { return Vec::new() };
    let mut out = vec![first.clone()];
    let unit = s.unit(firer);
    for stand in 0..unit.stands.len() {
        if first.stands.contains(&stand) {
            continue;
        }
        let best = choices
            .iter()
            .filter(|c| c.stands.contains(&stand))
            .min_by(|a, b| stand_to_unit(s, (firer, stand), a.target).total_cmp(&stand_to_unit(s, (firer, stand), b.target)));
        let Some(best) = best else { continue };
        let figures = unit.stands[stand].figures;
        match out.iter_mut().find(|c| c.target == best.target) {
            Some(c) => {
                c.stands.push(stand);
                c.figures += figures;
            }
            None => out.push(TargetChoice { stands: vec![stand], figures, ..best.clone() }),
        }
    }
    out
}

/// Friendly units with some part inside `arc` and within `reach` inches of `unit` (as the rules
/// measure), nearest first: what masks a gun's canister (OTP 8.4).
pub fn friends_in_arc_within(s: &Situation, unit: usize, arc: &Arc, rules: &FireRules, reach: f32) -> Vec<String> {
    let (gun, unit) = (unit, s.unit(unit));
    let (mut clip, mut tmp) = (Vec::new(), Vec::new());
    let mut found: Vec<(f32, String)> = Vec::new();
    for (u, friend) in s.units().iter().enumerate() {
        if u == gun || friend.side != unit.side {
            continue;
        }
        for ts in s.unit_stands(u) {
            arc.clip(&ts.corners, &mut clip, &mut tmp);
            if clip.is_empty() {
                continue;
            }
            let d = s.unit_stands(gun).iter().map(|g| convex_distance(&g.corners, &clip)).fold(f32::INFINITY, f32::min);
            if within(rules, d, reach) {
                found.push((d, friend.name.clone()));
            }
        }
    }
    nearest_first(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::fire::range::{FIRE, canister_masked_by, fire_mode};
    use crate::scenario::model::{Arm, Formation, GunSize, UnitType, Weapon};
    use crate::table::situation::UnitInfo;
    use crate::table::testing::{table, v};

    /// 16 muskets in line, front from (16, 10) to (24, 10), facing up the table.
    fn firer() -> UnitInfo {
        UnitInfo::foot("Firer", 0, 16, Formation::Line, v(20.0, 10.0), 0.0)
    }

    /// One 2" stand facing down the table, front edge centred on (x, y).
    fn stand(name: &str, x: f32, y: f32) -> UnitInfo {
        UnitInfo::foot(name, 1, 4, Formation::Line, v(x, y), 180.0)
    }

    fn bearing(s: &Situation) -> Vec<usize> {
        fire_geometry(s, 0, 1, FireOptions::new(&FIRE)).bearing().map(|f| f.stand).collect()
    }

    #[test]
    fn stands_within_range_of_the_target_bear() {
        // OTP 8.1, 8.3: a stand bears when part of the target is in its arc and within 6".
        // Target front 16"-18" at 5" range: stands 0 and 1 at 5", stand 2 at 5.39" (6" after
        // rounding up), stand 3 at 6.40" (7") is out.
        let s = table(vec![firer(), stand("Target", 17.0, 15.0)]);
        assert_eq!(bearing(&s), vec![0, 1, 2]);
        let g = fire_geometry(&s, 0, 1, FireOptions::new(&FIRE));
        assert!((g.stands[3].range - 41f32.sqrt()).abs() < 1e-3);
        assert_eq!(g.figures_firing(), 12);
        assert!(g.in_range && g.in_arc);
    }

    /// A rule set of its own: every unit fires 12", measured exactly, always from the unit's front.
    static LONG: FireRules = FireRules { mode: |_| FireMode::Unit, reach: |_, extra| Some(12.0 + extra), measure: |d| d };

    #[test]
    fn the_rule_set_supplies_reach_measure_and_mode() {
        // 8" straight ahead: beyond OTP's muskets (8.3: 6"), within this set's 12".
        let s = table(vec![firer(), stand("Target", 20.0, 18.0)]);
        assert!(!fire_geometry(&s, 0, 1, FireOptions::new(&FIRE)).in_range);
        let g = fire_geometry(&s, 0, 1, FireOptions::new(&LONG));
        assert!(g.in_range && g.figures_firing() > 0, "{g:?}");
        // A march column fires in this set (OTP 8.13: it does not).
        let col = UnitInfo::foot("Column", 0, 16, Formation::Column, v(20.0, 10.0), 0.0);
        let s = table(vec![col, stand("Target", 20.0, 13.0)]);
        assert!(fire_geometry(&s, 0, 1, FireOptions::new(&FIRE)).bearing().next().is_none());
        assert!(fire_geometry(&s, 0, 1, FireOptions::new(&LONG)).bearing().next().is_some());
    }

    #[test]
    fn a_target_behind_is_out_of_arc() {
        // OTP 8.1: arcs are in front. 4.25" behind the rear edge is in range, but no stand bears.
        let s = table(vec![firer(), UnitInfo::foot("Behind", 1, 4, Formation::Line, v(20.0, 5.0), 0.0)]);
        let g = fire_geometry(&s, 0, 1, FireOptions::new(&FIRE));
        assert!(g.in_range && !g.in_arc);
        assert!(bearing(&s).is_empty());
    }

    #[test]
    fn arc_is_45_degrees_from_the_ends() {
        // OTP 8.1: the left edge of the arc runs from (16, 10) at 45° outward: x + y >= 26.
        // A stand whose rear corner reaches x + y = 26.375 is (just) in arc; 0.5" further left
        // (x + y <= 25.875) it is not, though it is still in range.
        let inside = table(vec![firer(), stand("Target", 11.0, 13.625)]);
        let g = fire_geometry(&inside, 0, 1, FireOptions::new(&FIRE));
        assert!(g.in_arc && g.stands[0].bears);
        let outside = table(vec![firer(), stand("Target", 10.5, 13.625)]);
        let g = fire_geometry(&outside, 0, 1, FireOptions::new(&FIRE));
        assert!(!g.in_arc && g.in_range, "{g:?}");
    }

    #[test]
    fn skirmishers_measure_arcs_from_each_stand() {
        // OTP 5.3, 8.1: a skirmish line's arcs are each stand's own. Three 1" rifle stands with 2"
        // gaps; a target off the right end is in the right stand's arc only. The same stands
        // as a formed unit would let the middle stand bear too (within 9" and the unit's arc).
        let mut lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 6, Formation::Skirmish, v(20.0, 10.0), 0.0);
        let target = stand("Target", 27.0, 13.0);
        let s = table(vec![lights.clone(), target.clone()]);
        assert_eq!(fire_mode(s.unit(0)), FireMode::PerStand);
        assert_eq!(bearing(&s), vec![2]);
        lights.formation = Formation::LooseOrder;
        let s = table(vec![lights, target]);
        assert_eq!(bearing(&s), vec![1, 2]);
    }

    #[test]
    fn bent_line_fires_by_stand() {
        // OTP 8.1: "or stands for a bent line" (6.4).
        let mut f = firer();
        f.stands[3].footprint.facing = 45.0;
        assert_eq!(fire_mode(&f), FireMode::PerStand);
        assert_eq!(fire_mode(&firer()), FireMode::Unit);
    }

    #[test]
    fn column_cannot_fire() {
        // OTP 8.13: units in column cannot fire; the geometry still says the target is ahead.
        let col = UnitInfo::foot("Column", 0, 16, Formation::Column, v(20.0, 10.0), 0.0);
        let s = table(vec![col, stand("Target", 20.0, 13.0)]);
        let g = fire_geometry(&s, 0, 1, FireOptions::new(&FIRE));
        assert!(g.in_arc && g.bearing().next().is_none());
        assert!(eligibility(&s, FireOptions::new(&FIRE)).iter().all(|e| e.firer != 0), "only the target fires");
    }

    #[test]
    fn nearest_target_first_and_split_fire() {
        // OTP 8.1: the closest target is preferred; stands that cannot fire on it may fire on
        // another. A (4.125" away) is in range of stands 0-2; B (5.04") only of stand 3.
        let s = table(vec![firer(), stand("A", 15.0, 14.125), stand("B", 27.0, 14.625)]);
        let opts = FireOptions::new(&FIRE);
        let list = targets(&s, 0, opts);
        assert_eq!(list.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), vec!["A", "B"]);
        assert_eq!(nearest_target(&s, 0, opts).unwrap().stands, vec![0, 1, 2]);
        let split = split_fire(&s, 0, opts);
        assert_eq!(split.len(), 2);
        assert_eq!((split[0].name.as_str(), split[0].figures), ("A", 12));
        assert_eq!((split[1].name.as_str(), split[1].stands.clone()), ("B", vec![3]));
    }

    #[test]
    fn canister_masked_by_friends_in_arc_and_short_range() {
        // OTP 8.4: no canister while any part of a friendly unit is within the gun's arc and
        // short range (medium guns 0-9"). A friend 6.25" ahead masks; one beside the guns or
        // 12" ahead does not.
        let gun = UnitInfo::battery("Guns", 0, GunSize::Medium, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        let friend = |name: &str, x: f32, y: f32| UnitInfo::foot(name, 0, 4, Formation::Line, v(x, y), 0.0);
        let s = table(vec![gun.clone(), friend("Ahead", 20.0, 17.0), friend("Beside", 26.0, 9.0), friend("Far", 20.0, 22.75)]);
        assert_eq!(canister_masked_by(&s, 0), vec!["Ahead".to_string()]);
        let s = table(vec![gun, friend("Beside", 26.0, 9.0), friend("Far", 20.0, 22.75)]);
        assert!(canister_masked_by(&s, 0).is_empty());
    }

    #[test]
    fn eligibility_lists_pairs_in_range_both_ways() {
        // OTP 8.1: every unit against every enemy in range; the target faces the firer, so
        // both can fire (four stands against one).
        let s = table(vec![firer(), stand("Target", 20.0, 14.0)]);
        let m = eligibility(&s, FireOptions::new(&FIRE));
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].firer, m[0].figures_firing, m[0].enfilade), (0, 16, false));
        assert_eq!((m[1].firer, m[1].stands_firing), (1, 1));
    }

    #[test]
    fn the_sweep_sees_as_the_full_trace_does() {
        // Issue 20: without a report (the eligibility matrix, targets), a bearing stand's sight
        // takes shortcuts: a stand that a wall of near stands surely blinds is not traced line
        // by line, and lines test only the stands near the wedge that holds the target. With a
        // report every line is traced. Stand by stand on the generated battle, turned and
        // shifted as well, small arms and ball, both say the same.
        let battle = crate::rules::otp::fire::battle::battle();
        let mut compared = 0;
        for s in [battle.clone(), battle.transformed(37.0, Vec2::new(-50.0, 80.0))] {
            for ball in [false, true] {
                let opts = FireOptions { ball, ..FireOptions::new(&FIRE) };
                let (mut sc, mut arcs) = (Scratch::default(), Vec::new());
                for f in 0..s.units().len() {
                    let Some(max) = reach_of(s.unit(f), opts) else { continue };
                    arcs_of(&s, f, opts, &mut arcs);
                    for t in (0..s.units().len()).filter(|&t| s.unit(t).side != s.unit(f).side && !beyond_reach(&s, f, t, max)) {
                        let quick = assess(&s, &mut sc, f, t, opts, false, &arcs, Vec::new());
                        let full = fire_geometry(&s, f, t, opts);
                        for (q, w) in quick.stands.iter().zip(&full.stands) {
                            let Some(v) = &q.sight else { continue };
                            let x = w.sight.as_ref().unwrap();
                            assert_eq!((v.clear, v.woods, v.to), (x.clear, x.woods, x.to), "{f} on {t}, stand {}, ball {ball}", q.stand);
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 2000, "only {compared} sights compared");
    }
}
