//! Where a rule or a number comes from: the rule set ([`RuleSetId`]), a section of its text
//! ([`Cite`]: "OTP 8.3", "QK12", "SG23"), and a chart entry's [`Source`] (the text, or our
//! reconstruction of a lost chart). Every refusal, modifier, die, chart cell and report line
//! carries one, and tests cite the same words.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The rule sets in `shared/seeds`. Scenarios and saves name one (`rules: Otp`); a file that
/// names none is On to Philadelphia, so every file written before there was a choice still reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RuleSetId {
    /// *On to Philadelphia* (seed 000): AWI, chits, fire and melee charts.
    #[default]
    Otp,
    /// Simpson/Glidden *Revolution* (seed 001).
    Revolution,
    /// The orders-based ACW sheet (seed 002).
    AcwOrders,
    /// The MWAN #101 quick ACW rules (seed 003).
    AcwQuick,
    /// James Purky's AWI rules (seed 004).
    Purky,
    /// A deliberately tiny rule set that lives in the tests: proof that the window, the CLI and
    /// the saves speak to the engine interface and not to one rule set.
    Tiny,
}

impl RuleSetId {
    /// Every rule set, in seed order.
    pub const ALL: [RuleSetId; 6] = [RuleSetId::Otp, RuleSetId::Revolution, RuleSetId::AcwOrders, RuleSetId::AcwQuick, RuleSetId::Purky, RuleSetId::Tiny];

    /// The prefix of its citations: "OTP 8.3" (its text numbers its sections), "QK12" (IDs from
    /// `shared/design/rulesets.md`, whose texts number nothing).
    pub fn prefix(self) -> &'static str {
        match self {
            RuleSetId::Otp => "OTP ",
            RuleSetId::Revolution => "SG",
            RuleSetId::AcwOrders => "OR",
            RuleSetId::AcwQuick => "QK",
            RuleSetId::Purky => "PK",
            RuleSetId::Tiny => "TINY ",
        }
    }

    /// Its name as a player reads it.
    pub fn title(self) -> &'static str {
        match self {
            RuleSetId::Otp => "On to Philadelphia",
            RuleSetId::Revolution => "Revolution (Simpson/Glidden)",
            RuleSetId::AcwOrders => "ACW orders rules",
            RuleSetId::AcwQuick => "MWAN #101 quick ACW rules",
            RuleSetId::Purky => "Purky's AWI rules",
            RuleSetId::Tiny => "Tiny test rules",
        }
    }

    /// Its name on the command line (`--rules otp`) and in messages.
    pub fn key(self) -> &'static str {
        match self {
            RuleSetId::Otp => "otp",
            RuleSetId::Revolution => "revolution",
            RuleSetId::AcwOrders => "acw-orders",
            RuleSetId::AcwQuick => "acw-quick",
            RuleSetId::Purky => "purky",
            RuleSetId::Tiny => "tiny",
        }
    }

    /// The rule set of that command-line name.
    pub fn from_key(key: &str) -> Option<RuleSetId> {
        RuleSetId::ALL.into_iter().find(|r| r.key().eq_ignore_ascii_case(key))
    }

    /// Serde's `skip_serializing_if`: files and JSON of On to Philadelphia read as they always did.
    pub fn is_otp(&self) -> bool {
        *self == RuleSetId::Otp
    }

    /// A section of this rule set's text.
    pub fn cite(self, section: impl Into<String>) -> Cite {
        Cite { set: self, section: section.into() }
    }
}

/// The rule sets this program plays; `rules::registry` opens and loads each of them.
pub const PLAYABLE: [RuleSetId; 6] = [RuleSetId::Otp, RuleSetId::Revolution, RuleSetId::AcwOrders, RuleSetId::AcwQuick, RuleSetId::Purky, RuleSetId::Tiny];

impl RuleSetId {
    /// Why this rule set cannot be played by this program yet; `Ok` for the ones it plays.
    pub fn playable(self) -> Result<(), String> {
        if PLAYABLE.contains(&self) {
            return Ok(());
        }
        let names: Vec<String> = PLAYABLE.iter().map(|r| format!("{r:?} ({})", r.title())).collect();
        let (last, rest) = names.split_last().expect("OTP is always playable");
        let list = if rest.is_empty() { last.clone() } else { format!("{} and {last}", rest.join(", ")) };
        Err(format!("{self:?} ({}) cannot be played yet: this otp plays {list}", self.title()))
    }
}

impl fmt::Display for RuleSetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// A section of a rule set's text: displayed "OTP 8.3", "QK12".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cite {
    pub set: RuleSetId,
    /// The section as the set numbers it ("8.3", "12"); empty for a check that is not a rule of
    /// any game (a number no table allows).
    pub section: String,
}

impl fmt::Display for Cite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.set.prefix(), self.section)
    }
}

/// Where a number comes from.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub enum Source {
    /// Fixed by the rules text: `section` cites it ("8.3", "9.6, 9.10", "Expanded Table …").
    Text { section: String },
    /// Chosen by the project because the printed chart is lost: `why` says on what grounds.
    Reconstructed { why: String },
}

impl Source {
    pub fn is_text(&self) -> bool {
        matches!(self, Source::Text { .. })
    }
    pub fn is_reconstructed(&self) -> bool {
        !self.is_text()
    }
    /// `OTP 8.3` or `reconstructed: <why>`, for a number of that rule set's charts.
    pub fn cited(&self, set: RuleSetId) -> String {
        match self {
            Source::Text { section } => set.cite(section.as_str()).to_string(),
            Source::Reconstructed { why } => format!("reconstructed: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_read_as_each_text_numbers_its_rules() {
        assert_eq!(RuleSetId::Otp.cite("8.3").to_string(), "OTP 8.3");
        assert_eq!(RuleSetId::AcwQuick.cite("12").to_string(), "QK12");
        assert_eq!(RuleSetId::Purky.cite("20").to_string(), "PK20");
        assert_eq!(Source::Text { section: "9.6".into() }.cited(RuleSetId::Otp), "OTP 9.6");
        assert_eq!(Source::Reconstructed { why: "lost".into() }.cited(RuleSetId::Revolution), "reconstructed: lost");
    }

    #[test]
    fn every_rule_set_has_a_distinct_key_that_reads_back() {
        for r in RuleSetId::ALL {
            assert_eq!(RuleSetId::from_key(r.key()), Some(r));
            assert_eq!(RuleSetId::ALL.iter().filter(|o| o.key() == r.key() || o.prefix() == r.prefix()).count(), 1);
        }
        assert_eq!(RuleSetId::from_key("OTP"), Some(RuleSetId::Otp));
        assert_eq!(RuleSetId::from_key("chess"), None);
    }
}
