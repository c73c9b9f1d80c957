//! Orders for the selected unit, in a game: what it may still do this activation (3.1–3.3), moves
//! by mouse, formation changes, special moves, towns, guns and crews, and commanders' rides.
//!
//! Everything here asks the engine. The operations panel reads `Game::permit` and the arm's list
//! of operations; a dragged move is judged by `check_move` / `check_special_move` and, let go with
//! a legal ghost, becomes `Order(Action::Move { .. })` (or `SpecialMove`); each button is greyed
//! with the refusal of its own check (`check_formation`, `check_deploy`, `check_attach`, …),
//! rule and reason in its tooltip. A commander is picked by clicking his figure; then a click on
//! the table rides him there (`MoveCommander`) and a click on a unit of his command joins it
//! (`JoinUnit`), within his 24" a phase (6.12).
//!
//! A skirmish line moves stand by stand (5.3, 6.4): dragging one of its stands is a
//! `MoveStep::Stands` of that stand alone, judged and sent like any drag; Shift-drag moves the
//! whole line as a line is moved.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::overlays::{DragKind, MoveDrag, OverlayCache, drag_step};
use super::session::{Applied, Order, Refused, Session};
use super::table_view::{HoverPreset, Selection, Troops, unit_at};
use super::{UiSet, fonts_ready};
use crate::rules::otp::charts::ArmClass;
use crate::rules::otp::dice::DiceKind;
use crate::rules::otp::engine::operations::{Activity, Operation, operations, section};
use crate::rules::otp::engine::{Action, CommandState, Game, Phase, Refusal};
use crate::scenario::model::{Arm, Formation, Terrain, UnitType};
use crate::scenario::spawn::{Brigade, Commander, Unit};
use crate::table::movement::{Allowance, MoveStep};
use crate::table::situation::Situation;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<OrdersState>()
        .add_systems(Update, (set_playable, take_release, note_refusals).chain().after(super::session::sync_world))
        .add_systems(PostStartup, preset)
        .add_systems(EguiPrimaryContextPass, commander_tool.in_set(UiSet::Tools).run_if(fonts_ready));
}

/// `OTP_COMMANDER="Lt. Col. Webster"`: pick that commander at start (screenshots; with
/// `OTP_CURSOR` the pointer for his ride). `OTP_SPECIAL=1`: the special move toggle on.
fn preset(mut state: ResMut<OrdersState>, commanders: Query<(Entity, &Commander)>) {
    if let Ok(name) = std::env::var("OTP_COMMANDER") {
        match commanders.iter().find(|(_, c)| c.name.eq_ignore_ascii_case(name.trim())) {
            Some((e, _)) => state.commander = Some(e),
            None => eprintln!("OTP_COMMANDER: no commander named {name:?}"),
        }
    }
    if std::env::var("OTP_SPECIAL").is_ok_and(|v| v != "0") {
        state.special = true;
    }
}

/// What the orders panel remembers between frames.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct OrdersState {
    /// 6.8: the next drag is sent as a special move.
    pub special: bool,
    /// The last order refused from this panel or the table: (what was asked, why not).
    pub refusal: Option<(String, Refusal)>,
    /// The commander picked on the table (app entity): clicks ride him or join a unit.
    pub commander: Option<Entity>,
}

/// The selected unit of the phasing brigade, which a drag moves by order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Playable {
    /// The app entity (the mirror's).
    pub unit: Entity,
    pub name: String,
    /// What the geometry is given for the ghost: the inches left in the operation (plus the
    /// most the dice could add for a special move).
    pub allowance: Allowance,
    pub special: bool,
    /// Inches spent in the operation so far, and the most it allows (None: no movement left).
    pub spent: f32,
    pub most: Option<f32>,
}

/// The engine's verdict on a dragged move.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Verdict {
    /// The order the drag would send.
    pub action: Action,
    pub refusal: Option<Refusal>,
    /// This move's inches (from the plan), spent before it, and the most allowed.
    pub inches: f32,
    pub before: f32,
    pub most: Option<f32>,
    /// 6.8: the averaging dice a special move rolls on release.
    pub dice: Option<u8>,
}

fn inches(x: f32) -> String {
    let s = format!("{x:.1}");
    format!("{}\"", s.strip_suffix(".0").unwrap_or(&s))
}

impl Verdict {
    pub fn allowed(&self) -> bool {
        self.refusal.is_none()
    }

    /// One line for the ghost's tag and the panel.
    pub fn text(&self) -> String {
        match (&self.refusal, self.dice) {
            (Some(r), _) => format!("✖ not allowed ({}): {}", r.rule, r.reason),
            (None, Some(n)) => format!("✔ special move of {} (6.8): {}AD rolled on release", inches(self.inches), n),
            (None, None) => {
                let used = self.before + self.inches;
                match self.most {
                    Some(most) => format!("✔ {} this move · {} of {} used · {} left", inches(self.inches), inches(used), inches(most), inches((most - used).max(0.0))),
                    None => format!("✔ {} this move", inches(self.inches)),
                }
            }
        }
    }
}

/// The order a drag sends: a move, or a special move (6.8).
pub(crate) fn move_action(name: &str, step: &MoveStep, special: bool) -> Action {
    let (unit, steps) = (name.to_string(), vec![step.clone()]);
    if special { Action::SpecialMove { unit, steps } } else { Action::Move { unit, steps } }
}

