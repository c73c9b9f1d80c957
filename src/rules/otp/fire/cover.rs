//! Cover (8.6, 6.13) and rest (8.10): OTP's classes and reaches over the table's cover
//! geometry (`table::cover`).
//!
//! - Woods are light cover; towns and wood buildings medium, stone buildings heavy (6.13);
//!   fences light, walls and barricades medium, breastworks heavy (8.6): `Terrain::cover`.
//! - An obstacle shelters a stand within [`BEHIND_REACH`] in front of it; a firing stand rests
//!   on one within [`REST_REACH`] (8.10).
//! - A unit is deployed in a town or building (6.13) when it is not in column and all its
//!   stands are inside one.

use bevy::math::Vec2;

use crate::scenario::model::{Cover, Formation, Terrain};
use crate::table::cover::{self, CoverRules};
use crate::table::footprint::Footprint;
use crate::table::situation::Situation;

pub use crate::table::cover::{CoverFound, distance_to_stand, stand_within};

/// How far in front of a stand an obstacle may lie and still shelter it (inches).
pub const BEHIND_REACH: f32 = 1.0;
/// How close to a firing stand a fence, wall or breastwork must be to rest muskets on (inches).
pub const REST_REACH: f32 = 0.5;

/// OTP's cover classes (8.6, 6.13) and reach.
pub static COVER: CoverRules = CoverRules { class: Terrain::cover, behind_reach: BEHIND_REACH };

/// The best cover one stand has against fire from the points `from` (8.6).
pub fn stand_cover(s: &Situation, f: &Footprint, from: &[Vec2]) -> Option<(Cover, Vec<usize>)> {
    cover::stand_cover(s, &COVER, f, from)
}

/// 8.6: the cover of `unit` against fire from `from`: None unless every stand is in or behind
/// cover; otherwise the best class all of them have.
pub fn unit_cover(s: &Situation, unit: usize, from: &[Vec2]) -> Option<CoverFound> {
    cover::unit_cover(s, &COVER, unit, from)
}

/// 6.13: the town or building `unit` is deployed in: all its stands inside it, not in column.
pub fn deployed_in(s: &Situation, unit: usize) -> Option<String> {
    if s.unit(unit).in_column() {
        return None;
    }
    cover::all_inside_town(s, unit)
}

/// 8.10: of the given stands of `firer`, those that can rest their weapons on an obstacle facing
/// `target`, each with the obstacle's name.
pub fn resting_stands(s: &Situation, firer: usize, stands: &[usize], target: usize) -> Vec<(usize, String)> {
    cover::resting_stands(s, firer, stands, target, REST_REACH)
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
