//! The turn panel (left): the sequence of play as the players follow it. Before the game, the
//! scenario, its sides and the start; then the turn and its limit, the track the turn works
//! through (OTP's chit cup), the acting brigade with its units, the steps that are one unit's
//! choice each (OTP's morale markers and rebuilds), and at the end the summary. The acting
//! units are outlined on the table in their side's colour.
//!
//! Everything here is asked of the engine interface: the [`SequenceView`], the sequence's
//! [`Choice`]s (each button greyed with the engine's own refusal), the odds of a roll from
//! `Engine::preview`, the end from `Engine::summary`. Every button sends an [`Order`].
//!
//! Preset, read at start: `OTP_PLAY="start,draw"` sends those orders at start, one a frame:
//! `start`, `draw`, `end`, `endturn` (each goes on with the sequence), `roll:UNIT` (the unit's
//! roll), `pass:UNIT:COMMANDER` (the commander's pass for it), `rebuild:UNIT`, and `load:FILE`
//! (a saved game, loaded as from the Open window). They go once the window's fonts are in. For
//! screenshots; see also `OTP_AUTO` in `solo`.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::paint;
use super::session::{Order, Session, SessionCommand};
use super::camera::CentreOn;
use super::roster;
use super::settings::{LeftTab, Settings};
use super::solo::{self, SoloSettings, SoloState};
use super::keys::{Shortcut, key};
use super::table_view::Selection;
use super::{FreeRect, PanelOrder, UiSet, root_ui};
use crate::rules::action::Action;
use crate::rules::engine::{Choice, Engine, Preview, SequenceView, Topic, TrackState};
use crate::rules::report::{Refusal, Summary};
use crate::scenario::spawn::{Brigade, Commander, SideInfo, Stand, Unit, side_colour};
use crate::table::footprint::Footprint;
use crate::table::geom::convex_hull;
use crate::table::words::formation;

const HEADING: Color32 = Color32::from_rgb(226, 214, 170);
const REFUSED: Color32 = Color32::from_rgb(240, 130, 110);
const MARKER: Color32 = Color32::from_rgb(250, 210, 40);
const ODDS: Color32 = Color32::from_rgb(120, 160, 200);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PendingPlay>().add_systems(PostStartup, presets).add_systems(Update, play_pending.run_if(super::fonts_ready)).add_systems(
        EguiPrimaryContextPass,
        (panel.in_set(PanelOrder::Left), halo.in_set(UiSet::Tools).run_if(super::fonts_ready), game_over.in_set(UiSet::Windows)),
    );
}

/// A brigade as the table has it.
struct BrigadeRow {
    entity: Entity,
    chit: u32,
    name: String,
    side: usize,
    commander: Entity,
}

/// The game's brigades in chit order.
fn brigades(engine: &dyn Engine) -> Vec<BrigadeRow> {
    let world = engine.world();
    let Some(mut q) = world.try_query::<(Entity, &Brigade)>() else { return Vec::new() };
    let mut v: Vec<BrigadeRow> = q.iter(world).map(|(entity, b)| BrigadeRow { entity, chit: b.chit, name: b.name.clone(), side: b.side, commander: b.commander }).collect();
    v.sort_by_key(|b| b.chit);
    v
}

/// The commanders in the order they were set up (each side's overall commander first).
fn commanders(engine: &dyn Engine) -> Vec<(Entity, &Commander)> {
    let world = engine.world();
    let Some(mut q) = world.try_query::<(Entity, &Commander)>() else { return Vec::new() };
    let mut v: Vec<(Entity, &Commander)> = q.iter(world).collect();
    v.sort_by_key(|(e, c)| (c.side, c.brigade.is_some(), e.index_u32()));
    v
}

fn side_colours(engine: &dyn Engine) -> Vec<Color32> {
    engine.scenario().sides.iter().enumerate().map(|(i, s)| paint::rgb(side_colour(s, i))).collect()
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

fn marker(ui: &mut egui::Ui) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
    ui.painter().circle(r.center(), 5.5, MARKER, egui::Stroke::new(1.0, Color32::from_gray(20)));
}

