//! Scenario files: the shipped scenarios are valid and round-trip; every bad fixture gets its
//! exact `file:line:col: message`; `otp check` and `otp render` behave for a user.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use otp::scenario::{self, Scenario};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn shipped_scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "ron")).collect();
    files.sort();
    files
}

#[test]
fn shipped_scenarios_are_valid_and_round_trip() {
    let files = shipped_scenarios();
    assert!(files.len() >= 2, "the teaching battle and at least one historical battle: {files:?}");
    for file in files {
        let s = scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
        // Round trip: parse -> save -> parse gives the same scenario.
        let text = scenario::to_ron(&s);
        let again = scenario::parse(&text, "round-trip").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(s, again, "{} does not round-trip", file.display());
    }
}

/// Seeded automatic games on every shipped scenario, each played to the scenario's own turn
/// limit (the 200-game tables are `otp simulate --balance`; these take a few seconds in release).
const SCENARIO_GAMES: u64 = 3;

// OTP 4.2–4.5, 6.5, 8.2, 10.2–10.5, 11.0: on every shipped scenario the automatic players keep
// every invariant after each activation and turn, the engine never refuses them, the game ends
// at the turn asked for, and shots are fired.
#[test]
fn automatic_games_on_every_scenario_keep_the_invariants() {
    use otp::rules::otp::bot::Bot;
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Action, Game};
    for file in shipped_scenarios() {
        let s = scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let turns = s.turn_limit.unwrap_or(10);
        let mut fired = 0;
        for seed in 0..SCENARIO_GAMES {
            let mut g = Game::new(s.clone(), seed, Charts::embedded().clone());
            let mut bot = Bot::new();
            bot.play(&mut g, |g, r| {
                if matches!(r.action, Action::EndActivation | Action::EndTurn) {
                    common::invariants::check(g, seed);
                }
                fired += usize::from(matches!(r.action, Action::Fire { .. }));
            });
            common::invariants::check(&g, seed);
            assert_eq!(bot.refusals, 0, "{} seed {seed}: {:?}", file.display(), bot.refused);
            assert_eq!(g.summary().expect("the game ended").turns_played, turns, "{}", file.display());
        }
        assert!(fired > 0, "{}: nobody fired in {SCENARIO_GAMES} games", file.display());
    }
}

#[test]
fn the_embedded_default_is_the_teaching_file() {
    let embedded = scenario::default_scenario();
    let on_disk = scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(scenario::DEFAULT_SCENARIO_NAME)).unwrap();
    assert_eq!(embedded, on_disk);
    // Issue 2: both sides, line, light and militia infantry, cavalry, artillery, commanders.
    use otp::scenario::model::{Arm, Terrain, UnitType};
    for side in &embedded.sides {
        let units: Vec<_> = side.brigades.iter().flat_map(|b| &b.units).collect();
        for t in [UnitType::Line, UnitType::Light, UnitType::Militia] {
            assert!(units.iter().any(|u| u.unit_type == t && u.arm == Arm::Infantry), "{}: no {t:?} infantry", side.name);
        }
        assert!(units.iter().any(|u| u.arm == Arm::Cavalry), "{}: no cavalry", side.name);
        assert!(units.iter().any(|u| matches!(u.arm, Arm::Artillery { .. })), "{}: no artillery", side.name);
        assert!(side.commander.is_some());
    }
    let kinds: std::collections::HashSet<&str> = embedded.terrain.iter().map(Terrain::kind_name).collect();
    for k in ["Woods", "Hill", "Stream", "Obstacle", "Road", "Town", "Building", "Field"] {
        assert!(kinds.contains(k), "no {k} on the teaching table");
    }
}

