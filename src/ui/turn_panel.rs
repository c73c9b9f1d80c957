//! The turn panel (left): the sequence of play as the players follow it (4.0). Before the game,
//! the scenario, its sides and "Start the game" (2.0, 4.2: commander values); then the turn and
//! its limit, the chit cup (4.3), the phasing brigade with its units and the morale-marker step
//! (10.1–10.5), rebuilds and the end of the turn (4.4, 4.5), and at the end the summary (4.5).
//! The phasing brigade is outlined on the table in its side's colour.
//!
//! Every button sends an [`Order`]; what may be done is asked of the engine (`check_removal`,
//! `check_rebuild`, `morale_odds`), and a refusal shows here with its rule.
//!
//! Preset, read at start: `OTP_PLAY="start,draw"` sends those orders at start:
//! `start`, `draw`, `end` (the activation), `endturn`, `roll:UNIT`, `pass:UNIT:COMMANDER`,
//! `rebuild:UNIT`, and `load:FILE` (a saved game, loaded as from the Open window). They go once
//! the window's fonts are in. For screenshots; see also `OTP_AUTO` in `solo`.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::paint;
use super::session::{Order, Session, SessionCommand};
use super::camera::CentreOn;
use super::roster::{self, unit_state};
use super::settings::{LeftTab, Settings};
use super::solo::{self, SoloSettings, SoloState};
use super::toolbar::{Shortcut, key};
use super::table_view::Selection;
use super::unit_sheet::{formation_name, rating_text};
use super::{FreeRect, UiSet, root_ui};
use crate::rules::otp::charts::MoraleResult;
use crate::rules::otp::engine::{Action, Game, Phase, Removal, Summary};
use crate::scenario::spawn::{Brigade, SideInfo, Stand, Unit, side_colour};
use crate::table::footprint::Footprint;
use crate::table::geom::convex_hull;

const HEADING: Color32 = Color32::from_rgb(226, 214, 170);
const REFUSED: Color32 = Color32::from_rgb(240, 130, 110);
const MARKER: Color32 = Color32::from_rgb(250, 210, 40);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PendingPlay>().add_systems(PostStartup, presets).add_systems(Update, play_pending.run_if(super::fonts_ready)).add_systems(
        EguiPrimaryContextPass,
        (panel.in_set(UiSet::Panels), halo.in_set(UiSet::Tools).run_if(super::fonts_ready), game_over.in_set(UiSet::Windows)),
    );
}

/// A brigade as the cup knows it.
struct BrigadeRow {
    chit: u32,
    name: String,
    side: usize,
    commander: Entity,
}

/// The game's brigades in chit order.
fn brigades(game: &Game) -> Vec<BrigadeRow> {
    let world = game.world();
    let Some(mut q) = world.try_query::<&Brigade>() else { return Vec::new() };
    let mut v: Vec<BrigadeRow> = q.iter(world).map(|b| BrigadeRow { chit: b.chit, name: b.name.clone(), side: b.side, commander: b.commander }).collect();
    v.sort_by_key(|b| b.chit);
    v
}

fn side_colours(game: &Game) -> Vec<Color32> {
    game.scenario().sides.iter().enumerate().map(|(i, s)| paint::rgb(side_colour(s, i))).collect()
}

fn section(ui: &mut egui::Ui, title: &str) {
    ui.add_space(6.0);
    ui.label(RichText::new(title).strong().size(13.5).color(HEADING));
    ui.separator();
}

fn swatch(ui: &mut egui::Ui, colour: Color32) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect(r, 2.0, colour, egui::Stroke::new(1.0, Color32::from_gray(15)), egui::StrokeKind::Inside);
}

/// A chit: its number in a disc of its side's colour, greyed once drawn.
fn chit_disc(ui: &mut egui::Ui, chit: u32, colour: Color32, drawn: bool) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(20.0, 20.0), egui::Sense::hover());
    let fill = if drawn { Color32::from_gray(70) } else { colour };
    ui.painter().circle(r.center(), 9.0, fill, egui::Stroke::new(1.2, if drawn { Color32::from_gray(110) } else { Color32::from_gray(230) }));
    let text = if drawn { Color32::from_gray(150) } else { Color32::WHITE };
    ui.painter().text(r.center(), egui::Align2::CENTER_CENTER, chit.to_string(), egui::FontId::proportional(12.0), text);
}

