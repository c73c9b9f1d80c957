//! Commanders: COMMANDER VALUES (2.0, 4.2), riding to a unit (6.12), whose units a commander's
//! passes serve (10.4), and casualties and their replacements (10.5).

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::Game;
use super::report::{Refusal, Report, refuse};
use crate::rules::otp::fire::CommanderCasualty;
use crate::scenario::spawn::Commander;
use crate::table::footprint::Footprint;
use crate::scenario::model::WoodsDensity;
use crate::table::geom::closest_on_segment;
use crate::table::sight::point_sight;

/// The nearest point of a stand to `p` (`p` itself when inside).
pub(super) fn nearest_on(f: &Footprint, p: Vec2) -> Vec2 {
    if f.contains(p) {
        return p;
    }
    let c = f.corners();
    (0..4).map(|i| closest_on_segment(p, c[i], c[(i + 1) % 4])).min_by(|a, b| a.distance(p).total_cmp(&b.distance(p))).unwrap_or(f.centre)
}

impl Game {
    /// Roll COMMANDER VALUES for a commander (2.0): a D10 on his kind's column.
    pub(super) fn roll_commander(&mut self, report: &mut Report, commander: Entity, why: &str) {
        let (name, kind) = {
            let c = self.commander(commander);
            (c.name.clone(), c.kind)
        };
        let roll = self.dice.d10();
        report.die("2.0", format!("COMMANDER VALUES for {name}{why}"), &roll);
        let value = self.charts.commanders.rating(kind, roll.total);
        let source = self.charts.commanders.column(kind).source.clone();
        report.chart("COMMANDER VALUES", format!("{kind:?}"), roll.total.to_string(), format!("{:?}, {} morale passes", value.rating, value.passes), &source);
        let used = {
            let mut c = self.world.get_mut::<Commander>(commander).expect("a commander");
            c.rating = Some(value.rating);
            c.morale_passes_used
        };
        let left = self.passes_left(commander);
        report.change("2.0", format!("{name} is {:?}: {} morale passes, {used} already used, {left} left", value.rating, value.passes));
    }

    /// 10.5: a commander falls (from fire, 8.16, or in melee, 9.11). His command goes without a
    /// commander for one turn; a replacement is rolled at the start of its next activation after
    /// that, and the passes already used count against him.
    pub fn commander_casualty(&mut self, report: &mut Report, commander: Entity) {
        let turn = self.turn();
        let name = self.commander(commander).name.clone();
        self.world.get_mut::<Commander>(commander).expect("a commander").rating = None;
        self.command_mut(commander).casualty_turn = Some(turn);
        self.world.entity_mut(commander).insert(CommanderCasualty);
        report.change("10.5", format!("{name} is a casualty in turn {turn}: his command operates without a commander through turn {}", turn + 1));
    }

    /// The commanders whose replacement is due as `brigade` starts its activation (10.5): its own
    /// commander and its side's overall commander, fallen two turns ago or more.
    pub(super) fn replacements_due(&self, brigade: Entity) -> Vec<Entity> {
        let b = self.brigade(brigade);
        let turn = self.turn();
        self.roster
            .commanders
            .iter()
            .copied()
            .filter(|&c| {
                let cmd = self.commander(c);
                let serves = c == b.commander || (cmd.brigade.is_none() && cmd.side == b.side);
                let due = self.world.get::<super::CommandState>(c).and_then(|s| s.casualty_turn).is_some_and(|t| turn >= t + 2);
                serves && due
            })
            .collect()
    }

    /// May this commander spend a morale pass on this unit (10.4, 10.5, 6.12)? The inches he
    /// rides and where he ends, beside the unit.
    pub(super) fn check_pass(&self, commander: Entity, unit: Entity) -> Result<(f32, Vec2), Refusal> {
        let c = self.commander(commander);
        let u = self.unit(unit);
        if self.world.get::<super::CommandState>(commander).is_some_and(|s| s.casualty_turn.is_some()) {
            return refuse("10.5", format!("{} is a casualty: his command has no commander until a replacement is rolled", c.name));
        }
        if c.rating.is_none() {
            return refuse("2.0", format!("{} has no rating yet (StartGame rolls COMMANDER VALUES)", c.name));
        }
        if c.side != u.side {
            return refuse("10.4", format!("{} commands the other side", c.name));
        }
        if c.brigade.is_some_and(|b| b != u.brigade) {
            return refuse("10.4", format!("{} may use his morale passes only on units in his brigade; {} is in {}", c.name, u.name, self.brigade(u.brigade).name));
        }
        if self.passes_left(commander) == 0 {
            return refuse("10.4", format!("{} has used all his morale passes ({} of them)", c.name, c.morale_passes_used));
        }
        let stands: Vec<Footprint> = u.stands.iter().filter_map(|&s| self.world.get::<Footprint>(s).copied()).collect();
        let to = stands.iter().map(|f| nearest_on(f, c.at)).min_by(|a, b| a.distance(c.at).total_cmp(&b.distance(c.at))).unwrap_or(c.at);
        let ride = self.ride_cost(c.at, to);
        let ridden = self.world.get::<super::CommandState>(commander).map_or(0.0, |s| s.moved);
        let most = self.charts.movement.commander();
        if ridden + ride > most + crate::table::geom::EPS {
            return refuse("6.12", format!("{} would ride {ride:.2}\" to {} but has {:.2}\" of his {most}\" left this phase", c.name, u.name, (most - ridden).max(0.0)));
        }
        self.check_sight(commander, unit)?;
        Ok((ride, to))
    }

