//! Cover as geometry over the terrain: what a stand is in, and what it is behind against fire
//! from given points. The classes each feature gives are the rule set's ([`CoverRules`]; OTP's
//! in `rules::otp::fire::cover`).
//!
//! - A stand is *in* woods, a town or a building when its whole footprint lies inside the
//!   outline (touching the edge counts).
//! - A stand is *behind* a fence, wall, barricade or breastwork when, from every firing stand,
//!   every sight line to the stand (to its corners and centre) crosses the obstacle within the
//!   rule set's reach of the stand: the obstacle lies between it and the firer, close in front.
//!   Fired on from a flank the obstacle is not in the way, and gives nothing.
//! - A unit has cover only when all its stands are in or behind cover; its class is the best
//!   one every stand has (each stand's best, then the least).
//! - A firing stand rests on an obstacle when the line from its centre to the nearest target
//!   stand crosses the obstacle within a reach of it: touching or just behind it, facing the target.

use bevy::math::Vec2;
use serde::Serialize;

use crate::picture::inside;
use crate::scenario::model::{Cover, Terrain};
use crate::table::footprint::Footprint;
use crate::table::geom::{EPS, convex_distance, point_segment_distance, segment_crossing};
use crate::table::situation::{Outline, Situation};

/// Slack for a stand placed exactly on an edge or an obstacle.
const EDGE: f32 = 0.01;

/// A rule set's cover: the class each terrain feature gives, and how close in front an
/// obstacle must lie to shelter a stand.
#[derive(Clone, Copy, Debug)]
pub struct CoverRules {
    pub class: fn(&Terrain) -> Option<Cover>,
    /// Inches in front of a stand an obstacle may lie and still shelter it.
    pub behind_reach: f32,
}

/// The cover a unit has against a firer, and the terrain that gives it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoverFound {
    pub class: Cover,
    /// The features the stands shelter in or behind, in terrain order.
    pub features: Vec<String>,
}

/// Distance from a point to a stand (0 inside it).
pub fn distance_to_stand(f: &Footprint, p: Vec2) -> f32 {
    if f.contains(p) {
        return 0.0;
    }
    let c = f.corners();
    (0..4).map(|i| point_segment_distance(p, c[i], c[(i + 1) % 4])).fold(f32::INFINITY, f32::min)
}

/// The whole footprint inside an area (corners pulled in by a hair, so touching the edge counts).
pub fn stand_within(poly: &[Vec2], f: &Footprint) -> bool {
    f.corners().iter().all(|&p| inside(poly, p + (f.centre - p).normalize_or_zero() * EDGE))
}

/// Segment a→b (lengthened by a hair at both ends) crosses the polyline within `reach` of `near`.
fn crosses_near(a: Vec2, b: Vec2, path: &[Vec2], near: &Footprint, reach: f32) -> bool {
    let dir = (b - a).normalize_or_zero() * EDGE;
    let (a, b) = (a - dir, b + dir);
    path.windows(2).any(|w| segment_crossing(a, b, w[0], w[1]).is_some_and(|t| distance_to_stand(near, a.lerp(b, t)) <= reach + EPS))
}

/// Points of a stand a sight line may reach: corners and centre.
fn samples(f: &Footprint) -> [Vec2; 5] {
    let c = f.corners();
    [c[0], c[1], c[2], c[3], f.centre]
}

/// Cover an obstacle gives a stand against fire from the points `from`: every line from every
/// firing point to the stand must cross an obstacle close in front of it (a fence and a wall
/// joined end to end shelter together); the class is the least along any line.
fn behind_cover(s: &Situation, rules: &CoverRules, f: &Footprint, from: &[Vec2]) -> Option<(Cover, Vec<usize>)> {
    if from.is_empty() {
        return None;
    }
    let mut least: Option<Cover> = None;
    let mut used = Vec::new();
    for &a in from {
        for p in samples(f) {
            let best = s
                .features()
                .iter()
                .filter_map(|feature| match (&s.terrain()[feature.index], &feature.outline) {
                    (t @ Terrain::Obstacle { .. }, Outline::Line(path)) if crosses_near(a, p, path, f, rules.behind_reach) => Some(((rules.class)(t)?, feature.index)),
                    _ => None,
                })
                .max_by_key(|&(class, _)| class)?;
            least = Some(least.map_or(best.0, |l| l.min(best.0)));
            used.push(best.1);
        }
    }
    Some((least?, used))
}

