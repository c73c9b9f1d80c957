//! Whole games played by a rule set's automatic player on both sides, through the engine
//! interface (`otp simulate`): [`play_out`] one game, [`simulate`] one seeded game of a scenario,
//! [`simulate_many`] the spread over many seeds. The automatic player chooses
//! ([`Engine::automatic`]), the engine applies; a refusal (the player wrong about the rules) is
//! counted and the sequence moved on (`Action::Next`).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::Serialize;

use super::action::Action;
use super::engine::Engine;

/// How the games are opened: a new game of a scenario with a seed (`registry::open` for a
/// rule set, or a rule set's own constructor). `Sync`: many games are opened at once, one on
/// each core (each game stays on the thread that opened it).
pub type Opener = dyn Fn(Scenario, u64) -> Result<Box<dyn Engine>, String> + Sync;
use super::report::Summary;
use crate::scenario::Scenario;

/// The most actions one game may take before the automatic player gives up (a guard against a
/// loop).
pub const MAX_ACTIONS: usize = 200_000;

/// One side at the end of a simulated game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideOutcome {
    pub side: String,
    pub figures_lost: u32,
    pub units_broken: usize,
    pub objectives_held: Vec<String>,
    pub points: u32,
}

/// How a simulated game ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameOutcome {
    pub seed: u64,
    pub turns_played: u32,
    pub actions: usize,
    pub sides: Vec<SideOutcome>,
    /// The side with the most victory points; `None` for a draw.
    pub winner: Option<usize>,
    /// Actions the engine refused the automatic player (0 when it is right about the rules).
    pub refusals: usize,
    /// The first error writing the log, if any (the game is played to the end regardless).
    pub log_error: Option<String>,
}

impl GameOutcome {
    /// The game in one line, as `otp simulate` prints it.
    pub fn line(&self) -> String {
        let sides: Vec<String> = self.sides.iter().map(|s| format!("{} lost {} figures, {} units broken, {} VP", s.side, s.figures_lost, s.units_broken, s.points)).collect();
        let winner = self.winner.map(|w| format!("{} win", self.sides[w].side)).unwrap_or_else(|| "draw".into());
        format!("seed {}: {} turns, {} actions; {}; {winner}", self.seed, self.turns_played, self.actions, sides.join("; "))
    }
}

/// The scenario with `turns` as its turn limit (default: its own, else 10).
pub fn with_turns(scenario: &Scenario, turns: Option<u32>) -> Scenario {
    let mut s = scenario.clone();
    s.turn_limit = turns.or(s.turn_limit).or(Some(10));
    s
}

/// Play one automatic game of `scenario` under `rules` with `seed` for `turns` turns (default:
/// the scenario's limit), writing one JSON line per report to `log` when given (JSONL).
pub fn play(open: &Opener, scenario: &Scenario, seed: u64, turns: Option<u32>, log: Option<&mut dyn Write>) -> Result<GameOutcome, String> {
    play_with(open, None, scenario, seed, turns, log)
}

/// [`play`] with the players `players` makes (`None`: the rule set's own on both sides).
pub fn play_with(open: &Opener, players: Option<&Players>, scenario: &Scenario, seed: u64, turns: Option<u32>, log: Option<&mut dyn Write>) -> Result<GameOutcome, String> {
    let mut game = open(with_turns(scenario, turns), seed)?;
    Ok(match players {
        Some(make) => {
            let mut player = make(game.as_ref());
            play_out_with(game.as_mut(), player.as_mut(), log)
        }
        None => play_out(game.as_mut(), log),
    })
}

/// Play `game` to its end with its rule set's automatic player on both sides; its outcome.
pub fn play_out(game: &mut dyn Engine, log: Option<&mut dyn Write>) -> GameOutcome {
    let mut player = super::automatic::Plain(game.automatic());
    play_out_with(game, &mut player, log)
}

/// Play `game` to its end with `player` (one a side: [`super::automatic::BySide`]); each
/// action's reason, when the player gives one, is a note of its report in the log.
pub fn play_out_with(game: &mut dyn Engine, player: &mut dyn super::automatic::Player, mut log: Option<&mut dyn Write>) -> GameOutcome {
    let (mut actions, mut refusals, mut log_error) = (0, 0, None);
    while actions < MAX_ACTIONS {
        let Some(decision) = player.decide(game) else { break };
        let mut report = match game.apply(decision.action) {
            Ok(r) => r,
            Err(_) => {
                refusals += 1;
                match game.apply(Action::Next) {
                    Ok(r) => r,
                    Err(_) => break,
                }
            }
        };
        if let (Some(w), None) = (log.as_mut(), &log_error) {
            if let Some(why) = decision.reason {
                report.notes.push(super::report::Entry::new(REASON, why));
            }
            let line = serde_json::to_string(&report).expect("reports serialise");
            if let Err(e) = writeln!(w, "{line}") {
                log_error = Some(e.to_string());
            }
        }
        actions += 1;
    }
    outcome(game, actions, refusals, log_error)
}