/// A chit: its number in a disc of its side's colour, greyed once drawn.
fn chit_disc(ui: &mut egui::Ui, chit: u32, colour: Color32, drawn: bool) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(20.0, 20.0), egui::Sense::hover());
    let fill = if drawn { Color32::from_gray(70) } else { colour };
    ui.painter().circle(r.center(), 9.0, fill, egui::Stroke::new(1.2, if drawn { Color32::from_gray(110) } else { Color32::from_gray(230) }));
    let text = if drawn { Color32::from_gray(150) } else { Color32::WHITE };
    ui.painter().text(r.center(), egui::Align2::CENTER_CENTER, chit.to_string(), egui::FontId::proportional(12.0), text);
}

/// The chance of each outcome of a roll, as bars, from the engine's preview.
fn odds_ui(ui: &mut egui::Ui, preview: &Preview, id: &str) {
    for (b, block) in preview.blocks.iter().enumerate().filter(|(_, b)| !b.odds.is_empty()) {
        ui.label(RichText::new(&block.heading).small().weak());
        egui::Grid::new(("roll_odds", id, b)).num_columns(3).spacing([6.0, 2.0]).show(ui, |ui| {
            for o in &block.odds {
                // What the outcome does, where the preview says so ("Retreat 2: …").
                let explain = block.facts.iter().find(|f| f.text.strip_prefix(o.outcome.as_str()).is_some_and(|t| t.starts_with(": "))).map(|f| f.text.as_str());
                let label = ui.label(RichText::new(&o.outcome).small());
                if let Some(t) = explain {
                    label.on_hover_text(t);
                }
                let (r, _) = ui.allocate_exact_size(egui::vec2(80.0, 9.0), egui::Sense::hover());
                ui.painter().rect_filled(r, 2.0, Color32::from_gray(50));
                let mut filled = r;
                filled.set_width((r.width() * o.chance as f32).max(1.0));
                ui.painter().rect_filled(filled, 2.0, ODDS);
                ui.label(RichText::new(format!("{:.0}%", o.chance * 100.0)).small().monospace());
                ui.end_row();
            }
        });
    }
}

/// Refused with its rule, small and under the greyed button.
fn reason(ui: &mut egui::Ui, r: &Refusal) {
    ui.label(RichText::new(format!("{}: {}", r.cite(), r.reason)).small().color(Color32::from_gray(150)));
}

/// A button for one of the engine's choices, greyed with its refusal; true when clicked.
fn choice_button(ui: &mut egui::Ui, c: &Choice) -> bool {
    let label = if c.rolls { format!("🎲 {}", c.label) } else { c.label.clone() };
    let clicked = ui.add_enabled(c.allowed(), egui::Button::new(label).wrap()).clicked();
    if let Err(r) = &c.verdict {
        reason(ui, r);
    }
    clicked
}

