//! Golden files (issue #14, "Pin OTP first"): what `otp simulate --log`, `otp replay`, `otp fire`
//! and `otp melee` print today, pinned byte for byte in `tests/golden/`, so that moving the OTP
//! engine behind another interface can be shown to change nothing. Each test calls the same
//! library functions `src/main.rs` calls and compares with the stored file, reporting the first
//! differing line. `OTP_BLESS=1` rewrites the expected files instead; the saves themselves are
//! made by the ignored `generate_saves` (see tests/golden/README.md).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bevy::math::Vec2;
use otp::rules::otp::bot::{self, Bot};
use otp::rules::otp::charts::{Ammo, Charts};
use otp::rules::otp::cli::{self, Printed};
use otp::rules::otp::engine::save::Save;
use otp::rules::otp::engine::{Action, ChargeOptions, Game, Phase, Reaction, Removal, Report};
use otp::scenario::Scenario;
use otp::table::movement::MoveStep;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden(rel: &str) -> PathBuf {
    root().join("tests/golden").join(rel)
}

fn blessing() -> bool {
    std::env::var("OTP_BLESS").is_ok_and(|v| v == "1")
}

fn scenario(name: &str) -> Scenario {
    otp::scenario::load(&root().join(format!("scenarios/{name}.ron"))).unwrap_or_else(|e| panic!("{e}"))
}

/// The first line where `got` differs from `expected`, readably (long lines, such as a log's
/// JSON, cut to the neighbourhood of the first differing character); `None` when equal.
fn first_difference(expected: &str, got: &str) -> Option<String> {
    if expected == got {
        return None;
    }
    let (e, g): (Vec<&str>, Vec<&str>) = (expected.split_inclusive('\n').collect(), got.split_inclusive('\n').collect());
    let n = e.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(e.len().min(g.len()));
    let (el, gl) = (e.get(n).copied(), g.get(n).copied());
    let column = match (el, gl) {
        (Some(a), Some(b)) => a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count(),
        _ => 0,
    };
    let show = |l: Option<&str>| match l {
        None => "<end of output>".to_string(),
        Some(l) if l.chars().count() <= 160 => format!("{l:?}"),
        Some(l) => {
            let from = column.saturating_sub(60);
            let part: String = l.chars().skip(from).take(120).collect();
            format!("{}{part:?}…", if from > 0 { "…" } else { "" })
        }
    };
    Some(format!(
        "line {}, column {}:\n  expected {}\n  got      {}\n  ({} lines expected, {} got)",
        n + 1,
        column + 1,
        show(el),
        show(gl),
        e.len(),
        g.len()
    ))
}

/// Compare `got` with the golden file `rel` (or write it, blessing); a failure's message.
fn check(rel: &str, got: &str) -> Option<String> {
    let path = golden(rel);
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return None;
    }
    match std::fs::read_to_string(&path) {
        Err(e) => Some(format!("tests/golden/{rel}: {e} (OTP_BLESS=1 writes it)")),
        Ok(expected) => first_difference(&expected, got).map(|d| format!("tests/golden/{rel} differs at {d}")),
    }
}

/// Panic with every failure, or pass.
fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} golden file(s) differ from today's output (OTP_BLESS=1 rewrites them if the change is meant):\n\n{}", failures.len(), failures.join("\n\n"));
}

// ---- otp simulate ----

/// Every shipped scenario, turns played (fewer than the limits, to keep the files modest).
const SIMULATED: &[(&str, u32)] = &[("teaching", 4), ("cowpens", 4), ("brandywine", 2), ("camden", 2), ("germantown", 2), ("guilford", 2), ("monmouth", 2), ("princeton", 2)];
const SEEDS: [u64; 3] = [1, 2, 3];