/// The engine's read-only check of the order a drag would send.
pub(crate) fn check_action(game: &Game, action: &Action) -> Result<(), Refusal> {
    match action {
        Action::Move { unit, steps } => game.check_move(unit, steps),
        Action::SpecialMove { unit, steps } => game.check_special_move(unit, steps),
        Action::ChangeFormation { unit, formation } => game.check_formation(unit, *formation),
        Action::DeployInto { unit, place } => game.check_deploy(unit, place),
        Action::Detach { gun } => game.check_detach(gun).map(|_| ()),
        Action::Attach { gun, unit } => game.check_attach(gun, unit).map(|_| ()),
        Action::Reman { unit } => game.check_reman(unit),
        Action::MoveCommander { commander, to } => game.check_move_commander(commander, *to),
        Action::JoinUnit { commander, unit } => game.check_join_unit(commander, unit),
        Action::EndActivation if !matches!(game.phase(), Phase::Activation { .. }) => Err(Refusal::new("4.3", "no brigade is phasing: draw a chit first")),
        _ => Ok(()),
    }
}

/// The engine's verdict on a dragged step (what `plan` says it costs, `check_*` whether it may).
pub(crate) fn judge(game: &Game, p: &Playable, step: &MoveStep, plan: &crate::table::movement::MoveReport) -> Verdict {
    let action = move_action(&p.name, step, p.special);
    let refusal = check_action(game, &action).err();
    let dice = p.special.then(|| game.unit_entity(&p.name).and_then(|e| game.charts().movement.special_move_dice(ArmClass::from(game.unit(e).arm)))).flatten();
    Verdict { action, refusal, inches: plan.spent, before: p.spent, most: p.most, dice }
}

/// The unit's brigade name in the game.
fn brigade_name(game: &Game, unit: Entity) -> Option<String> {
    game.world().get::<Brigade>(game.unit(unit).brigade).map(|b| b.name.clone())
}

/// The selected unit as a drag may move it by order: the game in an activation, the unit the
/// phasing brigade's (or owed a 6.10 bonus move).
pub(crate) fn playable(game: &Game, app_unit: Entity, name: &str, special: bool) -> Option<Playable> {
    if !matches!(game.phase(), Phase::Activation { .. }) {
        return None;
    }
    let e = game.unit_entity(name)?;
    if game.phasing_brigade() != brigade_name(game, e) && !game.bonus_pending(e) {
        return None;
    }
    let u = game.unit(e);
    let budget = game.movement_budget(e);
    let (spent, most) = budget.map_or((game.unit_turn(e).spent, None), |(s, m)| (s, Some(m)));
    // The geometry's allowance: what is left (or the chart's move when nothing is: the engine
    // then says why not).
    let mut left = most.map_or_else(|| game.normal_move(e, u.formation), |m| (m - spent).max(0.0));
    if special && let Some(n) = game.charts().movement.special_move_dice(ArmClass::from(u.arm)) {
        left += DiceKind::Ad(n).range().1 as f32;
    }
    let column = matches!(u.formation, Formation::Column | Formation::Limbered);
    let allowance = Allowance { full: left, road: column.then(|| left + game.charts().movement.road_bonus()) };
    Some(Playable { unit: app_unit, name: name.to_string(), allowance, special, spent, most })
}

fn set_playable(session: Option<Res<Session>>, selection: Res<Selection>, units: Query<&Unit>, mut drag: ResMut<MoveDrag>, mut state: ResMut<OrdersState>) {
    let want = match (&session, selection.unit) {
        (Some(s), Some(e)) => units.get(e).ok().and_then(|u| playable(&s.game, e, &u.name, state.special)),
        _ => None,
    };
    if want.is_none() && state.special && selection.unit.is_none() {
        state.special = false;
    }
    if drag.playable != want {
        drag.playable = want;
    }
}

/// The step a drag asks of the game's unit, from the game's own table.
pub(crate) fn drag_of(game: &Game, name: &str, kind: DragKind, points: &[Vec2]) -> Option<MoveStep> {
    let s = Situation::from_world(game.world());
    let i = s.find(name).ok()?;
    drag_step(s.unit(i), kind, points)
}

/// A game drag let go: a legal ghost becomes the order; a red one is refused here with its
/// rule and nothing is sent (the ghost stays until Esc or the next drag).
fn take_release(mut drag: ResMut<MoveDrag>, session: Option<Res<Session>>, mut state: ResMut<OrdersState>, mut orders: MessageWriter<Order>) {
    if !drag.released {
        return;
    }
    drag.released = false;
    let (Some(p), Some(session)) = (drag.playable.clone(), session) else { return };
    if drag.unit != Some(p.unit) {
        return;
    }
    let Some(step) = drag.kind.and_then(|k| drag_of(&session.game, &p.name, k, &drag.points)) else {
        drag.clear();
        return;
    };
    let action = move_action(&p.name, &step, p.special);
    match check_action(&session.game, &action) {
        Ok(()) => {
            orders.write(Order(action));
            state.refusal = None;
            state.special = false;
            drag.clear();
        }
        Err(r) => state.refusal = Some((action.to_string(), r)),
    }
}

