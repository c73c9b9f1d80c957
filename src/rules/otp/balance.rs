//! A scenario's balance table: many seeded automatic games (the [`Bot`] on both sides) summed
//! up for a scenario designer as Markdown (`otp simulate FILE --games 200 --balance`): each
//! side's wins, the draws, mean losses, how often the side that won historically
//! (`history.winner`) won, and the turn each game was decided — the turn from whose end the
//! eventual winner led on victory points to the last (4.5, the scenario's objectives).

use std::fmt::Write as _;

use crate::rules::automatic::Level;
use crate::rules::otp::bot::{Bot, Sides, with_turns};
use crate::rules::simulate::in_order_on_every_core;
use crate::rules::otp::charts::Charts;
use crate::rules::otp::engine::{Action, Game};
use crate::rules::otp::engine::report::SideSummary;
use crate::scenario::model::Scenario;

/// The name the table gives the rule set its games were played under.
pub const RULE_SET: &str = "On to Philadelphia";

/// The side with the most victory points, or `None` for a tie (a draw).
pub fn leader(sides: &[SideSummary]) -> Option<usize> {
    let best = sides.iter().map(|s| s.points).max()?;
    let mut at = (0..sides.len()).filter(|&i| sides[i].points == best);
    at.next().filter(|_| at.next().is_none())
}

/// The turn a game was decided: the first turn from whose end `winner` led at every turn's end
/// (`leaders[t]` is the points leader at the end of turn t + 1). `None` for a draw.
pub fn decided_on(leaders: &[Option<usize>], winner: Option<usize>) -> Option<u32> {
    winner?;
    let from = leaders.iter().rposition(|&l| l != winner).map_or(0, |i| i + 1);
    Some(from as u32 + 1)
}

/// One automatic game as the table counts it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game1 {
    pub winner: Option<usize>,
    pub figures_lost: Vec<u32>,
    pub units_broken: Vec<usize>,
    pub decided: Option<u32>,
    pub refusals: usize,
}

/// One seeded game with one automatic player a side of `levels`, noting the points leader at
/// the end of every turn.
pub fn play_levels(scenario: &Scenario, levels: &[Level], seed: u64, turns: Option<u32>) -> Game1 {
    let mut game = Game::new(with_turns(scenario, turns), seed, Charts::embedded().clone());
    let mut players = Sides::new(levels);
    let mut leaders = Vec::new();
    let mut refusals = 0;
    for _ in 0..crate::rules::simulate::MAX_ACTIONS {
        let Some((action, _)) = players.decide_game(&game) else { break };
        let report = match game.apply(action) {
            Ok(r) => r,
            Err(_) => {
                refusals += 1;
                let fallback = if game.phase() == crate::rules::otp::engine::Phase::Rebuild { Action::EndTurn } else { Action::EndActivation };
                match game.apply(fallback) {
                    Ok(r) => r,
                    Err(_) => break,
                }
            }
        };
        if matches!(report.action, crate::rules::action::Action::Otp(Action::EndTurn)) {
            leaders.push(leader(&report.summary.clone().unwrap_or_else(|| game.summarise()).sides));
        }
    }
    let end = game.summary().unwrap_or_else(|| game.summarise());
    let winner = leader(&end.sides);
    Game1 {
        winner,
        figures_lost: end.sides.iter().map(|s| s.figures_lost).collect(),
        units_broken: end.sides.iter().map(|s| s.units_broken.len()).collect(),
        decided: decided_on(&leaders, winner),
        refusals,
    }
}

/// [`balance`] with one automatic player a side of `levels`.
pub fn balance_levels(scenario: &Scenario, levels: &[Level], first_seed: u64, games: usize, turns: Option<u32>, mut progress: impl FnMut(usize)) -> Balance {
    let mut played: Vec<Game1> = Vec::with_capacity(games);
    in_order_on_every_core(
        games,
        |i| play_levels(scenario, levels, first_seed.wrapping_add(i as u64), turns),
        |_, g| {
            played.push(g);
            progress(played.len());
            true
        },
    );
    let turns = with_turns(scenario, turns).turn_limit.unwrap_or_default();
    let mut b = Balance::tally(scenario, first_seed, turns, &played);
    b.levels = levels.to_vec();
    b
}

/// Play one seeded automatic game, noting the points leader at the end of every turn.
pub fn play(scenario: &Scenario, seed: u64, turns: Option<u32>) -> Game1 {
    let mut game = Game::new(with_turns(scenario, turns), seed, Charts::embedded().clone());
    let mut bot = Bot::new();
    let mut leaders = Vec::new();
    bot.play(&mut game, |g, r| {
        if matches!(r.action, crate::rules::action::Action::Otp(Action::EndTurn)) {
            leaders.push(leader(&r.summary.clone().unwrap_or_else(|| g.summarise()).sides));
        }
    });
    let end = game.summary().unwrap_or_else(|| game.summarise());
    let winner = leader(&end.sides);
    Game1 {
        winner,
        figures_lost: end.sides.iter().map(|s| s.figures_lost).collect(),
        units_broken: end.sides.iter().map(|s| s.units_broken.len()).collect(),
        decided: decided_on(&leaders, winner),
        refusals: bot.refusals,
    }
}

