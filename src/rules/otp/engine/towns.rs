//! Towns and buildings (6.13): a unit deploys into a town or building as a change of formation
//! (costing 1/2 its normal move, 6.2). Only as many stands as the scenario's capacity may be
//! deployed there (stands of other units already inside count), and only units of 1 or 2 stands
//! into a building. A deployed unit is in Line with every stand inside the outline, so the fire
//! module counts it as deployed (Line, its cover, no enfilade: `fire::cover::deployed_in`).
//!
//! Placement (the rules leave it to the players): a unit whose stands are all inside already
//! keeps them where they are; otherwise its stands are packed inside the outline, facing as the
//! unit faces (or turned by 90°, 180°, 270° if they fit only so), front row first, left to
//! right, on a 1/4" scan, clear of every other stand. The unit must touch the outline to deploy.
//! Leaving again is an ordinary change of formation to column (`Action::ChangeFormation`),
//! after which the column moves out (towns admit columns, 6.13).

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::action::Action;
use super::operations::{Activity, Permit, section};
use super::report::{Refusal, Report, refuse};
use super::Game;
use crate::picture::inside;
use crate::rules::otp::charts::ArmClass;
use crate::rules::otp::fire::cover::stand_within;
use crate::scenario::model::{Formation, Terrain};
use crate::table::footprint::{Footprint, bearing_vector};
use crate::table::geom::convex_touches_polygon;
use crate::table::situation::{Outline, Situation};

/// The scan step for packing stands, inches.
const SCAN: f32 = 0.25;

/// Pack `stands` (their sizes) inside `poly`, facing `facing`, clear of `others` and each other.
pub fn pack_inside(poly: &[Vec2], stands: &[Footprint], facing: f32, others: &[Footprint]) -> Option<Vec<Footprint>> {
    'turn: for quarter in 0..4 {
        let facing = (facing + 90.0 * quarter as f32).rem_euclid(360.0);
        let (fwd, right) = (bearing_vector(facing), bearing_vector(facing + 90.0));
        let along = |v: Vec2| (v.dot(right), v.dot(fwd));
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &p in poly {
            let (x, y) = along(p);
            lo = lo.min(Vec2::new(x, y));
            hi = hi.max(Vec2::new(x, y));
        }
        let mut placed: Vec<Footprint> = Vec::new();
        for st in stands {
            let (hw, hd) = (st.frontage / 2.0, st.depth / 2.0);
            let mut found = None;
            let mut y = hi.y - hd;
            'scan: while y >= lo.y + hd - 1e-4 {
                let mut x = lo.x + hw;
                while x <= hi.x - hw + 1e-4 {
                    let f = Footprint { centre: right * x + fwd * y, facing, ..*st };
                    if stand_within(poly, &f) && !placed.iter().chain(others).any(|o| f.overlaps(o, 0.01)) {
                        found = Some(f);
                        break 'scan;
                    }
                    x += SCAN;
                }
                y -= SCAN;
            }
            match found {
                Some(f) => placed.push(f),
                None => continue 'turn,
            }
        }
        return Some(placed);
    }
    None
}

/// What a deployment would do, judged.
struct Deployment {
    unit: Entity,
    permit: Permit,
    cost: f32,
    stands: Vec<Footprint>,
    kept: bool,
    place: String,
}