/// Refusals of orders sent from anywhere are shown in the panel too, until an order goes through.
fn note_refusals(mut applied: MessageReader<Applied>, mut refused: MessageReader<Refused>, mut state: ResMut<OrdersState>) {
    if applied.read().count() > 0 {
        state.refusal = None;
    }
    for r in refused.read() {
        state.refusal = Some((r.action.to_string(), r.refusal.clone()));
    }
}

// ---- the operations panel ----

/// An operation of the unit's arm, open or barred for this activation.
#[derive(Clone, Debug)]
pub(crate) struct OperationRow {
    pub operation: &'static Operation,
    pub state: OpState,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OpState {
    /// It may be performed.
    Open,
    /// Begun, and more of it may still be done.
    Going,
    /// What the unit did is this operation, and nothing more may be added.
    Done,
    /// Not this activation: the engine's rule and reason.
    Barred(Refusal),
}

impl OpState {
    pub fn refusal(&self) -> Option<&Refusal> {
        if let OpState::Barred(r) = self { Some(r) } else { None }
    }
}

/// The arm's operations (3.1–3.3) and which of them the unit may still perform, as the engine's
/// `permit` says: every one barred by its refusal (a Morale Marker 10.1, not phasing 4.3, a
/// morale result 10.2…), or those its operation so far could still be.
pub(crate) fn operation_rows(game: &Game, unit: Entity) -> Vec<OperationRow> {
    let u = game.unit(unit);
    let arm = ArmClass::from(u.arm);
    let militia = u.unit_type == UnitType::Militia;
    let ops = operations(arm);
    let all = |r: Refusal| ops.iter().map(|o| OperationRow { operation: o, state: OpState::Barred(r.clone()) }).collect();
    let p = match game.permit(unit, &[]) {
        Ok(p) => p,
        Err(r) => return all(r),
    };
    // Nothing more may be added (a special move, remanned guns, a finished operation): the
    // engine's refusal of a move says why.
    let probes = [Activity::Move, Activity::Fire, Activity::Charge, Activity::Form(Formation::Line), Activity::Form(Formation::Column), Activity::Form(Formation::Limbered), Activity::Form(Formation::Unlimbered), Activity::Form(Formation::Skirmish)];
    let mut first_refusal = None;
    let mut any = false;
    for a in probes {
        match game.permit(unit, &[a]) {
            Ok(_) => any = true,
            Err(r) => {
                first_refusal.get_or_insert(r);
            }
        }
    }
    let finished = if any { None } else { first_refusal };
    if p.done.is_empty()
        && let Some(r) = finished
    {
        return all(r);
    }
    let name = &u.name;
    ops.iter()
        .map(|o| {
            let state = if p.fitting.iter().any(|f| std::ptr::eq(*f, o)) {
                match (&finished, p.done.is_empty()) {
                    (Some(_), _) => OpState::Done,
                    (None, true) => OpState::Open,
                    (None, false) => OpState::Going,
                }
            } else if let Some(r) = &finished {
                OpState::Barred(r.clone())
            } else if !o.fits(&[], p.start, militia) {
                let from = [Formation::Limbered, Formation::Unlimbered].into_iter().find(|f| o.fits(&[], *f, militia));
                OpState::Barred(Refusal::new(section(arm), match from {
                    Some(f) => format!("{name} began its operation {:?}: this one is for guns {:?}", p.start, f),
                    None => format!("not an operation for {name} from {:?}", p.start),
                }))
            } else {
                let done: Vec<String> = p.done.iter().map(|a| a.to_string()).collect();
                OpState::Barred(Refusal::new(section(arm), format!("{name} has already done: {}; that is not part of this operation (one operation a turn)", done.join(", then "))))
            };
            OperationRow { operation: o, state }
        })
        .collect()
}

/// A button of the panel: its label, the order it sends and the engine's refusal if greyed.
#[derive(Clone, Debug)]
pub(crate) struct Choice {
    pub label: String,
    pub tip: String,
    pub action: Action,
    pub refusal: Option<Refusal>,
}

impl Choice {
    fn new(game: &Game, label: impl Into<String>, tip: impl Into<String>, action: Action) -> Choice {
        let refusal = check_action(game, &action).err();
        Choice { label: label.into(), tip: tip.into(), action, refusal }
    }
}

/// The formations the unit's arm may take, each as a change of formation (6.2; limber and
/// unlimber for guns, 3.3), the present one left out.
pub(crate) fn formation_choices(game: &Game, unit: Entity) -> Vec<Choice> {
    let u = game.unit(unit);
    let candidates: Vec<(Formation, &str)> = match u.arm {
        Arm::Artillery { .. } => vec![(Formation::Limbered, "Limber"), (Formation::Unlimbered, "Unlimber")],
        Arm::Cavalry => vec![(Formation::Line, "Line"), (Formation::Column, "Column")],
        Arm::Infantry => {
            let mut v = vec![(Formation::Line, "Line"), (Formation::Column, "Column"), (Formation::Skirmish, "Skirmish")];
            if game.scenario().optional_rules.loose_order {
                v.push((Formation::LooseOrder, "Loose order"));
            }
            v
        }
    };
    candidates
        .into_iter()
        .filter(|(f, _)| *f != u.formation)
        .map(|(f, label)| {
            let tip = match f {
                Formation::Limbered | Formation::Unlimbered => format!("{label} (3.3): half the limbered move"),
                _ => format!("Form {} (6.2): half the normal move", super::unit_sheet::formation_name(f)),
            };
            Choice::new(game, label, tip, Action::ChangeFormation { unit: u.name.clone(), formation: f })
        })
        .collect()
}

/// Where a unit stands (its first stand's centre), for "nearest first".
fn centre(game: &Game, unit: Entity) -> Vec2 {
    game.unit(unit).stands.first().and_then(|&s| game.world().get::<crate::table::footprint::Footprint>(s)).map(|f| f.centre).unwrap_or_default()
}

/// A town's or building's middle (None for other terrain).
fn anchor(t: &Terrain) -> Option<Vec2> {
    match t {
        Terrain::Town { outline, .. } => Some(outline.iter().map(|&p| Vec2::from(p)).sum::<Vec2>() / outline.len().max(1) as f32),
        Terrain::Building { at, .. } => Some(Vec2::from(*at)),
        _ => None,
    }
}

/// The other orders for the unit: about face, deploying into towns and buildings (6.13),
/// attaching and detaching guns (7.5), remanning (7.4).
pub(crate) fn other_choices(game: &Game, unit: Entity) -> Vec<Choice> {
    let u = game.unit(unit);
    let name = u.name.clone();
    let mut out = vec![Choice::new(game, "About face", "Turn about (6.3): free in line, 1/4 move in column", Action::Move { unit: name.clone(), steps: vec![MoveStep::AboutFace] })];
    let here = centre(game, unit);
    if !matches!(u.arm, Arm::Artillery { .. }) {
        // Towns and buildings nearest first: those it may deploy into, else one greyed button
        // with the nearest one's refusal.
        let mut places: Vec<(f32, &Terrain)> = game.scenario().terrain.iter().filter_map(|t| anchor(t).map(|a| (a.distance(here), t))).collect();
        places.sort_by(|a, b| a.0.total_cmp(&b.0));
        let tip = "Deploy into a town or building (6.13): a change of formation; it then counts as Line in cover";
        let choices: Vec<Choice> = places.iter().map(|(_, t)| Choice::new(game, format!("Deploy into {}", t.name()), tip, Action::DeployInto { unit: name.clone(), place: t.name().to_string() })).collect();
        let open: Vec<Choice> = choices.iter().filter(|c| c.refusal.is_none()).cloned().collect();
        if open.is_empty() {
            out.extend(choices.into_iter().next().map(|c| Choice { label: "Deploy into a town".into(), ..c }));
        } else {
            out.extend(open);
        }
        return out;
    }
    if u.attached_to.is_some() || game.riding_with(unit).is_some() {
        out.push(Choice::new(game, "Detach", "Detach the guns from their infantry (7.5), in their own operational phase", Action::Detach { gun: name.clone() }));
    } else {
        // Friendly infantry, nearest first: the first that will take the guns, else the
        // nearest's refusal.
        let mut hosts: Vec<(Entity, String)> = game.units().filter(|(e, h)| *e != unit && h.side == u.side && h.arm == Arm::Infantry).map(|(e, h)| (e, h.name.clone())).collect();
        hosts.sort_by(|a, b| centre(game, a.0).distance(here).total_cmp(&centre(game, b.0).distance(here)));
        let tip = "Attach the guns to friendly infantry in contact (7.5): they move with it within their own move";
        let choices: Vec<Choice> = hosts.iter().map(|(_, h)| Choice::new(game, format!("Attach to {h}"), tip, Action::Attach { gun: name.clone(), unit: h.clone() })).collect();
        match choices.iter().position(|c| c.refusal.is_none()) {
            Some(i) => out.push(choices[i].clone()),
            None => out.extend(choices.into_iter().next().map(|c| Choice { label: "Attach to infantry".into(), ..c })),
        }
    }
    if game.detached_crew(unit).is_some() {
        out.push(Choice::new(game, "Reman", "The crew in contact with its guns remans them (7.4)", Action::Reman { unit: name }));
    }
    out
}

/// 6.8: whether the unit may make a special move now (judged on a short step forward).
pub(crate) fn special_refusal(game: &Game, name: &str) -> Option<Refusal> {
    game.check_special_move(name, &[MoveStep::Forward(0.05)]).err()
}

const GOLD: Color32 = Color32::from_rgb(226, 214, 170);
const OK: Color32 = Color32::from_rgb(120, 225, 140);
const BAD: Color32 = Color32::from_rgb(255, 130, 120);
const GOING: Color32 = Color32::from_rgb(255, 205, 90);

fn refusal_tip(r: &Refusal) -> String {
    format!("OTP {}: {}", r.rule, r.reason)
}

/// A button that sends its order, or greyed with the engine's rule and reason.
fn choice_button(ui: &mut egui::Ui, c: &Choice, out: &mut Vec<Action>) {
    let b = ui.add_enabled(c.refusal.is_none(), egui::Button::new(&c.label));
    let b = match &c.refusal {
        Some(r) => b.on_disabled_hover_text(format!("{}\n\nNot now — {}", c.tip, refusal_tip(r))),
        None => b.on_hover_text(&c.tip),
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

/// The orders section of the unit sheet: the operations, the dragged move's verdict, the
/// buttons. Orders to send are pushed on `out`.
pub(crate) fn orders_ui(ui: &mut egui::Ui, session: &Session, unit: &Unit, state: &mut OrdersState, drag: &MoveDrag, cache: &OverlayCache, out: &mut Vec<Action>) {
    let game = &session.game;
    let Some(e) = game.unit_entity(&unit.name) else { return };
    match game.phase() {
        Phase::Setup => {
            heading(ui, "Orders");
            ui.label(RichText::new("The game has not started (4.2): start it from the turn panel.").weak().italics());
            return;
        }
        Phase::Over => {
            heading(ui, "Orders");
            ui.label(RichText::new("The game is over (4.5).").weak().italics());
            return;
        }
        _ => {}
    }
    let arm = ArmClass::from(unit.arm);
    heading(ui, &format!("Operations ({})", section(arm)));
    let rows = operation_rows(game, e);
    let barred_all = rows.windows(2).all(|w| w[0].state.refusal().is_some() && w[0].state.refusal() == w[1].state.refusal());
    if barred_all && let Some(r) = rows.first().and_then(|r| r.state.refusal()) {
        ui.label(RichText::new(format!("✖ {} — OTP {}", r.reason, r.rule)).color(BAD).size(12.5));
    }
    for row in &rows {
        let o = row.operation;
        let text = format!("{}. {}", o.number, o.name);
        let budget = o.budget.map(|(f, _)| if f < 1.0 { " ·½ move" } else { "" }).unwrap_or("");
        match &row.state {
            OpState::Open | OpState::Going | OpState::Done => {
                let (mark, colour, tip) = match row.state {
                    OpState::Going => ("➡", GOING, "begun: more of it may still be done"),
                    OpState::Done => ("●", GOLD, "done: this is the unit's operation this turn"),
                    _ => ("✔", OK, "open"),
                };
                ui.horizontal(|ui| {
                    ui.label(RichText::new(mark).color(colour).strong());
                    ui.label(RichText::new(format!("{text}{budget}")).size(12.5)).on_hover_text(format!("OTP {}: {tip}", o.section));
                });
            }
            OpState::Barred(r) => {
                ui.horizontal(|ui| {
                    ui.label(RichText::new("✖").weak().size(11.0));
                    ui.label(RichText::new(&text).size(12.5).weak().strikethrough()).on_hover_text(refusal_tip(r));
                });
            }
        }
    }
    let t = game.unit_turn(e);
    if !t.done.is_empty() || t.spent > 0.0 {
        let done: Vec<String> = t.done.iter().map(|a| a.to_string()).collect();
        ui.label(RichText::new(format!("Done: {} · {} spent", done.join(", then "), inches(t.spent))).size(12.0).weak());
    }
    if let Some((spent, most)) = game.movement_budget(e) {
        ui.label(RichText::new(format!("Movement: {} of {} used · {} left", inches(spent), inches(most), inches((most - spent).max(0.0)))).size(12.5));
    }
    if game.bonus_pending(e) {
        ui.label(RichText::new("6.10: a bonus move is owed — move, special move or charge").color(GOING).size(12.5));
    }

    let phasing = drag.plays(drag.playable.as_ref().map(|p| p.unit)) && drag.playable.as_ref().is_some_and(|p| p.name == unit.name);
    heading(ui, "Orders");
    if phasing {
        let hint = if unit.formation == Formation::Skirmish {
            "Skirmishers: drag a stand to move it alone, each stand up to the move and 1\"–3\" from the next (5.3, 6.4); Shift-drag moves the whole line. Let go on a green ghost to order it."
        } else {
            "Drag the unit to move it: an end stand wheels, Shift-drag side-steps, a column drags its head. Let go on a green ghost to order it."
        };
        ui.label(RichText::new(hint).size(11.5).weak());
        if let Some((_, Some(v))) = cache.dragged() {
            ui.label(RichText::new(v.text()).size(12.5).strong().color(if v.allowed() { OK } else { BAD }));
        }
    } else if let Some(phasing) = game.phasing_brigade() {
        ui.label(RichText::new(format!("Not phasing: {phasing} is (4.3).")).weak().italics().size(12.5));
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Form:").weak());
        for c in formation_choices(game, e) {
            choice_button(ui, &c, out);
        }
    });
    ui.horizontal_wrapped(|ui| {
        for c in other_choices(game, e) {
            choice_button(ui, &c, out);
        }
    });
    if arm != ArmClass::Artillery {
        let refusal = special_refusal(game, &unit.name);
        let dice = game.charts().movement.special_move_dice(arm).unwrap_or(1);
        ui.horizontal(|ui| {
            let tip = format!("Special move (6.8): the full move + {dice}AD, rolled when you let go of the drag; no fire, no change of formation, not through disordering terrain. The whole operation.");
            let r = ui.add_enabled(refusal.is_none(), egui::Button::selectable(state.special, "⚡ Special move"));
            let r = match &refusal {
                Some(x) => r.on_disabled_hover_text(format!("{tip}\n\nNot now — {}", refusal_tip(x))),
                None => r.on_hover_text(tip),
            };
            if r.clicked() {
                state.special = !state.special;
            }
            if state.special {
                ui.label(RichText::new(format!("next drag: {dice}AD rolled on release")).color(GOING).size(12.0));
            }
        });
    }
    let end = Choice::new(game, "End activation", "The phasing brigade has finished: its chit is set aside (4.3)", Action::EndActivation);
    choice_button(ui, &end, out);
    if let Some((what, r)) = &state.refusal {
        ui.add_space(4.0);
        ui.label(RichText::new(format!("✖ Refused: {what}")).color(BAD).strong().size(12.5));
        ui.label(RichText::new(format!("OTP {}: {}", r.rule, r.reason)).color(BAD).size(12.0));
    }
}

// ---- commanders ----

/// The commander's sheet in the side panel: his ride this phase and the units he may join.
pub(crate) fn commander_ui(ui: &mut egui::Ui, session: &Session, commander: &Commander, state: &mut OrdersState, out: &mut Vec<Action>) {
    let game = &session.game;
    let Some(g) = game.commander_entity(&commander.name) else { return };
    let most = game.charts().movement.commander();
    let ridden = game.world().get::<CommandState>(g).map_or(0.0, |s| s.moved);
    heading(ui, "Commander's ride (6.12)");
    ui.label(RichText::new(format!("{} of {} ridden this phase · {} left", inches(ridden), inches(most), inches((most - ridden).max(0.0)))).size(12.5));
    match game.check_move_commander(&commander.name, commander.at) {
        Ok(()) => {
            ui.label(RichText::new("Click the table to ride there; click a unit of his command to join it.").size(11.5).weak());
        }
        Err(r) => {
            ui.label(RichText::new(format!("✖ {} — OTP {}", r.reason, r.rule)).color(BAD).size(12.0));
        }
    }
    let own: Vec<String> = game
        .units()
        .filter(|(_, u)| u.side == commander.side && commander.brigade.is_none_or(|_| game.world().get::<Brigade>(u.brigade).is_some_and(|b| Some(&b.commander) == game.commander_entity(&commander.name).as_ref())))
        .map(|(_, u)| u.name.clone())
        .collect();
    if !own.is_empty() {
        ui.add_space(4.0);
        ui.label(RichText::new("Join a unit:").weak());
        ui.horizontal_wrapped(|ui| {
            for u in own {
                let c = Choice::new(game, u.clone(), "Ride to join the unit (6.12)", Action::JoinUnit { commander: commander.name.clone(), unit: u });
                choice_button(ui, &c, out);
            }
        });
    }
    if let Some((what, r)) = &state.refusal {
        ui.add_space(4.0);
        ui.label(RichText::new(format!("✖ Refused: {what}")).color(BAD).strong().size(12.5));
        ui.label(RichText::new(format!("OTP {}: {}", r.rule, r.reason)).color(BAD).size(12.0));
    }
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
        (Some(c), Some(u), _) if u.side == c.side => CommanderClick::Order(Action::JoinUnit { commander: c.name.clone(), unit: u.name.clone() }),
        (Some(_), Some(_), _) => CommanderClick::PutDown,
        (Some(c), None, None) => CommanderClick::Order(Action::MoveCommander { commander: c.name.clone(), to: at }),
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
    mut orders: MessageWriter<Order>,
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
                send(&session.game, action, &mut state, &mut orders);
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
    if let Some((_, c)) = state.commander.and_then(|c| commanders.get(c).ok()) {
        let centre = view.to_screen(c.at);
        painter.circle_stroke(centre, r + 3.0, egui::Stroke::new(3.0, GOLD));
        if let (Some(p), Some(screen)) = (at, pointer.filter(|p| on_table(*p))) {
            let action = match unit_here.and_then(|u| units.get(u).ok()).filter(|u| u.side == c.side) {
                Some(u) => Action::JoinUnit { commander: c.name.clone(), unit: u.name.clone() },
                None => Action::MoveCommander { commander: c.name.clone(), to: p },
            };
            let verdict = check_action(&session.game, &action);
            let colour = if verdict.is_ok() { OK } else { BAD };
            painter.line_segment([centre, screen], egui::Stroke::new(2.0, colour));
            painter.circle_stroke(screen, 5.0, egui::Stroke::new(2.0, colour));
            let ridden = session.game.commander_entity(&c.name).and_then(|g| session.game.world().get::<CommandState>(g)).map_or(0.0, |s| s.moved);
            let most = session.game.charts().movement.commander();
            let ride = c.at.distance(p);
            let text = match (&verdict, &action) {
                (Ok(()), Action::JoinUnit { unit, .. }) => format!("✔ click: join {unit} (6.12) · {} of {} left", inches(ride), inches((most - ridden).max(0.0))),
                (Ok(()), _) => format!("✔ click: ride {} (6.12) · {} left after", inches(ride), inches((most - ridden - ride).max(0.0))),
                (Err(r), _) => format!("✖ OTP {}: {}", r.rule, r.reason),
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

/// Send an order the engine's check allows; a refused one is shown, not sent.
fn send(game: &Game, action: Action, state: &mut OrdersState, orders: &mut MessageWriter<Order>) {
    match check_action(game, &action) {
        Ok(()) => {
            state.refusal = None;
            orders.write(Order(action));
        }
        Err(r) => state.refusal = Some((action.to_string(), r)),
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::footprint::Footprint;
    use super::super::session::Opening;

    /// A headless app with the session and these orders: the same message path as the window.
    fn app() -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .init_resource::<MoveDrag>()
            .insert_resource(View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .add_plugins((super::super::session::plugin, plugin));
        app.update();
        // No autosave from tests.
        app.world_mut().resource_mut::<Session>().autosave = None;
        app
    }

    fn send(app: &mut App, action: Action) {
        app.world_mut().write_message(Order(action));
        app.update();
    }

    /// Start the game and draw until `brigade` is phasing.
    fn activate(app: &mut App, brigade: &str) {
        send(app, Action::StartGame);
        for _ in 0..10 {
            let phasing = app.world().resource::<Session>().game.phasing_brigade();
            if phasing.as_deref() == Some(brigade) {
                return;
            }
            send(app, if phasing.is_some() { Action::EndActivation } else { Action::DrawChit });
        }
        panic!("{brigade} never came up");
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
        let mut d = app.world_mut().resource_mut::<MoveDrag>();
        assert!(d.plays(Some(unit)), "the phasing brigade's selected unit is playable");
        d.unit = Some(unit);
        d.kind = Some(DragKind::Advance);
        d.points = vec![grab, grab + by];
        d.released = true;
        app.update();
        app.update();
    }

    // OTP 6.1, 3.1: a drag let go on a legal ghost is exactly the Move order the engine accepts,
    // and the mirrored stands move with it.
    #[test]
    fn a_dragged_move_becomes_the_order_and_the_stands_move() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        let before = stands(&mut app, unit);
        let n = app.world().resource::<Session>().game.actions().len();
        // Facing 180: 4" down the table.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -4.0));
        let s = app.world().resource::<Session>();
        assert_eq!(s.game.actions().len(), n + 1, "{:?}", app.world().resource::<OrdersState>().refusal);
        assert_eq!(s.game.actions().last(), Some(&Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(4.0)] }));
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
        let s = app.world().resource::<Session>();
        assert!(matches!(s.game.actions().last(), Some(Action::Move { .. })), "{:?}", app.world().resource::<OrdersState>().refusal);
        let report = s.last_report.as_ref().expect("the move's report");
        assert!(report.dice.iter().any(|d| d.rule == "6.6"), "{report}");
    }

    // OTP 6.8: with the special move toggle on, the drag is sent as a special move (1AD rolled).
    #[test]
    fn the_special_move_toggle_sends_a_special_move() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "71st Light Company");
        app.world_mut().resource_mut::<OrdersState>().special = true;
        app.update();
        assert!(app.world().resource::<MoveDrag>().playable.as_ref().is_some_and(|p| p.special));
        // Skirmishers face 180; 2" straight down the table, clear of the Delaware Light Infantry.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -2.0));
        let s = app.world().resource::<Session>();
        assert!(matches!(s.game.actions().last(), Some(Action::SpecialMove { .. })), "{:?}", app.world().resource::<OrdersState>().refusal);
        assert!(s.last_report.as_ref().is_some_and(|r| r.dice.iter().any(|d| d.rule == "6.8")));
        assert!(!app.world().resource::<OrdersState>().special, "the toggle is spent");
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
        app.update();
        let s = app.world().resource::<Session>();
        let want = MoveStep::Stands(vec![StandMove { stand: 1, to: grab + by, facing: before[1].facing }]);
        assert_eq!(s.game.actions().last(), Some(&Action::Move { unit: "71st Light Company".into(), steps: vec![want] }), "{:?}", app.world().resource::<OrdersState>().refusal);
        let after = stands(&mut app, unit);
        assert!((after[1].centre - (grab + by)).length() < 1e-3, "{:?}", after[1]);
        for k in (0..before.len()).filter(|&k| k != 1) {
            assert_eq!(after[k], before[k], "stand {k} stays");
        }
    }

    // OTP 6.1: a drag too far is refused with its rule; nothing is sent and nothing moves.
    #[test]
    fn a_drag_too_far_is_refused_and_changes_nothing() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let unit = select(&mut app, "33rd Foot");
        let before = stands(&mut app, unit);
        let snapshot = app.world().resource::<Session>().game.snapshot();
        drag_and_release(&mut app, unit, Vec2::new(0.0, -9.0));
        assert_eq!(app.world().resource::<Session>().game.snapshot(), snapshot);
        assert_eq!(stands(&mut app, unit), before);
        let (_, r) = app.world().resource::<OrdersState>().refusal.clone().expect("the refusal is shown");
        assert!(r.rule == "6.1" || r.rule == "3.1", "{r}");
        assert!(app.world().resource::<MoveDrag>().has_ghost(), "the red ghost stays to be looked at");
    }

    // OTP 6.2: the formation buttons are the engine's ChangeFormation, greyed by its check.
    #[test]
    fn formation_buttons_are_change_of_formation_orders() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let (column, refused) = {
            let g = &app.world().resource::<Session>().game;
            let e = g.unit_entity("33rd Foot").unwrap();
            let choices = formation_choices(g, e);
            assert!(choices.iter().all(|c| !matches!(c.action, Action::ChangeFormation { formation: Formation::Line, .. })), "not to the formation it is in");
            let col = choices.iter().find(|c| c.label == "Column").cloned().unwrap();
            // Not phasing: greyed with the engine's rule (4.3).
            let other = g.unit_entity("1st Maryland").unwrap();
            let line = formation_choices(g, other).into_iter().find(|c| c.label == "Column").unwrap();
            (col, line.refusal)
        };
        assert_eq!(refused.map(|r| r.rule), Some("4.3".to_string()));
        assert!(column.refusal.is_none());
        assert_eq!(column.action, Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column });
        send(&mut app, column.action);
        let g = &app.world().resource::<Session>().game;
        assert_eq!(g.unit(g.unit_entity("33rd Foot").unwrap()).formation, Formation::Column);
    }

    // OTP 10.1, 4.3, 3.1: greyed operations carry the engine's rule.
    #[test]
    fn greyed_operations_carry_the_engines_rule() {
        let mut app = app();
        activate(&mut app, "Tarleton's Brigade");
        let g = &app.world().resource::<Session>().game;
        let rows = operation_rows(g, g.unit_entity("Loyalist Militia").unwrap());
        assert_eq!(rows.len(), 5, "3.1 lists five infantry operations");
        assert!(rows.iter().all(|r| r.state.refusal().is_some_and(|r| r.rule == "10.1")), "a Morale Marker bars them all");
        let rows = operation_rows(g, g.unit_entity("1st Maryland").unwrap());
        assert!(rows.iter().all(|r| r.state.refusal().is_some_and(|r| r.rule == "4.3")));
        let rows = operation_rows(g, g.unit_entity("British Legion Dragoons").unwrap());
        assert_eq!(rows.len(), 3, "3.2 lists three cavalry operations");
        assert!(rows.iter().all(|r| r.state == OpState::Open), "all open before it acts");
        // After a move the move is its operation; the others are barred with the engine's 3.2.
        let mut app = app;
        send(&mut app, Action::Move { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Forward(3.0)] });
        let g = &app.world().resource::<Session>().game;
        let rows = operation_rows(g, g.unit_entity("British Legion Dragoons").unwrap());
        assert_eq!(rows[0].state, OpState::Done, "{:?}", rows[0]);
        assert_eq!(rows[1].state.refusal().map(|r| r.rule.as_str()), Some("3.2"));
        // Infantry that changed formation may still move half (3.1 3.): begun, with inches left.
        send(&mut app, Action::ChangeFormation { unit: "British Legion Infantry".into(), formation: Formation::Line });
        let g = &app.world().resource::<Session>().game;
        let e = g.unit_entity("British Legion Infantry").unwrap();
        let rows = operation_rows(g, e);
        assert!(rows.iter().any(|r| r.operation.number == 3 && r.state == OpState::Going), "{rows:?}");
        let (spent, most) = g.movement_budget(e).unwrap();
        assert!(spent > 0.0 && most > spent, "{spent} of {most}");
    }

    // OTP 6.12: a commander's ride is an order; too far is refused and not sent.
    #[test]
    fn commander_rides_are_orders_within_24_inches() {
        let mut app = app();
        activate(&mut app, "Webster's Brigade");
        let (ok, far) = {
            let g = &app.world().resource::<Session>().game;
            let c = g.commanders().find(|(_, c)| c.name == "Lt. Col. Webster").map(|(_, c)| c.at).unwrap();
            (Action::MoveCommander { commander: "Lt. Col. Webster".into(), to: c + Vec2::new(3.0, 0.0) }, Action::MoveCommander { commander: "Lt. Col. Webster".into(), to: c + Vec2::new(0.0, -30.0) })
        };
        let g = &app.world().resource::<Session>().game;
        assert!(check_action(g, &ok).is_ok());
        let r = check_action(g, &far).unwrap_err();
        assert!(r.rule == "6.12", "{r}");
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
        assert_eq!(commander_click(Some(&webster), Some(&own), None, to), CommanderClick::Order(Action::JoinUnit { commander: "Lt. Col. Webster".into(), unit: "23rd Foot".into() }));
        assert_eq!(commander_click(Some(&webster), Some(&enemy), None, to), CommanderClick::PutDown);
        // The ride is an order the engine carries out: he is where the click was.
        send(&mut app, ok);
        let g = &app.world().resource::<Session>().game;
        let at = g.commanders().find(|(_, c)| c.name == "Lt. Col. Webster").map(|(_, c)| c.at).unwrap();
        assert!((at - to).length() < 1e-4);
    }
}

/// Writes a saved game for screenshots when `OTP_WRITE_SAVE=path` is set: the teaching battle,
/// seed 7, Webster's Brigade phasing and the 33rd Foot formed in column.
#[cfg(test)]
#[test]
#[ignore = "writes a save for screenshots when OTP_WRITE_SAVE is set"]
fn write_screenshot_save() {
    let Ok(path) = std::env::var("OTP_WRITE_SAVE") else { return };
    let mut g = Game::new(crate::scenario::default_scenario(), 7, crate::rules::otp::charts::Charts::embedded().clone());
    g.apply(Action::StartGame).unwrap();
    for _ in 0..10 {
        if g.phasing_brigade().as_deref() == Some("Webster's Brigade") {
            break;
        }
        let a = if g.phasing_brigade().is_some() { Action::EndActivation } else { Action::DrawChit };
        g.apply(a).unwrap();
    }
    g.apply(Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column }).unwrap();
    g.save(std::path::Path::new(&path)).unwrap();
}
