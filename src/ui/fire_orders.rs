//! Fire and charges on the table: pick a target, see the engine's odds, confirm.
//!
//! - **Fire mode** (`X`, or "Fire" in the small toolbar at the table's lower left): the selected
//!   unit is the firer; every enemy unit is asked of the engine (`Engine::target_choices`, the
//!   ones `Engine::aim_of` calls fire): those it may fire on are outlined in orange, the rest
//!   dimmed, their refusal (with its rule) on hover. The firing arcs overlay (A) is turned on
//!   while fire mode lasts. Hovering a target shows the engine's `Preview`: the exact chance of
//!   every result, each modifier with its rule, the range and the chart column. A click chooses
//!   the target (its preview is pinned in a panel over the table, clear of the target, with the
//!   engine's other choices, such as a gun's ammunition); a second click on the target, or
//!   "Fire!", sends the choice's action.
//! - **Charge mode** (`C`): the same with the engine's charge choices: the closure and its
//!   chance, both sides' melee values and the odds of every melee result. A refusal (its rule and
//!   reason) shows in the toolbar. A hover preview taller than the window in one column (a
//!   cavalry charge on skirmishers: closure, reaction, both values, every result) takes two.
//! - `Esc` first drops the chosen target, then leaves the mode. Clicking one of your own units
//!   makes it the firer; clicking an enemy never changes the selection while a mode is on.
//!
//! The window decides nothing: eligibility, odds and refusals are the engine's answers; the
//! only geometry it draws itself is a charge's path to contact (`table::contact`).
//!
//! Presets for screenshots (read at start):
//! - `OTP_FIRE="Firer>Target"`: select the firer, fire mode on, the pointer on the target (its
//!   odds preview shows). `OTP_FIRE="Firer>Target!"` chooses it instead (the pinned panel with
//!   the Fire! button).
//! - `OTP_CHARGE="Attacker>Target"` (and `!`): the same in charge mode.
//! - `OTP_AMMO=ball|canister`: the engine's choice whose label starts with it (a gun's
//!   ammunition).
//!
//! Saves to try them on (`/tmp/otp-fire-preview.ron`, `-fire-report`, `-charge-preview`,
//! `-charge-report`) are written by `cargo test --release --lib
//! ui::fire_orders::tests::write_screenshot_saves -- --ignored`; e.g.
//! `OTP_VIEW="34,35,18" OTP_FIRE="Delaware Light Infantry>71st Light Company" otp play
//! /tmp/otp-fire-preview.ron --screenshot odds.png`.

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::overlays::Overlays;
use super::session::{Applied, Order, Refused, Session};
use super::table_view::{HoverPreset, Selection, Troops};
use super::{UiSet, fonts_ready};
use crate::rules::cite::Source;
use crate::rules::engine::{Aim, Choice, Engine, Factor, Preview, PreviewBlock};
use crate::rules::report::Refusal;
use crate::scenario::spawn::Unit;
use crate::table::footprint::Footprint;

/// Which targeting mode is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    #[default]
    Off,
    Fire,
    Charge,
}

impl Mode {
    fn aim(self) -> Option<Aim> {
        match self {
            Mode::Off => None,
            Mode::Fire => Some(Aim::Fire),
            Mode::Charge => Some(Aim::Charge),
        }
    }
}

/// What the keys and buttons ask of fire and charge targeting (other panels' keys may send
/// these too).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AimCommand {
    /// Fire mode for the selected unit on, or off if it is on (X).
    Fire,
    /// Charge mode for the selected unit on, or off if it is on (C).
    Charge,
    /// Send the order at the chosen target (the Fire!/Charge! button, a second click).
    Confirm,
    /// Drop the chosen target; with none, leave the mode (Esc).
    StepBack,
}

/// The engine's answer for one enemy unit: the chosen action's preview, or its refusal.
#[derive(Clone, Debug)]
pub(crate) enum Verdict {
    Preview(Box<Preview>),
    Refused(Refusal),
}

impl Verdict {
    pub fn eligible(&self) -> bool {
        !matches!(self, Verdict::Refused(_))
    }
}

/// One enemy unit and what the engine says about firing on (or charging) it.
#[derive(Clone, Debug)]
pub(crate) struct TargetView {
    /// The app entity (the mirror's).
    pub entity: Entity,
    pub name: String,
    /// The engine's choices against it in this mode (a gun's ammunition, a charge's special
    /// move…), each with its verdict.
    pub choices: Vec<Choice>,
    /// The one shown and sent (an index of `choices`).
    pub chosen: usize,
    pub verdict: Verdict,
    /// Allowed, but no throw of the dice can do anything: why (`Engine::futile`).
    pub futile: Option<String>,
    /// A charge's attacker in contact, where `table::contact::charge_path` (the table's
    /// geometry) puts it; empty for fire and refused charges.
    pub ghost: Vec<Footprint>,
}

type Key = (u64, Entity, Mode, Option<String>);

/// Fire and charge targeting.
#[derive(Resource, Default)]
pub(crate) struct Targeting {
    pub mode: Mode,
    /// The unit that fires or charges (app entity).
    pub firer: Option<Entity>,
    /// The choice picked where the engine offers several (a gun's ammunition…): the first
    /// whose label starts with it; None: the engine's first (its default).
    pub pick: Option<String>,
    /// The target chosen by a first click, waiting for confirmation.
    pub armed: Option<Entity>,
    /// The last fire or charge order refused, with its rule.
    pub refusal: Option<(String, Refusal)>,
    /// The arcs overlay as it was before fire mode turned it on.
    arcs_before: Option<bool>,
    cache: Option<(Key, Vec<TargetView>)>,
    /// A screenshot preset: (firer, target, arm it), applied once the units are known.
    preset: Option<(Mode, String, String, bool)>,
}

impl Targeting {
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = if self.mode == mode { Mode::Off } else { mode };
        self.armed = None;
        self.refusal = None;
    }

    pub fn targets(&self) -> &[TargetView] {
        self.cache.as_ref().map(|(_, t)| t.as_slice()).unwrap_or(&[])
    }

    fn target(&self, e: Entity) -> Option<&TargetView> {
        self.targets().iter().find(|t| t.entity == e)
    }
}

/// One enemy unit as the engine judges it (game entities).
#[derive(Clone, Debug)]
pub(crate) struct Judged {
    pub target: Entity,
    pub name: String,
    pub choices: Vec<Choice>,
    pub chosen: usize,
    pub verdict: Verdict,
    pub futile: Option<String>,
}

/// The engine's choices against `target` in this aim, and the one picked (the first whose label
/// starts with `pick`, else the engine's first); None when it offers none.
fn choices_against(engine: &dyn Engine, firer: Entity, target: Entity, aim: Aim, pick: Option<&str>) -> Option<(Vec<Choice>, usize)> {
    let choices: Vec<Choice> = engine.target_choices(firer, target).into_iter().filter(|c| engine.aim_of(&c.action) == Some(aim)).collect();
    if choices.is_empty() {
        return None;
    }
    let chosen = pick.and_then(|p| choices.iter().position(|c| c.label.starts_with(p))).unwrap_or(0);
    Some((choices, chosen))
}