impl Game {
    fn validate_deploy(&self, name: &str, place: &str) -> Result<Deployment, Refusal> {
        let unit = self.find_unit(name)?;
        if self.arm(unit) == ArmClass::Artillery {
            return refuse("6.13", format!("{name}: artillery is not deployed into towns or buildings (it stays limbered or unlimbered, 3.3)"));
        }
        let p = self.permit(unit, &[Activity::Form(Formation::Line)])?;
        let s = self.situation();
        let index = s.find(name).map_err(|e| Refusal::otp("4.2", e))?;
        let Some((terrain, poly)) = built_up(&s, place) else {
            let known: Vec<&str> = s.terrain().iter().filter(|t| matches!(t, Terrain::Town { .. } | Terrain::Building { .. })).map(Terrain::name).collect();
            return refuse("6.13", format!("there is no town or building named \"{place}\" (the scenario has: {})", known.join(", ")));
        };
        let (building, capacity) = match terrain {
            Terrain::Town { capacity, .. } => (false, *capacity),
            Terrain::Building { capacity, .. } => (true, *capacity),
            _ => unreachable!("built_up finds towns and buildings"),
        };
        let info = s.unit(index);
        let n = info.stands.len() as u32;
        if building && n > 2 {
            return refuse("6.13", format!("{name} has {n} stands: only units of 1 or 2 stands may deploy into a building"));
        }
        let all_in = info.stands.iter().all(|st| stand_within(&poly, &st.footprint));
        if all_in && info.formation == Formation::Line {
            return refuse("6.13", format!("{name} is deployed in {place} already"));
        }
        let others: Vec<(usize, Footprint)> = s.units().iter().enumerate().filter(|(i, _)| *i != index).flat_map(|(i, u)| u.stands.iter().map(move |st| (i, st.footprint))).collect();
        let occupied = others.iter().filter(|(_, f)| inside(&poly, f.centre)).count() as u32;
        if occupied + n > capacity {
            return refuse("6.13", format!("{place} holds {capacity} stands by the scenario; {occupied} are there already and {name} has {n}"));
        }
        if !info.stands.iter().any(|st| convex_touches_polygon(&st.footprint.corners(), &poly)) {
            return refuse("6.13", format!("{name} must be in contact with {place} to deploy into it"));
        }
        let cost = self.normal_move(unit, p.start) / 2.0;
        self.within_budget(&p, p.spent + cost, None)?;
        let own: Vec<Footprint> = info.footprints();
        let (stands, kept) = if all_in {
            (own, true)
        } else {
            let facing = own[0].facing;
            let clear: Vec<Footprint> = others.iter().map(|(_, f)| *f).collect();
            match pack_inside(&poly, &own, facing, &clear) {
                Some(f) => (f, false),
                None => return refuse("6.13", format!("{name}'s {n} stands do not fit inside {place} clear of the stands there")),
            }
        };
        Ok(Deployment { unit, permit: p, cost, stands, kept, place: terrain.name().to_string() })
    }

    /// Would deploying into this town or building be allowed now? Nothing is changed.
    pub fn check_deploy(&self, name: &str, place: &str) -> Result<(), Refusal> {
        self.validate_deploy(name, place).map(|_| ())
    }

    pub(super) fn deploy_into(&mut self, action: &Action, name: &str, place: &str) -> Result<Report, Refusal> {
        let d = self.validate_deploy(name, place)?;
        let mut report = Report::otp(self.turn(), action, format!("{name} deploys into {} ({}, 6.13)", d.place, section(self.arm(d.unit))));
        self.report_allowance(&mut report, d.unit, d.permit.start);
        report.note("6.2", format!("a change of formation costs 1/2 the normal move: {:.2}\"", d.cost));
        report.note("6.13", if d.kept { "its stands are inside already and stay where they are".to_string() } else { "its stands are placed inside the outline".to_string() });
        self.place(d.unit, &d.stands, Formation::Line);
        self.record(&d.permit, d.permit.spent + d.cost);
        report.outcome = format!("{name} is deployed in {}: it counts as Line, in cover, and cannot be enfiladed", d.place);
        report.change("6.13", format!("{name} is now deployed in {}", d.place));
        Ok(report)
    }
}