/// One unit's part in a step of unit choices (a morale step, a rebuild): its name and state,
/// the odds of its roll, and its buttons.
#[allow(clippy::too_many_arguments)]
fn unit_box(ui: &mut egui::Ui, engine: &dyn Engine, e: Entity, choices: &[&Choice], colour: Color32, session: &Session, select: &mut Option<Entity>, out: &mut Vec<Action>) {
    let Some(u) = engine.world().get::<Unit>(e) else { return };
    let status = engine.unit_status(e);
    egui::Frame::group(ui.style()).inner_margin(6.0).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            if status.marked {
                marker(ui);
            } else {
                swatch(ui, colour);
            }
            if ui.selectable_label(false, RichText::new(&u.name).strong()).clicked() {
                *select = session.app_entity(e);
            }
            ui.label(RichText::new(format!("{}/{} figs", u.figures, u.initial_figures)).small().weak());
        });
        let state = RichText::new(status.parts.join(" · ")).small();
        ui.add(egui::Label::new(if status.marked { state.color(MARKER) } else { state.weak() }).wrap());
        // The odds of the first roll it may make, as the engine previews them.
        if let Some(Ok(Some(p))) = choices.iter().find(|c| c.rolls && c.allowed()).map(|c| engine.preview(&c.action)) {
            odds_ui(ui, &p, &u.name);
        }
        for c in choices {
            if choice_button(ui, c) {
                out.push(c.action.clone());
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
        ui.selectable_value(tab, LeftTab::Turn, RichText::new("Turn").strong()).on_hover_text("The sequence of play: what the turn works through, and who acts now (F5 for the roster)");
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
    let engine = session.engine();
    let colours = side_colours(engine);
    let colour = |side: usize| colours.get(side).copied().unwrap_or(Color32::GRAY);
    let brigades = brigades(engine);
    let seq = engine.sequence();
    let choices = engine.choices();
    let selected_game = selected.and_then(|a| session.game_entity(a));
    let mut placed = Placed::default();
    // The turn record.
    let heading = if !seq.started {
        "Before the game".to_string()
    } else if seq.over {
        "Game over".to_string()
    } else {
        match seq.limit {
            Some(l) => format!("Turn {} of {l}", seq.turn),
            None => format!("Turn {}", seq.turn),
        }
    };
    ui.label(RichText::new(heading).heading().strong());
    ui.add(egui::Label::new(RichText::new(&seq.headline).italics()).truncate()).on_hover_text(&seq.headline);
    ui.add_space(4.0);
    placed.main = Some(main_step(ui, &seq, &choices, out));
    ui.add_space(4.0);
    // What was refused and what a save or load did: at the foot, where its length moves nothing.
    egui::Panel::bottom("turn_status").resizable(false).show_separator_line(true).show(ui, |ui| {
        if let Some((action, r)) = &session.last_refusal {
            egui::Frame::new().fill(Color32::from_rgb(70, 34, 30)).inner_margin(5.0).corner_radius(3.0).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(RichText::new(format!("Refused ({}): {}", r.cite(), r.reason)).color(REFUSED));
                ui.label(RichText::new(format!("asked: {action}")).small().weak());
            });
        }
        if let Some((text, error)) = &session.status {
            ui.label(RichText::new(text).small().color(if *error { REFUSED } else { Color32::from_gray(190) }));
        }
    });
    placed.body_top = ui.cursor().top();
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        if !seq.started {
            setup(ui, engine, &brigades, &colour);
        } else if seq.over {
            if let Some(s) = engine.summary() {
                summary_ui(ui, &s, &colour);
            }
        } else {
            track(ui, engine, &seq, &brigades, &colour);
            if let Some(b) = acting_brigade(engine, &seq, &brigades) {
                activation(ui, engine, &seq, b, colour(b.side), selected_game, session, select);
            }
            unit_steps(ui, engine, &seq, &choices, &colour, session, select, out);
            commanders_ui(ui, engine, &seq, &brigades, &colour);
        }
        section(ui, "Solo play");
        solo::controls(ui, settings, state, session, &colours);
    });
    placed
}

/// What the turn works through (OTP's chit cup), each item in its side's colour when it is a
/// brigade of the table, greyed once done.
fn track(ui: &mut egui::Ui, engine: &dyn Engine, seq: &SequenceView, brigades: &[BrigadeRow], colour: &dyn Fn(usize) -> Color32) {
    section(ui, &engine.track_heading());
    for (i, item) in seq.track.iter().enumerate() {
        let brigade = brigades.iter().find(|b| b.name == item.label);
        let done = item.state == TrackState::Done;
        let current = item.state == TrackState::Current;
        ui.horizontal(|ui| {
            chit_disc(ui, brigade.map_or(i as u32 + 1, |b| b.chit), brigade.map_or(Color32::GRAY, |b| colour(b.side)), done);
            let side = brigade.and_then(|b| engine.scenario().sides.get(b.side)).map(|s| format!(" ({})", s.name)).unwrap_or_default();
            let text = RichText::new(format!("{}{side}", item.label));
            let text = if current {
                text.strong().color(Color32::WHITE)
            } else if done {
                text.color(Color32::from_gray(150)).strikethrough()
            } else {
                text
            };
            ui.add(egui::Label::new(text).wrap()).on_hover_text(&item.detail);
        });
    }
    let waiting = seq.track.iter().filter(|t| t.state == TrackState::Waiting).count();
    ui.label(RichText::new(format!("{waiting} still to come")).small().weak());
}

