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

/// What a command prints (common to every rule set's commands).
pub use crate::rules::engine::Printed;

/// `otp fire`, as printed: the text or pretty JSON; a refusal exits non-zero, its rule on
/// stderr too with `--json` (stdout is the JSON); an unknown name is an error on stderr.
pub fn fire_command(scenario: &Scenario, firer: &str, target: &str, json: bool, ball: bool) -> Printed {
    let out = if json {
        fire_command_json(scenario, firer, target, ball).map(|a| (serde_json::to_string_pretty(&a.answer).expect("JSON values print"), a.refused))
    } else {
        fire_command_text(scenario, firer, target, ball).map(|a| (a.answer, a.refused))
    };
    match out {
        Ok((text, refused)) => refused_printed(format!("{text}\n"), refused.map(|r| (r.rule, r.reason)), json),
        Err(e) => Printed::error(e),
    }
}

/// `otp melee`, as printed: the text or pretty JSON, or the refusal (`{"refused": {rule,
/// reason}}` with `--json`), which exits non-zero.
pub fn melee_command(scenario: &Scenario, attacker: &str, defender: &str, json: bool, special: bool) -> Printed {
    let out = if json {
        melee_command_json(scenario, attacker, defender, special).map(|v| serde_json::to_string_pretty(&v).expect("JSON values print"))
    } else {
        melee_command_text(scenario, attacker, defender, special)
    };
    match out {
        Ok(text) => refused_printed(format!("{text}\n"), None, json),
        Err((rule, reason)) => {
            let text = if json { serde_json::json!({ "refused": { "rule": rule, "reason": reason } }).to_string() } else { format!("refused (OTP {rule}): {reason}") };
            refused_printed(format!("{text}\n"), Some((rule, reason)), json)
        }
    }
}

/// A preview the engine refused exits non-zero, the rule on stderr too with `--json`.
fn refused_printed(stdout: String, refused: Option<(String, String)>, json: bool) -> Printed {
    match refused {
        None => Printed { stdout, stderr: String::new(), success: true },
        Some((rule, reason)) => Printed { stdout, stderr: if json { format!("refused (OTP {rule}): {reason}\n") } else { String::new() }, success: false },
    }
}

/// The scenario as a game not yet started, to ask the engine's read-only checks.
fn at_setup(scenario: &Scenario) -> Game {
    Game::new(scenario.clone(), 0, Charts::embedded().clone())
}
