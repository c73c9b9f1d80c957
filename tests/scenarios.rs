//! Scenario files: the shipped scenarios are valid and round-trip; every bad fixture gets its
//! exact `file:line:col: message`; `otp check` and `otp render` behave for a user.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use otp::scenario;

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

/// Games per scenario: `SCENARIO_GAMES` in CI, more with `OTP_SCENARIO_GAMES=200` (the issue's
/// 200-game check, run by hand and recorded in docs/scenarios.md).
fn scenario_games() -> u64 {
    std::env::var("OTP_SCENARIO_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(SCENARIO_GAMES)
}

// OTP 4.2–4.5, 6.5, 8.2, 10.2–10.5, 11.0: on every shipped scenario the automatic players keep
// every invariant after each activation and turn, the engine never refuses them, the game ends
// at the turn asked for, and shots are fired.
#[test]
fn automatic_games_on_every_scenario_keep_the_invariants() {
    let games = scenario_games();
    let mut failures = Vec::new();
    for file in shipped_scenarios() {
        let s = scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
        if s.rules != otp::rules::cite::RuleSetId::Otp {
            continue; // played under its own rule set below
        }
        let mut fired = 0;
        for seed in 0..games {
            // Every game is played, and every failing seed named, not only the first.
            let game = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fired += play_checked(&s, seed)));
            if let Err(e) = game {
                let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                failures.push(format!("{} seed {seed}: {why}", file.display()));
            }
        }
        assert!(fired > 0, "{}: nobody fired in {games} games", file.display());
    }
    assert!(failures.is_empty(), "{} failing games:\n{}", failures.len(), failures.join("\n"));
}

// QK1, OR3, SG37, PK1: a scenario written for another rule set plays to its turn limit under
// it, its automatic players never refused, and someone loses figures (the rule sets' own tests
// check their invariants after every action).
#[test]
fn scenarios_of_other_rule_sets_play_under_them() {
    let mut others = 0;
    for file in shipped_scenarios() {
        let s = scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
        if s.rules == otp::rules::cite::RuleSetId::Otp {
            continue;
        }
        others += 1;
        let mut lost = 0;
        for seed in 0..scenario_games() {
            let o = otp::rules::registry::simulate(s.rules, &s, seed, None, None).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert_eq!(o.refusals, 0, "{} seed {seed}: the engine refused its automatic player", file.display());
            assert_eq!(Some(o.turns_played), s.turn_limit, "{} seed {seed}: played to the turn limit", file.display());
            lost += o.sides.iter().map(|x| x.figures_lost).sum::<u32>();
        }
        assert!(lost > 0, "{}: nobody lost a figure in {} games", file.display(), scenario_games());
    }
    assert!(others >= 2, "the two Civil War scenarios");
}

/// One automatic game of `s` to its turn limit, the invariants checked after every activation
/// and turn (panics on the first broken one); the shots fired.
fn play_checked(s: &scenario::Scenario, seed: u64) -> usize {
    use otp::rules::otp::bot::Bot;
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Action, Game};
    let mut fired = 0;
    let mut g = Game::new(s.clone(), seed, Charts::embedded().clone());
    let mut bot = Bot::new();
    bot.play(&mut g, |g, r| {
        if matches!(r.action.as_otp(), Some(Action::EndActivation | Action::EndTurn)) {
            common::invariants::check(g, seed);
        }
        fired += usize::from(matches!(r.action.as_otp(), Some(Action::Fire { .. })));
    });
    common::invariants::check(&g, seed);
    assert_eq!(bot.refusals, 0, "refused: {:?}", bot.refused);
    assert_eq!(g.summary().expect("the game ended").turns_played, s.turn_limit.unwrap_or(10));
    fired
}