/// The brigade the acting units belong to, if one is acting.
fn acting_brigade<'a>(engine: &dyn Engine, seq: &SequenceView, brigades: &'a [BrigadeRow]) -> Option<&'a BrigadeRow> {
    let world = engine.world();
    let brigade = seq.acting.iter().find_map(|&e| world.get::<Unit>(e)).and_then(|u| world.get::<Brigade>(u.brigade))?;
    brigades.iter().find(|b| b.name == brigade.name)
}

/// The one button for the step the sequence of play waits on (the engine's choice that is no
/// unit's), always in the same place (greyed when there is none, or with the engine's refusal),
/// with its key.
fn main_step(ui: &mut egui::Ui, seq: &SequenceView, choices: &[Choice], out: &mut Vec<Action>) -> egui::Rect {
    let choice = go_on(choices);
    let shortcut = choice.and_then(|c| go_on_key(seq, c));
    let text = match choice {
        Some(c) if !seq.started => format!("▶ {}", c.label),
        Some(c) if c.rolls => format!("🎲 {}", c.label),
        Some(c) => c.label.clone(),
        None => "Game over".to_string(),
    };
    let w = ui.available_width();
    let mut b = egui::Button::new(RichText::new(text).size(16.0).strong().color(Color32::from_rgb(250, 244, 224))).fill(Color32::from_rgb(70, 96, 58));
    if let Some(k) = shortcut {
        b = b.shortcut_text(RichText::new(key(k)).size(14.0).color(Color32::from_rgb(215, 225, 200)));
    }
    let hint = match shortcut {
        Some(k) => format!("{} — {}", seq.headline, key(k)),
        None => seq.headline.clone(),
    };
    let allowed = choice.is_some_and(Choice::allowed);
    let mut r = ui.add_enabled_ui(allowed, |ui| ui.add_sized([w, 34.0], b).on_hover_text(&hint)).inner;
    if let Some(Err(refusal)) = choice.map(|c| &c.verdict) {
        r = r.on_disabled_hover_text(format!("{}: {}", refusal.cite(), refusal.reason));
    }
    if r.clicked()
        && let Some(c) = choice
    {
        out.push(c.action.clone());
    }
    r.rect
}

/// The sequence's own choice: going on (start, draw, end the activation or the turn).
pub(crate) fn go_on(choices: &[Choice]) -> Option<&Choice> {
    choices.iter().find(|c| c.about.is_none())
}

/// The key for going on: D when it draws (it rolls), End when it ends something; none before
/// the game.
pub(crate) fn go_on_key(seq: &SequenceView, choice: &Choice) -> Option<Shortcut> {
    match (seq.started, choice.rolls) {
        (false, _) => Some(Shortcut::Start),
        (true, true) => Some(Shortcut::Draw),
        (true, false) => Some(Shortcut::End),
    }
}

fn setup(ui: &mut egui::Ui, engine: &dyn Engine, brigades: &[BrigadeRow], colour: &dyn Fn(usize) -> Color32) {
    let scenario = engine.scenario();
    ui.add_space(4.0);
    ui.label(RichText::new(&scenario.name).strong().size(15.0));
    if let Some(l) = scenario.turn_limit {
        ui.label(RichText::new(format!("{l} turns")).weak());
    }
    let leaders = commanders(engine);
    for (i, side) in scenario.sides.iter().enumerate() {
        ui.add_space(6.0);
        ui.separator();
        ui.horizontal(|ui| {
            swatch(ui, colour(i));
            ui.label(RichText::new(&side.name).strong());
        });
        if let Some((c, _)) = leaders.iter().find(|(_, c)| c.side == i && c.brigade.is_none()) {
            ui.label(RichText::new(format!("Commanding: {}", engine.leader_line(*c))).small());
        }
        for b in brigades.iter().filter(|b| b.side == i) {
            ui.horizontal(|ui| {
                chit_disc(ui, b.chit, colour(i), false);
                ui.vertical(|ui| {
                    ui.label(RichText::new(&b.name).color(Color32::from_gray(225)));
                    ui.label(RichText::new(engine.leader_line(b.commander)).small().weak());
                });
            });
        }
    }
}