/// Every enemy unit the engine offers `firer` a choice against in this aim, with the chosen
/// choice's preview or refusal (game entities).
pub(crate) fn judge_targets(engine: &dyn Engine, firer: Entity, aim: Aim, pick: Option<&str>) -> Vec<Judged> {
    let world = engine.world();
    let Some(side) = world.get::<Unit>(firer).map(|u| u.side) else { return Vec::new() };
    let Some(mut units) = world.try_query::<(Entity, &Unit)>() else { return Vec::new() };
    let enemies: Vec<(Entity, String)> = units.iter(world).filter(|(_, u)| u.side != side).map(|(e, u)| (e, u.name.clone())).collect();
    enemies
        .into_iter()
        .filter_map(|(target, name)| {
            let (choices, chosen) = choices_against(engine, firer, target, aim, pick)?;
            let action = &choices[chosen].action;
            let verdict = match choices[chosen].verdict.clone().and_then(|()| engine.preview(action)) {
                Ok(Some(p)) => Verdict::Preview(Box::new(p)),
                // Allowed, with no dice to preview.
                Ok(None) => Verdict::Preview(Box::new(Preview { title: format!("{} — {name}", choices[chosen].label), blocks: Vec::new() })),
                Err(r) => Verdict::Refused(r),
            };
            let futile = if verdict.eligible() { engine.futile(action) } else { None };
            Some(Judged { target, name, choices, chosen, verdict, futile })
        })
        .collect()
}


pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Targeting>()
        .add_message::<AimCommand>()
        .add_systems(PostStartup, presets)
        .add_systems(Update, ((keyboard.run_if(not(egui_wants_any_keyboard_input)).run_if(super::editor::not_editing).before(super::unit_sheet::keyboard), aim).chain(), outcomes.after(aim)))
        .add_systems(EguiPrimaryContextPass, targeting.in_set(UiSet::Tools).run_if(fonts_ready).run_if(super::editor::not_editing));
}

/// `X` fire mode, `C` charge mode; Enter fires at (or charges) the chosen target; `Esc` drops
/// the chosen target, then leaves the mode (and is not passed on to close the unit sheet).
pub(crate) fn keyboard(mut keys: ResMut<ButtonInput<KeyCode>>, t: Res<Targeting>, mut aims: MessageWriter<AimCommand>) {
    if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight, KeyCode::AltLeft, KeyCode::AltRight]) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyX) {
        aims.write(AimCommand::Fire);
    }
    if keys.just_pressed(KeyCode::KeyC) {
        aims.write(AimCommand::Charge);
    }
    if keys.any_just_pressed([KeyCode::Enter, KeyCode::NumpadEnter]) && t.armed.is_some() {
        aims.write(AimCommand::Confirm);
    }
    if keys.just_pressed(KeyCode::Escape) && t.mode != Mode::Off {
        aims.write(AimCommand::StepBack);
        keys.clear_just_pressed(KeyCode::Escape);
    }
}

/// Carry out the targeting commands, from the keys or any panel.
pub(crate) fn aim(mut commands: MessageReader<AimCommand>, mut t: ResMut<Targeting>, selection: Res<Selection>, session: Option<Res<Session>>, mut orders: MessageWriter<Order>) {
    for c in commands.read() {
        match c {
            AimCommand::Fire | AimCommand::Charge => {
                t.set_mode(if *c == AimCommand::Fire { Mode::Fire } else { Mode::Charge });
                t.firer = selection.unit;
            }
            AimCommand::Confirm => {
                if let Some(session) = &session {
                    confirm(&t, session, &mut orders);
                }
            }
            AimCommand::StepBack if t.armed.is_some() || t.refusal.is_some() => {
                t.armed = None;
                t.refusal = None;
            }
            AimCommand::StepBack => t.mode = Mode::Off,
        }
    }
}

/// A fire or charge order's outcome: applied ends the mode, the firer still selected (it has
/// done its fire or charge: nothing is left to aim); refused shows why.
fn outcomes(mut applied: MessageReader<Applied>, mut refused: MessageReader<Refused>, mut t: ResMut<Targeting>, mut selection: ResMut<Selection>, session: Option<Res<Session>>) {
    let Some(session) = session else { return };
    let engine = session.engine();
    for Applied(report) in applied.read() {
        if t.mode != Mode::Off && engine.aim_of(&report.action).is_some() {
            t.armed = None;
            t.refusal = None;
            t.mode = Mode::Off;
            if let Some(f) = t.firer {
                selection.unit = Some(f);
            }
        }
    }
    for r in refused.read() {
        let action = r.action.clone();
        if engine.aim_of(&action).is_some() {
            t.refusal = Some((action.to_string(), r.refusal.clone()));
        }
    }
}

/// `OTP_FIRE`, `OTP_CHARGE`, `OTP_AMMO`.
fn presets(mut t: ResMut<Targeting>) {
    for (var, mode) in [("OTP_FIRE", Mode::Fire), ("OTP_CHARGE", Mode::Charge)] {
        let Ok(text) = std::env::var(var) else { continue };
        let text = text.trim();
        let (arm, text) = match text.strip_suffix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        match text.split_once('>') {
            Some((a, b)) => t.preset = Some((mode, a.trim().to_string(), b.trim().to_string(), arm)),
            None => eprintln!("{var}={text:?}: expected \"Firer>Target\"; ignored"),
        }
    }
    if let Ok(pick) = std::env::var("OTP_AMMO") {
        t.pick = Some(pick.trim().to_lowercase());
    }
}

/// The egui area of the hover preview (the screenshot tool reports where it was drawn).
pub(crate) const PREVIEW_AREA: &str = "fire_preview";

/// Warm outline of a target the engine allows.
const TARGET: Color32 = Color32::from_rgb(255, 145, 35);
const CASING: Color32 = Color32::from_rgb(40, 24, 10);
const REFUSED_TEXT: Color32 = Color32::from_rgb(255, 140, 120);

