//! Attaching artillery (7.5) and moving commanders (6.12).
//!
//! 7.5: an artillery stand in contact with a friendly infantry unit may be attached to it (it
//! then moves with the unit within its own formation's move, and the infantry takes its losses);
//! in its own operational phase it may detach itself, and then move off on its own. Declaring
//! either is not an operation: the gun's operation is untouched.
//!
//! 6.12: a commander moves up to 24" in the operations phase of his units, split as the player
//! likes (riding to use a morale pass counts against the same 24"); he ignores terrain. With
//! the optional rule treating him as infantry in skirmish line for terrain, a ride costs what
//! `commander_ride_cost` says: 1" a linear obstruction crossed, and inches in disordering
//! terrain counted double (a deterministic stand-in for the 6.6 roll: he is taken to be
//! disordered there, so a refused ride rolls no dice).

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::action::Action;
use super::report::{Refusal, Report, refuse};
use super::{CommandState, Game};
use crate::rules::otp::charts::ArmClass;
use crate::scenario::spawn::Commander;
use crate::table::footprint::Footprint;
use crate::table::geom::{EPS, convex_distance};
use super::move_rules::commander_ride_cost;

/// How close an artillery stand must be to count as in contact with an infantry unit (7.5), inches.
pub const CONTACT: f32 = 0.1;

impl Game {
    fn stands_of(&self, unit: Entity) -> Vec<Footprint> {
        self.unit(unit).stands.iter().filter_map(|&s| self.world.get::<Footprint>(s).copied()).collect()
    }

    /// Would `gun` detach from its infantry now (7.5)? Nothing changes.
    pub fn check_detach(&self, gun: &str) -> Result<Entity, Refusal> {
        let g = self.find_unit(gun)?;
        if self.arm(g) != ArmClass::Artillery {
            return refuse("7.5", format!("{gun} is not artillery: only an artillery stand attaches and detaches"));
        }
        if self.unit(g).attached_to.is_none() && self.riding_with(g).is_none() {
            return refuse("7.5", format!("{gun} is not attached to any unit"));
        }
        // "during its operational phase": its own brigade phasing, and free to operate.
        self.permit(g, &[])?;
        Ok(g)
    }

    /// Would `gun` attach to `unit` now (7.5)? Nothing changes.
    pub fn check_attach(&self, gun: &str, unit: &str) -> Result<(Entity, Entity), Refusal> {
        let g = self.find_unit(gun)?;
        let host = self.find_unit(unit)?;
        if self.arm(g) != ArmClass::Artillery {
            return refuse("7.5", format!("{gun} is not artillery: only an artillery stand attaches to an infantry unit"));
        }
        if let Some(h) = self.unit(g).attached_to {
            return refuse("7.5", format!("{gun} is already attached to {}", self.unit(h).name));
        }
        if self.arm(host) != ArmClass::Infantry {
            return refuse("7.5", format!("{unit} is not infantry: artillery attaches to an infantry unit"));
        }
        if self.unit(host).side != self.unit(g).side {
            return refuse("7.5", format!("{unit} is an enemy unit"));
        }
        if self.unit_turn(host).off_table || self.unit(host).figures == 0 {
            return refuse("7.5", format!("{unit} is no longer on the table"));
        }
        let galloper = matches!(self.unit(g).arm, crate::scenario::model::Arm::Artillery { galloper: true, .. });
        if self.scenario.optional_rules.civilian_drivers && !galloper && self.unit(g).formation != crate::scenario::model::Formation::Unlimbered {
            return refuse("7.7", format!("{gun}: with civilian drivers, artillery is attached to infantry only when unlimbered"));
        }
        self.permit(g, &[])?;
        let (guns, foot) = (self.stands_of(g), self.stands_of(host));
        let gap = guns.iter().flat_map(|a| foot.iter().map(move |b| convex_distance(&a.corners(), &b.corners()))).fold(f32::INFINITY, f32::min);
        if gap > CONTACT {
            return refuse("7.5", format!("{gun} must be in physical contact with {unit} to attach (it is {gap:.2}\" away)"));
        }
        Ok((g, host))
    }

