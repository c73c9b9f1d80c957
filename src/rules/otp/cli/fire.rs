//! `otp fire SCENARIO FIRER TARGET [--ball] [--json]`: the geometry of the shot
//! (`rules::otp::fire::shot`) with the rules' modifiers, column and exact odds, at the scenario's set-up,
//! judged by the engine (`Game::fire_preview_when`): what a game would refuse, this refuses in
//! the same words.

use serde_json::{Value, json};

use crate::rules::otp::charts::{Ammo, Charts};
use crate::rules::otp::engine::{Asked, Refusal};
use crate::rules::otp::fire::{FirePreview, FireTable, fire_options};
use crate::scenario::Scenario;
use crate::rules::otp::fire::shot::{ShotGeometry, shot_with};

/// What `otp fire` prints, and the engine's refusal when the shot may not be fired (the CLI
/// then exits non-zero).
#[derive(Clone, Debug)]
pub struct FireAnswer<T> {
    pub answer: T,
    pub refused: Option<Refusal>,
}

/// The shot's geometry and the engine's verdict, as if the firer's brigade had just been drawn
/// (4.3). Artillery fires ball with `ball`, canister without.
fn judge(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<(ShotGeometry, Result<FirePreview, Refusal>), String> {
    let table = FireTable::from_scenario(scenario);
    let s = &table.situation;
    let opts = fire_options(s, Charts::embedded(), s.find(firer)?, s.find(target)?, ball);
    let shot = shot_with(s, firer, target, opts)?;
    let ammo = if ball { Ammo::Ball } else { Ammo::Canister };
    let game = super::at_setup(scenario);
    Ok((shot, game.fire_preview_when(Asked::AsIfDrawn, firer, target, Some(ammo))))
}

/// The JSON of `otp fire --json`: every `ShotGeometry` field, then `modifiers` (each with
/// `rule`, `name`, `value`, `label`, `provenance`), `total_modifier`, `column`, `outcomes` (each
/// result with its exact `probability`), and `refused` (`{rule, reason}`, or null when the shot
/// may be fired; then the rules fields are empty or null).
pub fn fire_command_json(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<FireAnswer<Value>, String> {
    let (shot, judged) = judge(scenario, firer, target, ball)?;
    let mut out = serde_json::to_value(&shot).map_err(|e| e.to_string())?;
    let map = out.as_object_mut().expect("a shot serialises as an object");
    let (extra, refused) = match judged {
        Ok(p) => (
            json!({
                "refused": null,
                "modifiers": p.modifiers,
                "total_modifier": p.total_modifier,
                "column": p.column,
                "outcomes": p.outcomes,
                "visibility": p.visibility,
                "commander_casualties": p.commander_casualties,
                "uses_initial_volley": p.uses_initial_volley,
            }),
            None,
        ),
        Err(r) => (
            json!({
                "refused": { "rule": r.rule, "reason": r.reason },
                "modifiers": [],
                "total_modifier": null,
                "column": null,
                "outcomes": [],
                "visibility": null,
                "commander_casualties": [],
                "uses_initial_volley": false,
            }),
            Some(r),
        ),
    };
    map.extend(extra.as_object().expect("an object").clone());
    Ok(FireAnswer { answer: out, refused })
}

/// The text of `otp fire`: the geometry, then the modifiers, column and odds (or why not).
pub fn fire_command_text(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<FireAnswer<String>, String> {
    let (shot, judged) = judge(scenario, firer, target, ball)?;
    let (rules, refused) = match judged {
        Ok(p) => (p.to_string(), None),
        Err(r) => (format!("refused (OTP {}): {}", r.rule, r.reason), Some(r)),
    };
    Ok(FireAnswer { answer: format!("{firer} firing at {target}\n{shot}\n{rules}"), refused })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::default_scenario;

    #[test]
    fn json_keeps_the_geometry_and_adds_the_rules() {
        // The teaching battle: the Continental guns on Long Ridge fire ball at the 23rd Foot at
        // medium range across the Wheat Field (8.4, 8.7).
        let v = fire_command_json(&default_scenario(), "Continental Artillery", "23rd Foot", true).unwrap().answer;
        for key in ["range_in", "in_range", "los_clear", "enfilade", "artillery_band", "modifiers", "total_modifier", "column", "outcomes", "refused"] {
            assert!(v.get(key).is_some(), "{key} missing: {v}");
        }
        assert!(v["refused"].is_null(), "{v}");
        let total: f64 = v["outcomes"].as_array().unwrap().iter().map(|o| o["probability"].as_f64().unwrap()).sum();
        assert!((total - 1.0).abs() < 1e-9);
        let sum: i64 = v["modifiers"].as_array().unwrap().iter().map(|m| m["value"].as_i64().unwrap()).sum();
        assert_eq!(sum, v["total_modifier"].as_i64().unwrap());
        assert_eq!(v["column"]["family"], "ball");
    }

    #[test]
    fn refusals_keep_the_geometry() {
        // OTP 8.4: canister at medium range is refused; the geometry is still there.
        let v = fire_command_json(&default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap().answer;
        assert_eq!(v["refused"]["rule"], "8.4", "{v}");
        assert!(v["range_in"].as_f64().unwrap() > 9.0);
        let text = fire_command_text(&default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap();
        assert_eq!(text.refused.as_ref().map(|r| r.rule.as_str()), Some("8.4"));
        let text = text.answer;
        assert!(text.contains("refused (OTP 8.4)") && text.contains("canister"), "{text}");
        assert!(fire_command_json(&default_scenario(), "Nobody", "23rd Foot", false).unwrap_err().contains("Nobody"));
    }
}
