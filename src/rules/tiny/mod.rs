//! The tiny test rules: a deliberately small second rule set behind the engine interface, the
//! proof that the window, the command line, the saves and the automatic player speak to
//! [`Engine`] and not to On to Philadelphia. It shares the table's geometry and the scenario
//! model, and nothing of OTP's rules.
//!
//! The rules, cited "TINY 1" to "TINY 6":
//! 1. **Sequence.** Each side in turn, the scenario's first side first, has a player-turn; a
//!    turn is every side's player-turn. `Next` ends a player-turn. After the scenario's last
//!    turn the side that lost fewer figures wins.
//! 2. **Move.** A unit of the side whose player-turn it is may make one move of at most 6"
//!    (mounted 12"), in today's move steps measured by the table: no stand may cross or end on
//!    another unit's, nor leave the table.
//! 3. **Formation.** Line to march column, or back, costs the whole move.
//! 4. **Fire.** A unit that has not fired this player-turn may fire at an enemy unit within
//!    12" edge to edge and in its front 45° arc: one D6, 4+ hits, and a hit takes 2 figures (a
//!    stand).
//! 5. **Removal.** A unit with no figures left is removed.
//! 6. **Stand or fall back.** A unit hit down to half its starting figures or fewer: its owner
//!    is asked "stand or fall back 3\"?" and nothing else happens until the answer (either way
//!    the unit is shaken).
//!
//! Files: [`game`] (the state and one check per action), [`views`] (what the window shows),
//! [`save`] (saves, replay, snapshot), [`bot`] (the automatic player).

pub mod bot;
pub mod game;
pub mod moves;
pub mod save;
pub mod views;

#[cfg(test)]
mod tests;

use std::any::Any;

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;

pub use game::Game;

use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Automatic, Badge, Choice, Engine, Movement, Preview, RangeBand, SequenceView, SheetRow};
use crate::rules::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

/// A new tiny game of `scenario`, the first side's player-turn of turn 1.
pub fn open(scenario: Scenario, seed: u64) -> Box<dyn Engine> {
    Box::new(Game::new(scenario, seed))
}

/// A saved tiny game read from `text` (`file` names it in messages) and replayed; every problem
/// as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = save::Save::parse(text, file)?;
    Ok(Box::new(save.replay(text, file)?))
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::Tiny
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
        Action::Move { unit: self.unit(unit).map_or_else(String::new, |u| u.name.clone()), steps }
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
        &moves::TINY
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
