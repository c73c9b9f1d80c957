//! The top bar: the scenario's name, Open (browse, recent files, scenarios near at hand), Save,
//! Undo, New game, Fit, the ruler toggle, the teaching overlays' toggles, the View menu (panels,
//! roster, trail, text size), where the game is in the turn, and help; the F1 help window
//! (shortcuts, the legend of colours and badges, how a turn goes); and the window's keys.
//!
//! Keys are read from the keyboard's messages in the order they came, so a quick Ctrl+S pressed
//! and released between two frames is still a Ctrl+S (a redraw-on-input window may draw its
//! next frame only after both keys are up). [`BINDINGS`] is the one list of them: the keyboard,
//! the buttons' key hints and F1 all read it.

use bevy::ecs::system::SystemParam;
use bevy::input::ButtonState;
use bevy::input::keyboard::{KeyboardFocusLost, KeyboardInput};
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::RichText;

use super::camera::View;
pub(crate) use super::keys::{BINDINGS, Binding, Shortcut, key};
use super::file_menu::{self, OpenDialog, SaveDialog};
use super::overlays::{self, Overlays};
use super::camera::CentreOn;
use super::compare::Compare;
use super::replay::ReplayControl;
use super::roster;
use super::ruler::Ruler;
use super::session::{Order, Session, SessionCommand};
use super::settings::{Fold, LeftTab, Settings, TEXT_SIZES};
use super::solo::SoloSettings;
use super::table_view::Selection;
use super::{FreeRect, UiSet, root_ui, turn_panel};
use crate::rules::engine::{Topic, TrackState, plain_words};
use crate::scenario::spawn::{Battlefield, SIDE_COLOURS, SideInfo};
use super::overlays::scene::colours;

#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct Help {
    pub open: bool,
    /// Open on the legend, the shortcuts folded (`OTP_HELP=legend`, for screenshots).
    pub legend_first: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Help>()
        .init_resource::<ConfirmNew>()
        .add_message::<ReplayControl>()
        .add_systems(EguiPrimaryContextPass, (toolbar.in_set(UiSet::Toolbar).run_if(super::editor::not_editing), (help_window.run_if(super::fonts_ready), confirm_new_window).in_set(UiSet::Windows)))
        .add_systems(Update, keyboard.run_if(super::editor::not_editing));
}

/// "Start a new game?" is showing (a new game throws the current one away; the autosave too).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct ConfirmNew(pub bool);

/// The modifier keys as the keyboard's messages left them.
#[derive(Default)]
pub(crate) struct Modifiers {
    ctrl: [bool; 2],
    shift: [bool; 2],
    alt: [bool; 2],
}

impl Modifiers {
    fn track(&mut self, key: KeyCode, down: bool) {
        let slot = match key {
            KeyCode::ControlLeft => &mut self.ctrl[0],
            KeyCode::ControlRight => &mut self.ctrl[1],
            KeyCode::ShiftLeft => &mut self.shift[0],
            KeyCode::ShiftRight => &mut self.shift[1],
            KeyCode::AltLeft => &mut self.alt[0],
            KeyCode::AltRight => &mut self.alt[1],
            _ => return,
        };
        *slot = down;
    }

    /// The binding for `key` pressed with the modifiers as they are now.
    fn binding(&self, key: KeyCode) -> Option<&'static Binding> {
        let (ctrl, shift, alt) = (self.ctrl.contains(&true), self.shift.contains(&true), self.alt.contains(&true));
        (!alt).then(|| BINDINGS.iter().find(|b| b.key == key && b.ctrl == ctrl && b.shift == shift)).flatten()
    }
}

/// What the window's keys act on.
#[derive(SystemParam)]
pub(crate) struct Shell<'w> {
    help: ResMut<'w, Help>,
    session: Option<Res<'w, Session>>,
    commands: MessageWriter<'w, SessionCommand>,
    orders: MessageWriter<'w, Order>,
    save: ResMut<'w, SaveDialog>,
    open: ResMut<'w, OpenDialog>,
    confirm: ResMut<'w, ConfirmNew>,
    settings: ResMut<'w, Settings>,
    solo: ResMut<'w, SoloSettings>,
    selection: ResMut<'w, Selection>,
    centre: MessageWriter<'w, CentreOn>,
    replay: MessageWriter<'w, ReplayControl>,
    compare: ResMut<'w, Compare>,
}

