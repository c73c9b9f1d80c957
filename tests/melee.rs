//! MELEE (OTP 9.0–9.14, 7.2, 5.1) through `otp melee`: every enemy pair of the shipped
//! scenarios judged, the JSON's arithmetic checked against itself, and the refusals' exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use otp::rules::otp::melee::melee_command_json;
use otp::scenario::{self, Scenario};

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "ron")).collect();
    files.sort();
    files
}

fn teaching() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teaching.ron")
}

fn otp(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_otp")).args(args).output().unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Every enemy pair (attacker, defender) by name.
fn pairs(s: &Scenario) -> Vec<(String, String)> {
    let units: Vec<(usize, String)> = s.sides.iter().enumerate().flat_map(|(i, side)| side.brigades.iter().flat_map(move |b| b.units.iter().map(move |u| (i, u.name.clone())))).collect();
    let mut out = Vec::new();
    for (sa, a) in &units {
        for (sd, d) in &units {
            if sa != sd {
                out.push((a.clone(), d.clone()));
            }
        }
    }
    out
}

/// The JSON's numbers agree with each other and with the rules' arithmetic.
fn check_json(v: &Value, what: &str) {
    let zone = v["closure"].as_str().unwrap();
    assert!(["front", "flank", "rear"].contains(&zone), "{what}: {zone}");
    let p = f(&v["closure_probability"]);
    // OTP 9.1: a D10 read 0–9 gives tenths; flank and rear close without a roll.
    assert!((0.0..=1.0).contains(&p) && close((p * 10.0).round(), p * 10.0), "{what}: {p}");
    if zone != "front" {
        assert_eq!(p, 1.0, "{what}: 9.1 flank and rear close automatically");
    }
    for side in ["attacker", "defender"] {
        let units = v[side]["units"].as_array().unwrap();
        assert!(!units.is_empty(), "{what}: {side} has no units");
        let mut total = 0u64;
        for u in units {
            // OTP 9.8: every unit fights someone (every defender has an attacker).
            assert!(!u["opponents"].as_array().unwrap().is_empty(), "{what}: {u}");
            let mods: i64 = u["modifiers"].as_array().unwrap().iter().map(|m| m["value"].as_i64().unwrap()).sum();
            assert_eq!(u["cv"].as_i64().unwrap() + mods, u["modified_cv"].as_i64().unwrap(), "{what}: 9.10–9.13 modifiers add up");
            for m in u["modifiers"].as_array().unwrap().iter().chain(u["multipliers"].as_array().unwrap()) {
                let rule = m["rule"].as_str().unwrap();
                assert!(rule.starts_with(|c: char| c.is_ascii_digit()), "{what}: a factor without its rule: {m}");
            }
            assert!(u["figures_rule"].as_str().unwrap().starts_with("9.9"));
            // OTP 9.8: figures x modified CV (not below 0) x multipliers, rounded up (5.3).
            let factor: f64 = u["multipliers"].as_array().unwrap().iter().map(|m| f(&m["factor"])).product();
            let raw = f(&u["figures"]) * (u["modified_cv"].as_i64().unwrap().max(0) as f64) * factor;
            assert_eq!(u["value"].as_u64().unwrap(), (raw - 1e-9).ceil().max(0.0) as u64, "{what}: {u}");
            total += u["value"].as_u64().unwrap();
        }
        assert_eq!(v[side]["total"].as_u64().unwrap(), total, "{what}: {side} total");
    }
    let rows = v["outcomes"].as_array().unwrap();
    let sum: f64 = rows.iter().map(|r| f(&r["probability"])).sum();
    assert!(close(sum, 1.0), "{what}: outcomes sum to {sum}");
    let attacker_rows = rows.iter().filter(|r| r["winner"] == "attacker");
    assert!(close(attacker_rows.clone().map(|r| f(&r["probability"])).sum(), f(&v["attacker_wins"])));
    assert!(close(attacker_rows.filter(|r| r["bonus_move"] == true).map(|r| f(&r["probability"])).sum(), f(&v["bonus_move"])));
    for r in rows {
        // OTP 9.8: one full move per AD; 6.10: a bonus move from 2/1, when the loser rolls 2 AD.
        let moves = r["loser_retreat_moves"].as_u64().unwrap();
        assert!(moves == 1 || moves == 2, "{what}: {r}");
        assert_eq!(r["bonus_move"] == true, moves == 2, "{what}: {r}");
        for key in ["winner_losses", "loser_losses"] {
            let s: f64 = r[key].as_array().unwrap().iter().map(|l| f(&l["probability"])).sum();
            assert!(close(s, 1.0), "{what}: {key}");
        }
    }
}

#[test]
fn every_enemy_pair_of_the_shipped_scenarios() {
    // Each pair is either judged (and its numbers agree) or refused with its rule: 7.2 for an
    // artillery attacker, 5.1 for a column without a leader.
    for file in shipped() {
        let s = scenario::load(&file).unwrap();
        let (mut judged, mut refused) = (0, 0);
        for (a, d) in pairs(&s) {
            let what = format!("{}: {a} -> {d}", file.display());
            match melee_command_json(&s, &a, &d) {
                Ok(v) => {
                    check_json(&v, &what);
                    judged += 1;
                }
                Err((rule, reason)) => {
                    assert!(["7.2", "5.1"].contains(&rule.as_str()), "{what}: {rule} {reason}");
                    refused += 1;
                }
            }
        }
        assert!(judged > 10, "{}: {judged} judged, {refused} refused", file.display());
    }
}

#[test]
fn otp_melee_json_on_the_teaching_battle() {
    // The 23rd Foot charge the 1st Maryland behind the Ridge breastwork on Long Ridge.
    let out = otp(&["melee", teaching().to_str().unwrap(), "23rd Foot", "1st Maryland", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_json(&v, "23rd Foot -> 1st Maryland");
    for key in ["closure", "closure_probability", "attacker", "defender", "outcomes", "attacker_wins", "bonus_move"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    assert_eq!(v["closure"], "front");
    // OTP 9.1 (chart): heavy cover +2: CV 5, D10 + 2 <= 5 closes on 0–3: 0.4.
    assert!(close(f(&v["closure_probability"]), 0.4), "{}", v["closure_check"]);
    // OTP 9.12: uphill (+1) and behind the breastwork (heavy, +3): 16 x (5 + 4) = 144.
    let maryland = &v["defender"]["units"][0];
    assert_eq!(maryland["name"], "1st Maryland");
    let names: Vec<&str> = maryland["modifiers"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["uphill_or_ford", "heavy_cover"]);
    assert_eq!(maryland["value"], 144);
    // OTP 7.5, 9.9: the attached guns fight beside their infantry, 1 figure each.
    let guns: Vec<&Value> = v["attacker"]["units"].as_array().unwrap().iter().chain(v["defender"]["units"].as_array().unwrap()).filter(|u| u["name"].as_str().unwrap().contains("Artillery")).collect();
    assert_eq!(guns.len(), 2);
    assert!(guns.iter().all(|g| g["figures"] == 1));
}

#[test]
fn otp_melee_text_cites_a_rule_on_every_line() {
    let out = otp(&["melee", teaching().to_str().unwrap(), "British Legion Dragoons", "North Carolina Militia"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(line.contains("OTP "), "no rule on: {line}");
    }
    // OTP 9.14: mounted cavalry x2 against infantry; 9.12: +1 against militia without bayonets.
    assert!(text.contains("x2 mounted cavalry against infantry"), "{text}");
    assert!(text.contains("+1 bayonets, or mounted cavalry"), "{text}");
}

#[test]
fn otp_melee_refusals_exit_1_with_their_rule() {
    let t = teaching();
    let t = t.to_str().unwrap();
    for (a, d, rule) in [
        ("Royal Artillery", "1st Maryland", "refused (OTP 7.2)"),
        ("British Legion Infantry", "North Carolina Militia", "refused (OTP 5.1)"),
        ("23rd Foot", "33rd Foot", "refused (OTP 9.0)"),
        ("Nobody", "33rd Foot", "refused: no unit named \"Nobody\""),
    ] {
        let out = otp(&["melee", t, a, d]);
        assert_eq!(out.status.code(), Some(1), "{a} -> {d}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with(rule), "{a} -> {d}: {text}");
        let json = otp(&["melee", t, a, d, "--json"]);
        assert_eq!(json.status.code(), Some(1));
        let v: Value = serde_json::from_slice(&json.stdout).unwrap();
        assert!(v["refused"]["reason"].as_str().is_some_and(|r| !r.is_empty()), "{v}");
    }
}