/// The town or building of that name, with its outline.
fn built_up<'a>(s: &'a Situation, place: &str) -> Option<(&'a Terrain, Vec<Vec2>)> {
    s.features().iter().find_map(|f| {
        let t = &s.terrain()[f.index];
        match (t, &f.outline) {
            (Terrain::Town { .. } | Terrain::Building { .. }, Outline::Area(poly)) if t.name() == place => Some((t, poly.clone())),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, to_rebuilds};
    use super::*;
    use crate::rules::otp::fire::cover::deployed_in;
    use crate::scenario::model::Scenario;

    /// Shift a unit's stands so its first stand's centre is at `to`.
    fn put(g: &mut Game, unit: &str, to: Vec2) {
        let e = g.unit_entity(unit).unwrap();
        let ids = g.unit(e).stands.clone();
        let first = g.world().get::<Footprint>(ids[0]).unwrap().centre;
        for s in ids {
            g.world_mut().get_mut::<Footprint>(s).unwrap().centre += to - first;
        }
    }

    fn game(change: impl FnOnce(&mut Scenario)) -> Game {
        let mut s = crate::scenario::default_scenario();
        change(&mut s);
        let mut g = Game::new(s, 4, crate::rules::otp::charts::Charts::embedded().clone());
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        g
    }

    fn deploy(unit: &str, place: &str) -> Action {
        Action::DeployInto { unit: unit.into(), place: place.into() }
    }

    // OTP 6.13: deploying into a town is a change of formation (1/2 the move, 6.2); the stands
    // go inside the outline and the unit counts as deployed (Line) for fire; leaving is a change
    // of formation to column.
    #[test]
    fn deploying_into_a_town_is_a_change_of_formation() {
        let mut g = game(|_| {});
        let bli = "British Legion Infantry";
        refused(&mut g, deploy(bli, "Hannah's Crossroads"), "6.13"); // not in contact
        refused(&mut g, deploy(bli, "Nowhere"), "6.13");
        put(&mut g, bli, Vec2::new(36.0, 23.8));
        let r = ok(&mut g, deploy(bli, "Hannah's Crossroads"));
        assert!(r.changes.iter().any(|c| c.rule == "6.13"), "{r}");
        let e = g.unit_entity(bli).unwrap();
        assert_eq!(g.unit(e).formation, Formation::Line);
        let column = g.normal_move(e, Formation::Column);
        assert!((g.unit_turn(e).spent - column / 2.0).abs() < 1e-3);
        let s = g.situation();
        assert_eq!(deployed_in(&s, s.find(bli).unwrap()).as_deref(), Some("Hannah's Crossroads"));
        // One operation: no second change of formation this turn.
        refused(&mut g, Action::ChangeFormation { unit: bli.into(), formation: Formation::Column }, "3.1");
        to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Tarleton's Brigade");
        ok(&mut g, Action::ChangeFormation { unit: bli.into(), formation: Formation::Column });
        let s = g.situation();
        assert_eq!(deployed_in(&s, s.find(bli).unwrap()), None, "in column it has left its deployment");
    }

    // OTP 6.13: the scenario's capacity, and only units of 1 or 2 stands into a building.
    #[test]
    fn capacity_and_buildings() {
        let mut g = game(|s| {
            for t in &mut s.terrain {
                if let Terrain::Town { capacity, .. } = t {
                    *capacity = 2;
                }
            }
        });
        let bli = "British Legion Infantry";
        put(&mut g, bli, Vec2::new(36.0, 23.8));
        let r = refused(&mut g, deploy(bli, "Hannah's Crossroads"), "6.13");
        assert!(r.reason.contains("holds 2"), "{r}");
        put(&mut g, bli, Vec2::new(46.0, 32.5));
        let r = refused(&mut g, deploy(bli, "Old Stone Church"), "6.13");
        assert!(r.reason.contains("1 or 2 stands"), "{r}");
    }

    // OTP 6.13: packing stands inside an outline, clear of others; none if they do not fit.
    #[test]
    fn stands_are_packed_inside() {
        let square = [Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 4.0), Vec2::new(0.0, 4.0)];
        let st = Footprint { centre: Vec2::new(10.0, 10.0), facing: 0.0, frontage: 2.0, depth: 1.0 };
        let four = pack_inside(&square, &[st; 4], 0.0, &[]).unwrap();
        assert!(four.iter().all(|f| stand_within(&square, f)));
        for (i, a) in four.iter().enumerate() {
            assert!(four[i + 1..].iter().all(|b| !a.overlaps(b, 0.01)));
        }
        assert!(pack_inside(&square, &[st; 9], 0.0, &[]).is_none());
        let blocker = Footprint { centre: Vec2::new(2.0, 2.0), facing: 0.0, frontage: 4.0, depth: 3.0 };
        assert!(pack_inside(&square, &[st], 0.0, &[blocker]).is_none());
    }
}
