//! The sequence of play (4.0): commander values before play (2.0, 4.2), drawing chits from the
//! cup (4.3), ending an activation, and checking off the turn (4.5) until the turn limit, when
//! the game ends with a [`Summary`].

use bevy::math::Vec2;

use super::action::Action;
use super::report::{Refusal, Report, SideSummary, Summary, refuse};
use super::state::Phase;
use super::{CommandState, Game};
use crate::rules::dice::DiceKind;
use crate::table::footprint::Footprint;

impl Game {
    fn all_chits(&self) -> Vec<u32> {
        let mut chits: Vec<u32> = self.roster.brigades.iter().map(|&b| self.brigade(b).chit).collect();
        chits.sort_unstable();
        chits
    }

    /// May the game start (4.2)?
    pub fn check_start(&self) -> Result<(), Refusal> {
        if self.sequence().started {
            return refuse("4.2", "the game has already started");
        }
        Ok(())
    }

    pub(super) fn start_game(&mut self, action: &Action) -> Result<Report, Refusal> {
        self.check_start()?;
        let mut report = Report::otp(0, action, "The game begins: commander values (2.0, 4.2)");
        for c in self.roster.commanders.clone() {
            match self.commander(c).rating {
                None => self.roll_commander(&mut report, c, ""),
                Some(r) => {
                    let name = self.commander(c).name.clone();
                    report.note("2.0", format!("{name} is {r:?} by the scenario: {} morale passes", self.charts.commanders.passes(r)));
                }
            }
        }
        let chits = self.all_chits();
        let mut seq = self.seq_mut();
        seq.started = true;
        seq.turn = 1;
        seq.cup = chits.clone();
        report.turn = 1;
        report.outcome = format!("Turn 1 begins with chits {chits:?} in the cup");
        Ok(report)
    }

    /// Draw a chit: a uniform choice among those in the cup, from D10s (or 2D10s for a cup of more
    /// than ten), re-rolling the faces that would favour some chits.
    fn draw_index(&mut self, report: &mut Report, n: usize) -> usize {
        if n == 1 {
            report.note("4.3", "the last chit in the cup");
            return 0;
        }
        let (kind, faces) = if n <= 10 { (DiceKind::D10, 10) } else { (DiceKind::TwoD10, 100) };
        let usable = faces - faces % n as i32;
        loop {
            let roll = self.dice.roll(kind);
            report.die("4.3", format!("a chit from the {n} in the cup ({kind} read mod {n}; {usable} and above re-rolled)"), &roll);
            if roll.total < usable {
                return roll.total as usize % n;
            }
        }
    }

    /// May a chit be drawn (4.3)?
    pub fn check_draw(&self) -> Result<(), Refusal> {
        self.require_play()?;
        let seq = self.sequence();
        if let Some(chit) = seq.phasing {
            return refuse("4.3", format!("chit {chit} is phasing: end its activation before drawing another"));
        }
        if seq.cup.is_empty() {
            return refuse("4.3", "the cup is empty: attempt rebuilds (4.4), then end the turn (4.5)");
        }
        Ok(())
    }

    pub(super) fn draw_chit(&mut self, action: &Action) -> Result<Report, Refusal> {
        self.check_draw()?;
        let cup = self.sequence().cup.clone();
        let mut report = Report::otp(self.turn(), action, "Draw a chit (4.3)");
        let i = self.draw_index(&mut report, cup.len());
        let chit = cup[i];
        let brigade = self.brigade_by_chit(chit).expect("every chit is a brigade's");
        {
            let mut seq = self.seq_mut();
            seq.cup.remove(i);
            seq.drawn.push(chit);
            seq.phasing = Some(chit);
        }
        // 6.12: commanders ride up to 24" in each brigade's operations phase.
        for c in self.roster.commanders.clone() {
            self.command_mut(c).moved = 0.0;
        }
        let (name, side) = (self.brigade(brigade).name.clone(), self.brigade(brigade).side);
        report.title = format!("Chit {chit} drawn: {name} ({}) is phasing (4.3)", self.side_name(side));
        for c in self.replacements_due(brigade) {
            self.roll_commander(&mut report, c, " (a replacement, 10.5)");
            let mut state = self.command_mut(c);
            state.casualty_turn = None;
            state.replacements += 1;
            self.world.entity_mut(c).remove::<crate::rules::otp::fire::CommanderCasualty>();
        }
        let marked: Vec<String> =
            self.units().filter(|&(e, u)| u.brigade == brigade && self.has_marker(e)).map(|(_, u)| u.name.clone()).collect();
        if !marked.is_empty() {
            report.note("10.2", format!("with Morale Markers to remove before they act: {}", marked.join(", ")));
        }
        let left = self.sequence().cup.len();
        report.outcome = format!("{name} is phasing; {left} chit(s) left in the cup");
        Ok(report)
    }

