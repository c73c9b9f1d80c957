//! `otp fire SCENARIO FIRER TARGET [--ball] [--json]`: the geometry of the shot
//! (`table::shot`) with the rules' modifiers, column and exact odds, at the scenario's set-up.

use serde_json::{Value, json};

use super::odds::preview;
use super::state::FireTable;
use super::{FireContext, FirePreview, Refusal};
use crate::rules::otp::charts::{Ammo, Charts};
use crate::scenario::Scenario;
use crate::table::fire::FireOptions;
use crate::table::shot::{ShotGeometry, shot_with};

/// The shot's geometry and, unless the rules refuse it, its preview. Artillery fires ball with
/// `ball`, canister without.
fn judge(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<(ShotGeometry, Result<FirePreview, Refusal>), String> {
    let table = FireTable::from_scenario(scenario);
    let s = &table.situation;
    let shot = shot_with(s, firer, target, FireOptions { ball, ..Default::default() })?;
    let (f, t) = (s.find(firer)?, s.find(target)?);
    let ammo = if ball { Ammo::Ball } else { Ammo::Canister };
    let ctx = FireContext::new(&table, f, t).ammo(ammo);
    Ok((shot, preview(&ctx, Charts::embedded())))
}

/// The JSON of `otp fire --json`: every `ShotGeometry` field, then `modifiers` (each with
/// `rule`, `name`, `value`, `label`, `provenance`), `total_modifier`, `column`, `outcomes` (each
/// result with its exact `probability`), and `refused` (`{rule, reason}`, or null when the shot
/// may be fired; then the rules fields are empty or null).
pub fn fire_command_json(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<Value, String> {
    let (shot, judged) = judge(scenario, firer, target, ball)?;
    let mut out = serde_json::to_value(&shot).map_err(|e| e.to_string())?;
    let map = out.as_object_mut().expect("a shot serialises as an object");
    let extra = match judged {
        Ok(p) => json!({
            "refused": null,
            "modifiers": p.modifiers,
            "total_modifier": p.total_modifier,
            "column": p.column,
            "outcomes": p.outcomes,
            "visibility": p.visibility,
            "commander_casualties": p.commander_casualties,
            "uses_initial_volley": p.uses_initial_volley,
        }),
        Err(r) => json!({
            "refused": r,
            "modifiers": [],
            "total_modifier": null,
            "column": null,
            "outcomes": [],
            "visibility": null,
            "commander_casualties": [],
            "uses_initial_volley": false,
        }),
    };
    map.extend(extra.as_object().expect("an object").clone());
    Ok(out)
}

/// The text of `otp fire`: the geometry, then the modifiers, column and odds (or why not).
pub fn fire_command_text(scenario: &Scenario, firer: &str, target: &str, ball: bool) -> Result<String, String> {
    let (shot, judged) = judge(scenario, firer, target, ball)?;
    let rules = match judged {
        Ok(p) => p.to_string(),
        Err(r) => format!("may not fire: {r}"),
    };
    Ok(format!("{firer} firing at {target}\n{shot}\n{rules}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::default_scenario;

    #[test]
    fn json_keeps_the_geometry_and_adds_the_rules() {
        // The teaching battle: the Continental guns on Long Ridge fire ball at the 23rd Foot at
        // medium range across the Wheat Field (8.4, 8.7).
        let v = fire_command_json(&default_scenario(), "Continental Artillery", "23rd Foot", true).unwrap();
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
        let v = fire_command_json(&default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap();
        assert_eq!(v["refused"]["rule"], "8.4", "{v}");
        assert!(v["range_in"].as_f64().unwrap() > 9.0);
        let text = fire_command_text(&default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap();
        assert!(text.contains("may not fire") && text.contains("canister"), "{text}");
        assert!(fire_command_json(&default_scenario(), "Nobody", "23rd Foot", false).unwrap_err().contains("Nobody"));
    }
}