/// One side over all the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideBalance {
    pub side: String,
    /// Figures (guns for artillery) the side starts with.
    pub figures: u32,
    pub wins: usize,
    pub mean_figures_lost: f64,
    pub mean_units_broken: f64,
    /// Mean turn decided, over the games this side won.
    pub mean_decided: Option<f64>,
}

/// The balance of a scenario over many games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Balance {
    pub scenario: String,
    pub games: usize,
    pub first_seed: u64,
    pub turns: u32,
    pub sides: Vec<SideBalance>,
    pub draws: usize,
    /// The side that won historically (its index), from `history.winner`.
    pub historical: Option<usize>,
    /// Mean turn decided over every game with a winner.
    pub mean_decided: Option<f64>,
    pub refusals: usize,
    /// The automatic players' levels, a side each, when chosen (`--bot`); empty: the novice.
    pub levels: Vec<Level>,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

impl Balance {
    /// Sum up `games` (played with seeds `first_seed..`) of `scenario`.
    pub fn tally(scenario: &Scenario, first_seed: u64, turns: u32, games: &[Game1]) -> Balance {
        let n = games.len().max(1) as f64;
        let decided = |side: Option<usize>| mean(games.iter().filter(|g| g.winner.is_some() && (side.is_none() || g.winner == side)).filter_map(|g| g.decided).map(f64::from));
        let sides = scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, s)| SideBalance {
                side: s.name.clone(),
                figures: s.brigades.iter().flat_map(|b| &b.units).map(|u| u.figures).sum(),
                wins: games.iter().filter(|g| g.winner == Some(i)).count(),
                mean_figures_lost: games.iter().map(|g| f64::from(g.figures_lost[i])).sum::<f64>() / n,
                mean_units_broken: games.iter().map(|g| g.units_broken[i] as f64).sum::<f64>() / n,
                mean_decided: decided(Some(i)),
            })
            .collect();
        let historical = scenario.history.as_ref().and_then(|h| h.winner.as_ref()).and_then(|w| scenario.sides.iter().position(|s| &s.name == w));
        Balance {
            scenario: scenario.name.clone(),
            games: games.len(),
            first_seed,
            turns,
            sides,
            draws: games.iter().filter(|g| g.winner.is_none()).count(),
            historical,
            mean_decided: decided(None),
            refusals: games.iter().map(|g| g.refusals).sum(),
            levels: Vec::new(),
        }
    }

    /// The table in Markdown, with a line on the historical result under it.
    pub fn markdown(&self) -> String {
        let pct = |k: usize| if self.games == 0 { 0.0 } else { 100.0 * k as f64 / self.games as f64 };
        let turn = |t: Option<f64>| t.map_or("—".to_string(), |t| format!("{t:.1}"));
        let last = self.first_seed.wrapping_add(self.games.saturating_sub(1) as u64);
        let mut out = format!("**{}** — {RULE_SET}, {} automatic games (seeds {}–{last}), {} turns", self.scenario, self.games, self.first_seed, self.turns);
        if !self.levels.is_empty() {
            let who: Vec<String> = self.sides.iter().zip(&self.levels).map(|(s, l)| format!("{} {l}", s.side)).collect();
            let _ = write!(out, "; players: {}", who.join(", "));
        }
        out += "\n\n";
        let names: Vec<String> = self.sides.iter().enumerate().map(|(i, s)| if self.historical == Some(i) { format!("{} (won historically)", s.side) } else { s.side.clone() }).collect();
        let _ = writeln!(out, "| | {} | Draws |", names.join(" | "));
        let _ = writeln!(out, "|---|{}---:|", "---:|".repeat(self.sides.len()));
        let row = |label: &str, cells: Vec<String>, last: &str| format!("| {label} | {} | {last} |\n", cells.join(" | "));
        out += &row("Games won", self.sides.iter().map(|s| format!("{} ({:.1}%)", s.wins, pct(s.wins))).collect(), &format!("{} ({:.1}%)", self.draws, pct(self.draws)));
        out += &row("Mean figures lost", self.sides.iter().map(|s| format!("{:.1} of {}", s.mean_figures_lost, s.figures)).collect(), "");
        out += &row("Mean units broken", self.sides.iter().map(|s| format!("{:.2}", s.mean_units_broken)).collect(), "");
        out += &row("Mean turn decided (its wins)", self.sides.iter().map(|s| turn(s.mean_decided)).collect(), "");
        out.push('\n');
        match self.historical {
            Some(h) => {
                let _ = write!(out, "Historical result ({} win): {} of {} games ({:.1}%).", self.sides[h].side, self.sides[h].wins, self.games, pct(self.sides[h].wins));
            }
            None => out += "Historical result: the scenario names no winner (history.winner).",
        }
        let _ = writeln!(out, " Games with a winner were decided on turn {} on average; refusals {}.", turn(self.mean_decided), self.refusals);
        out
    }
}