fn commander_line(game: &Game, c: Entity) -> String {
    let cmd = game.commander(c);
    match cmd.rating {
        Some(r) => format!("{} — {r:?}, {} pass{} left", cmd.name, game.passes_left(c), if game.passes_left(c) == 1 { "" } else { "es" }),
        None => format!("{} — {}", cmd.name, rating_text(None)),
    }
}

fn result_colour(r: MoraleResult) -> Color32 {
    match r {
        MoraleResult::NE => Color32::from_rgb(110, 180, 90),
        MoraleResult::HalfMove => Color32::from_rgb(190, 190, 80),
        MoraleResult::Deploy | MoraleResult::Stand => Color32::from_rgb(210, 150, 60),
        MoraleResult::Forward => Color32::from_rgb(90, 140, 210),
        MoraleResult::Retreat { .. } => Color32::from_rgb(200, 70, 60),
    }
}

/// The chance of each MORALE RESULTS outcome, as bars (10.2, 10.3).
fn odds_ui(ui: &mut egui::Ui, game: &Game, e: Entity, id: &str) {
    let odds = game.morale_odds(e);
    egui::Grid::new(("morale_odds", id)).num_columns(3).spacing([6.0, 2.0]).show(ui, |ui| {
        for (result, p) in odds.iter().filter(|(_, p)| *p > 0.0) {
            let explain = &game.charts().morale.explain(result.kind()).text;
            ui.label(RichText::new(result.to_string()).small()).on_hover_text(explain);
            let (r, _) = ui.allocate_exact_size(egui::vec2(80.0, 9.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 2.0, Color32::from_gray(50));
            let mut filled = r;
            filled.set_width((r.width() * *p as f32).max(1.0));
            ui.painter().rect_filled(filled, 2.0, result_colour(*result));
            ui.label(RichText::new(format!("{:.0}%", p * 100.0)).small().monospace());
            ui.end_row();
        }
    });
}

/// Refused with its rule, small and under the greyed button.
fn reason(ui: &mut egui::Ui, rule: &str, why: &str) {
    ui.label(RichText::new(format!("OTP {rule}: {why}")).small().color(Color32::from_gray(150)));
}

/// The morale-marker step for one unit: roll (with the odds), a commander's pass, a re-roll.
fn morale_step(ui: &mut egui::Ui, game: &Game, e: Entity, out: &mut Vec<Action>) {
    let u = game.unit(e);
    let t = game.unit_turn(e);
    let name = u.name.clone();
    // Commanders who might spend a pass on it: its side's overall commander and its brigade's.
    let commanders: Vec<(Entity, String)> =
        game.commanders().filter(|(_, c)| c.side == u.side && c.brigade.is_none_or(|b| b == u.brigade)).map(|(c, cmd)| (c, cmd.name.clone())).collect();
    egui::Frame::group(ui.style()).inner_margin(6.0).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            ui.painter().circle(r.center(), 5.5, MARKER, egui::Stroke::new(1.0, Color32::from_gray(20)));
            ui.label(RichText::new(&name).strong());
        });
        match &t.morale {
            None => {
                ui.label(RichText::new("Roll 2D10 on the MORALE RESULTS TABLE (10.2):").small().weak());
                odds_ui(ui, game, e, &name);
                let roll = Removal::Roll;
                let check = game.check_removal(&name, &roll);
                if ui.add_enabled(check.is_ok(), egui::Button::new("🎲 Roll to remove the marker")).clicked() {
                    out.push(Action::RemoveMarker { unit: name.clone(), how: roll });
                }
                if let Err(r) = check {
                    reason(ui, &r.rule, &r.reason);
                }
                for (c, cname) in &commanders {
                    let how = Removal::Pass { commander: cname.clone() };
                    let check = game.check_removal(&name, &how);
                    let label = format!("Use a pass ({}, {} left)", cname, game.passes_left(*c));
                    let b = ui.add_enabled(check.is_ok(), egui::Button::new(label).wrap()).on_hover_text("The commander rides to the unit and the marker comes off (10.4, 6.12)");
                    if b.clicked() {
                        out.push(Action::RemoveMarker { unit: name.clone(), how });
                    }
                    if let Err(r) = check {
                        reason(ui, &r.rule, &r.reason);
                    }
                }
            }
            Some(roll) => {
                let kept = game.has_marker(e);
                ui.label(RichText::new(format!("Rolled {}: {}", roll.result, if kept { "the marker stays" } else { "the marker is off" })).color(result_colour(roll.result)));
                if !roll.rerolled && t.done.is_empty() {
                    for (c, cname) in commanders.iter().filter(|(c, _)| game.passes_left(*c) > 0) {
                        let how = Removal::RerollWithPass { commander: cname.clone() };
                        let check = game.check_removal(&name, &how);
                        let label = format!("Re-roll with a pass ({}, {} left)", cname, game.passes_left(*c));
                        if ui.add_enabled(check.is_ok(), egui::Button::new(label).wrap()).on_hover_text("A morale pass buys one re-roll; its result stands (10.2, 10.4)").clicked() {
                            out.push(Action::RemoveMarker { unit: name.clone(), how });
                        }
                        if let Err(r) = check {
                            reason(ui, &r.rule, &r.reason);
                        }
                    }
                }
            }
        }
    });
}

