//! The sequence of play as the window shows it (4.0–4.5): the turn, the chit cup as a track,
//! who is phasing, and the buttons of the sequence.

use super::super::engine::{Action as OtpAction, Game, Phase};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Choice, SequenceStep, SequenceView, TrackItem, TrackState, cited};

/// The sequence of play of a turn (4.0).
const STEPS: [(&str, &str); 4] = [("Commander values", "4.2"), ("Draw chits and activate brigades", "4.3"), ("Rebuild units in reserve", "4.4"), ("Check off the turn", "4.5")];

impl Game {
    pub(super) fn sequence_view(&self) -> SequenceView {
        let seq = self.sequence();
        let phase = self.phase();
        let current = match phase {
            Phase::Setup => Some(0),
            Phase::Draw | Phase::Activation { .. } => Some(1),
            Phase::Rebuild => Some(2),
            Phase::Over => None,
        };
        let brigades: Vec<_> = self.scenario().sides.iter().enumerate().flat_map(|(si, s)| s.brigades.iter().map(move |b| (si, b))).collect();
        let mut chits: Vec<(usize, &crate::scenario::model::Brigade)> = brigades.clone();
        chits.sort_by_key(|(_, b)| b.chit);
        let track = chits
            .iter()
            .map(|(si, b)| {
                let state = if seq.phasing == Some(b.chit) {
                    TrackState::Current
                } else if seq.drawn.contains(&b.chit) {
                    TrackState::Done
                } else {
                    TrackState::Waiting
                };
                let side = &self.scenario().sides[*si].name;
                TrackItem { label: format!("{}", b.chit), detail: format!("chit {}: {} ({side}), {}", b.chit, b.name, b.commander.name), state }
            })
            .collect();
        let phasing = self.phasing_brigade();
        let headline = match phase {
            Phase::Setup => "Set-up: start the game to roll commander values (4.2)".to_string(),
            Phase::Draw => format!("Turn {}: draw a chit (4.3)", seq.turn),
            Phase::Activation { chit } => format!("Turn {}: {} (chit {chit}) is phasing (4.3)", seq.turn, phasing.clone().unwrap_or_default()),
            Phase::Rebuild => format!("Turn {}: the cup is empty: rebuilds, then end the turn (4.4, 4.5)", seq.turn),
            Phase::Over => "The game is over (4.5)".to_string(),
        };
        let deciding = phasing.as_ref().and_then(|name| brigades.iter().find(|(_, b)| &b.name == name)).map(|(si, _)| *si);
        let acting = match phasing {
            Some(name) => self.units().filter(|(_, u)| self.world().get::<crate::scenario::spawn::Brigade>(u.brigade).is_some_and(|b| b.name == name)).map(|(e, _)| e).collect(),
            None => Vec::new(),
        };
        SequenceView {
            turn: seq.turn,
            limit: seq.turn_limit,
            steps: STEPS.iter().map(|(label, rule)| SequenceStep { label: label.to_string(), cite: cited(RuleSetId::Otp, rule) }).collect(),
            current,
            headline,
            track,
            deciding,
            acting,
            prompt: None,
            started: seq.started,
            over: seq.over,
        }
    }

    /// The sequence's own buttons: start, draw, end the activation, end the turn.
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        let own = |label: &str, a: OtpAction, rolls: bool| Choice::judged(self, label, Action::Otp(a), rolls);
        match self.phase() {
            Phase::Setup => vec![own("Start: roll commander values", OtpAction::StartGame, true)],
            Phase::Draw => vec![own("Draw a chit", OtpAction::DrawChit, true)],
            Phase::Activation { .. } => vec![own("End the activation", OtpAction::EndActivation, false)],
            Phase::Rebuild => vec![own("End the turn", OtpAction::EndTurn, false)],
            Phase::Over => Vec::new(),
        }
    }
}
