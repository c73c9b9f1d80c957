//! Fuzzing files and saves as a careless or hostile user gives them: mutated bytes of scenario
//! files and of saves, and mutated actions. Every case must end (a watchdog calls a case that
//! runs past a minute a hang), never panic, and give Ok or errors that are all located
//! (`file:line:col: message`); a refused action changes nothing.
//!
//! CI runs a bounded pass (`OTP_FUZZ_CASES`, default 256 cases a target); a longer one locally:
//! `OTP_FUZZ_CASES=2000 cargo test --release --no-default-features --test fuzz`. The figures are
//! in docs/reliability.md.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use bevy::math::Vec2;
use otp::rules::otp::charts::Charts;
use otp::rules::otp::engine::{Action, ChargeOptions, Game, Removal, Save};
use otp::scenario;
use otp::table::movement::{End, MoveStep, StandMove};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("OTP_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
}

fn root(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Run `case` on its own thread: its result, or a failure if it has not ended within a minute
/// (no case needs more than a fraction of a second: more is a hang).
fn watchdog<T: Send + 'static>(what: String, case: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(case());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hang: {what}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("panic: {what}"),
    }
}

/// Bytes with a parser's sharp edges in them.
fn nasty() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..6),
        prop::sample::select(vec![
            "inf", "-inf", "NaN", "1e38", "1e39", "-0.0", "18446744073709551616", "\"", "\\", "\\u{0}", "(", ")", "[", "]", ",", ":", "//",
            "/*", "*/", "\u{feff}", "\r\n", "r#\"", "Some(", "None", "name: \"x\"", "name: \"\"", "Forward(", "Path([",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

/// Up to four edits of `base`: a slice removed and/or replaced by nasty bytes, or duplicated.
fn mutated(base: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let n = base.len();
    proptest::collection::vec((0..=n, 0usize..24, nasty(), any::<bool>()), 1..5).prop_map(move |edits| {
        let mut bytes = base.clone();
        for (at, len, junk, duplicate) in edits {
            let at = at.min(bytes.len());
            let end = (at + len).min(bytes.len());
            let insert = if duplicate { bytes[at..end].to_vec() } else { junk };
            bytes.splice(at..if duplicate { at } else { end }, insert);
        }
        bytes
    })
}

/// Numbers of `base` swapped for ones no table allows (or barely allows): the file still parses,
/// so the checks after parsing (validation, the actions' numbers, the replay) are what is fuzzed.
fn renumbered(base: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let numbers: Vec<(usize, usize)> = {
        let mut found = Vec::new();
        let mut i = 0;
        while i < base.len() {
            let starts = base[i].is_ascii_digit() && (i == 0 || !(base[i - 1].is_ascii_alphanumeric() || base[i - 1] == b'_'));
            if starts {
                let end = i + base[i..].iter().take_while(|b| b.is_ascii_digit() || **b == b'.').count();
                found.push((i, end));
                i = end;
            } else {
                i += 1;
            }
        }
        found
    };
    let value = prop::sample::select(vec!["inf", "-inf", "NaN", "1e30", "1e38", "-1e38", "0", "0.0", "-0.0", "4294967295", "999999", "480.0", "-3.5", "1000"]);
    proptest::collection::vec((any::<prop::sample::Index>(), value), 1..4).prop_map(move |swaps| {
        let mut chosen: Vec<(usize, usize, &str)> = swaps.into_iter().map(|(i, v)| { let (a, b) = numbers[i.index(numbers.len())]; (a, b, v) }).collect();
        chosen.sort_by_key(|c| std::cmp::Reverse(c.0));
        chosen.dedup_by_key(|c| c.0);
        let mut bytes = base.clone();
        for (a, b, v) in chosen {
            bytes.splice(a..b, v.bytes());
        }
        bytes
    })
}

/// Write `bytes` to a file of this case's own (the loaders' real path: size limit, UTF-8, BOM).
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("otp-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every line of an error starts `file:line:col: `.
fn all_located(errors: &str, file: &str) -> bool {
    errors.lines().all(|l| {
        let mut parts = l.strip_prefix(file).and_then(|r| r.strip_prefix(':')).unwrap_or("").splitn(3, ':');
        parts.next().is_some_and(|n| n.parse::<usize>().is_ok()) && parts.next().is_some_and(|n| n.parse::<usize>().is_ok())
    })
}

/// A saved game of the small scenario played by the automatic players for one turn.
fn base_save() -> Save {
    let mut s = scenario::load(&root("tests/fixtures/good/small.ron")).unwrap();
    s.turn_limit = Some(1);
    let mut game = Game::new(s, 5, Charts::embedded().clone());
    otp::rules::otp::bot::play_out(&mut game, None);
    let save = game.to_save();
    assert!(save.actions.iter().any(|a| matches!(a, Action::Move { .. })), "the base save has moves to mutate");
    save
}

fn number() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::sample::select(vec![f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e38, f32::MAX, f32::MIN_POSITIVE, 0.0, 720.0, 1e6]),
        -60.0f32..60.0,
    ]
}

fn point() -> impl Strategy<Value = Vec2> {
    (number(), number()).prop_map(|(x, y)| Vec2::new(x, y))
}

fn step() -> impl Strategy<Value = MoveStep> {
    let index = prop_oneof![0usize..8, Just(usize::MAX), Just(1 << 40)];
    prop_oneof![
        number().prop_map(MoveStep::Forward),
        number().prop_map(MoveStep::SideStep),
        (number(), number()).prop_map(|(angle, distance)| MoveStep::Oblique { angle, distance }),
        number().prop_map(|angle| MoveStep::Wheel { pivot: End::Left, angle }),
        Just(MoveStep::AboutFace),
        proptest::collection::vec(point(), 0..4).prop_map(MoveStep::Path),
        (index.clone(), number()).prop_map(|(stands, angle)| MoveStep::Bend { end: End::Right, stands, angle }),
        Just(MoveStep::Straighten),
        (index.clone(), 0usize..4).prop_map(|(stand, behind)| MoveStep::DoubleUp { stand, behind }),
        Just(MoveStep::Undouble),
        proptest::collection::vec((index, point(), number()), 0..3).prop_map(|v| MoveStep::Stands(v.into_iter().map(|(stand, to, facing)| StandMove { stand, to, facing }).collect())),
    ]
}

/// Any action, naming the scenario's units and commanders or nonsense.
fn action(names: Vec<String>) -> impl Strategy<Value = Action> {
    let name = prop_oneof![4 => prop::sample::select(names), 1 => "[A-Za-z ]{0,6}"];
    let steps = || proptest::collection::vec(step(), 0..4);
    prop_oneof![
        Just(Action::StartGame),
        Just(Action::DrawChit),
        Just(Action::EndActivation),
        Just(Action::EndTurn),
        (name.clone(), steps()).prop_map(|(unit, steps)| Action::Move { unit, steps }),
        (name.clone(), steps()).prop_map(|(unit, steps)| Action::SpecialMove { unit, steps }),
        (name.clone(), name.clone()).prop_map(|(u, t)| Action::fire(u, t)),
        (name.clone(), name.clone(), any::<bool>()).prop_map(|(u, t, special)| Action::charge(u, t, ChargeOptions { special, ..ChargeOptions::default() })),
        (name.clone(), point()).prop_map(|(commander, to)| Action::MoveCommander { commander, to }),
        (name.clone(), name.clone()).prop_map(|(commander, unit)| Action::JoinUnit { commander, unit }),
        (name.clone(), name.clone()).prop_map(|(unit, commander)| Action::RemoveMarker { unit, how: Removal::Pass { commander } }),
        name.clone().prop_map(|unit| Action::RemoveMarker { unit, how: Removal::Roll }),
        name.clone().prop_map(|unit| Action::AttemptRebuild { unit }),
        name.clone().prop_map(|unit| Action::Reman { unit }),
        (name.clone(), name.clone()).prop_map(|(unit, place)| Action::DeployInto { unit, place }),
        name.prop_map(|gun| Action::Detach { gun }),
    ]
}

fn names(save: &Save) -> Vec<String> {
    let mut names = Vec::new();
    for side in &save.scenario.sides {
        names.extend(side.commander.iter().map(|c| c.name.clone()));
        for b in &side.brigades {
            names.push(b.commander.name.clone());
            names.extend(b.units.iter().map(|u| u.name.clone()));
        }
    }
    names
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Scenario files: mutated bytes of the small and the teaching scenario load or give located
    /// problems only.
    #[test]
    fn mutated_scenario_files(teaching in any::<bool>(),
                              bytes in prop_oneof![mutated(std::fs::read(root("tests/fixtures/good/small.ron")).unwrap()), renumbered(std::fs::read(root("tests/fixtures/good/small.ron")).unwrap())],
                              big in prop_oneof![mutated(scenario::DEFAULT_SCENARIO.as_bytes().to_vec()), renumbered(scenario::DEFAULT_SCENARIO.as_bytes().to_vec())]) {
        let bytes = if teaching { big } else { bytes };
        let path = temp_file("scenario.ron", &bytes);
        let file = path.display().to_string();
        let result = watchdog(file.clone(), move || scenario::load(&path).map(|_| ()));
        if let Err(e) = result {
            prop_assert!(e.problems.iter().all(|p| p.position.is_some() && p.file == file), "unlocated: {e}");
        }
    }

    /// Saves: mutated bytes of a played game read, validate and replay, or give located errors.
    #[test]
    fn mutated_saves(bytes in prop_oneof![mutated(base_save().to_ron().into_bytes()), renumbered(base_save().to_ron().into_bytes())]) {
        let path = temp_file("save.ron", &bytes);
        let file = path.display().to_string();
        let result = watchdog(file.clone(), move || {
            let (save, text) = Save::read(&path)?;
            Game::from_save_text(&save, &text, &path.display().to_string(), Charts::embedded().clone()).map(|g| g.actions().len())
        });
        if let Err(e) = result {
            prop_assert!(all_located(&e, &file), "unlocated: {e}");
        }
    }

    /// Actions: a played game's actions with others slipped in anywhere. Each is applied or
    /// refused, and a refusal leaves the game exactly as it was (no die thrown, nothing recorded).
    #[test]
    fn mutated_actions(inserted in proptest::collection::vec((any::<prop::sample::Index>(), action(names(&base_save()))), 1..8)) {
        let base = base_save();
        let mut actions = base.actions.clone();
        for (at, a) in inserted {
            actions.insert(at.index(actions.len() + 1), a);
        }
        let what = format!("{actions:?}");
        let changed = watchdog(what, move || {
            let mut game = Game::new(base.scenario.clone(), base.seed, Charts::embedded().clone());
            for a in actions {
                let before = (game.snapshot(), game.dice_thrown(), game.actions().len());
                if let Err(r) = game.apply(a.clone())
                    && (game.snapshot(), game.dice_thrown(), game.actions().len()) != before
                {
                    return Some(format!("{a:?} was refused ({r}) but changed the game"));
                }
            }
            None
        });
        prop_assert!(changed.is_none(), "{}", changed.unwrap_or_default());
    }
}

#[test]
fn the_engine_refuses_absurd_numbers_from_any_caller_and_changes_nothing() {
    // Not only files: an action built in code (the window, the bot, a script) with a number no
    // table allows is refused by Game::apply itself, before anything is computed.
    let save = base_save();
    let mut game = Game::new(save.scenario.clone(), save.seed, Charts::embedded().clone());
    game.apply(Action::StartGame).unwrap();
    game.apply(Action::DrawChit).unwrap();
    let unit = save.scenario.sides[0].brigades[0].units[0].name.clone();
    let commander = save.scenario.sides[0].brigades[0].commander.name.clone();
    let absurd = [
        Action::Move { unit: unit.clone(), steps: vec![MoveStep::Forward(f32::INFINITY)] },
        Action::Move { unit: unit.clone(), steps: vec![MoveStep::Forward(1e30)] },
        Action::Move { unit: unit.clone(), steps: vec![MoveStep::SideStep(1e38)] },
        Action::SpecialMove { unit: unit.clone(), steps: vec![MoveStep::Wheel { pivot: End::Left, angle: f32::NAN }] },
        Action::Move { unit: unit.clone(), steps: vec![MoveStep::AboutFace; 1000] },
        Action::Move { unit, steps: vec![MoveStep::Path(vec![Vec2::ZERO, Vec2::new(0.0, 1e20)])] },
        Action::MoveCommander { commander, to: Vec2::new(f32::NEG_INFINITY, 0.0) },
    ];
    for a in absurd {
        let before = (game.snapshot(), game.dice_thrown(), game.actions().len());
        let r = watchdog(format!("{a:?}"), {
            let (s, seed, actions) = (save.scenario.clone(), save.seed, game.actions().to_vec());
            move || {
                let mut g = Game::from_save(&Save { format: otp::rules::engine::SAVE_FORMAT, rules: Default::default(), scenario: s, digest: None, seed, actions }, Charts::embedded().clone()).unwrap();
                g.apply(a).map(|_| ()).map_err(|r| r.to_string())
            }
        });
        let refusal = r.expect_err("refused");
        assert!(refusal.contains("not a number the table allows"), "{refusal}");
        assert_eq!((game.snapshot(), game.dice_thrown(), game.actions().len()), before);
    }
    // A legal move on the same game is still accepted: the check refuses only the absurd.
    let fine = Action::EndActivation;
    assert!(game.apply(fine).is_ok());
}
