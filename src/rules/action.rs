//! The orders every rule set understands, and each rule set's own. The window, the automatic
//! players and the tests speak the common words (move, form, fire, charge, a leader's move,
//! next); an engine answers in its own words where its rules have more to say (OTP's chits,
//! morale passes, special moves). A saved game stores each engine's own words, so a save reads
//! like its rule set's log of orders.

use std::fmt;

use bevy::math::Vec2;
use serde::{Deserialize, Serialize};

use super::cite::RuleSetId;
use super::otp;
use crate::scenario::model::Formation;
use crate::table::movement::MoveStep;

/// One order or step of the sequence of play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// Move a unit by steps (forward, wheel, side step, path…), measured on the table.
    Move { unit: String, steps: Vec<MoveStep> },
    ChangeFormation { unit: String, formation: Formation },
    /// Fire at an enemy unit with the rule set's default choices.
    Fire { unit: String, target: String },
    /// Charge an enemy unit with the rule set's default choices.
    Charge { unit: String, target: String },
    /// A leader (commander, brigadier) moves to a point.
    MoveLeader { leader: String, to: Vec2 },
    /// A leader joins a unit.
    JoinUnit { leader: String, unit: String },
    /// Go on: end the activation, the step or the player-turn, as the sequence stands.
    Next,
    /// Answer the question a rule asked after a roll (a re-roll, an evade, rout or stand):
    /// option `option` of prompt `prompt`.
    Answer { prompt: u32, option: u32 },
    /// An order of the ACW orders sheet in its own words (writing an order, OR1).
    AcwOrders(super::acw_orders::OrAction),
    /// An order of *Revolution* in its own words (a withdrawal straight back, SG13).
    Revolution(super::revolution::SgAction),
    /// An order of On to Philadelphia, in its own words. Untagged, so a report's JSON and a
    /// save read as they did before there was more than one rule set.
    #[serde(untagged)]
    Otp(otp::engine::action::Action),
}

impl Action {
    /// The rule set whose words these are; `None` for the common words.
    pub fn rules(&self) -> Option<RuleSetId> {
        match self {
            Action::Otp(_) => Some(RuleSetId::Otp),
            Action::AcwOrders(_) => Some(RuleSetId::AcwOrders),
            Action::Revolution(_) => Some(RuleSetId::Revolution),
            _ => None,
        }
    }

    /// The unit the order is for, if it is for one.
    pub fn unit(&self) -> Option<&str> {
        match self {
            Action::Move { unit, .. } | Action::ChangeFormation { unit, .. } | Action::Fire { unit, .. } | Action::Charge { unit, .. } => Some(unit),
            Action::Otp(a) => a.unit(),
            Action::AcwOrders(a) => Some(a.unit()),
            Action::Revolution(super::revolution::SgAction::Withdraw { unit, .. }) => Some(unit),
            _ => None,
        }
    }

    /// The units the order names: the one acting first, then its target (the log selects the
    /// first and centres the view on both).
    pub fn units_named(&self) -> Vec<&str> {
        match self {
            Action::Fire { unit, target } | Action::Charge { unit, target } => vec![unit, target],
            Action::Move { unit, .. } | Action::ChangeFormation { unit, .. } | Action::JoinUnit { unit, .. } => vec![unit],
            Action::Otp(a) => otp_units_named(a),
            Action::AcwOrders(a) => a.units_named(),
            Action::Revolution(super::revolution::SgAction::Withdraw { unit, .. }) => vec![unit],
            _ => vec![],
        }
    }

    /// The point on the table a leader is sent to, if the order sends one.
    pub fn leader_to(&self) -> Option<Vec2> {
        match self {
            Action::MoveLeader { to, .. } | Action::Otp(otp::engine::action::Action::MoveCommander { to, .. }) => Some(*to),
            _ => None,
        }
    }

    /// On to Philadelphia's words for it, if they are.
    pub fn as_otp(&self) -> Option<&otp::engine::action::Action> {
        match self {
            Action::Otp(a) => Some(a),
            _ => None,
        }
    }
}

/// The units an order of On to Philadelphia names: the one acting first (the unit a commander
/// joins), then its target (the unit a gun is attached to).
pub(crate) fn otp_units_named(a: &otp::engine::action::Action) -> Vec<&str> {
    use otp::engine::action::Action as Otp;
    let acting = match a {
        Otp::JoinUnit { unit, .. } => Some(unit.as_str()),
        _ => a.unit(),
    };
    let target = match a {
        Otp::Fire { target, .. } | Otp::Charge { target, .. } | Otp::ChargeWith { target, .. } | Otp::Attach { unit: target, .. } => Some(target.as_str()),
        _ => None,
    };
    acting.into_iter().chain(target).collect()
}

impl From<otp::engine::action::Action> for Action {
    fn from(a: otp::engine::action::Action) -> Action {
        Action::Otp(a)
    }
}

impl From<&otp::engine::action::Action> for Action {
    fn from(a: &otp::engine::action::Action) -> Action {
        Action::Otp(a.clone())
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Move { unit, steps } => write!(f, "move {unit}: {}", crate::table::words::steps(steps)),
            Action::ChangeFormation { unit, formation } => write!(f, "{unit} forms {}", crate::table::words::formation(*formation)),
            Action::Fire { unit, target } => write!(f, "{unit} fires at {target}"),
            Action::Charge { unit, target } => write!(f, "{unit} charges {target}"),
            Action::MoveLeader { leader, to } => write!(f, "{leader} moves to ({:.2}, {:.2})", to.x, to.y),
            Action::JoinUnit { leader, unit } => write!(f, "{leader} joins {unit}"),
            Action::Next => write!(f, "go on"),
            Action::Answer { prompt, option } => write!(f, "answer {option} to question {prompt}"),
            Action::Otp(a) => a.fmt(f),
            Action::AcwOrders(a) => a.fmt(f),
            Action::Revolution(a) => a.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use otp::engine::action::Action as Otp;

    // The log selects the first unit an order names and centres on all of them; a leader's
    // move centres on where he went.
    #[test]
    fn orders_name_their_units_acting_first() {
        let own = |a: Otp| Action::Otp(a);
        assert_eq!(own(Otp::fire("23rd Foot", "1st Maryland")).units_named(), vec!["23rd Foot", "1st Maryland"]);
        assert_eq!(own(Otp::Attach { gun: "Royal Artillery".into(), unit: "23rd Foot".into() }).units_named(), vec!["Royal Artillery", "23rd Foot"]);
        assert_eq!(own(Otp::JoinUnit { commander: "Lt. Col. Webster".into(), unit: "33rd Foot".into() }).units_named(), vec!["33rd Foot"]);
        assert_eq!(own(Otp::AttemptRebuild { unit: "33rd Foot".into() }).units_named(), vec!["33rd Foot"]);
        assert!(own(Otp::EndTurn).units_named().is_empty());
        assert_eq!(Action::Charge { unit: "A".into(), target: "B".into() }.units_named(), vec!["A", "B"]);
        assert!(Action::Next.units_named().is_empty());
        let to = Vec2::new(3.0, 4.0);
        assert_eq!(own(Otp::MoveCommander { commander: "Earl Cornwallis".into(), to }).leader_to(), Some(to));
        assert_eq!(Action::MoveLeader { leader: "Earl Cornwallis".into(), to }.leader_to(), Some(to));
        assert_eq!(Action::Next.leader_to(), None);
    }
}