impl Shell<'_> {
    fn act(&mut self, shortcut: Shortcut) {
        match shortcut {
            Shortcut::Help => self.help.open = !self.help.open,
            Shortcut::Open => self.open.open = true,
            Shortcut::New => self.confirm.0 = true,
            Shortcut::TurnPanel => self.settings.toggle(Fold::Turn),
            Shortcut::UnitSheet => self.settings.toggle(Fold::Sheet),
            Shortcut::Log => self.settings.toggle(Fold::Log),
            Shortcut::Roster => {
                let s = &mut *self.settings;
                s.left_tab = if s.left_tab == LeftTab::Roster && s.turn_panel { LeftTab::Turn } else { LeftTab::Roster };
                s.turn_panel = true;
            }
            Shortcut::Trail => self.settings.trail = !self.settings.trail,
            // The replay's keys: the one list of them is `ReplayControl::of`.
            s if let Some(control) = ReplayControl::of(s) => {
                self.replay.write(control);
            }
            Shortcut::Compare => self.compare.open = !self.compare.open,
            Shortcut::Pause => self.solo.paused = !self.solo.paused,
            Shortcut::Step => self.solo.step(),
            Shortcut::Slower => self.solo.pace = (self.solo.pace * 1.5).min(super::solo::PACES.1),
            Shortcut::Faster => self.solo.pace = (self.solo.pace / 1.5).max(super::solo::PACES.0),
            _ => self.game_key(shortcut),
        }
    }

    /// The keys that need a game.
    fn game_key(&mut self, shortcut: Shortcut) {
        let Some(session) = &self.session else { return };
        match shortcut {
            Shortcut::WhatIf => {
                self.commands.write(if session.in_what_if() { SessionCommand::EndWhatIf } else { SessionCommand::WhatIf });
            }
            Shortcut::Undo if session.engine().action_count() > 0 => {
                self.commands.write(SessionCommand::Undo);
            }
            Shortcut::Save => save_or_ask(session, &mut self.commands, &mut self.save),
            Shortcut::SaveAs => self.save.show(session),
            // The sequence's going on, when it is this key's (the turn panel's main button): D
            // when it draws, End when it ends the activation or the turn. The engine takes it or
            // refuses it with its rule.
            Shortcut::Start | Shortcut::Draw | Shortcut::End => {
                let engine = session.engine();
                let choices = engine.choices();
                if let Some(c) = turn_panel::go_on(&choices).filter(|c| turn_panel::go_on_key(&engine.sequence(), c) == Some(shortcut)) {
                    self.orders.write(Order(c.action.clone()));
                }
            }
            Shortcut::NextUnit | Shortcut::PreviousUnit => {
                let step = if shortcut == Shortcut::NextUnit { 1 } else { -1 };
                if let Some(next) = roster::next_unit(session, self.selection.unit, step) {
                    self.selection.unit = Some(next);
                    self.centre.write(CentreOn(next));
                }
            }
            _ => {}
        }
    }
}

/// The window's keys, in the order they came (see the module docs). Nothing while egui is
/// typing into a field or has a menu open.
fn keyboard(mut input: MessageReader<KeyboardInput>, mut lost: MessageReader<KeyboardFocusLost>, mut mods: Local<Modifiers>, egui: Option<Res<EguiWantsInput>>, mut shell: Shell) {
    if lost.read().count() > 0 {
        *mods = Modifiers::default();
    }
    let typing = egui.is_some_and(|e| e.wants_any_keyboard_input());
    for event in input.read() {
        let down = event.state == ButtonState::Pressed;
        mods.track(event.key_code, down);
        if !down || event.repeat || typing {
            continue;
        }
        if let Some(b) = mods.binding(event.key_code) {
            shell.act(b.shortcut);
        }
    }
}

/// Save to the file the game came from or was last saved to; else ask where ("Save as…").
fn save_or_ask(session: &Session, commands: &mut MessageWriter<SessionCommand>, save: &mut SaveDialog) {
    match &session.save_path {
        Some(p) => {
            commands.write(SessionCommand::Save(p.clone()));
        }
        None => save.show(session),
    }
}

/// Where the game is in the sequence of play, in a few words: the turn, and who is acting or
/// what going on will do.
fn readout(session: &Session) -> String {
    let engine = session.engine();
    let seq = engine.sequence();
    if !seq.started {
        return "Set-up: start the game".into();
    }
    if seq.over {
        return "Game over".into();
    }
    let turn = match seq.limit {
        Some(limit) => format!("Turn {}/{limit}", seq.turn),
        None => format!("Turn {}", seq.turn),
    };
    match seq.track.iter().find(|t| t.state == TrackState::Current) {
        Some(t) => format!("{turn} · {} phasing", t.label),
        None => format!("{turn} · {}", turn_panel::go_on(&engine.choices()).map(|c| c.label.to_lowercase()).unwrap_or_default()),
    }
}

/// A button with its key beside it when there is room (always in its hover text).
fn keyed(text: &str, shortcut: Shortcut, roomy: bool) -> egui::Button<'static> {
    let b = egui::Button::new(text.to_string());
    if roomy { b.shortcut_text(RichText::new(key(shortcut)).weak()) } else { b }
}

/// The Open menu: browse (Ctrl+O), the recent files, the scenarios near at hand.
fn open_menu(ui: &mut egui::Ui, open: &mut OpenDialog, settings: &Settings, current: &str, commands: &mut Commands) {
    if ui.add(egui::Button::new("Browse for a file…").shortcut_text(key(Shortcut::Open))).clicked() {
        open.open = true;
        ui.close();
    }
    let mut pick = |ui: &mut egui::Ui, p: &std::path::Path, tip: String| {
        let name = p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().to_string());
        if ui.button(name).on_hover_text(tip).clicked() {
            file_menu::request_open(commands, p.to_path_buf());
            ui.close();
        }
    };
    if !settings.recent.is_empty() {
        ui.separator();
        ui.label(RichText::new("Recent").weak());
        for p in &settings.recent {
            pick(ui, p, p.display().to_string());
        }
    }
    let nearby = file_menu::nearby_scenarios(current);
    if !nearby.is_empty() {
        ui.separator();
        ui.label(RichText::new("Near at hand").weak());
        for p in nearby.iter().take(12) {
            pick(ui, p, p.display().to_string());
        }
    }
    ui.separator();
    ui.label(RichText::new("Lessons").weak()).on_hover_text("Guided lessons: each step quotes its rule and the engine checks what you do (the game in the window is put away)");
    let mut under = None;
    for (name, title, rules) in crate::lessons::catalogue() {
        if under != Some(*rules) {
            under = Some(*rules);
            ui.label(RichText::new(rules.title()).small().weak());
        }
        let done = settings.lessons_done.iter().any(|d| d == name);
        if ui.button(format!("{} {title}", if done { "✔" } else { "🎓" })).on_hover_text(format!("otp play --lesson {name}")).clicked() {
            let name = name.to_string();
            commands.queue(move |world: &mut World| super::lesson::start_in_world(world, &name));
            ui.close();
        }
    }
}

