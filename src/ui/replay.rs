//! Replays: a game watched action by action. The bar under the toolbar steps one action back or
//! on, jumps to the start of a turn or to any action (the slider), and plays on at a pace; the
//! table, the log, the dice overlay and the trail follow, since each step forward is the game's
//! own next action and each jump a replay from the start ([`Session::replay_to`]). Nothing is
//! changed until "Play on from here" makes the game as shown the game played.
//!
//! Opened with the toolbar's ⏯ Replay (the game in the window, a loaded save or the autosave),
//! `otp play SAVE --replay`, or `OTP_COMMANDS=watch`. Keys: PgUp / PgDn a step, Ctrl+PgUp /
//! Ctrl+PgDn a turn, Space play or pause ([`crate::ui::keys`]).

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::RichText;

use super::keys::{Shortcut, key};
use super::session::{Session, SessionCommand};
use super::{FreeRect, RunOptions, UiSet, root_ui};
use crate::rules::report::Report;

/// Seconds between actions when a replay plays on, unless chosen.
const DEFAULT_PACE: f32 = 1.0;
/// The quickest and slowest pace offered, seconds an action.
const PACES: (f32, f32) = (0.1, 3.0);

/// A replay's controls, from the keys or the bar.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplayControl {
    Back,
    Forward,
    PreviousTurn,
    NextTurn,
    PlayPause,
}

impl ReplayControl {
    /// The control a replay key stands for.
    pub(crate) fn of(shortcut: Shortcut) -> Option<Self> {
        Some(match shortcut {
            Shortcut::ReplayBack => ReplayControl::Back,
            Shortcut::ReplayForward => ReplayControl::Forward,
            Shortcut::ReplayPreviousTurn => ReplayControl::PreviousTurn,
            Shortcut::ReplayNextTurn => ReplayControl::NextTurn,
            Shortcut::ReplayPlay => ReplayControl::PlayPause,
            _ => return None,
        })
    }
}

/// Playing a replay on at a pace.
#[derive(Resource, Clone, Debug)]
pub(crate) struct ReplayPace {
    pub playing: bool,
    /// Seconds between actions.
    pub pace: f32,
    since: f32,
}

impl Default for ReplayPace {
    fn default() -> Self {
        ReplayPace { playing: false, pace: DEFAULT_PACE, since: 0.0 }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ReplayPace>()
        .add_message::<ReplayControl>()
        .add_message::<SessionCommand>()
        .add_message::<RequestRedraw>()
        .add_systems(PostStartup, watch_at_start)
        .add_systems(Update, (controls, play).chain())
        .add_systems(EguiPrimaryContextPass, bar.in_set(UiSet::ReplayBar));
}

/// `otp play SAVE --replay`: the game opens as a replay at its first action.
fn watch_at_start(options: Option<Res<RunOptions>>, mut commands: MessageWriter<SessionCommand>) {
    if options.is_some_and(|o| o.replay) {
        commands.write(SessionCommand::Watch);
    }
}

/// Where each turn starts: (turn, the actions taken before its first), in order.
pub(crate) fn turn_starts(reports: &[Report]) -> Vec<(u32, usize)> {
    let mut starts: Vec<(u32, usize)> = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        if starts.last().is_none_or(|&(t, _)| t != r.turn) {
            starts.push((r.turn, i));
        }
    }
    starts
}

/// Where a control takes a replay standing at `at` of `total` actions, with turns starting at
/// `starts` (`None`: playing or pausing, not a move).
pub(crate) fn target(control: ReplayControl, at: usize, total: usize, starts: &[(u32, usize)]) -> Option<usize> {
    match control {
        ReplayControl::Back => Some(at.saturating_sub(1)),
        ReplayControl::Forward => Some((at + 1).min(total)),
        ReplayControl::PreviousTurn => Some(starts.iter().rev().map(|&(_, i)| i).find(|&i| i < at).unwrap_or(0)),
        ReplayControl::NextTurn => Some(starts.iter().map(|&(_, i)| i).find(|&i| i > at).unwrap_or(total)),
        ReplayControl::PlayPause => None,
    }
}

