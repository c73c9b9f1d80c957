//! The dice of On to Philadelphia: the D10 read 0–9, 2D10 read 00–99 as a tens die and a units
//! die (Introduction), and the averaging die (AD) with faces 2, 3, 3, 4, 4, 5.
//!
//! One seeded [`Dice`] lives in the game state; every roll comes back as a [`Roll`] recording the
//! kind, each face and the total, for the log, the dice overlay and the tests. A saved game keeps
//! only the seed: replaying the same actions from the same seed gives the same rolls. The
//! generator is ChaCha8, whose stream is fixed by its specification (unlike `StdRng`, which may
//! change between `rand` releases), and a face is drawn from it by our own rejection sampling of
//! `next_u32` (not `random_range`, whose algorithm `rand` is free to change): a saved game
//! replays the same on every build. A test pins the first rolls of a seed.
//!
//! [`distribution`] gives the exact odds of each total, for odds previews.

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Serialize, Serializer};

/// The faces of the averaging die (the standard averaging die; OTP uses it without defining it).
pub const AD_FACES: [u8; 6] = [2, 3, 3, 4, 4, 5];

/// What was thrown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiceKind {
    /// One ten-sided die read 0–9.
    D10,
    /// Two ten-sided dice read as tens and units: 00–99.
    TwoD10,
    /// `n` averaging dice, summed.
    Ad(u8),
    /// One six-sided die read 1–6 (the tiny test rules; the other rule sets' d6).
    D6,
    /// `n` six-sided dice, summed (2d6 and 3d6 of the ACW rules).
    D6s(u8),
}

impl DiceKind {
    /// The smallest and largest totals.
    pub fn range(self) -> (i32, i32) {
        match self {
            DiceKind::D10 => (0, 9),
            DiceKind::TwoD10 => (0, 99),
            DiceKind::Ad(n) => (2 * n as i32, 5 * n as i32),
            DiceKind::D6 => (1, 6),
            DiceKind::D6s(n) => (n as i32, 6 * n as i32),
        }
    }

    /// The exact mean total.
    pub fn mean(self) -> f64 {
        distribution(self).iter().map(|&(t, p)| t as f64 * p).sum()
    }
}

impl fmt::Display for DiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceKind::D10 => write!(f, "D10"),
            DiceKind::TwoD10 => write!(f, "2D10"),
            DiceKind::Ad(n) => write!(f, "{n}AD"),
            DiceKind::D6 => write!(f, "D6"),
            DiceKind::D6s(n) => write!(f, "{n}D6"),
        }
    }
}

impl Serialize for DiceKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One throw: its kind, each face as it came up, and the total.
///
/// For 2D10 the faces are `[tens, units]` and the total is `10 * tens + units`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Roll {
    pub kind: DiceKind,
    pub faces: Vec<u8>,
    pub total: i32,
}

impl fmt::Display for Roll {
    /// `D10: 7`, `2D10: 4|7 = 47`, `1AD: 4`, `2AD: 3+5 = 8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.kind)?;
        match self.kind {
            DiceKind::TwoD10 => write!(f, "{}|{} = {:02}", self.faces[0], self.faces[1], self.total),
            _ if self.faces.len() > 1 => {
                let faces: Vec<String> = self.faces.iter().map(u8::to_string).collect();
                write!(f, "{} = {}", faces.join("+"), self.total)
            }
            _ => write!(f, "{}", self.total),
        }
    }
}

/// The game's one source of chance: a ChaCha8 stream from a `u64` seed.
#[derive(Clone, Debug)]
pub struct Dice {
    seed: u64,
    rng: ChaCha8Rng,
    thrown: u64,
}

impl Dice {
    pub fn new(seed: u64) -> Self {
        Dice { seed, rng: ChaCha8Rng::seed_from_u64(seed), thrown: 0 }
    }

    /// The rolls made so far counted on, the stream from here on a fresh one from `seed` (a
    /// rehearsal's: the automatic player's look-ahead must not throw the game's own dice).
    pub fn reseeded(&self, seed: u64) -> Self {
        Dice { seed, rng: ChaCha8Rng::seed_from_u64(seed), thrown: self.thrown }
    }