// OTP 7.5, 6.5: a partial move (a firefight's stand-off, a special move falling short, a half-way
// stop) used to leave a unit's attached guns behind, and the 5th and 7th Maryland ended on their
// own Reserve Guns in these two Camden games (the 200-game check found them).
#[test]
fn a_partial_move_never_leaves_a_unit_on_its_own_attached_guns() {
    let camden = scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/camden.ron")).unwrap_or_else(|e| panic!("{e}"));
    for seed in [114, 173] {
        play_checked(&camden, seed);
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
    ("backslash_in_name", "20:41: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("blank_brigade_name", "29:21: a brigade needs a name, not \"   \""),
    ("bom_crlf_cv_out_of_range", "18:42: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("cavalry_three_to_a_stand", "35:29: figures_per_stand must be one of [2, 1] for this unit (OTP 1.1-1.2)"),
    ("commander_named_like_unit", "30:33: commander \"Rifle Company\" has the name of a unit; orders name both, so they must differ"),
    ("cv_out_of_range", "18:42: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("duplicate_chit", "29:45: chit 1 is already brigade First Brigade's: each brigade needs its own numbered chit (4.3)"),
    ("duplicate_commander_name", "30:33: two commanders are called \"Col. Red\"; commander names must be unique"),
    ("duplicate_side_name", "26:13: two sides are called \"Crown\""),
    ("duplicate_unit_name", "32:26: two units are called \"10th Foot\"; unit names must be unique"),
    ("empty_unit_name", "19:26: a unit needs a name, not \"\""),
    ("escaped_quote_in_name", "35:41: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("galloper_heavy_gun", "19:58: galloper guns are light guns of 3-4 lb (7.6)"),
    ("history_winner_unknown", "4:60: winner \"Patriots\" is not a side of this battle: name one of \"Crown\" or \"Rebels\""),
    ("huge_table", "4:13: table width must be 6 to 480 inches, not 100000"),
    ("indians_skirmish_only", "36:41: with optional rule 5.5 Indians can only be in skirmish line"),
    ("infantry_limbered", "18:42: only artillery can be Limbered (5.0)"),
    ("infinite_table", "4:13: table width must be 6 to 480 inches, not inf"),
    ("invalid_utf8", "7:22: invalid UTF-8 (byte 0xFF): save the file as UTF-8 text"),
    ("line_cannot_skirmish", "33:42: StateLine infantry cannot skirmish: only Light, Indian and some Militia infantry can form skirmish line (5.3)"),
    ("loose_order_needs_option", "33:42: loose order is optional rule 5.4: turn on optional_rules.loose_order"),
    ("name_also_in_comment_and_objective", "37:62: Rifle Company has a stand off the table"),
    ("missing_field_table", "40:1: Unexpected missing field named `table` in `Scenario`"),
    ("nan_position", "33:59: position must be two finite numbers of inches"),
    ("newline_in_side_name", "26:13: a side's name \"Re\\nbels\" holds the control character '\\n'; a name is printable text on one line"),
    ("negative_figures", "35:39: Integer is out of bounds"),
    ("negative_table", "4:26: table depth must be 6 to 480 inches, not -36"),
    ("nul_in_unit_name", "32:26: a unit's name \"1st\\0Virginia\" holds the control character '\\0'; a name is printable text on one line"),
    // OTP 5.0: a formation of another rule set in an OTP scenario.
    ("otp_wedge", "18:42: On to Philadelphia has no wedge formation (5.0)"),
    ("otp_acw_leader", "30:52: commander Col. Blue is a Union leader: OTP 2.0's COMMANDER VALUES has no column"),
    ("odd_infantry_figures", "33:29: 1 figure(s) left over after stands of 4: infantry are based 4 or 2 to a stand (OTP 1.1)"),
    ("one_side_only", "9:5: a battle needs exactly two sides, this file has 1"),
    ("raw_string_name", "35:41: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("skirmish_gap_too_wide", "35:62: a Skirmish gap is 1\" to 3\" (5.3, 5.4), not 5"),
    ("syntax_missing_comma", "17:44: Expected comma"),
    ("terrain_off_table", "7:28: point [24.0, 60.0] is off the 48\" x 36\" table"),
    ("unit_off_table", "35:62: Rifle Company has a stand off the table (a corner at 50.5, 8.0)"),
    ("units_overlap", "33:59: 1st Virginia overlaps Rifle Company at set-up: units may not interpenetrate (6.5)"),
    ("unknown_field", "18:42: Unexpected field named `morale` in `Unit`, expected one of"),
    ("unicode_escape_in_name", "33:42: cv must be 1 to 9 (a D10 reads 0-9), not 12"),
    ("unknown_artillery_field", "19:85: Unexpected field named `gallopper` in `Artillery`, expected either `gun` or `galloper` instead"),
    ("unknown_terrain_field", "6:48: Unexpected field named `disorder_type` in `Woods`"),
    ("unknown_unit_type", "32:54: Unexpected variant named `Regulars` in enum `UnitType`"),
    ("unknown_weapon", "34:90: Unexpected variant named `Blunderbuss` in enum `Weapon`"),
    ("unterminated_string", "6:22: Expected comma"),
    ("woods_outline_too_short", "6:48: outline needs at least 3 points, has 2"),
    ("woods_self_crossing", "6:48: outline crosses itself; list the corners in order around the edge"),
    ("zero_figures", "35:29: a unit needs at least one figure"),
    // Rule sets (issue #14): the file's `rules:` must name one this otp plays, and the fields the
    // other rule sets read are checked where they are written.
    ("unknown_rules", "4:12: Unexpected variant named `Chess` in enum `RuleSetId`"),
    ("unknown_nation", "12:26: Unexpected variant named `Prussian` in enum `Nation`"),
    ("both_sides_move_first", "28:13: only one side can move first: remove moves_first from one of them"),
    ("zero_men", "33:89: men must be 1 to 20000, not 0"),
    ("purky_class_wrong_arm", "19:29: purky class Cavalry is not a class of infantry"),
    ("acw_gun_on_foot", "36:29: acw gun is for artillery; foot and horse carry a weapon"),
    ("wagon_off_table", "28:46: wagon Rebel Wagons at [60.0, 1.0] is off the table"),
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

/// A temporary folder of this test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("otp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run `otp` with these arguments; a run that is still going after a minute is a hang.
fn otp(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_otp")).args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("otp {args:?} hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_byte_order_mark_and_crlf_line_ends_are_read() {
    // A Windows editor's save of the small scenario is the same scenario.
    let windows = scenario::load(&fixture("good/bom_crlf.ron")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(windows, scenario::load(&fixture("good/small.ron")).unwrap());
}

#[test]
fn every_problem_of_a_bad_file_is_located_by_the_parser_not_by_searching_for_the_name() {
    // Names written with escapes or as raw strings, or that appear earlier in a comment or as an
    // objective: every problem has a line and column, and it is the item's own.
    for name in ["escaped_quote_in_name", "unicode_escape_in_name", "backslash_in_name", "raw_string_name", "name_also_in_comment_and_objective"] {
        let err = scenario::load(&fixture(&format!("bad/{name}.ron"))).expect_err(name);
        assert!(err.problems.iter().all(|p| p.position.is_some()), "{name}: {err}");
    }
}

#[test]
fn render_print_writes_one_pdf_and_refuses_bad_paper_scale_or_output() {
    let dir = std::env::temp_dir().join(format!("otp-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_otp");
    let cowpens = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron");
    let out = dir.join("cowpens.pdf");
    // Letter, any case: 96" x 72" on 7.5" x 10" of paper a page, portrait, pages every 7" across
    // and 9.5" down: 14 columns x 8 rows, beside landscape's 11 x 11.
    let run = Command::new(bin).arg("render").arg(&cowpens).args(["--print", "letter", "-o"]).arg(&out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("114 pages of Letter portrait (map, 112 tiles in 8 rows of 14, set-up sheet)"), "{said}");
    let pdf = std::fs::read(&out).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let text = String::from_utf8_lossy(&pdf);
    assert_eq!(text.matches("/Type /Page ").count(), 114);
    assert_eq!(text.matches("/MediaBox [0 0 612 792]").count(), 112 + 1, "tiles and the sheet on portrait Letter");
    // Bad input: a clear message, and the PDF already there is left as it was.
    let before = std::fs::read(&out).unwrap();
    let bad = Command::new(bin).arg("render").arg(&cowpens).args(["--print", "A3", "-o"]).arg(&out).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "a clap usage error");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("invalid value 'A3' for '--print <PAPER>'") && err.contains("[possible values: A4, Letter]"), "{err}");
    for (args, message) in [(["--print", "A4", "--scale", "0"], "--scale with --print must be 0.1 to 10"), (["--print", "A4", "--scale", "8"], "pages of A4; lower --scale")] {
        let bad = Command::new(bin).arg("render").arg(&cowpens).args(args).arg("-o").arg(&out).output().unwrap();
        assert_eq!(bad.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&bad.stderr).contains(message), "{}", String::from_utf8_lossy(&bad.stderr));
    }
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let svg = dir.join("cowpens.svg");
    let bad = Command::new(bin).arg("render").arg(&cowpens).args(["--print", "A4", "-o"]).arg(&svg).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("with --print the output must end in .pdf"));
    assert!(!svg.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn render_escapes_names_so_the_svg_parses() {
    use otp::scenario::model::Terrain;
    // Names straight from code, past the loader's checks: the SVG must still be valid XML.
    let mut s = scenario::default_scenario();
    s.name = "Fight at <Brandywine> & \"Chadd's\" Ford\u{0}\n".into();
    s.sides[0].brigades[0].units[0].name = "<b>&amp;\u{1}\u{7f}\u{fffe}".into();
    if let Terrain::Woods { name, .. } = &mut s.terrain[0] {
        *name = "]]></text><script/>".into();
    }
    let svg = otp::render::svg(&otp::picture::setup(&s), &s.name);
    let parsed = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default());
    assert!(parsed.is_ok(), "{:?}", parsed.err());
    assert!(svg.contains("Fight at &lt;Brandywine&gt; &amp; &quot;Chadd&apos;s&quot; Ford"), "the title is kept, escaped");
}

#[test]
fn simulate_never_writes_its_log_over_the_scenario() {
    let dir = TempDir::new("simulate-log");
    let scenario = dir.0.join("mine.ron");
    std::fs::copy(fixture("good/small.ron"), &scenario).unwrap();
    let before = std::fs::read(&scenario).unwrap();
    std::fs::hard_link(&scenario, dir.0.join("link.ron")).unwrap();
    std::fs::create_dir(dir.0.join("sub")).unwrap();
    for log in [scenario.clone(), dir.0.join("sub/../mine.ron"), dir.0.join("link.ron")] {
        let run = otp(&[ "simulate".as_ref(), scenario.as_os_str(), "--turns".as_ref(), "1".as_ref(), "--log".as_ref(), log.as_os_str()]);
        assert_eq!(run.status.code(), Some(1), "{}", log.display());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("that is the input file") && stderr.contains("not written over"), "{stderr}");
        assert_eq!(std::fs::read(&scenario).unwrap(), before, "the scenario is untouched");
    }
}

#[test]
fn simulate_says_why_when_the_log_cannot_be_written() {
    // /dev/full: every write fails with "no space left on device".
    let small = fixture("good/small.ron");
    for games in ["1", "3"] {
        let run = otp(&["simulate".as_ref(), small.as_os_str(), "--turns".as_ref(), "1".as_ref(), "--games".as_ref(), games.as_ref(), "--log".as_ref(), "/dev/full".as_ref()]);
        assert_eq!(run.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("/dev/full: could not write the log") && stderr.contains("No space left on device"), "{games} games: {stderr}");
    }
}

/// A save of the small scenario whose third action moves a unit by `step` (RON).
fn save_with_step(step: &str) -> String {
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Action, Game};
    let mut game = Game::new(scenario::load(&fixture("good/small.ron")).unwrap(), 3, Charts::embedded().clone());
    game.apply(Action::StartGame).unwrap();
    game.apply(Action::DrawChit).unwrap();
    let mut save = game.to_save();
    save.actions.push(Action::Move { unit: "10th Foot".into(), steps: vec![] });
    save.to_ron().replace("steps: []", &format!("steps: [{step}]"))
}

#[test]
fn absurd_numbers_in_a_save_are_refused_at_their_place_not_replayed_forever() {
    let dir = TempDir::new("absurd-save");
    for step in ["Forward(inf)", "Forward(1e30)", "SideStep(1e38)", "Forward(NaN)", "Oblique(angle: 1e20, distance: 2.0)", "Path([(1.0, 1.0), (1e9, 1.0)])"] {
        let text = save_with_step(step);
        let path = dir.0.join("absurd.ron");
        std::fs::write(&path, &text).unwrap();
        for command in ["replay", "play"] {
            if command == "play" && !cfg!(feature = "window") {
                continue;
            }
            let run = otp(&[command.as_ref(), path.as_os_str()]);
            assert_eq!(run.status.code(), Some(1), "{command} {step}");
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(stderr.contains(&format!("{}:", path.display())) && stderr.contains("action 3 (move 10th Foot") && stderr.contains("not a number the table allows"), "{command} {step}: {stderr}");
            let place = stderr.split(':').nth(1).and_then(|l| l.parse::<usize>().ok());
            assert!(place.is_some_and(|l| text.lines().nth(l - 1).unwrap().contains("Move")), "{command} {step}: the line of the action: {stderr}");
        }
    }
}

#[test]
fn a_save_of_an_edited_scenario_is_refused_with_what_changed_unless_forced() {
    use otp::rules::otp::charts::Charts;
    use otp::rules::otp::engine::{Action, Game, Save};
    let dir = TempDir::new("edited-save");
    let mut game = Game::new(scenario::load(&fixture("good/small.ron")).unwrap(), 11, Charts::embedded().clone());
    for a in [Action::StartGame, Action::DrawChit, Action::EndActivation, Action::DrawChit] {
        game.apply(a).unwrap();
    }
    let path = dir.0.join("game.ron");
    game.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(otp(&["replay".as_ref(), path.as_os_str()]).status.success(), "an unedited save replays");
    // The player edits the save's scenario: more figures for 10th Foot, Rifle Company moved.
    let edited = text.replacen("figures: 12,", "figures: 16,", 1).replacen("at: (32.0, 8.0)", "at: (34.0, 8.0)", 1);
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    let refused = otp(&["replay".as_ref(), path.as_os_str()]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("not the one the game was played on") && stderr.contains("unit \"10th Foot\" changed") && stderr.contains("unit \"Rifle Company\" changed") && stderr.contains("--force"), "{stderr}");
    assert!(!stderr.contains("Crown Guns"), "only what changed is named: {stderr}");
    let forced = otp(&["replay".as_ref(), path.as_os_str(), "--force".as_ref()]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(String::from_utf8_lossy(&forced.stderr).starts_with("warning:"));
    // A save from before digests (none recorded) loads and replays to the same reports.
    let mut old = Save::parse(&text, "game.ron").unwrap();
    assert!(old.digest.is_some());
    old.digest = None;
    let old_text = old.to_ron();
    assert!(!old_text.contains("digest"));
    let replayed = Game::from_save(&Save::parse(&old_text, "old.ron").unwrap(), Charts::embedded().clone()).unwrap();
    assert_eq!(replayed.reports(), game.reports());
}

#[test]
fn the_scenario_digest_is_fnv1a_of_the_canonical_text() {
    use otp::rules::otp::engine::save::ScenarioDigest;
    // docs/scenario-format.md: FNV-1a, 64 bits, of ron's compact text of the scenario.
    let s = scenario::load(&fixture("good/small.ron")).unwrap();
    let text = ron::Options::default().to_string(&s).unwrap();
    let fnv1a = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3));
    let digest = ScenarioDigest::of(&s);
    assert_eq!(digest.whole, format!("{fnv1a:016x}"));
    assert!(digest.parts.contains_key("unit \"10th Foot\"") && digest.parts.contains_key("terrain \"Copse\""), "{:?}", digest.parts.keys());
    assert!(digest.changes(&s).is_empty());
}

// ---- rule sets, save formats and --rules (issue #14) ----

fn golden_saves() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/saves");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(".save.ron")).collect();
    v.sort();
    v
}

#[test]
fn a_format_1_save_loads_as_on_to_philadelphia_and_replays_as_before() {
    use otp::rules::cite::RuleSetId;
    use otp::rules::engine::{SaveHeader};
    use otp::rules::registry;
    use otp::rules::otp::engine::Save;
    let saves = golden_saves();
    assert!(!saves.is_empty());
    for path in saves {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.display().to_string();
        assert!(!text.lines().any(|l| l.starts_with("    format:") || l.starts_with("    rules:")), "{file}: the golden saves are format 1");
        assert_eq!(SaveHeader::read(&text, &file), Ok(SaveHeader { format: 1, rules: RuleSetId::Otp }));
        let save = Save::parse(&text, &file).unwrap();
        assert_eq!((save.format, save.rules), (1, RuleSetId::Otp));
        let game = registry::load_save(&text, &file).unwrap();
        assert_eq!(game.rules(), RuleSetId::Otp);
        assert_eq!(game.action_count(), save.actions.len(), "{file}: every action replayed");
        // Saved again, it is format 2 and replays to the same game.
        let again = game.save_text();
        assert!(again.starts_with("(\n    format: 2,\n    rules: Otp,\n"), "{}", &again[..60]);
        assert_eq!(registry::load_save(&again, "again").unwrap().snapshot(), game.snapshot(), "{file}");
    }
}

#[test]
fn a_format_2_save_round_trips() {
    use otp::rules::cite::RuleSetId;
    use otp::rules::registry;
    use otp::rules::otp::engine::Save;
    let mut game = registry::open(RuleSetId::Otp, scenario::load(&fixture("good/small.ron")).unwrap(), 5).unwrap();
    for _ in 0..3 {
        game.apply(otp::rules::action::Action::Next).unwrap();
    }
    let text = game.save_text();
    let save = Save::parse(&text, "game.ron").unwrap();
    assert_eq!((save.format, save.rules, save.seed, save.actions.len()), (2, RuleSetId::Otp, 5, 3));
    assert_eq!(save.to_ron(), text, "read and written again, byte for byte");
    let loaded = registry::load_save(&text, "game.ron").unwrap();
    assert_eq!((loaded.snapshot(), loaded.reports()), (game.snapshot(), game.reports()));
}

#[test]
fn a_save_of_a_newer_format_or_an_unknown_rule_set_is_refused_at_its_line() {
    use otp::rules::registry;
    let game = registry::open(otp::rules::cite::RuleSetId::Otp, scenario::load(&fixture("good/small.ron")).unwrap(), 5).unwrap();
    let text = game.save_text();
    let newer = text.replacen("format: 2,", "format: 3,", 1);
    let unknown = text.replacen("rules: Otp,", "rules: Chess,", 1);
    let zero = text.replacen("format: 2,", "format: 0,", 1);
    for (what, bad, want) in [
        ("zero", &zero, "game.ron:2:5: save format 0 is not one this otp reads (1 to 2): no otp writes it"),
        ("newer", &newer, "game.ron:2:5: save format 3 is not one this otp reads (1 to 2): a newer otp wrote it"),
    ] {
        assert_eq!(registry::load_save(bad, "game.ron").err().as_deref(), Some(want), "{what}");
        assert_eq!(registry::save_scenario(bad, "game.ron").err().as_deref(), Some(want), "{what}");
        assert_eq!(otp::rules::otp::engine::Save::parse(bad, "game.ron").err().as_deref(), Some(want), "{what}: OTP's own reader says the same");
        assert_eq!(registry::replay(bad, "game.ron", false, None).err().as_deref(), Some(want), "{what}");
    }
    // A rule set no otp knows: located at its line; the command line says it too, and exits 1.
    let err = registry::load_save(&unknown, "game.ron").err().unwrap_or_default();
    assert!(err.starts_with("game.ron:3:") && err.contains("Chess"), "{err}");
    let dir = TempDir::new("unknown-rules-save");
    let path = dir.0.join("game.ron");
    std::fs::write(&path, &unknown).unwrap();
    let run = otp(&["replay".as_ref(), path.as_os_str()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).starts_with(&format!("{}:3:", path.display())), "{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn rules_on_the_command_line_name_a_rule_set_or_say_why_not() {
    use otp::rules::cite::RuleSetId;
    use otp::rules::registry::parse_rules;
    assert_eq!(parse_rules("otp"), Ok(RuleSetId::Otp));
    assert_eq!(parse_rules("OTP"), Ok(RuleSetId::Otp));
    assert_eq!(parse_rules("chess"), Err("--rules chess: no such rule set; the rule sets are otp, revolution, acw-orders, acw-quick, purky, tiny".to_string()));
    assert_eq!(parse_rules("purky"), Ok(RuleSetId::Purky));
    assert_eq!(parse_rules("acw-orders"), Ok(RuleSetId::AcwOrders));
    assert_eq!(parse_rules("revolution"), Ok(RuleSetId::Revolution));
    assert_eq!(parse_rules("acw-quick"), Ok(RuleSetId::AcwQuick));
    for r in RuleSetId::ALL {
        let built = otp::rules::cite::PLAYABLE.contains(&r);
        assert_eq!(parse_rules(r.key()).is_ok(), built, "{r:?}");
    }
    assert_eq!(parse_rules("tiny"), Ok(RuleSetId::Tiny));
    // An AWI scenario read under another AWI rule set: it reads it through the default mapping.
    let src = std::fs::read_to_string(fixture("good/small.ron")).unwrap();
    assert_eq!(scenario::parse_under(&src, "small.ron", Some(RuleSetId::Purky)).map(|s| s.rules).ok(), Some(RuleSetId::Purky));
    let otp_file = scenario::parse_under(&src.replacen("name: \"Small action\",", "name: \"Small action\", rules: Otp,", 1), "small.ron", None).unwrap();
    assert_eq!(otp_file.rules, RuleSetId::Otp);
    // The binary: an unknown id exits 1 with the message, before anything is read.
    let run = otp(&["simulate".as_ref(), fixture("good/small.ron").as_os_str(), "--rules".as_ref(), "chess".as_ref()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).starts_with("--rules chess: no such rule set"));
    let run = otp(&["simulate".as_ref(), fixture("good/small.ron").as_os_str(), "--turns".as_ref(), "1".as_ref(), "--rules".as_ref(), "otp".as_ref()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn every_command_is_answered_through_the_engine_by_the_rule_set_chosen() {
    use otp::rules::cite::RuleSetId;
    use otp::rules::engine::{PreviewCommand};
    use otp::rules::registry;
    let s = scenario::default_scenario();
    // OTP through the dispatch prints what OTP's own command prints (tests/golden pins those).
    let fire = PreviewCommand::Fire { ball: true };
    assert_eq!(registry::preview_command(RuleSetId::Otp, fire, &s, "Royal Artillery", "Delaware Light Infantry", false), otp::rules::otp::cli::fire_command(&s, "Royal Artillery", "Delaware Light Infantry", false, true));
    // Units the scenario lacks: refused by the rule set chosen, never a preview.
    let refused = registry::preview_command(RuleSetId::AcwOrders, PreviewCommand::Melee { special: false }, &s, "a", "b", true);
    assert!(!refused.success, "{refused:?}");
    // Purky's rules answer through the engine's own check (PK1: no charge at the initiative step).
    let purky = registry::preview_command(RuleSetId::Purky, PreviewCommand::Melee { special: false }, &s, "a", "b", true);
    assert!(!purky.success && purky.stdout.contains("\"refused\""), "{purky:?}");
    // simulate: the engine's automatic player, the same game as OTP's bot.
    let generic = otp::rules::registry::simulate(RuleSetId::Otp, &s, 2, Some(1), None).unwrap();
    assert_eq!(generic, otp::rules::otp::bot::simulate(&s, 2, Some(1), None));
    assert_eq!(generic.refusals, 0);
    // Another rule set's balance table, through its own automatic players.
    let acw = scenario::load(&fixture("good/acw_orders_small.ron")).unwrap();
    let (table, refusals) = registry::balance_table(RuleSetId::AcwOrders, &acw, 1, 2, Some(1), |_| {}).unwrap();
    assert!(table.contains("under ACW orders rules (2 automatic games") && refusals == 0, "{table}");
    // replay: a save replays under the rule set it names, and no other.
    let mut game = registry::open(RuleSetId::Otp, s.clone(), 9).unwrap();
    game.apply(otp::rules::action::Action::Next).unwrap();
    let text = game.save_text();
    let replayed = registry::replay(&text, "g.ron", false, Some(RuleSetId::Otp)).unwrap();
    assert!(replayed.text.starts_with(&format!("{} (seed 9): 1 actions\n", s.name)), "{}", replayed.text);
    let wrong = registry::replay(&text, "g.ron", false, Some(RuleSetId::Purky)).unwrap_err();
    assert_eq!(wrong, "g.ron:3:5: this game was played under Otp (On to Philadelphia), not Purky: a save replays under the rule set it names");
}

#[test]
fn the_digest_names_a_nation_or_a_rule_set_written_after_the_game() {
    use otp::rules::cite::RuleSetId;
    use otp::rules::otp::engine::save::ScenarioDigest;
    use otp::scenario::model::Nation;
    let s = scenario::load(&fixture("good/small.ron")).unwrap();
    let before = ScenarioDigest::of(&s);
    assert!(!before.parts.keys().any(|k| k.contains("nation") || k == "rules"), "parts of the new fields only when written: {:?}", before.parts.keys());
    let mut edited = s.clone();
    edited.sides[1].nation = Some(Nation::Continental);
    edited.rules = RuleSetId::Purky;
    assert_eq!(before.changes(&edited), vec!["rules added".to_string(), "side \"Rebels\" nation added".to_string()]);
}

// Issue 14: a second rule set plays through the same commands: simulate, replay and the
// previews reach the tiny test rules by the interface alone (TINY 1, TINY 4).
#[test]
fn the_tiny_rules_play_through_the_same_commands() {
    use otp::rules::action::Action;
    use otp::rules::cite::RuleSetId;
    use otp::rules::engine::{PreviewCommand};
    use otp::rules::registry;
    let s = scenario::load(&fixture("good/tiny.ron")).unwrap();
    assert_eq!(s.rules, RuleSetId::Tiny);
    let outcome = otp::rules::registry::simulate(RuleSetId::Tiny, &s, 4, None, None).unwrap();
    assert_eq!(outcome.refusals, 0, "the engine never refuses its own automatic player");
    assert_eq!(outcome.turns_played, s.turn_limit.unwrap(), "TINY 1: the game runs to the turn limit");
    // TINY 1: the side that lost fewer figures wins; equal losses are a draw.
    let lost: Vec<u32> = outcome.sides.iter().map(|x| x.figures_lost).collect();
    let expected = if lost[0] == lost[1] { None } else if lost[0] < lost[1] { Some(0) } else { Some(1) };
    assert_eq!(outcome.winner, expected, "{lost:?}");
    // A tiny save replays under its own rule set, and names it.
    let mut game = registry::open(RuleSetId::Tiny, s.clone(), 4).unwrap();
    let mut bot = game.automatic();
    for _ in 0..12 {
        let Some(a) = bot.next_action(game.as_ref()) else { break };
        game.apply(a).unwrap();
    }
    let text = game.save_text();
    assert!(text.contains("rules: Tiny"), "{text}");
    let replayed = registry::replay(&text, "t.ron", false, None).unwrap();
    assert!(replayed.text.contains("(TINY "), "reports cite the tiny rules: {}", replayed.text);
    assert_eq!(registry::load_save(&text, "t.ron").unwrap().snapshot(), game.snapshot());
    // The previews: the interface's refusal with its rule, or its odds.
    let far = registry::preview_command(RuleSetId::Tiny, PreviewCommand::Fire { ball: false }, &s, "Blue Foot", "Red Foot", false);
    assert!(!far.success && far.stdout.starts_with("refused (TINY 4)"), "{far:?}");
    let mut near = s.clone();
    let red = near.sides[1].brigades[0].units.iter_mut().find(|u| u.name == "Red Foot").unwrap();
    let blue_at = s.sides[0].brigades[0].units.iter().find(|u| u.name == "Blue Foot").unwrap().at;
    red.at = [blue_at[0], blue_at[1] + 8.0];
    let odds = registry::preview_command(RuleSetId::Tiny, PreviewCommand::Fire { ball: false }, &near, "Blue Foot", "Red Foot", false);
    assert!(odds.success && odds.stdout.contains("50.00%"), "TINY 4: a hit on 4+ of a D6: {odds:?}");
    assert!(game.apply(Action::Answer { prompt: 99, option: 0 }).is_err());
}

// Issue 14: the window draws what the engine interface gives it: no file under `src/ui`, and
// nothing in `main.rs`, names a rule set's module (a rule set's own corner would be
// `src/ui/rulesets/<set>/`, and none is needed today).
#[test]
fn the_window_and_the_command_line_name_no_rule_set() {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                if !p.ends_with("rulesets") {
                    files(&p, out);
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = vec![root.join("main.rs")];
    files(&root.join("ui"), &mut all);
    assert!(all.len() > 20, "the window's files are found: {}", all.len());
    let sets = ["rules::otp", "rules::tiny", "rules::revolution", "rules::purky", "rules::acw"];
    let named: Vec<String> = all
        .iter()
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            sets.iter().filter(|s| text.contains(*s)).map(|s| format!("{} names {s}", p.display())).collect::<Vec<_>>()
        })
        .collect();
    assert!(named.is_empty(), "{named:#?}");
}