/// The View menu: panels, roster, trail, text size.
fn view_menu(ui: &mut egui::Ui, settings: &mut Settings) {
    for (fold, name, shortcut) in [(Fold::Turn, "Turn panel", Shortcut::TurnPanel), (Fold::Sheet, "Unit sheet", Shortcut::UnitSheet), (Fold::Log, "Game log", Shortcut::Log)] {
        let on = settings.shown(fold);
        if ui.add(egui::Button::selectable(on, name).shortcut_text(key(shortcut))).clicked() {
            settings.toggle(fold);
        }
    }
    let roster = settings.turn_panel && settings.left_tab == LeftTab::Roster;
    if ui.add(egui::Button::selectable(roster, "Roster of every unit").shortcut_text(key(Shortcut::Roster))).clicked() {
        settings.left_tab = if roster { LeftTab::Turn } else { LeftTab::Roster };
        settings.turn_panel = true;
    }
    if ui.add(egui::Button::selectable(settings.trail, "Trail of each unit's last move").shortcut_text(key(Shortcut::Trail))).clicked() {
        settings.trail = !settings.trail;
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.label("Text size");
        let mut percent = (settings.text_size * 100.0).round();
        let r = ui.add(egui::Slider::new(&mut percent, (TEXT_SIZES.start() * 100.0)..=(TEXT_SIZES.end() * 100.0)).step_by(5.0).suffix(" %"));
        if r.drag_stopped() || (r.changed() && !r.dragged()) {
            settings.text_size = percent / 100.0;
        }
    });
}

#[allow(clippy::too_many_arguments)]
fn toolbar(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeRect>,
    battlefield: Option<Res<Battlefield>>,
    mut view: ResMut<View>,
    mut ruler: ResMut<Ruler>,
    mut help: ResMut<Help>,
    (mut open, mut save, mut confirm): (ResMut<OpenDialog>, ResMut<SaveDialog>, ResMut<ConfirmNew>),
    (mut teach, mut settings, mut compare): (ResMut<Overlays>, ResMut<Settings>, ResMut<Compare>),
    session: Option<Res<Session>>,
    mut commands: MessageWriter<SessionCommand>,
    mut world_commands: Commands,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "toolbar_root", free.0);
    // Key hints on the buttons when the bar has the room for them.
    let roomy = free.0.width() >= 1250.0;
    let response = egui::Panel::top("toolbar").show(&mut root, |ui| {
        ui.add_space(3.0);
        // Wraps onto a second row rather than losing a control on a narrow window.
        ui.horizontal_wrapped(|ui| {
            // The name is in the window's title; here only when there is room to spare.
            if let Some(b) = battlefield.as_ref().filter(|_| free.0.width() >= 1500.0) {
                ui.label(RichText::new(&b.scenario.name).strong().size(16.0).color(egui::Color32::from_rgb(236, 228, 200)))
                    .on_hover_text(format!("{}\n\n{}", b.source, b.scenario.description));
                ui.separator();
            }
            let current = battlefield.as_ref().map(|b| b.source.clone()).unwrap_or_default();
            ui.menu_button("📂 Open", |ui| open_menu(ui, &mut open, &settings, &current, &mut world_commands))
                .response
                .on_hover_text(format!("Open a scenario or a saved game: browse ({}), a recent file, a scenario near at hand", key(Shortcut::Open)));
            if let Some(s) = &session {
                let where_to = s.save_path.as_ref().map_or("choose a file".to_string(), |p| p.display().to_string());
                let r = ui.add(keyed("💾 Save", Shortcut::Save, roomy)).on_hover_text(format!(
                    "Save the game: scenario, seed and every action ({}) — {where_to}. Right-click or {}: save as…",
                    key(Shortcut::Save),
                    key(Shortcut::SaveAs)
                ));
                if r.clicked() {
                    save_or_ask(s, &mut commands, &mut save);
                }
                if r.secondary_clicked() {
                    save.show(s);
                }
                let n = s.engine().action_count();
                let last = s.engine().actions().last().map(|a| a.to_string()).unwrap_or_default();
                let undo = ui.add_enabled(n > 0, keyed("↩ Undo", Shortcut::Undo, roomy));
                if undo.on_hover_text(format!("Take back the last action: {last} ({}). The dice come out as before.", key(Shortcut::Undo))).on_disabled_hover_text("Nothing to take back").clicked() {
                    commands.write(SessionCommand::Undo);
                }
                let watching = s.replay_at().is_some();
                if ui
                    .add_enabled(n > 0 && !watching, egui::Button::new(if roomy { "⏪ Replay" } else { "⏪" }))
                    .on_hover_text("Replay: watch this game from its start, action by action, with the log and the dice following; nothing changes until you play on from a chosen action")
                    .on_disabled_hover_text(if watching { "A replay is showing (the bar below)" } else { "No actions to replay yet" })
                    .clicked()
                {
                    commands.write(SessionCommand::Watch);
                }
                if ui.add(keyed("✚ New", Shortcut::New, roomy)).on_hover_text(format!("A new game of this scenario with fresh dice ({})", key(Shortcut::New))).clicked() {
                    confirm.0 = true;
                }
            }
            if ui.button(if roomy { "✏ Edit" } else { "✏" }).on_hover_text("Edit the set-up: terrain and troops by mouse, the scenario's forms, Save and Play this (otp edit); the game is kept aside").clicked() {
                world_commands.queue(super::editor::edit_current);
            }
            ui.separator();
            if ui.button("⛶ Fit").on_hover_text("Show the whole table (F)").clicked() {
                view.fit_pending = true;
            }
            let was = ruler.enabled;
            if ui.selectable_label(was, "📏 Ruler").on_hover_text("Drag to measure; ends on stands measure edge to edge (R)").clicked() {
                ruler.toggle();
            }
            ui.separator();
            ui.label(RichText::new("Teach:").weak()).on_hover_text("Teaching overlays for the selected unit: what the rules' geometry says");
            let teach = &mut *teach;
            let toggles: [(&mut bool, &str, &str); 4] = [
                (&mut teach.arcs, "Arcs", "Firing arcs out to the weapon's range, in the rule set's range bands — A"),
                (&mut teach.enfilade, "Enfilade", "The line straight out from the front; flank and rear zones — E"),
                (&mut teach.sight, "Sight", "Lines of sight to the enemy under the pointer, with range, arc and what the rules make of them — L"),
                (&mut teach.movement, "Move", "Where the unit can move; drag it to try a move — M"),
            ];
            for (on, name, tip) in toggles {
                if ui.selectable_label(*on, name).on_hover_text(tip).clicked() {
                    *on = !*on;
                }
            }
            if let Some(s) = &session {
                let on = s.in_what_if();
                if ui.selectable_label(on, if roomy { "✋ What if" } else { "✋" }).on_hover_text(format!("What if: drag any unit of either side, outside the rules, to see what the overlays and the odds make of it; the game is kept aside — {}", key(Shortcut::WhatIf))).clicked() {
                    commands.write(if on { SessionCommand::EndWhatIf } else { SessionCommand::WhatIf });
                }
            }
            if ui.selectable_label(compare.open, if roomy { "⚖ Compare" } else { "⚖" }).on_hover_text(format!("Compare: the selected unit's shot or charge at an enemy, judged by every rule set side by side — {}", key(Shortcut::Compare))).clicked() {
                compare.open = !compare.open;
            }
            ui.separator();
            ui.menu_button("View", |ui| view_menu(ui, &mut settings)).response.on_hover_text("Fold and unfold the panels, the roster, the trail of moves, the text size");
            if ui.selectable_label(help.open, "❓ Help").on_hover_text("Shortcuts, the legend of colours, how a turn goes (F1)").clicked() {
                help.open = !help.open;
            }
            // Where the game is, on the same row when there is room (the turn panel says it at length).
            if let Some(s) = &session
                && ui.available_size_before_wrap().x > 320.0
            {
                ui.separator();
                let text = RichText::new(readout(s)).color(egui::Color32::from_rgb(236, 228, 200));
                ui.add(egui::Label::new(text).truncate()).on_hover_text("Where the game is in the sequence of play (OTP 4.2–4.5)");
            }
        });
        ui.add_space(2.0);
    });
    free.0.min.y = free.0.min.y.max(response.response.rect.max.y);
    Ok(())
}