/// Where the panel put its controls this pass (the tests check they hold still).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Placed {
    /// The button for the step the sequence of play waits on.
    pub main: Option<egui::Rect>,
    /// The top of the scrolling part (the cup, the brigade, solo play).
    pub body_top: f32,
}

#[allow(clippy::too_many_arguments)]
fn panel(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeRect>,
    session: Option<Res<Session>>,
    mut orders: MessageWriter<Order>,
    mut selection: ResMut<Selection>,
    (mut solo_settings, state): (ResMut<SoloSettings>, Res<SoloState>),
    mut settings: ResMut<Settings>,
    mut centre: MessageWriter<CentreOn>,
) -> Result {
    let Some(session) = session else { return Ok(()) };
    if !settings.turn_panel {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "turn_root", free.0);
    let mut out: Vec<Action> = Vec::new();
    let mut select: Option<Entity> = None;
    let response = egui::Panel::left("turn_panel").resizable(true).default_size(270.0).size_range(240.0..=420.0).show(&mut root, |ui| {
        let mut tab = settings.left_tab;
        let fold = tabs(ui, &mut tab);
        settings.left_tab = tab;
        if fold {
            settings.turn_panel = false;
        }
        match tab {
            LeftTab::Turn => {
                turn_ui(ui, &session, selection.unit, (&mut solo_settings, &state), &mut select, &mut out);
            }
            LeftTab::Roster => {
                egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
                    select = roster::roster_ui(ui, &session, selection.unit);
                });
            }
        }
    });
    free.0.min.x = free.0.min.x.max(response.response.rect.max.x);
    for a in out {
        orders.write(Order(a));
    }
    if let Some(e) = select {
        selection.unit = Some(e);
        centre.write(CentreOn(e));
    }
    Ok(())
}

/// The left panel's tabs and its fold button; true if it was folded.
fn tabs(ui: &mut egui::Ui, tab: &mut LeftTab) -> bool {
    let mut fold = false;
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        ui.selectable_value(tab, LeftTab::Turn, RichText::new("Turn").strong()).on_hover_text("The sequence of play: the chit cup, the phasing brigade (F5 for the roster)");
        ui.selectable_value(tab, LeftTab::Roster, RichText::new("Roster").strong()).on_hover_text("Every unit of both sides (F5)");
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            fold = ui.add(egui::Button::new("◀").frame(false)).on_hover_text("Fold the panel away (F2)").clicked();
        });
    });
    ui.separator();
    fold
}

