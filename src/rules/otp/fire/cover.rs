//! Cover (8.6, 6.13) and rest (8.10) as geometry over the scenario's terrain.
//!
//! - A stand is *in* woods, a town or a building when its whole footprint lies inside the
//!   outline (touching the edge counts).
//! - A stand is *behind* a fence, wall, barricade or breastwork when, from every firing stand,
//!   every sight line to the stand (to its corners and centre) crosses the obstacle within
//!   [`BEHIND_REACH`] of the stand: the obstacle lies between it and the firer, close in front.
//!   Fired on from a flank the obstacle is not in the way, and gives nothing.
//! - A unit has cover only when all its stands are in or behind cover (8.6: "all stands and
//!   figures"); its class is the best one every stand has (each stand's best, then the least).
//! - A firing stand rests on an obstacle (8.10) when the line from its centre to the nearest
//!   target stand crosses the obstacle within [`REST_REACH`] of it: touching or just behind it,
//!   facing the target.
//! - A unit is deployed in a town or building (6.13) when it is not in column and all its
//!   stands are inside one.

use bevy::math::Vec2;
use serde::Serialize;

use crate::picture::inside;
use crate::scenario::model::{Cover, Formation, Terrain};
use crate::table::footprint::Footprint;
use crate::table::geom::{EPS, convex_distance, point_segment_distance, segment_crossing};
use crate::table::situation::{Outline, Situation};

/// How far in front of a stand an obstacle may lie and still shelter it (inches).
pub const BEHIND_REACH: f32 = 1.0;
/// How close to a firing stand a fence, wall or breastwork must be to rest muskets on (inches).
pub const REST_REACH: f32 = 0.5;
/// Slack for a stand placed exactly on an edge or an obstacle.
const EDGE: f32 = 0.01;

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
fn behind_cover(s: &Situation, f: &Footprint, from: &[Vec2]) -> Option<(Cover, Vec<usize>)> {
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
                    (t @ Terrain::Obstacle { .. }, Outline::Line(path)) if crosses_near(a, p, path, f, BEHIND_REACH) => Some((t.cover()?, feature.index)),
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
pub fn stand_cover(s: &Situation, f: &Footprint, from: &[Vec2]) -> Option<(Cover, Vec<usize>)> {
    let inside = s.features().iter().filter_map(|feature| match (&s.terrain()[feature.index], &feature.outline) {
        (t @ (Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Building { .. }), Outline::Area(poly)) if stand_within(poly, f) => {
            Some((t.cover()?, vec![feature.index]))
        }
        _ => None,
    });
    inside.chain(behind_cover(s, f, from)).max_by_key(|(class, _)| *class)
}

/// 8.6: the cover of `unit` against fire from `from`: None unless every stand is in or behind
/// cover; otherwise the best class all of them have.
pub fn unit_cover(s: &Situation, unit: usize, from: &[Vec2]) -> Option<CoverFound> {
    let per: Vec<(Cover, Vec<usize>)> = s.unit(unit).stands.iter().map(|st| stand_cover(s, &st.footprint, from)).collect::<Option<_>>()?;
    let class = per.iter().map(|(c, _)| *c).min()?;
    let mut used: Vec<usize> = per.into_iter().flat_map(|(_, i)| i).collect();
    used.sort_unstable();
    used.dedup();
    Some(CoverFound { class, features: used.into_iter().map(|i| s.terrain()[i].name().to_string()).collect() })
}

/// 6.13: the town or building `unit` is deployed in: all its stands inside it, not in column.
pub fn deployed_in(s: &Situation, unit: usize) -> Option<String> {
    let u = s.unit(unit);
    if u.in_column() || u.stands.is_empty() {
        return None;
    }
    s.features().iter().find_map(|feature| {
        let t = &s.terrain()[feature.index];
        let (Terrain::Town { .. } | Terrain::Building { .. }, Outline::Area(poly)) = (t, &feature.outline) else { return None };
        u.stands.iter().all(|st| stand_within(poly, &st.footprint)).then(|| t.name().to_string())
    })
}

/// 8.10: of the given stands of `firer`, those that can rest their weapons on an obstacle facing
/// `target`, each with the obstacle's name.
pub fn resting_stands(s: &Situation, firer: usize, stands: &[usize], target: usize) -> Vec<(usize, String)> {
    let (fu, tu) = (s.unit(firer), s.unit(target));
    let mut out = Vec::new();
    for &i in stands {
        let Some(st) = fu.stands.get(i) else { continue };
        let corners = st.footprint.corners();
        let nearest = tu.stands.iter().map(|t| (convex_distance(&corners, &t.footprint.corners()), t.footprint.centre)).min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, aim)) = nearest else { continue };
        let on = s.features().iter().find_map(|feature| match (&s.terrain()[feature.index], &feature.outline) {
            (Terrain::Obstacle { name, .. }, Outline::Line(path)) if crosses_near(st.footprint.centre, aim, path, &st.footprint, REST_REACH) => Some(name.clone()),
            _ => None,
        });
        if let Some(name) = on {
            out.push((i, name));
        }
    }
    out
}

