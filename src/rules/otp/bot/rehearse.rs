//! The strong player's look-ahead: a brigade's candidate plans, each played out to the end of
//! the game in copies of it with fresh dice ([`Game::rehearsal`]: never the game's own coming
//! rolls), and weighed by how the side stands at the end (4.5: the objectives' points, then the
//! figures lost). The k-th rehearsal of every plan throws the same fresh dice, so the plans are
//! compared on like luck; the rehearsals run on every core.

use rayon::prelude::*;

use crate::rules::otp::engine::Game;

/// Rehearsals of each plan.
pub(super) const REHEARSALS: usize = 2;

/// How `side` stands at the end of a rehearsed game: its points ahead of the best other side's
/// (4.5), and a hundredth of a point for every figure the enemy lost more than it did.
pub(super) fn standing(g: &Game, side: usize) -> f64 {
    let Some(summary) = g.summary() else { return 0.0 };
    let Some(mine) = summary.sides.get(side) else { return 0.0 };
    let others = summary.sides.iter().enumerate().filter(|&(i, _)| i != side);
    let best_other = others.clone().map(|(_, s)| s.points).max().unwrap_or(0);
    let their_losses: u32 = others.map(|(_, s)| s.figures_lost).sum();
    mine.points as f64 - best_other as f64 + 0.01 * (their_losses as f64 - mine.figures_lost as f64)
}

/// The seed of the `k`-th rehearsal from the game's position: a splitmix64 of the game's seed,
/// the actions so far and `k` (a stream of its own, so nothing of the game's dice is seen).
fn rehearsal_seed(g: &Game, k: usize) -> u64 {
    let mut z = g.seed() ^ (g.actions().len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k as u64 + 1).wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The mean standing of `side` over [`REHEARSALS`] rehearsals of each candidate, `play`ing
/// each copy to the end with the candidate.
pub(super) fn rehearse<C: Sync>(g: &Game, side: usize, candidates: &[C], play: impl Fn(&mut Game, &C) + Sync) -> Vec<f64> {
    let jobs: Vec<(usize, u64)> = (0..candidates.len()).flat_map(|c| (0..REHEARSALS).map(move |k| (c, k))).map(|(c, k)| (c, rehearsal_seed(g, k))).collect();
    let stood: Vec<(usize, f64)> = jobs
        .par_iter()
        .map(|&(c, seed)| {
            let mut copy = g.rehearsal(seed);
            play(&mut copy, &candidates[c]);
            (c, standing(&copy, side))
        })
        .collect();
    (0..candidates.len()).map(|c| stood.iter().filter(|s| s.0 == c).map(|s| s.1).sum::<f64>() / REHEARSALS as f64).collect()
}