/// The turn tab. The heading, the step line and the main button come first at fixed heights;
/// refusals and status lines go to the foot of the panel: what changes length never moves a
/// button.
fn turn_ui(ui: &mut egui::Ui, session: &Session, selected: Option<Entity>, (settings, state): (&mut SoloSettings, &SoloState), select: &mut Option<Entity>, out: &mut Vec<Action>) -> Placed {
    let game = &session.game;
    let colours = side_colours(game);
    let colour = |side: usize| colours.get(side).copied().unwrap_or(Color32::GRAY);
    let brigades = brigades(game);
    let seq = game.sequence().clone();
    let selected_game = selected.and_then(|a| session.game_entity(a));
    let mut placed = Placed::default();
    // The turn record.
    let heading = match game.phase() {
        Phase::Setup => "Before the game".to_string(),
        Phase::Over => "Game over".to_string(),
        _ => match seq.turn_limit {
            Some(l) => format!("Turn {} of {l}", seq.turn),
            None => format!("Turn {}", seq.turn),
        },
    };
    ui.label(RichText::new(heading).heading().strong());
    let step = match game.phase() {
        Phase::Setup => "Roll commander values, then turn 1 (2.0, 4.2)".to_string(),
        Phase::Draw => "Draw a chit from the cup (4.3)".to_string(),
        Phase::Activation { chit } => format!("Chit {chit} is phasing: its brigade acts (4.3)"),
        Phase::Rebuild => "The cup is empty: rebuilds, then end the turn (4.4, 4.5)".to_string(),
        Phase::Over => format!("The turn limit has passed after turn {} (4.5)", seq.turn),
    };
    ui.add(egui::Label::new(RichText::new(&step).italics()).truncate()).on_hover_text(step);
    ui.add_space(4.0);
    placed.main = Some(main_step(ui, game, out));
    ui.add_space(4.0);
    // What was refused and what a save or load did: at the foot, where its length moves nothing.
    egui::Panel::bottom("turn_status").resizable(false).show_separator_line(true).show(ui, |ui| {
        if let Some((action, r)) = &session.last_refusal {
            egui::Frame::new().fill(Color32::from_rgb(70, 34, 30)).inner_margin(5.0).corner_radius(3.0).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(RichText::new(format!("Refused (OTP {}): {}", r.rule, r.reason)).color(REFUSED));
                ui.label(RichText::new(format!("asked: {action}")).small().weak());
            });
        }
        if let Some((text, error)) = &session.status {
            ui.label(RichText::new(text).small().color(if *error { REFUSED } else { Color32::from_gray(190) }));
        }
    });
    placed.body_top = ui.cursor().top();
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        match game.phase() {
            Phase::Setup => setup(ui, game, &brigades, &colour),
            Phase::Over => {
                if let Some(s) = game.summary() {
                    summary_ui(ui, &s, &colour);
                }
            }
            phase => {
                section(ui, "The chit cup (4.3)");
                for b in &brigades {
                    let drawn = seq.drawn.contains(&b.chit) && seq.phasing != Some(b.chit);
                    let phasing = seq.phasing == Some(b.chit);
                    ui.horizontal(|ui| {
                        chit_disc(ui, b.chit, colour(b.side), drawn);
                        let side = game.scenario().sides.get(b.side).map_or("", |s| s.name.as_str());
                        let text = RichText::new(format!("{} ({side})", b.name));
                        let text = if phasing {
                            text.strong().color(Color32::WHITE)
                        } else if drawn {
                            text.color(Color32::from_gray(150)).strikethrough()
                        } else {
                            text
                        };
                        let state = if phasing { "phasing" } else if drawn { "drawn this turn" } else { "in the cup" };
                        ui.add(egui::Label::new(text).wrap()).on_hover_text(format!("Chit {}, {state}: {}", b.chit, commander_line(game, b.commander)));
                    });
                }
                ui.label(RichText::new(format!("{} chit{} in the cup", seq.cup.len(), if seq.cup.len() == 1 { "" } else { "s" })).small().weak());
                if let Phase::Activation { chit } = phase
                    && let Some(b) = brigades.iter().find(|b| b.chit == chit)
                {
                    activation(ui, game, b, colour(b.side), selected_game, session, select, out);
                }
                if phase == Phase::Rebuild {
                    rebuild(ui, game, &colour, session, select, out);
                }
                commanders_ui(ui, game, &brigades, &colour);
            }
        }
        section(ui, "Solo play");
        solo::controls(ui, settings, state, session, &colours);
    });
    placed
}

/// The one button for the step the sequence of play waits on, always in the same place (greyed
/// when there is none), with its key.
fn main_step(ui: &mut egui::Ui, game: &Game, out: &mut Vec<Action>) -> egui::Rect {
    let (text, shortcut, hint, action) = match game.phase() {
        Phase::Setup => ("▶ Start the game", None, "Roll COMMANDER VALUES for every commander without a rating, then begin turn 1 (2.0, 4.2)", Some(Action::StartGame)),
        Phase::Draw => ("🎲 Draw a chit", Some(Shortcut::Draw), "Draw a chit: its brigade is phasing (4.3)", Some(Action::DrawChit)),
        Phase::Activation { .. } => ("End activation", Some(Shortcut::End), "The phasing brigade has finished: its chit is set aside (4.3)", Some(Action::EndActivation)),
        Phase::Rebuild => ("End the turn", Some(Shortcut::End), "Check off the turn and refill the cup (4.5)", Some(Action::EndTurn)),
        Phase::Over => ("Game over", None, "The turn limit has passed (4.5)", None),
    };
    let w = ui.available_width();
    let mut b = egui::Button::new(RichText::new(text).size(16.0).strong().color(Color32::from_rgb(250, 244, 224))).fill(Color32::from_rgb(70, 96, 58));
    if let Some(k) = shortcut {
        b = b.shortcut_text(RichText::new(key(k)).size(14.0).color(Color32::from_rgb(215, 225, 200)));
    }
    let hint = match shortcut {
        Some(k) => format!("{hint} — {}", key(k)),
        None => hint.to_string(),
    };
    let r = ui.add_enabled_ui(action.is_some(), |ui| ui.add_sized([w, 34.0], b).on_hover_text(hint)).inner;
    if r.clicked()
        && let Some(a) = action
    {
        out.push(a);
    }
    r.rect
}

