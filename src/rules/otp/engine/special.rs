//! Special moves (6.8): an infantry unit adds 1AD (cavalry 2AD) to its full normal move. Not
//! through disordering terrain, not with a change of formation, not with fire; linear obstacles
//! are crossed at their cost. A special move is the unit's whole operation this turn.
//!
//! Everything that does not depend on the dice is judged first (the operation, the steps'
//! geometry within the most the dice could give, no disordering terrain, attached guns); only
//! then are the dice rolled. If the steps ask for more than the full move plus the roll, the
//! unit still moves, as far along its steps as the roll allows, and the report says so: the
//! dice have been thrown, so the order is carried out as far as it can be.
//! (A special move to contact an enemy belongs to the charge, 6.9/9.x, and is not here.)

use bevy::prelude::Entity;

use super::action::Action;
use super::operations::{Activity, Permit};
use super::report::{Refusal, Report, refuse};
use super::terrain::truncate;
use super::Game;
use crate::rules::dice::DiceKind;
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use super::move_rules::OTP;
use crate::table::movement::{Allowance, MoveReport, MoveStep, plan_move};

impl Game {
    /// A special move judged before the dice (6.8, 3.x, 6.x, 7.5): the unit, its permit, its
    /// allowance without the dice, the averaging dice it rolls and the plan. Nothing changes.
    #[allow(clippy::type_complexity)]
    fn validate_special(&self, name: &str, steps: &[MoveStep]) -> Result<(Entity, Permit, Allowance, u8, MoveReport), Refusal> {
        let unit = self.find_unit(name)?;
        let Some(dice) = self.charts.movement.special_move_dice(self.arm(unit)) else {
            return refuse("6.8", format!("{name}: only infantry and cavalry make special moves"));
        };
        if steps.iter().any(|s| matches!(s, MoveStep::ChangeFormation(_))) {
            return refuse("6.8", format!("{name}: a unit making a special move may not change formation"));
        }
        if steps.is_empty() {
            return refuse("6.8", format!("{name}: a special move needs at least one step"));
        }
        // 6.10: a bonus move may be a special move, after the operation and in any activation.
        if !self.bonus_pending(unit) {
            self.require_phasing(unit)?;
            if !self.unit_turn(unit).done.is_empty() {
                return refuse("6.8", format!("{name} has already acted this turn: a special move is a full move, without fire or a change of formation"));
            }
        }
        let p = self.permit(unit, &[Activity::Move])?;
        let base = self.allowance_for(&p);
        let most = DiceKind::Ad(dice).range().1 as f32;
        let widest = Allowance { full: base.full * p.factor + most, road: base.road.map(|r| r * p.factor + most) };
        let plan = self.plan(unit, steps, widest)?;
        if let Some((terrain, _)) = plan.starts_in.first() {
            return refuse("6.8", format!("{name} is in disordering terrain ({terrain}): a special move may not move through it"));
        }
        if let Some(c) = plan.disorder.first() {
            return refuse("6.8", format!("{name} would reach disordering terrain ({}) after {:.2}\": a special move may not move through it", c.terrain, c.after));
        }
        self.check_carried(name, &plan)?;
        let base = Allowance { full: base.full * p.factor, road: base.road.map(|r| r * p.factor) };
        Ok((unit, p, base, dice, plan))
    }

    /// Would this special move be allowed now (all but the dice)? Nothing is rolled or changed.
    pub fn check_special_move(&self, name: &str, steps: &[MoveStep]) -> Result<(), Refusal> {
        self.validate_special(name, steps).map(|_| ())
    }

