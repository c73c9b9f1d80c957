//! Whole games played by a rule set's automatic player on both sides, through the engine
//! interface (`otp simulate`): [`play_out`] one game, [`simulate`] one seeded game of a scenario,
//! [`simulate_many`] the spread over many seeds. The automatic player chooses
//! ([`Engine::automatic`]), the engine applies; a refusal (the player wrong about the rules) is
//! counted and the sequence moved on (`Action::Next`).

use std::io::Write;

use serde::Serialize;

use super::action::Action;
use super::engine::Engine;

/// How the games are opened: a new game of a scenario with a seed (`registry::open` for a
/// rule set, or a rule set's own constructor).
pub type Opener = dyn Fn(Scenario, u64) -> Result<Box<dyn Engine>, String>;
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
    let mut game = open(with_turns(scenario, turns), seed)?;
    Ok(play_out(game.as_mut(), log))
}

/// Play `game` to its end with its rule set's automatic player on both sides; its outcome.
pub fn play_out(game: &mut dyn Engine, mut log: Option<&mut dyn Write>) -> GameOutcome {
    let mut player = game.automatic();
    let (mut actions, mut refusals, mut log_error) = (0, 0, None);
    while actions < MAX_ACTIONS {
        let Some(action) = player.next_action(game) else { break };
        let report = match game.apply(action) {
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
            let line = serde_json::to_string(&report).expect("reports serialise");
            if let Err(e) = writeln!(w, "{line}") {
                log_error = Some(e.to_string());
            }
        }
        actions += 1;
    }
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

/// Play `games` automatic games under `rules` with seeds `first_seed..`, calling `progress`
/// with the number of games finished and the outcome of the last one after each.
pub fn play_many(open: &Opener, scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, mut progress: impl FnMut(usize, &GameOutcome)) -> Result<Spread, String> {
    let mut spread = Spread { games, first_seed, ..Spread::default() };
    spread.sides = scenario.sides.iter().map(|s| SideSpread { side: s.name.clone(), min_figures_lost: u32::MAX, ..SideSpread::default() }).collect();
    for i in 0..games {
        let o = play(open, scenario, first_seed.wrapping_add(i as u64), turns, None)?;
        for (acc, s) in spread.sides.iter_mut().zip(&o.sides) {
            acc.mean_figures_lost += s.figures_lost as f64;
            acc.mean_units_broken += s.units_broken as f64;
            acc.min_figures_lost = acc.min_figures_lost.min(s.figures_lost);
            acc.max_figures_lost = acc.max_figures_lost.max(s.figures_lost);
        }
        match o.winner {
            Some(w) => spread.sides[w].wins += 1,
            None => spread.draws += 1,
        }
        spread.refusals += o.refusals;
        progress(i + 1, &o);
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
