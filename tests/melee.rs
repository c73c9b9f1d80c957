//! MELEE (OTP 9.0–9.14, 7.2, 5.1) through `otp melee`: every enemy pair of the shipped
//! scenarios judged, the JSON's arithmetic checked against itself, and the refusals' exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use otp::rules::otp::cli::melee_command_json;
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
    // Each pair at set-up is either judged (and its numbers agree) or refused with its rule, and
    // `otp melee` refuses exactly what the engine refuses, in its words (OTP 3.x, 6.5-6.9, 7.2,
    // 9.0, 9.1, 10.1): most pairs start far beyond any charge.
    let mut judged = 0;
    for file in shipped() {
        let s = scenario::load(&file).unwrap();
        if s.rules != otp::rules::cite::RuleSetId::Otp {
            continue; // another rule set's scenario: its own tests preview its charges
        }
        for (a, d) in pairs(&s) {
            let what = format!("{}: {a} -> {d}", file.display());
            let engine = engine_refusal_for(&s, &a, &d);
            match melee_command_json(&s, &a, &d, false) {
                Ok(v) => {
                    assert_eq!(engine, None, "{what}: the engine refuses what the preview judged");
                    check_json(&v, &what);
                    judged += 1;
                }
                Err((rule, reason)) => {
                    assert!(rule.starts_with(|c: char| c.is_ascii_digit()), "{what}: {rule} {reason}");
                    assert_eq!(engine, Some((rule, reason)), "{what}: the engine's rule and words");
                }
            }
        }
    }
    assert!(judged > 0, "some charge is possible at set-up");
}

/// The teaching battle with units moved (front centre) and, where given, unattached.
fn teaching_with(moves: &[(&str, (f32, f32))], unattach: &[&str]) -> Scenario {
    let mut s = scenario::load(&teaching()).unwrap();
    for u in s.sides.iter_mut().flat_map(|x| x.brigades.iter_mut()).flat_map(|b| b.units.iter_mut()) {
        if let Some((_, at)) = moves.iter().find(|(n, _)| *n == u.name) {
            u.at = [at.0, at.1];
        }
        if unattach.contains(&u.name.as_str()) {
            u.attached_to = None;
        }
    }
    s
}

/// `otp` on a scenario written to a temporary file.
fn otp_on(s: &Scenario, name: &str, args: &[&str]) -> std::process::Output {
    let path = std::env::temp_dir().join(format!("otp-melee-{}-{name}.ron", std::process::id()));
    std::fs::write(&path, scenario::to_ron(s)).unwrap();
    let mut all = vec![args[0], path.to_str().unwrap()];
    all.extend_from_slice(&args[1..]);
    let out = otp(&all);
    std::fs::remove_file(&path).ok();
    out
}

#[test]
fn otp_melee_json_on_the_teaching_battle() {
    // The 23rd Foot, moved to 4.5" from the 1st Maryland (at set-up 16", beyond any move) and
    // without its guns (unlimbered guns move 2", and may not cross the breastwork, 6.7, 7.5),
    // charge it behind the Ridge breastwork on Long Ridge.
    let s = teaching_with(&[("23rd Foot", (18.0, 26.5))], &["Royal Artillery"]);
    let out = otp_on(&s, "json", &["melee", "23rd Foot", "1st Maryland", "--json"]);
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
    // OTP 7.5, 9.9: the attached guns fight beside their infantry, 1 figure; the unattached
    // Royal Artillery stays out of it.
    let guns: Vec<&Value> = v["attacker"]["units"].as_array().unwrap().iter().chain(v["defender"]["units"].as_array().unwrap()).filter(|u| u["name"].as_str().unwrap().contains("Artillery")).collect();
    assert_eq!(guns.len(), 1);
    assert_eq!(guns[0]["name"], "Continental Artillery");
    assert!(guns.iter().all(|g| g["figures"] == 1));
}

