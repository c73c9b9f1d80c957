//! Fire and charges on the table (8.x, 9.x): pick a target, see the engine's odds, confirm.
//!
//! - **Fire mode** (`X`, or "Fire" in the small toolbar at the table's lower left): the selected
//!   unit is the firer; every enemy unit is asked of the engine (`Game::fire_preview`): those it
//!   may fire on are outlined in orange, the rest dimmed, their refusal (with its rule) on hover.
//!   The firing arcs overlay (A) is turned on while fire mode lasts. Hovering a target shows the
//!   exact chance of every result, each modifier with its rule, the range and the chart column.
//!   A click chooses the target (its preview is pinned in a panel over the table, clear of the
//!   target, where artillery chooses ball or canister); a second click on the target, or
//!   "Fire!", sends `Action::Fire`.
//! - **Charge mode** (`C`): the same with `Game::charge_preview`: the closure (front, flank or
//!   rear as judged from where the attacker starts, 9.1) and its chance, both sides' melee values
//!   and the odds of every MELEE COMBAT row; confirming sends `Action::Charge`. A refusal (its
//!   rule and reason) shows in the toolbar.
//! - `Esc` first drops the chosen target, then leaves the mode. Clicking one of your own units
//!   makes it the firer; clicking an enemy never changes the selection while a mode is on.
//!
//! The window decides nothing: eligibility, odds and refusals are the engine's answers.
//!
//! Presets for screenshots (read at start):
//! - `OTP_FIRE="Firer>Target"`: select the firer, fire mode on, the pointer on the target (its
//!   odds preview shows). `OTP_FIRE="Firer>Target!"` chooses it instead (the pinned panel with
//!   the Fire! button).
//! - `OTP_CHARGE="Attacker>Target"` (and `!`): the same in charge mode.
//! - `OTP_AMMO=ball|canister`: the artillery ammunition chosen.
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
use crate::rules::otp::charts::{Ammo, Source};
use crate::rules::otp::engine::charge::ChargePreview;
use crate::rules::otp::engine::{Action, ChargeOptions, Game, Refusal};
use crate::rules::otp::fire::FirePreview;
use crate::scenario::model::Arm;
use crate::scenario::spawn::Unit;
use crate::table::aspect::AttackZone;
use crate::table::footprint::Footprint;

/// Which targeting mode is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    #[default]
    Off,
    Fire,
    Charge,
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

/// The engine's answer for one enemy unit.
#[derive(Clone, Debug)]
pub(crate) enum Verdict {
    Fire(Box<FirePreview>),
    Charge(Box<ChargePreview>),
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
    pub verdict: Verdict,
    /// A charge's attacker in contact, where `table::contact::charge_path` (the engine's
    /// geometry) puts it; empty for fire and refused charges.
    pub ghost: Vec<Footprint>,
}

type Key = (u64, Entity, Mode, Option<Ammo>);