    /// The seed this stream started from (all a saved game needs).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How many rolls have been made (each [`Roll`] counts one, whatever its dice).
    pub fn thrown(&self) -> u64 {
        self.thrown
    }

    /// A uniform integer in `0..n` (n ≤ 256): rejection sampling of whole 32-bit words, so no
    /// face is favoured and the mapping from the stream never changes.
    fn below(&mut self, n: u32) -> u8 {
        let limit = (1u64 << 32) / n as u64 * n as u64; // a whole number of n-sized blocks
        loop {
            let x = self.rng.next_u32() as u64;
            if x < limit {
                return (x % n as u64) as u8;
            }
        }
    }

    fn face_d10(&mut self) -> u8 {
        self.below(10)
    }

    fn face_ad(&mut self) -> u8 {
        AD_FACES[self.below(AD_FACES.len() as u32) as usize]
    }

    /// One D10, read 0–9.
    pub fn d10(&mut self) -> Roll {
        self.roll(DiceKind::D10)
    }

    /// 2D10 read as tens and units, 00–99.
    pub fn two_d10(&mut self) -> Roll {
        self.roll(DiceKind::TwoD10)
    }

    /// `n` averaging dice.
    pub fn ad(&mut self, n: u8) -> Roll {
        self.roll(DiceKind::Ad(n))
    }

    pub fn roll(&mut self, kind: DiceKind) -> Roll {
        self.thrown += 1;
        match kind {
            DiceKind::D10 => {
                let face = self.face_d10();
                Roll { kind, faces: vec![face], total: face as i32 }
            }
            DiceKind::TwoD10 => {
                let (tens, units) = (self.face_d10(), self.face_d10());
                Roll { kind, faces: vec![tens, units], total: 10 * tens as i32 + units as i32 }
            }
            DiceKind::Ad(n) => {
                let faces: Vec<u8> = (0..n).map(|_| self.face_ad()).collect();
                let total = faces.iter().map(|&f| f as i32).sum();
                Roll { kind, faces, total }
            }
            DiceKind::D6 => {
                let face = self.below(6) + 1;
                Roll { kind, faces: vec![face], total: face as i32 }
            }
            DiceKind::D6s(n) => {
                let faces: Vec<u8> = (0..n).map(|_| self.below(6) + 1).collect();
                let total = faces.iter().map(|&f| f as i32).sum();
                Roll { kind, faces, total }
            }
        }
    }

    /// `n` six-sided dice as one roll of nD6 (one D6 when `n` is 1).
    pub fn d6s(&mut self, n: u32) -> Roll {
        self.roll(if n == 1 { DiceKind::D6 } else { DiceKind::D6s(n.min(u8::MAX as u32) as u8) })
    }
}

/// The exact distribution of a throw's total: `(total, probability)` for every possible total,
/// in increasing order of total; the probabilities sum to 1.
pub fn distribution(kind: DiceKind) -> Vec<(i32, f64)> {
    match kind {
        DiceKind::D10 => (0..10).map(|t| (t, 0.1)).collect(),
        DiceKind::TwoD10 => (0..100).map(|t| (t, 0.01)).collect(),
        DiceKind::D6 => (1..=6).map(|t| (t, 1.0 / 6.0)).collect(),
        DiceKind::Ad(n) => sum_of(n, &AD_FACES),
        DiceKind::D6s(n) => sum_of(n, &[1, 2, 3, 4, 5, 6]),
    }
}

/// The distribution of the sum of `n` six-faced dice with these faces: convolved `n` times,
/// counting ways (exact integers), then divided by 6^n.
fn sum_of(n: u8, faces: &[u8; 6]) -> Vec<(i32, f64)> {
    let mut ways: Vec<u64> = vec![1]; // index = total
    for _ in 0..n {
        let mut next = vec![0u64; ways.len() + 6];
        for (t, &w) in ways.iter().enumerate() {
            for &face in faces {
                next[t + face as usize] += w;
            }
        }
        ways = next;
    }
    let all = 6f64.powi(n as i32);
    ways.iter().enumerate().filter(|&(_, &w)| w > 0).map(|(t, &w)| (t as i32, w as f64 / all)).collect()
}