// `otp simulate SCENARIO --seed N --turns T --log FILE`: the JSON-lines log and the summary line
// on stdout, for three seeds of every shipped scenario; the bot is never refused (exit 0).
#[test]
fn simulate_logs() {
    let mut failures = Vec::new();
    for &(name, turns) in SIMULATED {
        let s = scenario(name);
        for seed in SEEDS {
            let mut log = Vec::new();
            let o = bot::simulate(&s, seed, Some(turns), Some(&mut log));
            assert_eq!((o.refusals, &o.log_error), (0, &None), "{name} seed {seed}: the CLI would exit non-zero");
            let stem = format!("simulate/{name}-seed{seed}-turns{turns}");
            failures.extend(check(&format!("{stem}.jsonl"), &String::from_utf8(log).unwrap()));
            failures.extend(check(&format!("{stem}.txt"), &format!("{}\n", o.line())));
        }
    }
    report(failures);
}

/// Whole games (issue #20, pinned before the automatic player and `simulate` were made faster):
/// Cowpens seeds 1–8 (the `game` bench's seeds) and the teaching battle seeds 1–3, each to its
/// turn limit. A whole Cowpens log is about 0.3 MB, so each game is pinned by its summary line,
/// its log's length and its FNV-1a 64 hash (any changed byte changes the hash; the four-turn
/// logs above show where). The balance table of the same eight Cowpens games is pinned too.
const WHOLE_GAMES: &[(&str, std::ops::RangeInclusive<u64>)] = &[("cowpens", 1..=8), ("teaching", 1..=3)];

// `otp simulate SCENARIO --seed N --log FILE` to the end, and `otp simulate scenarios/cowpens.ron
// --seed 1 --games 8 --balance`.
#[test]
fn simulate_whole_games() {
    use std::hash::Hasher;
    let mut pinned = String::new();
    for (name, seeds) in WHOLE_GAMES {
        let s = scenario(name);
        for seed in seeds.clone() {
            let mut log = Vec::new();
            let o = bot::simulate(&s, seed, None, Some(&mut log));
            assert_eq!((o.refusals, &o.log_error), (0, &None), "{name} seed {seed}: the CLI would exit non-zero");
            let mut h = fnv::FnvHasher::default();
            h.write(&log);
            pinned += &format!("{name}: {}\n  log: {} lines, {} bytes, fnv1a64 {:016x}\n", o.line(), o.actions, log.len(), h.finish());
        }
    }
    let mut failures: Vec<String> = check("simulate/whole-games.txt", &pinned).into_iter().collect();
    let cowpens = scenario("cowpens");
    let (table, refusals) = otp::rules::registry::balance_table(cowpens.rules, &cowpens, 1, 8, None, |_| {}).unwrap();
    assert_eq!(refusals, 0);
    failures.extend(check("simulate/cowpens-balance-seed1-games8.md", &table));
    report(failures);
}

// ---- otp replay ----

fn saves() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(golden("saves")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(".save.ron")).collect();
    v.sort();
    v
}

// `otp replay SAVE`: the reports of every golden save, replayed (no scenario edited, no warning).
#[test]
fn replays() {
    let saves = saves();
    assert!(saves.len() >= 8, "the golden saves are missing: {saves:?}");
    let mut failures = Vec::new();
    for path in saves {
        let r = otp::rules::registry::replay_file(&path, false, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.changed.is_empty(), "{}: {:?}", path.display(), r.changed);
        let name = path.file_name().unwrap().to_string_lossy().replace(".save.ron", ".txt");
        failures.extend(check(&format!("saves/{name}"), &r.text));
    }
    report(failures);
}

