//! 7.4: an unlimbered (unattached) artillery unit forced to retreat by a morale result leaves its
//! gun: the crew is detached and retreats as infantry in skirmish line; it remans the gun by
//! moving back into contact with it.
//!
//! Choices: the gun stand stays where it was and keeps the unit's figures (fire and melee still
//! see it as the unit); the crew is a separate entity ([`Crew`] + a 1"-frontage `Footprint` of
//! infantry depth) without a `Stand`, so the table's geometry and the fire module never count it.
//! While [`Detached`], the unit may not fire (7.1/7.4: its gun is unmanned), limber or otherwise
//! change formation; its `Move` moves the crew stand (Forward, Oblique and About face only, at
//! the skirmish infantry move).
//!
//! 7.5: when an infantry unit retreats (a morale result) with an attached UNLIMBERED gun, the
//! gun model stays where it is and is no longer attached; its crew is detached (the same
//! [`Detached`]/[`Crew`] pair) and rides with the infantry as a stand of the unit
//! (`Crew::with`): it is placed in contact behind the infantry's end stand after the retreat and
//! after each of the infantry's later moves and changes of formation, and the gun takes the
//! infantry's Morale Marker (the same penalties). The crew remans the gun (a) when a Move of
//! the infantry ends with the gun within [`CONTACT`] of one of its stands (reported under 7.5;
//! the gun is manned but not re-attached: `Attach` it again to carry it), or (b) by
//! `Action::Detach { gun }`, which takes the crew away from the infantry as skirmishers (7.4
//! from then on: the gun's `Move` moves the crew, `Reman` in contact). While riding, the gun's
//! own Move is refused (7.5). A limbered attached gun is not handled here (it stays put).

use bevy::prelude::*;

use super::action::Action;
use super::operations::Activity;
use super::report::{Refusal, Report, refuse};
use super::Game;
use crate::rules::otp::charts::ArmClass;
use crate::scenario::model::{Formation, UnitType};
use crate::table::footprint::{Footprint, bearing_vector, vector_bearing};
use crate::table::movement::MoveStep;

/// How close (inches, edge to edge) the crew stand must be to the gun to reman it (7.4).
pub const CONTACT: f32 = 0.25;
/// The crew stand's frontage and depth (infantry in skirmish line), inches.
pub const CREW_FRONTAGE: f32 = 1.0;
pub const CREW_DEPTH: f32 = 0.75;

/// On an artillery unit whose crew has left the gun (7.4).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Detached {
    pub crew: Entity,
}

/// The detached crew stand of `unit` (7.4).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Crew {
    pub unit: Entity,
    /// 7.5: the infantry unit the crew retreated with and moves with, as a stand of it.
    pub with: Option<Entity>,
}

impl Game {
    /// The crew stand's footprint, when the unit's crew is detached (7.4).
    pub fn detached_crew(&self, unit: Entity) -> Option<Footprint> {
        let d = self.world.get::<Detached>(unit)?;
        self.world.get::<Footprint>(d.crew).copied()
    }

    /// The skirmish-line infantry move the crew uses (7.4).
    fn crew_move(&self) -> f32 {
        self.charts.movement.allowance(ArmClass::Infantry, UnitType::Line, Formation::Skirmish).unwrap_or(0.0)
    }

    /// 7.4: the crew leaves the gun and retreats `moves` skirmish moves along `away`. A crew
    /// already detached just retreats again.
    pub(super) fn crew_retreats(&mut self, report: &mut Report, unit: Entity, moves: u8, away: Vec2) {
        let name = self.unit(unit).name.clone();
        let crew = match self.world.get::<Detached>(unit) {
            Some(d) => d.crew,
            None => {
                let gun = self.unit(unit).stands.first().and_then(|&s| self.world.get::<Footprint>(s).copied());
                let Some(gun) = gun else { return };
                // Behind the gun, facing away from the enemy, in contact with it.
                let start = gun.centre + away * (gun.depth.max(gun.frontage) / 2.0 + CREW_DEPTH / 2.0);
                let fp = Footprint { centre: start, facing: vector_bearing(away), frontage: CREW_FRONTAGE, depth: CREW_DEPTH };
                let crew = self.world.spawn((Crew { unit, with: None }, fp)).id();
                self.world.entity_mut(unit).insert(Detached { crew });
                report.change("7.4", format!("{name}'s crew leaves its guns, which stay where they are"));
                crew
            }
        };
        // 7.5: a crew riding with its infantry leaves it and retreats on its own as skirmishers.
        if let Some(mut c) = self.world.get_mut::<Crew>(crew) {
            c.with = None;
        }
        let d = moves as f32 * self.crew_move();
        if let Some(mut fp) = self.world.get_mut::<Footprint>(crew) {
            fp.centre += away * d;
            fp.facing = vector_bearing(away);
        }
        self.turn_mut(unit).moved = true;
        report.change("7.4", format!("{name}'s crew retreats {d:.2}\" as infantry in skirmish line"));
    }

