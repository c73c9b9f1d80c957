//! Exact odds of Purky's d10 pools before they are rolled: the hits of a fire or melee pool
//! (binomial over the dice, PK12, PK13, PK18) and a morale test keeping the two lowest of 2 to 6
//! dice (PK20, PK23). A d10 reads 1–10 and succeeds at or under the chart's number.

/// The chance one d10 (read 1–10) rolls at or under `value` (0 for the card's "~").
pub fn at_or_under(value: u8) -> f64 {
    f64::from(value.min(10)) / 10.0
}

/// The exact chance of each number of hits, 0 to `dice`, when each die hits on `value` or less.
pub fn pool_hits(dice: u32, value: u8) -> Vec<f64> {
    let p = at_or_under(value);
    let n = dice as usize;
    // Pascal's rows times the powers: exact in f64 for the pools the table can field.
    let mut out = vec![0.0; n + 1];
    let mut choose = 1.0f64;
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            choose = choose * (n + 1 - k) as f64 / k as f64;
        }
        *slot = choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32);
    }
    out
}

/// A morale test's outcome (PK20): both kept dice pass, one fails (shaken), both fail (rout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Test {
    Pass,
    OneFails,
    BothFail,
}

/// The kept two lowest of `faces` judged against `value`: the test's outcome.
pub fn judge(faces: &[u8], value: u8) -> Test {
    let mut sorted = faces.to_vec();
    sorted.sort_unstable();
    match sorted.iter().take(2).filter(|&&f| f > value).count() {
        0 => Test::Pass,
        1 => Test::OneFails,
        _ => Test::BothFail,
    }
}

/// The exact chances of pass, one fail and both fail when `dice` d10 are rolled and the two
/// lowest kept (PK20). The two lowest both pass when at least two dice pass; exactly one fails
/// when exactly one die passes; both fail when none does: a binomial over the dice.
pub fn morale(dice: u32, value: u8) -> [(Test, f64); 3] {
    let hits = pool_hits(dice, value);
    let none = hits[0];
    let one = hits.get(1).copied().unwrap_or(0.0);
    [(Test::Pass, 1.0 - none - one), (Test::OneFails, one), (Test::BothFail, none)]
}

/// Dice a pool rolls for `figures` (PK12, PK18): one a 4 figures, a remainder of 2 or 3 one
/// more (rulesets.md PK12's reading).
pub fn dice_for(figures: u32) -> u32 {
    (figures + 2) / 4
}