/// The rule field of the note that carries the automatic player's reason in a logged report.
pub const REASON: &str = "automatic player";

/// How a game played `actions` actions ended.
fn outcome(game: &dyn Engine, actions: usize, refusals: usize, log_error: Option<String>) -> GameOutcome {
    // A game cut short (the guard above) has no summary: nothing counted, the turns reached.
    let summary = game.summary().unwrap_or_else(|| Summary { turns_played: game.sequence().turn, sides: Vec::new(), objectives_unheld: Vec::new(), winner: None, result: None });
    let sides: Vec<SideOutcome> = summary
        .sides
        .iter()
        .map(|s| SideOutcome { side: s.side.clone(), figures_lost: s.figures_lost, units_broken: s.units_broken.len(), objectives_held: s.objectives_held.clone(), points: s.points })
        .collect();
    let best = sides.iter().map(|s| s.points).max().unwrap_or(0);
    let leaders: Vec<usize> = (0..sides.len()).filter(|&i| sides[i].points == best).collect();
    // The rule set's own verdict, else the points (OTP 4.5).
    let winner = summary.winner.or_else(|| (leaders.len() == 1).then(|| leaders[0]));
    GameOutcome { seed: game.seed(), turns_played: summary.turns_played, actions, sides, winner, refusals, log_error }
}

/// One side over many games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SideSpread {
    pub side: String,
    pub mean_figures_lost: f64,
    pub min_figures_lost: u32,
    pub max_figures_lost: u32,
    pub mean_units_broken: f64,
    pub wins: usize,
}

/// Many games: per side the losses and wins, and the draws.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    pub games: usize,
    pub first_seed: u64,
    pub sides: Vec<SideSpread>,
    pub draws: usize,
    pub refusals: usize,
}

