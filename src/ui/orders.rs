//! Orders for the selected unit, in a game: what it may still do this turn, moves by mouse, the
//! buttons of its other orders, and commanders' rides.
//!
//! Everything here asks the engine through its interface (`Session::engine`): the plan of the
//! unit's turn (`unit_plan`: OTP's operations 3.1–3.3), its movement (`movement`: the allowance,
//! what is spent, the kinds of move with their verdicts), its buttons (`unit_choices`, each
//! greyed with `check`'s refusal). A move is built of steps on the table (6.3: the facing changes
//! as the unit moves): each drag let go adds its step to the ghost if `check` allows the whole
//! move so far (`move_action` makes the order; else the refusal is shown and logged, and the
//! ghost stays as it was); Backspace takes the last step back, Esc drops the move, and Enter or a
//! click on the ghost sends it as one order. [`MoveCommand`] is how keys and buttons anywhere ask
//! for those. A commander is picked by clicking his figure; then a click on the table rides him
//! there (`MoveLeader`) and a click on a unit of his command joins it (`JoinUnit`), as `check`
//! allows (his ride is his `movement`, the units he may join his `unit_choices`).
//!
//! A skirmish line moves stand by stand (5.3, 6.4): dragging one of its stands is a
//! `MoveStep::Stands` of that stand alone, judged and sent like any drag; Shift-drag moves the
//! whole line as a line is moved.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::overlays::{DragKind, MoveDrag, OverlayCache, built_situation, drag_step};
use super::session::{Order, Refused, Session};
use super::table_view::{HoverPreset, Selection, Troops, unit_at};
use super::{UiSet, fonts_ready};
use crate::rules::action::Action;
use crate::rules::engine::{Choice, Engine, PlanState};
use crate::rules::report::Refusal;
use crate::scenario::model::Formation;
use crate::scenario::spawn::{Brigade, Commander, Unit};
use crate::table::movement::{Allowance, MoveStep};
use crate::table::situation::Situation;
use crate::table::words::inches;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<OrdersState>()
        .add_message::<MoveCommand>()
        .add_systems(Update, (set_playable, keyboard.run_if(not(bevy_egui::input::egui_wants_any_keyboard_input)).run_if(super::editor::not_editing), take_release, take_move_commands, note_refusals).chain().after(super::session::sync_world))
        .add_systems(PostStartup, preset)
        .add_systems(EguiPrimaryContextPass, commander_tool.in_set(UiSet::Tools).run_if(fonts_ready).run_if(super::editor::not_editing));
}

/// `OTP_COMMANDER="Lt. Col. Webster"`: pick that commander at start (screenshots; with
/// `OTP_CURSOR` the pointer for his ride). `OTP_SPECIAL=1`: the second kind of move (OTP's
/// special move) chosen. `OTP_STEPS="[Wheel(pivot: Right, angle: 20.0), Forward(2.0)]"`: those
/// steps built on the table for the selected unit (its ghost, not ordered).
fn preset(mut state: ResMut<OrdersState>, commanders: Query<(Entity, &Commander)>) {
    if let Ok(name) = std::env::var("OTP_COMMANDER") {
        match commanders.iter().find(|(_, c)| c.name.eq_ignore_ascii_case(name.trim())) {
            Some((e, _)) => state.commander = Some(e),
            None => eprintln!("OTP_COMMANDER: no commander named {name:?}"),
        }
    }
    if std::env::var("OTP_SPECIAL").is_ok_and(|v| v != "0") {
        state.kind = 1;
    }
    if let Ok(text) = std::env::var("OTP_STEPS") {
        match ron::from_str::<Vec<MoveStep>>(&text) {
            Ok(steps) => state.steps_preset = Some(steps),
            Err(e) => eprintln!("OTP_STEPS: {e}; ignored"),
        }
    }
}

/// What keys and buttons ask of the move being built on the table.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveCommand {
    /// Send the move built so far as one order (Enter, a click on the ghost).
    Commit,
    /// Take back the last step (Backspace).
    TakeBack,
    /// Drop the whole move (Esc).
    Drop,
}

/// What the orders panel remembers between frames.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct OrdersState {
    /// The kind of move the next drag makes (an index of the engine's `Movement::kinds`; 0 the
    /// plain move, 1 OTP's special move 6.8).
    pub kind: usize,
    /// The last order refused, from here or anywhere: what was asked and why not. Shown only on
    /// the sheets of the units (or commander) it names, until the game changes (an order carried
    /// out, Undo, a load).
    pub refusal: Option<(Action, Refusal)>,
    /// The game's revision that refusal and the move being built belong to.
    revision: u64,
    /// The commander picked on the table (app entity): clicks ride him or join a unit.
    pub commander: Option<Entity>,
    /// `OTP_STEPS`: steps to build for the selected unit once it is playable.
    steps_preset: Option<Vec<MoveStep>>,
}

impl OrdersState {
    /// The refusal to show on the sheet of this unit or commander, if it names them.
    pub fn refusal_for(&self, name: &str) -> Option<&(Action, Refusal)> {
        self.refusal.as_ref().filter(|(a, _)| names(a, name))
    }
}

/// Whether an order names this unit or commander: by the common words' fields, and an order in
/// a rule set's own words by its wording.
fn names(action: &Action, name: &str) -> bool {
    match action {
        Action::MoveLeader { leader, .. } => leader == name,
        Action::JoinUnit { leader, unit } => leader == name || unit == name,
        Action::Fire { unit, target } | Action::Charge { unit, target } => unit == name || target == name,
        Action::Otp(_) => action.unit() == Some(name) || action.to_string().contains(name),
        other => other.unit() == Some(name),
    }
}

/// The selected unit of the phasing brigade, which a drag moves by order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Playable {
    /// The app entity (the mirror's).
    pub unit: Entity,
    /// The game's entity, which the engine is asked about.
    pub game_unit: Entity,
    pub name: String,
    /// What the geometry is given for the ghost: the inches left in the operation (plus the
    /// most the dice could add for a move that rolls them).
    pub allowance: Allowance,
    /// The kind of move (an index of the engine's `Movement::kinds`), its words and dice.
    pub kind: usize,
    pub kind_label: String,
    pub dice: Option<String>,
    /// Inches spent in the operation so far, and the most it allows (None: no movement left).
    pub spent: f32,
    pub most: Option<f32>,
}

/// The engine's verdict on a dragged step added to the move built so far.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Verdict {
    /// The order the move would be with this step.
    pub action: Action,
    pub refusal: Option<Refusal>,
    /// The step's number in the move (1 for the first).
    pub number: usize,
    /// The dragged step.
    pub step: MoveStep,
    /// This step's inches (from the plan), spent before it (in the operation and by the earlier
    /// steps), and the most allowed.
    pub inches: f32,
    pub before: f32,
    pub most: Option<f32>,
    /// The kind of move and the dice it rolls when ordered (OTP's special move: 6.8's AD).
    pub kind_label: String,
    pub dice: Option<String>,
}

impl Verdict {
    pub fn allowed(&self) -> bool {
        self.refusal.is_none()
    }