    pub(super) fn detach(&mut self, action: &Action, gun: &str) -> Result<Report, Refusal> {
        let g = self.check_detach(gun)?;
        // 7.5: a crew riding with its infantry leaves it, to move as skirmishers and reman (7.4).
        if let Some(h) = self.riding_with(g) {
            let host = self.unit(h).name.clone();
            let crew = self.world.get::<super::crew::Detached>(g).expect("riding").crew;
            self.world.get_mut::<super::crew::Crew>(crew).expect("a crew").with = None;
            let mut report = Report::otp(self.turn(), action, format!("{gun}'s crew detaches from {host} (7.5)"));
            report.outcome = format!("{gun}'s crew leaves {host}: it moves as infantry in skirmish line and remans its gun in contact (7.4, 7.5)");
            report.change("7.5", format!("{gun}'s crew detached from {host}"));
            return Ok(report);
        }
        let host = self.unit(g).attached_to.map(|h| self.unit(h).name.clone()).unwrap_or_default();
        let mut report = Report::otp(self.turn(), action, format!("{gun} detaches from {host} (7.5)"));
        self.unit_mut(g).attached_to = None;
        report.outcome = format!("{gun} is no longer attached to {host}: it may move off on its own");
        report.change("7.5", format!("{gun} detached from {host}"));
        Ok(report)
    }

    pub(super) fn attach(&mut self, action: &Action, gun: &str, unit: &str) -> Result<Report, Refusal> {
        let (g, host) = self.check_attach(gun, unit)?;
        let mut report = Report::otp(self.turn(), action, format!("{gun} attaches to {unit} (7.5)"));
        self.unit_mut(g).attached_to = Some(host);
        report.outcome = format!("{gun} is attached to {unit}: it moves with it within its own move, and {unit} takes its losses");
        report.change("7.5", format!("{gun} attached to {unit}"));
        Ok(report)
    }

    /// May `commander` move now, `ride` inches (6.12)? His units must be in their operations phase.
    fn check_ride(&self, commander: Entity, ride: f32) -> Result<(), Refusal> {
        self.require_play()?;
        let c = self.commander(commander);
        if self.world.get::<CommandState>(commander).is_some_and(|s| s.casualty_turn.is_some()) {
            return refuse("10.5", format!("{} is a casualty", c.name));
        }
        let phasing = self.sequence().phasing.and_then(|chit| self.brigade_by_chit(chit));
        let Some(b) = phasing else { return refuse("6.12", format!("{} moves in the operations phase of his units: no brigade is phasing", c.name)) };
        let ours = match c.brigade {
            Some(own) => own == b,
            None => self.brigade(b).side == c.side,
        };
        if !ours {
            return refuse("6.12", format!("{} moves only in the operations phase of his own units; {} is phasing", c.name, self.brigade(b).name));
        }
        let ridden = self.world.get::<CommandState>(commander).map_or(0.0, |s| s.moved);
        let most = self.charts.movement.commander();
        if ridden + ride > most + EPS {
            return refuse("6.12", format!("{} would move {ride:.2}\" but has {:.2}\" of his {most}\" left this phase", c.name, (most - ridden).max(0.0)));
        }
        Ok(())
    }

    /// The inches of his 24" a commander's ride from `from` to `to` costs (6.12): the distance,
    /// or with the optional rule, what infantry in skirmish line would pay for the terrain.
    pub(super) fn ride_cost(&self, from: Vec2, to: Vec2) -> f32 {
        if self.scenario.optional_rules.commanders_as_skirmishers {
            commander_ride_cost(&self.situation(), from, to)
        } else {
            from.distance(to)
        }
    }

    /// Would the commander move to `to` now (6.12)? Nothing changes.
    pub fn check_move_commander(&self, commander: &str, to: Vec2) -> Result<(), Refusal> {
        let c = self.find_commander(commander)?;
        if !self.situation().on_table(to) {
            return refuse("6.12", format!("{commander} cannot leave the table"));
        }
        self.check_ride(c, self.ride_cost(self.commander(c).at, to))
    }

    /// Where the commander would stand to join `unit` (the nearest point of its stands; the fire
    /// module counts a commander within 1/2" of a stand as with the unit, 8.16), and the ride.
    fn join_point(&self, commander: Entity, unit: Entity) -> (Vec2, f32) {
        let at = self.commander(commander).at;
        let to = self.stands_of(unit).iter().map(|f| super::commanders::nearest_on(f, at)).min_by(|a, b| a.distance(at).total_cmp(&b.distance(at))).unwrap_or(at);
        (to, self.ride_cost(at, to))
    }