fn setup(ui: &mut egui::Ui, game: &Game, brigades: &[BrigadeRow], colour: &dyn Fn(usize) -> Color32) {
    let scenario = game.scenario();
    ui.add_space(4.0);
    ui.label(RichText::new(&scenario.name).strong().size(15.0));
    if let Some(l) = scenario.turn_limit {
        ui.label(RichText::new(format!("{l} turns")).weak());
    }
    for (i, side) in scenario.sides.iter().enumerate() {
        ui.add_space(6.0);
        ui.separator();
        ui.horizontal(|ui| {
            swatch(ui, colour(i));
            ui.label(RichText::new(&side.name).strong());
        });
        if let Some((c, _)) = game.commanders().find(|(_, c)| c.side == i && c.brigade.is_none()) {
            ui.label(RichText::new(format!("Commanding: {}", commander_line(game, c))).small());
        }
        for b in brigades.iter().filter(|b| b.side == i) {
            ui.horizontal(|ui| {
                chit_disc(ui, b.chit, colour(i), false);
                ui.vertical(|ui| {
                    ui.label(RichText::new(&b.name).color(Color32::from_gray(225)));
                    ui.label(RichText::new(commander_line(game, b.commander)).small().weak());
                });
            });
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn activation(ui: &mut egui::Ui, game: &Game, b: &BrigadeRow, colour: Color32, selected: Option<Entity>, session: &Session, select: &mut Option<Entity>, out: &mut Vec<Action>) {
    let side = game.scenario().sides.get(b.side).map_or("", |s| s.name.as_str());
    section(ui, "Phasing brigade");
    ui.horizontal(|ui| {
        chit_disc(ui, b.chit, colour, false);
        ui.label(RichText::new(format!("{} ({side})", b.name)).strong());
    });
    ui.label(RichText::new(commander_line(game, b.commander)).small());
    let units: Vec<Entity> = game.units().filter(|(_, u)| game.world().get::<Brigade>(u.brigade).is_some_and(|x| x.chit == b.chit)).map(|(e, _)| e).collect();
    ui.add_space(4.0);
    for &e in &units {
        let u = game.unit(e);
        let (state, tint) = unit_state(game, e);
        ui.horizontal(|ui| {
            let text = RichText::new(&u.name).strong();
            if ui.selectable_label(selected == Some(e), text).on_hover_text("Select: its unit sheet and orders").clicked() {
                *select = session.app_entity(e);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.label(RichText::new(format!("{} figs · {}", u.figures, formation_name(u.formation))).small().weak());
            });
        });
        let state = RichText::new(state).small();
        ui.horizontal(|ui| {
            ui.add_space(8.0);
            ui.add(egui::Label::new(match tint {
                Some(c) => state.color(c),
                None => state.weak(),
            }).wrap());
        });
    }
    // 10.1–10.5: markers come off (or not) before the brigade acts.
    let marked: Vec<Entity> = units.iter().copied().filter(|&e| game.has_marker(e) || game.unit_turn(e).morale.as_ref().is_some_and(|r| !r.rerolled && game.unit_turn(e).done.is_empty())).collect();
    if !marked.is_empty() {
        section(ui, "Morale markers (10.1–10.5)");
        for e in marked {
            morale_step(ui, game, e, out);
        }
    }
}

fn rebuild(ui: &mut egui::Ui, game: &Game, colour: &dyn Fn(usize) -> Color32, session: &Session, select: &mut Option<Entity>, out: &mut Vec<Action>) {
    section(ui, "Rebuilding (4.4, 11.0)");
    let mut any = false;
    for (e, u) in game.units() {
        let tried = game.unit_turn(e).rebuild_tried;
        let may = game.check_rebuild(&u.name).is_ok();
        if !may && !tried {
            continue;
        }
        any = true;
        ui.horizontal(|ui| {
            swatch(ui, colour(u.side));
            if ui.selectable_label(false, RichText::new(&u.name).strong()).clicked() {
                *select = session.app_entity(e);
            }
            ui.label(RichText::new(format!("{}/{} figs", u.figures, u.initial_figures)).small().weak());
        });
        if may {
            if ui.button("Attempt rebuild").on_hover_text("D10 on the UNIT REBUILDING TABLE (11.0)").clicked() {
                out.push(Action::AttemptRebuild { unit: u.name.clone() });
            }
        } else {
            ui.label(RichText::new("tried this turn").small().weak());
        }
    }
    if !any {
        ui.label(RichText::new("No unit in reserve status may rebuild this turn.").weak());
    }
}

fn commanders_ui(ui: &mut egui::Ui, game: &Game, brigades: &[BrigadeRow], colour: &dyn Fn(usize) -> Color32) {
    ui.add_space(6.0);
    egui::CollapsingHeader::new(RichText::new("Commanders (2.0, 10.4)").strong().size(13.5).color(HEADING)).id_salt("turn_commanders").default_open(game.turn() <= 1).show(ui, |ui| {
        for (c, cmd) in game.commanders() {
            ui.horizontal(|ui| {
                swatch(ui, colour(cmd.side));
                let chit = brigades.iter().find(|b| b.commander == c).map(|b| format!(" (chit {})", b.chit)).unwrap_or_default();
                ui.add(egui::Label::new(RichText::new(format!("{}{chit}", commander_line(game, c))).small()).wrap());
            });
        }
    });
}

/// The points each side scored, and who won by them (4.5).
fn winner(s: &Summary) -> String {
    let mut sides: Vec<_> = s.sides.iter().collect();
    sides.sort_by_key(|x| std::cmp::Reverse(x.points));
    match sides[..] {
        [a, b, ..] if a.points == b.points => format!("A draw on points ({} each)", a.points),
        [a, b, ..] => format!("{} win on points, {} to {}", a.side, a.points, b.points),
        [a] => format!("{}: {} points", a.side, a.points),
        [] => "No sides".into(),
    }
}

fn summary_ui(ui: &mut egui::Ui, s: &Summary, colour: &dyn Fn(usize) -> Color32) {
    section(ui, "The end of the game (4.5)");
    ui.label(RichText::new(winner(s)).strong().size(15.0));
    ui.label(RichText::new(format!("{} turns played", s.turns_played)).weak());
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    for (i, side) in s.sides.iter().enumerate() {
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            swatch(ui, colour(i));
            ui.label(RichText::new(&side.side).strong());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| ui.label(RichText::new(format!("{} pts", side.points)).strong()));
        });
        egui::Grid::new(("summary", i)).num_columns(2).spacing([10.0, 3.0]).striped(true).show(ui, |ui| {
            for (k, v) in [
                ("Figures lost", side.figures_lost.to_string()),
                ("Broken", list(&side.units_broken)),
                ("Off the table", list(&side.units_off_table)),
                ("Objectives", list(&side.objectives_held)),
            ] {
                ui.label(RichText::new(k).weak().small());
                ui.add(egui::Label::new(RichText::new(v).small()).wrap());
                ui.end_row();
            }
        });
    }
    if !s.objectives_unheld.is_empty() {
        ui.add_space(4.0);
        ui.label(RichText::new(format!("Held by nobody: {}", list(&s.objectives_unheld))).small().weak());
    }
}