/// The keys' and the bar's controls, turned into session commands.
fn controls(mut asked: MessageReader<ReplayControl>, session: Option<Res<Session>>, mut pace: ResMut<ReplayPace>, mut commands: MessageWriter<SessionCommand>) {
    let Some(session) = session else { return };
    let Some((at, total)) = session.replay_at() else {
        asked.clear();
        pace.playing = false;
        return;
    };
    let starts = turn_starts(session.whole().reports());
    for &control in asked.read() {
        match target(control, at, total, &starts) {
            Some(to) => {
                pace.playing = false;
                commands.write(SessionCommand::ReplayTo(to));
            }
            None => {
                pace.playing = !pace.playing && at < total;
                pace.since = 0.0;
            }
        }
    }
}

/// Playing on: the next action every `pace` seconds, a redraw asked for every frame meanwhile
/// (the window otherwise draws only on input); it stops at the end.
fn play(time: Res<Time>, session: Option<Res<Session>>, mut pace: ResMut<ReplayPace>, mut commands: MessageWriter<SessionCommand>, mut redraw: MessageWriter<RequestRedraw>) {
    let Some((at, total)) = session.as_ref().and_then(|s| s.replay_at()) else { return };
    if !pace.playing {
        return;
    }
    if at >= total {
        pace.playing = false;
        return;
    }
    redraw.write(RequestRedraw);
    pace.since += time.delta_secs();
    if pace.since >= pace.pace {
        pace.since = 0.0;
        commands.write(SessionCommand::ReplayTo(at + 1));
    }
}

const GOLD: egui::Color32 = egui::Color32::from_rgb(236, 200, 110);

