//! Simpson/Glidden *Revolution* (seed 001): a short, brutal AWI rule set behind the engine
//! interface. Cited "SG1" to "SG37" (the inventory in `shared/design/rulesets.md` §1.1; the
//! readings of garbled pieces are in `docs/rules-coverage-revolution.md`).
//!
//! - Units of 3 stands × 2 figures (a gun one stand), re-laid from any AWI scenario by the
//!   default mapping (`Unit::revolution_profile`): column or line, the elite's wedge and
//!   reinforced line, militia always disordered, guns limbered or unlimbered (SG1–SG8).
//! - Player-turns, British first: rallies, activation, then combat by category (SG9, SG10, SG36).
//! - Tosses: a d6, 2 or less fails, to cross obstacles, change formation, charge or withdraw
//!   from melee (SG14, SG17, SG18); combat: the target tosses with every modifier (SG21–SG26);
//!   the morale ladder (SG27–SG33); the leader's re-roll (SG35); victory (SG37).
//!
//! Files: [`rates`] (every number as data, with its source), [`moves`] (movement and fire for
//! the table, the stands' layout), [`game`] (the state and one check per action), [`resolve`]
//! (applying: tosses, combat, the ladder, rallies, the end), [`views`] (what the window shows,
//! the exact odds), [`save`] (saves, replay, snapshot), [`bot`] (the automatic player).

pub mod bot;
pub mod game;
pub mod moves;
pub mod rates;
pub mod resolve;
pub mod save;
pub mod views;

#[cfg(test)]
mod tests;

use std::any::Any;

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;

pub use game::{Game, SgAction};

use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Automatic, Badge, Choice, Engine, Movement, Preview, RangeBand, Reach, SequenceView, SheetRow, UnitStatus};
use crate::rules::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

/// A new game of `scenario`, the first British player-turn of turn 1.
pub fn open(scenario: Scenario, seed: u64) -> Box<dyn Engine> {
    Box::new(Game::new(scenario, seed))
}

/// `otp fire` / `otp melee` under *Revolution* at set-up: the unit's own side's player-turn, in
/// its category's combat step (a fire) or its activation (a charge), as if the game had got
/// there; the engine's own preview or refusal.
pub fn preview_command(scenario: &Scenario, command: crate::rules::engine::PreviewCommand, unit: &str, target: &str) -> Result<Option<Preview>, Refusal> {
    let mut g = Game::new(scenario.clone(), 1);
    let e = g.find(unit)?;
    let side = g.unit(e).map_or(0, |u| u.side);
    g.phase = g.order.iter().position(|&s| s == side).unwrap_or(0);
    let action = match command {
        crate::rules::engine::PreviewCommand::Fire { .. } => {
            if let Some(c) = g.sg(e).and_then(|s| Game::category(s.kind)) {
                g.step = game::Step::Combat(c);
            }
            Action::Fire { unit: unit.into(), target: target.into() }
        }
        crate::rules::engine::PreviewCommand::Melee { .. } => Action::Charge { unit: unit.into(), target: target.into() },
    };
    g.preview_of(&action)
}


/// A saved game read from `text` (`file` names it in messages) and replayed; every problem
/// as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = save::Save::parse(text, file)?;
    Ok(Box::new(save.replay(text, file)?))
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::Revolution
    }
    fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn world(&self) -> &World {
        &self.world
    }
    fn place(&mut self, unit: Entity, stands: &[Footprint]) -> bool {
        crate::rules::engine::place_stands(&mut self.world, unit, stands)
    }
    fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        Game::apply(self, action)
    }
    fn check(&self, action: &Action) -> Result<(), Refusal> {
        Game::check(self, action)
    }
    fn preview(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        self.preview_of(action)
    }
    fn actions(&self) -> Vec<Action> {
        self.actions.clone()
    }
    fn action_count(&self) -> usize {
        self.actions.len()
    }
    fn reports(&self) -> &[Report] {
        &self.reports
    }
    fn summary(&self) -> Option<Summary> {
        Game::summary(self)
    }
    fn sequence(&self) -> SequenceView {
        self.sequence_view()
    }
    fn choices(&self) -> Vec<Choice> {
        self.sequence_choices()
    }
    fn unit_status(&self, unit: Entity) -> UnitStatus {
        self.status(unit)
    }
    /// SG8: 1 to 3 leaders a side; more is played, with a warning.
    fn leader_line(&self, leader: Entity) -> String {
        let Some(c) = self.world.get::<crate::scenario::spawn::Commander>(leader) else { return String::new() };
        let n = self.live_leaders().filter(|(_, o)| o.side == c.side).count() + self.leaders_lost.iter().filter(|l| l.1 == c.side).count();
        if n > 3 { format!("{} (SG8: {n} leaders on this side; the rules give 1 to 3)", c.name) } else { c.name.clone() }
    }
    fn track_heading(&self) -> String {
        "Player-turns, British first (SG9)".into()
    }
    fn unit_choices(&self, unit: Entity) -> Vec<Choice> {
        self.unit_choices_now(unit)
    }
    fn target_choices(&self, unit: Entity, target: Entity) -> Vec<Choice> {
        self.target_choices_now(unit, target)
    }
    fn movement(&self, unit: Entity) -> Option<Movement> {
        self.movement_now(unit)
    }
    fn move_action(&self, unit: Entity, _kind: usize, steps: Vec<MoveStep>) -> Action {
        if let Some(c) = self.world.get::<crate::scenario::spawn::Commander>(unit) {
            let to = match steps.last() {
                Some(MoveStep::Path(p)) => p.last().copied().unwrap_or(c.at),
                _ => c.at,
            };
            return Action::MoveLeader { leader: c.name.clone(), to };
        }
        Action::Move { unit: self.unit(unit).map_or_else(String::new, |u| u.name.clone()), steps }
    }
    fn reach(&self, unit: Entity) -> Option<Reach> {
        self.reach_of(unit)
    }
    fn sheet(&self, unit: Entity) -> Vec<SheetRow> {
        self.sheet_rows(unit)
    }
    fn badges(&self, unit: Entity) -> Vec<Badge> {
        self.unit_badges(unit)
    }
    fn fire_bands(&self, unit: Entity) -> Vec<RangeBand> {
        self.unit_fire_bands(unit)
    }
    fn move_rules(&self) -> &'static crate::table::movement::MoveRules {
        &moves::MOVES
    }
    fn fire_rules(&self) -> &'static crate::table::fire::FireRules {
        &moves::FIRE
    }
    fn save_text(&self) -> String {
        self.to_save().to_ron()
    }
    fn snapshot(&self) -> String {
        Game::snapshot(self)
    }
    fn replayed(&self, actions: usize) -> Box<dyn Engine> {
        Box::new(self.replayed_to(actions))
    }
    fn automatic(&self) -> Box<dyn Automatic> {
        Box::new(bot::Bot)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
