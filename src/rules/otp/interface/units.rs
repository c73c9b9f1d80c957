//! One unit as the window asks about it: what it may do now, how it may move, its sheet (4.2),
//! its markers and its fire ranges.

use bevy::ecs::entity::Entity;

use super::super::engine::Game;
use crate::rules::action::Action;
use crate::rules::engine::{Badge, Choice, Movement, SheetRow};
use crate::table::movement::MoveStep;

impl Game {
    pub(super) fn unit_choices_now(&self, _unit: Entity) -> Vec<Choice> {
        Vec::new()
    }

    pub(super) fn movement_now(&self, _unit: Entity) -> Option<Movement> {
        None
    }

    pub(super) fn move_action_of(&self, unit: Entity, _kind: usize, steps: Vec<MoveStep>) -> Action {
        Action::Move { unit: self.unit(unit).name.clone(), steps }
    }

    pub(super) fn sheet_rows(&self, _unit: Entity) -> Vec<SheetRow> {
        Vec::new()
    }

    pub(super) fn unit_badges(&self, _unit: Entity) -> Vec<Badge> {
        Vec::new()
    }
}
