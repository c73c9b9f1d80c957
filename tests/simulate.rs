//! Invariants over many seeded automatic games of the teaching battle (the bot of
//! `rules::otp::bot` playing both sides), checked after every activation and at the end.

mod common;

use common::invariants::check;
use otp::rules::otp::bot::{Bot, simulate, simulate_many};
use otp::rules::otp::charts::Charts;
use otp::rules::otp::engine::{Action, Game};

/// Games played, and turns in each (fewer than the scenario's ten, to keep the run short).
const GAMES: u64 = 1000;
const TURNS: u32 = 4;

fn teaching(seed: u64) -> Game {
    let mut s = otp::scenario::default_scenario();
    s.turn_limit = Some(TURNS);
    Game::new(s, seed, Charts::embedded().clone())
}

// OTP 4.2–4.5, 6.x, 8.x, 9.x, 10.x, 11.0: many whole automatic games keep every invariant, the
// bot is never refused, and fire and melee happen.
#[test]
fn invariants_over_many_games() {
    let mut lost = 0;
    let mut fired = 0;
    let (mut charges, mut melees, mut firefights, mut bonus) = (0, 0, 0, 0);
    for seed in 0..GAMES {
        let mut g = teaching(seed);
        let mut bot = Bot::new();
        bot.play(&mut g, |g, r| {
            if matches!(r.action.as_otp(), Some(Action::EndActivation | Action::EndTurn)) {
                check(g, seed);
            }
            if matches!(r.action.as_otp(), Some(Action::Fire { .. })) {
                fired += 1;
            }
            if matches!(r.action.as_otp(), Some(Action::Charge { .. } | Action::ChargeWith { .. })) {
                charges += 1;
                melees += usize::from(r.charts.iter().any(|c| c.chart == "MELEE COMBAT"));
                firefights += usize::from(r.notes.iter().any(|n| n.rule == "9.3"));
                bonus += usize::from(r.notes.iter().any(|n| n.rule == "6.10"));
            }
        });
        check(&g, seed);
        assert_eq!(bot.refusals, 0, "seed {seed}: {:?}", bot.refused);
        let summary = g.summary().expect("the game ended");
        assert_eq!(summary.turns_played, TURNS);
        lost += summary.sides.iter().map(|s| s.figures_lost).sum::<u32>();
    }
    assert!(fired > 0, "the bot fires");
    eprintln!("{charges} charges: {melees} melees, {firefights} firefights, {bonus} bonus charges");
    assert!(charges > 0 && melees > 0, "the bot charges and melees are fought ({charges} charges, {melees} melees)");
    assert!(lost > 0, "fire costs figures across {GAMES} games");
}

// The simulate API: same seed ⇒ same log bytes; the spread adds up.
#[test]
fn simulate_is_reproducible() {
    let s = otp::scenario::default_scenario();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let oa = simulate(&s, 42, Some(3), Some(&mut a));
    let ob = simulate(&s, 42, Some(3), Some(&mut b));
    assert_eq!(a, b);
    assert_eq!(oa, ob);
    let mut seen = 0;
    let spread = simulate_many(&s, 100, 5, Some(2), |n, _| seen = n);
    assert_eq!(seen, 5);
    assert_eq!(spread.sides.iter().map(|s| s.wins).sum::<usize>() + spread.draws, 5);
    assert!(spread.sides.iter().all(|s| s.min_figures_lost <= s.max_figures_lost));
    assert_eq!(spread.refusals, 0);
}

/// Whole games (the scenario's own turn limit) of each scenario the bot must play without one
/// refusal: the teaching battle and Cowpens.
const FULL_GAMES: u64 = 100;

// OTP 3.x–11.0: the bot asks the engine's own read-only checks before every action, so the engine
// never refuses it, over many whole seeded games of the teaching battle and Cowpens.
#[test]
fn the_engine_never_refuses_the_bot() {
    let cowpens = otp::scenario::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/cowpens.ron"))).expect("Cowpens loads");
    let mut refused: Vec<String> = Vec::new();
    for (name, scenario) in [("teaching", otp::scenario::default_scenario()), ("cowpens", cowpens)] {
        for seed in 0..FULL_GAMES {
            let mut g = Game::new(scenario.clone(), seed, Charts::embedded().clone());
            let mut bot = Bot::new();
            bot.play(&mut g, |_, _| {});
            assert!(g.summary().is_some(), "{name} seed {seed}: the game ends");
            refused.extend(bot.refused.iter().map(|(a, r)| format!("{name} seed {seed}: {a:?} refused: {r}")));
        }
    }
    assert!(refused.is_empty(), "{} refusals:\n{}", refused.len(), refused.join("\n"));
}