/// A centred window when the game ends: the winner by points; closed until the next game.
fn game_over(mut contexts: EguiContexts, session: Option<Res<Session>>, mut closed: Local<Option<usize>>) -> Result {
    let Some(session) = session else { return Ok(()) };
    let Some(s) = session.game.summary() else { return Ok(()) };
    let key = session.game.actions().len();
    if *closed == Some(key) {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let colours = side_colours(&session.game);
    let mut close = false;
    egui::Window::new("Game over").collapsible(false).resizable(false).anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO).show(ctx, |ui| {
        ui.label(RichText::new(winner(&s)).size(20.0).strong().color(HEADING));
        ui.label(RichText::new(format!("after {} turns (4.5)", s.turns_played)).weak());
        ui.add_space(6.0);
        egui::Grid::new("game_over_grid").num_columns(5).spacing([14.0, 4.0]).striped(true).show(ui, |ui| {
            for h in ["Side", "Points", "Figures lost", "Broken", "Objectives"] {
                ui.label(RichText::new(h).weak());
            }
            ui.end_row();
            for (i, side) in s.sides.iter().enumerate() {
                ui.horizontal(|ui| {
                    swatch(ui, colours.get(i).copied().unwrap_or(Color32::GRAY));
                    ui.label(RichText::new(&side.side).strong());
                });
                ui.label(RichText::new(side.points.to_string()).strong());
                ui.label(side.figures_lost.to_string());
                ui.label(side.units_broken.len().to_string());
                ui.label(if side.objectives_held.is_empty() { "—".to_string() } else { side.objectives_held.join(", ") });
                ui.end_row();
            }
        });
        ui.add_space(6.0);
        if ui.button("Close").clicked() {
            close = true;
        }
    });
    if close {
        *closed = Some(key);
    }
    Ok(())
}

