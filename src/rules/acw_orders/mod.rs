//! The orders-based ACW rules (seed 002, a quick-reference sheet that survives in part), cited
//! "OR1" to "OR23" after `shared/design/rulesets.md` §1.2, behind the engine interface.
//!
//! Every unit is given one of seven orders each turn (H, FM, FR, C, CH, M, D), written secretly
//! in step 1 and revealed in step 3; the turn runs the sheet's ten steps, both sides acting in
//! each, fire within a step thrown together; morale is 2D6 beating BMP + MPM; charges go through
//! a bonus roll, a disorder point, a defensive volley, impact (2D6 + BMP + MPM + formation +
//! unique, low wins) and falls back, or P. J. O'Neill's table when the scenario asks for it;
//! officers are hit and wounded in step 9; supply wagons keep a foot from the enemy's line and
//! are needed to replace ammunition (OR12, OR15). The charts are data in `assets/rules/acw-orders/`,
//! every entry with its source, the lost ones reconstructed (docs/rules-coverage-acw-orders.md).
//!
//! Files: [`charts`] (the tables as data), [`game`] (the state, one check per action), [`steps`]
//! (what `Next` resolves), [`combat`] (the numbers and exact odds of fire, morale and impact),
//! [`moves`] (the movement rules the table applies), [`plan`] (what a unit's order permits, the
//! charges named and drawn ahead of step 6), [`views`], [`save`], [`bot`].

pub mod bot;
pub mod charts;
pub mod combat;
pub mod game;
pub mod moves;
pub mod plan;
pub mod save;
pub mod steps;
pub mod views;

#[cfg(test)]
mod tests;

use std::any::Any;

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;

pub use game::{Game, OrAction, Order};

use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Aim, Automatic, Badge, Choice, Engine, Movement, PlannedPath, Preview, RangeBand, SequenceView, SheetRow, UnitPlan};
use crate::rules::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;

/// A new game of `scenario` under the orders sheet, step 1 of turn 1.
pub fn open(scenario: Scenario, seed: u64) -> Box<dyn Engine> {
    Box::new(Game::new(scenario, seed))
}

/// `otp fire` / `otp melee` and the side-by-side judgement at set-up: a game played on by its
/// own sequence to where `unit`'s side acts with it: step 4 for a shot (OR5: a unit without an
/// order holds, and a holding unit fires there), step 3 for a charge, the unit having been
/// written the charge order in step 1 (OR2, OR4) — so the preview is refused only for what the
/// shot or the charge itself breaks.
pub fn at_step_for(scenario: Scenario, unit: &str, fire: bool) -> Box<dyn Engine> {
    let mut game = Game::new(scenario, 1);
    if let Ok(e) = game.find(unit) {
        let side = game.unit(e).map_or(0, |u| u.side);
        for _ in 0..24 {
            let mine = game.acting_side() == Some(side);
            match game.phase() {
                game::Phase::FirstFire(_) if fire && mine => break,
                game::Phase::Reveal(_) if !fire && mine => break,
                game::Phase::Orders(_) if !fire && mine => {
                    let _ = game.apply(Action::AcwOrders(OrAction::WriteOrder { unit: unit.to_string(), order: Order::C }));
                }
                _ => {}
            }
            if game.apply(Action::Next).is_err() {
                break;
            }
        }
    }
    Box::new(game)
}

/// A saved game read from `text` and replayed; every problem as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = save::Save::parse(text, file)?;
    Ok(Box::new(save.replay(text, file)?))
}

impl Engine for Game {
    fn rules(&self) -> RuleSetId {
        RuleSetId::AcwOrders
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
    fn track_heading(&self) -> String {
        "The ten steps (OR3-OR5)".into()
    }
    fn next_is_mechanical(&self) -> bool {
        self.acting_side().is_none()
    }
    fn aim_of(&self, action: &Action) -> Option<Aim> {
        match action {
            Action::Fire { .. } | Action::AcwOrders(OrAction::RapidFire { .. }) => Some(Aim::Fire),
            Action::Charge { .. } => Some(Aim::Charge),
            _ => None,
        }
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
    fn unit_plan(&self, unit: Entity) -> Option<UnitPlan> {
        self.unit_plan_now(unit)
    }
    fn planned_paths(&self) -> Vec<PlannedPath> {
        self.planned_charges()
    }
    fn seat(&mut self, by_hand: Option<Vec<usize>>) {
        self.set_seat(by_hand);
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
        let mut game = self.replayed_to(actions);
        game.seat = self.seat.clone();
        Box::new(game)
    }
    fn automatic(&self) -> Box<dyn Automatic> {
        Box::new(bot::Bot)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