/// The kinds of action a golden save must cover: every `Action` variant, every way to remove
/// a marker, fire with and without named ammunition, and each charge option. The match has no
/// wildcard, so a new variant does not compile until it is given a name here.
fn kinds(a: &Action) -> Vec<&'static str> {
    match a {
        Action::StartGame => vec!["StartGame"],
        Action::DrawChit => vec!["DrawChit"],
        Action::RemoveMarker { how: Removal::Roll, .. } => vec!["RemoveMarker", "RemoveMarker/Roll"],
        Action::RemoveMarker { how: Removal::Pass { .. }, .. } => vec!["RemoveMarker", "RemoveMarker/Pass"],
        Action::RemoveMarker { how: Removal::RerollWithPass { .. }, .. } => vec!["RemoveMarker", "RemoveMarker/RerollWithPass"],
        Action::Move { .. } => vec!["Move"],
        Action::ChangeFormation { .. } => vec!["ChangeFormation"],
        Action::Fire { ammo: None, .. } => vec!["Fire", "Fire/default ammo"],
        Action::Fire { ammo: Some(_), .. } => vec!["Fire", "Fire/ammo"],
        Action::Charge { .. } => vec!["Charge"],
        Action::EndActivation => vec!["EndActivation"],
        Action::AttemptRebuild { .. } => vec!["AttemptRebuild"],
        Action::EndTurn => vec!["EndTurn"],
        Action::SpecialMove { .. } => vec!["SpecialMove"],
        Action::Detach { .. } => vec!["Detach"],
        Action::Attach { .. } => vec!["Attach"],
        Action::MoveCommander { .. } => vec!["MoveCommander"],
        Action::JoinUnit { .. } => vec!["JoinUnit"],
        Action::DeployInto { .. } => vec!["DeployInto"],
        Action::Reman { .. } => vec!["Reman"],
        Action::ChargeWith { options, .. } => {
            let mut v = vec!["ChargeWith"];
            if options.special {
                v.push("ChargeWith/special");
            }
            if options.reaction == Reaction::Withdraw {
                v.push("ChargeWith/withdraw");
            }
            if !options.countercharge {
                v.push("ChargeWith/no countercharge");
            }
            v
        }
    }
}

const ALL_KINDS: &[&str] = &[
    "StartGame",
    "DrawChit",
    "RemoveMarker",
    "RemoveMarker/Roll",
    "RemoveMarker/Pass",
    "RemoveMarker/RerollWithPass",
    "Move",
    "ChangeFormation",
    "Fire",
    "Fire/default ammo",
    "Fire/ammo",
    "Charge",
    "EndActivation",
    "AttemptRebuild",
    "EndTurn",
    "SpecialMove",
    "Detach",
    "Attach",
    "MoveCommander",
    "JoinUnit",
    "DeployInto",
    "Reman",
    "ChargeWith",
    "ChargeWith/special",
    "ChargeWith/withdraw",
    "ChargeWith/no countercharge",
];

/// The kinds of action in a save file.
fn kinds_in(path: &Path) -> BTreeSet<&'static str> {
    let (save, _) = Save::read(path).unwrap_or_else(|e| panic!("{e}"));
    save.actions.iter().flat_map(kinds).collect()
}

// The golden saves between them hold every kind of action, so no replay path goes unpinned.
#[test]
fn saves_cover_every_action_kind() {
    let covered: BTreeSet<&str> = saves().iter().flat_map(|p| kinds_in(p)).collect();
    let missing: Vec<&&str> = ALL_KINDS.iter().filter(|k| !covered.contains(**k)).collect();
    assert!(missing.is_empty(), "no golden save has {missing:?}");
    // Every kind `kinds` can name is in ALL_KINDS (a new name is required too).
    let unknown: Vec<&&str> = covered.iter().filter(|k| !ALL_KINDS.contains(k)).collect();
    assert!(unknown.is_empty(), "{unknown:?}");
}

// ---- otp fire, otp melee ----

