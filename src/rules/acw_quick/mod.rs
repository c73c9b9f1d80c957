//! The MWAN #101 quick ACW rules (seed 003, Hal Thinglum 1999), cited "QK1" to "QK22" after
//! the inventory in shared/design/rulesets.md §1.3; docs/rules-coverage-acw-quick.md maps every
//! rule to its code and tests.
//!
//! Player-turns, Confederates first (QK1); each has six steps: command (leaders ride; a unit
//! moves full inside its leader's radius, QK2), move (a marked unit stays or routs, QK3; moves,
//! changes of formation and charges, QK6–QK10), rally (QK4), the other side's defensive fire,
//! the phasing side's offensive fire, and melee (QK5, QK11–QK18). Losses are stands (about 100
//! men a stand, QK22); a unit below half its stands is removed (QK19); leaders add their bonus
//! and risk their lives (QK20, QK21).
//!
//! Files: [`charts`] (the sheet as data), [`moves`] (movement, fire and cover for the table),
//! [`game`] (state, one check per action), [`resolve`] (dice and changes), [`melee`] (melee
//! numbers and odds), [`views`] (what the window shows, previews), [`save`], [`bot`].

pub mod bot;
pub mod charts;
pub mod game;
pub mod melee;
pub mod moves;
pub mod resolve;
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
use crate::rules::engine::{Automatic, Badge, Choice, CommandRadius, Engine, Movement, Preview, RangeBand, SequenceView, SheetRow, UnitStatus};
use crate::rules::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

/// A new quick ACW game of `scenario`: the first side's command step of turn 1.
pub fn open(scenario: Scenario, seed: u64) -> Box<dyn Engine> {
    Box::new(Game::new(scenario, seed))
}

/// A saved game read from `text` (`file` names it in messages) and replayed.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = save::Save::parse(text, file)?;
    Ok(Box::new(save.replay(text, file)?))
}

/// A game of `scenario` brought, without a die, to the first step in which `unit` may do what
/// the command line previews (`otp fire`: its side's fire step; `otp melee`: its move step), so
/// the preview is the engine's own (QK5).
pub fn at_step_for(scenario: Scenario, unit: &str, fire: bool) -> Box<dyn Engine> {
    let mut game = Game::new(scenario, 1);
    if let Ok(e) = game.find(unit) {
        let side = game.unit(e).map_or(0, |u| u.side);
        for _ in 0..24 {
            let ready = if fire { matches!(game.step(), game::Step::DefensiveFire | game::Step::OffensiveFire) && game.acting_side() == side } else { game.step() == game::Step::Move && game.phasing() == side };
            if ready && game.question.is_none() {
                break;
            }
            let next = match game.question {
                Some(q) => Action::Answer { prompt: q.id, option: game::STAY },
                None => Action::Next,
            };
            if game.apply(next).is_err() {
                break;
            }
        }
    }
    Box::new(game)
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::AcwQuick
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
    fn leader_line(&self, leader: Entity) -> String {
        match self.leader_of_entity(leader) {
            Some(l) => format!("{} — +{}, {} radius{}", l.name, l.bonus, crate::table::words::inches(l.radius), l.attached.map_or(String::new(), |u| format!(", with {}", self.name(u)))),
            None => String::new(),
        }
    }
    fn command_radii(&self) -> Vec<CommandRadius> {
        self.radii()
    }
    fn track_heading(&self) -> String {
        "Player-turns, Confederates first (QK1)".into()
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
        &moves::QK
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
        Box::new(bot::Bot::default())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