#[test]
fn otp_melee_text_cites_a_rule_on_every_line() {
    // The Dragoons moved to 6" from the militia (at set-up the Old Stone Church is in the way).
    let s = teaching_with(&[("British Legion Dragoons", (46.0, 26.0))], &[]);
    let out = otp_on(&s, "text", &["melee", "British Legion Dragoons", "North Carolina Militia"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
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
        ("Nobody", "33rd Foot", "refused (OTP 4.2): the unit sheets list no unit named \"Nobody\""),
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

/// A 72" x 48" open table with `terrain` (a RON list): the British (chit 1, "Redcoats") face up
/// the table, the Americans (chit 2) down it. Units are RON unit entries.
fn table(british: &str, americans: &str, terrain: &str) -> Scenario {
    common::two_brigades(british, americans, terrain, "melee-preview.ron")
}

fn foot(name: &str, y: f32, facing: f32, extra: &str) -> String {
    format!(r#"(name: "{name}", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (36.0, {y}), facing: {facing}{extra}),"#)
}

fn horse(name: &str, y: f32) -> String {
    format!(r#"(name: "{name}", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: 6, formation: Line, at: (36.0, {y}), facing: 0.0),"#)
}

/// What the engine says of the charge with the attacker's brigade phasing (an unknown name:
/// the first brigade's).
fn engine_refusal_for(s: &Scenario, attacker: &str, defender: &str) -> Option<(String, String)> {
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Action, Game};
    let brigade = s.sides.iter().flat_map(|x| &x.brigades).find(|b| b.units.iter().any(|u| u.name == attacker)).unwrap_or(&s.sides[0].brigades[0]).name.clone();
    let mut g = Game::new(s.clone(), 7, Charts::embedded().clone());
    g.apply(Action::StartGame).unwrap();
    while g.phasing_brigade().as_deref() != Some(brigade.as_str()) {
        if g.phasing_brigade().is_some() {
            g.apply(Action::EndActivation).unwrap();
        }
        g.apply(Action::DrawChit).unwrap();
    }
    g.charge_preview(attacker, defender, Default::default()).err().map(|r| (r.rule, r.reason))
}

/// `otp melee` refuses under `rule` with the engine's own words (the preview's reason starts
/// with the engine's, a special-move fallback adding its own), and the engine refuses too.
fn refused_like_the_engine(s: &Scenario, a: &str, d: &str, rule: &str) -> String {
    let (r, reason) = melee_command_json(s, a, d, false).expect_err("the preview should refuse");
    let (er, ereason) = engine_refusal_for(s, a, d).expect("the engine refuses it too");
    assert_eq!((r.as_str(), er.as_str()), (rule, rule), "{reason} / {ereason}");
    assert!(reason.starts_with(&ereason), "the engine's words: {reason} / {ereason}");
    reason
}

/// Just inside the condition: the preview and the engine both allow it.
fn allowed(s: &Scenario, a: &str, d: &str) -> Value {
    let v = melee_command_json(s, a, d, false).unwrap_or_else(|r| panic!("{a} -> {d} refused: {r:?}"));
    assert_eq!(engine_refusal_for(s, a, d), None);
    check_json(&v, &format!("{a} -> {d}"));
    v
}

#[test]
fn otp_melee_refuses_a_unit_with_a_morale_marker() {
    // OTP 10.1: a unit with a Morale Marker may not perform any operation, so it may not charge.
    let target = foot("Blues", 24.0, 180.0, "");
    let s = table(&foot("Reds", 20.0, 0.0, ", morale_marker: true"), &target, "");
    let why = refused_like_the_engine(&s, "Reds", "Blues", "10.1");
    assert!(why.contains("Morale Marker"), "{why}");
    allowed(&table(&foot("Reds", 20.0, 0.0, ""), &target, ""), "Reds", "Blues");
}

#[test]
fn otp_melee_refuses_cavalry_beyond_its_24_inch_charge() {
    // OTP 3.2, 6.9: cavalry in line charges 24"; the target's front 24.5" away is beyond it,
    // 23.5" is within it.
    let s = table(&horse("Dragoons", 10.0), &foot("Blues", 34.5, 180.0, ""), "");
    let why = refused_like_the_engine(&s, "Dragoons", "Blues", "6.9");
    assert!(why.contains("24.00"), "{why}");
    let v = allowed(&table(&horse("Dragoons", 10.0), &foot("Blues", 33.5, 180.0, ""), ""), "Dragoons", "Blues");
    assert!((f(&v["path"]["distance"]) - 23.5).abs() < 0.01, "{}", v["path"]);
}

#[test]
fn otp_melee_refuses_infantry_beyond_any_move_it_could_make() {
    // OTP 6.9: a charge moves no further than a normal move (6" in line): 6.5" is refused, and
    // the refusal says a special move to contact could reach; 5.5" is allowed. 6.8: a special
    // move to contact adds 1AD, at most 5", so 11" is the most any move gives: with --special,
    // 11.5" is refused and 10.5" allowed.
    let reds = foot("Reds", 10.0, 0.0, "");
    let at = |y: f32| table(&reds, &foot("Blues", 10.0 + y, 180.0, ""), "");
    let why = refused_like_the_engine(&at(6.5), "Reds", "Blues", "6.9");
    assert!(why.contains("special move to contact (6.8) could reach"), "{why}");
    assert_eq!(allowed(&at(5.5), "Reds", "Blues")["special_move"], false);
    let (rule, why) = melee_command_json(&at(11.5), "Reds", "Blues", true).expect_err("beyond any move");
    assert_eq!(rule, "6.8", "{why}");
    assert!(why.contains("11.00"), "{why}");
    let special = melee_command_json(&at(10.5), "Reds", "Blues", true).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(special["special_move"], true);
    check_json(&special, "special move to contact");
    let why = refused_like_the_engine(&at(11.5), "Reds", "Blues", "6.9");
    assert!(!why.contains("could reach"), "no move reaches 11.5\": {why}");
}

#[test]
fn otp_melee_refuses_a_path_through_a_friendly_unit() {
    // OTP 6.5: units may not interpenetrate: a friend square in the charge's path refuses it;
    // the same friend off to one side does not.
    let friend = |x: f32| format!(r#"(name: "Friends", type: Line, arm: Infantry, weapon: Some(Musket), figures: 4, formation: Line, at: ({x}, 13.0), facing: 0.0),"#);
    let target = foot("Blues", 16.0, 180.0, "");
    let s = table(&(foot("Reds", 10.0, 0.0, "") + &friend(36.0)), &target, "");
    let why = refused_like_the_engine(&s, "Reds", "Blues", "6.5");
    assert!(why.contains("Friends"), "{why}");
    allowed(&table(&(foot("Reds", 10.0, 0.0, "") + &friend(50.0)), &target, ""), "Reds", "Blues");
}

#[test]
fn otp_melee_refuses_charging_cavalry_over_a_fence() {
    // OTP 6.9: a cavalry unit making a charge move may not cross linear obstructions: a fence
    // across its path refuses it; the same fence beside the path does not.
    let fence = |x0: f32, x1: f32| format!(r#"Obstacle(name: "Rail fence", kind: Fence, path: [({x0}, 15.0), ({x1}, 15.0)]),"#);
    let target = foot("Blues", 20.0, 180.0, "");
    let s = table(&horse("Dragoons", 10.0), &target, &fence(28.0, 44.0));
    let why = refused_like_the_engine(&s, "Dragoons", "Blues", "6.9");
    assert!(why.contains("Rail fence"), "{why}");
    allowed(&table(&horse("Dragoons", 10.0), &target, &fence(50.0, 60.0)), "Dragoons", "Blues");
}