/// Formation as fire counts it: a unit deployed in a town or building counts as in line (6.13).
pub fn fire_formation(s: &Situation, unit: usize) -> Formation {
    let f = s.unit(unit).formation;
    if deployed_in(s, unit).is_some() && matches!(f, Formation::Skirmish | Formation::LooseOrder) { Formation::Line } else { f }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Construction, ObstacleKind, Point, Table, WoodsDensity};
    use crate::table::situation::UnitInfo;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Point> {
        vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    }

    fn table(units: Vec<UnitInfo>, terrain: Vec<Terrain>) -> Situation {
        Situation::new(Table { width: 72.0, depth: 48.0 }, terrain, units)
    }

    fn fence(kind: ObstacleKind, y: f32, x0: f32, x1: f32) -> Terrain {
        Terrain::Obstacle { name: format!("{kind:?}"), kind, path: vec![[x0, y], [x1, y]], impassable_to_artillery: false }
    }

    /// 8 figures in line facing down the table, front edge centred on (20, 20): stands span
    /// x 16..24 when 16 figures; here 8 figures: x 18..22, y 20..20.75.
    fn target() -> UnitInfo {
        UnitInfo::foot("Target", 1, 8, Formation::Line, v(20.0, 20.0), 180.0)
    }

    fn firer_points() -> Vec<Vec2> {
        vec![v(19.0, 15.0), v(21.0, 15.0)]
    }

    #[test]
    fn woods_cover_needs_every_stand_inside() {
        // OTP 8.6: all wooded areas are light cover, and all stands must be in it.
        let woods = |outline| Terrain::Woods { name: "Wood".into(), density: WoodsDensity::Light, outline, disorder: None };
        let s = table(vec![target()], vec![woods(rect(10.0, 19.0, 30.0, 25.0))]);
        let c = unit_cover(&s, 0, &firer_points()).unwrap();
        assert_eq!((c.class, c.features), (Cover::Light, vec!["Wood".to_string()]));
        let half = table(vec![target()], vec![woods(rect(20.0, 19.0, 30.0, 25.0))]);
        assert_eq!(unit_cover(&half, 0, &firer_points()), None, "one stand out of the woods");
    }

    #[test]
    fn behind_an_obstacle_facing_the_firer_only() {
        // OTP 8.6: a stone wall half an inch in front of the stands is medium cover against fire
        // from the front; fired on from the flank, the wall is not between them.
        let s = table(vec![target()], vec![fence(ObstacleKind::StoneWall, 19.5, 10.0, 30.0)]);
        assert_eq!(unit_cover(&s, 0, &firer_points()).map(|c| c.class), Some(Cover::Medium));
        assert_eq!(unit_cover(&s, 0, &[v(30.0, 20.4)]), None, "from the flank");
        let far = table(vec![target()], vec![fence(ObstacleKind::StoneWall, 17.5, 10.0, 30.0)]);
        assert_eq!(unit_cover(&far, 0, &firer_points()), None, "2.5\" in front is not behind it");
        let short = table(vec![target()], vec![fence(ObstacleKind::StoneWall, 19.5, 10.0, 20.0)]);
        assert_eq!(unit_cover(&short, 0, &firer_points()), None, "the wall covers one stand of two");
    }

    #[test]
    fn best_class_every_stand_has() {
        // OTP 8.6: one stand behind a breastwork (heavy), the other behind a fence (light): light.
        let s = table(vec![target()], vec![fence(ObstacleKind::Breastwork, 19.6, 17.0, 20.0), fence(ObstacleKind::Fence, 19.6, 20.0, 23.0)]);
        let c = unit_cover(&s, 0, &firer_points()).unwrap();
        assert_eq!(c.class, Cover::Light);
        assert_eq!(c.features, vec!["Breastwork".to_string(), "Fence".to_string()]);
        let both = table(vec![target()], vec![fence(ObstacleKind::Breastwork, 19.6, 10.0, 30.0), fence(ObstacleKind::Fence, 19.3, 10.0, 30.0)]);
        assert_eq!(unit_cover(&both, 0, &firer_points()).unwrap().class, Cover::Heavy);
    }

    #[test]
    fn towns_and_buildings_by_construction() {
        // OTP 6.13: towns and wood buildings medium, stone buildings heavy; deployed units count
        // as in line.
        let town = Terrain::Town { name: "Town".into(), outline: rect(15.0, 19.0, 25.0, 23.0), capacity: 5 };
        let s = table(vec![target()], vec![town]);
        assert_eq!(unit_cover(&s, 0, &firer_points()).unwrap().class, Cover::Medium);
        assert_eq!(deployed_in(&s, 0).as_deref(), Some("Town"));
        let church = Terrain::Building { name: "Church".into(), at: [20.0, 20.5], size: [6.0, 2.0], facing: 0.0, construction: Construction::Stone, capacity: 2 };
        let s = table(vec![target()], vec![church]);
        assert_eq!(unit_cover(&s, 0, &firer_points()).unwrap().class, Cover::Heavy);
        let col = UnitInfo::foot("Column", 1, 8, Formation::Column, v(20.0, 22.0), 180.0);
        let town = Terrain::Town { name: "Town".into(), outline: rect(15.0, 15.0, 25.0, 30.0), capacity: 5 };
        assert_eq!(deployed_in(&table(vec![col], vec![town]), 0), None, "a column passes through");
    }

    #[test]
    fn rest_on_a_fence_just_in_front() {
        // OTP 8.10: the firer's stands touch a fence that lies between them and the target.
        let firer = UnitInfo::foot("Firer", 0, 8, Formation::Line, v(20.0, 15.0), 0.0);
        let s = table(vec![firer.clone(), target()], vec![fence(ObstacleKind::Fence, 15.1, 10.0, 30.0)]);
        assert_eq!(resting_stands(&s, 0, &[0, 1], 1).len(), 2);
        let half = table(vec![firer.clone(), target()], vec![fence(ObstacleKind::Fence, 15.1, 10.0, 20.0)]);
        assert_eq!(resting_stands(&half, 0, &[0, 1], 1).iter().map(|r| r.0).collect::<Vec<_>>(), vec![0]);
        let behind = table(vec![firer, target()], vec![fence(ObstacleKind::Fence, 13.5, 10.0, 30.0)]);
        assert!(resting_stands(&behind, 0, &[0, 1], 1).is_empty(), "a fence behind the firer");
    }
}
