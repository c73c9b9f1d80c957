//! Fire combat wired into the game (8.x): the operation is checked (3.1–3.3), the fire module
//! judges and resolves the shot ([`crate::rules::otp::fire`]), its changes are made to the world,
//! and the engine does what follows: the operation recorded, artillery targets out of reserve
//! status (11.0), Morale Markers dated (10.1, 10.4) and fallen commanders (8.16, 10.5).

use bevy::prelude::Entity;

use super::action::Action;
use super::operations::{Activity, Asked};
use super::report::{Refusal, Report, refuse};
use super::Game;
use crate::rules::otp::charts::{Ammo, FireResult};
use crate::rules::otp::fire::{self, FireContext, FireReport, FireTable, MarkerChange};
use crate::scenario::model::Arm;

impl From<fire::Refusal> for Refusal {
    fn from(r: fire::Refusal) -> Self {
        Refusal::otp(&r.rule, r.reason)
    }
}

impl Game {
    /// The shot `name` would fire at `target` now: the table, the indices and the ammunition
    /// (`ammo`, or for artillery canister when allowed, else ball, 8.4). Not yet judged.
    fn fire_shot(&self, name: &str, target: &str, ammo: Option<Ammo>) -> Result<(&FireTable, usize, usize, Ammo), Refusal> {
        let table = self.fire_table();
        let s = &table.situation;
        let firer = s.find(name).map_err(|e| Refusal::otp("4.2", e))?;
        let at = s.find(target).map_err(|e| Refusal::otp("4.2", e))?;
        let gun = s.unit(firer).gun().is_some();
        let ammo = match ammo {
            Some(a) => a,
            None if gun && fire::preview(&FireContext::new(&table, firer, at).ammo(Ammo::Canister), &self.charts).is_ok() => Ammo::Canister,
            None => Ammo::Ball,
        };
        Ok((table, firer, at, ammo))
    }

    /// Fire as (part of) the unit's operation, with the inches it has moved still within the
    /// fitting operation's move (3.1: "move 1/2 and fire" after a full move is no fire).
    fn fire_permit(&self, asked: Asked, unit: Entity) -> Result<super::operations::Permit, Refusal> {
        let permit = self.permit_when(asked, unit, &[Activity::Fire])?;
        self.within_budget(&permit, permit.spent, None)?;
        Ok(permit)
    }

    /// Would `Action::Fire` be allowed now? The operation (3.1–3.3) and the shot (8.x) judged,
    /// nothing rolled or changed: the odds of every result, for a player or the bot to weigh.
    pub fn fire_preview(&self, name: &str, target: &str, ammo: Option<Ammo>) -> Result<fire::FirePreview, Refusal> {
        self.fire_preview_when(Asked::Now, name, target, ammo)
    }

    /// As [`Game::fire_preview`], asked now or as if the firer's brigade had just been drawn
    /// (`otp fire` at set-up): the same judgement, the same refusals.
    pub fn fire_preview_when(&self, asked: Asked, name: &str, target: &str, ammo: Option<Ammo>) -> Result<fire::FirePreview, Refusal> {
        let (_, _, table, firer, at, ammo) = self.judge_fire(asked, name, target, ammo)?;
        Ok(fire::preview(&FireContext::new(&table, firer, at).ammo(ammo), &self.charts)?)
    }

    /// The one judgement of a shot before any die (3.1–3.3, 6.11, 8.x): the operation's permit,
    /// the target, the table, the indices and the ammunition; the shot itself is the fire
    /// module's to refuse (`fire::preview`, `fire::resolve` share its plan).
    #[allow(clippy::type_complexity)]
    fn judge_fire(&self, asked: Asked, name: &str, target: &str, ammo: Option<Ammo>) -> Result<(super::operations::Permit, Entity, &FireTable, usize, usize, Ammo), Refusal> {
        let unit = self.find_unit(name)?;
        let permit = self.fire_permit(asked, unit)?;
        let target_unit = self.find_unit(target)?;
        if self.unit_turn(target_unit).off_table {
            return refuse("6.11", format!("{target} has left the table"));
        }
        let (table, firer, at, ammo) = self.fire_shot(name, target, ammo)?;
        Ok((permit, target_unit, table, firer, at, ammo))
    }

    /// Fire (8.x): a unit's own fire operation, or the fire part of one (3.1–3.3).
    pub(super) fn fire(&mut self, action: &Action, name: &str, target: &str, ammo: Option<Ammo>) -> Result<Report, Refusal> {
        let (permit, target_unit, table, firer, at, ammo) = self.judge_fire(Asked::Now, name, target, ammo)?;
        let table = table.clone();
        let unit = permit.unit;
        // Judged legal: from here the dice roll and the world changes.
        let shot = fire::resolve(&FireContext::new(&table, firer, at).ammo(ammo), &self.charts, &mut self.dice)?;
        self.record(&permit, permit.spent);
        let mut report = Report::otp(self.turn(), action, format!("{name} fires at {target} (8.1)"));
        self.fire_effects(&mut report, unit, target_unit, &shot);
        Ok(report)
    }