    /// One line for the ghost's tag and the panel.
    pub fn text(&self) -> String {
        let step = format!("{}. {}", self.number, self.step);
        match (&self.refusal, &self.dice) {
            (Some(r), _) => format!("✖ {step}: not allowed ({}): {}", r.cite(), r.reason),
            (None, Some(d)) => format!("✔ {step} · {} of {} so far: {d} rolled when it is ordered", self.kind_label, inches(self.before + self.inches)),
            (None, None) => format!("✔ {step} · {}", super::overlays::used_left(self.before + self.inches, self.most)),
        }
    }
}

/// The engine's verdict on a dragged step after the steps `built` (which used `built_inches`):
/// what `plan` says it costs, `check` whether the whole move may be made.
pub(crate) fn judge(engine: &dyn Engine, p: &Playable, built: &[MoveStep], built_inches: f32, step: &MoveStep, plan: &crate::table::movement::MoveReport) -> Verdict {
    let mut steps = built.to_vec();
    steps.push(step.clone());
    let number = steps.len();
    let action = engine.move_action(p.game_unit, p.kind, steps);
    let refusal = engine.check(&action).err();
    Verdict { action, refusal, number, step: step.clone(), inches: plan.spent, before: p.spent + built_inches, most: p.most, kind_label: p.kind_label.clone(), dice: p.dice.clone() }
}

/// The selected unit as a drag may move it by order, from the engine's `movement`: a unit the
/// sequence lets act now (its drags are judged, and refused with the rule when it may not move),
/// or one the engine lets move anyway (OTP's 6.10 bonus move); as move kind `kind` (the plain
/// move if the unit has no such kind).
pub(crate) fn playable(engine: &dyn Engine, app_unit: Entity, unit: Entity, kind: usize) -> Option<Playable> {
    let m = engine.movement(unit)?;
    let may = m.kinds.first().is_some_and(|k| k.verdict.is_ok());
    if !may && !engine.sequence().acting.contains(&unit) {
        return None;
    }
    let name = engine.world().get::<Unit>(unit)?.name.clone();
    let kind = if kind < m.kinds.len() { kind } else { 0 };
    let k = m.kinds.get(kind)?;
    // The geometry's allowance: what is left (or the whole move when the unit may not move:
    // the engine then says why not on every drag).
    let most = may.then_some(m.allowance);
    let left = if may { (m.allowance - m.spent).max(0.0) } else { m.allowance } + k.extra;
    let allowance = Allowance { full: left, road: m.road.map(|r| left + r) };
    Some(Playable { unit: app_unit, game_unit: unit, name, allowance, kind, kind_label: k.label.clone(), dice: k.dice.clone(), spent: m.spent, most })
}

fn set_playable(session: Option<Res<Session>>, selection: Res<Selection>, mut drag: ResMut<MoveDrag>, mut state: ResMut<OrdersState>) {
    let want = match (&session, selection.unit) {
        (Some(s), Some(e)) => s.game_entity(e).and_then(|g| playable(s.engine(), e, g, state.kind)),
        _ => None,
    };
    if want.is_none() && state.kind != 0 && selection.unit.is_none() {
        state.kind = 0;
    }
    if drag.playable != want {
        drag.playable = want;
    }
    if let Some(p) = &drag.playable
        && let Some(steps) = state.steps_preset.take()
    {
        drag.unit = Some(p.unit);
        drag.steps = steps;
        state.revision = session.as_ref().map_or(0, |s| s.revision);
    }
}

/// The step a drag asks of the game's unit, from the game's own table with the unit where the
/// steps `built` leave it.
pub(crate) fn drag_of(engine: &dyn Engine, p: &Playable, built: &[MoveStep], kind: DragKind, points: &[Vec2]) -> Option<MoveStep> {
    let s = Situation::from_world(engine.world());
    let i = s.find(&p.name).ok()?;
    let s = built_situation(&s, i, built, p.allowance, engine.move_rules());
    drag_step(s.unit(i), kind, points)
}

/// A game drag let go: its step is added to the move if the engine allows the whole move so
/// far; else the refusal goes out as `Refused` (the panel and the log show it) and the move
/// stays as it was. Either way the dragged ghost goes with the button.
fn take_release(mut drag: ResMut<MoveDrag>, session: Option<Res<Session>>, mut refused: MessageWriter<Refused>) {
    if !drag.released {
        return;
    }
    drag.released = false;
    let (Some(p), Some(session)) = (drag.playable.clone(), session) else { return };
    if drag.unit != Some(p.unit) {
        return;
    }
    let engine = session.engine();
    let step = drag.kind.and_then(|k| drag_of(engine, &p, &drag.steps, k, &drag.points));
    drag.points.clear();
    drag.kind = None;
    if let Some(step) = step {
        let mut steps = drag.steps.clone();
        steps.push(step);
        let action = engine.move_action(p.game_unit, p.kind, steps.clone());
        match engine.check(&action) {
            Ok(()) => drag.steps = steps,
            Err(refusal) => {
                refused.write(Refused { action, refusal });
            }
        }
    }
    if drag.steps.is_empty() {
        drag.clear();
    }
}

/// Enter, Backspace (and Esc, with the overlays' keys): order, shorten or drop the built move.
fn keyboard(keys: Res<ButtonInput<KeyCode>>, drag: Res<MoveDrag>, mut commands: MessageWriter<MoveCommand>) {
    if drag.steps.is_empty() || drag.active || keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight, KeyCode::AltLeft, KeyCode::AltRight]) {
        return;
    }
    if keys.any_just_pressed([KeyCode::Enter, KeyCode::NumpadEnter]) {
        commands.write(MoveCommand::Commit);
    }
    if keys.just_pressed(KeyCode::Backspace) {
        commands.write(MoveCommand::TakeBack);
    }
}

/// The built move ordered (checked again: a refusal is sent out as `Refused`, nothing else),
/// shortened by its last step, or dropped.
fn take_move_commands(mut commands: MessageReader<MoveCommand>, mut drag: ResMut<MoveDrag>, session: Option<Res<Session>>, mut orders: MessageWriter<Order>, mut refused: MessageWriter<Refused>) {
    for c in commands.read() {
        match c {
            MoveCommand::Commit => {
                let (Some(p), Some(session)) = (drag.playable.clone(), &session) else { continue };
                if drag.unit != Some(p.unit) || drag.steps.is_empty() {
                    continue;
                }
                let action = session.engine().move_action(p.game_unit, p.kind, drag.steps.clone());
                send(session, action, &mut orders, &mut refused);
            }
            MoveCommand::TakeBack => {
                drag.steps.pop();
                drag.points.clear();
                if drag.steps.is_empty() {
                    drag.clear();
                }
            }
            MoveCommand::Drop => drag.clear(),
        }
    }
}

/// Refusals of orders sent from anywhere are kept for the sheets of the units they name, until
/// the game changes (an order carried out, Undo, a load): then they, the built move (judged
/// against the old table) and the kind of move chosen go.
fn note_refusals(session: Option<Res<Session>>, mut refused: MessageReader<Refused>, mut state: ResMut<OrdersState>, mut drag: ResMut<MoveDrag>) {
    let revision = session.as_ref().map_or(0, |s| s.revision);
    if revision != state.revision {
        state.revision = revision;
        state.refusal = None;
        state.kind = 0;
        if drag.playable.is_some() && !drag.steps.is_empty() {
            drag.clear();
        }
    }
    for r in refused.read() {
        state.refusal = Some((r.action.clone(), r.refusal.clone()));
    }
}