/// (command, scenario, unit, target, --ball or --special).
const PREVIEWS: &[(&str, &str, &str, &str, bool)] = &[
    // Artillery in range, with ball and (refused at medium range, 8.4) canister.
    ("fire", "teaching", "Continental Artillery", "23rd Foot", true),
    ("fire", "teaching", "Continental Artillery", "23rd Foot", false),
    ("fire", "teaching", "Royal Artillery", "Delaware Light Infantry", true),
    // Refused: a nearer target (8.1), blocked sight (8.8), outside the arc (8.1), out of range
    // (8.3), cavalry in line may not fire (3.2).
    ("fire", "teaching", "Royal Artillery", "1st Maryland", true),
    ("fire", "teaching", "Continental Artillery", "Loyalist Militia", true),
    ("fire", "teaching", "Continental Artillery", "British Legion Dragoons", true),
    ("fire", "teaching", "23rd Foot", "1st Maryland", false),
    ("fire", "teaching", "British Legion Dragoons", "1st Maryland", false),
    // A friend and an unknown name: errors.
    ("fire", "teaching", "23rd Foot", "33rd Foot", false),
    ("fire", "teaching", "Nobody", "23rd Foot", false),
    ("fire", "cowpens", "Grasshopper (7th)", "McDowell's North Carolina Riflemen", true),
    ("fire", "cowpens", "Grasshopper (7th)", "McDowell's North Carolina Riflemen", false),
    ("fire", "cowpens", "7th Foot (Royal Fusiliers)", "Maryland Continentals", false),
    // Small arms in range at set-up.
    ("fire", "brandywine", "2nd Grenadier Battalion", "3rd Virginia (Marshall)", false),
    ("fire", "princeton", "17th Foot", "Mercer's Riflemen", false),
    // Guns against guns, guns at a building, heavy guns.
    ("fire", "guilford", "Singleton's Guns", "Royal Artillery 6-pounder", true),
    ("fire", "camden", "Left Guns", "33rd Foot", true),
    ("fire", "germantown", "Knox's Artillery", "40th Foot in Cliveden", true),
    ("fire", "monmouth", "Royal Artillery 12-pounders", "Stewart's 13th Pennsylvania", true),
    // Charges: cavalry, with and without a special move; light infantry only by special move.
    ("melee", "teaching", "Continental Light Dragoons", "British Legion Infantry", false),
    ("melee", "teaching", "Continental Light Dragoons", "British Legion Infantry", true),
    ("melee", "teaching", "71st Light Company", "Delaware Light Infantry", true),
    ("melee", "teaching", "71st Light Company", "Delaware Light Infantry", false),
    // Refused: out of reach, artillery; an unknown name.
    ("melee", "teaching", "23rd Foot", "1st Maryland", false),
    ("melee", "teaching", "Royal Artillery", "Delaware Light Infantry", false),
    ("melee", "teaching", "23rd Foot", "Nobody", false),
    ("melee", "cowpens", "17th Light Dragoons", "Cunningham's Georgia Riflemen", false),
    ("melee", "cowpens", "Ogilvie's Legion Dragoons", "McDowell's North Carolina Riflemen", true),
    ("melee", "brandywine", "2nd Grenadier Battalion", "3rd Virginia (Marshall)", false),
    ("melee", "princeton", "Dragoons on foot and drafts", "Neil's New Jersey Artillery", false),
    ("melee", "princeton", "16th Light Dragoons (mounted)", "Mercer's Riflemen", true),
    ("melee", "germantown", "40th Foot in Cliveden", "Maxwell's New Jerseymen", true),
];

/// A file name from a case: lower case, words joined by '-'.
fn slug(s: &str) -> String {
    let words: Vec<String> = s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.join("-")
}