    /// May the phasing brigade's activation end (4.3)?
    pub fn check_end_activation(&self) -> Result<u32, Refusal> {
        self.require_play()?;
        self.sequence().phasing.map_or_else(|| refuse("4.3", "no brigade is phasing"), Ok)
    }

    pub(super) fn end_activation(&mut self, action: &Action) -> Result<Report, Refusal> {
        let chit = self.check_end_activation()?;
        let name = self.brigade_by_chit(chit).map_or_else(String::new, |b| self.brigade(b).name.clone());
        self.seq_mut().phasing = None;
        let mut report = Report::otp(self.turn(), action, format!("{name} ends its activation (4.3)"));
        report.change("4.3", format!("chit {chit} is set aside"));
        let left = self.sequence().cup.len();
        report.outcome = if left == 0 {
            "the cup is empty: units in reserve status may attempt to rebuild (4.4), then end the turn (4.5)".to_string()
        } else {
            format!("{left} chit(s) left in the cup")
        };
        Ok(report)
    }

    /// May the turn be checked off (4.3, 4.5)?
    pub fn check_end_turn(&self) -> Result<(), Refusal> {
        match self.phase() {
            Phase::Setup | Phase::Over => self.require_play(),
            Phase::Activation { chit } => refuse("4.3", format!("chit {chit} is phasing: end its activation first")),
            Phase::Draw => refuse("4.5", format!("chits {:?} are still in the cup: every brigade acts before the turn ends", self.sequence().cup)),
            Phase::Rebuild => Ok(()),
        }
    }

    pub(super) fn end_turn(&mut self, action: &Action) -> Result<Report, Refusal> {
        self.check_end_turn()?;
        let turn = self.turn();
        let mut report = Report::otp(turn, action, format!("Turn {turn} checked off (4.5)"));
        if self.sequence().turn_limit.is_some_and(|limit| turn >= limit) {
            self.seq_mut().over = true;
            let summary = self.summarise();
            report.outcome = format!("the turn limit ({turn}) is reached: the game is over");
            report.change("4.5", "the game ends");
            report.summary = Some(summary);
            return Ok(report);
        }
        let chits = self.all_chits();
        {
            let mut seq = self.seq_mut();
            seq.turn = turn + 1;
            seq.cup = chits.clone();
            seq.drawn.clear();
        }
        for u in self.live_units().collect::<Vec<_>>() {
            self.turn_mut(u).new_turn();
        }
        for c in self.roster.commanders.clone() {
            self.world.get_mut::<CommandState>(c).expect("every commander has a CommandState").moved = 0.0;
        }
        report.outcome = format!("Turn {} begins with chits {chits:?} in the cup", turn + 1);
        report.change("4.5", "operations, morale rolls and reserve status start afresh");
        Ok(report)
    }

    /// Whether any stand of the unit lies within `radius` of `at`.
    fn within(&self, unit: bevy::prelude::Entity, at: Vec2, radius: f32) -> bool {
        self.unit(unit).stands.iter().filter_map(|&s| self.world.get::<Footprint>(s)).any(|f| {
            let c = f.corners();
            f.contains(at) || (0..4).any(|i| crate::table::geom::point_segment_distance(at, c[i], c[(i + 1) % 4]) <= radius)
        })
    }

