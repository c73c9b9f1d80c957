//! MELEE (OTP 9.0–9.14, with 5.1, 5.3, 5.4, 7.2, 7.5): the numbers of a charge, no dice thrown.
//!
//! - [`closure`]: the closing roll (9.1): automatic on a flank or rear, otherwise D10 plus the
//!   chart's modifiers at or under the CV, with its exact chance; [`countercharge`] (9.5) is the
//!   same check; refusals carry their rule (7.2 artillery, 5.1/9.1 a column without a leader).
//! - [`cv_roll`]: the CV rolls of firefights and reactions to closure (9.6).
//! - [`assess`]: each unit's melee value (9.8–9.14): figures in combat × modified CV ×
//!   multipliers, every factor with its rule.
//! - [`outcomes`]: the exact chance of every MELEE COMBAT row once both sides add a D10 (9.8).
//!
//! The geometry (where the attacker ends, what it crossed) is `table::contact`'s. Everything takes
//! a [`MeleeTable`]: the [`FireTable`](crate::rules::otp::fire::FireTable) (markers, attached
//! guns and commanders, cover; it derefs to it) plus what fire never needed: each unit sheet's CV
//! and bayonets (4.2, 9.12) and the attached leaders' ratings (9.6, 9.10). `assess` judges the
//! table as it stands, so put the attacker in contact first (`MeleeTable::with_stands`).

mod assess;
mod closure;
mod outcomes;
mod table;

pub use assess::{ChargeFacts, CommanderRisk, Melee, MeleeSide, UnitValue, assess};
pub use closure::{ClosureCheck, CvRoll, RollFacts, closure, countercharge, cv_roll};
pub use outcomes::{OutcomeRow, Outcomes, Winner, outcomes, retreat_moves};
pub use table::{Leader, MeleeTable, Sheet};

use serde::{Serialize, Serializer};

use crate::rules::otp::charts::Source;

/// One die-roll or CV modifier as applied: `{ rule: "9.12", name: "uphill_or_ford", value: 1, … }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Modifier {
    /// The section that gives it.
    pub rule: String,
    /// Its name in snake case.
    pub name: String,
    pub value: i32,
    /// The chart's description.
    pub label: String,
    /// What on the table gave it (`Long Ridge`, `Exceptional leader Greene`…), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where the number comes from: the text, or reconstructed with a reason.
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
}

/// One melee CV multiplier as applied (9.14).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Multiplier {
    pub rule: String,
    pub name: String,
    pub factor: f32,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
}

fn as_text<S: Serializer>(source: &Source, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&source.cited(crate::rules::cite::RuleSetId::Otp))
}

/// A charge the rules forbid: (rule, reason), nothing rolled.
pub type Refused = (String, String);

fn refused(rule: &str, reason: impl Into<String>) -> Refused {
    (rule.to_string(), reason.into())
}

#[cfg(test)]
mod tests;