// `otp fire` and `otp melee`, text and `--json`, for a spread of pairs: stdout in one file each,
// and every case's exit status and stderr in previews/status.txt.
#[test]
fn previews() {
    let mut failures = Vec::new();
    let mut status = String::new();
    for (i, &(command, name, unit, target, flag)) in PREVIEWS.iter().enumerate() {
        let s = scenario(name);
        let opt = match (command, flag) {
            ("fire", true) => " --ball",
            ("melee", true) => " --special",
            _ => "",
        };
        let stem = format!("previews/{:02}-{command}-{name}-{}-{}{}", i + 1, slug(unit), slug(target), opt.replace(" --", "-"));
        for json in [false, true] {
            let p: Printed = if command == "fire" { cli::fire_command(&s, unit, target, json, flag) } else { cli::melee_command(&s, unit, target, json, flag) };
            let file = format!("{stem}.{}", if json { "json" } else { "txt" });
            failures.extend(check(&file, &p.stdout));
            let args = format!("otp {command} scenarios/{name}.ron {unit:?} {target:?}{opt}{}", if json { " --json" } else { "" });
            status.push_str(&format!("{args}\n  exit {}, stdout {}\n", if p.success { 0 } else { 1 }, file.trim_start_matches("previews/")));
            for line in p.stderr.lines() {
                status.push_str(&format!("  stderr: {line}\n"));
            }
        }
    }
    failures.extend(check("previews/status.txt", &status));
    report(failures);
}

// ---- making the saves ----

fn ok(g: &mut Game, a: Action) -> Report {
    common::ok(g, a)
}

/// Draw and end every remaining activation: the rebuild step (4.4).
fn to_rebuilds(g: &mut Game) {
    while g.phase() != Phase::Rebuild {
        ok(g, if g.phasing_brigade().is_some() { Action::EndActivation } else { Action::DrawChit });
    }
}

/// Draw chits (ending the other activations, and the turn if the cup is empty) until
/// `brigade` is phasing.
fn activate(g: &mut Game, brigade: &str) {
    while g.phasing_brigade().as_deref() != Some(brigade) {
        if g.phasing_brigade().is_some() {
            ok(g, Action::EndActivation);
        } else if g.phase() == Phase::Rebuild {
            ok(g, Action::EndTurn);
        } else {
            ok(g, Action::DrawChit);
        }
    }
}

/// A game of `s` with `seed`, started, with `brigade` phasing.
fn ready(s: &Scenario, seed: u64, brigade: &str) -> Game {
    let mut g = Game::new(s.clone(), seed, Charts::embedded().clone());
    ok(&mut g, Action::StartGame);
    activate(&mut g, brigade);
    g
}

/// The first of `seeds` for which `play` succeeds (returns the game), or a panic naming `what`.
fn first_seed(what: &str, mut play: impl FnMut(u64) -> Option<Game>) -> Game {
    (0..400).find_map(&mut play).unwrap_or_else(|| panic!("no seed made {what}"))
}