    /// Where a detached crew's Move would take it, and the inches spent (7.4). Nothing changes.
    pub(super) fn validate_crew_move(&self, unit: Entity, steps: &[MoveStep]) -> Result<(super::operations::Permit, Footprint, f32), Refusal> {
        let name = self.unit(unit).name.clone();
        let p = self.permit(unit, &[Activity::Move])?;
        let Some(mut fp) = self.detached_crew(unit) else { return refuse("7.4", format!("{name}'s crew is with its guns")) };
        if let Some(host) = self.riding_with(unit) {
            return refuse("7.5", format!("{name}'s crew moves with {} as a stand of it: detach the crew first (7.5)", self.unit(host).name));
        }
        let mut spent = 0.0;
        for s in steps {
            match *s {
                MoveStep::Forward(d) if d >= 0.0 => {
                    fp.centre += fp.forward() * d;
                    spent += d;
                }
                MoveStep::Oblique { angle, distance } if angle.abs() <= 45.0 && distance >= 0.0 => {
                    fp.centre += bearing_vector(fp.facing + angle) * distance;
                    spent += distance;
                }
                MoveStep::AboutFace => fp.facing = (fp.facing + 180.0).rem_euclid(360.0),
                _ => return refuse("7.4", format!("{name}'s detached crew moves as skirmishers: forward, oblique or about face only")),
            }
        }
        let most = self.crew_move() * p.factor;
        if p.spent + spent > most + 1e-3 {
            return refuse("7.4", format!("{name}'s crew moves at most {most:.2}\" as skirmishers; this would be {:.2}\"", p.spent + spent));
        }
        if !self.situation().on_table(fp.centre) {
            return refuse("7.4", format!("{name}'s crew would leave the table"));
        }
        Ok((p, fp, spent))
    }

    pub(super) fn move_crew(&mut self, action: &Action, unit: Entity, steps: &[MoveStep]) -> Result<Report, Refusal> {
        let (p, fp, spent) = self.validate_crew_move(unit, steps)?;
        let name = self.unit(unit).name.clone();
        let crew = self.world.get::<Detached>(unit).expect("validated").crew;
        *self.world.get_mut::<Footprint>(crew).expect("a crew stand") = fp;
        self.record(&p, p.spent + spent);
        let mut report = Report::otp(self.turn(), action, format!("{name}'s detached crew moves (7.4)"));
        report.outcome = format!("{name}'s crew moves {spent:.2}\" as skirmishers");
        report.change("7.4", format!("{name}'s crew is now at ({:.2}, {:.2})", fp.centre.x, fp.centre.y));
        Ok(report)
    }

    /// 7.5: the infantry unit `gun`'s detached crew rides with, if any.
    pub fn riding_with(&self, gun: Entity) -> Option<Entity> {
        let d = self.world.get::<Detached>(gun)?;
        // A unit wiped out leaves its riding crew on its own (7.4).
        self.world.get::<Crew>(d.crew)?.with.filter(|&h| self.world.get::<crate::scenario::spawn::Unit>(h).is_some_and(|u| u.figures > 0))
    }

    /// 7.5: the guns whose crews ride with `infantry`, in roster order.
    pub(super) fn riders(&self, infantry: Entity) -> Vec<Entity> {
        self.roster.units.iter().map(|u| u.0).filter(|&g| self.riding_with(g) == Some(infantry)).collect()
    }

    /// Where a crew riding with `infantry` stands: in contact behind its end stand.
    fn riding_spot(&self, infantry: Entity) -> Option<Footprint> {
        let last = self.unit(infantry).stands.last().and_then(|&s| self.world.get::<Footprint>(s).copied())?;
        let back = -last.forward();
        Some(Footprint { centre: last.centre + back * (last.depth / 2.0 + CREW_DEPTH / 2.0), facing: last.facing, frontage: CREW_FRONTAGE, depth: CREW_DEPTH })
    }