fn confirm_new_window(mut contexts: EguiContexts, mut confirm: ResMut<ConfirmNew>, session: Option<Res<Session>>, mut commands: MessageWriter<SessionCommand>) -> Result {
    if !confirm.0 {
        return Ok(());
    }
    let Some(session) = session else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let mut choice = None;
    egui::Window::new("Start a new game?").order(egui::Order::Foreground).collapsible(false).resizable(false).default_width(400.0).anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO).show(ctx, |ui| {
        let n = session.engine().action_count();
        ui.label(format!("The current game ({n} actions) is set aside and {} is set up afresh, with new dice.", session.engine().scenario().name));
        if session.save_path.is_none() && n > 0 {
            ui.label(RichText::new("It has not been saved (the autosave will be overwritten).").color(egui::Color32::from_rgb(255, 190, 120)));
        }
        ui.horizontal(|ui| {
            if ui.button("New game").clicked() {
                choice = Some(true);
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                choice = Some(false);
            }
        });
    });
    if let Some(yes) = choice {
        if yes {
            commands.write(SessionCommand::Restart);
        }
        confirm.0 = false;
    }
    Ok(())
}

/// The shortcuts, as the help window lists them.
pub(crate) const SHORTCUTS: &[(&str, &str)] = &[
    ("Mouse wheel", "zoom in and out at the cursor"),
    ("Right or middle drag", "pan the table"),
    ("Left drag", "pan (or measure, with the ruler on; or move the selected unit: in a game a unit that acts now, else with M on)"),
    ("Arrows", "pan (Shift: faster)"),
    ("+ / −", "zoom about the centre"),
    ("F or Home", "fit the whole table"),
    ("Hover a unit", "its name, type and strength"),
    ("Click a unit", "its unit sheet"),
    ("R", "ruler on or off"),
    ("Esc", "clear the measurement and a move's ghost, then close the unit sheet"),
];

/// The mouse's part in playing: the log's and the roster's.
pub(crate) const PLAY_SHORTCUTS: &[(&str, &str)] = &[
    ("Right-click Save", "save as… another file"),
    ("Click a log entry", "select the unit it names and centre the view on it"),
    ("Click a roster line", "select the unit and bring it into view"),
];