/// The chance that `kind` plus `modifier` totals at most `target` (a "roll under" test such as
/// disordering terrain, 6.6, or closure, 9.1).
pub fn chance_at_most(kind: DiceKind, modifier: i32, target: i32) -> f64 {
    distribution(kind).iter().filter(|&&(t, _)| t + modifier <= target).map(|&(_, p)| p).sum()
}

/// The chance that `kind` plus `modifier` totals at least `target`.
pub fn chance_at_least(kind: DiceKind, modifier: i32, target: i32) -> f64 {
    distribution(kind).iter().filter(|&&(t, _)| t + modifier >= target).map(|&(_, p)| p).sum()
}

/// A D10 against a number, as OTP 1.0 reads the die: "D10 (read 0–9, OTP 1.0) -2 at or under
/// CV 5". The window's odds and the CLI say it alike.
pub fn d10_at_or_under(modifier: i32, what: &str) -> String {
    let m = if modifier == 0 { String::new() } else { format!(" {modifier:+}") };
    format!("D10 (read 0–9, OTP 1.0){m} at or under {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    // OTP Introduction: "Each D10 is read from 0 to 9."
    #[test]
    fn d10_reads_0_to_9_with_mean_4_5() {
        let mut dice = Dice::new(1777);
        let n = 100_000;
        let mut counts = [0u32; 10];
        for _ in 0..n {
            let r = dice.d10();
            assert_eq!(r.faces.len(), 1);
            counts[r.total as usize] += 1;
        }
        let mean: f64 = counts.iter().enumerate().map(|(f, &c)| f as f64 * c as f64).sum::<f64>() / n as f64;
        assert!((mean - 4.5).abs() < 0.03, "mean {mean}");
        for c in counts {
            assert!((c as f64 / n as f64 - 0.1).abs() < 0.01, "{counts:?}");
        }
        assert_eq!(dice.thrown(), n as u64);
    }

    // OTP Introduction: 2D10 with one die designated the tens.
    #[test]
    fn two_d10_is_tens_and_units() {
        let mut dice = Dice::new(3);
        for _ in 0..1000 {
            let r = dice.two_d10();
            assert_eq!(r.total, 10 * r.faces[0] as i32 + r.faces[1] as i32);
            assert!((0..=99).contains(&r.total));
        }
    }

    #[test]
    fn ad_faces_are_2_3_3_4_4_5() {
        let mut dice = Dice::new(42);
        let n = 60_000;
        let mut counts = [0u32; 6];
        for _ in 0..n {
            let r = dice.ad(1);
            counts[r.total as usize] += 1;
        }
        assert_eq!(counts[0] + counts[1], 0);
        for (face, expect) in [(2, 1.0 / 6.0), (3, 2.0 / 6.0), (4, 2.0 / 6.0), (5, 1.0 / 6.0)] {
            let got = counts[face] as f64 / n as f64;
            assert!((got - expect).abs() < 0.01, "face {face}: {got} vs {expect}");
        }
    }

    #[test]
    fn display_reads_like_the_log() {
        assert_eq!(Roll { kind: DiceKind::D10, faces: vec![7], total: 7 }.to_string(), "D10: 7");
        assert_eq!(Roll { kind: DiceKind::TwoD10, faces: vec![4, 7], total: 47 }.to_string(), "2D10: 4|7 = 47");
        assert_eq!(Roll { kind: DiceKind::TwoD10, faces: vec![0, 3], total: 3 }.to_string(), "2D10: 0|3 = 03");
        assert_eq!(Roll { kind: DiceKind::Ad(2), faces: vec![3, 5], total: 8 }.to_string(), "2AD: 3+5 = 8");
        assert_eq!(Roll { kind: DiceKind::Ad(1), faces: vec![4], total: 4 }.to_string(), "1AD: 4");
        let json = serde_json::to_string(&Roll { kind: DiceKind::Ad(2), faces: vec![3, 5], total: 8 }).unwrap();
        assert_eq!(json, r#"{"kind":"2AD","faces":[3,5],"total":8}"#);
    }

    #[test]
    fn distributions_are_exact() {
        for kind in [DiceKind::D10, DiceKind::TwoD10, DiceKind::D6, DiceKind::D6s(2), DiceKind::D6s(3), DiceKind::Ad(0), DiceKind::Ad(1), DiceKind::Ad(2), DiceKind::Ad(3)] {
            let d = distribution(kind);
            let sum: f64 = d.iter().map(|&(_, p)| p).sum();
            assert!((sum - 1.0).abs() < 1e-12, "{kind}: {sum}");
            assert_eq!((d[0].0, d[d.len() - 1].0), kind.range(), "{kind}");
        }
        assert_eq!(distribution(DiceKind::Ad(1)), vec![(2, 1.0 / 6.0), (3, 2.0 / 6.0), (4, 2.0 / 6.0), (5, 1.0 / 6.0)]);
        // 2AD: 36 outcomes; 8 comes from 3+5, 5+3, 4+4 (x4) = 1*2 + 2*1 ... count exactly.
        let two = distribution(DiceKind::Ad(2));
        let p8 = two.iter().find(|&&(t, _)| t == 8).unwrap().1;
        assert!((p8 - 8.0 / 36.0).abs() < 1e-12, "{p8}"); // 3+5: 2*1, 5+3: 1*2, 4+4: 2*2
        assert!((DiceKind::Ad(2).mean() - 7.0).abs() < 1e-12);
        assert!((DiceKind::D10.mean() - 4.5).abs() < 1e-12);
        assert!((chance_at_most(DiceKind::D10, 0, 5) - 0.6).abs() < 1e-12);
        assert!((chance_at_least(DiceKind::D10, -1, 6) - 0.3).abs() < 1e-12);
    }

    // QK11, OR18: 2D6 and 3D6 are summed six-sided dice: 7 on 2D6 six ways in 36, 10 on 3D6
    // 27 ways in 216; thrown as one roll, the faces come from the stream as single D6s would,
    // so games saved before there was a kind for them replay.
    #[test]
    fn two_and_three_d6_are_summed_six_sided_dice() {
        let p = |kind, t| distribution(kind).into_iter().find(|&(x, _)| x == t).unwrap().1;
        assert!((p(DiceKind::D6s(2), 7) - 6.0 / 36.0).abs() < 1e-12);
        assert!((p(DiceKind::D6s(3), 10) - 27.0 / 216.0).abs() < 1e-12);
        assert!((DiceKind::D6s(2).mean() - 7.0).abs() < 1e-12);
        assert!((chance_at_least(DiceKind::D6s(2), 0, 8) - 15.0 / 36.0).abs() < 1e-12);
        let (mut one, mut two) = (Dice::new(7), Dice::new(7));
        for n in [2, 3, 1, 2] {
            let r = two.d6s(n);
            let singles: Vec<u8> = (0..n).map(|_| one.roll(DiceKind::D6).faces[0]).collect();
            assert_eq!(r.faces, singles);
            assert_eq!(r.total, singles.iter().map(|&f| f as i32).sum::<i32>());
            assert_eq!(r.kind, if n == 1 { DiceKind::D6 } else { DiceKind::D6s(n as u8) });
        }
        let r = Roll { kind: DiceKind::D6s(2), faces: vec![3, 4], total: 7 };
        assert_eq!(r.to_string(), "2D6: 3+4 = 7");
    }

    /// The stream is pinned: if this fails, saved games no longer replay.
    #[test]
    fn the_stream_is_pinned() {
        let mut d = Dice::new(1776);
        let got: Vec<String> = (0..6).map(|i| d.roll([DiceKind::D10, DiceKind::TwoD10, DiceKind::Ad(2)][i % 3]).to_string()).collect();
        assert_eq!(got, ["D10: 6", "2D10: 2|5 = 25", "2AD: 4+4 = 8", "D10: 2", "2D10: 9|7 = 97", "2AD: 4+2 = 6"]);
    }

    #[test]
    fn same_seed_same_rolls() {
        let throw = |seed| {
            let mut d = Dice::new(seed);
            (0..50).map(|i| d.roll([DiceKind::D10, DiceKind::TwoD10, DiceKind::Ad(2)][i % 3])).collect::<Vec<_>>()
        };
        assert_eq!(throw(99), throw(99));
        assert_ne!(throw(99), throw(100));
        // A clone carries on the same stream.
        let mut a = Dice::new(5);
        a.d10();
        let mut b = a.clone();
        assert_eq!(a.two_d10(), b.two_d10());
    }
}