#[allow(clippy::too_many_arguments)]
fn targeting(
    mut contexts: EguiContexts,
    mut t: ResMut<Targeting>,
    mut selection: ResMut<Selection>,
    mut overlays: ResMut<Overlays>,
    mut hover: ResMut<HoverPreset>,
    mut orders: MessageWriter<Order>,
    mut dice: ResMut<super::dice_overlay::DiceOverlay>,
    session: Option<Res<Session>>,
    view: Res<View>,
    troops: Res<Troops>,
    units: Query<(Entity, &Unit)>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some(session) = session else { return Ok(()) };
    let t = &mut *t;
    let first_pass = ctx.current_pass_index() == 0;

    // A screenshot preset, once the units are on the table and (after any `OTP_ORDERS`) the
    // engine allows the fire or charge.
    if let Some((mode, a, b, arm)) = t.preset.take() {
        let find = |n: &str| units.iter().find(|(_, u)| u.name.eq_ignore_ascii_case(n)).map(|(e, _)| e);
        let allowed = match (find(&a).and_then(|e| session.game_entity(e)), find(&b).and_then(|e| session.game_entity(e)), mode.aim()) {
            (Some(f), Some(g), Some(aim)) => choices_against(session.engine(), f, g, aim, t.pick.as_deref()).is_some_and(|(c, i)| c[i].allowed()),
            _ => true,
        };
        match (find(&a), find(&b)) {
            (Some(_), Some(_)) if !allowed => t.preset = Some((mode, a, b, arm)),
            (Some(f), Some(g)) => {
                t.mode = mode;
                t.firer = Some(f);
                selection.unit = Some(f);
                if arm {
                    t.armed = Some(g);
                }
                // Chosen: the pinned panel shows it, the pointer is elsewhere; else the pointer
                // rests on the target and its preview shows.
                match on_unit(&troops, g) {
                    Some(c) => hover.0 = (!arm).then_some(c),
                    None => t.preset = Some((mode, a, b, arm)),
                }
            }
            _ => eprintln!("fire/charge preset: no unit named {a:?} or {b:?}"),
        }
    }

    // Fire mode shows the firer's arcs (the arcs overlay, A); put it back as it was after.
    match (t.mode == Mode::Fire, t.arcs_before) {
        (true, None) => {
            t.arcs_before = Some(overlays.arcs);
            overlays.arcs = true;
        }
        (false, Some(was)) => {
            overlays.arcs = was;
            t.arcs_before = None;
        }
        _ => {}
    }

    let side_of = |e: Entity| units.get(e).ok().map(|(_, u)| u.side);
    if t.firer.is_some_and(|e| units.get(e).is_err()) {
        t.firer = None;
    }
    if t.mode != Mode::Off {
        // Clicks on the table: an enemy is a target (the selection stays on the firer), one of
        // our own units becomes the firer, open ground keeps the firer.
        let pointer = ctx.input(|i| i.pointer.interact_pos());
        let clicked = ctx.input(|i| i.pointer.primary_clicked());
        let on_table = pointer.is_some_and(|p| view.rect.contains(p) && ctx.layer_id_at(p).is_none_or(|l| l == egui::LayerId::background()));
        if t.firer.is_none() {
            t.firer = selection.unit;
        }
        if clicked && on_table {
            let firer_side = t.firer.and_then(side_of);
            match selection.hovered {
                Some(h) if firer_side.is_some() && side_of(h) != firer_side => {
                    selection.unit = t.firer;
                    if first_pass && t.target(h).is_some_and(|x| x.verdict.eligible()) {
                        if t.armed == Some(h) {
                            confirm(t, &session, &mut orders);
                        } else {
                            t.armed = Some(h);
                            t.refusal = None;
                            // The player has moved on from the last report: room for the choice.
                            dice.close();
                        }
                    }
                }
                Some(h) => {
                    if t.firer != Some(h) {
                        t.armed = None;
                        t.refusal = None;
                    }
                    t.firer = Some(h);
                }
                None => {
                    if t.firer.is_some() {
                        selection.unit = t.firer;
                    }
                    if first_pass {
                        t.armed = None;
                    }
                }
            }
        } else if selection.unit.is_some() && selection.unit != t.firer {
            // Selected from elsewhere (the unit list, a panel).
            t.firer = selection.unit;
            t.armed = None;
        }
        refresh(t, &session, &units);
    }

    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    if t.mode != Mode::Off {
        paint_targets(&painter, &view, t, &troops, selection.hovered);
    }
    // The odds of the enemy under the pointer.
    if t.mode != Mode::Off
        && let Some(h) = selection.hovered.filter(|h| t.armed != Some(*h))
        && let Some(target) = t.target(h)
        && let Some(pos) = hover.0.map(|p| view.to_screen(p)).or_else(|| ctx.input(|i| i.pointer.hover_pos()))
    {
        let firer = t.firer.and_then(|e| units.get(e).ok()).map(|(_, u)| u.name.clone()).unwrap_or_default();
        // Beside the pointer, clear of the target, of the unit's own tooltip (right of and
        // below the pointer) and of the table's edges; away from the firer when there is room.
        let id = egui::Id::new(PREVIEW_AREA);
        let away = t.firer.and_then(|e| unit_centre(&troops, e)).map(|f| pos - view.to_screen(f)).unwrap_or(egui::vec2(1.0, -1.0));
        let (pivot, offset) = beside(&ctx, &view, id, pos, egui::Vec2::ZERO, 20.0, unit_rect(&view, &troops, h), away);
        // A preview taller than the table (a charge with every block) may spread over the
        // panels, losing less of its top: a hover cannot be scrolled. One taller than the window
        // as a single column (its height and its blocks' remembered from when it was one) is
        // laid out in two, side by side.
        let tall = ctx.memory(|m| m.area_rect(id)).is_some_and(|r| r.height() > view.rect.height());
        let key = id.with((&firer, &target.name, t.mode == Mode::Charge));
        let single: Option<(f32, Vec<f32>)> = ctx.data(|d| d.get_temp(key));
        let columns = single.as_ref().filter(|(height, _)| *height > ctx.content_rect().height() - 8.0).map(|(_, blocks)| blocks.clone());
        let shown = egui::Area::new(id)
            .fade_in(false)
            .order(egui::Order::Tooltip)
            .interactable(false)
            .pivot(pivot)
            .fixed_pos(pos + offset)
            .constrain_to(if tall || columns.is_some() { ctx.content_rect() } else { view.rect })
            .show(&ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .show(ui, |ui| {
                        let blocks = match &columns {
                            Some(heights) => {
                                ui.set_max_width(2.0 * 420.0 + 12.0);
                                preview_columns(ui, &firer, target, heights);
                                Vec::new()
                            }
                            None => {
                                ui.set_max_width(420.0);
                                preview_ui(ui, &firer, target, false)
                            }
                        };
                        ui.add_space(2.0);
                        // (The chosen target's own preview is pinned, with its confirm button.)
                        if target.verdict.eligible() {
                            ui.label(RichText::new("Click to choose this target").italics().color(TARGET));
                        }
                        blocks
                    })
                    .inner
            });
        if columns.is_none() {
            ctx.data_mut(|d| d.insert_temp(key, (shown.response.rect.height(), shown.inner)));
        }
    }
    toolbar(&ctx, &view, t, &units);
    if t.mode != Mode::Off {
        pinned(&ctx, &view, t, &troops, &units, &session, &mut orders);
    }
    Ok(())
}


/// Ask the engine again when the game, the firer, the mode or the pick changed.
fn refresh(t: &mut Targeting, session: &Session, units: &Query<(Entity, &Unit)>) {
    let (Some(firer), Some(aim)) = (t.firer, t.mode.aim()) else {
        t.cache = None;
        return;
    };
    let key: Key = (session.revision, firer, t.mode, t.pick.clone());
    if t.cache.as_ref().is_some_and(|(k, _)| *k == key) {
        return;
    }
    let Ok((_, u)) = units.get(firer) else { return };
    let Some(game_firer) = session.game_entity(firer) else { return };
    let engine = session.engine();
    let situation = (aim == Aim::Charge).then(|| crate::table::situation::Situation::from_world(engine.world()));
    let ghost = |target: &str| -> Vec<Footprint> {
        let Some(situation) = &situation else { return Vec::new() };
        match (situation.find(&u.name), situation.find(target)) {
            (Ok(a), Ok(b)) => crate::table::contact::charge_path(situation, a, b, engine.move_rules()).stands,
            _ => Vec::new(),
        }
    };
    let list: Vec<TargetView> = judge_targets(engine, game_firer, aim, t.pick.as_deref())
        .into_iter()
        .filter_map(|j| {
            let ghost = if j.verdict.eligible() { ghost(&j.name) } else { Vec::new() };
            Some(TargetView { entity: session.app_entity(j.target)?, name: j.name, choices: j.choices, chosen: j.chosen, verdict: j.verdict, futile: j.futile, ghost })
        })
        .collect();
    if t.armed.is_some_and(|a| !list.iter().any(|x| x.entity == a && x.verdict.eligible())) {
        t.armed = None;
    }
    t.cache = Some((key, list));
}

/// Send the chosen choice's action at the chosen target (asked of the engine afresh).
fn confirm(t: &Targeting, session: &Session, orders: &mut MessageWriter<Order>) {
    let game = |e: Option<Entity>| e.and_then(|e| session.game_entity(e));
    if let (Some(f), Some(g), Some(aim)) = (game(t.firer), game(t.armed), t.mode.aim())
        && let Some((choices, i)) = choices_against(session.engine(), f, g, aim, t.pick.as_deref())
    {
        orders.write(Order(choices[i].action.clone()));
    }
}