    /// The state of the game for its end (4.5): losses, broken and departed units, objectives.
    pub fn summarise(&self) -> Summary {
        let present = |u| !self.unit_turn(u).off_table && self.unit(u).figures > 0;
        let mut sides: Vec<SideSummary> = self
            .roster
            .sides
            .iter()
            .map(|name| SideSummary { side: name.clone(), figures_lost: 0, units_broken: Vec::new(), units_off_table: Vec::new(), objectives_held: Vec::new(), points: 0 })
            .collect();
        for (e, name, side, initial) in &self.roster.units {
            let Some(s) = sides.get_mut(*side) else { continue };
            // A unit removed from the world (wiped out by fire or melee) lost every figure.
            let Some(unit) = self.world.get::<crate::scenario::spawn::Unit>(*e) else {
                s.figures_lost += initial;
                s.units_broken.push(name.clone());
                continue;
            };
            s.figures_lost += unit.initial_figures.saturating_sub(unit.figures);
            if unit.figures == 0 {
                s.units_broken.push(name.clone());
            }
            if self.unit_turn(*e).off_table {
                s.units_off_table.push(name.clone());
            }
        }
        let mut unheld = Vec::new();
        for o in &self.scenario.objectives {
            let at = Vec2::from(o.at);
            let mut holders: Vec<usize> = self.units().filter(|&(e, _)| present(e) && self.within(e, at, o.radius)).map(|(_, u)| u.side).collect();
            holders.sort_unstable();
            holders.dedup();
            match holders[..] {
                [side] => {
                    sides[side].objectives_held.push(o.name.clone());
                    sides[side].points += o.points;
                }
                _ => unheld.push(o.name.clone()),
            }
        }
        // 4.5: the players compare points; the summary gives no verdict of its own.
        Summary { turns_played: self.turn(), sides, objectives_unheld: unheld, winner: None, result: None }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ok, refused, teaching};
    use super::*;

    // OTP 4.3: every chit drawn once a turn, in an order the dice decide.
    #[test]
    fn every_chit_once_a_turn() {
        let mut g = teaching(1);
        refused(&mut g, Action::DrawChit, "4.2");
        ok(&mut g, Action::StartGame);
        refused(&mut g, Action::StartGame, "4.2");
        let mut seen = Vec::new();
        for _ in 0..4 {
            ok(&mut g, Action::DrawChit);
            refused(&mut g, Action::DrawChit, "4.3");
            seen.push(g.sequence().phasing.unwrap());
            ok(&mut g, Action::EndActivation);
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![1, 2, 3, 4]);
        assert!(g.sequence().cup.is_empty());
        refused(&mut g, Action::DrawChit, "4.3");
        refused(&mut g, Action::EndActivation, "4.3");
        ok(&mut g, Action::EndTurn);
        assert_eq!(g.sequence().cup, vec![1, 2, 3, 4]);
        assert_eq!(g.turn(), 2);
        refused(&mut g, Action::EndTurn, "4.5");
    }

    // OTP 4.3: the draw is uniform over the cup.
    #[test]
    fn draws_are_uniform() {
        let mut first = [0u32; 5];
        for seed in 0..2000 {
            let mut g = teaching(seed);
            ok(&mut g, Action::StartGame);
            ok(&mut g, Action::DrawChit);
            first[g.sequence().phasing.unwrap() as usize] += 1;
        }
        for c in 1..=4 {
            assert!((first[c] as f64 / 2000.0 - 0.25).abs() < 0.04, "{first:?}");
        }
    }

    #[test]
    fn summary_counts_objectives() {
        let g = teaching(1);
        let s = g.summarise();
        assert_eq!(s.sides.len(), 2);
        assert!(s.sides.iter().all(|x| x.figures_lost == 0));
        // Nobody stands within 4" of Hannah's Crossroads at the start.
        assert_eq!(s.sides.iter().map(|x| x.objectives_held.len()).sum::<usize>() + s.objectives_unheld.len(), 2);
    }

    // OTP 4.5: a unit the fire module removed from the world (wiped out) counts as broken, with
    // all its figures lost.
    #[test]
    fn wiped_out_units_are_counted() {
        let mut g = teaching(1);
        ok(&mut g, Action::StartGame);
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        for s in g.unit(militia).stands.clone() {
            g.world_mut().despawn(s);
        }
        g.world_mut().despawn(militia);
        assert!(g.unit_entity("Loyalist Militia").is_none());
        crate::rules::otp::engine::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        let s = g.summarise();
        assert_eq!(s.sides[0].units_broken, vec!["Loyalist Militia".to_string()]);
        assert_eq!(s.sides[0].figures_lost, 8);
    }
}