// ---- the orders panel ----

const GOLD: Color32 = Color32::from_rgb(226, 214, 170);
const OK: Color32 = Color32::from_rgb(120, 225, 140);
const BAD: Color32 = Color32::from_rgb(255, 130, 120);
const GOING: Color32 = Color32::from_rgb(255, 205, 90);

fn refusal_tip(r: &Refusal) -> String {
    format!("{}: {}", r.cite(), r.reason)
}

/// A button that sends its order, or greyed with the engine's rule and reason.
fn choice_button(ui: &mut egui::Ui, c: &Choice, out: &mut Vec<Action>) {
    let b = ui.add_enabled(c.allowed(), egui::Button::new(&c.label));
    let tip = c.detail.clone().unwrap_or_else(|| c.action.to_string());
    let b = match &c.verdict {
        Err(r) => b.on_disabled_hover_text(format!("{tip}\n\nNot now — {}", refusal_tip(r))),
        Ok(()) => b.on_hover_text(tip),
    };
    if b.clicked() {
        out.push(c.action.clone());
    }
}

fn heading(ui: &mut egui::Ui, title: &str) {
    ui.add_space(6.0);
    ui.label(RichText::new(title).strong().size(13.5).color(GOLD));
    ui.separator();
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The orders section of the unit sheet (`unit` the app entity): the plan of its turn, the
/// dragged move's verdict, the buttons. Orders to send are pushed on `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn orders_ui(ui: &mut egui::Ui, session: &Session, unit: Entity, state: &mut OrdersState, drag: &MoveDrag, cache: &OverlayCache, out: &mut Vec<Action>, moves: &mut Vec<MoveCommand>) {
    let engine = session.engine();
    let Some(e) = session.game_entity(unit) else { return };
    let Some(u) = engine.world().get::<Unit>(e) else { return };
    let seq = engine.sequence();
    if !seq.started || seq.over {
        heading(ui, "Orders");
        ui.label(RichText::new(&seq.headline).weak().italics());
        return;
    }
    if let Some(plan) = engine.unit_plan(e) {
        heading(ui, &plan.title);
        let barred_all = plan.items.windows(2).all(|w| w[0].state.refusal().is_some() && w[0].state.refusal() == w[1].state.refusal());
        if barred_all && let Some(r) = plan.items.first().and_then(|r| r.state.refusal()) {
            ui.label(RichText::new(format!("✖ {} — {}", r.reason, r.cite())).color(BAD).size(12.5));
        }
        for item in &plan.items {
            match &item.state {
                PlanState::Barred(r) => {
                    ui.horizontal(|ui| {
                        ui.label(RichText::new("✖").weak().size(11.0));
                        ui.label(RichText::new(&item.label).size(12.5).weak().strikethrough()).on_hover_text(refusal_tip(r));
                    });
                }
                state => {
                    let (mark, colour, tip) = match state {
                        PlanState::Going => ("➡", GOING, "begun: more of it may still be done"),
                        PlanState::Done => ("●", GOLD, "done: this is the unit's operation this turn"),
                        _ => ("✔", OK, "open"),
                    };
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(mark).color(colour).strong());
                        ui.label(RichText::new(format!("{}{}", item.label, item.note)).size(12.5)).on_hover_text(format!("{}: {tip}", item.cite));
                    });
                }
            }
        }
        if let Some(done) = &plan.done {
            ui.label(RichText::new(done).size(12.0).weak());
        }
        let movement = engine.movement(e).filter(|m| m.kinds.first().is_some_and(|k| k.verdict.is_ok()));
        if let Some(m) = movement {
            ui.label(RichText::new(format!("Movement: {} of {} used · {} left", inches(m.spent), inches(m.allowance), inches((m.allowance - m.spent).max(0.0)))).size(12.5));
        }
        for note in &plan.notes {
            ui.label(RichText::new(note).color(GOING).size(12.5));
        }
    }

    let phasing = drag.plays(drag.playable.as_ref().map(|p| p.unit)) && drag.playable.as_ref().is_some_and(|p| p.unit == unit);
    heading(ui, "Orders");
    if phasing {
        let hint = if u.formation == Formation::Skirmish {
            "Skirmishers: drag a stand to move it alone, each stand up to the move and 1\"–3\" from the next (5.3, 6.4); Shift-drag moves the whole line."
        } else {
            "Drag the unit to move it: an end stand wheels, Shift-drag side-steps, a column drags its head."
        };
        ui.label(RichText::new(format!("{hint} Each drag adds a step to the move (a wheel, then forward…); drag on from the ghost. Enter or a click on the ghost orders it.")).size(11.5).weak());
        built_ui(ui, drag, moves);
        if let Some((_, Some(v))) = cache.dragged() {
            ui.label(RichText::new(v.text()).size(12.5).strong().color(if v.allowed() { OK } else { BAD }));
        }
    } else if let Some(brigade) = seq.acting.first().and_then(|&a| engine.world().get::<Unit>(a)).and_then(|a| engine.world().get::<Brigade>(a.brigade)) {
        let rule = seq.current.and_then(|i| seq.steps.get(i)).map(|s| format!(" ({})", s.cite)).unwrap_or_default();
        ui.label(RichText::new(format!("Not phasing: {} is{rule}.", brigade.name)).weak().italics().size(12.5));
    }
    let choices = engine.unit_choices(e);
    let (forms, others): (Vec<&Choice>, Vec<&Choice>) = choices.iter().partition(|c| matches!(c.action, Action::ChangeFormation { .. }));
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Form:").weak());
        for c in forms {
            choice_button(ui, c, out);
        }
    });
    // The other kinds of move (OTP's special move, 6.8): a toggle for the next drag.
    if let Some(m) = engine.movement(e) {
        for (k, kind) in m.kinds.iter().enumerate().skip(1) {
            ui.horizontal(|ui| {
                let on = state.kind == k;
                let r = ui.add_enabled(kind.verdict.is_ok(), egui::Button::selectable(on, format!("⚡ {}", capitalised(&kind.label))));
                let r = match &kind.verdict {
                    Err(x) => r.on_disabled_hover_text(format!("{}\n\nNot now — {}", kind.detail, refusal_tip(x))),
                    Ok(()) => r.on_hover_text(&kind.detail),
                };
                if r.clicked() {
                    state.kind = if on { 0 } else { k };
                }
                if on && let Some(d) = &kind.dice {
                    ui.label(RichText::new(format!("next drag: {d} rolled on release")).color(GOING).size(12.0));
                }
            });
        }
    }
    ui.horizontal_wrapped(|ui| {
        for c in others {
            choice_button(ui, c, out);
        }
    });
    refusal_ui(ui, state, &u.name);
}