    /// 7.5: `infantry` retreats: each attached unlimbered gun stays where it is (no longer
    /// attached), takes the infantry's Morale Marker, and its crew leaves it to ride with the
    /// infantry. Call before the infantry's stands move.
    pub(super) fn guns_left_behind(&mut self, report: &mut Report, infantry: Entity) {
        if self.arm(infantry) != ArmClass::Infantry {
            return;
        }
        let iname = self.unit(infantry).name.clone();
        let guns: Vec<Entity> = self
            .roster
            .units
            .iter()
            .map(|u| u.0)
            .filter(|&g| self.world.get::<crate::scenario::spawn::Unit>(g).is_some_and(|u| u.attached_to == Some(infantry) && u.formation == Formation::Unlimbered) && self.world.get::<Detached>(g).is_none())
            .collect();
        for gun in guns {
            let name = self.unit(gun).name.clone();
            let Some(fp) = self.riding_spot(infantry) else { continue };
            self.unit_mut(gun).attached_to = None;
            let crew = self.world.spawn((Crew { unit: gun, with: Some(infantry) }, fp)).id();
            self.world.entity_mut(gun).insert(Detached { crew });
            report.change("7.5", format!("{name}'s gun stays where it is; its crew leaves it and goes with {iname} as a stand of it"));
            self.give_marker(report, gun, false);
        }
    }

    /// 7.5: crews riding with `infantry` go where it went (behind its end stand); with `reman`
    /// (the end of its Move), a crew whose gun is now within [`CONTACT`] of one of its stands
    /// remans it.
    pub(super) fn carry_riders(&mut self, report: &mut Report, infantry: Entity, reman: bool) {
        let iname = self.unit(infantry).name.clone();
        let stands: Vec<Footprint> = self.unit(infantry).stands.iter().filter_map(|&s| self.world.get::<Footprint>(s).copied()).collect();
        for gun in self.riders(infantry) {
            let crew = self.world.get::<Detached>(gun).expect("riding").crew;
            let name = self.unit(gun).name.clone();
            let gun_fp = self.unit(gun).stands.first().and_then(|&s| self.world.get::<Footprint>(s).copied());
            if reman && let Some(g) = gun_fp && stands.iter().any(|f| f.distance(&g) <= CONTACT) {
                self.world.despawn(crew);
                self.world.entity_mut(gun).remove::<Detached>();
                self.turn_mut(gun).remanned = true;
                report.change("7.5", format!("{iname} is back in contact with {name}'s gun: its crew remans it (it acts again from its next operation; attach it again to carry it)"));
                continue;
            }
            if let Some(spot) = self.riding_spot(infantry)
                && let Some(mut fp) = self.world.get_mut::<Footprint>(crew)
            {
                *fp = spot;
            }
        }
    }

    /// Would `Action::Reman` be allowed now? (7.4) Nothing changes.
    pub fn check_reman(&self, name: &str) -> Result<(), Refusal> {
        let unit = self.find_unit(name)?;
        self.require_phasing(unit)?;
        if self.has_marker(unit) {
            return refuse("10.1", format!("{name} has a Morale Marker: it may not perform any operation until the marker is removed (10.2)"));
        }
        let Some(crew) = self.detached_crew(unit) else { return refuse("7.4", format!("{name}'s crew is with its guns")) };
        let gun = self.unit(unit).stands.first().and_then(|&s| self.world.get::<Footprint>(s).copied());
        match gun {
            Some(g) if g.distance(&crew) <= CONTACT => Ok(()),
            Some(g) => refuse("7.4", format!("{name}'s crew is {:.2}\" from its guns: it must move into contact to reman them", g.distance(&crew))),
            None => refuse("7.4", format!("{name} has no gun left")),
        }
    }