    /// A resolved shot made real: its changes to the world, its lines in the report, artillery
    /// targets out of reserve status (11.0) and fallen commanders (8.16, 10.5). For a unit's own
    /// fire and for the fire a charge calls for (9.2–9.4, 9.7).
    pub(super) fn fire_effects(&mut self, report: &mut Report, unit: Entity, target_unit: Entity, shot: &FireReport) {
        fire::apply_fire(&mut self.world, shot).expect("every unit and commander the shot names is in the world");
        self.report_fire(report, shot);
        if matches!(self.unit(unit).arm, Arm::Artillery { .. }) && self.world.get::<crate::scenario::spawn::Unit>(target_unit).is_some() {
            self.mark_artillery_target(target_unit);
            report.change("11.0", format!("{} was fired on by artillery: not in reserve status this turn", shot.shot.target));
        }
        for c in shot.commander_rolls.iter().filter(|c| c.casualty) {
            if let Some(commander) = self.commander_entity(&c.commander) {
                self.commander_casualty(report, commander);
            }
        }
    }

    /// The shot's dice, modifiers, chart cells and changes in the action's report; markers dated.
    fn report_fire(&mut self, report: &mut Report, shot: &FireReport) {
        if let Some(v) = &shot.visibility {
            report.die("8.7", format!("visibility in {:?} woods", v.woods), &v.roll);
            report.chart("VISIBILITY IN WOODS", format!("{:?}", v.woods), v.roll.total.to_string(), format!("{:.0}\"", v.inches), &v.provenance);
        }
        if !shot.visible {
            report.outcome = format!("{} cannot see {} through the woods: no fire", shot.shot.firer, shot.shot.target);
            report.note("8.7", "no firing stand sees the target");
            return;
        }
        for m in &shot.modifiers {
            report.modifier(&m.rule, &m.name, m.value);
            if let Some(d) = &m.detail {
                report.note(&m.rule, format!("{}: {d}", m.name.replace('_', " ")));
            }
        }
        report.note("8.1", format!("column: {}; range {:.2}\"; {} figure(s) firing", shot.column.label, shot.geometry.range, shot.geometry.figures));
        if let Some(roll) = &shot.roll {
            report.die("8.1", format!("fire of {} at {}", shot.shot.firer, shot.shot.target), roll);
        }
        for c in &shot.cells {
            report.chart("FIRE COMBAT", format!("{} {}", shot.column.family, c.column), c.row.to_string(), c.result.to_string(), &c.provenance);
        }
        for c in &shot.commander_rolls {
            report.die("8.16", format!("{} with {}", c.commander, c.unit), &c.roll);
            report.chart("COMMANDER CASUALTY", "fire", c.roll.total.to_string(), if c.casualty { "casualty" } else { "unhurt" }, &c.provenance);
        }
        let result = match shot.result {
            FireResult::NoEffect => "no effect".to_string(),
            FireResult::Morale => "a morale hit".to_string(),
            FireResult::Kills(k) => format!("{k} kill(s)"),
        };
        report.outcome = format!("{} fires on {} (chart {}): {result}", shot.shot.firer, shot.shot.target, shot.result);
        if shot.initial_volley_expended {
            report.change("8.5", format!("{} has fired its initial volley", shot.shot.firer));
        }
        for e in &shot.effects {
            report.change("8.2", format!("{}: {}; {} figure(s) left", e.unit, e.why, e.figures_left));
            let Some(u) = self.unit_entity(&e.unit) else {
                report.change("8.2", format!("{} has no figures left and is removed", e.unit));
                continue;
            };
            match e.morale_marker {
                MarkerChange::Gained => self.give_marker(report, u, false),
                MarkerChange::AlreadyHad => report.change("10.1", format!("{} keeps its one Morale Marker", e.unit)),
                MarkerChange::None => {}
            }
        }
    }

    /// Whether `unit` may still fire this turn as (part of) its operation (3.1–3.3).
    pub fn may_fire(&self, unit: Entity) -> bool {
        self.fire_permit(Asked::Now, unit).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, teaching};
    use super::*;

    // OTP 6.11: a unit that has left the table is no target. The preview (which the bot and the
    // window ask first) refuses it exactly as the shot does: one check, not two.
    #[test]
    fn a_target_that_has_left_the_table_is_refused_by_the_preview_as_by_the_shot() {
        let mut g = teaching(1);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        assert!(g.fire_preview("Continental Artillery", "23rd Foot", None).is_ok(), "a shot at set-up");
        let foot = g.unit_entity("23rd Foot").unwrap();
        g.turn_mut(foot).off_table = true;
        let preview = g.fire_preview("Continental Artillery", "23rd Foot", None).expect_err("no target");
        assert_eq!(preview.rule, "6.11", "{preview}");
        let shot = g.apply(Action::fire("Continental Artillery", "23rd Foot")).expect_err("no target");
        assert_eq!((shot.rule, shot.reason), (preview.rule, preview.reason));
    }
}
