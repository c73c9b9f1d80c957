//! The window's keys: [`BINDINGS`] is the one list of them. The keyboard (`toolbar`), the
//! buttons' key hints and the F1 help all read it.

use bevy::prelude::*;

/// Something a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shortcut {
    Undo,
    Save,
    SaveAs,
    Open,
    New,
    Help,
    TurnPanel,
    UnitSheet,
    Log,
    Roster,
    Start,
    Draw,
    End,
    NextUnit,
    PreviousUnit,
    Pause,
    Step,
    Slower,
    Faster,
    Trail,
    ReplayBack,
    ReplayForward,
    ReplayPreviousTurn,
    ReplayNextTurn,
    ReplayPlay,
    Compare,
    WhatIf,
}

/// A key, the modifiers it needs, its name as shown, and what it does.
pub(crate) struct Binding {
    pub shortcut: Shortcut,
    pub key: KeyCode,
    pub ctrl: bool,
    pub shift: bool,
    pub label: &'static str,
    pub what: &'static str,
}

const fn bind(shortcut: Shortcut, key: KeyCode, ctrl: bool, shift: bool, label: &'static str, what: &'static str) -> Binding {
    Binding { shortcut, key, ctrl, shift, label, what }
}

/// The window's own keys (the table's, the overlays' and the orders' are listed beside them in F1).
pub(crate) const BINDINGS: &[Binding] = &[
    bind(Shortcut::Start, KeyCode::KeyS, false, false, "S", "start the game (its set-up rolls, such as commander values)"),
    bind(Shortcut::Draw, KeyCode::KeyD, false, false, "D", "go on with the sequence when it rolls (the turn panel's main button)"),
    bind(Shortcut::End, KeyCode::End, false, false, "End", "end the activation or the player-turn (the turn panel's main button)"),
    bind(Shortcut::NextUnit, KeyCode::KeyN, false, false, "N", "next unit that acts now: select it and bring it into view"),
    bind(Shortcut::PreviousUnit, KeyCode::KeyN, false, true, "Shift+N", "the unit before"),
    bind(Shortcut::Undo, KeyCode::KeyZ, true, false, "Ctrl+Z", "undo: take back the last action (the dice come out as before)"),
    bind(Shortcut::Save, KeyCode::KeyS, true, false, "Ctrl+S", "save the game (to its file; the first time, asks where)"),
    bind(Shortcut::SaveAs, KeyCode::KeyS, true, true, "Ctrl+Shift+S", "save as… another file"),
    bind(Shortcut::Open, KeyCode::KeyO, true, false, "Ctrl+O", "open a scenario or a saved game (asks first if the game is not saved)"),
    bind(Shortcut::New, KeyCode::KeyN, true, false, "Ctrl+N", "a new game of this scenario (asks first)"),
    bind(Shortcut::Pause, KeyCode::KeyP, false, false, "P", "pause or go on with the automatic player"),
    bind(Shortcut::Step, KeyCode::Period, false, false, ".", "the automatic player takes one action (while paused)"),
    bind(Shortcut::Slower, KeyCode::BracketLeft, false, false, "[", "the automatic player slower"),
    bind(Shortcut::Faster, KeyCode::BracketRight, false, false, "]", "the automatic player faster"),
    bind(Shortcut::Trail, KeyCode::KeyT, false, false, "T", "each unit's last move drawn on the table, on or off"),
    bind(Shortcut::ReplayBack, KeyCode::PageUp, false, false, "PgUp", "in a replay: one action back"),
    bind(Shortcut::ReplayForward, KeyCode::PageDown, false, false, "PgDn", "in a replay: one action on"),
    bind(Shortcut::ReplayPreviousTurn, KeyCode::PageUp, true, false, "Ctrl+PgUp", "in a replay: to the start of this turn, or of the one before"),
    bind(Shortcut::ReplayNextTurn, KeyCode::PageDown, true, false, "Ctrl+PgDn", "in a replay: to the start of the next turn"),
    bind(Shortcut::ReplayPlay, KeyCode::Space, false, false, "Space", "in a replay: play on at the pace, or pause"),
    bind(Shortcut::Compare, KeyCode::KeyK, false, false, "K", "the selected unit's shot or charge judged by every rule set, side by side"),
    bind(Shortcut::WhatIf, KeyCode::KeyW, false, false, "W", "what if: drag any unit of either side, outside the rules (teaching); again puts everything back"),
    bind(Shortcut::Help, KeyCode::F1, false, false, "F1", "this help"),
    bind(Shortcut::TurnPanel, KeyCode::F2, false, false, "F2", "fold or unfold the turn panel (left)"),
    bind(Shortcut::UnitSheet, KeyCode::F3, false, false, "F3", "fold or unfold the unit sheet (right)"),
    bind(Shortcut::Log, KeyCode::F4, false, false, "F4", "fold or unfold the game log (bottom)"),
    bind(Shortcut::Roster, KeyCode::F5, false, false, "F5", "the roster of every unit (left panel), or back to the turn"),
];

/// The key for a shortcut, as shown on its button.
pub(crate) fn key(shortcut: Shortcut) -> &'static str {
    BINDINGS.iter().find(|b| b.shortcut == shortcut).map_or("", |b| b.label)
}