    /// 7.4: the crew in contact with its gun remans it; the gun acts again from its next operation.
    pub(super) fn reman(&mut self, action: &Action, name: &str) -> Result<Report, Refusal> {
        self.check_reman(name)?;
        let unit = self.find_unit(name)?;
        let crew = self.world.get::<Detached>(unit).expect("checked").crew;
        self.world.despawn(crew);
        self.world.entity_mut(unit).remove::<Detached>();
        self.turn_mut(unit).remanned = true;
        let mut report = Report::otp(self.turn(), action, format!("{name}'s crew remans its guns (7.4)"));
        report.outcome = format!("{name} is manned again: its guns may act from its next operation");
        report.change("7.4", format!("{name}: crew back with the guns"));
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;
    use crate::rules::otp::charts::MoraleResult;
    use crate::scenario::spawn::{MoraleMarker, Unit};

    fn guns_retreat(g: &mut Game, formation: Formation) -> (Entity, Footprint) {
        ok(g, Action::StartGame);
        let guns = g.unit_entity("Royal Artillery").unwrap();
        let mut u = g.world.get_mut::<Unit>(guns).unwrap();
        u.formation = formation;
        u.attached_to = None;
        let gun = *g.world.get::<Footprint>(g.unit(guns).stands[0]).unwrap();
        let mut report = Report::otp(1, &Action::EndTurn, "test");
        g.apply_result(&mut report, guns, MoraleResult::Retreat { moves: 1 });
        g.world.entity_mut(guns).remove::<MoraleMarker>();
        (guns, gun)
    }

    // OTP 7.4: a morale retreat of unlimbered guns leaves the gun and moves the crew as
    // skirmishers; the gun cannot fire or limber while detached; the crew moves back, remans,
    // and the gun acts again in a later turn.
    #[test]
    fn crew_leaves_and_remans_the_guns() {
        let mut g = teaching(3);
        let (guns, gun) = guns_retreat(&mut g, Formation::Unlimbered);
        assert_eq!(*g.world.get::<Footprint>(g.unit(guns).stands[0]).unwrap(), gun, "the gun stays");
        let crew = g.detached_crew(guns).expect("7.4: crew detached");
        let away = gun.distance(&crew);
        assert!(away > 1.0, "crew retreated {away}");
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::fire("Royal Artillery", "1st Maryland"), "7.4");
        refused(&mut g, Action::ChangeFormation { unit: "Royal Artillery".into(), formation: Formation::Limbered }, "7.4");
        refused(&mut g, Action::Reman { unit: "Royal Artillery".into() }, "7.4");
        assert!(!g.may_fire(guns));
        // Back towards the guns: about face, then forward until in contact.
        let steps = vec![MoveStep::AboutFace, MoveStep::Forward(away - 0.1)];
        g.check_move("Royal Artillery", &steps).unwrap();
        ok(&mut g, Action::Move { unit: "Royal Artillery".into(), steps });
        ok(&mut g, Action::Reman { unit: "Royal Artillery".into() });
        assert!(g.detached_crew(guns).is_none());
        assert!(!g.may_fire(guns), "7.4: not in the operation it remanned");
        super::super::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Webster's Brigade");
        assert!(g.may_fire(guns), "7.4: the gun acts again in a later turn");
    }

    fn stand0(g: &Game, unit: Entity) -> Footprint {
        *g.world.get::<Footprint>(g.unit(unit).stands[0]).unwrap()
    }

    /// The 23rd Foot, with the Royal Artillery attached and unlimbered, retreats one move.
    fn infantry_retreats(g: &mut Game) -> (Entity, Entity, Footprint, Footprint) {
        ok(g, Action::StartGame);
        let guns = g.unit_entity("Royal Artillery").unwrap();
        let foot = g.unit_entity("23rd Foot").unwrap();
        assert_eq!(g.unit(guns).attached_to, Some(foot));
        g.world.get_mut::<Unit>(guns).unwrap().formation = Formation::Unlimbered;
        let (gun, before) = (stand0(g, guns), stand0(g, foot));
        let mut report = Report::otp(1, &Action::EndTurn, "test");
        g.give_marker(&mut report, foot, false);
        g.apply_result(&mut report, foot, MoraleResult::Retreat { moves: 1 });
        assert!(report.changes.iter().any(|c| c.rule == "7.5"), "{report}");
        (guns, foot, gun, before)
    }