/// The move built on the table: its steps and the buttons that order, shorten or drop it.
fn built_ui(ui: &mut egui::Ui, drag: &MoveDrag, moves: &mut Vec<MoveCommand>) {
    if drag.steps.is_empty() {
        return;
    }
    let title = match drag.playable.as_ref().filter(|p| p.kind != 0) {
        Some(p) => format!("{} being built:", capitalised(&p.kind_label)),
        None => "Move being built:".to_string(),
    };
    ui.label(RichText::new(title).strong().size(12.5));
    for (k, step) in drag.steps.iter().enumerate() {
        ui.label(RichText::new(format!("{}. {step}", k + 1)).size(12.5).color(OK));
    }
    ui.horizontal_wrapped(|ui| {
        if ui.button(RichText::new("✔ Order the move (Enter)").strong().color(OK)).on_hover_text("Send the whole move as one order; the engine judges it again").clicked() {
            moves.push(MoveCommand::Commit);
        }
        if ui.button("Take back the last step (Backspace)").clicked() {
            moves.push(MoveCommand::TakeBack);
        }
        if ui.button("Drop it (Esc)").clicked() {
            moves.push(MoveCommand::Drop);
        }
    });
}

/// The last refusal, on the sheet of a unit or commander it names.
fn refusal_ui(ui: &mut egui::Ui, state: &OrdersState, name: &str) {
    if let Some((what, r)) = state.refusal_for(name) {
        ui.add_space(4.0);
        ui.label(RichText::new(format!("✖ Refused: {what}")).color(BAD).strong().size(12.5));
        ui.label(RichText::new(refusal_tip(r)).color(BAD).size(12.0));
    }
}

// ---- commanders ----

/// The commander's sheet in the side panel (`commander` the app entity): his ride this phase
/// (his `movement`) and the units he may join (his `unit_choices`).
pub(crate) fn commander_ui(ui: &mut egui::Ui, session: &Session, commander: Entity, name: &str, state: &mut OrdersState, out: &mut Vec<Action>) {
    let engine = session.engine();
    let Some(g) = session.game_entity(commander) else { return };
    if let Some(m) = engine.movement(g)
        && let Some(ride) = m.kinds.first()
    {
        heading(ui, &format!("Commander's {} ({})", ride.label, ride.cite));
        ui.label(RichText::new(format!("{} of {} ridden this phase · {} left", inches(m.spent), inches(m.allowance), inches((m.allowance - m.spent).max(0.0)))).size(12.5));
        match &ride.verdict {
            Ok(()) => {
                ui.label(RichText::new("Click the table to ride there; click a unit of his command to join it.").size(11.5).weak());
            }
            Err(r) => {
                ui.label(RichText::new(format!("✖ {} — {}", r.reason, r.cite())).color(BAD).size(12.0));
            }
        }
    }
    let joins = engine.unit_choices(g);
    if !joins.is_empty() {
        ui.add_space(4.0);
        ui.label(RichText::new("Join a unit:").weak());
        ui.horizontal_wrapped(|ui| {
            for c in &joins {
                choice_button(ui, c, out);
            }
        });
    }
    refusal_ui(ui, state, name);
}

/// What a click on the table does about commanders (6.12).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CommanderClick {
    /// Pick up the commander whose figure was clicked.
    Pick(Entity),
    /// The picked commander's order: ride to the point, or join the friendly unit clicked.
    Order(Action),
    /// An enemy unit was clicked: the commander is put down (the unit's sheet shows).
    PutDown,
    Nothing,
}

/// A click at `at` on `unit` (a stand under it) or `figure` (a commander's figure, no stand
/// under it), with `picked` the commander picked up, if any.
pub(crate) fn commander_click(picked: Option<&Commander>, unit: Option<&Unit>, figure: Option<Entity>, at: Vec2) -> CommanderClick {
    match (picked, unit, figure) {
        (_, None, Some(c)) => CommanderClick::Pick(c),
        (Some(c), Some(u), _) if u.side == c.side => CommanderClick::Order(Action::JoinUnit { leader: c.name.clone(), unit: u.name.clone() }),
        (Some(_), Some(_), _) => CommanderClick::PutDown,
        (Some(c), None, None) => CommanderClick::Order(Action::MoveLeader { leader: c.name.clone(), to: at }),
        (None, _, _) => CommanderClick::Nothing,
    }
}

/// How near (inches) a click must be to a commander's figure to pick him.
fn pick_radius(view: &View) -> f32 {
    (0.5f32).max(8.0 / view.ppi)
}

/// Picking commanders on the table, and with one picked: a click rides him (or joins the unit
/// clicked), and a line from him to the pointer shows the ride and the engine's verdict.
#[allow(clippy::too_many_arguments)]
fn commander_tool(
    mut contexts: EguiContexts,
    view: Res<View>,
    troops: Res<Troops>,
    mut selection: ResMut<Selection>,
    commanders: Query<(Entity, &Commander)>,
    units: Query<&Unit>,
    session: Option<Res<Session>>,
    mut state: ResMut<OrdersState>,
    (mut orders, mut refused): (MessageWriter<Order>, MessageWriter<Refused>),
    (hover_preset, options): (Res<HoverPreset>, Option<Res<super::RunOptions>>),
) -> Result {
    let Some(session) = session else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let view = *view;
    // In screenshot runs the idle pointer is ignored; `OTP_CURSOR` stands in for it.
    let shooting = options.as_ref().is_some_and(|o| o.screenshot.is_some());
    if state.commander.is_some_and(|c| commanders.get(c).is_err()) {
        state.commander = None;
    }
    let pointer = match (shooting, hover_preset.0) {
        (true, p) => p.map(|p| view.to_screen(p)),
        (false, _) => ctx.input(|i| i.pointer.interact_pos().or(i.pointer.hover_pos())),
    };
    let on_table = |p: egui::Pos2| view.rect.contains(p) && ctx.layer_id_at(p).is_none_or(|l| l.order == egui::Order::Background);
    let clicked = ctx.input(|i| i.pointer.primary_clicked()) && pointer.is_some_and(on_table);
    let at = pointer.map(|p| view.to_table(p));
    let tolerance = 3.0 / view.ppi;
    let unit_here = at.and_then(|p| unit_at(&troops.0, p, tolerance)).map(|g| g.entity);
    let commander_here = at.and_then(|p| commanders.iter().filter(|(_, c)| c.at.distance(p) <= pick_radius(&view)).min_by(|a, b| a.1.at.distance(p).total_cmp(&b.1.at.distance(p)))).map(|(e, _)| e);
    if clicked && let Some(p) = at {
        let picked = state.commander.and_then(|c| commanders.get(c).ok()).map(|(_, c)| c);
        match commander_click(picked, unit_here.and_then(|u| units.get(u).ok()), commander_here, p) {
            CommanderClick::Pick(c) => {
                state.commander = Some(c);
                state.refusal = None;
                selection.unit = None;
            }
            CommanderClick::Order(action) => {
                let join = matches!(action, Action::JoinUnit { .. });
                send(&session, action, &mut orders, &mut refused);
                if join {
                    selection.unit = None;
                }
            }
            CommanderClick::PutDown => state.commander = None,
            CommanderClick::Nothing => {}
        }
    }
    if selection.unit.is_some() && !clicked {
        state.commander = None;
    }
    // Paint: a ring round the picked commander, a ring on the one under the pointer, the ride.
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Middle, egui::Id::new("commander_tool"))).with_clip_rect(view.rect);
    let r = (pick_radius(&view) * view.ppi).max(8.0);
    if let Some(c) = commander_here.filter(|c| Some(*c) != state.commander).and_then(|c| commanders.get(c).ok()) {
        painter.circle_stroke(view.to_screen(c.1.at), r + 2.0, egui::Stroke::new(2.0, Color32::from_white_alpha(200)));
    }
    if let Some((picked, c)) = state.commander.and_then(|c| commanders.get(c).ok()) {
        let centre = view.to_screen(c.at);
        painter.circle_stroke(centre, r + 3.0, egui::Stroke::new(3.0, GOLD));
        if let (Some(p), Some(screen)) = (at, pointer.filter(|p| on_table(*p))) {
            let engine = session.engine();
            let action = match unit_here.and_then(|u| units.get(u).ok()).filter(|u| u.side == c.side) {
                Some(u) => Action::JoinUnit { leader: c.name.clone(), unit: u.name.clone() },
                None => Action::MoveLeader { leader: c.name.clone(), to: p },
            };
            let verdict = engine.check(&action);
            let colour = if verdict.is_ok() { OK } else { BAD };
            painter.line_segment([centre, screen], egui::Stroke::new(2.0, colour));
            painter.circle_stroke(screen, 5.0, egui::Stroke::new(2.0, colour));
            let ride = session.game_entity(picked).and_then(|g| engine.movement(g));
            let (ridden, most, cite) = ride.as_ref().map_or((0.0, 0.0, String::new()), |m| (m.spent, m.allowance, m.kinds.first().map(|k| k.cite.clone()).unwrap_or_default()));
            let length = c.at.distance(p);
            let text = match (&verdict, &action) {
                (Ok(()), Action::JoinUnit { unit, .. }) => format!("✔ click: join {unit} ({cite}) · {} of {} left", inches(length), inches((most - ridden).max(0.0))),
                (Ok(()), _) => format!("✔ click: ride {} ({cite}) · {} left after", inches(length), inches((most - ridden - length).max(0.0))),
                (Err(r), _) => format!("✖ {}", refusal_tip(r)),
            };
            let g = super::paint::galley(&ctx, &text, 12.5, true, colour);
            let pos = screen + egui::vec2(14.0, -g.size().y - 10.0);
            let plate = egui::Rect::from_min_size(pos, g.size()).expand2(egui::vec2(6.0, 3.0));
            painter.rect_filled(plate, 4.0, Color32::from_black_alpha(190));
            painter.galley(pos, g, colour);
        }
    }
    Ok(())
}