fn paint_targets(painter: &egui::Painter, view: &View, t: &Targeting, troops: &Troops, hovered: Option<Entity>) {
    let mut out = Vec::new();
    let from = t.firer.and_then(|e| unit_centre(troops, e));
    for target in t.targets().iter().filter(|x| !x.ghost.is_empty() && (Some(x.entity) == hovered || Some(x.entity) == t.armed)) {
        for f in &target.ghost {
            let mut pts: Vec<egui::Pos2> = f.corners().iter().map(|&c| view.to_screen(c)).collect();
            pts.push(pts[0]);
            out.push(egui::Shape::convex_polygon(pts[..4].to_vec(), Color32::from_rgba_unmultiplied(255, 145, 35, 50), egui::Stroke::NONE));
            out.extend(egui::Shape::dashed_line(&pts, egui::Stroke::new(2.0, TARGET), 5.0, 3.0));
        }
        let to = target.ghost.iter().map(|f| f.centre).sum::<Vec2>() / target.ghost.len() as f32;
        if let Some(from) = from {
            let (a, b) = (view.to_screen(from), view.to_screen(to));
            out.push(egui::Shape::line_segment([a, b], egui::Stroke::new(4.0, CASING)));
            out.push(egui::Shape::line_segment([a, b], egui::Stroke::new(2.0, TARGET)));
            let dir = (b - a).normalized();
            let side = egui::vec2(-dir.y, dir.x);
            out.push(egui::Shape::convex_polygon(vec![b, b - dir * 12.0 + side * 6.0, b - dir * 12.0 - side * 6.0], TARGET, egui::Stroke::new(1.0, CASING)));
        }
    }
    for target in t.targets() {
        let Some(geom) = troops.0.iter().find(|g| g.entity == target.entity) else { continue };
        for f in &geom.stands {
            let pts: Vec<egui::Pos2> = f.corners().iter().map(|&c| view.to_screen(c)).collect();
            if target.verdict.eligible() {
                let w = if t.armed == Some(target.entity) { 4.5 } else { 3.0 };
                out.push(egui::Shape::closed_line(pts.clone(), egui::Stroke::new(w + 2.5, CASING)));
                out.push(egui::Shape::closed_line(pts, egui::Stroke::new(w, TARGET)));
            } else {
                out.push(egui::Shape::convex_polygon(pts, Color32::from_black_alpha(150), egui::Stroke::NONE));
            }
        }
    }
    painter.extend(out);
}


fn pct(p: f64) -> String {
    let v = 100.0 * p;
    if v > 0.0 && v < 0.1 { "<0.1%".into() } else { format!("{v:.1}%") }
}

/// A factor row: value, name and rule; the chart's words, what on the table gave it and the
/// number's provenance on hover (and the measurement in weak text when the tooltip cannot be
/// hovered).
fn factor_row(ui: &mut egui::Ui, interactive: bool, f: &Factor) {
    let reconstructed = match &f.source {
        Some(Source::Reconstructed { why }) => Some(format!("reconstructed: {why}")),
        _ => None,
    };
    let mut quote = format!("{} {}: {}", f.rule, f.name, f.value);
    if let Some(d) = &f.detail {
        quote.push_str(&format!("\n{d}"));
    }
    if let Some(r) = &reconstructed {
        quote.push_str(&format!("\n{r}"));
    }
    ui.horizontal(|ui| {
        ui.label(RichText::new(&f.value).monospace().strong());
        let r = ui.label(RichText::new(&f.name));
        ui.label(RichText::new(&f.rule).weak());
        if let Some(why) = &reconstructed {
            ui.label(RichText::new("†").weak()).on_hover_text(why);
        }
        if interactive {
            r.on_hover_text(quote);
        } else if let Some(here) = f.detail.as_deref().and_then(|d| d.lines().find_map(|l| l.strip_prefix("here: "))) {
            ui.label(RichText::new(here).weak().small());
        }
    });
}

fn heading(ui: &mut egui::Ui, text: &str) {
    ui.add_space(3.0);
    ui.label(RichText::new(text).strong().color(Color32::from_rgb(236, 228, 200)));
}

/// The preview of one target: the engine's refusal, or its preview. Returns each block's height.
pub(crate) fn preview_ui(ui: &mut egui::Ui, firer: &str, target: &TargetView, interactive: bool) -> Vec<f32> {
    let Some(p) = preview_head(ui, firer, target, interactive) else { return Vec::new() };
    p.blocks.iter().enumerate().map(|(i, b)| ui.scope(|ui| block_ui(ui, b, i, interactive)).response.rect.height()).collect()
}

/// The title of a target's preview (or the engine's refusal, then `None`).
fn preview_head<'a>(ui: &mut egui::Ui, firer: &str, target: &'a TargetView, interactive: bool) -> Option<&'a Preview> {
    match &target.verdict {
        Verdict::Refused(r) => {
            ui.label(RichText::new(format!("{firer} at {}", target.name)).strong().size(15.0));
            ui.label(RichText::new(format!("Not allowed ({}): {}", r.cite(), r.reason)).color(REFUSED_TEXT));
            None
        }
        Verdict::Preview(p) => {
            ui.label(RichText::new(&p.title).strong().size(15.0));
            // (The pinned panel says it by its button.)
            if !interactive && let Some(why) = &target.futile {
                ui.label(RichText::new(format!("Cannot hit. {why}")).strong().color(REFUSED_TEXT));
            }
            Some(p.as_ref())
        }
    }
}

/// A hover preview too tall for the window in one column: its blocks in two, split where the
/// taller column is least tall (by the blocks' heights in one column).
fn preview_columns(ui: &mut egui::Ui, firer: &str, target: &TargetView, heights: &[f32]) {
    let Some(p) = preview_head(ui, firer, target, false) else { return };
    let n = p.blocks.len();
    let total: f32 = heights.iter().take(n).sum();
    let split = (0..=n)
        .min_by(|&a, &b| {
            let taller = |k: usize| heights.iter().take(k).sum::<f32>().max(total - heights.iter().take(k).sum::<f32>());
            taller(a).total_cmp(&taller(b))
        })
        .unwrap_or(n);
    ui.columns(2, |cols| {
        for (i, b) in p.blocks.iter().enumerate() {
            block_ui(&mut cols[usize::from(i >= split)], b, i, false);
        }
    });
}

/// Facts on one line, each rule said once where the next fact's differs.
fn facts_line(b: &PreviewBlock) -> String {
    let mut out = String::new();
    for (i, f) in b.facts.iter().enumerate() {
        if i > 0 {
            out.push_str(" · ");
        }
        out.push_str(&f.text);
        if b.facts.get(i + 1).is_none_or(|next| next.rule != f.rule) && !f.rule.is_empty() {
            out.push_str(&format!(" ({})", f.rule));
        }
    }
    out
}

/// Most odds rows shown; the rest are summed in one line.
const ODDS_ROWS: usize = 8;