    pub(super) fn special_move(&mut self, action: &Action, name: &str, steps: &[MoveStep]) -> Result<Report, Refusal> {
        let (unit, p, base, dice, plan) = self.validate_special(name, steps)?;
        // Validated: from here the dice roll and the world changes.
        let mut report = Report::otp(self.turn(), action, format!("{name} makes a special move (6.8)"));
        self.report_allowance(&mut report, unit, p.start);
        let roll = self.dice.ad(dice);
        report.die("6.8", format!("{dice}AD added to {name}'s full move"), &roll);
        let extra = roll.total as f32;
        let limit = if plan.road_bonus { base.road.unwrap_or(base.full) } else { base.full } + extra;
        report.note("6.8", format!("{name} may move up to {limit:.2}\" ({:.2}\" + {extra}\")", limit - extra));
        let plan = if plan.spent <= limit + EPS {
            plan
        } else {
            let s = self.situation();
            let index = s.find(name).map_err(|e| Refusal::otp("4.2", e))?;
            let start: Vec<Footprint> = self.unit(unit).stands.iter().filter_map(|&st| self.world.get::<Footprint>(st).copied()).collect();
            let allowance = Allowance { full: base.full + extra, road: base.road.map(|r| r + extra) };
            let mut cut_at = limit;
            let mut shorter = None;
            for _ in 0..6 {
                let cut = truncate(steps, &plan, cut_at, &start);
                let try_plan = plan_move(&s, index, &cut, allowance, &OTP);
                if try_plan.legal() && try_plan.doubled_up.is_none() && try_plan.spent <= limit + EPS {
                    shorter = Some(try_plan);
                    break;
                }
                cut_at -= (try_plan.spent - limit).max(0.1);
            }
            let shorter = shorter.unwrap_or_else(|| plan_move(&s, index, &[], allowance, &OTP));
            report.change("6.8", format!("the steps ask for {:.2}\" but the roll allows {limit:.2}\": {name} stops after {:.2}\"", plan.spent, shorter.spent));
            shorter
        };
        for item in &plan.items {
            report.note(item.section, format!("{}: {:.2}\"", item.what, item.inches));
        }
        self.place(unit, &plan.stands, plan.formation);
        self.place_carried(&mut report, name, &plan);
        self.record(&p, p.spent + plan.spent);
        if !p.bonus {
            self.turn_mut(unit).special_move = true;
        }
        report.outcome = format!("{name} makes a special move of {:.2}\" (allowed {limit:.2}\"); its operation is done", plan.spent);
        report.change("6.8", format!("{name} is now in {}, front at ({:.2}, {:.2})", super::describe::formation(plan.formation), plan.stands[0].front_centre().x, plan.stands[0].front_centre().y));
        if plan.off_table {
            self.turn_mut(unit).off_table = true;
            report.change("6.1", format!("{name} has left the table"));
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;
    use crate::scenario::model::Formation;

    /// The Delaware Light Infantry stand out of the 71st Light Company's way, 15" back.
    fn clear_the_way(g: &mut Game) {
        let e = g.unit_entity("Delaware Light Infantry").unwrap();
        for s in g.unit(e).stands.clone() {
            g.world_mut().get_mut::<Footprint>(s).unwrap().centre.y -= 15.0;
        }
    }

    fn special(unit: &str, steps: Vec<MoveStep>) -> Action {
        Action::SpecialMove { unit: unit.into(), steps }
    }

    // OTP 6.8: the full move plus 1AD, rolled and reported; the operation is then done (no fire).
    #[test]
    fn special_move_adds_an_averaging_die() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        clear_the_way(&mut g);
        // Skirmishers move 8"? Whatever the chart says, 1AD adds at least 2".
        let light = g.unit_entity("71st Light Company").unwrap();
        let full = g.normal_move(light, Formation::Skirmish);
        let before = g.dice_thrown();
        let r = ok(&mut g, special("71st Light Company", vec![MoveStep::Forward(full + 1.5)]));
        assert_eq!(g.dice_thrown(), before + 1);
        assert!(r.dice.iter().any(|d| d.rule == "6.8"), "{r}");
        assert!((g.unit_turn(light).spent - (full + 1.5)).abs() < 1e-3);
        // 6.8: no fire after a special move, and no second move.
        refused(&mut g, Action::fire("71st Light Company", "Virginia State Regiment"), "6.8");
        refused(&mut g, Action::Move { unit: "71st Light Company".into(), steps: vec![MoveStep::Forward(0.5)] }, "6.8");
    }

    // OTP 6.8: asking for more than the roll gives: the unit goes as far as the roll allows.
    #[test]
    fn special_move_stops_where_the_roll_ends() {
        let mut cut = 0;
        for seed in 0..12 {
            let mut g = teaching(seed);
            ok(&mut g, Action::StartGame);
            activate(&mut g, "Webster's Brigade");
            clear_the_way(&mut g);
            let light = g.unit_entity("71st Light Company").unwrap();
            let full = g.normal_move(light, Formation::Skirmish);
            let r = ok(&mut g, special("71st Light Company", vec![MoveStep::Forward(full + 4.5)]));
            let rolled = r.dice.iter().find(|d| d.rule == "6.8").unwrap().roll.total as f32;
            let spent = g.unit_turn(light).spent;
            let expect = (full + 4.5).min(full + rolled);
            assert!((spent - expect).abs() < 0.3 && spent <= full + rolled + 1e-3, "seed {seed}: {spent} for {expect}: {r}");
            cut += usize::from(rolled < 4.5 && r.changes.iter().any(|c| c.rule == "6.8" && c.text.contains("stops after")));
        }
        assert!(cut > 0, "some roll falls short of the steps");
    }

    // OTP 6.8: not through disordering terrain, not with a change of formation, not artillery,
    // not after firing; refused before any die is rolled.
    #[test]
    fn special_move_refusals() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        // The 33rd's front reaches the Wheat Field (disordering) 4" ahead.
        refused(&mut g, special("33rd Foot", vec![MoveStep::Forward(6.0)]), "6.8");
        refused(&mut g, special("33rd Foot", vec![MoveStep::ChangeFormation(Formation::Column), MoveStep::Forward(1.0)]), "6.8");
        refused(&mut g, special("Royal Artillery", vec![MoveStep::Forward(1.0)]), "6.8");
        ok(&mut g, Action::Move { unit: "71st Light Company".into(), steps: vec![MoveStep::Forward(1.0)] });
        refused(&mut g, special("71st Light Company", vec![MoveStep::Forward(1.0)]), "6.8");
        refused(&mut g, special("1st Maryland", vec![MoveStep::Forward(1.0)]), "4.3");
    }
}