/// The shortcuts of the other play panels (turn panel, orders, fire and charge orders, dice),
/// read from their key handling.
pub(crate) const PANEL_SHORTCUTS: &[(&str, &str)] = &[
    ("X", "fire mode for the selected unit: point at a target for the exact odds, click to fire"),
    ("C", "charge mode for the selected unit: point at a target, click to charge"),
    ("Esc (fire, charge)", "drop the chosen target, then leave the mode"),
    ("Enter (fire, charge)", "fire at or charge the chosen target"),
    ("Esc (dice)", "close the dice of the last report"),
];


/// A small picture for the legend.
#[derive(Clone, Copy)]
enum Swatch {
    /// A stand in this colour, its pale front edge up.
    Stand(egui::Color32),
    /// A stand with the morale-marker badge behind it.
    Marker,
    /// The selected unit's outline.
    Selected,
    /// A translucent fill as it looks on the cloth.
    Fill(egui::Color32),
    /// A fill with diagonal hatching.
    Hatch(egui::Color32, egui::Color32),
    /// A line.
    Line(egui::Color32),
    /// A ghost stand: fill and edge.
    Ghost(egui::Color32, egui::Color32),
    /// A stand ringed by a glow (broad, soft) and a line.
    Glow(egui::Color32, egui::Color32),
    /// A stand outlined in this colour.
    Outline(egui::Color32),
}

fn swatch(ui: &mut egui::Ui, s: Swatch) {
    use crate::picture::palette;
    use super::paint::colour;
    let (r, _) = ui.allocate_exact_size(egui::vec2(40.0, 18.0), egui::Sense::hover());
    let p = ui.painter();
    let cloth = colour(palette::CLOTH);
    p.rect_filled(r, 2.0, cloth);
    let stand = egui::Rect::from_center_size(r.center(), egui::vec2(26.0, 10.0));
    let edge = egui::Stroke::new(1.0, colour(palette::STAND_EDGE));
    let front = |c: egui::Color32| egui::Shape::line_segment([stand.left_top() + egui::vec2(1.0, 1.5), stand.right_top() + egui::vec2(-1.0, 1.5)], egui::Stroke::new(2.0, c));
    match s {
        Swatch::Stand(c) => {
            p.rect(stand, 0.0, c, edge, egui::StrokeKind::Inside);
            p.add(front(colour(palette::FRONT_EDGE)));
        }
        Swatch::Marker => {
            let st = stand.translate(egui::vec2(-5.0, -1.0));
            p.rect(st, 0.0, egui::Color32::from_gray(120), edge, egui::StrokeKind::Inside);
            let c = egui::pos2(st.right() + 6.0, st.center().y + 2.0);
            p.circle(c, 6.0, colour(palette::MORALE_MARKER), edge);
            p.text(c, egui::Align2::CENTER_CENTER, "M", egui::FontId::new(8.0, super::paint::table_font_bold()), colour(palette::STAND_EDGE));
        }
        Swatch::Selected => {
            p.rect(stand, 0.0, egui::Color32::from_gray(120), egui::Stroke::new(2.0, colour(palette::SELECTED)), egui::StrokeKind::Inside);
        }
        Swatch::Fill(c) => {
            p.rect_filled(r.shrink(2.0), 1.0, colours::on_cloth(c));
        }
        Swatch::Hatch(c, h) => {
            let inner = r.shrink(2.0);
            p.rect_filled(inner, 1.0, colours::on_cloth(c));
            let painter = p.with_clip_rect(inner);
            let mut x = inner.left() - inner.height();
            while x < inner.right() {
                painter.line_segment([egui::pos2(x, inner.bottom()), egui::pos2(x + inner.height(), inner.top())], egui::Stroke::new(1.2, colours::on_cloth(h)));
                x += 6.0;
            }
        }
        Swatch::Line(c) => {
            p.line_segment([r.left_center() + egui::vec2(4.0, 0.0), r.right_center() - egui::vec2(4.0, 0.0)], egui::Stroke::new(3.0, c));
        }
        Swatch::Ghost(fill, e) => {
            p.rect(stand, 0.0, colours::on_cloth(fill), egui::Stroke::new(1.5, e), egui::StrokeKind::Inside);
        }
        Swatch::Glow(glow, line) => {
            p.rect_stroke(stand, 1.0, egui::Stroke::new(6.0, glow), egui::StrokeKind::Outside);
            p.rect_stroke(stand.expand(1.0), 1.0, egui::Stroke::new(1.5, line), egui::StrokeKind::Outside);
            p.rect(stand, 0.0, super::paint::rgb(SIDE_COLOURS[1]), edge, egui::StrokeKind::Inside);
        }
        Swatch::Outline(c) => {
            p.rect(stand, 0.0, egui::Color32::from_gray(120), edge, egui::StrokeKind::Inside);
            p.rect_stroke(stand.expand(1.5), 1.0, egui::Stroke::new(2.5, c), egui::StrokeKind::Outside);
        }
    }
}