    /// Would the commander ride to join `unit` now (6.12)? Nothing changes.
    pub fn check_join_unit(&self, commander: &str, unit: &str) -> Result<(), Refusal> {
        let c = self.find_commander(commander)?;
        let u = self.find_unit(unit)?;
        let (cmd, un) = (self.commander(c), self.unit(u));
        if cmd.side != un.side {
            return refuse("6.12", format!("{unit} is an enemy unit"));
        }
        if cmd.brigade.is_some_and(|b| b != un.brigade) {
            return refuse("6.12", format!("{commander} commands {}; {unit} is in {}", self.brigade(cmd.brigade.expect("checked")).name, self.brigade(un.brigade).name));
        }
        self.check_ride(c, self.join_point(c, u).1)
    }

    fn ride(&mut self, report: &mut Report, commander: Entity, to: Vec2, what: String) {
        let from = self.commander(commander).at;
        let ride = self.ride_cost(from, to);
        let name = {
            let mut c = self.world.get_mut::<Commander>(commander).expect("a commander");
            c.at = to;
            c.name.clone()
        };
        self.command_mut(commander).moved += ride;
        let left = (self.charts.movement.commander() - self.world.get::<CommandState>(commander).map_or(0.0, |s| s.moved)).max(0.0);
        if self.scenario.optional_rules.commanders_as_skirmishers && (ride - to.distance(from)).abs() > EPS {
            report.note("6.12", format!("as infantry in skirmish line, his {:.2}\" through obstructions and disordering terrain costs {ride:.2}\" (optional 6.12)", to.distance(from)));
        }
        report.outcome = format!("{name} moves {ride:.2}\" {what}; {left:.2}\" left this phase");
        report.change("6.12", format!("{name} is now at ({:.2}, {:.2})", to.x, to.y));
    }

    pub(super) fn move_commander(&mut self, action: &Action, commander: &str, to: Vec2) -> Result<Report, Refusal> {
        self.check_move_commander(commander, to)?;
        let c = self.find_commander(commander)?;
        let mut report = Report::otp(self.turn(), action, format!("{commander} moves (6.12)"));
        self.ride(&mut report, c, to, format!("to ({:.2}, {:.2})", to.x, to.y));
        Ok(report)
    }

    pub(super) fn join_unit(&mut self, action: &Action, commander: &str, unit: &str) -> Result<Report, Refusal> {
        self.check_join_unit(commander, unit)?;
        let c = self.find_commander(commander)?;
        let u = self.find_unit(unit)?;
        let (to, _) = self.join_point(c, u);
        let mut report = Report::otp(self.turn(), action, format!("{commander} joins {unit} (6.12)"));
        self.ride(&mut report, c, to, format!("to join {unit}"));
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;
    use crate::table::movement::MoveStep;

    fn detach(gun: &str) -> Action {
        Action::Detach { gun: gun.into() }
    }
    fn attach(gun: &str, unit: &str) -> Action {
        Action::Attach { gun: gun.into(), unit: unit.into() }
    }

    // OTP 7.5: a gun detaches in its own operational phase and is then left behind by its
    // infantry; it attaches only in contact with friendly infantry.
    #[test]
    fn attach_and_detach_guns() {
        let mut g = teaching(7);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, detach("Continental Artillery"), "4.3");
        refused(&mut g, detach("33rd Foot"), "7.5");
        refused(&mut g, attach("Royal Artillery", "33rd Foot"), "7.5");
        let r = ok(&mut g, detach("Royal Artillery"));
        assert!(r.changes.iter().any(|c| c.rule == "7.5"), "{r}");
        refused(&mut g, detach("Royal Artillery"), "7.5");
        refused(&mut g, attach("Royal Artillery", "British Legion Dragoons"), "7.5");
        refused(&mut g, attach("Royal Artillery", "1st Maryland"), "7.5");
        refused(&mut g, attach("Royal Artillery", "33rd Foot"), "7.5");
        // Still in contact: it may attach again, and detach again.
        ok(&mut g, attach("Royal Artillery", "23rd Foot"));
        ok(&mut g, detach("Royal Artillery"));
        // Detached, the 23rd moves 3" without it (attached, 2" was its most, 7.5).
        let r = ok(&mut g, Action::Move { unit: "23rd Foot".into(), steps: vec![MoveStep::Forward(3.0)] });
        assert!(!r.changes.iter().any(|c| c.rule == "7.5"), "{r}");
        refused(&mut g, attach("Royal Artillery", "23rd Foot"), "7.5");
        let guns = g.unit_entity("Royal Artillery").unwrap();
        assert!(!g.unit_turn(guns).moved && g.unit(guns).attached_to.is_none());
    }