/// Fire and charge targeting.
#[derive(Resource, Default)]
pub(crate) struct Targeting {
    pub mode: Mode,
    /// The unit that fires or charges (app entity).
    pub firer: Option<Entity>,
    /// Artillery's ammunition; None: the engine's choice (canister when allowed, 8.4).
    pub ammo: Option<Ammo>,
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

/// The enemy units of `name` still on the table, by name.
fn enemies(game: &Game, name: &str) -> Vec<String> {
    let Some(me) = game.unit_entity(name) else { return Vec::new() };
    let side = game.unit(me).side;
    game.units().filter(|(e, u)| u.side != side && u.figures > 0 && !game.unit_turn(*e).off_table).map(|(_, u)| u.name.clone()).collect()
}

/// Every enemy unit with the engine's fire preview or refusal (8.x, 3.1–3.3).
pub(crate) fn fire_targets(game: &Game, firer: &str, ammo: Option<Ammo>) -> Vec<(String, Result<FirePreview, Refusal>)> {
    let judge = |t: String| {
        let r = game.fire_preview(firer, &t, ammo);
        (t, r)
    };
    enemies(game, firer).into_iter().map(judge).collect()
}

/// Every enemy unit with the engine's charge preview or refusal (6.8–6.11, 9.x).
pub(crate) fn charge_targets(game: &Game, attacker: &str) -> Vec<(String, Result<ChargePreview, Refusal>)> {
    let judge = |t: String| {
        let r = game.charge_preview(attacker, &t, ChargeOptions::default());
        (t, r)
    };
    enemies(game, attacker).into_iter().map(judge).collect()
}

/// The order a confirmed target sends.
pub(crate) fn order_for(mode: Mode, unit: &str, target: &str, ammo: Option<Ammo>) -> Option<Action> {
    match mode {
        Mode::Fire => Some(Action::Fire { unit: unit.into(), target: target.into(), ammo }),
        Mode::Charge => Some(Action::Charge { unit: unit.into(), target: target.into() }),
        Mode::Off => None,
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Targeting>()
        .add_message::<AimCommand>()
        .add_systems(PostStartup, presets)
        .add_systems(Update, ((keyboard.run_if(not(egui_wants_any_keyboard_input)).before(super::unit_sheet::keyboard), aim).chain(), outcomes.after(aim)))
        .add_systems(EguiPrimaryContextPass, targeting.in_set(UiSet::Tools).run_if(fonts_ready));
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
pub(crate) fn aim(mut commands: MessageReader<AimCommand>, mut t: ResMut<Targeting>, selection: Res<Selection>, units: Query<(Entity, &Unit)>, mut orders: MessageWriter<Order>) {
    for c in commands.read() {
        match c {
            AimCommand::Fire | AimCommand::Charge => {
                t.set_mode(if *c == AimCommand::Fire { Mode::Fire } else { Mode::Charge });
                t.firer = selection.unit;
            }
            AimCommand::Confirm => confirm(&mut t, &units, &mut orders),
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
fn outcomes(mut applied: MessageReader<Applied>, mut refused: MessageReader<Refused>, mut t: ResMut<Targeting>, mut selection: ResMut<Selection>) {
    for Applied(report) in applied.read() {
        if t.mode != Mode::Off && matches!(report.action.as_otp(), Some(Action::Fire { .. } | Action::Charge { .. } | Action::ChargeWith { .. })) {
            t.armed = None;
            t.refusal = None;
            t.mode = Mode::Off;
            if let Some(f) = t.firer {
                selection.unit = Some(f);
            }
        }
    }
    for r in refused.read() {
        if matches!(r.action, Action::Fire { .. } | Action::Charge { .. } | Action::ChargeWith { .. }) {
            t.refusal = Some((r.action.to_string(), r.refusal.clone()));
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
    match std::env::var("OTP_AMMO").map(|s| s.to_lowercase()).as_deref() {
        Ok("ball") => t.ammo = Some(Ammo::Ball),
        Ok("canister") => t.ammo = Some(Ammo::Canister),
        Ok(other) => eprintln!("OTP_AMMO={other:?}: expected ball or canister; ignored"),
        Err(_) => {}
    }
}

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
        let allowed = match mode {
            Mode::Fire => session.game.fire_preview(&a, &b, t.ammo).is_ok(),
            Mode::Charge => session.game.charge_preview(&a, &b, ChargeOptions::default()).is_ok(),
            Mode::Off => true,
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
                match unit_centre(&troops, g) {
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
                            confirm(t, &units, &mut orders);
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
        let id = egui::Id::new("fire_preview");
        let away = t.firer.and_then(|e| unit_centre(&troops, e)).map(|f| pos - view.to_screen(f)).unwrap_or(egui::vec2(1.0, -1.0));
        let (pivot, offset) = beside(&ctx, &view, id, pos, egui::Vec2::ZERO, 20.0, unit_rect(&view, &troops, h), away);
        egui::Area::new(id)
            .fade_in(false)
            .order(egui::Order::Tooltip)
            .interactable(false)
            .pivot(pivot)
            .fixed_pos(pos + offset)
            .constrain_to(view.rect)
            .show(&ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_max_width(420.0);
                    preview_ui(ui, &firer, target, false);
                    ui.add_space(2.0);
                    // (The chosen target's own preview is pinned, with its confirm button.)
                    if target.verdict.eligible() {
                        ui.label(RichText::new("Click to choose this target").italics().color(TARGET));
                    }
                });
            });
    }
    toolbar(&ctx, &view, t, &units);
    if t.mode != Mode::Off {
        pinned(&ctx, &view, t, &troops, &units, &mut orders);
    }
    Ok(())
}

/// Ask the engine again when the game, the firer, the mode or the ammunition changed.
fn refresh(t: &mut Targeting, session: &Session, units: &Query<(Entity, &Unit)>) {
    let Some(firer) = t.firer else {
        t.cache = None;
        return;
    };
    let key: Key = (session.revision, firer, t.mode, t.ammo);
    if t.cache.as_ref().is_some_and(|(k, _)| *k == key) {
        return;
    }
    let Ok((_, u)) = units.get(firer) else { return };
    let entity_of = |name: &str| units.iter().find(|(_, u)| u.name == name).map(|(e, _)| e);
    let list: Vec<TargetView> = match t.mode {
        Mode::Fire => fire_targets(&session.game, &u.name, t.ammo)
            .into_iter()
            .filter_map(|(n, r)| Some(TargetView { entity: entity_of(&n)?, name: n, verdict: r.map(|p| Verdict::Fire(Box::new(p))).unwrap_or_else(Verdict::Refused), ghost: Vec::new() }))
            .collect(),
        Mode::Charge => {
            let situation = crate::table::situation::Situation::from_world(session.game.world());
            let ghost = |t: &str| -> Vec<Footprint> {
                match (situation.find(&u.name), situation.find(t)) {
                    (Ok(a), Ok(b)) => crate::table::contact::charge_path(&situation, a, b, &crate::rules::otp::engine::move_rules::OTP).stands,
                    _ => Vec::new(),
                }
            };
            charge_targets(&session.game, &u.name)
                .into_iter()
                .filter_map(|(n, r)| {
                    let ghost = if r.is_ok() { ghost(&n) } else { Vec::new() };
                    Some(TargetView { entity: entity_of(&n)?, name: n, verdict: r.map(|p| Verdict::Charge(Box::new(p))).unwrap_or_else(Verdict::Refused), ghost })
                })
                .collect()
        }
        Mode::Off => Vec::new(),
    };
    if t.armed.is_some_and(|a| !list.iter().any(|x| x.entity == a && x.verdict.eligible())) {
        t.armed = None;
    }
    t.cache = Some((key, list));
}

fn confirm(t: &mut Targeting, units: &Query<(Entity, &Unit)>, orders: &mut MessageWriter<Order>) {
    let name = |e: Option<Entity>| e.and_then(|e| units.get(e).ok()).map(|(_, u)| u.name.clone());
    if let (Some(f), Some(g)) = (name(t.firer), name(t.armed))
        && let Some(action) = order_for(t.mode, &f, &g, t.ammo)
    {
        orders.write(Order(action));
    }
}

/// Eligible targets outlined warm (the chosen one heavier), the others dimmed; for a charge,
/// the attacker's stands where the charge puts them in contact (dashed), for the target under
/// the pointer or chosen.
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

fn human(name: &str) -> String {
    name.replace('_', " ")
}

/// A modifier row: value, name and rule; the chart's words, what on the table gave it and the
/// number's provenance on hover (and in weak text when the tooltip cannot be hovered).
#[allow(clippy::too_many_arguments)]
fn modifier_row(ui: &mut egui::Ui, interactive: bool, value: i32, name: &str, rule: &str, label: &str, detail: Option<&str>, provenance: &Source) {
    let mut quote = format!("OTP {rule} {}: {value:+}\n{label}", human(name));
    if let Some(d) = detail {
        quote.push_str(&format!("\nhere: {d}"));
    }
    if provenance.is_reconstructed() {
        quote.push_str(&format!("\n{}", provenance.cited(crate::rules::cite::RuleSetId::Otp)));
    }
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("{value:+}")).monospace().strong());
        let r = ui.label(RichText::new(human(name)));
        ui.label(RichText::new(format!("OTP {rule}")).weak());
        if provenance.is_reconstructed() {
            ui.label(RichText::new("†").weak()).on_hover_text(provenance.cited(crate::rules::cite::RuleSetId::Otp));
        }
        if interactive {
            r.on_hover_text(quote);
        } else if let Some(d) = detail {
            ui.label(RichText::new(d).weak().small());
        }
    });
}

fn heading(ui: &mut egui::Ui, text: &str) {
    ui.add_space(3.0);
    ui.label(RichText::new(text).strong().color(Color32::from_rgb(236, 228, 200)));
}

/// The preview of one target: the engine's refusal, or the odds with every modifier.
pub(crate) fn preview_ui(ui: &mut egui::Ui, firer: &str, target: &TargetView, interactive: bool) {
    match &target.verdict {
        Verdict::Refused(r) => {
            ui.label(RichText::new(format!("{firer} at {}", target.name)).strong().size(15.0));
            ui.label(RichText::new(format!("Not allowed (OTP {}): {}", r.rule, r.reason)).color(REFUSED_TEXT));
        }
        Verdict::Fire(p) => fire_ui(ui, p, interactive),
        Verdict::Charge(p) => charge_ui(ui, firer, &target.name, p, interactive),
    }
}

fn fire_ui(ui: &mut egui::Ui, p: &FirePreview, interactive: bool) {
    let ammo = match p.shot.ammo {
        Some(Ammo::Ball) => " — ball",
        Some(Ammo::Canister) => " — canister",
        None => "",
    };
    ui.label(RichText::new(format!("{} fires at {}{ammo}", p.shot.firer, p.shot.target)).strong().size(15.0));
    // (The pinned panel says it by its button.)
    if !interactive && let Some(why) = cannot_hit(p) {
        ui.label(RichText::new(format!("Cannot hit. {why}")).strong().color(REFUSED_TEXT));
    }
    let g = &p.geometry;
    let band = g.band.map(|b| format!(", {} range", format!("{b:?}").to_lowercase())).unwrap_or_default();
    let stands = if g.stands.len() == 1 { "1 stand".to_string() } else { format!("{} stands", g.stands.len()) };
    ui.label(format!("Range {:.1}\"{band} · {stands} fire, {} figure(s) · chart column: {} (OTP 8.1)", g.range, g.figures, p.column.label));
    if let Some(v) = &p.visibility {
        ui.label(RichText::new(format!("Woods on the sight line: {}; {:?} woods' visibility {}AD{:+}\" — {} nothing seen (OTP 8.7)", v.on_line_text(), v.woods, v.dice, v.plus, pct(v.not_visible))).color(Color32::from_rgb(255, 205, 90)));
    }
    heading(ui, "Result (D10 + modifiers, FIRE COMBAT chart)");
    let best = p.outcomes.iter().map(|o| o.probability).fold(0.0, f64::max).max(1e-9);
    egui::Grid::new("fire_odds").num_columns(3).spacing([10.0, 2.0]).show(ui, |ui| {
        for o in p.outcomes.iter().rev() {
            let colour = if o.kills > 0 { Color32::from_rgb(255, 150, 130) } else if o.morale_marker { Color32::from_rgb(250, 210, 40) } else { Color32::from_gray(200) };
            ui.label(RichText::new(pct(o.probability)).monospace().strong().color(colour));
            let (r, _) = ui.allocate_exact_size(egui::vec2(90.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(egui::Rect::from_min_size(r.min, egui::vec2(90.0 * (o.probability / best) as f32, 10.0)), 2.0, colour.gamma_multiply(0.8));
            let marker = if o.morale_marker { " + Morale Marker" } else { "" };
            ui.label(format!("{}{marker}  ({} in {})", o.label, o.ways, o.out_of));
            ui.end_row();
        }
    });
    for c in &p.commander_casualties {
        ui.label(RichText::new(format!("{} — {} ({}) a casualty (OTP 8.16)", pct(c.probability), c.commander, c.unit)).color(Color32::from_rgb(255, 150, 130)));
    }
    heading(ui, &format!("Modifiers: total {:+} (low rolls are good for the firer)", p.total_modifier));
    if p.modifiers.is_empty() {
        ui.label(RichText::new("none").weak());
    }
    for m in &p.modifiers {
        modifier_row(ui, interactive, m.value, &m.name, &m.rule, &m.label, m.detail.as_deref(), &m.provenance);
    }
    if p.uses_initial_volley {
        ui.label(RichText::new("Fires its initial volley (OTP 8.5)").weak());
    }
}

fn zone_text(z: AttackZone) -> &'static str {
    match z {
        AttackZone::Front => "front attack",
        AttackZone::Flank => "flank attack (closes automatically, ×2 in melee)",
        AttackZone::Rear => "rear attack (closes automatically, ×3 in melee)",
    }
}

fn charge_ui(ui: &mut egui::Ui, attacker: &str, target: &str, p: &ChargePreview, interactive: bool) {
    ui.label(RichText::new(format!("{attacker} charges {target}")).strong().size(15.0));
    ui.label(format!("{} · charge move {:.1}\" (judged from where {attacker} starts, OTP 9.1)", zone_text(p.zone), p.distance));
    let c = &p.closure;
    heading(ui, "Closure (OTP 9.1)");
    if c.automatic {
        ui.label(RichText::new("Closes automatically: 100%").strong());
    } else {
        let roll = crate::rules::otp::engine::describe::d10_at_or_under(c.total_modifier, &format!("CV {}", c.cv));
        ui.label(RichText::new(format!("Closes on a {roll}: {}", pct(c.probability))).strong());
        for m in &c.modifiers {
            modifier_row(ui, interactive, m.value, &m.name, &m.rule, &m.label, m.detail.as_deref(), &m.provenance);
        }
    }
    heading(ui, "Melee values if it closes (OTP 9.8–9.14)");
    ui.columns(2, |cols| {
        for (col, (side, title)) in cols.iter_mut().zip([(&p.melee.attacker, "Attacker"), (&p.melee.defender, "Defender")]) {
            col.label(RichText::new(format!("{title}: {}", side.total)).strong());
            for v in &side.units {
                let mult: String = v.multipliers.iter().map(|m| format!(" ×{}", m.factor)).collect();
                col.label(RichText::new(&v.name).color(Color32::from_gray(225)));
                let r = col.label(RichText::new(format!("{} fig × CV {}{mult} = {}", v.figures, v.modified_cv, v.value)).color(Color32::from_gray(225)));
                if interactive {
                    let mut tip = format!("{} figure(s) in combat (OTP {}: {})\nCV {} modified to {}", v.figures, v.figures_rule, v.figures_note, v.cv, v.modified_cv);
                    for m in &v.modifiers {
                        tip.push_str(&format!("\n{:+} {} (OTP {})", m.value, human(&m.name), m.rule));
                    }
                    for m in &v.multipliers {
                        tip.push_str(&format!("\n×{} {} (OTP {})", m.factor, m.label, m.rule));
                    }
                    r.on_hover_text(tip);
                }
            }
        }
    });
    let o = &p.outcomes;
    heading(ui, "Melee odds (each side adds a D10; ties re-roll)");
    ui.label(format!("Attacker wins {} · bonus move (2:1 or better, OTP 6.10) {}", pct(o.attacker_wins), pct(o.bonus_move)));
    egui::Grid::new("melee_odds").num_columns(4).spacing([10.0, 1.0]).striped(true).show(ui, |ui| {
        for h in ["chance", "winner", "ratio", "loser"] {
            ui.label(RichText::new(h).weak().small());
        }
        ui.end_row();
        let mut rows: Vec<_> = o.rows.iter().filter(|r| r.probability >= 0.005).collect();
        rows.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        for r in rows.into_iter().take(8) {
            ui.label(RichText::new(pct(r.probability)).monospace());
            ui.label(format!("{:?}", r.winner).to_lowercase());
            ui.label(&r.ratio);
            let mean: f64 = r.loser_losses.iter().map(|(n, p)| *n as f64 * p).sum();
            ui.label(format!("loses ~{mean:.1} fig, retreats {}", r.loser_retreat_moves));
            ui.end_row();
        }
    });
    ui.label(RichText::new("Before closing fire, reactions and countercharges (9.4, 9.5, 9.7).").weak().small());
}

/// A unit's centre on the table (the mean of its stands' centres).
fn unit_centre(troops: &Troops, e: Entity) -> Option<Vec2> {
    troops.0.iter().find(|g| g.entity == e).filter(|g| !g.stands.is_empty()).map(|g| g.stands.iter().map(|f| f.centre).sum::<Vec2>() / g.stands.len() as f32)
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

/// The chosen target's preview, pinned beside it with the confirm button (and artillery's
/// choice of ammunition), until fired, cancelled or another target is chosen.
fn pinned(ctx: &egui::Context, view: &View, t: &mut Targeting, troops: &Troops, units: &Query<(Entity, &Unit)>, orders: &mut MessageWriter<Order>) {
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
            if t.mode == Mode::Fire && matches!(firer.arm, Arm::Artillery { .. }) {
                ui.horizontal(|ui| {
                    ui.label("Ammunition (8.4):");
                    for (choice, text) in [(None, "best"), (Some(Ammo::Ball), "ball"), (Some(Ammo::Canister), "canister")] {
                        if ui.selectable_label(t.ammo == choice, text).on_hover_text("best: canister when the target is at short range and canister is allowed, else ball").clicked() {
                            t.ammo = choice;
                        }
                    }
                });
            }
            let verb = if t.mode == Mode::Fire { "fire" } else { "charge" };
            let hopeless = match &armed.verdict {
                Verdict::Fire(p) => cannot_hit(p),
                _ => None,
            };
            match &hopeless {
                Some(why) => {
                    ui.label(RichText::new("This fire cannot hit.").strong().color(REFUSED_TEXT));
                    ui.label(RichText::new(why).color(REFUSED_TEXT));
                }
                None => {
                    ui.label(RichText::new(format!("Click {} again, or {verb} here:", armed.name)).italics().color(TARGET));
                }
            }
            ui.horizontal(|ui| {
                let what = match (t.mode, &hopeless) {
                    (Mode::Fire, Some(_)) => RichText::new("Fire anyway (no effect)"),
                    (Mode::Fire, None) => RichText::new("🔥 Fire!").strong().color(TARGET),
                    _ => RichText::new("⚔ Charge!").strong().color(TARGET),
                };
                if ui.button(what).clicked() {
                    confirm(t, units, orders);
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

/// 8.1, 8.2: a shot none of whose results does anything (no kill, no Morale Marker): why, in
/// the rules' words; None when some result hits.
pub(crate) fn cannot_hit(p: &FirePreview) -> Option<String> {
    let hits: f64 = p.outcomes.iter().filter(|o| o.kills > 0 || o.morale_marker).map(|o| o.probability).sum();
    if hits > 0.0 {
        return None;
    }
    if p.visibility.as_ref().is_some_and(|v| v.not_visible >= 1.0) {
        return Some(format!("The woods on the sight line hide {} from every throw of the visibility dice (OTP 8.7).", p.shot.target));
    }
    Some(format!(
        "With modifiers totalling {:+}, every D10 (read 0–9, OTP 1.0) reads \"no effect\" in column {} of the FIRE COMBAT chart (OTP 8.1): {} figure(s) at {:.1}\" cannot hurt {}.",
        p.total_modifier, p.column.label, p.geometry.figures, p.geometry.range, p.shot.target
    ))
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
                        ui.label(RichText::new(format!("{action}: refused (OTP {}): {}", r.rule, r.reason)).color(REFUSED_TEXT));
                    }
                    let what = if t.mode == Mode::Fire { "fire on" } else { "charge" };
                    let line = match &firer {
                        None => "Select one of your units (click it).".to_string(),
                        Some(u) => {
                            let n = t.targets().iter().filter(|x| x.verdict.eligible()).count();
                            if n == 0 {
                                let why = t.targets().first().and_then(|x| match &x.verdict {
                                    Verdict::Refused(r) if t.targets().iter().all(|y| matches!(&y.verdict, Verdict::Refused(s) if s == r)) => Some(format!(" (OTP {}: {})", r.rule, r.reason)),
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
                    if ui.selectable_label(t.mode == Mode::Fire, "🎯 Fire (X)").on_hover_text("Choose a target for the selected unit's fire: the engine's odds for each (8.x)").clicked() {
                        t.set_mode(Mode::Fire);
                    }
                    if ui.selectable_label(t.mode == Mode::Charge, "⚔ Charge (C)").on_hover_text("Choose an enemy to charge: closure and melee odds (9.x)").clicked() {
                        t.set_mode(Mode::Charge);
                    }
                });
            });
        });
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;

    use super::*;
    use crate::rules::otp::engine::testing::{activate, ok, teaching};
    use crate::rules::otp::fire::FireTable;
    use crate::scenario::spawn::MoraleMarker;
    use crate::table::fire::{FireOptions, eligibility};
    use crate::table::movement::MoveStep;

    /// Howard's Continentals phasing, the Delaware lights 3" forward: in musket range of the
    /// 71st Light Company (as in tests/engine.rs).
    fn in_range(seed: u64) -> Game {
        let mut g = teaching(seed);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(3.0)] });
        g
    }

    fn allowed(list: &[(String, Result<FirePreview, Refusal>)]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().filter(|(_, r)| r.is_ok()).map(|(n, _)| n.clone()).collect();
        v.sort();
        v
    }

    // OTP 8.1, 3.1–3.3, 4.3: fire mode outlines exactly the enemies the engine lets the unit fire
    // on; each is in the eligibility matrix with figures that bear and see; a unit of a brigade
    // that is not phasing may fire on none, each refusal carrying its rule.
    #[test]
    fn fire_mode_targets_are_the_engines() {
        let g = in_range(3);
        let firer = "Delaware Light Infantry";
        let list = fire_targets(&g, firer, None);
        let ok_targets = allowed(&list);
        assert!(ok_targets.contains(&"71st Light Company".to_string()), "{list:?}");
        assert!(g.may_fire(g.unit_entity(firer).unwrap()));
        let table = FireTable::from_world(g.world());
        let s = &table.situation;
        let matrix = eligibility(s, FireOptions::new(&crate::rules::otp::fire::range::FIRE));
        let f = s.find(firer).unwrap();
        for t in &ok_targets {
            let ti = s.find(t).unwrap();
            assert!(matrix.iter().any(|e| e.firer == f && e.target == ti && e.figures_firing > 0), "{t} allowed but not eligible");
        }
        // Every enemy is listed, the friends none.
        let side = g.unit(g.unit_entity(firer).unwrap()).side;
        let enemies = g.units().filter(|(_, u)| u.side != side).count();
        assert_eq!(list.len(), enemies);
        for (n, r) in &list {
            assert_eq!(r.is_ok(), g.fire_preview(firer, n, None).is_ok());
            if let Err(r) = r {
                assert!(!r.rule.is_empty() && !r.reason.is_empty());
            }
        }
        // OTP 4.3: not the phasing brigade: nothing outlined.
        let other = "33rd Foot";
        assert!(!g.may_fire(g.unit_entity(other).unwrap()));
        let list = fire_targets(&g, other, None);
        assert!(!list.is_empty() && list.iter().all(|(_, r)| r.as_ref().is_err_and(|r| r.rule == "4.3")), "{list:?}");
    }

    fn app(game: Game) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .insert_resource(View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(super::super::RunOptions { screenshot: Some("/dev/null".into()) })
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

    fn confirm_now(t: ResMut<Targeting>, units: Query<(Entity, &Unit)>, mut orders: MessageWriter<Order>) {
        let mut t = t;
        confirm(&mut t, &units, &mut orders);
    }

    // OTP 8.1, 8.2: confirming a chosen target sends exactly `Action::Fire`; the mirrored table
    // then shows what the report says (figures left, the Morale Marker).
    #[test]
    fn confirming_fires_and_the_table_shows_the_report() {
        let mut hits = 0;
        for seed in 0..6 {
            let mut app = app(in_range(seed));
            let (firer, _, _) = app_unit(&mut app, "Delaware Light Infantry");
            let (target, before, _) = app_unit(&mut app, "71st Light Company");
            let n = app.world().resource::<Session>().game.actions().len();
            {
                let mut t = app.world_mut().resource_mut::<Targeting>();
                t.mode = Mode::Fire;
                t.firer = Some(firer);
                t.armed = Some(target);
            }
            app.world_mut().run_system_once(confirm_now).unwrap();
            app.update();
            let s = app.world().resource::<Session>();
            assert_eq!(s.game.actions().len(), n + 1, "{:?}", s.last_refusal);
            assert_eq!(s.game.actions().last(), Some(&Action::Fire { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into(), ammo: None }));
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
        assert!(matches!(app.world().resource::<Session>().game.actions().last(), Some(Action::Fire { .. })));
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

    // OTP 8.1, 8.2, 1.0: a shot none of whose results hurts says so, and why, in the rules' words
    // (the D10 read 0–9); a shot that can hit does not.
    #[test]
    fn a_shot_that_cannot_hit_says_why() {
        let g = in_range(3);
        let p = g.fire_preview("Delaware Light Infantry", "71st Light Company", None).unwrap();
        assert!(p.outcomes.iter().any(|o| o.kills > 0 && o.probability > 0.0), "this one can hit");
        assert_eq!(cannot_hit(&p), None);
        let mut hopeless = p.clone();
        for o in &mut hopeless.outcomes {
            o.probability = if o.kills > 0 || o.morale_marker { 0.0 } else { 1.0 };
        }
        let why = cannot_hit(&hopeless).expect("cannot hit");
        assert!(why.contains("0–9") && why.contains(&p.column.label) && why.contains("no effect"), "{why}");
    }

    // A refused charge (or fire) shows its rule in the toolbar; nothing changes.
    #[test]
    fn a_refused_order_is_shown_with_its_rule() {
        let mut app = app(in_range(1));
        let n = app.world().resource::<Session>().game.actions().len();
        // OTP 4.3: the 33rd Foot's brigade is not phasing.
        app.world_mut().write_message(Order(order_for(Mode::Charge, "33rd Foot", "Delaware Light Infantry", None).unwrap()));
        app.update();
        let t = app.world().resource::<Targeting>();
        let (_, r) = t.refusal.clone().expect("the refusal is kept");
        assert!(!r.rule.is_empty(), "{r}");
        assert_eq!(app.world().resource::<Session>().game.actions().len(), n);
    }

    /// Turn 2: the Delaware lights, 2" forward in turn 1, within a charge of the 71st Light Company.
    fn charge_ready(seed: u64) -> Game {
        let mut g = teaching(seed);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(2.0)] });
        crate::rules::otp::engine::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Howard's Continentals");
        g
    }

    // OTP 9.1, 6.9, 7.2: charge mode outlines exactly what the engine would let the unit charge,
    // with the closure judged from where the attacker starts; artillery may charge nothing.
    #[test]
    fn charge_mode_targets_are_the_engines() {
        let g = charge_ready(2);
        let list = charge_targets(&g, "Delaware Light Infantry");
        let ok_targets: Vec<&String> = list.iter().filter(|(_, r)| r.is_ok()).map(|(n, _)| n).collect();
        assert_eq!(ok_targets, vec!["71st Light Company"], "{list:?}");
        let (_, p) = list.iter().find(|(n, _)| n == "71st Light Company").unwrap();
        let p = p.as_ref().unwrap();
        assert_eq!(p.zone, AttackZone::Front);
        assert!(p.closure.probability > 0.0 && p.closure.probability < 1.0 && !p.closure.automatic);
        for (n, r) in &list {
            assert_eq!(r.is_ok(), g.charge_preview("Delaware Light Infantry", n, ChargeOptions::default()).is_ok());
        }
        assert!(charge_targets(&g, "Continental Artillery").iter().all(|(_, r)| r.as_ref().is_err_and(|r| r.rule == "7.2")));
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
        let g = in_range(3);
        g.save(std::path::Path::new("/tmp/otp-fire-preview.ron")).unwrap();
        for seed in 0..20 {
            let mut g = in_range(seed);
            let r = ok(&mut g, Action::fire("Delaware Light Infantry", "71st Light Company"));
            if r.changes.iter().any(|c| c.text.contains("kill")) {
                println!("fire seed {seed}:\n{r}");
                g.save(std::path::Path::new("/tmp/otp-fire-report.ron")).unwrap();
                break;
            }
        }
        // The Delaware lights 2" forward in turn 1; in turn 2 they charge the 71st Light Company.
        for seed in 0..12 {
            let mut g = charge_ready(seed);
            let p = g.charge_preview("Delaware Light Infantry", "71st Light Company", ChargeOptions::default());
            println!("seed {seed}: {:?}", p.as_ref().map(|p| (p.zone, p.closure.probability)));
            if p.is_err() {
                continue;
            }
            g.save(std::path::Path::new("/tmp/otp-charge-preview.ron")).unwrap();
            let rep = ok(&mut g, Action::Charge { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() });
            println!("{rep}");
            g.save(std::path::Path::new("/tmp/otp-charge-report.ron")).unwrap();
            if rep.dice.len() > 3 {
                break;
            }
        }
    }
}

