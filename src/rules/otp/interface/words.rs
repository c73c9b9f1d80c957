//! What the window explains in On to Philadelphia's words and sections: the legend, F1's turn,
//! the keys that go on with the chit cup, and the overlays' tags (`Engine::words`).

use bevy::ecs::entity::Entity;

use super::super::engine::Game;
use crate::rules::engine::{Topic, plain_words};
use crate::scenario::model::Formation;
use crate::scenario::spawn::{Brigade, Unit};

/// How a turn goes (4.2–4.5): the heading, then one line a step.
const TURN: &str = "How a turn goes (OTP 4.2–4.5)
Set-up: commanders' values are rolled and turn 1 begins (4.2).
Draw a chit from the cup: its brigade is phasing (4.3).
The phasing brigade first tries to remove its units' Morale Markers (10.2–10.4),
then each unit performs its permitted operation: move, fire, charge… in the order the player likes (3.x, 4.3).
End the activation: the chit is set aside and the next is drawn, until the cup is empty (4.3).
Reserve units may try to rebuild (4.4); then check off the turn and refill the cup (4.5).";

pub(super) fn words(topic: Topic) -> Option<String> {
    let words = match topic {
        Topic::MoraleBadge => "Morale Marker (10.1): the yellow “M” badge behind the unit",
        Topic::ActingGlow => "the phasing brigade: a glow in its side's colour round each unit (4.3)",
        Topic::ActingHeading => "Phasing brigade",
        Topic::HowATurnGoes => TURN,
        Topic::DrawKey => "draw the next chit from the cup (4.3)",
        Topic::EndKey => "end the activation (4.3); in the rebuild step, end the turn (4.5)",
        Topic::ArcsHeading => "Arcs (A) — 8.1, 8.3, 8.4",
        Topic::GunBand(0) => "short range (canister allowed, 8.4)",
        Topic::GunBand(2) => "long range (partial inches round up)",
        Topic::SmallArmsArc => "small arms' firing arc and range (8.1, 8.3)",
        Topic::SmallArmsNote => "Dashed: close range, 2\" (8.3). A skirmish line fires stand by stand: darker where arcs overlap.",
        Topic::CannotFire(Formation::Limbered) => "limbered guns cannot fire (8.13)",
        Topic::CannotFire(_) => "a march column cannot fire (8.13)",
        Topic::OwnArcs { skirmish: true } => "skirmish line: each stand its own 45° arc (5.3, 8.1)",
        Topic::OwnArcs { skirmish: false } => "bent line: each stand its own 45° arc (8.1)",
        Topic::FlanksHeading => "Enfilade & flanks (E) — 8.11, 9.1",
        Topic::FrontLine => "the enfilade line drawn straight out from the front (8.11; dashed)",
        Topic::FlankZone => "flank: enfilade fire; flank attack ×2 (8.11, 9.1; hatched)",
        Topic::RearZone => "rear: directly behind; attack ×3 (9.1; cross-hatched)",
        Topic::FlankTag => "stand here and you enfilade me (8.11)\nflank attack from here: no closing roll, ×2 (9.1)",
        Topic::FlankTagShort => "enfilade (8.11) · flank attack (9.1)",
        Topic::RearTag => "rear: attack ×3, no closing roll (9.1)\nand enfilade (8.11)",
        Topic::FrontTag => "in front: no enfilade; closing needs a roll (9.1)",
        Topic::LineTag => "front line drawn straight out (8.11)",
        Topic::EnemyInZone => "9.1, 8.11",
        Topic::SightHeading => "Line of sight (L) — 8.7, 8.8, 8.9",
        Topic::Ball => "firing ball: over lower units (8.9)",
        Topic::SightClear => "line of sight clear (8.7)",
        Topic::SightBlocked => "line of sight blocked (8.7–8.9)",
        Topic::SightWoods => "woods on the line (1\" or more: visibility roll, 8.7, 8.8)",
        Topic::MoveHeading => "Movement (M) — 6.1–6.7",
        Topic::MoveArea => "where the unit may move (6.x)",
        Topic::DisorderRoll => "disorder roll (6.6)",
        Topic::D10Face => "D10: 0–9 (1.0)",
        Topic::LeaderClick => "in a game: pick him up; then click the table to ride there, or a unit of his command to join it (6.12)",
        other => return plain_words(other),
    };
    Some(words.to_string())
}

impl Game {
    /// A brigade's chit (4.3).
    pub(super) fn chit_tag(&self, brigade: Entity) -> Option<String> {
        self.world().get::<Brigade>(brigade).map(|b| format!("chit {}", b.chit))
    }

    /// The unit's type and combat value (2.0, 4.2).
    pub(super) fn type_and_cv(&self, unit: Entity) -> Option<String> {
        let u = self.world().get::<Unit>(unit)?;
        let kind = self.sheet_rows(unit).into_iter().find(|r| r.label == "Type").map(|r| r.value);
        Some(match kind {
            Some(t) => format!("{t} · CV {}", u.cv),
            None => format!("CV {}", u.cv),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The window's words for OTP cite OTP's sections; a topic OTP lacks falls back to plain words.
    #[test]
    fn topics_cite_their_sections() {
        assert!(words(Topic::MoraleBadge).unwrap().contains("(10.1)"));
        assert!(words(Topic::FlankTag).unwrap().contains("(8.11)"));
        assert!(words(Topic::HowATurnGoes).unwrap().lines().count() == 7, "a heading and six steps (4.2–4.5)");
        assert_eq!(words(Topic::GunBand(1)), plain_words(Topic::GunBand(1)));
    }
}