fn write_save(name: &str, g: &Game) {
    let path = golden(&format!("saves/{name}.save.ron"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    g.save(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("{}: {} actions, {:?}", path.display(), g.actions().len(), kinds_in(&path));
}

/// The bot over seeds of every shipped scenario: for each kind of action it makes, the first
/// game with it, cut just after it (a prefix of legal actions replays). Games cut at several
/// kinds keep the longest cut.
fn bot_saves() {
    let mut wanted: BTreeSet<&str> = ALL_KINDS.iter().copied().collect();
    // (scenario, seed) -> actions to keep
    let mut cuts: Vec<(String, u64, usize)> = Vec::new();
    for (name, _) in SIMULATED {
        let s = bot::with_turns(&scenario(name), Some(3));
        for seed in 0..6 {
            let mut g = Game::new(s.clone(), seed, Charts::embedded().clone());
            let mut n = 0;
            let mut cut = 0;
            Bot::new().play(&mut g, |_, r| {
                n += 1;
                for k in r.action.as_otp().map(kinds).unwrap_or_default() {
                    if wanted.remove(k) {
                        cut = n;
                    }
                }
            });
            if cut > 0 {
                cuts.push((name.to_string(), seed, cut));
            }
        }
    }
    for (name, seed, cut) in cuts {
        let full = Game::new(bot::with_turns(&scenario(&name), Some(3)), seed, Charts::embedded().clone());
        let mut g = Game::new(full.scenario().clone(), seed, Charts::embedded().clone());
        let mut b = Bot::new();
        for _ in 0..cut {
            b.step(&mut g);
        }
        assert_eq!(b.refusals, 0);
        write_save(&format!("bot-{name}-seed{seed}"), &g);
    }
    // And one whole game, for the long replay.
    let mut g = Game::new(bot::with_turns(&scenario("cowpens"), Some(3)), 1, Charts::embedded().clone());
    assert_eq!(Bot::new().play(&mut g, |_, _| {}), g.actions().len());
    write_save("bot-cowpens-seed1-3-turns", &g);
}

/// Hand-played saves for what the bot never does.
fn hand_saves() {
    let teaching = scenario("teaching");

    // 10.2, 10.4: the Loyalist Militia start with a marker: a roll, then Cornwallis's pass for a
    // re-roll; then Pickens's pass... (any pass the rules allow later is the bot's).
    let g = first_seed("a re-roll", |seed| {
        let mut g = ready(&teaching, seed, "Tarleton's Brigade");
        ok(&mut g, Action::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::Roll });
        g.apply(Action::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::RerollWithPass { commander: "Earl Cornwallis".into() } }).ok()?;
        Some(g)
    });
    write_save("hand-reroll-with-pass", &g);

    // 7.5, 6.12: guns detach and attach; a brigade commander moves, the overall commander joins
    // a unit; a special move (6.8).
    let mut g = ready(&teaching, 7, "Webster's Brigade");
    ok(&mut g, Action::Detach { gun: "Royal Artillery".into() });
    ok(&mut g, Action::Attach { gun: "Royal Artillery".into(), unit: "23rd Foot".into() });
    ok(&mut g, Action::Detach { gun: "Royal Artillery".into() });
    let webster = g.commander_entity("Lt. Col. Webster").unwrap();
    let at = g.commander(webster).at;
    ok(&mut g, Action::MoveCommander { commander: "Lt. Col. Webster".into(), to: at + Vec2::new(10.0, 0.0) });
    ok(&mut g, Action::JoinUnit { commander: "Earl Cornwallis".into(), unit: "23rd Foot".into() });
    activate(&mut g, "Tarleton's Brigade");
    let special = (2..12).rev().map(|d| Action::SpecialMove { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Forward(d as f32)] }).find(|a| g.apply(a.clone()).is_ok());
    assert!(special.is_some(), "no special move for the dragoons");
    write_save("hand-guns-commanders-special-move", &g);

    // 8.4: artillery firing named ammunition (ball at medium range).
    let mut g = ready(&teaching, 5, "Howard's Continentals");
    ok(&mut g, Action::Fire { unit: "Continental Artillery".into(), target: "23rd Foot".into(), ammo: Some(Ammo::Ball) });
    write_save("hand-fire-ball", &g);

    // 6.13: the British Legion Infantry set at the edge of Hannah's Crossroads deploy into it.
    let deploy = Action::DeployInto { unit: "British Legion Infantry".into(), place: "Hannah's Crossroads".into() };
    let g = (0..40)
        .flat_map(|i| [0.0f32, 180.0].map(|f| (i, f)))
        .find_map(|(i, facing)| {
            let mut s = teaching.clone();
            let u = s.sides.iter_mut().flat_map(|x| &mut x.brigades).flat_map(|b| &mut b.units).find(|u| u.name == "British Legion Infantry").unwrap();
            u.at = [36.0, 24.0 + 0.25 * i as f32];
            u.facing = facing;
            if !otp::scenario::validate::validate(&s).is_empty() {
                return None;
            }
            let mut g = ready(&s, 4, "Tarleton's Brigade");
            g.apply(deploy.clone()).ok()?;
            Some(g)
        })
        .expect("a place to deploy from");
    write_save("hand-deploy-into-town", &g);

    // 7.4: unlimbered guns with a marker roll it off; a retreat leaves the gun and sends the
    // crew away; the crew walks back and remans (this turn or the next).
    let s = common::two_brigades(
        r#"(name: "Guns", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: (36.0, 20.0), facing: 0.0, morale_marker: true),"#,
        r#"(name: "Patriot Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (36.0, 44.0), facing: 180.0),"#,
        "",
        "golden-reman.ron",
    );
    let g = first_seed("a crew to reman", |seed| {
        let mut g = ready(&s, seed, "Redcoats");
        ok(&mut g, Action::RemoveMarker { unit: "Guns".into(), how: Removal::Roll });
        let guns = g.unit_entity("Guns")?;
        g.detached_crew(guns)?;
        for turn in 0..2 {
            if turn == 1 {
                to_rebuilds(&mut g);
                ok(&mut g, Action::EndTurn);
                activate(&mut g, "Redcoats");
                if g.has_marker(guns) {
                    g.apply(Action::RemoveMarker { unit: "Guns".into(), how: Removal::Roll }).ok()?;
                }
            }
            let crew = g.detached_crew(guns)?;
            let gun = *g.world().get::<otp::table::footprint::Footprint>(g.unit(guns).stands[0]).unwrap();
            let away = gun.distance(&crew);
            for steps in [vec![MoveStep::AboutFace, MoveStep::Forward(away - 0.1)], vec![MoveStep::Forward(away - 0.1)]] {
                if g.check_move("Guns", &steps).is_ok() {
                    ok(&mut g, Action::Move { unit: "Guns".into(), steps });
                    break;
                }
            }
            if g.apply(Action::Reman { unit: "Guns".into() }).is_ok() {
                return Some(g);
            }
        }
        None
    });
    write_save("hand-reman", &g);

    // 9.4, 9.5, 6.8: charges with the players' choices, on open tables (as tests/charge.rs).
    let foot = |name: &str, kind: &str, formation: &str, at: (f32, f32), facing: f32| {
        format!(r#"(name: "{name}", type: {kind}, arm: Infantry, weapon: Some(Musket), figures: 16, formation: {formation}, at: ({}, {}), facing: {facing}),"#, at.0, at.1)
    };
    let horse = |name: &str, at: (f32, f32), facing: f32| format!(r#"(name: "{name}", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: 8, formation: Line, at: ({}, {}), facing: {facing}),"#, at.0, at.1);
    let cases = [
        ("withdraw", foot("Grenadiers", "Line", "Line", (36.0, 22.0), 0.0), foot("Rangers", "Light", "Skirmish", (36.0, 28.0), 180.0), "Grenadiers", "Rangers", ChargeOptions { reaction: Reaction::Withdraw, ..ChargeOptions::default() }, "withdraws"),
        ("special", foot("Grenadiers", "Line", "Line", (36.0, 20.0), 0.0), foot("Continentals", "Line", "Line", (36.0, 29.5), 180.0), "Grenadiers", "Continentals", ChargeOptions { special: true, ..ChargeOptions::default() }, "MELEE COMBAT"),
        ("no-countercharge", horse("Dragoons", (36.0, 14.0), 0.0), horse("Lancers", (36.0, 28.0), 180.0), "Dragoons", "Lancers", ChargeOptions { countercharge: false, ..ChargeOptions::default() }, "does not countercharge"),
    ];
    for (label, british, americans, unit, target, options, sign) in cases {
        let s = common::two_brigades(&british, &americans, "", &format!("golden-charge-{label}.ron"));
        let g = first_seed(label, |seed| {
            let mut g = ready(&s, seed, "Redcoats");
            let r = g.apply(Action::ChargeWith { unit: unit.into(), target: target.into(), options }).ok()?;
            let text = r.to_string();
            text.contains(sign).then_some(g)
        });
        write_save(&format!("hand-charge-{label}"), &g);
    }
}

// Writes tests/golden/saves/*.save.ron (then `OTP_BLESS=1` writes their replays):
// cargo test --release --no-default-features --test golden -- --ignored generate_saves
#[test]
#[ignore = "writes the golden saves; run by hand (tests/golden/README.md)"]
fn generate_saves() {
    bot_saves();
    hand_saves();
}
