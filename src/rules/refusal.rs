//! An action refused: the rule that forbids it and why. Nothing changed, no die was thrown.
//! Apart from the report so that a rule set's orders can be checked without the report (which
//! quotes the orders).

use std::fmt;

use serde::Serialize;

use super::cite::{Cite, RuleSetId};

/// An action refused: the rule that forbids it and why. Nothing changed, no die was thrown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The rule set whose rule it is (not written for On to Philadelphia, so its JSON reads
    /// as it always did).
    #[serde(skip_serializing_if = "RuleSetId::is_otp")]
    pub set: RuleSetId,
    /// The section of the rules, e.g. "10.1"; empty for a check that is no rule of any game.
    pub rule: String,
    pub reason: String,
}

impl Refusal {
    /// Refused under `cite`.
    pub fn by(cite: Cite, reason: impl Into<String>) -> Self {
        Refusal { set: cite.set, rule: cite.section, reason: reason.into() }
    }

    /// Refused by no rule of the game: a number no table allows, from a file or a caller.
    pub fn unruled(set: RuleSetId, reason: impl Into<String>) -> Self {
        Refusal { set, rule: String::new(), reason: reason.into() }
    }

    /// The rule that forbids it.
    pub fn cite(&self) -> Cite {
        self.set.cite(self.rule.as_str())
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rule.is_empty() {
            return write!(f, "refused: {}", self.reason);
        }
        write!(f, "refused ({}): {}", self.cite(), self.reason)
    }
}

impl std::error::Error for Refusal {}