/// One block of a preview: its heading, its facts, the odds of its outcomes as bars, its factors.
fn block_ui(ui: &mut egui::Ui, b: &PreviewBlock, index: usize, interactive: bool) {
    if !b.heading.is_empty() {
        heading(ui, &b.heading);
    }
    if !b.facts.is_empty() {
        ui.label(facts_line(b));
    }
    if !b.odds.is_empty() {
        let best = b.odds.iter().map(|o| o.chance).fold(0.0, f64::max).max(1e-9);
        let shown: Vec<_> = b.odds.iter().filter(|o| o.chance >= 0.005 || b.odds.len() <= ODDS_ROWS).take(ODDS_ROWS).collect();
        let colour = Color32::from_rgb(250, 210, 40);
        egui::Grid::new(("preview_odds", index)).num_columns(3).spacing([10.0, 2.0]).show(ui, |ui| {
            for o in &shown {
                ui.label(RichText::new(pct(o.chance)).monospace().strong().color(colour));
                let (r, _) = ui.allocate_exact_size(egui::vec2(90.0, 10.0), egui::Sense::hover());
                ui.painter().rect_filled(egui::Rect::from_min_size(r.min, egui::vec2(90.0 * (o.chance / best) as f32, 10.0)), 2.0, colour.gamma_multiply(0.8));
                ui.add(egui::Label::new(&o.outcome).wrap());
                ui.end_row();
            }
        });
        let rest = b.odds.len() - shown.len();
        if rest > 0 {
            let p: f64 = b.odds.iter().map(|o| o.chance).sum::<f64>() - shown.iter().map(|o| o.chance).sum::<f64>();
            ui.label(RichText::new(format!("… {rest} other result(s): {}", pct(p))).weak().small());
        }
    }
    for f in &b.factors {
        factor_row(ui, interactive, f);
    }
    if !b.heading.is_empty() && b.facts.is_empty() && b.odds.is_empty() && b.factors.is_empty() {
        ui.label(RichText::new("none").weak());
    }
}

/// A unit's centre on the table (the mean of its stands' centres).
fn unit_centre(troops: &Troops, e: Entity) -> Option<Vec2> {
    troops.0.iter().find(|g| g.entity == e).filter(|g| !g.stands.is_empty()).map(|g| g.stands.iter().map(|f| f.centre).sum::<Vec2>() / g.stands.len() as f32)
}

/// A point on the unit for the pointer to rest on: the centre of its stand nearest its middle
/// (a skirmish line's middle may be a gap between stands).
fn on_unit(troops: &Troops, e: Entity) -> Option<Vec2> {
    let middle = unit_centre(troops, e)?;
    troops.0.iter().find(|g| g.entity == e)?.stands.iter().map(|f| f.centre).min_by(|a, b| a.distance(middle).total_cmp(&b.distance(middle)))
}

/// A unit's stands' bounds on screen, with a margin.
fn unit_rect(view: &View, troops: &Troops, e: Entity) -> egui::Rect {
    troops.0.iter().find(|g| g.entity == e).map(|g| super::paint::screen_bounds(view, &g.stands.iter().flat_map(|f| f.corners()).collect::<Vec<_>>())).unwrap_or(egui::Rect::NOTHING).expand(6.0)
}

/// Where to put a panel beside `at` (a point, or a box of half size `half`): in one of the
/// three quarters other than below right (the table's own tooltip goes there), preferring the
/// side `away` points to, wholly on the table and off `keep_clear`; else where most of it fits.
/// The panel's size is last frame's.
#[allow(clippy::too_many_arguments)]
fn beside(ctx: &egui::Context, view: &View, id: egui::Id, at: egui::Pos2, half: egui::Vec2, gap: f32, keep_clear: egui::Rect, away: egui::Vec2) -> (egui::Align2, egui::Vec2) {
    let size = ctx.memory(|m| m.area_rect(id)).map(|r| r.size()).unwrap_or(egui::vec2(420.0, 300.0));
    let (dx, dy) = (half.x + gap, half.y + gap);
    let mut candidates = [(egui::Align2::LEFT_BOTTOM, egui::vec2(dx, -dy)), (egui::Align2::RIGHT_BOTTOM, egui::vec2(-dx, -dy)), (egui::Align2::RIGHT_TOP, egui::vec2(-dx, dy))];
    if away.x < 0.0 {
        candidates.swap(0, 1);
    }
    if away.y > 0.0 {
        candidates.rotate_left(1);
    }
    let room = |(pivot, offset): &(egui::Align2, egui::Vec2)| {
        let r = pivot.anchor_size(at + *offset, size);
        let area = |a: egui::Rect| if a.is_positive() { a.area() } else { 0.0 };
        area(r.intersect(view.rect)) - 4.0 * area(r.intersect(keep_clear))
    };
    candidates.iter().copied().find(|c| room(c) >= size.x * size.y - 1.0).unwrap_or_else(|| candidates.iter().copied().max_by(|a, b| room(a).total_cmp(&room(b))).unwrap_or(candidates[0]))
}


/// The chosen target's preview, pinned beside it with the confirm button (and the engine's other
/// choices, such as a gun's ammunition), until fired, cancelled or another target is chosen.
fn pinned(ctx: &egui::Context, view: &View, t: &mut Targeting, troops: &Troops, units: &Query<(Entity, &Unit)>, session: &Session, orders: &mut MessageWriter<Order>) {
    let Some(armed) = t.armed.and_then(|a| t.target(a)).cloned() else { return };
    let firer = t.firer.and_then(|e| units.get(e).ok()).map(|(_, u)| u.clone());
    let Some(firer) = firer else { return };
    // In a corner of the table (or above the toolbar) that leaves the target, the firer and
    // the toolbar clear; its height kept to about a third of the table so that one does.
    let keep_clear = [unit_rect(view, troops, armed.entity), t.firer.map_or(egui::Rect::NOTHING, |f| unit_rect(view, troops, f))];
    let id = egui::Id::new("fire_choice");
    let size = ctx.memory(|m| m.area_rect(id)).map(|r| r.size()).unwrap_or(egui::vec2(420.0, 300.0));
    let bar = ctx.memory(|m| m.area_rect(egui::Id::new("fire_toolbar"))).unwrap_or(egui::Rect::NOTHING);
    let screen = ctx.content_rect();
    let (pivot, pos) = place_choice(view.rect, screen, size, &keep_clear, bar);
    egui::Area::new(id).fade_in(false).order(egui::Order::Foreground).pivot(pivot).fixed_pos(pos).constrain_to(screen).show(ctx, |ui| {
        egui::Frame::window(ui.style()).inner_margin(8.0).stroke(egui::Stroke::new(1.5, TARGET)).show(ui, |ui| {
            ui.set_max_width(400.0);
            egui::ScrollArea::vertical().max_height(choice_height(view.rect)).show(ui, |ui| {
                preview_ui(ui, &firer.name, &armed, true);
            });
            ui.separator();
            // The engine's choices against this target (a gun's ammunition, a charge's special
            // move), each greyed with its refusal.
            if armed.choices.len() > 1 {
                ui.horizontal_wrapped(|ui| {
                    for (i, c) in armed.choices.iter().enumerate() {
                        let text = if c.allowed() { RichText::new(&c.label) } else { RichText::new(&c.label).weak() };
                        let r = ui.selectable_label(i == armed.chosen, text);
                        let r = match &c.verdict {
                            Err(why) => r.on_hover_text(format!("Not allowed ({}): {}", why.cite(), why.reason)),
                            Ok(()) => r,
                        };
                        if r.clicked() {
                            t.pick = Some(c.label.clone());
                        }
                    }
                });
            }
            let verb = if t.mode == Mode::Fire { "fire" } else { "charge" };
            match &armed.futile {
                Some(why) => {
                    ui.label(RichText::new("This fire cannot hit.").strong().color(REFUSED_TEXT));
                    ui.label(RichText::new(why).color(REFUSED_TEXT));
                }
                None => {
                    ui.label(RichText::new(format!("Click {} again, or {verb} here:", armed.name)).italics().color(TARGET));
                }
            }
            ui.horizontal(|ui| {
                let what = match (t.mode, &armed.futile) {
                    (Mode::Fire, Some(_)) => RichText::new("Fire anyway (no effect)"),
                    (Mode::Fire, None) => RichText::new("🔥 Fire!").strong().color(TARGET),
                    _ => RichText::new("⚔ Charge!").strong().color(TARGET),
                };
                if ui.button(what).clicked() {
                    confirm(t, session, orders);
                }
                if ui.button("Cancel (Esc)").clicked() {
                    t.armed = None;
                }
            });
        });
    });
}