/// Play `games` seeded games of `scenario` from `first_seed`, one on each core, and sum them up
/// (in seed order: the same table as one after another); `progress` hears after each game how
/// many are done.
pub fn balance(scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, mut progress: impl FnMut(usize)) -> Balance {
    let mut played: Vec<Game1> = Vec::with_capacity(games);
    in_order_on_every_core(
        games,
        |i| play(scenario, first_seed.wrapping_add(i as u64), turns),
        |_, g| {
            played.push(g);
            progress(played.len());
            true
        },
    );
    let turns = with_turns(scenario, turns).turn_limit.unwrap_or_default();
    Balance::tally(scenario, first_seed, turns, &played)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(points: u32) -> SideSummary {
        SideSummary { side: String::new(), figures_lost: 0, units_broken: vec![], units_off_table: vec![], objectives_held: vec![], points }
    }

    // OTP 4.5 and the scenario's objectives: the side with more points wins; equal points draw.
    #[test]
    fn the_leader_has_the_most_points_and_a_tie_is_a_draw() {
        assert_eq!(leader(&[side(3), side(1)]), Some(0));
        assert_eq!(leader(&[side(0), side(2)]), Some(1));
        assert_eq!(leader(&[side(2), side(2)]), None);
        assert_eq!(leader(&[side(0), side(0)]), None);
    }

    // A game is decided on the first turn from which its winner led to the end.
    #[test]
    fn decided_is_the_turn_the_winner_took_the_lead_for_good() {
        let (a, b) = (Some(0), Some(1));
        assert_eq!(decided_on(&[a, a, a], a), Some(1));
        assert_eq!(decided_on(&[None, b, a, a], a), Some(3));
        assert_eq!(decided_on(&[a, None, a, b], b), Some(4));
        assert_eq!(decided_on(&[a, a, None], None), None);
    }

    // The tally adds up: wins and draws make the games, the historical winner's share is its
    // wins, and the means are over all games.
    #[test]
    fn the_tally_adds_up_and_names_the_historical_winner() {
        let mut s = crate::scenario::default_scenario();
        s.history = Some(crate::scenario::model::History { date: "1781".into(), note: String::new(), sources: vec![], winner: Some(s.sides[1].name.clone()) });
        let g = |winner, lost: [u32; 2], decided| Game1 { winner, figures_lost: lost.to_vec(), units_broken: vec![0, 1], decided, refusals: 0 };
        let games = [g(Some(1), [10, 4], Some(4)), g(Some(1), [6, 2], Some(6)), g(None, [2, 2], None), g(Some(0), [0, 8], Some(9))];
        let b = Balance::tally(&s, 5, 10, &games);
        assert_eq!((b.sides[0].wins, b.sides[1].wins, b.draws), (1, 2, 1));
        assert_eq!(b.historical, Some(1));
        assert_eq!(b.sides[0].mean_figures_lost, 4.5);
        assert_eq!(b.sides[1].mean_units_broken, 1.0);
        assert_eq!(b.sides[1].mean_decided, Some(5.0));
        assert_eq!(b.mean_decided, Some(19.0 / 3.0));
        let md = b.markdown();
        assert!(md.contains(&format!("| {} (won historically) |", s.sides[1].name)), "{md}");
        assert!(md.contains("| Games won | 1 (25.0%) | 2 (50.0%) | 1 (25.0%) |"), "{md}");
        assert!(md.contains("| Mean figures lost | 4.5 of"), "{md}");
        assert!(md.contains("2 of 4 games (50.0%)"), "{md}");
        assert!(md.contains("seeds 5–8"), "{md}");
    }

    // Real games: the table's counts agree with the games, and the same seeds give the same table.
    #[test]
    fn balance_of_real_games_is_reproducible() {
        let s = crate::scenario::default_scenario();
        let mut seen = 0;
        let a = balance(&s, 11, 3, Some(2), |n| seen = n);
        assert_eq!(seen, 3);
        assert_eq!(a.turns, 2);
        assert_eq!(a.sides.iter().map(|s| s.wins).sum::<usize>() + a.draws, 3);
        assert_eq!(a.refusals, 0);
        assert!(a.mean_decided.is_none_or(|t| (1.0..=2.0).contains(&t)), "{a:?}");
        assert_eq!(a, balance(&s, 11, 3, Some(2), |_| ()));
    }
}