    /// Optional 10.6: must the commander see the unit to ride to it for a pass, and how? Refused
    /// when the line from him to the unit is blocked (8.8), or when he has already rolled
    /// visibility for this unit this turn. Ok(Some(woods)) when a woods visibility roll is
    /// needed (8.7: either end in woods, or 1" or more of woods on the line); Ok(None) when he
    /// sees it, or the option is off.
    pub(super) fn check_sight(&self, commander: Entity, unit: Entity) -> Result<Option<WoodsDensity>, Refusal> {
        if !self.scenario.optional_rules.visibility_restrictions {
            return Ok(None);
        }
        let (c, u) = (self.commander(commander), self.unit(unit));
        let s = self.situation();
        let Ok(target) = s.find(&u.name) else { return Ok(None) };
        let view = point_sight(&s, c.at, target);
        if !view.sight.clear {
            return refuse("10.6", format!("{} cannot see {}: the line is blocked by {}", c.name, u.name, view.sight.blocked_by.join(", ")));
        }
        let woods = view.woods_to_roll();
        let turn = self.turn();
        if woods.is_some() && self.world.get::<super::CommandState>(commander).is_some_and(|s| s.looked.contains(&(turn, unit))) {
            return refuse("10.6", format!("{} has rolled this turn to see {} through the woods: he cannot look again", c.name, u.name));
        }
        Ok(woods)
    }

    /// Optional 10.6: roll the commander's visibility in woods (8.7, as a firing unit) when
    /// needed. True when he sees the unit (no roll needed, or the unit within the visibility).
    /// The roll is remembered: one a turn for this commander and unit.
    pub(super) fn look(&mut self, report: &mut Report, commander: Entity, unit: Entity, to: Vec2) -> bool {
        let Ok(Some(woods)) = self.check_sight(commander, unit) else { return true };
        let v = self.charts.fire.visibility(woods).clone();
        let roll = self.dice.ad(v.dice);
        let inches = (roll.total + v.plus) as f32;
        let (name, unit_name) = (self.commander(commander).name.clone(), self.unit(unit).name.clone());
        report.die("10.6", format!("{name}'s visibility in {woods:?} woods"), &roll);
        report.chart("VISIBILITY IN WOODS", format!("{woods:?}"), roll.total.to_string(), format!("{inches:.0}\""), &v.source);
        let turn = self.turn();
        self.command_mut(commander).looked.push((turn, unit));
        let ride = to.distance(self.commander(commander).at);
        let seen = ride <= inches + crate::table::geom::EPS;
        report.note("10.6", format!("{unit_name} is {ride:.2}\" from {name}; he sees {inches:.0}\" in the woods: {}", if seen { "it is visible" } else { "it is not" }));
        seen
    }

    /// Spend a pass: the commander rides to the unit and uses one (10.4, 6.12).
    pub(super) fn spend_pass(&mut self, report: &mut Report, commander: Entity, ride: f32, to: Vec2, unit_name: &str) {
        let name = {
            let mut c = self.world.get_mut::<Commander>(commander).expect("a commander");
            c.at = to;
            c.morale_passes_used += 1;
            c.name.clone()
        };
        self.command_mut(commander).moved += ride;
        report.change("6.12", format!("{name} rides {ride:.2}\" to {unit_name}"));
        report.change("10.4", format!("{name} uses a morale pass: {} left", self.passes_left(commander)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, teaching, to_rebuilds};
    use super::super::{Action, Report};
    use super::*;

    // OTP 10.5: a fallen commander's command goes a turn without him; his replacement is rolled
    // at the start of its next activation after that, and the passes used carry over.
    #[test]
    fn casualty_and_replacement() {
        let mut g = teaching(11);
        ok(&mut g, Action::StartGame);
        let howard = g.commander_entity("Lt. Col. Howard").unwrap();
        g.world_mut().get_mut::<Commander>(howard).unwrap().morale_passes_used = 1;
        let mut scratch = Report::otp(1, &Action::StartGame, "test");
        g.commander_casualty(&mut scratch, howard);
        assert!(g.commander(howard).rating.is_none());
        assert_eq!(g.passes_left(howard), 0);
        let finish_turn = |g: &mut Game| {
            to_rebuilds(g);
            ok(g, Action::EndTurn);
        };
        finish_turn(&mut g); // turn 1 ends
        activate(&mut g, "Howard's Continentals"); // turn 2: still without him
        assert!(g.commander(howard).rating.is_none(), "one turn without a commander");
        finish_turn(&mut g);
        activate(&mut g, "Howard's Continentals"); // turn 3: a replacement is rolled
        let c = g.commander(howard);
        assert!(c.rating.is_some());
        assert_eq!(c.morale_passes_used, 1, "passes used carry over");
        let full = g.charts().commanders.passes(c.rating.unwrap()) as u32;
        assert_eq!(g.passes_left(howard), full.saturating_sub(1));
        let report = g.reports().last().unwrap();
        assert!(report.dice.iter().any(|d| d.rule == "2.0"), "{report}");
    }
}