/// The chosen target's panel is at most this tall (its odds scroll): under half the table, so
/// that some corner leaves both units clear.
fn choice_height(table: egui::Rect) -> f32 {
    (table.height() * 0.45 - 80.0).max(140.0)
}

/// Where the chosen target's panel goes: the first of the table's corners (the lower left just
/// above the toolbar first) where it covers none of `keep_clear` (the target, the firer) nor the
/// toolbar; else over a side panel of the window (`screen`: at Fit zoom a crowded table may have
/// no free corner, and the side panels matter less than the table while aiming); else where it
/// covers least, the toolbar counting ten times.
pub(crate) fn place_choice(table: egui::Rect, screen: egui::Rect, size: egui::Vec2, keep_clear: &[egui::Rect], bar: egui::Rect) -> (egui::Align2, egui::Pos2) {
    let above_bar = if bar.is_positive() { bar.top() - 8.0 } else { table.bottom() - 120.0 };
    let candidates = [
        (egui::Align2::LEFT_BOTTOM, egui::pos2(table.left() + 10.0, above_bar)),
        (egui::Align2::LEFT_TOP, table.left_top() + egui::vec2(10.0, 10.0)),
        (egui::Align2::RIGHT_TOP, table.right_top() + egui::vec2(-10.0, 10.0)),
        (egui::Align2::RIGHT_BOTTOM, table.right_bottom() + egui::vec2(-10.0, -40.0)),
        (egui::Align2::CENTER_TOP, table.center_top() + egui::vec2(0.0, 10.0)),
        (egui::Align2::CENTER_BOTTOM, table.center_bottom() + egui::vec2(0.0, -40.0)),
        (egui::Align2::RIGHT_TOP, egui::pos2(screen.right() - 6.0, table.top() + 10.0)),
        (egui::Align2::LEFT_TOP, egui::pos2(screen.left() + 6.0, table.top() + 10.0)),
    ];
    let area = |c: egui::Rect| if c.is_positive() { c.area() } else { 0.0 };
    let covered = |(pivot, pos): &(egui::Align2, egui::Pos2)| {
        let me = pivot.anchor_size(*pos, size);
        keep_clear.iter().map(|k| area(me.intersect(*k))).sum::<f32>() + 10.0 * area(me.intersect(bar))
    };
    candidates.iter().copied().find(|c| covered(c) == 0.0).unwrap_or_else(|| candidates.iter().copied().min_by(|a, b| covered(a).total_cmp(&covered(b))).unwrap_or(candidates[0]))
}


/// The small floating toolbar at the table's lower left: the two modes, what to do, and the
/// last refusal.
fn toolbar(ctx: &egui::Context, view: &View, t: &mut Targeting, units: &Query<(Entity, &Unit)>) {
    if !view.rect.is_positive() {
        return;
    }
    let firer = t.firer.and_then(|e| units.get(e).ok()).map(|(_, u)| u.clone());
    egui::Area::new(egui::Id::new("fire_toolbar"))
        .fade_in(false)
        .order(egui::Order::Foreground)
        .pivot(egui::Align2::LEFT_BOTTOM)
        .fixed_pos(view.rect.left_bottom() + egui::vec2(8.0, -62.0)) // clear of the scale bar
        .constrain_to(view.rect)
        .show(ctx, |ui| {
            egui::Frame::window(ui.style()).inner_margin(8.0).show(ui, |ui| {
                ui.set_max_width(330.0);
                if t.mode != Mode::Off {
                    if let Some((action, r)) = &t.refusal {
                        ui.label(RichText::new(format!("{action}: refused ({}): {}", r.cite(), r.reason)).color(REFUSED_TEXT));
                    }
                    let what = if t.mode == Mode::Fire { "fire on" } else { "charge" };
                    let line = match &firer {
                        None => "Select one of your units (click it).".to_string(),
                        Some(u) => {
                            let n = t.targets().iter().filter(|x| x.verdict.eligible()).count();
                            if n == 0 {
                                let why = t.targets().first().and_then(|x| match &x.verdict {
                                    Verdict::Refused(r) if t.targets().iter().all(|y| matches!(&y.verdict, Verdict::Refused(s) if s == r)) => Some(format!(" ({}: {})", r.cite(), r.reason)),
                                    _ => None,
                                });
                                format!("{}: no enemy it may {what}{}", u.name, why.unwrap_or_default())
                            } else {
                                format!("{}: {n} enemy unit(s) it may {what} — outlined. Click one to choose it, again to confirm. Esc leaves.", u.name)
                            }
                        }
                    };
                    ui.label(RichText::new(line).color(Color32::from_rgb(250, 238, 170)));
                }
                ui.horizontal(|ui| {
                    if ui.selectable_label(t.mode == Mode::Fire, "🎯 Fire (X)").on_hover_text("Choose a target for the selected unit's fire: the engine's odds for each").clicked() {
                        t.set_mode(Mode::Fire);
                    }
                    if ui.selectable_label(t.mode == Mode::Charge, "⚔ Charge (C)").on_hover_text("Choose an enemy to charge: closure and melee odds").clicked() {
                        t.set_mode(Mode::Charge);
                    }
                });
            });
        });
}


