//! COMMANDER VALUES (2.0): a D10 by commander kind gives the rating, and the rating the morale
//! passes (10.4). Commander casualties (8.16, 9.11).

use serde::{Deserialize, Serialize};

use super::{Check, CheckSource, Source, Sourced, Validate};
use crate::scenario::model::{CommanderKind, Rating};

pub const RATINGS: [Rating; 5] = [Rating::Exceptional, Rating::Firebrand, Rating::Aggressive, Rating::Cautious, Rating::Poltroon];
pub const KINDS: [CommanderKind; 6] =
    [CommanderKind::British, CommanderKind::German, CommanderKind::French, CommanderKind::Continental, CommanderKind::Loyalist, CommanderKind::Militia];

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RatingPasses {
    pub rating: Rating,
    pub passes: u8,
    pub source: Source,
}

/// D10 rolls up to `to` (and above the band before) give `rating`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RatingBand {
    pub to: i32,
    pub rating: Rating,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommanderColumn {
    pub kind: CommanderKind,
    pub bands: Vec<RatingBand>,
    pub source: Source,
}

/// A rolled commander.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommanderValue {
    pub rating: Rating,
    pub passes: u8,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommanderChart {
    pub ratings: Vec<RatingPasses>,
    pub columns: Vec<CommanderColumn>,
    /// An attached commander is a casualty of fire on a D10 at or under this (8.16).
    pub casualty_fire: Sourced<i32>,
    /// A commander in a melee is a casualty on a D10 at or under this (9.11).
    pub casualty_melee: Sourced<i32>,
}

impl CommanderChart {
    /// Morale passes for a rating (10.4).
    pub fn passes(&self, rating: Rating) -> u8 {
        self.ratings.iter().find(|r| r.rating == rating).map_or(0, |r| r.passes)
    }

    pub fn column(&self, kind: CommanderKind) -> &CommanderColumn {
        self.columns.iter().find(|c| c.kind == kind).expect("validated: every commander kind has a column")
    }

    /// The commander a D10 (0–9) gives for his kind (2.0).
    pub fn rating(&self, kind: CommanderKind, d10: i32) -> CommanderValue {
        let col = self.column(kind);
        let band = col.bands.iter().find(|b| d10 <= b.to).or(col.bands.last()).expect("validated: bands");
        CommanderValue { rating: band.rating, passes: self.passes(band.rating) }
    }

    /// The chance of each rating for a kind of commander.
    pub fn odds(&self, kind: CommanderKind) -> Vec<(Rating, f64)> {
        RATINGS.iter().map(|&r| (r, (0..10).filter(|&d| self.rating(kind, d).rating == r).count() as f64 / 10.0)).collect()
    }

    /// Whether a D10 kills or captures an attached commander whose unit took a kill or morale hit
    /// from fire (8.16).
    pub fn casualty_from_fire(&self, d10: i32) -> bool {
        d10 <= self.casualty_fire.value
    }

    /// Whether a D10 makes a commander in a melee a casualty (9.11).
    pub fn casualty_in_melee(&self, d10: i32) -> bool {
        d10 <= self.casualty_melee.value
    }
}

impl Validate for CommanderChart {
    fn validate(&self, c: &mut Check) {
        let ratings: Vec<_> = self.ratings.iter().map(|r| r.rating).collect();
        c.exactly_once("ratings", "rating", &RATINGS, &ratings);
        for r in &self.ratings {
            let place = format!("ratings ({:?})", r.rating);
            c.range(&place, "passes", r.passes, 0, 10);
            r.source.check(c, &place);
        }
        let kinds: Vec<_> = self.columns.iter().map(|col| col.kind).collect();
        c.exactly_once("columns", "column", &KINDS, &kinds);
        for col in &self.columns {
            let place = format!("columns ({:?})", col.kind);
            let tos: Vec<i32> = col.bands.iter().map(|b| b.to).collect();
            if !c.rising_bands(&place, &tos, 9) {
                continue;
            }
            col.source.check(c, &place);
        }
        for (field, s) in [("casualty_fire", &self.casualty_fire), ("casualty_melee", &self.casualty_melee)] {
            c.range(field, "value", s.value, -1, 9);
            s.source.check(c, field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    #[test]
    fn text_fixed_values() {
        let c = &Charts::embedded().commanders;
        // OTP 10.4: "after an aggressive commander has removed 3 morale markers…"
        assert_eq!(c.passes(Rating::Aggressive), 3);
        // OTP 8.16: a 0; 9.11: 0 through 3.
        assert!(c.casualty_from_fire(0) && !c.casualty_from_fire(1));
        assert!(c.casualty_in_melee(3) && !c.casualty_in_melee(4));
    }

    // OTP 2.0: "a British commander being more likely to have good capabilities than a Militia
    // commander".
    #[test]
    fn british_commanders_are_better_than_militia() {
        let c = &Charts::embedded().commanders;
        let quality = |k| {
            c.odds(k).iter().map(|&(r, p)| p * RATINGS.iter().rev().position(|&x| x == r).unwrap() as f64).sum::<f64>()
        };
        assert!(quality(CommanderKind::British) > quality(CommanderKind::Militia));
        for k in KINDS {
            let total: f64 = c.odds(k).iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-9);
            for d in 0..10 {
                let v = c.rating(k, d);
                assert_eq!(v.passes, c.passes(v.rating));
            }
        }
    }
}
