//! Optional 7.7 civilian drivers: the limits on where limbered guns go (galloper guns exempt).
//! (That unlimbered guns never limber is judged with the formations, `operations.rs`; that only
//! unlimbered guns attach to infantry, with attaching, `attach.rs`.)
//!
//! While limbered, artillery may not voluntarily move
//! - to within enemy small-arms range: the move is refused if it ends within the small-arms
//!   range of an enemy unit (edge to edge) and closer to it than it began, so a gun caught in
//!   range may still draw away;
//! - ahead of the foremost friendly infantry unit: "ahead" is measured along the side's general
//!   facing, the mean of the facings of its infantry units' first stands; the gun's most forward
//!   stand front may not pass the most forward infantry stand front, unless it was ahead already
//!   and does not go further ahead. A side without infantry sets no such limit.
//!
//! Retreats are not voluntary and are not judged here.

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::report::{Refusal, refuse};
use super::Game;
use crate::scenario::model::{Arm, Formation};
use crate::table::footprint::bearing_vector;
use crate::table::geom::EPS;
use crate::table::movement::MoveReport;
use crate::rules::otp::fire::range::small_arms_range;
use crate::table::range::unit_distance;
use crate::table::situation::Situation;

/// The side's general facing: the mean facing of its infantry (None without infantry).
pub fn general_facing(s: &Situation, side: usize) -> Option<Vec2> {
    let sum: Vec2 = s.units().iter().filter(|u| u.side == side && u.arm == Arm::Infantry).filter_map(|u| u.stands.first()).map(|st| bearing_vector(st.footprint.facing)).sum();
    (sum.length() > EPS).then(|| sum.normalize())
}

/// How far ahead, along `dir`, the unit's foremost stand front reaches.
fn reach(s: &Situation, unit: usize, dir: Vec2) -> f32 {
    s.unit(unit).stands.iter().flat_map(|st| st.footprint.corners()).map(|p| p.dot(dir)).fold(f32::NEG_INFINITY, f32::max)
}

impl Game {
    /// 7.7: may this limbered gun make this move with civilian drivers?
    pub(super) fn check_drivers(&self, unit: Entity, plan: &MoveReport) -> Result<(), Refusal> {
        let u = self.unit(unit);
        let galloper = matches!(u.arm, Arm::Artillery { galloper: true, .. });
        if !self.scenario.optional_rules.civilian_drivers || galloper || !matches!(u.arm, Arm::Artillery { .. }) || plan.formation != Formation::Limbered {
            return Ok(());
        }
        let before = self.situation();
        let index = before.find(&u.name).map_err(|e| Refusal::otp("4.2", e))?;
        let after = before.with_stands(index, &plan.stands, plan.formation);
        let side = before.unit(index).side;
        for (i, enemy) in after.units().iter().enumerate() {
            let Some(weapon) = enemy.weapon.filter(|_| enemy.side != side && !matches!(enemy.arm, Arm::Artillery { .. })) else { continue };
            if enemy.stands.is_empty() {
                continue;
            }
            let range = small_arms_range(weapon);
            let (was, now) = (unit_distance(&before, index, i), unit_distance(&after, index, i));
            if now < range - EPS && now < was - EPS {
                return refuse("7.7", format!("{}: with civilian drivers, limbered artillery may not move to within enemy small-arms range ({} at {now:.2}\", range {range}\")", u.name, enemy.name));
            }
        }
        if let Some(dir) = general_facing(&before, side) {
            let foremost = before.units().iter().enumerate().filter(|(_, f)| f.side == side && f.arm == Arm::Infantry && !f.stands.is_empty()).map(|(i, _)| reach(&before, i, dir)).fold(f32::NEG_INFINITY, f32::max);
            let (was, now) = (reach(&before, index, dir), reach(&after, index, dir));
            if now > foremost + EPS && now > was + EPS {
                return refuse("7.7", format!("{}: with civilian drivers, limbered artillery may not move ahead of the foremost friendly infantry ({:.2}\" ahead of it)", u.name, now - foremost));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused};
    use super::super::Action;
    use super::*;
    use crate::table::footprint::Footprint;
    use crate::table::movement::MoveStep;

    fn game(drivers: bool, at: Option<Vec2>) -> Game {
        let mut s = crate::scenario::default_scenario();
        s.optional_rules.civilian_drivers = drivers;
        let u = s.sides.iter_mut().flat_map(|x| &mut x.brigades).flat_map(|b| &mut b.units).find(|u| u.name == "Royal Artillery").unwrap();
        u.formation = Formation::Limbered;
        // Clear the way of the American skirmishers, to judge the two limits apart.
        for b in s.sides.iter_mut().flat_map(|x| &mut x.brigades) {
            b.units.retain(|u| u.name != "Delaware Light Infantry");
        }
        let mut g = Game::new(s, 3, crate::rules::otp::charts::Charts::embedded().clone());
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        ok(&mut g, Action::Detach { gun: "Royal Artillery".into() });
        if let Some(to) = at {
            let e = g.unit_entity("Royal Artillery").unwrap();
            let ids = g.unit(e).stands.clone();
            let first = g.world().get::<Footprint>(ids[0]).unwrap().centre;
            for s in ids {
                g.world_mut().get_mut::<Footprint>(s).unwrap().centre += to - first;
            }
        }
        g
    }

    fn forward(inches: f32) -> Action {
        Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(inches)] }
    }

    // OTP 7.7 (optional): limbered guns do not move ahead of the foremost friendly infantry,
    // measured along the side's mean infantry facing.
    #[test]
    fn civilian_drivers_keep_limbered_guns_behind_the_infantry() {
        let mut g = game(true, None);
        // The foremost British infantry, the British Legion Infantry, has its front about 33" up
        // the table; the guns' front is at 38".
        let r = refused(&mut g, forward(9.0), "7.7");
        assert!(r.reason.contains("foremost"), "{r}");
        ok(&mut g, forward(3.0));
        let mut g = game(false, None);
        ok(&mut g, forward(9.0));
        let s = g.situation();
        assert!(general_facing(&s, 0).unwrap().y < -0.99, "the British infantry faces down the table");
    }

    // OTP 7.7 (optional): limbered guns do not move to within enemy small-arms range, and only
    // unlimbered guns attach to infantry.
    #[test]
    fn civilian_drivers_keep_limbered_guns_out_of_small_arms_range() {
        let mut g = game(true, Some(Vec2::new(52.0, 30.0)));
        let r = refused(&mut g, forward(6.0), "7.7");
        assert!(r.reason.contains("small-arms"), "{r}");
        let mut g = game(true, None);
        refused(&mut g, Action::Attach { gun: "Royal Artillery".into(), unit: "23rd Foot".into() }, "7.7");
    }
}