/// Runs `work(0)`, `work(1)`… `work(count - 1)` on every core (rayon's thread pool;
/// `RAYON_NUM_THREADS` sets how many threads) and hands each result to `each` on the calling
/// thread **in index order**, so whatever `each` sums up or prints comes out exactly as from a
/// loop on one thread. Each thread takes the next index as it finishes one, so results arrive
/// nearly in order and few wait to be handed on (memory stays flat over any `count`). `each`
/// returns `false` to stop: nothing more is started or handed to it.
pub fn in_order_on_every_core<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync, mut each: impl FnMut(usize, T) -> bool) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        let (work, next, stop) = (&work, &next, &stop);
        // The pool's threads do the work; this thread waits for them (it uses no core).
        scope.spawn(move || {
            rayon::scope(|pool| {
                for _ in 0..rayon::current_num_threads() {
                    let tx = tx.clone();
                    pool.spawn(move |_| {
                        while !stop.load(Ordering::Relaxed) {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= count || tx.send((i, work(i))).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        'received: for (i, result) in rx.iter() {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&due) {
                due += 1;
                if !each(due - 1, result) {
                    stop.store(true, Ordering::Relaxed);
                    break 'received;
                }
            }
        }
        drop(rx);
    });
}

/// Play `games` automatic games under `rules` with seeds `first_seed..`, one on each core
/// ([`in_order_on_every_core`]), calling `progress` with the number of games finished and the
/// outcome of the last one after each, in seed order: the same calls and the same spread as
/// playing them one after another.
pub fn play_many(open: &Opener, scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize, &GameOutcome)) -> Result<Spread, String> {
    play_many_with(open, None, scenario, first_seed, games, turns, progress)
}

/// Makes the automatic player of a game (one a side, of chosen levels).
pub type Players = dyn Fn(&dyn Engine) -> Box<dyn super::automatic::Player> + Sync;

/// [`play_many`] with the players `players` makes (`None`: the rule set's own on both sides).
pub fn play_many_with(open: &Opener, players: Option<&Players>, scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, mut progress: impl FnMut(usize, &GameOutcome)) -> Result<Spread, String> {
    let mut spread = Spread { games, first_seed, ..Spread::default() };
    spread.sides = scenario.sides.iter().map(|s| SideSpread { side: s.name.clone(), min_figures_lost: u32::MAX, ..SideSpread::default() }).collect();
    let mut failed = None;
    in_order_on_every_core(
        games,
        |i| play_with(open, players, scenario, first_seed.wrapping_add(i as u64), turns, None),
        |i, played| match played {
            Ok(o) => {
                spread.add(&o);
                progress(i + 1, &o);
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    for s in &mut spread.sides {
        if games > 0 {
            s.mean_figures_lost /= games as f64;
            s.mean_units_broken /= games as f64;
        } else {
            s.min_figures_lost = 0;
        }
    }
    Ok(spread)
}

/// The balance table of `spread`, automatic games of `scenario` under `rules`, in Markdown: each
/// side's wins, figures and units lost, the draws, and the historical winner's share.
pub fn balance_markdown(rules: super::cite::RuleSetId, scenario: &Scenario, spread: &Spread) -> String {
    let games = spread.games.max(1) as f64;
    let mut out = format!("### {} under {} ({} automatic games from seed {})\n\n| side | wins | mean figures lost (min–max) | mean units lost |\n|---|---|---|---|\n", scenario.name, rules.title(), spread.games, spread.first_seed);
    for s in &spread.sides {
        out.push_str(&format!("| {} | {} ({:.0}%) | {:.1} ({}–{}) | {:.2} |\n", s.side, s.wins, 100.0 * s.wins as f64 / games, s.mean_figures_lost, s.min_figures_lost, s.max_figures_lost, s.mean_units_broken));
    }
    out.push_str(&format!("\nDraws: {}. Refusals: {}.", spread.draws, spread.refusals));
    if let Some(w) = scenario.history.as_ref().and_then(|h| h.winner.as_ref()).and_then(|w| spread.sides.iter().find(|s| &s.side == w)) {
        out.push_str(&format!(" The historical winner, {}, won {:.0}% of the games.", w.side, 100.0 * w.wins as f64 / games));
    }
    out.push('\n');
    out
}

impl Spread {
    /// One game's outcome into the sums (the means are divided out at the end).
    fn add(&mut self, o: &GameOutcome) {
        for (acc, s) in self.sides.iter_mut().zip(&o.sides) {
            acc.mean_figures_lost += s.figures_lost as f64;
            acc.mean_units_broken += s.units_broken as f64;
            acc.min_figures_lost = acc.min_figures_lost.min(s.figures_lost);
            acc.max_figures_lost = acc.max_figures_lost.max(s.figures_lost);
        }
        match o.winner {
            Some(w) => self.sides[w].wins += 1,
            None => self.draws += 1,
        }
        self.refusals += o.refusals;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::rules::registry;

    // Work that finishes out of order (later indices sooner) is still handed on in index order,
    // every index once; stopping hands on nothing more.
    #[test]
    fn results_are_handed_on_in_order_and_stop_when_asked() {
        let mut seen = Vec::new();
        in_order_on_every_core(
            40,
            |i| {
                std::thread::sleep(std::time::Duration::from_millis(((40 - i) % 7) as u64));
                i * 10
            },
            |i, r| {
                seen.push((i, r));
                true
            },
        );
        assert_eq!(seen, (0..40).map(|i| (i, i * 10)).collect::<Vec<_>>());
        let mut handed = 0;
        in_order_on_every_core(1000, |i| i, |i, _| {
            handed += 1;
            i < 4
        });
        assert_eq!(handed, 5, "the fifth said stop");
    }

    // `simulate` on every core gives the same games, in the same order, and the same spread as
    // playing them one after another (OTP's teaching battle and the tiny rule set).
    #[test]
    fn every_core_plays_the_games_one_thread_would() {
        let teaching = crate::scenario::default_scenario();
        let mut tiny = teaching.clone();
        tiny.rules = RuleSetId::Tiny;
        for (rules, scenario, games) in [(RuleSetId::Otp, &teaching, 6), (RuleSetId::Tiny, &tiny, 12)] {
            let open = move |s, seed| registry::open(rules, s, seed);
            let one_by_one: Vec<GameOutcome> = (0..games).map(|i| play(&open, scenario, 20 + i as u64, Some(3), None).unwrap()).collect();
            let mut heard = Vec::new();
            let spread = play_many(&open, scenario, 20, games, Some(3), |done, o| heard.push((done, o.clone()))).unwrap();
            assert_eq!(heard, one_by_one.iter().cloned().enumerate().map(|(i, o)| (i + 1, o)).collect::<Vec<_>>(), "{rules:?}");
            assert_eq!(spread.sides.iter().map(|s| s.wins).sum::<usize>() + spread.draws, games);
            let lost: u32 = one_by_one.iter().map(|o| o.sides[0].figures_lost).sum();
            assert_eq!(spread.sides[0].mean_figures_lost, f64::from(lost) / games as f64);
            assert_eq!(spread.sides[0].max_figures_lost, one_by_one.iter().map(|o| o.sides[0].figures_lost).max().unwrap());
        }
    }

    // A game that cannot be opened is the error, as it was one after another.
    #[test]
    fn a_game_that_cannot_open_is_the_error() {
        let open = |_, seed: u64| -> Result<Box<dyn Engine>, String> { Err(format!("seed {seed} will not open")) };
        let mut heard = 0;
        let e = play_many(&open, &crate::scenario::default_scenario(), 7, 50, Some(1), |_, _| heard += 1).unwrap_err();
        assert_eq!((e.as_str(), heard), ("seed 7 will not open", 0));
    }
}