#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;

    use crate::rules::action::Action;

    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::rules::engine::TrackState;

    type Game = Box<dyn Engine>;

    /// The teaching battle under On to Philadelphia, through the interface.
    fn teaching(seed: u64) -> Game {
        crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), seed).unwrap()
    }

    fn ok(g: &mut Game, a: Action) -> crate::rules::report::Report {
        g.apply(a.clone()).unwrap_or_else(|r| panic!("{a}: {r}"))
    }

    /// Go on (start, draw, end activations) until `brigade` is the one acting (its chits decide).
    fn activate(g: &mut Game, brigade: &str) {
        for _ in 0..60 {
            if g.sequence().track.iter().any(|t| t.state == TrackState::Current && t.label.contains(brigade)) {
                return;
            }
            ok(g, Action::Next);
        }
        panic!("{brigade} never came up");
    }
    use crate::scenario::spawn::MoraleMarker;
    use crate::table::movement::MoveStep;

    /// Howard's Continentals phasing, the Delaware lights 3" forward: in musket range of the
    /// 71st Light Company (as in tests/engine.rs).
    fn in_range(seed: u64) -> Game {
        let mut g = teaching(seed);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(3.0)] });
        g
    }

    fn entity(engine: &dyn Engine, name: &str) -> Entity {
        let world = engine.world();
        world.try_query::<(Entity, &Unit)>().unwrap().iter(world).find(|(_, u)| u.name == name).map(|(e, _)| e).expect("unit")
    }

    fn allowed(list: &[Judged]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().filter(|j| j.verdict.eligible()).map(|j| j.name.clone()).collect();
        v.sort();
        v
    }

    // OTP 8.1, 3.1–3.3, 4.3: fire mode outlines exactly the enemies the engine lets the unit fire
    // on, each verdict `check`'s own; a unit of a brigade that is not phasing may fire on none,
    // each refusal carrying its rule.
    #[test]
    fn fire_mode_targets_are_the_engines() {
        let g = in_range(3);
        let engine: &dyn Engine = g.as_ref();
        let firer = entity(engine, "Delaware Light Infantry");
        let list = judge_targets(engine, firer, Aim::Fire, None);
        assert!(allowed(&list).contains(&"71st Light Company".to_string()), "{list:?}");
        // Every enemy is listed, the friends none.
        let world = engine.world();
        let side = world.get::<Unit>(firer).unwrap().side;
        let enemies = world.try_query::<&Unit>().unwrap().iter(world).filter(|u| u.side != side).count();
        assert_eq!(list.len(), enemies);
        for j in &list {
            let c = &j.choices[j.chosen];
            assert_eq!(engine.aim_of(&c.action), Some(Aim::Fire));
            assert_eq!(c.verdict, engine.check(&c.action), "the choice is judged by check");
            assert_eq!(j.verdict.eligible(), c.verdict.is_ok());
            if let Verdict::Refused(r) = &j.verdict {
                assert_eq!(Err(r.clone()), engine.check(&c.action));
                assert!(!r.rule.is_empty() && !r.reason.is_empty());
            }
        }
        // OTP 4.3: not the phasing brigade: nothing outlined.
        let other = entity(engine, "33rd Foot");
        let list = judge_targets(engine, other, Aim::Fire, None);
        assert!(!list.is_empty() && list.iter().all(|j| matches!(&j.verdict, Verdict::Refused(r) if r.rule == "4.3")), "{list:?}");
    }

    // OTP 8.4: a gun's ammunition is the engine's choice: one choice per ammunition besides its
    // default, and the pick (`OTP_AMMO`) chooses among them by label.
    #[test]
    fn artillery_chooses_its_ammunition_among_the_engines_choices() {
        let g = in_range(3);
        let engine: &dyn Engine = g.as_ref();
        let guns = entity(engine, "Continental Artillery");
        let target = entity(engine, "71st Light Company");
        let (choices, chosen) = choices_against(engine, guns, target, Aim::Fire, None).unwrap();
        assert_eq!((choices.len(), chosen), (3, 0), "{choices:?}");
        let (_, ball) = choices_against(engine, guns, target, Aim::Fire, Some("ball")).unwrap();
        assert!(choices[ball].label.starts_with("ball"));
        let (_, musket) = choices_against(engine, entity(engine, "Delaware Light Infantry"), target, Aim::Fire, Some("ball")).unwrap();
        assert_eq!(musket, 0, "no such choice: the engine's first");
    }

    fn app(game: Game) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .insert_resource(View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(super::super::RunOptions { screenshot: Some("/dev/null".into()), replay: false, lesson: None, edit: None })
            .insert_resource(super::super::session::Opening::Scenario { scenario: Box::new(game.scenario().clone()), source: "test".into() })
            .init_resource::<Targeting>()
            .add_plugins(super::super::session::plugin)
            .add_systems(Update, outcomes.after(super::super::session::sync_world));
        app.update();
        {
            let mut s = app.world_mut().resource_mut::<Session>();
            s.autosave = None;
            s.replace(game);
        }
        app.update();
        app
    }

    fn app_unit(app: &mut App, name: &str) -> (Entity, Unit, bool) {
        let w = app.world_mut();
        w.query::<(Entity, &Unit, Has<MoraleMarker>)>().iter(w).find(|(_, u, _)| u.name == name).map(|(e, u, m)| (e, u.clone(), m)).expect("unit")
    }

    fn confirm_now(t: Res<Targeting>, session: Res<Session>, mut orders: MessageWriter<Order>) {
        confirm(&t, &session, &mut orders);
    }

    // OTP 8.1, 8.2: confirming a chosen target sends exactly the engine's fire choice; the
    // mirrored table then shows what the report says (figures left, the Morale Marker).
    #[test]
    fn confirming_fires_and_the_table_shows_the_report() {
        let mut hits = 0;
        for seed in 0..6 {
            let mut app = app(in_range(seed));
            let (firer, _, _) = app_unit(&mut app, "Delaware Light Infantry");
            let (target, before, _) = app_unit(&mut app, "71st Light Company");
            let n = app.world().resource::<Session>().engine().action_count();
            {
                let mut t = app.world_mut().resource_mut::<Targeting>();
                t.mode = Mode::Fire;
                t.firer = Some(firer);
                t.armed = Some(target);
            }
            app.world_mut().run_system_once(confirm_now).unwrap();
            app.update();
            let s = app.world().resource::<Session>();
            assert_eq!(s.engine().action_count(), n + 1, "{:?}", s.last_refusal);
            assert_eq!(s.engine().actions().last().map(|a| a.to_string()).as_deref(), Some("Delaware Light Infantry fires at 71st Light Company"));
            let report = s.last_report.clone().expect("a report");
            assert!(app.world().resource::<Targeting>().armed.is_none(), "applied: the choice is spent");
            let (_, after, marker) = app_unit(&mut app, "71st Light Company");
            let lost: u32 = report.changes.iter().filter(|c| c.text.starts_with("71st Light Company:")).map(|c| before.figures - c.text.split("; ").last().and_then(|x| x.split(' ').next()).and_then(|x| x.parse::<u32>().ok()).unwrap_or(before.figures)).sum();
            assert_eq!(after.figures, before.figures - lost, "{report}");
            let hit = report.changes.iter().any(|c| c.text.starts_with("71st Light Company:"));
            if hit {
                hits += 1;
                assert!(marker, "OTP 8.2: a hit gives a Morale Marker: {report}");
            }
        }
        assert!(hits > 0, "some seed hits");
    }

    // OTP 8.1, 3.1: once the shot is fired the unit has nothing left to aim: the mode ends, the
    // firer stays selected, and no "already fired" preview is left on the table.
    #[test]
    fn after_the_shot_the_mode_ends_and_the_firer_stays_selected() {
        let mut app = app(in_range(2));
        app.add_message::<AimCommand>().add_systems(Update, aim.before(outcomes));
        let (firer, _, _) = app_unit(&mut app, "Delaware Light Infantry");
        let (target, _, _) = app_unit(&mut app, "71st Light Company");
        app.world_mut().resource_mut::<Selection>().unit = Some(firer);
        app.world_mut().write_message(AimCommand::Fire);
        app.update();
        assert_eq!(app.world().resource::<Targeting>().mode, Mode::Fire);
        app.world_mut().resource_mut::<Targeting>().armed = Some(target);
        app.world_mut().write_message(AimCommand::Confirm);
        app.update();
        app.update();
        let s = app.world().resource::<Session>();
        assert_eq!(s.engine().actions().last().and_then(|a| s.engine().aim_of(a)), Some(Aim::Fire));
        let t = app.world().resource::<Targeting>();
        assert_eq!((t.mode, t.armed), (Mode::Off, None), "the mode ends with the shot");
        assert_eq!(app.world().resource::<Selection>().unit, Some(firer), "the firer stays selected");
    }

    // The chosen target's panel covers neither the target nor the firer (nor the toolbar), where
    // the table has a corner that leaves them clear.
    #[test]
    fn the_confirmation_panel_hides_neither_unit() {
        let table = egui::Rect::from_min_max(egui::pos2(0.0, 30.0), egui::pos2(1000.0, 760.0));
        let size = egui::vec2(420.0, choice_height(table) + 90.0);
        let bar = egui::Rect::from_min_size(egui::pos2(8.0, 640.0), egui::vec2(330.0, 60.0));
        // The target in the top left corner (where the panel used to sit), the firer low left.
        let target = egui::Rect::from_min_size(egui::pos2(60.0, 60.0), egui::vec2(120.0, 30.0));
        let firer = egui::Rect::from_min_size(egui::pos2(80.0, 420.0), egui::vec2(120.0, 30.0));
        for (a, b) in [(target, firer), (firer, target)] {
            let (pivot, pos) = place_choice(table, table, size, &[a, b], bar);
            let me = pivot.anchor_size(pos, size);
            assert!(!me.intersects(a) && !me.intersects(b) && !me.intersects(bar), "{me:?} covers a unit or the toolbar");
            assert!(table.contains_rect(me), "{me:?} on the table");
        }
    }

    // A crowded table at Fit zoom with no free corner: the panel goes over a side panel of the
    // window rather than over the target.
    #[test]
    fn with_no_free_corner_the_panel_goes_over_a_side_panel() {
        let screen = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1280.0, 800.0));
        let table = egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(958.0, 764.0));
        let size = egui::vec2(300.0, 260.0);
        let target = table.shrink(20.0);
        let (pivot, pos) = place_choice(table, screen, size, &[target, egui::Rect::NOTHING], egui::Rect::NOTHING);
        let me = pivot.anchor_size(pos, size);
        assert!(!me.intersects(target) && screen.contains_rect(me), "{me:?}");
    }

    // OTP 8.1: a shot that can hit is not futile, and its preview's facts are drawn on one
    // line with each rule once.
    #[test]
    fn a_shot_that_can_hit_is_not_futile() {
        let g = in_range(3);
        let engine: &dyn Engine = g.as_ref();
        let list = judge_targets(engine, entity(engine, "Delaware Light Infantry"), Aim::Fire, None);
        let j = list.iter().find(|j| j.name == "71st Light Company").unwrap();
        assert_eq!(j.futile, None);
        let Verdict::Preview(p) = &j.verdict else { panic!("allowed") };
        let line = facts_line(&p.blocks[0]);
        assert!(line.starts_with("Range ") && line.matches("(OTP 8.1)").count() == 1, "{line}");
    }

    // A refused charge (or fire) shows its rule in the toolbar; nothing changes.
    #[test]
    fn a_refused_order_is_shown_with_its_rule() {
        let mut app = app(in_range(1));
        let n = app.world().resource::<Session>().engine().action_count();
        // OTP 4.3: the 33rd Foot's brigade is not phasing.
        let charge = Action::Charge { unit: "33rd Foot".into(), target: "Delaware Light Infantry".into() };
        let order = Order(charge.clone());
        app.world_mut().write_message(order);
        app.update();
        let t = app.world().resource::<Targeting>();
        let (_, r) = t.refusal.clone().expect("the refusal is kept");
        assert_eq!(r.rule, "4.3", "{r:?}");
        assert_eq!(app.world().resource::<Session>().engine().action_count(), n);
    }

    /// Turn 2: the Delaware lights, 2" forward in turn 1, within a charge of the 71st Light Company.
    fn charge_ready(seed: u64) -> Game {
        let mut g = teaching(seed);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(2.0)] });
        // The rest of turn 1: every other chit drawn and ended, then the turn checked off.
        while g.sequence().turn < 2 {
            ok(&mut g, Action::Next);
        }
        activate(&mut g, "Howard's Continentals");
        g
    }

    // OTP 9.1, 6.8, 7.2: charge mode outlines exactly what the engine would let the unit charge;
    // its choices are the engine's (a plain charge first, a special move to contact), each
    // greyed with `check`'s refusal; artillery may charge nothing.
    #[test]
    fn charge_mode_targets_are_the_engines() {
        let g = charge_ready(2);
        let engine: &dyn Engine = g.as_ref();
        let list = judge_targets(engine, entity(engine, "Delaware Light Infantry"), Aim::Charge, None);
        assert_eq!(allowed(&list), vec!["71st Light Company"], "{list:?}");
        let j = list.iter().find(|j| j.name == "71st Light Company").unwrap();
        let Verdict::Preview(p) = &j.verdict else { panic!() };
        assert!(p.blocks.iter().any(|b| b.heading.starts_with("Closure")), "{p:?}");
        assert!(j.choices.len() >= 2, "a plain charge and a special move: {:?}", j.choices);
        for j in &list {
            for c in &j.choices {
                assert_eq!(engine.aim_of(&c.action), Some(Aim::Charge));
                assert_eq!(c.verdict, engine.check(&c.action));
            }
        }
        let guns = judge_targets(engine, entity(engine, "Continental Artillery"), Aim::Charge, None);
        assert!(!guns.is_empty() && guns.iter().all(|j| matches!(&j.verdict, Verdict::Refused(r) if r.rule == "7.2")));
    }

    // X and C toggle the modes; Esc drops the chosen target, then leaves the mode, and is not
    // passed on (the unit sheet stays open).
    #[test]
    fn keys_toggle_the_modes_and_esc_steps_back() {
        let mut app = App::new();
        app.init_resource::<ButtonInput<KeyCode>>().init_resource::<Selection>().init_resource::<Targeting>().add_message::<AimCommand>().add_message::<Order>().add_systems(Update, (keyboard, aim).chain());
        let e = app.world_mut().spawn_empty().id();
        app.world_mut().resource_mut::<Selection>().unit = Some(e);
        let press = |app: &mut App, k: KeyCode| {
            let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
            keys.release_all();
            keys.clear();
            keys.press(k);
            app.update();
            app.world().resource::<ButtonInput<KeyCode>>().just_pressed(k)
        };
        press(&mut app, KeyCode::KeyX);
        assert_eq!((app.world().resource::<Targeting>().mode, app.world().resource::<Targeting>().firer), (Mode::Fire, Some(e)));
        press(&mut app, KeyCode::KeyC);
        assert_eq!(app.world().resource::<Targeting>().mode, Mode::Charge);
        app.world_mut().resource_mut::<Targeting>().armed = Some(e);
        assert!(!press(&mut app, KeyCode::Escape), "Esc is taken");
        assert_eq!((app.world().resource::<Targeting>().mode, app.world().resource::<Targeting>().armed), (Mode::Charge, None));
        assert!(!press(&mut app, KeyCode::Escape));
        assert_eq!(app.world().resource::<Targeting>().mode, Mode::Off);
        assert!(press(&mut app, KeyCode::Escape), "with no mode on, Esc goes on to the unit sheet");
    }

    /// Saves for the screenshots (`cargo test … write_screenshot_saves -- --ignored`).
    #[test]
    #[ignore]
    fn write_screenshot_saves() {
        let save = |g: &Game, path: &str| crate::scenario::write_atomically(std::path::Path::new(path), &g.save_text()).unwrap();
        let fire = |u: &str, t: &str| Action::Fire { unit: u.into(), target: t.into() };
        let g = in_range(3);
        save(&g, "/tmp/otp-fire-preview.ron");
        for seed in 0..20 {
            let mut g = in_range(seed);
            let r = ok(&mut g, fire("Delaware Light Infantry", "71st Light Company"));
            if r.changes.iter().any(|c| c.text.contains("kill")) {
                println!("fire seed {seed}:\n{r}");
                save(&g, "/tmp/otp-fire-report.ron");
                break;
            }
        }
        // The Delaware lights 2" forward in turn 1; in turn 2 they charge the 71st Light Company.
        let charge = Action::Charge { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() };
        for seed in 0..12 {
            let mut g = charge_ready(seed);
            let p = g.preview(&charge);
            println!("seed {seed}: {:?}", p.as_ref().map(|p| p.as_ref().map(|p| p.title.clone())));
            if p.is_err() {
                continue;
            }
            save(&g, "/tmp/otp-charge-preview.ron");
            let rep = ok(&mut g, charge.clone());
            println!("{rep}");
            save(&g, "/tmp/otp-charge-report.ron");
            if rep.dice.len() > 3 {
                break;
            }
        }
    }
}