/// The acting brigade: its leader and its units, each with what it has done.
#[allow(clippy::too_many_arguments)]
fn activation(ui: &mut egui::Ui, engine: &dyn Engine, seq: &SequenceView, b: &BrigadeRow, colour: Color32, selected: Option<Entity>, session: &Session, select: &mut Option<Entity>) {
    let side = engine.scenario().sides.get(b.side).map_or("", |s| s.name.as_str());
    section(ui, &engine.words(Topic::ActingHeading).unwrap_or_default());
    ui.horizontal(|ui| {
        chit_disc(ui, b.chit, colour, false);
        ui.label(RichText::new(format!("{} ({side})", b.name)).strong());
    });
    ui.label(RichText::new(engine.leader_line(b.commander)).small());
    ui.add_space(4.0);
    for &e in &seq.acting {
        let Some(u) = engine.world().get::<Unit>(e) else { continue };
        let status = engine.unit_status(e);
        ui.horizontal(|ui| {
            let text = RichText::new(&u.name).strong();
            if ui.selectable_label(selected == Some(e), text).on_hover_text("Select: its unit sheet and orders").clicked() {
                *select = session.app_entity(e);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.label(RichText::new(format!("{} figs · {}", u.figures, formation(u.formation))).small().weak());
            });
        });
        let (text, tint) = roster::status_line(&status);
        let state = RichText::new(text).small();
        ui.horizontal(|ui| {
            ui.add_space(8.0);
            ui.add(egui::Label::new(match tint {
                Some(c) => state.color(c),
                None => state.weak(),
            }).wrap());
        });
    }
}

/// A step whose choices are one unit's each (OTP's morale markers, its rebuilds): a box a unit,
/// the acting units with a marker first, then every unit the choices name.
#[allow(clippy::too_many_arguments)]
fn unit_steps(ui: &mut egui::Ui, engine: &dyn Engine, seq: &SequenceView, choices: &[Choice], colour: &dyn Fn(usize) -> Color32, session: &Session, select: &mut Option<Entity>, out: &mut Vec<Action>) {
    let Some(step) = engine.unit_step() else { return };
    let world = engine.world();
    let name = |e: Entity| world.get::<Unit>(e).map(|u| u.name.as_str());
    let mut units: Vec<Entity> = seq.acting.iter().copied().filter(|&e| engine.unit_status(e).marked || choices.iter().any(|c| c.about.as_deref() == name(e))).collect();
    if let Some(mut q) = world.try_query::<(Entity, &Unit)>() {
        for c in choices.iter().filter(|c| c.about.is_some()) {
            if let Some((e, _)) = q.iter(world).find(|(_, u)| c.about.as_deref() == Some(u.name.as_str()))
                && !units.contains(&e)
            {
                units.push(e);
            }
        }
    }
    if units.is_empty() && step.none.is_empty() {
        return;
    }
    section(ui, &step.heading);
    if units.is_empty() {
        ui.label(RichText::new(&step.none).weak());
    }
    for e in units {
        let mine: Vec<&Choice> = choices.iter().filter(|c| c.about.is_some() && c.about.as_deref() == name(e)).collect();
        let side = world.get::<Unit>(e).map_or(0, |u| u.side);
        unit_box(ui, engine, e, &mine, colour(side), session, select, out);
    }
}

fn commanders_ui(ui: &mut egui::Ui, engine: &dyn Engine, seq: &SequenceView, brigades: &[BrigadeRow], colour: &dyn Fn(usize) -> Color32) {
    ui.add_space(6.0);
    egui::CollapsingHeader::new(RichText::new("Commanders").strong().size(13.5).color(HEADING)).id_salt("turn_commanders").default_open(seq.turn <= 1).show(ui, |ui| {
        for (c, cmd) in commanders(engine) {
            ui.horizontal(|ui| {
                swatch(ui, colour(cmd.side));
                let chit = brigades.iter().find(|b| b.commander == c).and_then(|b| engine.brigade_tag(b.entity)).map(|t| format!(" ({t})")).unwrap_or_default();
                ui.add(egui::Label::new(RichText::new(format!("{}{chit}", engine.leader_line(c))).small()).wrap());
            });
        }
    });
}

