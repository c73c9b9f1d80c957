//! The exact chances of a melee's results (9.8): each side adds a D10 (0–9) to its total, ties
//! are re-rolled, and the ratio of the totals reads MELEE COMBAT.

use serde::Serialize;

use super::Melee;
use crate::rules::otp::charts::Charts;
use crate::rules::otp::charts::melee::RatioRow;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Attacker,
    Defender,
}

/// One MELEE COMBAT row and its chance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutcomeRow {
    pub winner: Winner,
    /// "1/1", "3/2", …
    pub ratio: String,
    /// Given no tie (ties re-roll).
    pub probability: f64,
    /// Figures lost and their chances (AD + modifier, never below 0).
    pub winner_losses: Vec<(u32, f64)>,
    pub loser_losses: Vec<(u32, f64)>,
    /// Full moves the loser retreats: one per AD it rolls for losses (9.8).
    pub loser_retreat_moves: u8,
    /// 6.10: the winner may make a bonus move.
    pub bonus_move: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcomes {
    pub rows: Vec<OutcomeRow>,
    pub attacker_wins: f64,
    /// 6.10: the attacker wins at 2:1 or better.
    pub bonus_move: f64,
    pub defender_bonus_move: f64,
}

/// 9.8: one full move of retreat for each averaging die the loser rolls.
pub fn retreat_moves(row: &RatioRow) -> u8 {
    row.loser_dice
}

/// 9.8: every one of the 100 pairs of D10s, ties left out (they re-roll, so the chances are
/// conditioned on no tie), each read on MELEE COMBAT by the ratio of the totals.
pub fn outcomes(charts: &Charts, melee: &Melee) -> Outcomes {
    let chart = &charts.melee;
    let (att, def) = (melee.attacker.total, melee.defender.total);
    // (winner, row index) → cells
    let mut cells: Vec<((Winner, usize), u32)> = Vec::new();
    let mut decided = 0u32;
    for a in 0..10u32 {
        for d in 0..10u32 {
            let (x, y) = (att + a, def + d);
            if x == y {
                continue;
            }
            decided += 1;
            let (winner, w, l) = if x > y { (Winner::Attacker, x, y) } else { (Winner::Defender, y, x) };
            let row = chart.outcome(w, l);
            let index = chart.ratios.iter().position(|r| std::ptr::eq(r, row)).expect("a chart row");
            match cells.iter_mut().find(|(k, _)| *k == (winner, index)) {
                Some((_, n)) => *n += 1,
                None => cells.push(((winner, index), 1)),
            }
        }
    }
    cells.sort_by_key(|((w, i), _)| (*w == Winner::Defender, *i));
    let rows: Vec<OutcomeRow> = cells
        .into_iter()
        .map(|((winner, i), n)| {
            let r = &chart.ratios[i];
            OutcomeRow {
                winner,
                ratio: r.label(),
                probability: n as f64 / decided as f64,
                winner_losses: r.winner().odds(),
                loser_losses: r.loser().odds(),
                loser_retreat_moves: retreat_moves(r),
                bonus_move: r.bonus_move,
            }
        })
        .collect();
    let sum = |f: &dyn Fn(&OutcomeRow) -> bool| rows.iter().filter(|r| f(r)).map(|r| r.probability).sum::<f64>() + 0.0;
    Outcomes {
        attacker_wins: sum(&|r| r.winner == Winner::Attacker),
        bonus_move: sum(&|r| r.winner == Winner::Attacker && r.bonus_move),
        defender_bonus_move: sum(&|r| r.winner == Winner::Defender && r.bonus_move),
        rows,
    }
}