/// The legend of colours and badges: side colours, badges, and each overlay's shades, each in
/// the rule set's words (`Engine::words`; a row the rule set has no words for is left out).
fn legend(ui: &mut egui::Ui, sides: &[(String, [u8; 3])], words: &dyn Fn(Topic) -> Option<String>) {
    let mut rows: Vec<(Swatch, String)> = sides.iter().map(|(name, c)| (Swatch::Stand(super::paint::rgb(*c)), format!("{name}: a stand; the pale line is its front edge"))).collect();
    let worded = [
        (Swatch::Marker, Topic::MoraleBadge),
        (Swatch::Fill(colours::ARC_FILL[0]), Topic::GunBand(0)),
        (Swatch::Fill(colours::ARC_FILL[1]), Topic::GunBand(1)),
        (Swatch::Fill(colours::ARC_FILL[2]), Topic::GunBand(2)),
        (Swatch::Fill(colours::ARC_SMALL_ARMS), Topic::SmallArmsArc),
        (Swatch::Hatch(colours::ZONE_FLANK, colours::ZONE_HATCH), Topic::FlankZone),
        (Swatch::Hatch(colours::ZONE_REAR, colours::ZONE_HATCH), Topic::RearZone),
        (Swatch::Line(colours::ZONE_LINE), Topic::FrontLine),
        (Swatch::Line(colours::SIGHT_CLEAR), Topic::SightClear),
        (Swatch::Line(colours::SIGHT_BLOCKED), Topic::SightBlocked),
        (Swatch::Line(colours::SIGHT_WOODS), Topic::SightWoods),
        (Swatch::Fill(colours::MOVE_FILL), Topic::MoveArea),
    ];
    rows.extend(worded.into_iter().filter_map(|(swatch, topic)| Some((swatch, words(topic)?))));
    rows.insert(sides.len() + 1, (Swatch::Selected, "the selected unit (its sheet is on the right)".into()));
    rows.extend([
        (Swatch::Ghost(colours::GHOST_OK_FILL, colours::GHOST_OK_EDGE), "a dragged move the rules allow".into()),
        (Swatch::Ghost(colours::GHOST_BAD_FILL, colours::GHOST_BAD_EDGE), "a dragged move the rules refuse (the tag says which rule)".into()),
    ]);
    let light = |k: f32, a: u8| {
        let [r, g, b] = SIDE_COLOURS[1].map(|c| (c as f32 + (255.0 - c as f32) * k) as u8);
        egui::Color32::from_rgba_unmultiplied(r, g, b, a)
    };
    // The other play panels' marks on the table, in the colours they draw them: the acting
    // units' glow (turn_panel.rs, the side colour lifted toward white) and a target the engine
    // allows (fire_orders.rs).
    if let Some(glow) = words(Topic::ActingGlow) {
        rows.push((Swatch::Glow(light(0.3, 95), light(0.6, 240)), glow));
    }
    rows.push((Swatch::Outline(egui::Color32::from_rgb(255, 145, 35)), "fire or charge mode (X, C): a target the engine allows".into()));
    egui::Grid::new("legend").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
        for (s, text) in rows {
            swatch(ui, s);
            ui.label(text);
            ui.end_row();
        }
    });
}

