//! The top bar: the scenario's name, Open…, Save, Undo, New game, Fit, the ruler toggle, the
//! teaching overlays' toggles, where the game is in the turn, and help; and the F1 help window
//! (shortcuts, the legend of colours and badges, how a turn goes).

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::RichText;

use super::camera::View;
use super::file_menu::{OpenDialog, SaveDialog};
use super::session::{Session, SessionCommand};
use super::overlays::{self, Overlays};
use super::ruler::Ruler;
use super::{FreeRect, UiSet, root_ui};
use crate::rules::otp::engine::Phase;
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
        .add_systems(EguiPrimaryContextPass, (toolbar.in_set(UiSet::Toolbar), (help_window.run_if(super::fonts_ready), confirm_new_window).in_set(UiSet::Windows)))
        .add_systems(Update, keyboard.run_if(not(egui_wants_any_keyboard_input)));
}

/// "Start a new game?" is showing (a new game throws the current one away; the autosave too).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct ConfirmNew(pub bool);

/// F1 help; Ctrl+Z undo, Ctrl+S save, Ctrl+O open, Ctrl+N new game.
#[allow(clippy::too_many_arguments)]
fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    mut help: ResMut<Help>,
    session: Option<Res<Session>>,
    mut commands: MessageWriter<SessionCommand>,
    mut save: ResMut<SaveDialog>,
    mut open: ResMut<OpenDialog>,
    mut confirm: ResMut<ConfirmNew>,
) {
    if keys.just_pressed(KeyCode::F1) {
        help.open = !help.open;
    }
    if !keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyZ) && session.as_ref().is_some_and(|s| !s.game.actions().is_empty()) {
        commands.write(SessionCommand::Undo);
    }
    if keys.just_pressed(KeyCode::KeyS)
        && let Some(s) = &session
    {
        save_or_ask(s, &mut commands, &mut save);
    }
    if keys.just_pressed(KeyCode::KeyO) {
        open.open = true;
    }
    if keys.just_pressed(KeyCode::KeyN) {
        confirm.0 = true;
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

/// Where the game is in the sequence of play, in a few words (OTP 4.2–4.5).
fn readout(session: &Session) -> String {
    let g = &session.game;
    let turn = match g.sequence().turn_limit {
        Some(limit) => format!("Turn {}/{limit}", g.turn()),
        None => format!("Turn {}", g.turn()),
    };
    match g.phase() {
        Phase::Setup => "Set-up: start the game".into(),
        Phase::Draw => format!("{turn} · draw a chit"),
        Phase::Activation { .. } => format!("{turn} · {} phasing", g.phasing_brigade().unwrap_or_default()),
        Phase::Rebuild => format!("{turn} · rebuilds, then end the turn"),
        Phase::Over => "Game over".into(),
    }
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
    mut teach: ResMut<Overlays>,
    session: Option<Res<Session>>,
    mut commands: MessageWriter<SessionCommand>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "toolbar_root", free.0);
    let response = egui::Panel::top("toolbar").show(&mut root, |ui| {
        ui.add_space(3.0);
        ui.horizontal(|ui| {
            if let Some(b) = &battlefield {
                ui.label(RichText::new(&b.scenario.name).strong().size(16.0).color(egui::Color32::from_rgb(236, 228, 200)))
                    .on_hover_text(format!("{}\n\n{}", b.source, b.scenario.description));
            }
            ui.separator();
            if ui.button("📂 Open…").on_hover_text("Open a scenario or a saved game (Ctrl+O)").clicked() {
                open.open = !open.open;
            }
            if let Some(s) = &session {
                let where_to = s.save_path.as_ref().map_or("choose a file".to_string(), |p| p.display().to_string());
                let r = ui.button("💾 Save").on_hover_text(format!("Save the game: scenario, seed and every action (Ctrl+S) — {where_to}. Right-click: save as…"));
                if r.clicked() {
                    save_or_ask(s, &mut commands, &mut save);
                }
                if r.secondary_clicked() {
                    save.show(s);
                }
                let n = s.game.actions().len();
                let last = s.game.actions().last().map(|a| a.to_string()).unwrap_or_default();
                let undo = ui.add_enabled(n > 0, egui::Button::new("↩ Undo"));
                if undo.on_hover_text(format!("Take back the last action: {last} (Ctrl+Z). The dice come out as before.")).on_disabled_hover_text("Nothing to take back").clicked() {
                    commands.write(SessionCommand::Undo);
                }
                if ui.button("✚ New game").on_hover_text("A new game of this scenario with fresh dice (Ctrl+N)").clicked() {
                    confirm.0 = true;
                }
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
                (&mut teach.arcs, "Arcs", "Firing arcs out to the weapon's range; guns in short, medium and long bands (8.1, 8.3, 8.4) — A"),
                (&mut teach.enfilade, "Enfilade", "The line straight out from the front; flank and rear zones (8.11, 9.1) — E"),
                (&mut teach.sight, "Sight", "Lines of sight to the enemy under the pointer, with range, arc and enfilade (8.7–8.11) — L"),
                (&mut teach.movement, "Move", "Where the unit can move; drag it to try a move (6.1–6.7) — M"),
            ];
            for (on, name, tip) in toggles {
                if ui.selectable_label(*on, name).on_hover_text(tip).clicked() {
                    *on = !*on;
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.selectable_label(help.open, "❓ Help").on_hover_text("Shortcuts, the legend of colours, how a turn goes (F1)").clicked() {
                    help.open = !help.open;
                }
                // Where the game is, when there is room (the turn panel says it at length).
                if let Some(s) = &session
                    && ui.available_width() > 300.0
                {
                    ui.label(RichText::new(readout(s)).color(egui::Color32::from_rgb(236, 228, 200))).on_hover_text("Where the game is in the sequence of play (OTP 4.2–4.5)");
                }
            });
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
    egui::Window::new("Start a new game?").collapsible(false).resizable(false).default_width(400.0).anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO).show(ctx, |ui| {
        let n = session.game.actions().len();
        ui.label(format!("The current game ({n} actions) is set aside and {} is set up afresh, with new dice.", session.game.scenario().name));
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
    ("Left drag", "pan (or measure, with the ruler on; or move the selected unit: in a game a unit of the phasing brigade, else with M on)"),
    ("Arrows", "pan (Shift: faster)"),
    ("+ / −", "zoom about the centre"),
    ("F or Home", "fit the whole table"),
    ("Hover a unit", "its name, type and strength"),
    ("Click a unit", "its unit sheet (OTP 4.2)"),
    ("R", "ruler on or off"),
    ("Esc", "clear the measurement and a move's ghost, then close the unit sheet"),
    ("F1", "this help"),
];

/// The shortcuts of playing: this bar's, the log's.
pub(crate) const PLAY_SHORTCUTS: &[(&str, &str)] = &[
    ("Ctrl+Z", "undo: take back the last action (the dice come out as before)"),
    ("Ctrl+S", "save the game (to its file; the first time, asks where)"),
    ("Right-click Save", "save as… another file"),
    ("Ctrl+O", "open a scenario or a saved game"),
    ("Ctrl+N", "a new game of this scenario (asks first)"),
    ("Click a log entry", "select the unit it names and centre the view on it"),
];

/// The shortcuts of the other play panels (turn panel, orders, fire and charge orders, dice),
/// read from their key handling.
pub(crate) const PANEL_SHORTCUTS: &[(&str, &str)] = &[
    ("X", "fire mode for the selected unit: point at a target for the exact odds, click to fire (8.x)"),
    ("C", "charge mode for the selected unit: point at a target, click to charge (6.9, 9.x)"),
    ("Esc (fire, charge)", "drop the chosen target, then leave the mode"),
    ("Enter (fire, charge)", "fire at or charge the chosen target"),
    ("Esc (dice)", "close the dice of the last report"),
];

/// How a turn goes (OTP 4.2–4.5), in six lines.
const TURN: &[&str] = &[
    "Set-up: commanders' values are rolled and turn 1 begins (4.2).",
    "Draw a chit from the cup: its brigade is phasing (4.3).",
    "The phasing brigade first tries to remove its units' Morale Markers (10.2–10.4),",
    "then each unit performs its permitted operation: move, fire, charge… in the order the player likes (3.x, 4.3).",
    "End the activation: the chit is set aside and the next is drawn, until the cup is empty (4.3).",
    "Reserve units may try to rebuild (4.4); then check off the turn and refill the cup (4.5).",
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

/// The legend of colours and badges: side colours, badges, and each overlay's shades.
fn legend(ui: &mut egui::Ui, sides: &[(String, [u8; 3])]) {
    use crate::picture::palette;
    let mut rows: Vec<(Swatch, String)> = sides.iter().map(|(name, c)| (Swatch::Stand(super::paint::rgb(*c)), format!("{name}: a stand; the pale line is its front edge"))).collect();
    rows.extend([
        (Swatch::Marker, "Morale Marker (10.1): the yellow “M” badge behind the unit".to_string()),
        (Swatch::Selected, "the selected unit (its sheet is on the right)".into()),
        (Swatch::Fill(colours::ARC_FILL[0]), "guns' short range band (8.4): darkest amber".into()),
        (Swatch::Fill(colours::ARC_FILL[1]), "guns' medium range band".into()),
        (Swatch::Fill(colours::ARC_FILL[2]), "guns' long range band".into()),
        (Swatch::Fill(colours::ARC_SMALL_ARMS), "small arms' firing arc and range (8.1, 8.3)".into()),
        (Swatch::Hatch(colours::ZONE_FLANK, colours::ZONE_HATCH), "flank zone, hatched (8.11, 9.1)".into()),
        (Swatch::Hatch(colours::ZONE_REAR, colours::ZONE_HATCH), "rear zone, hatched darker".into()),
        (Swatch::Line(colours::ZONE_LINE), "the enfilade line straight out from the front (8.11)".into()),
        (Swatch::Line(colours::SIGHT_CLEAR), "line of sight clear (8.7)".into()),
        (Swatch::Line(colours::SIGHT_BLOCKED), "line of sight blocked (8.7–8.9)".into()),
        (Swatch::Line(colours::SIGHT_WOODS), "the part of a sight line through woods (8.8)".into()),
        (Swatch::Fill(colours::MOVE_FILL), "where the unit may move (6.x)".into()),
        (Swatch::Ghost(colours::GHOST_OK_FILL, colours::GHOST_OK_EDGE), "a dragged move the rules allow".into()),
        (Swatch::Ghost(colours::GHOST_BAD_FILL, colours::GHOST_BAD_EDGE), "a dragged move the rules refuse (the tag says which rule)".into()),
    ]);
    let _ = palette::CLOTH;
    egui::Grid::new("legend").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
        for (s, text) in rows {
            swatch(ui, s);
            ui.label(text);
            ui.end_row();
        }
        for (s, text) in panel_legend() {
            swatch(ui, s);
            ui.label(text);
            ui.end_row();
        }
    });
}

/// The other play panels' marks on the table, in the colours they draw them: the phasing
/// brigade's glow (turn_panel.rs, the side colour lifted toward white) and a target the engine
/// allows (fire_orders.rs).
fn panel_legend() -> [(Swatch, &'static str); 2] {
    let light = |k: f32, a: u8| {
        let [r, g, b] = SIDE_COLOURS[1].map(|c| (c as f32 + (255.0 - c as f32) * k) as u8);
        egui::Color32::from_rgba_unmultiplied(r, g, b, a)
    };
    [
        (Swatch::Glow(light(0.3, 95), light(0.6, 240)), "the phasing brigade: a glow in its side's colour round each unit (4.3)"),
        (Swatch::Outline(egui::Color32::from_rgb(255, 145, 35)), "fire or charge mode (X, C): a target the engine allows"),
    ]
}

fn help_window(mut contexts: EguiContexts, mut help: ResMut<Help>, sides: Query<&SideInfo>) -> Result {
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
    egui::Window::new("Help").order(egui::Order::Foreground).open(&mut open).collapsible(false).resizable(true).default_width(560.0).default_pos(ctx.content_rect().center() - egui::vec2(280.0, 260.0)).show(ctx, |ui| {
        egui::ScrollArea::vertical().max_height(max_h).show(ui, |ui| {
            egui::CollapsingHeader::new(RichText::new("Shortcuts").strong()).default_open(!legend_first).show(ui, |ui| {
                egui::Grid::new("shortcuts").num_columns(2).spacing([18.0, 6.0]).striped(true).show(ui, |ui| {
                    for (key, what) in SHORTCUTS.iter().chain(overlays::SHORTCUTS).chain(PLAY_SHORTCUTS).chain(PANEL_SHORTCUTS) {
                        ui.label(RichText::new(*key).strong().monospace());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
            egui::CollapsingHeader::new(RichText::new("Legend: colours and badges").strong()).default_open(true).show(ui, |ui| legend(ui, &side_list));
            egui::CollapsingHeader::new(RichText::new("How a turn goes (OTP 4.2–4.5)").strong()).default_open(true).show(ui, |ui| {
                for (i, line) in TURN.iter().enumerate() {
                    ui.label(format!("{}. {line}", i + 1));
                }
            });
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
    use crate::rules::otp::charts::Charts;
    use crate::rules::otp::engine::{Action, Game};
    use bevy::ecs::message::Messages;

    fn app(actions: &[Action], save_path: Option<&str>) -> App {
        let mut game = Game::new(crate::scenario::default_scenario(), 3, Charts::embedded().clone());
        for a in actions {
            game.apply(a.clone()).expect("a legal action");
        }
        let mut session = Session::new(game);
        session.save_path = save_path.map(std::path::PathBuf::from);
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<Help>()
            .init_resource::<ConfirmNew>()
            .init_resource::<SaveDialog>()
            .init_resource::<OpenDialog>()
            .insert_resource(session)
            .add_message::<SessionCommand>()
            .add_systems(Update, keyboard);
        app
    }

    fn press(app: &mut App, keys: &[KeyCode]) -> Vec<SessionCommand> {
        {
            let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
            input.reset_all();
            for &k in keys {
                input.press(k);
            }
        }
        app.update();
        app.world_mut().resource_mut::<Messages<SessionCommand>>().drain().collect()
    }

    #[test]
    fn ctrl_z_undoes_only_when_there_is_an_action_and_ctrl_s_saves_or_asks() {
        let mut a = app(&[], None);
        assert!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyZ]).is_empty(), "nothing to take back");
        assert!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyS]).is_empty());
        let asked = a.world().resource::<SaveDialog>().clone();
        assert!(asked.open && asked.path.ends_with(".ron") && asked.path.starts_with("otp-save-"), "{asked:?}");
        let mut a = app(&[Action::StartGame], Some("/tmp/game.ron"));
        assert!(matches!(press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyZ])[..], [SessionCommand::Undo]));
        assert!(matches!(&press(&mut a, &[KeyCode::ControlRight, KeyCode::KeyS])[..], [SessionCommand::Save(p)] if p.to_str() == Some("/tmp/game.ron")));
        // Without Ctrl the letters are the table's (Z and S are nobody's yet, but not ours).
        assert!(press(&mut a, &[KeyCode::KeyZ]).is_empty());
        // Ctrl+N asks before a new game; F1 opens the help.
        press(&mut a, &[KeyCode::ControlLeft, KeyCode::KeyN]);
        assert!(a.world().resource::<ConfirmNew>().0);
        press(&mut a, &[KeyCode::F1]);
        assert!(a.world().resource::<Help>().open);
    }

    #[test]
    fn the_readout_follows_the_sequence_of_play() {
        let mut game = Game::new(crate::scenario::default_scenario(), 3, Charts::embedded().clone());
        assert!(readout(&Session::new(Game::new(crate::scenario::default_scenario(), 3, Charts::embedded().clone()))).starts_with("Set-up"));
        game.apply(Action::StartGame).unwrap();
        game.apply(Action::DrawChit).unwrap();
        let s = Session::new(game);
        let text = readout(&s);
        assert!(text.starts_with("Turn 1/") && text.contains(&s.game.phasing_brigade().unwrap()), "{text}");
    }
}
