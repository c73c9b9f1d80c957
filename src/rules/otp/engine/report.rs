//! The common report in On to Philadelphia's words: refusals and reports under its sections.

pub use crate::rules::cite::RuleSetId;
pub use crate::rules::report::*;

impl Refusal {
    /// Refused under section `rule` of On to Philadelphia (empty: by no rule of the game, a
    /// number no table allows).
    pub fn otp(rule: &str, reason: impl Into<String>) -> Refusal {
        if rule.is_empty() { Refusal::unruled(RuleSetId::Otp, reason) } else { Refusal::by(RuleSetId::Otp.cite(rule), reason) }
    }
}

impl Report {
    /// The report of an action of On to Philadelphia.
    pub fn otp(turn: u32, action: &super::Action, title: impl Into<String>) -> Report {
        Report::new(RuleSetId::Otp, turn, action, title)
    }
}

/// `Err(Refusal)` under section `rule` of On to Philadelphia.
pub fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::otp(rule, reason))
}