/// The replay bar, under the toolbar, while a replay is shown.
fn bar(mut contexts: EguiContexts, mut free: ResMut<FreeRect>, session: Option<Res<Session>>, mut pace: ResMut<ReplayPace>, mut controls: MessageWriter<ReplayControl>, mut commands: MessageWriter<SessionCommand>) -> Result {
    let Some(session) = session else { return Ok(()) };
    let Some((at, total)) = session.replay_at() else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "replay_root", free.0);
    let reports = session.whole().reports();
    let starts = turn_starts(reports);
    let turn = reports.get(at.saturating_sub(1)).filter(|_| at > 0).map(|r| r.turn);
    let response = egui::Panel::top("replay_bar").show(&mut root, |ui| {
        ui.add_space(2.0);
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("⏪ Replay").strong().color(GOLD)).on_hover_text("Watching the game action by action: nothing changes until you play on from here");
            let step = |ui: &mut egui::Ui, text: &str, enabled: bool, tip: String| ui.add_enabled(enabled, egui::Button::new(text)).on_hover_text(tip).clicked();
            if step(ui, "⏮", at > 0, "To the set-up, before the first action".into()) {
                commands.write(SessionCommand::ReplayTo(0));
            }
            if step(ui, "⏪", at > 0, format!("To the start of this turn, or of the one before ({})", key(Shortcut::ReplayPreviousTurn))) {
                controls.write(ReplayControl::PreviousTurn);
            }
            if step(ui, "◀", at > 0, format!("One action back ({})", key(Shortcut::ReplayBack))) {
                controls.write(ReplayControl::Back);
            }
            let play_text = if pace.playing { "⏸ Pause" } else { "▶ Play" };
            if step(ui, play_text, at < total, format!("Play the game on, an action every {:.1} s ({})", pace.pace, key(Shortcut::ReplayPlay))) {
                controls.write(ReplayControl::PlayPause);
            }
            if step(ui, "▶|", at < total, format!("One action on ({})", key(Shortcut::ReplayForward))) {
                controls.write(ReplayControl::Forward);
            }
            if step(ui, "⏩", at < total, format!("To the start of the next turn ({})", key(Shortcut::ReplayNextTurn))) {
                controls.write(ReplayControl::NextTurn);
            }
            if step(ui, "⏭", at < total, "To the end of the game".into()) {
                commands.write(SessionCommand::ReplayTo(total));
            }
            ui.separator();
            let mut to = at;
            let slider = ui.add(egui::Slider::new(&mut to, 0..=total.max(1)).text(format!("of {total}"))).on_hover_text("Drag to any action: the game is replayed to it");
            if to != at && (slider.drag_stopped() || !slider.dragged()) {
                pace.playing = false;
                commands.write(SessionCommand::ReplayTo(to));
            }
            let shown_turn = turn.map_or("set-up".to_string(), |t| format!("turn {t}"));
            egui::ComboBox::from_id_salt("replay_turn").selected_text(shown_turn).show_ui(ui, |ui| {
                for &(t, i) in &starts {
                    if ui.selectable_label(turn == Some(t), format!("Turn {t} (from action {})", i + 1)).clicked() {
                        pace.playing = false;
                        commands.write(SessionCommand::ReplayTo(i));
                    }
                }
            });
            ui.add(egui::Slider::new(&mut pace.pace, PACES.0..=PACES.1).logarithmic(true).suffix(" s").max_decimals(1)).on_hover_text("Seconds between actions when playing");
            ui.separator();
            let dropped = total - at;
            if ui
                .button(RichText::new("✋ Play on from here").strong())
                .on_hover_text(format!("The game as shown becomes the game played: the {dropped} action{} after it are dropped. The saved file is left as it was.", if dropped == 1 { "" } else { "s" }))
                .clicked()
            {
                commands.write(SessionCommand::PlayOn);
            }
            if ui.button("✖ Close").on_hover_text("Leave the replay: the whole game again, at its end").clicked() {
                commands.write(SessionCommand::StopWatching);
            }
        });
        let last = match at {
            0 => "Set-up: before the first action".to_string(),
            n => reports.get(n - 1).map_or(String::new(), |r| format!("{n}. {}", r.title)),
        };
        ui.label(RichText::new(last).color(GOLD));
        ui.add_space(2.0);
    });
    free.0.min.y = free.0.min.y.max(response.response.rect.max.y);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::action::Action;
    use crate::rules::cite::RuleSetId;

    fn report(turn: u32) -> Report {
        Report::new(RuleSetId::Tiny, turn, Action::Next, "next")
    }

    #[test]
    fn turns_start_where_the_turn_number_changes() {
        let reports: Vec<Report> = [0, 1, 1, 1, 2, 2, 3].into_iter().map(report).collect();
        assert_eq!(turn_starts(&reports), vec![(0, 0), (1, 1), (2, 4), (3, 6)]);
        assert!(turn_starts(&[]).is_empty());
    }

    #[test]
    fn controls_step_and_jump_within_the_game() {
        let starts = [(0, 0), (1, 1), (2, 4), (3, 6)];
        assert_eq!(target(ReplayControl::Back, 0, 7, &starts), Some(0), "no step back before the set-up");
        assert_eq!(target(ReplayControl::Forward, 7, 7, &starts), Some(7), "no step past the end");
        assert_eq!(target(ReplayControl::Forward, 3, 7, &starts), Some(4));
        // Within turn 2 (actions 4, 5 taken from 4 on): back to its start, then to turn 1's.
        assert_eq!(target(ReplayControl::PreviousTurn, 5, 7, &starts), Some(4));
        assert_eq!(target(ReplayControl::PreviousTurn, 4, 7, &starts), Some(1));
        assert_eq!(target(ReplayControl::NextTurn, 4, 7, &starts), Some(6));
        assert_eq!(target(ReplayControl::NextTurn, 6, 7, &starts), Some(7), "past the last turn's start: the end");
        assert_eq!(target(ReplayControl::PlayPause, 3, 7, &starts), None);
    }
}