/// The points each side scored, and who won by them (4.5).
fn winner(s: &Summary) -> String {
    if let Some(result) = &s.result {
        return result.clone();
    }
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
    let engine = session.engine();
    let Some(s) = engine.summary() else { return Ok(()) };
    let key = engine.action_count();
    if *closed == Some(key) {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let colours = side_colours(engine);
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

/// The acting units on the table: a soft glow in their side's colour around each.
fn halo(
    mut contexts: EguiContexts,
    session: Option<Res<Session>>,
    view: Res<View>,
    units: Query<&Unit>,
    sides: Query<&SideInfo>,
    stands: Query<&Footprint, With<Stand>>,
) -> Result {
    let Some(session) = session else { return Ok(()) };
    let acting: Vec<Entity> = session.engine().sequence().acting.iter().filter_map(|&e| session.app_entity(e)).collect();
    if acting.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let margin = (5.0 / view.ppi).max(0.12);
    let mut out = Vec::new();
    for u in acting.iter().filter_map(|&e| units.get(e).ok()) {
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

/// `OTP_PLAY`'s orders, sent one a frame once the window's fonts are in (every view can then
/// show them, and each is taken before the next is chosen).
#[derive(Resource, Default)]
struct PendingPlay(std::collections::VecDeque<Play>);

/// One word of `OTP_PLAY`.
#[derive(Clone, Debug, PartialEq)]
enum Play {
    /// Go on with the sequence.
    Next,
    /// The unit's choice that rolls (`roll:`, `rebuild:`), or the one naming a commander (`pass:`).
    Choose { unit: String, commander: Option<String> },
    Load(std::path::PathBuf),
}

/// `OTP_PLAY`: orders to send at start (see the module docs).
fn presets(mut pending: ResMut<PendingPlay>) {
    let Ok(text) = std::env::var("OTP_PLAY") else { return };
    pending.0 = text.split(',').map(str::trim).filter(|w| !w.is_empty()).filter_map(play_word).collect();
}

fn play_pending(mut pending: ResMut<PendingPlay>, session: Option<Res<Session>>, mut orders: MessageWriter<Order>, mut commands: MessageWriter<SessionCommand>) {
    let Some(session) = session else { return };
    let Some(play) = pending.0.pop_front() else { return };
    match play {
        Play::Next => {
            orders.write(Order(Action::Next));
        }
        Play::Choose { unit, commander } => match chosen(&session.engine().choices(), &unit, commander.as_deref()) {
            Some(c) => {
                orders.write(Order(c.action.clone()));
            }
            None => eprintln!("OTP_PLAY: {unit} has no such choice now; skipped"),
        },
        Play::Load(path) => {
            commands.write(SessionCommand::Load(path));
        }
    }
}

/// The unit's choice a word names: with a commander, the one naming him (a pass); else the
/// one that rolls (a roll, a rebuild).
fn chosen<'a>(choices: &'a [Choice], unit: &str, commander: Option<&str>) -> Option<&'a Choice> {
    let mut mine = choices.iter().filter(|c| c.about.as_deref() == Some(unit));
    match commander {
        Some(name) => mine.find(|c| !c.rolls && c.label.contains(name)),
        None => mine.find(|c| c.rolls),
    }
}

fn play_word(word: &str) -> Option<Play> {
    if let Some(path) = word.strip_prefix("load:") {
        return Some(Play::Load(path.trim().into()));
    }
    let parts: Vec<&str> = word.split(':').map(str::trim).collect();
    Some(match parts[..] {
        ["start" | "draw" | "end" | "endturn"] => Play::Next,
        ["roll" | "rebuild", unit] => Play::Choose { unit: unit.into(), commander: None },
        ["pass", unit, commander] => Play::Choose { unit: unit.into(), commander: Some(commander.into()) },
        _ => {
            eprintln!("OTP_PLAY: {word:?} is not one of start, draw, end, endturn, roll:UNIT, pass:UNIT:COMMANDER, rebuild:UNIT, load:FILE; ignored");
            return None;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::rules::registry::open;

    /// The teaching battle under OTP with this seed, after these actions.
    fn game(seed: u64, actions: &[Action]) -> Box<dyn Engine> {
        let mut g = open(RuleSetId::Otp, crate::scenario::default_scenario(), seed).unwrap();
        for a in actions {
            g.apply(a.clone()).unwrap();
        }
        g
    }

    #[test]
    fn play_words_name_the_actions() {
        assert_eq!(play_word("start"), Some(Play::Next));
        assert_eq!(play_word("endturn"), Some(Play::Next));
        assert_eq!(play_word("roll:Loyalist Militia"), Some(Play::Choose { unit: "Loyalist Militia".into(), commander: None }));
        assert_eq!(play_word("pass:A:B"), Some(Play::Choose { unit: "A".into(), commander: Some("B".into()) }));
        assert_eq!(play_word("load:/tmp/a.ron"), Some(Play::Load("/tmp/a.ron".into())));
        assert_eq!(play_word("jump"), None);
    }

    // OTP 10.2, 10.4: `roll:` and `pass:` pick the engine's own choices for the unit.
    #[test]
    fn play_words_pick_the_engines_choices() {
        let g = game(4, &[Action::Next, Action::Next]);
        let choices = g.choices();
        let roll = chosen(&choices, "Loyalist Militia", None).expect("the militia may roll");
        assert!(roll.rolls && roll.about.as_deref() == Some("Loyalist Militia"));
        let pass = chosen(&choices, "Loyalist Militia", Some("Tarleton")).expect("Tarleton may be asked for a pass");
        assert!(!pass.rolls && pass.label.contains("Tarleton"), "{}", pass.label);
        assert!(chosen(&choices, "British Legion Dragoons", None).is_none(), "no marker, no roll");
    }

    // OTP 4.3: the cup lists every brigade by chit, in order.
    #[test]
    fn brigades_in_chit_order() {
        let chits: Vec<u32> = brigades(&*game(1, &[])).iter().map(|b| b.chit).collect();
        assert_eq!(chits, vec![1, 2, 3, 4]);
    }

    // OTP 10.2: a marked unit of the phasing brigade is told to shed its marker first; after
    // its roll the panel says what it rolled.
    #[test]
    fn unit_state_follows_the_morale_step() {
        let mut g = game(4, &[Action::Next, Action::Next]);
        let unit = |g: &dyn Engine, name: &str| g.sequence().acting.into_iter().find(|&e| g.world().get::<Unit>(e).is_some_and(|u| u.name == name)).expect("acting");
        let militia = unit(&*g, "Loyalist Militia");
        let (text, tint) = roster::status_line(&g.unit_status(militia));
        assert!(text.contains("remove it first (10.2)") && tint == Some(MARKER), "seed 4 draws Tarleton's chit first: {text}");
        let roll = chosen(&g.choices(), "Loyalist Militia", None).unwrap().action.clone();
        g.apply(roll).unwrap();
        let (text, _) = roster::status_line(&g.unit_status(militia));
        assert!(text.contains("rolled") || text.contains("kept"), "{text}");
        let dragoons = unit(&*g, "British Legion Dragoons");
        assert_eq!(roster::status_line(&g.unit_status(dragoons)).0, "no operation yet");
    }

    /// Draw the turn tab in a bare egui context the window's size, as the left panel does:
    /// where its controls went and every text it painted.
    fn drawn(session: &Session) -> (Placed, Vec<String>) {
        let ctx = egui::Context::default();
        let mut placed = Placed::default();
        let input = egui::RawInput { screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 2000.0))), ..Default::default() };
        let mut texts = Vec::new();
        // Two passes: egui settles sizes in the first.
        for _ in 0..2 {
            let out = ctx.run_ui(input.clone(), |ui| {
                egui::Panel::left("turn_panel").default_size(270.0).show(ui, |ui| {
                    placed = turn_ui(ui, session, None, (&mut SoloSettings::default(), &SoloState::default()), &mut None, &mut Vec::new());
                });
            });
            texts = out.shapes.iter().flat_map(|c| shape_texts(&c.shape)).collect();
        }
        (placed, texts)
    }

    fn shape_texts(shape: &egui::Shape) -> Vec<String> {
        match shape {
            egui::Shape::Text(t) => vec![t.galley.text().to_string()],
            egui::Shape::Vec(v) => v.iter().flat_map(shape_texts).collect(),
            _ => Vec::new(),
        }
    }

    fn placed(session: &Session) -> Placed {
        drawn(session).0
    }

    // Issue 13, defect 10: a refusal and a status line appearing used to push the panel's
    // buttons down under the pointer. OTP 4.3: the activation's End button stays put.
    #[test]
    fn buttons_keep_their_places_when_a_refusal_appears() {
        let mut session = Session::from_engine(&*game(4, &[Action::Next, Action::Next]));
        let before = placed(&session);
        assert!(before.main.is_some_and(|r| r.height() >= 30.0), "{before:?}");
        // A unit that is not in the game is refused.
        let fire = Action::Fire { unit: "Nobody".into(), target: "23rd Foot".into() };
        assert!(session.apply(fire).is_err());
        session.status = Some(("a very long status line that says what a save did, and where, and wraps over several lines of the panel".into(), false));
        assert!(session.last_refusal.is_some());
        let after = placed(&session);
        assert_eq!(before, after, "nothing moved");
    }

    // The panel draws what the interface says: the main button is the engine's going on, each
    // unit's morale button carries the engine's own refusal (OTP 10.4: a pass refused, with its
    // rule), and the odds of the roll are the engine's preview (OTP 10.2).
    #[test]
    fn the_panel_draws_the_engines_choices_refusals_and_odds() {
        let (_, texts) = drawn(&Session::from_engine(&*game(4, &[])));
        assert!(texts.iter().any(|t| t == "▶ Start the game"), "{texts:?}");
        let g = game(4, &[Action::Next, Action::Next]);
        let (_, texts) = drawn(&Session::from_engine(&*g));
        let choices = g.choices();
        let mine: Vec<&Choice> = choices.iter().filter(|c| c.about.as_deref() == Some("Loyalist Militia")).collect();
        assert!(mine.len() >= 2, "a roll and a pass at least: {mine:?}");
        for c in &mine {
            assert_eq!(c.verdict, g.check(&c.action), "{}", c.label);
            assert!(texts.iter().any(|t| t.ends_with(&c.label)), "the button {:?} is drawn: {texts:?}", c.label);
            if let Err(r) = &c.verdict {
                assert!(texts.contains(&format!("{}: {}", r.cite(), r.reason)), "{:?} under its button: {texts:?}", r);
            }
        }
        let roll = mine.iter().find(|c| c.rolls).unwrap();
        let preview = g.preview(&roll.action).unwrap().expect("a roll has odds");
        let block = &preview.blocks[0];
        assert!(texts.contains(&block.heading));
        for o in &block.odds {
            assert!(texts.contains(&o.outcome) && texts.contains(&format!("{:.0}%", o.chance * 100.0)), "{o:?}: {texts:?}");
        }
    }

    // OTP 4.5: the winner is the side with more points; equal points are a draw.
    #[test]
    fn the_winner_is_read_from_the_points() {
        let side = |name: &str, points| crate::rules::report::SideSummary { side: name.into(), figures_lost: 0, units_broken: vec![], units_off_table: vec![], objectives_held: vec![], points };
        let s = Summary { turns_played: 10, sides: vec![side("British", 1), side("Americans", 3)], objectives_unheld: vec![], winner: None, result: None };
        assert_eq!(winner(&s), "Americans win on points, 3 to 1");
        let s = Summary { sides: vec![side("British", 2), side("Americans", 2)], ..s };
        assert!(winner(&s).starts_with("A draw"));
    }
}