fn help_window(mut contexts: EguiContexts, mut help: ResMut<Help>, sides: Query<&SideInfo>, session: Option<Res<Session>>) -> Result {
    if !help.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut open = help.open;
    let legend_first = help.legend_first;
    let mut side_list: Vec<(usize, String, [u8; 3])> = sides.iter().map(|s| (s.index, s.name.clone(), s.colour)).collect();
    side_list.sort_by_key(|s| s.0);
    let side_list: Vec<(String, [u8; 3])> = side_list.into_iter().map(|(_, n, c)| (n, c)).collect();
    let max_h = (ctx.content_rect().height() - 120.0).max(200.0);
    let words = |topic: Topic| match session.as_deref() {
        Some(s) => s.engine().words(topic),
        None => plain_words(topic),
    };
    egui::Window::new("Help").order(egui::Order::Foreground).open(&mut open).collapsible(false).resizable(true).default_width(560.0).default_pos(ctx.content_rect().center() - egui::vec2(280.0, 260.0)).show(ctx, |ui| {
        egui::ScrollArea::vertical().max_height(max_h).show(ui, |ui| {
            egui::CollapsingHeader::new(RichText::new("Shortcuts").strong()).default_open(!legend_first).show(ui, |ui| {
                egui::Grid::new("shortcuts").num_columns(2).spacing([18.0, 6.0]).striped(true).show(ui, |ui| {
                    // The keys that go on with the sequence, and a click on a leader, in the rule set's words.
                    let own = |b: &Binding| match b.shortcut {
                        Shortcut::Draw => words(Topic::DrawKey),
                        Shortcut::End => words(Topic::EndKey),
                        _ => None,
                    };
                    let bound = BINDINGS.iter().map(|b| (b.label, own(b).unwrap_or_else(|| b.what.to_string())));
                    let listed = SHORTCUTS.iter().chain(overlays::SHORTCUTS).map(|&(k, w)| (k, w.to_string())).chain(bound).chain(PLAY_SHORTCUTS.iter().chain(PANEL_SHORTCUTS).map(|&(k, w)| (k, w.to_string())));
                    for (key, what) in listed {
                        let what = if key == overlays::LEADER_CLICK { words(Topic::LeaderClick).unwrap_or(what) } else { what };
                        ui.label(RichText::new(key).strong().monospace());
                        ui.label(what);
                        ui.end_row();
                    }
                });
            });
            egui::CollapsingHeader::new(RichText::new("Legend: colours and badges").strong()).default_open(true).show(ui, |ui| legend(ui, &side_list, &words));
            // How a turn goes: the rule set's own primer, else the steps of its sequence.
            let primer: Vec<String> = match words(Topic::HowATurnGoes) {
                Some(text) => text.lines().map(str::to_string).collect(),
                None => match session.as_deref() {
                    Some(s) => {
                        let view = s.engine().sequence();
                        let mut lines = vec![format!("How a turn goes ({})", s.engine().rules().title())];
                        lines.extend(view.steps.iter().map(|st| if st.cite.is_empty() { st.label.clone() } else { format!("{} ({})", st.label, st.cite) }));
                        lines
                    }
                    None => Vec::new(),
                },
            };
            if let Some((heading, steps)) = primer.split_first() {
                egui::CollapsingHeader::new(RichText::new(heading).strong()).default_open(true).show(ui, |ui| {
                    for (i, line) in steps.iter().enumerate() {
                        ui.label(format!("{}. {line}", i + 1));
                    }
                });
            }
            ui.add_space(6.0);
            ui.label(RichText::new("Distances are in inches on the table; the grid is 1\", with heavier lines every 6\" and 12\".").weak());
        });
    });
    help.open = open;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::action::Action;
    use crate::rules::cite::RuleSetId;
    use crate::rules::engine::Engine;
    use crate::rules::registry::open;
    use bevy::ecs::message::Messages;

    /// The teaching scenario, seed 3, after these actions.
    fn game(actions: &[Action]) -> Box<dyn Engine> {
        let mut game = open(RuleSetId::Otp, crate::scenario::default_scenario(), 3).unwrap();
        for a in actions {
            game.apply(a.clone()).expect("a legal action");
        }
        game
    }

    fn app(actions: &[Action], save_path: Option<&str>) -> App {
        let mut session = Session::from_engine(&*game(actions));
        session.save_path = save_path.map(std::path::PathBuf::from);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, bevy::input::InputPlugin))
            .init_resource::<Help>()
            .init_resource::<ConfirmNew>()
            .init_resource::<SaveDialog>()
            .init_resource::<OpenDialog>()
            .init_resource::<Settings>()
            .init_resource::<SoloSettings>()
            .init_resource::<Selection>()
            .insert_resource(session)
            .add_message::<SessionCommand>()
            .add_message::<Order>()
            .add_message::<CentreOn>()
            .add_message::<ReplayControl>()
            .init_resource::<Compare>()
            .add_systems(Update, keyboard);
        app
    }

    // Issue 22: the replay's keys, PgUp / PgDn a step and with Ctrl a turn, Space play.
    #[test]
    fn replay_keys_send_the_replay_controls() {
        let mut a = app(&[], None);
        let sent = |a: &mut App, held: &[KeyCode]| {
            press(a, held);
            a.world_mut().resource_mut::<Messages<ReplayControl>>().drain().collect::<Vec<_>>()
        };
        assert_eq!(sent(&mut a, &[KeyCode::PageDown]), [ReplayControl::Forward]);
        assert_eq!(sent(&mut a, &[KeyCode::PageUp]), [ReplayControl::Back]);
        assert_eq!(sent(&mut a, &[KeyCode::ControlLeft, KeyCode::PageUp]), [ReplayControl::PreviousTurn]);
        assert_eq!(sent(&mut a, &[KeyCode::ControlRight, KeyCode::PageDown]), [ReplayControl::NextTurn]);
        assert_eq!(sent(&mut a, &[KeyCode::Space]), [ReplayControl::PlayPause]);
    }

    /// One frame in which these keys go down (`true`) and up (`false`), in this order, as winit
    /// delivers them when they come faster than the frames.
    fn keys(app: &mut App, events: &[(KeyCode, bool)]) -> Vec<SessionCommand> {
        let window = Entity::PLACEHOLDER;
        for &(key_code, down) in events {
            let logical_key = bevy::input::keyboard::Key::Unidentified(bevy::input::keyboard::NativeKey::Unidentified);
            let state = if down { ButtonState::Pressed } else { ButtonState::Released };
            app.world_mut().write_message(KeyboardInput { key_code, logical_key, state, text: None, repeat: false, window });
        }
        app.update();
        app.world_mut().resource_mut::<Messages<SessionCommand>>().drain().collect()
    }

    /// A key tapped (down and up) with modifiers held, all within one frame.
    fn press(app: &mut App, held: &[KeyCode]) -> Vec<SessionCommand> {
        let (mods, key) = held.split_at(held.len() - 1);
        let mut events: Vec<(KeyCode, bool)> = mods.iter().map(|&m| (m, true)).collect();
        events.extend([(key[0], true), (key[0], false)]);
        events.extend(mods.iter().map(|&m| (m, false)));
        keys(app, &events)
    }

    #[test]
    fn ctrl_z_undoes_only_when_there_is_an_action_and_ctrl_s_saves_or_asks() {
        let mut a = app(&[], None);
        assert!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyZ]).is_empty(), "nothing to take back");
        assert!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyS]).is_empty());
        let asked = a.world().resource::<SaveDialog>().clone();
        assert!(asked.open && asked.path.ends_with(".ron") && asked.path.starts_with("otp-save-"), "{asked:?}");
        let mut a = app(&[Action::Next], Some("/tmp/game.ron"));
        assert!(matches!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyZ])[..], [SessionCommand::Undo]));
        assert!(matches!(&press(&mut a, &[KeyCode::ControlRight, KeyCode::KeyS])[..], [SessionCommand::Save(p)] if p.to_str() == Some("/tmp/game.ron")));
        // Without Ctrl the letters are the table's.
        assert!(press(&mut a, &[KeyCode::KeyZ]).is_empty());
        // Ctrl+Shift+S asks where, whatever the file.
        assert!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::ShiftLeft, KeyCode::KeyS]).is_empty());
        assert!(a.world().resource::<SaveDialog>().open);
        // Ctrl+N asks before a new game; F1 opens the help.
        press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyN]);
        assert!(a.world().resource::<ConfirmNew>().0);
        press(&mut a, &[KeyCode::F1]);
        assert!(a.world().resource::<Help>().open);
    }

    // Issue 13, defect 7: Ctrl and S both down and up before the next frame. The key state of
    // that frame has S "just pressed" but Ctrl already up, so a handler reading key state lost
    // the save; the messages, read in order, keep it.
    // Issue 13: Start has a key. S sends the engine's go-on choice at set-up (OTP 4.2: roll the
    // commander values), and only there; D and End do not start the game.
    #[test]
    fn s_starts_the_game() {
        let mut a = app(&[], None);
        press(&mut a, &[KeyCode::KeyD]);
        press(&mut a, &[KeyCode::End]);
        assert_eq!(sent(&mut a), vec![], "D and End do not start the game");
        press(&mut a, &[KeyCode::KeyS]);
        let start = turn_panel::go_on(&game(&[]).choices()).unwrap().action.clone();
        assert_eq!(sent(&mut a), vec![start]);
        let mut b = app(&[Action::Next], None);
        press(&mut b, &[KeyCode::KeyS]);
        assert_eq!(sent(&mut b), vec![], "S does not draw a chit");
    }

    #[test]
    fn a_quick_ctrl_s_between_two_frames_still_saves() {
        let mut a = app(&[Action::Next], Some("/tmp/game.ron"));
        let sent = keys(&mut a, &[(KeyCode::ControlLeft, true), (KeyCode::KeyS, true), (KeyCode::KeyS, false), (KeyCode::ControlLeft, false)]);
        assert!(matches!(&sent[..], [SessionCommand::Save(_)]), "{sent:?}");
        // Ctrl held over several frames, S in a later one: still Ctrl+S; after Ctrl is up, S is not.
        assert!(keys(&mut a, &[(KeyCode::ControlRight, true)]).is_empty());
        assert!(matches!(&keys(&mut a, &[(KeyCode::KeyS, true), (KeyCode::KeyS, false)])[..], [SessionCommand::Save(_)]));
        assert!(keys(&mut a, &[(KeyCode::ControlRight, false), (KeyCode::KeyS, true), (KeyCode::KeyS, false)]).is_empty());
    }

    /// The orders sent so far, in the common words.
    fn sent(a: &mut App) -> Vec<Action> {
        a.world_mut().resource_mut::<Messages<Order>>().drain().map(|o| o.0).collect()
    }

    // OTP 4.3: D draws a chit, End ends the activation (and in the rebuild step, 4.5, the turn):
    // each key sends the engine's own choice for going on, and only when going on is its.
    #[test]
    fn turn_keys_send_orders_and_panel_keys_fold() {
        let mut a = app(&[Action::Next], None);
        press(&mut a, &[KeyCode::End]);
        assert_eq!(sent(&mut a), vec![], "End does not draw a chit");
        press(&mut a, &[KeyCode::KeyD]);
        let draw = turn_panel::go_on(&game(&[Action::Next]).choices()).unwrap().action.clone();
        assert_eq!(sent(&mut a), vec![draw]);
        let mut b = app(&[Action::Next, Action::Next], None);
        press(&mut b, &[KeyCode::KeyD]);
        assert_eq!(sent(&mut b), vec![], "D does not end the activation");
        press(&mut b, &[KeyCode::End]);
        let end = turn_panel::go_on(&game(&[Action::Next, Action::Next]).choices()).unwrap().action.clone();
        assert_eq!(sent(&mut b), vec![end]);
        press(&mut a, &[KeyCode::F2]);
        press(&mut a, &[KeyCode::F4]);
        let s = a.world().resource::<Settings>().clone();
        assert!(!s.turn_panel && s.unit_sheet && !s.log, "{s:?}");
        press(&mut a, &[KeyCode::F5]);
        let s = a.world().resource::<Settings>().clone();
        assert!(s.turn_panel && s.left_tab == LeftTab::Roster, "F5 unfolds the left panel on the roster");
        press(&mut a, &[KeyCode::KeyP]);
        assert!(a.world().resource::<SoloSettings>().paused);
    }

    #[test]
    fn every_binding_is_one_key_and_listed_once() {
        for (i, b) in BINDINGS.iter().enumerate() {
            assert!(!b.label.is_empty() && !b.what.is_empty());
            assert!(BINDINGS[..i].iter().all(|o| (o.key, o.ctrl, o.shift) != (b.key, b.ctrl, b.shift)), "{} twice", b.label);
            assert!(BINDINGS[..i].iter().all(|o| o.shortcut != b.shortcut), "{:?} twice", b.shortcut);
            // Not a key of the table, the overlays, the ruler or the orders.
            let taken = [KeyCode::KeyA, KeyCode::KeyE, KeyCode::KeyL, KeyCode::KeyM, KeyCode::KeyR, KeyCode::KeyF, KeyCode::KeyX, KeyCode::KeyC, KeyCode::Escape, KeyCode::Home];
            assert!(b.ctrl || !taken.contains(&b.key), "{} is taken", b.label);
        }
    }

    // OTP 4.3: the readout names the brigade whose units are acting.
    #[test]
    fn the_readout_follows_the_sequence_of_play() {
        assert!(readout(&Session::from_engine(&*game(&[]))).starts_with("Set-up"));
        assert_eq!(readout(&Session::from_engine(&*game(&[Action::Next]))), "Turn 1/10 · draw a chit");
        let s = Session::from_engine(&*game(&[Action::Next, Action::Next]));
        let engine = s.engine();
        let acting = engine.world().get::<crate::scenario::spawn::Unit>(engine.sequence().acting[0]).unwrap().brigade;
        let brigade = &engine.world().get::<crate::scenario::spawn::Brigade>(acting).unwrap().name;
        let text = readout(&s);
        assert!(text.starts_with("Turn 1/") && text.ends_with(&format!("{brigade} phasing")), "{text}");
    }
}