    // OTP 7.5: an infantry unit retreats with its attached unlimbered gun: the gun model stays,
    // its crew leaves it and goes with the infantry as a stand of it, and the gun shares the
    // infantry's Morale Marker. Unmanned, the gun cannot fire, and its own Move (the riding crew)
    // is refused. The infantry moves back into contact with the gun and the crew remans it; the
    // gun acts again in a later turn.
    #[test]
    fn attached_guns_crew_retreats_with_its_infantry() {
        let mut g = teaching(3);
        let (guns, foot, gun, before) = infantry_retreats(&mut g);
        let after = stand0(&g, foot);
        let back = before.centre - after.centre;
        assert!(back.length() > 1.0, "the infantry retreated {}", back.length());
        assert_eq!(stand0(&g, guns), gun, "7.5: the gun model stays where it is");
        assert_eq!(g.riding_with(guns), Some(foot), "7.5: the crew goes with the infantry");
        assert!(g.unit(guns).attached_to.is_none());
        assert!(g.has_marker(guns), "7.5: the gun suffers the infantry's Morale Marker");
        let crew = g.detached_crew(guns).unwrap();
        let last = *g.world.get::<Footprint>(*g.unit(foot).stands.last().unwrap()).unwrap();
        assert!(crew.distance(&last) < 0.05, "the crew is a stand of the unit, behind its end stand");
        // Markers off for the test: the gun is still unmanned.
        g.world.entity_mut(guns).remove::<MoraleMarker>();
        g.world.entity_mut(foot).remove::<MoraleMarker>();
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::fire("Royal Artillery", "1st Maryland"), "7.4");
        refused(&mut g, Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(1.0)] }, "7.5");
        assert!(!g.may_fire(guns));
        // The crew rides along with a move of the infantry.
        let angle = (vector_bearing(back) - after.facing + 540.0).rem_euclid(360.0) - 180.0;
        let step = |d: f32| if angle.abs() < 0.5 { MoveStep::Forward(d) } else { MoveStep::Oblique { angle, distance: d } };
        let first = back.length() / 2.0;
        ok(&mut g, Action::Move { unit: "23rd Foot".into(), steps: vec![step(first)] });
        let last = *g.world.get::<Footprint>(*g.unit(foot).stands.last().unwrap()).unwrap();
        assert!(g.detached_crew(guns).unwrap().distance(&last) < 0.05, "the crew moves with the infantry");
        // Next turn, back into contact with the gun: the crew remans it.
        super::super::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Webster's Brigade");
        assert!(!g.may_fire(guns), "7.4: unmanned");
        let r = ok(&mut g, Action::Move { unit: "23rd Foot".into(), steps: vec![step(back.length() - first - 0.05)] });
        assert!(r.changes.iter().any(|c| c.rule == "7.5" && c.text.contains("remans")), "{r}");
        assert!(g.detached_crew(guns).is_none(), "7.5: manned again");
        assert!(!g.may_fire(guns), "7.4: not in the operation it remanned");
        super::super::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Webster's Brigade");
        assert!(g.may_fire(guns), "7.5: the gun acts again in a later turn");
    }

    // OTP 7.5: the crew may instead leave the infantry ("detaching" the crew figures), move as
    // skirmishers into contact with the gun and reman it (7.4).
    #[test]
    fn riding_crew_detaches_and_remans() {
        let mut g = teaching(3);
        let (guns, foot, _, _) = infantry_retreats(&mut g);
        g.world.entity_mut(guns).remove::<MoraleMarker>();
        g.world.entity_mut(foot).remove::<MoraleMarker>();
        activate(&mut g, "Webster's Brigade");
        ok(&mut g, Action::Detach { gun: "Royal Artillery".into() });
        assert!(g.riding_with(guns).is_none() && g.detached_crew(guns).is_some());
        refused(&mut g, Action::Detach { gun: "Royal Artillery".into() }, "7.5");
        refused(&mut g, Action::Reman { unit: "Royal Artillery".into() }, "7.4");
    }

    // OTP 10.2, 7.5: a re-roll takes back the infantry's retreat, and with it the gun left behind.
    #[test]
    fn reroll_restores_the_guns_left_behind() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        let guns = g.unit_entity("Royal Artillery").unwrap();
        let foot = g.unit_entity("23rd Foot").unwrap();
        g.world.get_mut::<Unit>(guns).unwrap().formation = Formation::Unlimbered;
        let before = g.capture(foot);
        let mut report = Report::otp(1, &Action::EndTurn, "test");
        g.apply_result(&mut report, foot, MoraleResult::Retreat { moves: 1 });
        assert!(g.riding_with(guns).is_some());
        g.restore(foot, before);
        assert!(g.detached_crew(guns).is_none() && g.unit(guns).attached_to == Some(foot) && !g.has_marker(guns));
    }

    // OTP 7.4: limbered artillery retreats as a whole, with no detachment.
    #[test]
    fn limbered_guns_retreat_whole() {
        let mut g = teaching(3);
        let (guns, gun) = guns_retreat(&mut g, Formation::Limbered);
        assert!(g.detached_crew(guns).is_none());
        let _ = gun; // it retreats by 6.11 (here stopped short by the infantry beside it)
    }
}
