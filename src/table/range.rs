//! Range: edge-to-edge distance between stands and units, and whether a distance is within a
//! reach as a rule set measures it. The reaches, bands and rounding are the rule set's
//! ([`FireRules`]; OTP's in `rules::otp::fire::range`).

use super::arc::FireMode;
use super::geom::{EPS, apart_distance, convex_distance};
use super::situation::{Situation, StandRec, UnitInfo};

/// A rule set's fire geometry rules (OTP's: `rules::otp::fire::range::FIRE`).
#[derive(Clone, Copy, Debug)]
pub struct FireRules {
    /// How a unit's arc is measured, by its formation (OTP 8.1).
    pub mode: fn(&UnitInfo) -> FireMode,
    /// The longest the unit fires, inches, with `extra` inches the rules engine granted; None
    /// for a unit without a weapon (OTP 8.3, 8.4).
    pub reach: fn(&UnitInfo, f32) -> Option<f32>,
    /// A distance as the rules measure it (OTP 8.4: partial inches round up).
    pub measure: fn(f32) -> f32,
}

/// True when `distance` is within `reach` inches, measured as the rule set measures.
pub fn within(rules: &FireRules, distance: f32, reach: f32) -> bool {
    (rules.measure)(distance) <= reach + EPS
}

/// True when a shot of `distance` is within the unit's reach (`extra` inches granted by the
/// rules engine), measured as the rule set measures.
pub fn within_range(rules: &FireRules, unit: &UnitInfo, distance: f32, extra: f32) -> bool {
    (rules.reach)(unit, extra).is_some_and(|max| within(rules, distance, max))
}

/// Edge-to-edge distance between one stand of each unit (stand indices within the units).
pub fn stand_distance(s: &Situation, a: (usize, usize), b: (usize, usize)) -> f32 {
    convex_distance(&s.unit_stands(a.0)[a.1].corners, &s.unit_stands(b.0)[b.1].corners)
}

/// Distance from one stand to the nearest part of a unit.
pub fn stand_to_unit(s: &Situation, stand: (usize, usize), unit: usize) -> f32 {
    let from = &s.unit_stands(stand.0)[stand.1];
    let to = s.unit_stands(unit);
    // Boxes first: the stand nearest by box is measured first, and a stand whose box is farther
    // than the best so far (an `EPS` to spare, so that ties are all measured and the least is the
    // same number whichever are) cannot be nearer. Boxes apart need no overlap test.
    let gap = |t: &StandRec| from.bbox.gap_squared(&t.bbox);
    let measure = |t: &StandRec, gap: f32| if gap > EPS * EPS { apart_distance(&from.corners, &t.corners) } else { convex_distance(&from.corners, &t.corners) };
    let Some(first) = to.iter().min_by(|a, b| gap(a).total_cmp(&gap(b))) else { return f32::INFINITY };
    let mut best = measure(first, gap(first));
    for t in to {
        let g = gap(t);
        if !std::ptr::eq(t, first) && g <= (best + EPS) * (best + EPS) {
            best = best.min(measure(t, g));
        }
    }
    best
}

/// Edge-to-edge distance between two units: their nearest stands.
pub fn unit_distance(s: &Situation, a: usize, b: usize) -> f32 {
    (0..s.unit(a).stands.len()).map(|i| stand_to_unit(s, (a, i), b)).fold(f32::INFINITY, f32::min)
}
