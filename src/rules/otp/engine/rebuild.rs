//! Rebuilding units (4.4, 11.0): after the last chit, a unit in reserve status (not moved this
//! turn, out of enemy small-arms range, not fired on by artillery) may roll a D10 on the UNIT
//! REBUILDING TABLE, State Line -1 and Elite +1; on a success averaging dice give the figures
//! regained, never above its starting strength. Never Militia or Indians; at most 4 attempts.

use bevy::prelude::Entity;

use super::action::Action;
use super::report::{Refusal, Report, refuse};
use super::state::Phase;
use super::Game;
use crate::rules::otp::charts::RebuildRefusal;
use crate::scenario::basing;
use crate::scenario::spawn::Stand;
use crate::rules::otp::fire::range::small_arms_range;
use crate::table::range::unit_distance;

impl Game {
    /// 11.0: the nearest enemy with small arms in range of the unit, if any: (name, distance, range).
    fn small_arms_threat(&self, unit: Entity) -> Option<(String, f32, f32)> {
        let s = self.situation();
        let me = s.find(&self.unit(unit).name).ok()?;
        let side = self.unit(unit).side;
        self.units()
            .filter(|&(e, u)| u.side != side && u.figures > 0 && !self.unit_turn(e).off_table && !matches!(u.arm, crate::scenario::model::Arm::Artillery { .. }))
            .filter_map(|(_, u)| {
                let range = small_arms_range(u.weapon?);
                let d = unit_distance(&s, s.find(&u.name).ok()?, me);
                (d <= range + crate::table::geom::EPS).then(|| (u.name.clone(), d, range))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Put regained figures back on the unit's stands, up to each stand's starting figures.
    fn regain(&mut self, unit: Entity, figures: u32) -> u32 {
        let name = self.unit(unit).name.clone();
        let capacity = self.model_unit(&name).and_then(|m| basing::stand_figures(m).ok()).unwrap_or_default();
        let mut left = figures;
        for s in self.unit(unit).stands.clone() {
            let mut stand = self.world.get_mut::<Stand>(s).expect("a stand");
            let room = capacity.get(stand.index).copied().unwrap_or(stand.figures).saturating_sub(stand.figures);
            let add = room.min(left);
            stand.figures += add;
            left -= add;
        }
        let placed = figures - left;
        self.unit_mut(unit).figures += placed;
        placed
    }

    /// Would `unit` be allowed a rebuild attempt now (4.4, 11.0)? Nothing is rolled or changed.
    pub fn check_rebuild(&self, name: &str) -> Result<(), Refusal> {
        self.validate_rebuild(name).map(|_| ())
    }

    fn validate_rebuild(&self, name: &str) -> Result<(Entity, crate::scenario::spawn::Unit), Refusal> {
        match self.phase() {
            Phase::Rebuild => {}
            Phase::Setup | Phase::Over => self.require_play()?,
            _ => return refuse("4.4", "rebuilds are attempted after the last chit is pulled and its activation ended"),
        }
        let unit = self.find_unit(name)?;
        let u = self.unit(unit).clone();
        let t = self.unit_turn(unit);
        if t.off_table || u.figures == 0 {
            return refuse("11.0", format!("{name} is no longer on the table"));
        }
        let chart = &self.charts.rebuild;
        let lost = u.initial_figures.saturating_sub(u.figures);
        match chart.may_attempt(u.unit_type, u.rebuild_attempts as u32, lost) {
            Err(RebuildRefusal::NeverForType(ty)) => return refuse("11.0", format!("{ty:?} units are not permitted attempts to rebuild")),
            Err(RebuildRefusal::NoAttemptsLeft { max }) => return refuse("11.0", format!("{name} has made its {max} attempts: a unit may never try to rebuild more than {max} times a game")),
            Err(RebuildRefusal::AtFullStrength) => return refuse("11.0", format!("{name} is at its starting strength: a unit may only rebuild to the strength it started with")),
            Ok(()) => {}
        }
        if t.rebuild_tried {
            return refuse("11.0", format!("{name} has tried to rebuild this turn"));
        }
        if t.moved {
            return refuse("11.0", format!("{name} moved this turn: not in reserve status"));
        }
        if t.artillery_target {
            return refuse("11.0", format!("{name} was a target of artillery fire this turn: not in reserve status"));
        }
        if let Some((enemy, d, range)) = self.small_arms_threat(unit) {
            return refuse("11.0", format!("{name} is {d:.2}\" from {enemy}, within its {range}\" small-arms range: not in reserve status"));
        }
        Ok((unit, u))
    }

    pub(super) fn attempt_rebuild(&mut self, action: &Action, name: &str) -> Result<Report, Refusal> {
        let (unit, u) = self.validate_rebuild(name)?;
        let lost = u.initial_figures.saturating_sub(u.figures);
        // Validated: roll.
        let mut report = Report::otp(self.turn(), action, format!("{name} attempts to rebuild (4.4, 11.0)"));
        let roll = self.dice.d10();
        report.die("11.0", format!("{name} on the UNIT REBUILDING TABLE"), &roll);
        let chart = self.charts.rebuild.clone();
        let modifier = chart.modifier(u.unit_type);
        if let Some(m) = chart.type_modifiers.iter().find(|m| m.unit_type == u.unit_type) {
            report.modifier("11.0", format!("{:?} unit", u.unit_type), modifier);
            report.chart("UNIT REBUILDING TABLE: modifiers", "type", format!("{:?}", u.unit_type), format!("{modifier:+}"), &m.source);
        }
        let modified = roll.total + modifier;
        let attempts = u.rebuild_attempts + 1;
        {
            let mut sheet = self.unit_mut(unit);
            sheet.rebuild_attempts = attempts;
        }
        self.turn_mut(unit).rebuild_tried = true;
        report.change("4.2", format!("{name} has made {attempts} of its {} rebuild attempts", chart.max_attempts.value));
        match chart.check(u.unit_type, roll.total) {
            None => {
                let source = chart.results.first().map_or(chart.max_attempts.source.clone(), |r| r.source.clone());
                let need = chart.results.first().map_or(0, |r| r.at_least);
                report.chart("UNIT REBUILDING TABLE", format!("{:?}", u.unit_type), modified.to_string(), format!("fails (needs {need} or more)"), &source);
                report.outcome = format!("{name} fails to rebuild");
            }
            Some(row) => {
                report.chart("UNIT REBUILDING TABLE", format!("{:?}", u.unit_type), modified.to_string(), format!("{}AD {:+} figures", row.dice, row.modifier), &row.source);
                let ad = self.dice.ad(row.dice);
                report.die("11.0", format!("figures regained by {name}"), &ad);
                report.modifier("11.0", "UNIT REBUILDING TABLE row", row.modifier);
                let gained = chart.figures_regained(row, ad.total, lost);
                let placed = self.regain(unit, gained);
                if placed < gained {
                    // TODO(11.0): re-form stands lost entirely ("rebuild lost stands", 4.4).
                    report.note("11.0", format!("{} figures have no stand to return to (lost stands are not yet re-formed)", gained - placed));
                }
                report.outcome = format!("{name} regains {placed} figures ({} of {})", u.figures + placed, u.initial_figures);
                report.change("11.0", format!("{name} now has {} figures", u.figures + placed));
            }
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ok, refused, teaching, to_rebuilds};
    use super::*;

    fn rebuild(unit: &str) -> Action {
        Action::AttemptRebuild { unit: unit.into() }
    }

    // OTP 4.4: only after the last chit; 11.0: never militia, never at full strength, once a
    // turn, at most four times, never above the starting strength.
    #[test]
    fn rebuild_rules() {
        let mut g = teaching(8);
        ok(&mut g, Action::StartGame);
        refused(&mut g, rebuild("23rd Foot"), "4.4");
        to_rebuilds(&mut g);
        refused(&mut g, rebuild("23rd Foot"), "11.0"); // full strength
        refused(&mut g, rebuild("North Carolina Militia"), "11.0");
        let foot = g.unit_entity("23rd Foot").unwrap();
        g.lose_figures(foot, 5);
        for turn in 0..4 {
            let r = ok(&mut g, rebuild("23rd Foot"));
            assert_eq!(r.dice[0].roll.kind, crate::rules::dice::DiceKind::D10);
            refused(&mut g, rebuild("23rd Foot"), "11.0");
            let u = g.unit(foot);
            assert!(u.figures <= u.initial_figures);
            assert_eq!(u.rebuild_attempts as usize, turn + 1);
            if u.figures == u.initial_figures {
                g.lose_figures(foot, 2);
            }
            ok(&mut g, Action::EndTurn);
            to_rebuilds(&mut g);
        }
        let r = refused(&mut g, rebuild("23rd Foot"), "11.0");
        assert!(r.reason.contains("4"), "{r}");
    }

    // OTP 11.0: reserve status: not within enemy small-arms range, not moved, not an artillery target.
    #[test]
    fn reserve_status() {
        let mut g = teaching(8);
        ok(&mut g, Action::StartGame);
        to_rebuilds(&mut g);
        let lights = g.unit_entity("Delaware Light Infantry").unwrap();
        g.lose_figures(lights, 2);
        // Move the 71st Light Company's stands to 3" from the Delaware Light Infantry.
        let near = crate::table::footprint::Footprint { centre: bevy::math::Vec2::new(34.0, 31.0), facing: 180.0, frontage: 1.0, depth: 0.75 };
        let light_coy = g.unit_entity("71st Light Company").unwrap();
        let stands = g.unit(light_coy).stands.clone();
        for (i, s) in stands.iter().enumerate() {
            *g.world_mut().get_mut::<crate::table::footprint::Footprint>(*s).unwrap() = crate::table::footprint::Footprint { centre: near.centre + bevy::math::Vec2::new(i as f32 * 2.0, 0.0), ..near };
        }
        let r = refused(&mut g, rebuild("Delaware Light Infantry"), "11.0");
        assert!(r.reason.contains("small-arms"), "{r}");
        let foot = g.unit_entity("1st Maryland").unwrap();
        g.lose_figures(foot, 2);
        g.mark_artillery_target(foot);
        let r = refused(&mut g, rebuild("1st Maryland"), "11.0");
        assert!(r.reason.contains("artillery"), "{r}");
    }
}