#[test]
fn saving_writes_atomically_and_reloads() {
    let dir = std::env::temp_dir().join(format!("otp-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("saved.ron");
    let s = scenario::default_scenario();
    scenario::save(&path, &s).unwrap();
    assert_eq!(scenario::load(&path).unwrap(), s);
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n != "saved.ron").collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
    // A save into a folder that does not exist fails and creates nothing.
    assert!(scenario::save(&dir.join("missing/x.ron"), &s).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each bad fixture and the first line `otp check` prints for it.
const BAD: &[(&str, &str)] = &[
    ("absurd_figures", "35:29: more than 120 figures is not a unit this table can base"),
    ("artillery_in_line", "20:41: artillery is Limbered or Unlimbered (5.0), not Line"),
    ("artillery_with_musket", "19:86: artillery carries no small arms; remove weapon: Some(Musket)"),
    ("attached_to_missing_unit", "20:41: no unit called \"Nobody\" to attach to"),
    ("cavalry_three_to_a_stand", "35:29: figures_per_stand must be one of [2, 1] for this unit (OTP 1.1-1.2)"),
    ("cv_out_of_range", "18:42: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("duplicate_chit", "29:45: chit 1 is already brigade First Brigade's: each brigade needs its own numbered chit (4.3)"),
    ("duplicate_unit_name", "32:26: two units are called \"10th Foot\"; unit names must be unique"),
    ("galloper_heavy_gun", "19:58: galloper guns are light guns of 3-4 lb (7.6)"),
    ("history_winner_unknown", "4:60: winner \"Patriots\" is not a side of this battle: name one of \"Crown\" or \"Rebels\""),
    ("huge_table", "4:13: table width must be 6 to 480 inches, not 100000"),
    ("indians_skirmish_only", "36:41: with optional rule 5.5 Indians can only be in skirmish line"),
    ("infantry_limbered", "18:42: only artillery can be Limbered (5.0)"),
    ("infinite_table", "4:13: table width must be 6 to 480 inches, not inf"),
    ("line_cannot_skirmish", "33:42: StateLine infantry cannot skirmish: only Light, Indian and some Militia infantry can form skirmish line (5.3)"),
    ("loose_order_needs_option", "33:42: loose order is optional rule 5.4: turn on optional_rules.loose_order"),
    ("missing_field_table", "40:1: Unexpected missing field named `table` in `Scenario`"),
    ("nan_position", "33:59: position must be two finite numbers of inches"),
    ("negative_figures", "35:39: Integer is out of bounds"),
    ("negative_table", "4:26: table depth must be 6 to 480 inches, not -36"),
    ("odd_infantry_figures", "33:29: 1 figure(s) left over after stands of 4: infantry are based 4 or 2 to a stand (OTP 1.1)"),
    ("one_side_only", "9:5: a battle needs exactly two sides, this file has 1"),
    ("skirmish_gap_too_wide", "35:62: a Skirmish gap is 1\" to 3\" (5.3, 5.4), not 5"),
    ("syntax_missing_comma", "17:44: Expected comma"),
    ("terrain_off_table", "7:28: point [24.0, 60.0] is off the 48\" x 36\" table"),
    ("unit_off_table", "35:62: Rifle Company has a stand off the table (a corner at 50.5, 8.0)"),
    ("units_overlap", "33:59: 1st Virginia overlaps Rifle Company at set-up: units may not interpenetrate (6.5)"),
    ("unknown_field", "18:42: Unexpected field named `morale` in `Unit`, expected one of"),
    ("unknown_artillery_field", "19:85: Unexpected field named `gallopper` in `Artillery`, expected either `gun` or `galloper` instead"),
    ("unknown_terrain_field", "6:48: Unexpected field named `disorder_type` in `Woods`"),
    ("unknown_unit_type", "32:54: Unexpected variant named `Regulars` in enum `UnitType`"),
    ("unknown_weapon", "34:90: Unexpected variant named `Blunderbuss` in enum `Weapon`"),
    ("unterminated_string", "6:22: Expected comma"),
    ("woods_outline_too_short", "6:48: outline needs at least 3 points, has 2"),
    ("woods_self_crossing", "6:48: outline crosses itself; list the corners in order around the edge"),
    ("zero_figures", "35:29: a unit needs at least one figure"),
];

#[test]
fn every_bad_fixture_gets_its_located_message() {
    let dir = fixture("bad");
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(on_disk, BAD.len(), "every fixture in tests/fixtures/bad has an expected message");
    assert!(BAD.len() >= 20);
    for (name, expected) in BAD {
        let path = dir.join(format!("{name}.ron"));
        let err = scenario::load(&path).expect_err(name);
        let first = err.to_string().lines().next().unwrap().to_string();
        let want = format!("{}:{expected}", path.display());
        assert!(first.starts_with(&want), "{name}:\n  got  {first}\n  want {want}");
    }
}

#[test]
fn the_good_fixture_is_valid() {
    // The base every bad fixture breaks: it must itself pass, or the fixtures prove nothing.
    scenario::load(&fixture("good/small.ron")).unwrap();
}

#[test]
fn otp_check_exits_1_with_the_message_on_stderr() {
    let bin = env!("CARGO_BIN_EXE_otp");
    let bad = Command::new(bin).args(["check"]).arg(fixture("bad/duplicate_chit.ron")).arg(fixture("good/small.ron")).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("duplicate_chit.ron:29:45: chit 1 is already brigade"), "{stderr}");
    assert!(String::from_utf8_lossy(&bad.stdout).contains("small.ron: ok"), "good files are still reported");
    let good = Command::new(bin).arg("check").args(shipped_scenarios()).output().unwrap();
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
}

#[test]
fn render_draws_the_setup_in_side_colours() {
    let dir = std::env::temp_dir().join(format!("otp-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_otp");
    let teaching = Path::new(env!("CARGO_MANIFEST_DIR")).join(scenario::DEFAULT_SCENARIO_NAME);
    for ext in ["svg", "png"] {
        let out = dir.join(format!("setup.{ext}"));
        let run = Command::new(bin).arg("render").arg(&teaching).arg("-o").arg(&out).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    }
    let svg = std::fs::read_to_string(dir.join("setup.svg")).unwrap();
    assert!(svg.contains("rgb(196,38,38)") && svg.contains("rgb(38,74,168)"), "both side colours in the SVG");
    assert!(svg.contains("23rd Foot (16)"), "unit labels with figures");
    let png = image::open(dir.join("setup.png")).unwrap().to_rgb8();
    assert_eq!(png.width(), ((72.0 + 2.0) * 20.0) as u32, "20 px an inch plus a 1\" margin each side");
    let count = |c: [u8; 3]| png.pixels().filter(|p| p.0.iter().zip(c).all(|(a, b)| a.abs_diff(b) <= 12)).count();
    let cloth = count([150, 172, 112]);
    assert!(cloth > (png.width() * png.height()) as usize / 5, "the table cloth covers the table ({cloth} px)");
    assert!(count([196, 38, 38]) > 200 && count([38, 74, 168]) > 200, "both sides' stands are drawn");
    // A bad output name is refused with a message, and writes nothing.
    let bad = Command::new(bin).arg("render").arg(&teaching).arg("-o").arg(dir.join("setup.gif")).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must end in .svg or .png"));
    assert!(!dir.join("setup.gif").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Fuzzing: any mangling of a valid file gives Ok or a located error, never a panic.
        #[test]
        fn mangled_files_never_panic(start in 0usize..2000, len in 0usize..40, junk in "[ -~\\n]{0,12}") {
            let good = std::fs::read_to_string(fixture("good/small.ron")).unwrap();
            let start = start.min(good.len());
            let end = (start + len).min(good.len());
            if good.is_char_boundary(start) && good.is_char_boundary(end) {
                let mangled = format!("{}{}{}", &good[..start], junk, &good[end..]);
                match scenario::parse(&mangled, "fuzz.ron") {
                    Ok(s) => { let _: Scenario = s; }
                    Err(e) => prop_assert!(e.to_string().starts_with("fuzz.ron")),
                }
            }
        }
    }
}

#[test]
fn otp_replay_prints_the_reports_of_a_save() {
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Game, action::Action};
    // OTP 4.2-4.3: commander values rolled, a chit drawn; the save replays to the same reports.
    let mut game = Game::new(scenario::default_scenario(), 7, Charts::embedded().clone());
    let start = game.apply(Action::StartGame).unwrap();
    let draw = game.apply(Action::DrawChit).unwrap();
    let dir = std::env::temp_dir().join(format!("otp-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.ron");
    game.save(&path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_otp")).arg("replay").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&start.to_string()) && text.contains(&draw.to_string()), "{text}");
    // A save that is not one is refused with a message.
    std::fs::write(&path, "(nonsense").unwrap();
    let bad = Command::new(env!("CARGO_BIN_EXE_otp")).arg("replay").arg(&path).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(!bad.stderr.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
