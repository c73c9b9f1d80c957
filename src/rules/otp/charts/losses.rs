//! FIGURE LOSS SEVERITY (10.3): the Expanded Table of Figure Losses for units of 2–33 figures,
//! and the percentages of 10.3 beyond it.

use serde::{Deserialize, Serialize};

use super::{Check, CheckSource, Source, Validate};

/// How badly a unit has been hurt, against its original strength (10.3).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// No figures lost: no morale modifier.
    NoLoss,
    /// 10% or less.
    Light,
    /// Over 10%, under 25%.
    Moderate,
    /// 25% to 50%.
    Substantial,
    /// Over 50%.
    Severe,
}

impl Severity {
    /// The four categories a loss can fall in.
    pub const LOSSES: [Severity; 4] = [Severity::Light, Severity::Moderate, Severity::Substantial, Severity::Severe];
}

/// A row of the Expanded Table: the most figures lost still in each category (0: none).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossRow {
    /// Original sizes covered, inclusive.
    pub sizes: (u32, u32),
    pub light: u32,
    pub moderate: u32,
    pub substantial: u32,
    pub source: Source,
}

impl LossRow {
    pub fn severity(&self, lost: u32) -> Severity {
        if lost == 0 {
            Severity::NoLoss
        } else if lost <= self.light {
            Severity::Light
        } else if lost <= self.moderate {
            Severity::Moderate
        } else if lost <= self.substantial {
            Severity::Substantial
        } else {
            Severity::Severe
        }
    }
}

/// 10.3's bounds, in percent of the original figures.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Percentages {
    /// Light: at most this percentage.
    pub light: u32,
    /// Moderate: below this percentage.
    pub moderate_below: u32,
    /// Substantial: at most this percentage; Severe beyond.
    pub substantial: u32,
    pub source: Source,
}

impl Percentages {
    pub fn severity(&self, original: u32, lost: u32) -> Severity {
        let (lost, original) = (lost as u64 * 100, original as u64);
        if lost == 0 {
            Severity::NoLoss
        } else if lost <= self.light as u64 * original {
            Severity::Light
        } else if lost < self.moderate_below as u64 * original {
            Severity::Moderate
        } else if lost <= self.substantial as u64 * original {
            Severity::Substantial
        } else {
            Severity::Severe
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossChart {
    pub rows: Vec<LossRow>,
    pub percentages: Percentages,
}

impl LossChart {
    /// The table row for a unit of `original` figures, if the table covers it.
    pub fn row_for(&self, original: u32) -> Option<&LossRow> {
        self.rows.iter().find(|r| r.sizes.0 <= original && original <= r.sizes.1)
    }

    /// The loss category of a unit that started with `original` figures and has lost `lost`
    /// (10.3): the Expanded Table where it has a row, the percentages elsewhere.
    pub fn severity(&self, original: u32, lost: u32) -> Severity {
        match self.row_for(original) {
            Some(row) => row.severity(lost),
            None => self.percentages.severity(original, lost),
        }
    }
}

impl Validate for LossChart {
    fn validate(&self, c: &mut Check) {
        if self.rows.is_empty() {
            c.fail("rows", "no rows");
        }
        for (i, r) in self.rows.iter().enumerate() {
            let place = format!("rows[{}-{}]", r.sizes.0, r.sizes.1);
            if r.sizes.0 > r.sizes.1 || r.sizes.0 == 0 {
                c.fail(&place, "sizes must be (smallest, largest), from 1 up");
            }
            if i > 0 && r.sizes.0 != self.rows[i - 1].sizes.1 + 1 {
                c.fail(&place, format!("follows sizes up to {}: rows must run on without gaps or overlaps", self.rows[i - 1].sizes.1));
            }
            if !(r.light <= r.moderate && r.moderate <= r.substantial) {
                c.fail(&place, format!("light {} moderate {} substantial {}: each category ends at or beyond the one before", r.light, r.moderate, r.substantial));
            }
            if r.substantial >= r.sizes.0 {
                c.fail(&place, format!("substantial up to {} leaves no Severe losses for a unit of {}", r.substantial, r.sizes.0));
            }
            r.source.check(c, &place);
        }
        let p = &self.percentages;
        if !(p.light < p.moderate_below && p.moderate_below <= p.substantial && p.substantial < 100) {
            c.fail("percentages", format!("light {} moderate_below {} substantial {}: they must rise, below 100", p.light, p.moderate_below, p.substantial));
        }
        p.source.check(c, "percentages");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    // OTP 10.3: the percentages beyond the table.
    #[test]
    fn percentages_beyond_the_table() {
        let l = &Charts::embedded().losses;
        assert_eq!(l.severity(40, 0), Severity::NoLoss);
        assert_eq!(l.severity(40, 4), Severity::Light); // 10%
        assert_eq!(l.severity(40, 5), Severity::Moderate);
        assert_eq!(l.severity(40, 9), Severity::Moderate); // 22.5%
        assert_eq!(l.severity(40, 10), Severity::Substantial); // 25%
        assert_eq!(l.severity(40, 20), Severity::Substantial); // 50%
        assert_eq!(l.severity(40, 21), Severity::Severe);
        assert_eq!(l.severity(1, 1), Severity::Severe);
        assert_eq!(l.severity(100, 25), Severity::Substantial);
        assert_eq!(l.severity(100, 24), Severity::Moderate);
    }
}
