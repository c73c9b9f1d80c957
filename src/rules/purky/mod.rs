//! James Purky's AWI rules (seed 004), cited "PK1" to "PK28" after the inventory in
//! `shared/design/rulesets.md` §1.4: a quick-reference card of d10 pools read on five charts,
//! A (best for the roller) to E.
//!
//! - **Sequence** (PK1–PK3, [`game`]): the initiative d10 (+1 for an exceptional or aggressive
//!   C-in-C), the winner choosing to move first (Side A) or fire first (Side B) as a question;
//!   rally A then B (a question a unit); movement A then B; fire B then A, then morale; melee,
//!   then morale; reserve moves B then A.
//! - **Movement** (PK4–PK11, [`moves`], `Game::check_move`, `check_formation`, `check_charge`):
//!   the card's rates by formation, half beyond 24" of the leader, half backward, rough ground
//!   ½ and very rough ¼, half the rate to cross an obstacle, half the new formation's rate to
//!   form; routs of 16"/24"; skirmishers evading a charge.
//! - **Fire, melee, morale** (PK12–PK24, [`combat`]) with their exact odds ([`odds`]).
//! - **The card** as data ([`card`], `assets/rules/purky/units.ron`).
//!
//! Basing (PK25): figures = men / 15 (the scenario's `purky` profile overrides), 4 infantry or
//! 2 cavalry a stand, re-laid in `Game::new` by the scenario's basing helpers, each figure ¾ of
//! OTP's frontage so a unit keeps about its ground.

pub mod bot;
pub mod card;
pub mod combat;
pub mod game;
pub mod moves;
pub mod odds;
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
use crate::rules::engine::{Automatic, Badge, Choice, Engine, Movement, Preview, RangeBand, Reach, SequenceView, SheetRow, UnitStatus};
use crate::rules::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

/// A new Purky game of `scenario`, at turn 1's initiative roll.
pub fn open(scenario: Scenario, seed: u64) -> Result<Box<dyn Engine>, String> {
    Ok(Box::new(Game::new(scenario, seed)?))
}

/// `otp fire` / `otp melee` and the side-by-side judgement at set-up: a game played on by its
/// own sequence (each question given its first answer) to where `unit`'s side acts: its fire
/// step for a shot (PK3), its move step for a charge (PK18), so the preview is refused only for
/// what the shot or the charge itself breaks.
pub fn at_step_for(scenario: Scenario, unit: &str, fire: bool) -> Result<Box<dyn Engine>, String> {
    let mut game = Game::new(scenario, 1)?;
    if let Ok(e) = game.find(unit) {
        let side = game.world().get::<crate::scenario::spawn::Unit>(e).map_or(0, |u| u.side);
        for _ in 0..24 {
            let due = match game.current() {
                game::Step::Fire(t) => fire && game.side_of(t) == side,
                game::Step::Move(t) => !fire && game.side_of(t) == side,
                _ => false,
            };
            if due && game.open_question().is_none() {
                break;
            }
            let next = match game.open_question() {
                Some(q) => Action::Answer { prompt: q.id, option: 0 },
                None => Action::Next,
            };
            if game.apply(next).is_err() {
                break;
            }
        }
    }
    Ok(Box::new(game))
}

/// A saved Purky game read from `text` and replayed; every problem as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = save::Save::parse(text, file)?;
    Ok(Box::new(save.replay(text, file)?))
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::Purky
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
        let placed = crate::rules::engine::place_stands(&mut self.world, unit, stands);
        self.table_changed();
        placed
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
        self.status_of(unit)
    }
    fn track_heading(&self) -> String {
        "The turn (PK1)".into()
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
    fn reach(&self, unit: Entity) -> Option<Reach> {
        self.reach_of(unit)
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