/// The best cover one stand has against fire from the points `from` (firing stands' centres):
/// in woods, a town or a building, or behind obstacles; with the indices of the terrain
/// features that give it.
pub fn stand_cover(s: &Situation, rules: &CoverRules, f: &Footprint, from: &[Vec2]) -> Option<(Cover, Vec<usize>)> {
    let inside = s.features().iter().filter_map(|feature| match (&s.terrain()[feature.index], &feature.outline) {
        (t @ (Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Building { .. }), Outline::Area(poly)) if stand_within(poly, f) => {
            Some(((rules.class)(t)?, vec![feature.index]))
        }
        _ => None,
    });
    inside.chain(behind_cover(s, rules, f, from)).max_by_key(|(class, _)| *class)
}

/// The cover of `unit` against fire from `from`: None unless every stand is in or behind
/// cover; otherwise the best class all of them have (OTP 8.6).
pub fn unit_cover(s: &Situation, rules: &CoverRules, unit: usize, from: &[Vec2]) -> Option<CoverFound> {
    let per: Vec<(Cover, Vec<usize>)> = s.unit(unit).stands.iter().map(|st| stand_cover(s, rules, &st.footprint, from)).collect::<Option<_>>()?;
    let class = per.iter().map(|(c, _)| *c).min()?;
    let mut used: Vec<usize> = per.into_iter().flat_map(|(_, i)| i).collect();
    used.sort_unstable();
    used.dedup();
    Some(CoverFound { class, features: used.into_iter().map(|i| s.terrain()[i].name().to_string()).collect() })
}

/// The town or building all of `unit`'s stands are inside, if any.
pub fn all_inside_town(s: &Situation, unit: usize) -> Option<String> {
    let u = s.unit(unit);
    if u.stands.is_empty() {
        return None;
    }
    s.features().iter().find_map(|feature| {
        let t = &s.terrain()[feature.index];
        let (Terrain::Town { .. } | Terrain::Building { .. }, Outline::Area(poly)) = (t, &feature.outline) else { return None };
        u.stands.iter().all(|st| stand_within(poly, &st.footprint)).then(|| t.name().to_string())
    })
}

/// Of the given stands of `firer`, those whose line from centre to the nearest stand of
/// `target` crosses an obstacle within `reach` of the stand, each with the obstacle's name
/// (OTP 8.10: resting weapons on it).
pub fn resting_stands(s: &Situation, firer: usize, stands: &[usize], target: usize, reach: f32) -> Vec<(usize, String)> {
    let (fu, tu) = (s.unit(firer), s.unit(target));
    let mut out = Vec::new();
    for &i in stands {
        let Some(st) = fu.stands.get(i) else { continue };
        let corners = st.footprint.corners();
        let nearest = tu.stands.iter().map(|t| (convex_distance(&corners, &t.footprint.corners()), t.footprint.centre)).min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, aim)) = nearest else { continue };
        let on = s.features().iter().find_map(|feature| match (&s.terrain()[feature.index], &feature.outline) {
            (Terrain::Obstacle { name, .. }, Outline::Line(path)) if crosses_near(st.footprint.centre, aim, path, &st.footprint, reach) => Some(name.clone()),
            _ => None,
        });
        if let Some(name) = on {
            out.push((i, name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Formation, ObstacleKind};
    use crate::table::situation::UnitInfo;
    use crate::table::testing::{v, with_terrain};

    /// A rule set of its own: every obstacle heavy cover, sheltering out to 3".
    static DEEP: CoverRules = CoverRules { class: |t| matches!(t, Terrain::Obstacle { .. }).then_some(Cover::Heavy), behind_reach: 3.0 };

    #[test]
    fn the_rule_set_gives_the_classes_and_the_reach() {
        // A fence 2.5" in front of the stands: beyond OTP's 1" (8.6) but within this set's 3",
        // and heavy by its classes where OTP's fence is light.
        let target = UnitInfo::foot("Target", 1, 8, Formation::Line, v(20.0, 20.0), 180.0);
        let fence = Terrain::Obstacle { name: "Fence".into(), kind: ObstacleKind::Fence, path: vec![[10.0, 17.5], [30.0, 17.5]], impassable_to_artillery: false };
        let s = with_terrain(vec![target], vec![fence]);
        let from = [v(19.0, 15.0), v(21.0, 15.0)];
        assert_eq!(unit_cover(&s, &DEEP, 0, &from).map(|c| c.class), Some(Cover::Heavy));
        let otp = CoverRules { behind_reach: 1.0, class: Terrain::cover };
        assert_eq!(unit_cover(&s, &otp, 0, &from), None);
    }
}
