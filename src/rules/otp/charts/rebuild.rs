//! UNIT REBUILDING TABLE (11.0): a D10 for units in reserve status, then averaging dice for the
//! figures regained.

use serde::{Deserialize, Serialize};

use super::{Check, CheckSource, Source, Sourced, TypeSet, Validate};
use crate::scenario::model::UnitType;

/// A success: modified D10 at least `at_least` regains `dice` AD + `modifier` figures.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RebuildRow {
    pub at_least: i32,
    pub dice: u8,
    pub modifier: i32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TypeModifier {
    pub unit_type: UnitType,
    pub value: i32,
    pub source: Source,
}

/// Why a unit may not try to rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RebuildRefusal {
    /// Militia and Indians never rebuild (11.0).
    NeverForType(UnitType),
    /// The unit has used all its attempts (11.0: at most 4 a game).
    NoAttemptsLeft { max: u32 },
    /// The unit has lost nothing: it may only rebuild to its starting strength (11.0).
    AtFullStrength,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RebuildChart {
    pub results: Vec<RebuildRow>,
    pub minimum_gain: Sourced<u32>,
    pub type_modifiers: Vec<TypeModifier>,
    pub never: TypeSet,
    pub max_attempts: Sourced<u32>,
}

impl RebuildChart {
    /// Whether a unit may try (the caller checks reserve status: not moved, out of small-arms
    /// range, not fired on by artillery).
    pub fn may_attempt(&self, unit_type: UnitType, attempts_made: u32, figures_lost: u32) -> Result<(), RebuildRefusal> {
        if self.never.types.contains(&unit_type) {
            Err(RebuildRefusal::NeverForType(unit_type))
        } else if attempts_made >= self.max_attempts.value {
            Err(RebuildRefusal::NoAttemptsLeft { max: self.max_attempts.value })
        } else if figures_lost == 0 {
            Err(RebuildRefusal::AtFullStrength)
        } else {
            Ok(())
        }
    }

    /// The die-roll modifier for a unit type (11.0: State Line -1, Elite +1).
    pub fn modifier(&self, unit_type: UnitType) -> i32 {
        self.type_modifiers.iter().find(|m| m.unit_type == unit_type).map_or(0, |m| m.value)
    }

    /// The row a D10 reaches for a unit type, or None if the attempt fails.
    pub fn check(&self, unit_type: UnitType, d10: i32) -> Option<&RebuildRow> {
        let roll = d10 + self.modifier(unit_type);
        self.results.iter().rev().find(|r| roll >= r.at_least)
    }

    /// Figures regained on a success with averaging dice totalling `ad_total`: at least the
    /// minimum, never more than were lost (a unit only rebuilds to its starting strength).
    pub fn figures_regained(&self, row: &RebuildRow, ad_total: i32, figures_lost: u32) -> u32 {
        ((ad_total + row.modifier).max(self.minimum_gain.value as i32) as u32).min(figures_lost)
    }

    /// The chance an attempt succeeds.
    pub fn chance(&self, unit_type: UnitType) -> f64 {
        (0..10).filter(|&d| self.check(unit_type, d).is_some()).count() as f64 / 10.0
    }
}

impl Validate for RebuildChart {
    fn validate(&self, c: &mut Check) {
        if self.results.is_empty() {
            c.fail("results", "no rows: no rebuild could ever succeed");
        }
        for w in self.results.windows(2) {
            if w[1].at_least <= w[0].at_least {
                c.fail(format!("results (at_least {})", w[1].at_least), format!("follows at_least {}: rows must rise", w[0].at_least));
            }
        }
        for r in &self.results {
            let place = format!("results (at_least {})", r.at_least);
            c.range(&place, "dice", r.dice, 1, 4);
            c.range(&place, "modifier", r.modifier, -10, 10);
            r.source.check(c, &place);
        }
        c.range("minimum_gain", "value", self.minimum_gain.value, 0, 10);
        self.minimum_gain.source.check(c, "minimum_gain");
        for (i, m) in self.type_modifiers.iter().enumerate() {
            let place = format!("type_modifiers ({:?})", m.unit_type);
            if self.type_modifiers[..i].iter().any(|o| o.unit_type == m.unit_type) {
                c.fail(&place, "a second modifier for this type");
            }
            c.range(&place, "value", m.value, -5, 5);
            m.source.check(c, &place);
        }
        self.never.source.check(c, "never");
        c.range("max_attempts", "value", self.max_attempts.value, 0, 50);
        self.max_attempts.source.check(c, "max_attempts");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    // OTP 11.0.
    #[test]
    fn text_fixed_rules() {
        let r = &Charts::embedded().rebuild;
        assert_eq!(r.may_attempt(UnitType::Militia, 0, 3), Err(RebuildRefusal::NeverForType(UnitType::Militia)));
        assert_eq!(r.may_attempt(UnitType::Indian, 0, 3), Err(RebuildRefusal::NeverForType(UnitType::Indian)));
        assert_eq!(r.may_attempt(UnitType::Line, 3, 3), Ok(()));
        assert_eq!(r.may_attempt(UnitType::Line, 4, 3), Err(RebuildRefusal::NoAttemptsLeft { max: 4 }));
        assert_eq!(r.may_attempt(UnitType::Line, 0, 0), Err(RebuildRefusal::AtFullStrength));
        assert_eq!(r.modifier(UnitType::StateLine), -1);
        assert_eq!(r.modifier(UnitType::Elite), 1);
        assert_eq!(r.modifier(UnitType::Line), 0);
        assert!(r.chance(UnitType::StateLine) < r.chance(UnitType::Line));
        assert!(r.chance(UnitType::Line) < r.chance(UnitType::Elite));
        let row = r.check(UnitType::Line, 9).unwrap();
        assert_eq!(r.figures_regained(row, 5, 2), 2, "never above starting strength");
        assert!(r.figures_regained(row, 2, 9) >= 1);
    }
}