/// The phasing brigade on the table: a soft glow in its side's colour around each unit.
fn halo(
    mut contexts: EguiContexts,
    session: Option<Res<Session>>,
    view: Res<View>,
    units: Query<&Unit>,
    brigades: Query<&Brigade>,
    sides: Query<&SideInfo>,
    stands: Query<&Footprint, With<Stand>>,
) -> Result {
    let Some(chit) = session.as_ref().and_then(|s| s.game.sequence().phasing) else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let margin = (5.0 / view.ppi).max(0.12);
    let mut out = Vec::new();
    for u in units.iter().filter(|u| brigades.get(u.brigade).is_ok_and(|b| b.chit == chit)) {
        let rgb = sides.iter().find(|s| s.index == u.side).map_or([200, 200, 200], |s| s.colour);
        // Lifted toward white so a dark side colour still shows on the cloth.
        let light = |k: f32| rgb.map(|c| (c as f32 + (255.0 - c as f32) * k) as u8);
        let [r, g, b] = light(0.3);
        let [lr, lg, lb] = light(0.6);
        let corners: Vec<Vec2> = u
            .stands
            .iter()
            .filter_map(|&s| stands.get(s).ok())
            .flat_map(|f| Footprint { frontage: f.frontage + 2.0 * margin, depth: f.depth + 2.0 * margin, ..*f }.corners())
            .collect();
        if corners.is_empty() {
            continue;
        }
        let hull: Vec<egui::Pos2> = convex_hull(&corners).into_iter().map(|p| view.to_screen(p)).collect();
        out.push(egui::Shape::closed_line(hull.clone(), egui::Stroke::new(8.0, Color32::from_rgba_unmultiplied(r, g, b, 95))));
        out.push(egui::Shape::closed_line(hull, egui::Stroke::new(2.0, Color32::from_rgba_unmultiplied(lr, lg, lb, 240))));
    }
    painter.extend(out);
    Ok(())
}

/// `OTP_PLAY`'s orders, sent once the window's fonts are in (every view can then show them).
#[derive(Resource, Default)]
struct PendingPlay(Vec<Play>);

/// One word of `OTP_PLAY`.
#[derive(Clone, Debug, PartialEq)]
enum Play {
    Order(Action),
    Load(std::path::PathBuf),
}

/// `OTP_PLAY`: orders to send at start (see the module docs).
fn presets(mut pending: ResMut<PendingPlay>) {
    let Ok(text) = std::env::var("OTP_PLAY") else { return };
    pending.0 = text.split(',').map(str::trim).filter(|w| !w.is_empty()).filter_map(play_word).collect();
}

fn play_pending(mut pending: ResMut<PendingPlay>, mut orders: MessageWriter<Order>, mut commands: MessageWriter<SessionCommand>) {
    for play in pending.0.drain(..) {
        match play {
            Play::Order(action) => {
                orders.write(Order(action));
            }
            Play::Load(path) => {
                commands.write(SessionCommand::Load(path));
            }
        }
    }
}

