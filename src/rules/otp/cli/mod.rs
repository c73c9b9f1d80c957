//! `otp fire` and `otp melee`: a shot or a charge at the scenario's set-up, judged by the
//! engine's own checks (`Game::fire_preview_when`, `Game::charge_preview_when`) as if the unit's
//! brigade had just been drawn, so the CLI refuses exactly what a game would, in its words.

mod fire;
mod melee;

pub use fire::{FireAnswer, fire_command_json, fire_command_text};
pub use melee::{melee_command_json, melee_command_text};

use crate::rules::otp::charts::Charts;
use crate::rules::otp::engine::Game;
use crate::scenario::Scenario;

/// The scenario as a game not yet started, to ask the engine's read-only checks.
fn at_setup(scenario: &Scenario) -> Game {
    Game::new(scenario.clone(), 0, Charts::embedded().clone())
}
