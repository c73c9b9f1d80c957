//! The sequence of play as the window shows it (4.0–4.5): the turn, the chit cup as a track,
//! who is phasing, the buttons of the sequence (start, draw, end the activation, the morale
//! step 10.1–10.5, the rebuilds 4.4, end the turn), what each unit has done (the roster) and
//! each commander's line (rating, morale passes).

use bevy::ecs::entity::Entity;

use super::super::engine::{Action as OtpAction, Game, Phase, Removal};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Choice, SequenceStep, SequenceView, TrackItem, TrackState, UnitStatus, UnitStep, cited};
use crate::scenario::spawn::Brigade;

/// The sequence of play of a turn (4.0).
const STEPS: [(&str, &str); 4] = [("Commander values", "4.2"), ("Draw chits and activate brigades", "4.3"), ("Rebuild units in reserve", "4.4"), ("Check off the turn", "4.5")];

/// The step of an action a rule section belongs to, for the dice overlay's headings, and
/// whether it stays under the step already begun: a CV roll (9.6) is part of the reaction or
/// firefight that calls for it.
pub(super) fn step_heading(rule: &str) -> (String, bool) {
    (step_name(rule), rule.starts_with("9.6"))
}

fn step_name(rule: &str) -> String {
    let first = rule.split(|c: char| !(c.is_ascii_digit() || c == '.')).find(|s| !s.is_empty()).unwrap_or("");
    let mut parts = first.split('.').map(|x| x.parse::<u32>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    let name = match (major, minor) {
        (Some(8), Some(7)) => "Visibility in woods",
        (Some(8), Some(16)) | (Some(9), Some(11)) | (Some(10), Some(5)) => "Commander casualty",
        (Some(8), _) => "Fire",
        (Some(9), Some(0 | 1)) => "Closure",
        (Some(9), Some(2)) => "Failure to close",
        (Some(9), Some(3)) => "Firefight",
        (Some(9), Some(4)) => "Reaction",
        (Some(9), Some(5)) => "Countercharge",
        (Some(9), Some(6)) => "CV roll",
        (Some(9), Some(7)) => "Closing fire",
        (Some(9), _) => "Melee",
        (Some(6), Some(6)) => "Disordering terrain",
        (Some(6), Some(8)) => "Special move",
        (Some(6), Some(9)) => "Cavalry charge",
        (Some(6), Some(10)) => "Bonus move",
        (Some(6), Some(11 | 14)) => "Retreat",
        (Some(6), _) => "Movement",
        (Some(10), _) => "Morale",
        (Some(4), Some(4)) | (Some(11), _) => "Rebuilding",
        (Some(2), _) | (Some(4), Some(2)) => "Commander values",
        (Some(7), _) => "Artillery",
        (Some(3), _) => "Operation",
        (Some(5), _) => "Formation",
        _ => return if first.is_empty() { "Rules".into() } else { format!("OTP {first}") },
    };
    name.to_string()
}

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
        // The cup, a brigade each in chit order: its name, and its chit and commander for a tooltip.
        let track = chits
            .iter()
            .map(|(_, b)| {
                let (state, words) = if seq.phasing == Some(b.chit) {
                    (TrackState::Current, "phasing")
                } else if seq.drawn.contains(&b.chit) {
                    (TrackState::Done, "drawn this turn")
                } else {
                    (TrackState::Waiting, "in the cup")
                };
                let commander = self.commander_entity(&b.commander.name).map(|c| self.commander_line(c)).unwrap_or_default();
                TrackItem { label: b.name.clone(), detail: format!("Chit {}, {words}: {commander}", b.chit), state }
            })
            .collect();
        let phasing = self.phasing_brigade();
        let headline = match phase {
            Phase::Setup => "Roll commander values, then turn 1 (2.0, 4.2)".to_string(),
            Phase::Draw => "Draw a chit from the cup (4.3)".to_string(),
            Phase::Activation { chit } => format!("Chit {chit} is phasing: its brigade acts (4.3)"),
            Phase::Rebuild => "The cup is empty: rebuilds, then end the turn (4.4, 4.5)".to_string(),
            Phase::Over => format!("The turn limit has passed after turn {} (4.5)", seq.turn),
        };
        let deciding = phasing.as_ref().and_then(|name| brigades.iter().find(|(_, b)| &b.name == name)).map(|(si, _)| *si);
        SequenceView {
            turn: seq.turn,
            limit: seq.turn_limit,
            steps: STEPS.iter().map(|(label, rule)| SequenceStep { label: label.to_string(), cite: cited(RuleSetId::Otp, rule) }).collect(),
            current,
            headline,
            track,
            deciding,
            acting: self.phasing_units(),
            prompt: None,
            started: seq.started,
            over: seq.over,
        }
    }

    /// The units of the phasing brigade, in scenario order.
    fn phasing_units(&self) -> Vec<Entity> {
        let Some(chit) = self.sequence().phasing else { return Vec::new() };
        self.units().filter(|(_, u)| self.world().get::<Brigade>(u.brigade).is_some_and(|b| b.chit == chit)).map(|(e, _)| e).collect()
    }

    /// The sequence's own buttons: start, draw, end the activation, end the turn (first); then
    /// each phasing unit's morale step (10.1–10.5) or each unit's rebuild (4.4, 11.0), `about`
    /// the unit.
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        let own = |label: &str, a: OtpAction, rolls: bool| Choice::judged(self, label, Action::Otp(a), rolls);
        match self.phase() {
            Phase::Setup => vec![own("Start the game", OtpAction::StartGame, true)],
            Phase::Draw => vec![own("Draw a chit", OtpAction::DrawChit, true)],
            Phase::Activation { .. } => {
                let mut v = vec![own("End activation", OtpAction::EndActivation, false)];
                for e in self.phasing_units() {
                    v.extend(self.morale_choices(e));
                }
                v
            }
            Phase::Rebuild => {
                let mut v = vec![own("End the turn", OtpAction::EndTurn, false)];
                for (e, u) in self.units() {
                    // Those that may try, and those that have tried (greyed, saying so).
                    if self.check_rebuild(&u.name).is_ok() || self.unit_turn(e).rebuild_tried {
                        v.push(own("Attempt rebuild", OtpAction::AttemptRebuild { unit: u.name.clone() }, true).about(u.name.clone()));
                    }
                }
                v
            }
            Phase::Over => Vec::new(),
        }
    }

    /// 10.1–10.5: a marked unit rolls to remove its marker, or a commander spends a pass on it;
    /// after the roll, before it acts, a pass buys one re-roll.
    fn morale_choices(&self, e: Entity) -> Vec<Choice> {
        let u = self.unit(e);
        let t = self.unit_turn(e);
        let name = u.name.clone();
        let removal = |label: String, how: Removal, rolls: bool| Choice::judged(self, label, Action::Otp(OtpAction::RemoveMarker { unit: name.clone(), how }), rolls).about(name.clone());
        // Commanders who might spend a pass on it: its side's overall commander and its brigade's.
        let commanders: Vec<(Entity, String)> =
            self.commanders().filter(|(_, c)| c.side == u.side && c.brigade.is_none_or(|b| b == u.brigade)).map(|(c, cmd)| (c, cmd.name.clone())).collect();
        let mut v = Vec::new();
        match &t.morale {
            None if self.has_marker(e) => {
                v.push(removal("Roll to remove the marker".into(), Removal::Roll, true));
                for (c, cname) in &commanders {
                    v.push(removal(format!("Use a pass ({cname}, {} left)", self.passes_left(*c)), Removal::Pass { commander: cname.clone() }, false));
                }
            }
            Some(roll) if !roll.rerolled && t.done.is_empty() => {
                for (c, cname) in commanders.iter().filter(|(c, _)| self.passes_left(*c) > 0) {
                    v.push(removal(format!("Re-roll with a pass ({cname}, {} left)", self.passes_left(*c)), Removal::RerollWithPass { commander: cname.clone() }, true));
                }
            }
            _ => {}
        }
        v
    }

    pub(super) fn unit_step_now(&self) -> Option<UnitStep> {
        match self.phase() {
            Phase::Activation { .. } => Some(UnitStep { heading: "Morale markers (10.1–10.5)".into(), none: String::new() }),
            Phase::Rebuild => Some(UnitStep { heading: "Rebuilding (4.4, 11.0)".into(), none: "No unit in reserve status may rebuild this turn.".into() }),
            _ => None,
        }
    }

    /// What a unit has done this turn, in the rules' words (3.1–3.3, 6.8, 10.2).
    pub(super) fn status_of(&self, e: Entity) -> UnitStatus {
        let t = self.unit_turn(e);
        if t.off_table {
            return UnitStatus { parts: vec!["off the table".into()], marked: false, gone: true };
        }
        let marked = self.has_marker(e);
        let mut parts: Vec<String> = Vec::new();
        if marked {
            parts.push(match &t.morale {
                Some(r) => format!("Morale Marker kept ({})", r.result),
                None => "Morale Marker: remove it first (10.2)".into(),
            });
        } else if let Some(r) = &t.morale {
            parts.push(format!("rolled {}{}", r.result, if r.rerolled { " on a re-roll" } else { "" }));
        }
        if let Some(r) = t.restriction {
            parts.push(format!("limited: {r}"));
        }
        if t.special_move {
            parts.push("special move".into());
        }
        if !t.done.is_empty() {
            parts.push(t.done.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "));
        }
        if parts.is_empty() {
            parts.push("no operation yet".into());
        }
        UnitStatus { parts, marked, gone: false }
    }

    /// A commander, his rating and the morale passes he has left (2.0, 10.4).
    pub(super) fn commander_line(&self, c: Entity) -> String {
        let cmd = self.commander(c);
        match cmd.rating {
            Some(r) => {
                let left = self.passes_left(c);
                format!("{} — {r:?}, {left} pass{} left", cmd.name, if left == 1 { "" } else { "es" })
            }
            None => format!("{} — not yet rolled", cmd.name),
        }
    }

    /// Drawing a chit takes no decision from anyone (4.3); starting the game and ending the turn
    /// close a step a player may still act in.
    pub(super) fn next_is_mechanical_now(&self) -> bool {
        self.phase() == Phase::Draw
    }
}

#[cfg(test)]
mod tests {
    // The dice overlay heads each step of a report by its OTP section.
    #[test]
    fn report_steps_are_named_by_section() {
        let name = |r: &str| super::step_heading(r).0;
        assert_eq!(name("8.11"), "Fire");
        assert_eq!(name("8.16"), "Commander casualty");
        assert_eq!(name("9.12"), "Melee");
        assert_eq!(name("3.1 2"), "Operation");
        assert_eq!(name("10.2"), "Morale");
        assert_eq!(super::step_heading("9.6"), ("CV roll".to_string(), true), "9.6 stays in the step that calls for it");
        assert_eq!(name("14.1"), "OTP 14.1");
    }
}