fn play_word(word: &str) -> Option<Play> {
    if let Some(path) = word.strip_prefix("load:") {
        return Some(Play::Load(path.trim().into()));
    }
    let parts: Vec<&str> = word.split(':').map(str::trim).collect();
    let action = match parts[..] {
        ["start"] => Action::StartGame,
        ["draw"] => Action::DrawChit,
        ["end"] => Action::EndActivation,
        ["endturn"] => Action::EndTurn,
        ["roll", unit] => Action::RemoveMarker { unit: unit.into(), how: Removal::Roll },
        ["pass", unit, commander] => Action::RemoveMarker { unit: unit.into(), how: Removal::Pass { commander: commander.into() } },
        ["rebuild", unit] => Action::AttemptRebuild { unit: unit.into() },
        _ => {
            eprintln!("OTP_PLAY: {word:?} is not one of start, draw, end, endturn, roll:UNIT, pass:UNIT:COMMANDER, rebuild:UNIT, load:FILE; ignored");
            return None;
        }
    };
    Some(Play::Order(action))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::charts::Charts;

    #[test]
    fn play_words_name_the_actions() {
        assert_eq!(play_word("start"), Some(Play::Order(Action::StartGame)));
        assert_eq!(play_word("roll:Loyalist Militia"), Some(Play::Order(Action::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::Roll })));
        assert_eq!(play_word("pass:A:B"), Some(Play::Order(Action::RemoveMarker { unit: "A".into(), how: Removal::Pass { commander: "B".into() } })));
        assert_eq!(play_word("load:/tmp/a.ron"), Some(Play::Load("/tmp/a.ron".into())));
        assert_eq!(play_word("jump"), None);
    }

    // OTP 4.3: the cup lists every brigade by chit, in order.
    #[test]
    fn brigades_in_chit_order() {
        let g = Game::new(crate::scenario::default_scenario(), 1, Charts::embedded().clone());
        let chits: Vec<u32> = brigades(&g).iter().map(|b| b.chit).collect();
        assert_eq!(chits, vec![1, 2, 3, 4]);
    }

    // OTP 10.2: a marked unit of the phasing brigade is told to shed its marker first; after
    // its roll the panel says what it rolled.
    #[test]
    fn unit_state_follows_the_morale_step() {
        let mut g = Game::new(crate::scenario::default_scenario(), 4, Charts::embedded().clone());
        g.apply(Action::StartGame).unwrap();
        g.apply(Action::DrawChit).unwrap();
        assert_eq!(g.phasing_brigade().as_deref(), Some("Tarleton's Brigade"), "seed 4 draws chit 2 first");
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        let (text, tint) = unit_state(&g, militia);
        assert!(text.contains("remove it first (10.2)") && tint == Some(MARKER), "{text}");
        g.apply(Action::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::Roll }).unwrap();
        let (text, _) = unit_state(&g, militia);
        assert!(text.contains("rolled") || text.contains("kept"), "{text}");
        let dragoons = g.unit_entity("British Legion Dragoons").unwrap();
        assert_eq!(unit_state(&g, dragoons).0, "no operation yet");
    }

    /// Draw the turn tab in a bare egui context the window's size, as the left panel does.
    fn placed(session: &Session) -> Placed {
        let ctx = egui::Context::default();
        let mut placed = Placed::default();
        let input = egui::RawInput { screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 640.0))), ..Default::default() };
        // Two passes: egui settles sizes in the first.
        for _ in 0..2 {
            let _ = ctx.run_ui(input.clone(), |ui| {
                egui::Panel::left("turn_panel").default_size(270.0).show(ui, |ui| {
                    placed = turn_ui(ui, session, None, (&mut SoloSettings::default(), &SoloState::default()), &mut None, &mut Vec::new());
                });
            });
        }
        placed
    }

    // Issue 13, defect 10: a refusal and a status line appearing used to push the panel's
    // buttons down under the pointer. OTP 4.3: the activation's End button stays put.
    #[test]
    fn buttons_keep_their_places_when_a_refusal_appears() {
        let mut g = Game::new(crate::scenario::default_scenario(), 4, Charts::embedded().clone());
        g.apply(Action::StartGame).unwrap();
        g.apply(Action::DrawChit).unwrap();
        let mut session = Session::new(g);
        let before = placed(&session);
        assert!(before.main.is_some_and(|r| r.height() >= 30.0), "{before:?}");
        // OTP 4.3: a second chit may not be drawn while a brigade is phasing.
        assert!(session.apply(Action::DrawChit).is_err());
        session.status = Some(("a very long status line that says what a save did, and where, and wraps over several lines of the panel".into(), false));
        assert!(session.last_refusal.is_some());
        let after = placed(&session);
        assert_eq!(before, after, "nothing moved");
    }

    // OTP 4.5: the winner is the side with more points; equal points are a draw.
    #[test]
    fn the_winner_is_read_from_the_points() {
        let side = |name: &str, points| crate::rules::otp::engine::SideSummary { side: name.into(), figures_lost: 0, units_broken: vec![], units_off_table: vec![], objectives_held: vec![], points };
        let s = Summary { turns_played: 10, sides: vec![side("British", 1), side("Americans", 3)], objectives_unheld: vec![] };
        assert_eq!(winner(&s), "Americans win on points, 3 to 1");
        let s = Summary { sides: vec![side("British", 2), side("Americans", 2)], ..s };
        assert!(winner(&s).starts_with("A draw"));
    }
}