    // OTP 6.12: a commander moves up to 24" in his units' operations phase, split as he likes.
    #[test]
    fn commanders_move_24_inches_a_phase() {
        let mut g = teaching(7);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        let webster = g.commander_entity("Lt. Col. Webster").unwrap();
        let at = g.commander(webster).at;
        let to = |dx: f32| Action::MoveCommander { commander: "Lt. Col. Webster".into(), to: at + Vec2::new(dx, 0.0) };
        ok(&mut g, to(10.0));
        ok(&mut g, to(0.0));
        refused(&mut g, to(4.5), "6.12");
        ok(&mut g, to(4.0));
        refused(&mut g, Action::MoveCommander { commander: "Lt. Col. Howard".into(), to: Vec2::new(20.0, 20.0) }, "6.12");
        refused(&mut g, Action::MoveCommander { commander: "Maj. Gen. Greene".into(), to: Vec2::new(30.0, 8.0) }, "6.12");
        refused(&mut g, Action::JoinUnit { commander: "Lt. Col. Webster".into(), unit: "British Legion Dragoons".into() }, "6.12");
        refused(&mut g, Action::MoveCommander { commander: "Earl Cornwallis".into(), to: Vec2::new(-5.0, 45.0) }, "6.12");
        // The overall commander moves in any of his side's phases, and joins a unit: he ends
        // on its nearest stand (within 1/2", with the unit for 8.16).
        ok(&mut g, Action::JoinUnit { commander: "Earl Cornwallis".into(), unit: "23rd Foot".into() });
        let c = g.commander(g.commander_entity("Earl Cornwallis").unwrap()).at;
        let u = g.unit_entity("23rd Foot").unwrap();
        assert!(g.stands_of(u).iter().any(|f| super::super::commanders::nearest_on(f, c).distance(c) < 0.5));
    }

    // OTP 6.12 (optional): a commander treated as infantry in skirmish line pays 1" for each
    // linear obstruction he crosses (6.7) and double through disordering terrain; with the
    // option off a wall costs him nothing.
    #[test]
    fn commanders_as_skirmishers_pay_for_terrain() {
        use crate::scenario::model::{ObstacleKind, Terrain};
        for on in [true, false] {
            let mut g = teaching(7);
            g.scenario.optional_rules.commanders_as_skirmishers = on;
            ok(&mut g, Action::StartGame);
            activate(&mut g, "Webster's Brigade");
            let webster = g.commander_entity("Lt. Col. Webster").unwrap();
            let at = g.commander(webster).at;
            let wall = Terrain::Obstacle { name: "Wall".into(), kind: ObstacleKind::StoneWall, path: vec![[at.x + 5.0, at.y - 1.0], [at.x + 5.0, at.y + 1.0]], impassable_to_artillery: false };
            g.world_mut().resource_mut::<crate::scenario::spawn::Battlefield>().scenario.terrain.push(wall);
            let to = |dx: f32| Action::MoveCommander { commander: "Lt. Col. Webster".into(), to: at + Vec2::new(dx, 0.0) };
            let r = ok(&mut g, to(10.0));
            assert_eq!(r.notes.iter().any(|n| n.rule == "6.12"), on, "{r}");
            ok(&mut g, to(0.0));
            if on {
                refused(&mut g, to(3.0), "6.12");
                ok(&mut g, to(2.0));
            } else {
                ok(&mut g, to(4.0));
            }
            assert!((g.world().get::<CommandState>(webster).unwrap().moved - 24.0).abs() < 1e-3);
        }
    }
}