/// Send an order the engine's check allows; a refused one goes out as `Refused` (the sheet and
/// the log show it), not to the game.
fn send(session: &Session, action: Action, orders: &mut MessageWriter<Order>, refused: &mut MessageWriter<Refused>) {
    match session.engine().check(&action) {
        Ok(()) => {
            orders.write(Order(action));
        }
        Err(refusal) => {
            refused.write(Refused { action, refusal });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::{Engine, PlanState};
    use crate::table::footprint::Footprint;
    use super::super::session::Opening;

    /// A headless app with the session and these orders: the same message path as the window.
    fn app() -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .init_resource::<MoveDrag>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<bevy_egui::input::EguiWantsInput>()
            .add_plugins(super::super::log::plugin)
            .insert_resource(View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .add_plugins((super::super::session::plugin, plugin));
        app.update();
        // No autosave from tests.
        app.world_mut().resource_mut::<Session>().autosave = None;
        app
    }

    fn engine(app: &App) -> &dyn Engine {
        app.world().resource::<Session>().engine()
    }

    /// Send an order in the common words (or the engine's), as the panels do.
    fn send(app: &mut App, action: Action) {
        let o = Order(action);
        app.world_mut().write_message(o);
        app.update();
    }

    /// The brigade the sequence lets act now.
    fn phasing(app: &App) -> Option<String> {
        let e = engine(app);
        let u = e.sequence().acting.first().and_then(|&u| e.world().get::<Unit>(u))?;
        e.world().get::<Brigade>(u.brigade).map(|b| b.name.clone())
    }

    /// Start the game and go on (draw, end the activation) until `brigade` is phasing.
    fn activate(app: &mut App, brigade: &str) {
        for _ in 0..12 {
            if phasing(app).as_deref() == Some(brigade) {
                return;
            }
            send(app, Action::Next);
        }
        panic!("{brigade} never came up");
    }

    /// The game's entity of a unit (or commander) by name.
    fn game_entity(app: &App, name: &str) -> Entity {
        let w = engine(app).world();
        let mut units = w.try_query::<(Entity, &Unit)>().unwrap();
        let mut commanders = w.try_query::<(Entity, &Commander)>().unwrap();
        units.iter(w).find(|(_, u)| u.name == name).map(|(e, _)| e).or_else(|| commanders.iter(w).find(|(_, c)| c.name == name).map(|(e, _)| e)).expect("in the game")
    }

    fn last_action(app: &App) -> Option<String> {
        engine(app).actions().last().map(|a| a.to_string())
    }

    fn select(app: &mut App, name: &str) -> Entity {
        let w = app.world_mut();
        let e = w.query::<(Entity, &Unit)>().iter(w).find(|(_, u)| u.name == name).map(|(e, _)| e).expect("unit");
        w.resource_mut::<Selection>().unit = Some(e);
        app.update();
        e
    }

    fn stands(app: &mut App, unit: Entity) -> Vec<Footprint> {
        let w = app.world_mut();
        let ids = w.get::<Unit>(unit).unwrap().stands.clone();
        ids.iter().map(|&s| *w.get::<Footprint>(s).unwrap()).collect()
    }

    /// Drag the selected unit from the middle of its front by `by` inches and let go.
    fn drag_and_release(app: &mut App, unit: Entity, by: Vec2) {
        let front = stands(app, unit).iter().map(|f| f.front_centre()).sum::<Vec2>() / stands(app, unit).len() as f32;
        let grab = front - stands(app, unit)[0].forward() * 0.3;
        drag(app, unit, DragKind::Advance, vec![grab, grab + by]);
    }

    /// A drag of the selected unit (or its ghost) through `points`, let go.
    fn drag(app: &mut App, unit: Entity, kind: DragKind, points: Vec<Vec2>) {
        let mut d = app.world_mut().resource_mut::<MoveDrag>();
        assert!(d.plays(Some(unit)), "the phasing brigade's selected unit is playable");
        d.unit = Some(unit);
        d.kind = Some(kind);
        d.points = points;
        d.released = true;
        app.update();
    }

    fn command(app: &mut App, c: MoveCommand) {
        app.world_mut().write_message(c);
        app.update();
        app.update();
    }

    fn press(app: &mut App, key: KeyCode) {
        let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        keys.release_all();
        keys.clear();
        keys.press(key);
        app.update();
        app.world_mut().resource_mut::<ButtonInput<KeyCode>>().clear();
        app.update();
    }

    fn refusal(app: &App) -> Option<(Action, Refusal)> {
        app.world().resource::<OrdersState>().refusal.clone()
    }

    // OTP 6.1, 3.1: a drag let go on a legal ghost is exactly the Move order the engine accepts,
    // and the mirrored stands move with it.
    #[test]
    fn a_dragged_move_becomes_the_order_and_the_stands_move() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        let before = stands(&mut app, unit);
        let n = engine(&app).action_count();
        // Facing 180: 4" down the table; let go, the step waits on the table until ordered.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -4.0));
        assert_eq!(engine(&app).action_count(), n, "a drag alone orders nothing");
        assert_eq!(app.world().resource::<MoveDrag>().steps, vec![MoveStep::Forward(4.0)]);
        press(&mut app, KeyCode::Enter);
        assert_eq!(engine(&app).action_count(), n + 1, "{:?}", app.world().resource::<OrdersState>().refusal);
        assert_eq!(last_action(&app), Some(Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(4.0)] }.to_string()));
        let after = stands(&mut app, unit);
        assert!((after[0].centre - before[0].centre - Vec2::new(0.0, -4.0)).length() < 1e-3, "{:?} → {:?}", before[0], after[0]);
        assert!(!app.world().resource::<MoveDrag>().has_ghost(), "the ghost goes once the order is carried out");
    }

    // OTP 6.6: a dragged move into disordering terrain goes through and its report has the die.
    #[test]
    fn a_drag_into_disordering_terrain_rolls_for_it() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        // The 33rd's front reaches the Wheat Field 4" ahead.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -5.0));
        command(&mut app, MoveCommand::Commit);
        assert!(last_action(&app).is_some_and(|a| a.starts_with("move 33rd Foot")), "{:?}", app.world().resource::<OrdersState>().refusal);
        let report = app.world().resource::<Session>().last_report.as_ref().expect("the move's report");
        assert!(report.dice.iter().any(|d| d.rule == "6.6"), "{report}");
    }

    // OTP 6.8: with the special move chosen (the engine's second kind of move), the drag is sent
    // as the engine's special move (1AD rolled), and the ghost may reach as far as the dice could.
    #[test]
    fn the_special_move_toggle_sends_a_special_move() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "71st Light Company");
        let g = game_entity(&app, "71st Light Company");
        let m = engine(&app).movement(g).expect("phasing: it may move");
        assert_eq!(m.kinds.len(), 2, "{m:?}");
        assert_eq!((m.kinds[1].label.as_str(), m.kinds[1].dice.as_deref(), m.kinds[1].extra), ("special move (6.8)", Some("1AD"), 5.0), "1AD: 2–5 (6.8)");
        app.world_mut().resource_mut::<OrdersState>().kind = 1;
        app.update();
        let p = app.world().resource::<MoveDrag>().playable.clone().unwrap();
        assert_eq!(p.kind, 1);
        assert!((p.allowance.full - (m.allowance - m.spent + 5.0)).abs() < 1e-4, "the ghost may go as far as the most the dice give: {:?}", p.allowance);
        // Skirmishers face 180; 2" straight down the table, clear of the Delaware Light Infantry.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -2.0));
        command(&mut app, MoveCommand::Commit);
        let want = engine(&app).move_action(g, 1, vec![MoveStep::Forward(2.0)]);
        assert_eq!(last_action(&app), Some(want.to_string()), "{:?}", app.world().resource::<OrdersState>().refusal);
        assert!(app.world().resource::<Session>().last_report.as_ref().is_some_and(|r| r.dice.iter().any(|d| d.rule == "6.8")));
        assert_eq!(app.world().resource::<OrdersState>().kind, 0, "the toggle is spent");
    }

    // OTP 5.3, 6.4: a skirmisher's stand dragged alone is a one-stand `MoveStep::Stands` order;
    // in the mirrored world only that stand moves.
    #[test]
    fn a_skirmish_stand_drag_moves_that_stand_alone() {
        use crate::table::movement::StandMove;
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "71st Light Company");
        let before = stands(&mut app, unit);
        assert!(before.len() > 1);
        let grab = before[1].centre;
        // Facing 180: 1.5" down the table, still within 3" of its neighbours.
        let by = Vec2::new(0.0, -1.5);
        {
            let mut d = app.world_mut().resource_mut::<MoveDrag>();
            d.unit = Some(unit);
            d.kind = Some(DragKind::Stand(1));
            d.points = vec![grab, grab + by];
            d.released = true;
        }
        app.update();
        command(&mut app, MoveCommand::Commit);
        let want = MoveStep::Stands(vec![StandMove { stand: 1, to: grab + by, facing: before[1].facing }]);
        assert_eq!(last_action(&app), Some(Action::Move { unit: "71st Light Company".into(), steps: vec![want] }.to_string()), "{:?}", app.world().resource::<OrdersState>().refusal);
        let after = stands(&mut app, unit);
        assert!((after[1].centre - (grab + by)).length() < 1e-3, "{:?}", after[1]);
        for k in (0..before.len()).filter(|&k| k != 1) {
            assert_eq!(after[k], before[k], "stand {k} stays");
        }
    }

    // OTP 6.1: a drag too far is refused with its rule; nothing is sent and nothing moves. The
    // red ghost goes with the button (no stale ghost), the refusal is in the log's count at once
    // and on the sheet of the unit it names only, and Undo takes it away.
    #[test]
    fn a_drag_too_far_is_refused_and_changes_nothing() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        let before = stands(&mut app, unit);
        let snapshot = engine(&app).snapshot();
        drag_and_release(&mut app, unit, Vec2::new(0.0, -9.0));
        assert_eq!(engine(&app).snapshot(), snapshot);
        assert_eq!(stands(&mut app, unit), before);
        let (action, r) = refusal(&app).expect("the refusal is shown");
        assert!(r.rule == "6.1" || r.rule == "3.1", "{r}");
        // Exactly the engine's verdict on that order.
        let g = game_entity(&app, "33rd Foot");
        assert_eq!(engine(&app).check(&engine(&app).move_action(g, 0, vec![MoveStep::Forward(9.0)])), Err(r.clone()));
        assert_eq!(action.to_string(), "move 33rd Foot: forward 9\"", "in the rules' words");
        assert!(!app.world().resource::<MoveDrag>().has_ghost(), "no ghost left once the button is up");
        assert_eq!(app.world().resource::<super::super::log::GameLog>().refusals.len(), 1, "the log counts it");
        let state = app.world().resource::<OrdersState>();
        assert!(state.refusal_for("33rd Foot").is_some() && state.refusal_for("23rd Foot").is_none(), "only on the 33rd's sheet");
        // An order carried out, then Undo: the refusal does not survive either.
        send(&mut app, Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column });
        assert!(refusal(&app).is_none(), "an order carried out clears it");
        app.world_mut().write_message(super::super::session::SessionCommand::Undo);
        app.update();
        app.update();
        let unit = select(&mut app, "33rd Foot");
        drag_and_release(&mut app, unit, Vec2::new(0.0, -9.0));
        assert!(refusal(&app).is_some());
        app.world_mut().write_message(super::super::session::SessionCommand::Undo);
        app.update();
        app.update();
        assert!(refusal(&app).is_none(), "Undo takes the refusal away");
    }

    // OTP 6.3 (the facing changes as the unit moves), 3.1: a move is built of steps on the table,
    // a wheel and then a move forward from where the wheel left it; Backspace takes the last step
    // back; Enter sends the whole move as one order, which the engine carries out.
    #[test]
    fn a_move_is_built_of_steps_and_ordered_whole() {
        use crate::table::arc::Arc;
        use crate::table::geom::turn_about;
        use crate::table::movement::End;
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        let n = engine(&app).action_count();
        let (arc, facing) = {
            let s = Situation::from_world(engine(&app).world());
            let u = s.unit(s.find("33rd Foot").unwrap());
            (Arc::of_unit(u).unwrap(), u.stands[0].footprint.facing)
        };
        // Grab the left end and swing it 15° forward about the right end.
        let grab = arc.front_left - crate::table::footprint::bearing_vector(facing) * 0.2;
        drag(&mut app, unit, DragKind::Wheel(End::Right), vec![grab, turn_about(grab, arc.front_right, 15.0)]);
        let steps = app.world().resource::<MoveDrag>().steps.clone();
        let [MoveStep::Wheel { pivot: End::Right, angle }] = steps.as_slice() else { panic!("{steps:?} {:?}", refusal(&app)) };
        assert!((angle - 15.0).abs() < 0.01, "{angle}");
        assert_eq!(engine(&app).action_count(), n);
        // The next drag starts on the ghost and goes 2" along its new facing.
        let playable = app.world().resource::<MoveDrag>().playable.clone().unwrap();
        let ghost = {
            let s = Situation::from_world(engine(&app).world());
            let i = s.find("33rd Foot").unwrap();
            built_situation(&s, i, &steps, playable.allowance, engine(&app).move_rules()).unit(i).footprints()
        };
        let fwd = ghost[0].forward();
        let from = ghost.iter().map(|f| f.front_centre()).sum::<Vec2>() / ghost.len() as f32 - fwd * 0.3;
        drag(&mut app, unit, DragKind::Advance, vec![from, from + fwd * 2.0]);
        let built = app.world().resource::<MoveDrag>().steps.clone();
        assert_eq!(built.len(), 2, "{:?}", refusal(&app));
        assert!(matches!(built[1], MoveStep::Forward(d) if (d - 2.0).abs() < 1e-3), "{built:?}");
        // Backspace takes the forward step back; a shorter one replaces it.
        press(&mut app, KeyCode::Backspace);
        assert_eq!(app.world().resource::<MoveDrag>().steps.len(), 1);
        drag(&mut app, unit, DragKind::Advance, vec![from, from + fwd * 1.5]);
        let built = app.world().resource::<MoveDrag>().steps.clone();
        assert_eq!(built.len(), 2);
        press(&mut app, KeyCode::Enter);
        assert_eq!(engine(&app).action_count(), n + 1, "{:?}", refusal(&app));
        assert_eq!(last_action(&app), Some(Action::Move { unit: "33rd Foot".into(), steps: built }.to_string()));
        let after = stands(&mut app, unit);
        assert!((after[0].facing - ghost[0].facing).abs() < 1e-3, "the unit faces as the wheel left it");
        assert!(!app.world().resource::<MoveDrag>().has_ghost(), "ordered: the ghost goes");
    }

    // OTP 6.1: a step that would take the move past its allowance is refused and not added; the
    // steps built before stay, and Esc-like Drop clears them.
    #[test]
    fn a_refused_step_leaves_the_move_as_it_was() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        drag_and_release(&mut app, unit, Vec2::new(0.0, -4.0));
        assert_eq!(app.world().resource::<MoveDrag>().steps.len(), 1);
        // 3" more from the ghost is 7" of a 6" move.
        let ghost: Vec<Vec2> = stands(&mut app, unit).iter().map(|f| f.front_centre() + Vec2::new(0.0, -4.0)).collect();
        let from = ghost.iter().sum::<Vec2>() / ghost.len() as f32 + Vec2::new(0.0, 0.3);
        drag(&mut app, unit, DragKind::Advance, vec![from, from + Vec2::new(0.0, -3.0)]);
        let (action, r) = refusal(&app).expect("refused");
        assert!(r.rule == "6.1" || r.rule == "3.1", "{r}");
        assert_eq!(action.to_string(), "move 33rd Foot: forward 4\", then forward 3\"");
        assert_eq!(app.world().resource::<MoveDrag>().steps, vec![MoveStep::Forward(4.0)], "the move as it was");
        command(&mut app, MoveCommand::Drop);
        assert!(!app.world().resource::<MoveDrag>().has_ghost());
    }

    // OTP 6.2, 4.3: the formation buttons are the engine's `unit_choices`: ChangeFormation
    // orders, each greyed with exactly `check`'s refusal (not phasing: 4.3).
    #[test]
    fn formation_buttons_are_change_of_formation_orders() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let column = {
            let e = engine(&app);
            let choices = e.unit_choices(game_entity(&app, "33rd Foot"));
            let forms: Vec<&Choice> = choices.iter().filter(|c| matches!(c.action, Action::ChangeFormation { .. })).collect();
            assert!(forms.iter().all(|c| !matches!(c.action, Action::ChangeFormation { formation: Formation::Line, .. })), "not to the formation it is in");
            for c in &choices {
                assert_eq!(c.verdict, e.check(&c.action), "{}: the engine's own verdict", c.label);
            }
            let col = forms.iter().find(|c| c.label == "Column").copied().cloned().unwrap();
            // Not phasing: greyed with the engine's rule (4.3).
            let other = e.unit_choices(game_entity(&app, "1st Maryland"));
            let line = other.iter().find(|c| c.label == "Column").unwrap();
            assert_eq!(line.verdict.as_ref().err().map(|r| r.rule.as_str()), Some("4.3"));
            assert_eq!(line.detail.as_deref(), Some("Form march column (6.2): half the normal move"));
            col
        };
        assert!(column.allowed());
        assert_eq!(column.action, Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column });
        send(&mut app, column.action);
        let e = engine(&app);
        assert_eq!(e.world().get::<Unit>(game_entity(&app, "33rd Foot")).unwrap().formation, Formation::Column);
    }

    // OTP 10.1, 4.3, 3.1, 3.2: the operations listed are the engine's `unit_plan`, greyed with
    // its rules.
    #[test]
    fn greyed_operations_carry_the_engines_rule() {
        let mut app = app();
        activate(&mut app, "Tarleton's Brigade");
        let plan = |app: &App, name: &str| engine(app).unit_plan(game_entity(app, name)).expect("OTP lists operations");
        let p = plan(&app, "Loyalist Militia");
        assert_eq!(p.title, "Operations (3.1)");
        assert_eq!(p.items.len(), 5, "3.1 lists five infantry operations");
        assert!(p.items.iter().all(|r| r.state.refusal().is_some_and(|r| r.rule == "10.1")), "a Morale Marker bars them all");
        assert!(plan(&app, "1st Maryland").items.iter().all(|r| r.state.refusal().is_some_and(|r| r.rule == "4.3")));
        let p = plan(&app, "British Legion Dragoons");
        assert_eq!(p.items.len(), 3, "3.2 lists three cavalry operations");
        assert!(p.items.iter().all(|r| r.state == PlanState::Open), "all open before it acts");
        // After a move the move is its operation; the others are barred with the engine's 3.2.
        send(&mut app, Action::Move { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Forward(3.0)] });
        let p = plan(&app, "British Legion Dragoons");
        assert_eq!(p.items[0].state, PlanState::Done, "{:?}", p.items[0]);
        assert_eq!(p.items[1].state.refusal().map(|r| r.rule.as_str()), Some("3.2"));
        assert!(p.done.as_deref().is_some_and(|d| d.starts_with("Done: move · 3")), "{:?}", p.done);
        // Infantry that changed formation may still move half (3.1 3.): begun, with inches left.
        send(&mut app, Action::ChangeFormation { unit: "British Legion Infantry".into(), formation: Formation::Line });
        let p = plan(&app, "British Legion Infantry");
        assert!(p.items.iter().any(|r| r.label.starts_with("3.") && r.state == PlanState::Going), "{:?}", p.items);
        let m = engine(&app).movement(game_entity(&app, "British Legion Infantry")).unwrap();
        assert!(m.spent > 0.0 && m.allowance > m.spent, "{} of {}", m.spent, m.allowance);
    }

    // OTP 6.12: a commander's ride is an order; too far is refused and not sent; his panel is
    // his `movement` (24" a phase) and `unit_choices` (joins).
    #[test]
    fn commander_rides_are_orders_within_24_inches() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let g = game_entity(&app, "Lt. Col. Webster");
        let at = engine(&app).world().get::<Commander>(g).unwrap().at;
        let ok = Action::MoveLeader { leader: "Lt. Col. Webster".into(), to: at + Vec2::new(3.0, 0.0) };
        let far = Action::MoveLeader { leader: "Lt. Col. Webster".into(), to: at + Vec2::new(0.0, -30.0) };
        assert!(engine(&app).check(&ok).is_ok());
        let r = engine(&app).check(&far).unwrap_err();
        assert!(r.rule == "6.12", "{r}");
        let ride = engine(&app).movement(g).expect("a commander rides");
        assert_eq!((ride.allowance, ride.spent, ride.kinds[0].cite.as_str()), (24.0, 0.0, "OTP 6.12"));
        let joins = engine(&app).unit_choices(g);
        assert!(joins.iter().any(|c| c.action == Action::JoinUnit { leader: "Lt. Col. Webster".into(), unit: "23rd Foot".into() } && c.allowed()), "{joins:?}");
        assert!(joins.iter().all(|c| c.label != "1st Maryland"), "only his own command");
        // Clicks: his figure picks him; then a point rides him there, a friendly unit joins it,
        // an enemy unit puts him down.
        let w = app.world_mut();
        let (webster_e, webster) = w.query::<(Entity, &Commander)>().iter(w).find(|(_, c)| c.name == "Lt. Col. Webster").map(|(e, c)| (e, c.clone())).unwrap();
        let unit = |w: &mut World, n: &str| w.query::<&Unit>().iter(w).find(|u| u.name == n).cloned().unwrap();
        let (own, enemy) = (unit(w, "23rd Foot"), unit(w, "1st Maryland"));
        let to = webster.at + Vec2::new(3.0, 0.0);
        assert_eq!(commander_click(None, None, Some(webster_e), webster.at), CommanderClick::Pick(webster_e));
        assert_eq!(commander_click(None, None, None, to), CommanderClick::Nothing);
        assert_eq!(commander_click(Some(&webster), None, None, to), CommanderClick::Order(ok.clone()));
        assert_eq!(commander_click(Some(&webster), Some(&own), None, to), CommanderClick::Order(Action::JoinUnit { leader: "Lt. Col. Webster".into(), unit: "23rd Foot".into() }));
        assert_eq!(commander_click(Some(&webster), Some(&enemy), None, to), CommanderClick::PutDown);
        // The ride is an order the engine carries out: he is where the click was, and his ride
        // is spent.
        send(&mut app, ok);
        let e = engine(&app);
        assert!((e.world().get::<Commander>(g).unwrap().at - to).length() < 1e-4);
        assert!((e.movement(g).unwrap().spent - 3.0).abs() < 1e-3);
    }

    // OTP 4.3, 6.8: a unit not phasing is not moved by a drag; its kinds of move are shown
    // greyed with exactly the engine's refusal of such a move.
    #[test]
    fn a_unit_not_phasing_is_not_playable_and_its_special_move_is_greyed() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        select(&mut app, "1st Maryland");
        assert!(app.world().resource::<MoveDrag>().playable.is_none(), "not phasing: a drag does not order it");
        let g = game_entity(&app, "1st Maryland");
        let e = engine(&app);
        let m = e.movement(g).expect("its moves, greyed");
        let special = m.kinds[1].verdict.clone().unwrap_err();
        assert_eq!(special.rule, "4.3");
        assert_eq!(Err(special), e.check(&e.move_action(g, 1, vec![MoveStep::Forward(0.05)])), "the engine's own verdict on a special move");
        // Its phasing neighbour is playable, with the move's allowance left.
        select(&mut app, "33rd Foot");
        let p = app.world().resource::<MoveDrag>().playable.clone().expect("phasing");
        let m = engine(&app).movement(p.game_unit).unwrap();
        assert_eq!((p.spent, p.most), (m.spent, Some(m.allowance)));
    }

    // A refused commander's order (as `Refused` carries it, in the engine's words) shows on his
    // sheet and on the unit's he would join, not elsewhere.
    #[test]
    fn a_refusal_is_shown_on_the_sheets_it_names() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let s = app.world().resource::<Session>();
        let far = Action::MoveLeader { leader: "Lt. Col. Webster".into(), to: Vec2::new(-50.0, -50.0) };
        let refusal = s.engine().check(&far).unwrap_err();
        let message = Refused { action: far, refusal };
        app.world_mut().write_message(message);
        app.update();
        let state = app.world().resource::<OrdersState>();
        assert!(state.refusal_for("Lt. Col. Webster").is_some() && state.refusal_for("33rd Foot").is_none());
    }
}

/// Writes a saved game for screenshots when `OTP_WRITE_SAVE=path` is set: the teaching battle,
/// seed 7, Webster's Brigade phasing and the 33rd Foot formed in column.
#[cfg(test)]
#[test]
#[ignore = "writes a save for screenshots when OTP_WRITE_SAVE is set"]
fn write_screenshot_save() {
    use crate::rules::cite::RuleSetId;
    let Ok(path) = std::env::var("OTP_WRITE_SAVE") else { return };
    let mut g = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 7).unwrap();
    g.apply(Action::Next).unwrap();
    for _ in 0..10 {
        let acting = g.sequence().acting.first().and_then(|&u| g.world().get::<Unit>(u)).and_then(|u| g.world().get::<crate::scenario::spawn::Brigade>(u.brigade)).map(|b| b.name.clone());
        if acting.as_deref() == Some("Webster's Brigade") {
            break;
        }
        g.apply(Action::Next).unwrap();
    }
    g.apply(Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column }).unwrap();
    crate::scenario::write_atomically(std::path::Path::new(&path), &g.save_text()).unwrap();
}
