//! Orders for the selected unit, in a game: what it may still do this activation (3.1–3.3), moves
//! by mouse, formation changes, special moves, towns, guns and crews, and commanders' rides.
//!
//! Everything here asks the engine. The operations panel reads `Game::permit` and the arm's list
//! of operations. A move is built of steps on the table (6.3: the facing changes as the unit
//! moves): each drag let go adds its step to the ghost if `check_move` / `check_special_move`
//! allows the whole move so far (else the refusal is shown and logged, and the ghost stays as it
//! was); Backspace takes the last step back, Esc drops the move, and Enter or a click on the
//! ghost sends it as one `Order(Action::Move { .. })` (or `SpecialMove`). [`MoveCommand`] is how
//! keys and buttons anywhere ask for those. Each button is greyed
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
use super::overlays::{DragKind, MoveDrag, OverlayCache, built_situation, drag_step};
use super::session::{Order, Refused, Session};
use super::table_view::{HoverPreset, Selection, Troops, unit_at};
use super::{UiSet, fonts_ready};
use crate::rules::otp::charts::ArmClass;
use crate::rules::dice::DiceKind;
use crate::rules::otp::engine::operations::{Activity, Operation, operations, section};
use crate::rules::otp::engine::describe::formation as formation_name;
use crate::rules::otp::engine::{Action, CommandState, Game, Phase, Refusal};
use crate::scenario::model::{Arm, Formation, Terrain, UnitType};
use crate::scenario::spawn::{Brigade, Commander, Unit};
use crate::table::movement::{Allowance, MoveStep};
use crate::table::situation::Situation;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<OrdersState>()
        .add_message::<MoveCommand>()
        .add_systems(Update, (set_playable, keyboard.run_if(not(bevy_egui::input::egui_wants_any_keyboard_input)), take_release, take_move_commands, note_refusals).chain().after(super::session::sync_world))
        .add_systems(PostStartup, preset)
        .add_systems(EguiPrimaryContextPass, commander_tool.in_set(UiSet::Tools).run_if(fonts_ready));
}

/// `OTP_COMMANDER="Lt. Col. Webster"`: pick that commander at start (screenshots; with
/// `OTP_CURSOR` the pointer for his ride). `OTP_SPECIAL=1`: the special move toggle on.
/// `OTP_STEPS="[Wheel(pivot: Right, angle: 20.0), Forward(2.0)]"`: those steps built on the
/// table for the selected unit (its ghost, not ordered).
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
    /// 6.8: the next move is sent as a special move.
    pub special: bool,
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
        self.refusal.as_ref().filter(|(a, _)| named(a).contains(&name))
    }
}

/// The units and commanders an order names.
fn named(action: &Action) -> Vec<&str> {
    match action {
        Action::MoveCommander { commander, .. } => vec![commander],
        Action::JoinUnit { commander, unit } => vec![commander, unit],
        other => super::log::units_named(other),
    }
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
    /// 6.8: the averaging dice a special move rolls on release.
    pub dice: Option<u8>,
}

use crate::rules::otp::engine::describe::inches;

impl Verdict {
    pub fn allowed(&self) -> bool {
        self.refusal.is_none()
    }

    /// One line for the ghost's tag and the panel.
    pub fn text(&self) -> String {
        let step = format!("{}. {}", self.number, self.step);
        match (&self.refusal, self.dice) {
            (Some(r), _) => format!("✖ {step}: not allowed (OTP {}): {}", r.rule, r.reason),
            (None, Some(n)) => format!("✔ {step} · special move of {} so far (6.8): {}AD rolled when it is ordered", inches(self.before + self.inches), n),
            (None, None) => format!("✔ {step} · {}", super::overlays::used_left(self.before + self.inches, self.most)),
        }
    }
}

/// The order a built move sends: a move, or a special move (6.8).
pub(crate) fn move_action(name: &str, steps: &[MoveStep], special: bool) -> Action {
    let (unit, steps) = (name.to_string(), steps.to_vec());
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
        Action::EndActivation if !matches!(game.phase(), Phase::Activation { .. }) => Err(Refusal::otp("4.3", "no brigade is phasing: draw a chit first")),
        _ => Ok(()),
    }
}

/// The engine's verdict on a dragged step after the steps `built` (which used `built_inches`):
/// what `plan` says it costs, `check_*` whether the whole move may be made.
pub(crate) fn judge(game: &Game, p: &Playable, built: &[MoveStep], built_inches: f32, step: &MoveStep, plan: &crate::table::movement::MoveReport) -> Verdict {
    let mut steps = built.to_vec();
    steps.push(step.clone());
    let action = move_action(&p.name, &steps, p.special);
    let refusal = check_action(game, &action).err();
    let dice = p.special.then(|| game.unit_entity(&p.name).and_then(|e| game.charts().movement.special_move_dice(ArmClass::from(game.unit(e).arm)))).flatten();
    Verdict { action, refusal, number: steps.len(), step: step.clone(), inches: plan.spent, before: p.spent + built_inches, most: p.most, dice }
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
    if game.phasing_brigade() != brigade_name(game, e) && !bonus_open(game, e) {
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
pub(crate) fn drag_of(game: &Game, p: &Playable, built: &[MoveStep], kind: DragKind, points: &[Vec2]) -> Option<MoveStep> {
    let s = Situation::from_world(game.world());
    let i = s.find(&p.name).ok()?;
    let s = built_situation(&s, i, built, p.allowance);
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
    let step = drag.kind.and_then(|k| drag_of(&session.game, &p, &drag.steps, k, &drag.points));
    drag.points.clear();
    drag.kind = None;
    if let Some(step) = step {
        let mut steps = drag.steps.clone();
        steps.push(step);
        let action = move_action(&p.name, &steps, p.special);
        match check_action(&session.game, &action) {
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
                let action = move_action(&p.name, &drag.steps, p.special);
                match check_action(&session.game, &action) {
                    Ok(()) => {
                        orders.write(Order(action));
                    }
                    Err(refusal) => {
                        refused.write(Refused { action, refusal });
                    }
                }
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
/// against the old table) and the special move toggle go.
fn note_refusals(session: Option<Res<Session>>, mut refused: MessageReader<Refused>, mut state: ResMut<OrdersState>, mut drag: ResMut<MoveDrag>) {
    let revision = session.as_ref().map_or(0, |s| s.revision);
    if revision != state.revision {
        state.revision = revision;
        state.refusal = None;
        state.special = false;
        if drag.playable.is_some() && !drag.steps.is_empty() {
            drag.clear();
        }
    }
    for r in refused.read() {
        state.refusal = Some((r.action.clone(), r.refusal.clone()));
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
                OpState::Barred(Refusal::otp(section(arm), match from {
                    Some(f) => format!("{name} began its operation {}: this one is for guns {}", formation_name(p.start), formation_name(f)),
                    None => format!("not an operation for {name} from {}", formation_name(p.start)),
                }))
            } else {
                let done: Vec<String> = p.done.iter().map(|a| a.to_string()).collect();
                OpState::Barred(Refusal::otp(section(arm), format!("{name} has already done: {}; that is not part of this operation (one operation a turn)", done.join(", then "))))
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
#[allow(clippy::too_many_arguments)]
pub(crate) fn orders_ui(ui: &mut egui::Ui, session: &Session, unit: &Unit, state: &mut OrdersState, drag: &MoveDrag, cache: &OverlayCache, out: &mut Vec<Action>, moves: &mut Vec<MoveCommand>) {
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
    if bonus_open(game, e) {
        ui.label(RichText::new("6.10: a bonus move is owed — move, special move or charge").color(GOING).size(12.5));
    }

    let phasing = drag.plays(drag.playable.as_ref().map(|p| p.unit)) && drag.playable.as_ref().is_some_and(|p| p.name == unit.name);
    heading(ui, "Orders");
    if phasing {
        let hint = if unit.formation == Formation::Skirmish {
            "Skirmishers: drag a stand to move it alone, each stand up to the move and 1\"–3\" from the next (5.3, 6.4); Shift-drag moves the whole line."
        } else {
            "Drag the unit to move it: an end stand wheels, Shift-drag side-steps, a column drags its head."
        };
        ui.label(RichText::new(format!("{hint} Each drag adds a step to the move (a wheel, then forward…); drag on from the ghost. Enter or a click on the ghost orders it.")).size(11.5).weak());
        built_ui(ui, drag, moves);
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
    refusal_ui(ui, state, &unit.name);
}

/// The move built on the table: its steps and the buttons that order, shorten or drop it.
fn built_ui(ui: &mut egui::Ui, drag: &MoveDrag, moves: &mut Vec<MoveCommand>) {
    if drag.steps.is_empty() {
        return;
    }
    let special = drag.playable.as_ref().is_some_and(|p| p.special);
    ui.label(RichText::new(if special { "Special move (6.8) being built:" } else { "Move being built:" }).strong().size(12.5));
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

/// 6.10: a bonus move the engine would let the unit make now (owed, and not barred by a Morale
/// Marker 10.1 or anything else `permit` checks).
pub(crate) fn bonus_open(game: &Game, unit: Entity) -> bool {
    game.bonus_pending(unit) && [Activity::Move, Activity::Charge].iter().any(|a| game.permit(unit, &[*a]).is_ok())
}

/// The last refusal, on the sheet of a unit or commander it names.
fn refusal_ui(ui: &mut egui::Ui, state: &OrdersState, name: &str) {
    if let Some((what, r)) = state.refusal_for(name) {
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
    refusal_ui(ui, state, &commander.name);
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
                send(&session.game, action, &mut orders, &mut refused);
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

/// Send an order the engine's check allows; a refused one goes out as `Refused` (the sheet and
/// the log show it), not to the game.
fn send(game: &Game, action: Action, orders: &mut MessageWriter<Order>, refused: &mut MessageWriter<Refused>) {
    match check_action(game, &action) {
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
        let n = app.world().resource::<Session>().game.actions().len();
        // Facing 180: 4" down the table; let go, the step waits on the table until ordered.
        drag_and_release(&mut app, unit, Vec2::new(0.0, -4.0));
        assert_eq!(app.world().resource::<Session>().game.actions().len(), n, "a drag alone orders nothing");
        assert_eq!(app.world().resource::<MoveDrag>().steps, vec![MoveStep::Forward(4.0)]);
        press(&mut app, KeyCode::Enter);
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
        command(&mut app, MoveCommand::Commit);
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
        command(&mut app, MoveCommand::Commit);
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
        command(&mut app, MoveCommand::Commit);
        let s = app.world().resource::<Session>();
        let want = MoveStep::Stands(vec![StandMove { stand: 1, to: grab + by, facing: before[1].facing }]);
        assert_eq!(s.game.actions().last(), Some(&Action::Move { unit: "71st Light Company".into(), steps: vec![want] }), "{:?}", app.world().resource::<OrdersState>().refusal);
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
        let snapshot = app.world().resource::<Session>().game.snapshot();
        drag_and_release(&mut app, unit, Vec2::new(0.0, -9.0));
        assert_eq!(app.world().resource::<Session>().game.snapshot(), snapshot);
        assert_eq!(stands(&mut app, unit), before);
        let (action, r) = refusal(&app).expect("the refusal is shown");
        assert!(r.rule == "6.1" || r.rule == "3.1", "{r}");
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
        let n = app.world().resource::<Session>().game.actions().len();
        let (arc, facing) = {
            let g = &app.world().resource::<Session>().game;
            let s = Situation::from_world(g.world());
            let u = s.unit(s.find("33rd Foot").unwrap());
            (Arc::of_unit(u).unwrap(), u.stands[0].footprint.facing)
        };
        // Grab the left end and swing it 15° forward about the right end.
        let grab = arc.front_left - crate::table::footprint::bearing_vector(facing) * 0.2;
        drag(&mut app, unit, DragKind::Wheel(End::Right), vec![grab, turn_about(grab, arc.front_right, 15.0)]);
        let steps = app.world().resource::<MoveDrag>().steps.clone();
        let [MoveStep::Wheel { pivot: End::Right, angle }] = steps.as_slice() else { panic!("{steps:?} {:?}", refusal(&app)) };
        assert!((angle - 15.0).abs() < 0.01, "{angle}");
        assert_eq!(app.world().resource::<Session>().game.actions().len(), n);
        // The next drag starts on the ghost and goes 2" along its new facing.
        let playable = app.world().resource::<MoveDrag>().playable.clone().unwrap();
        let ghost = {
            let g = &app.world().resource::<Session>().game;
            let s = Situation::from_world(g.world());
            let i = s.find("33rd Foot").unwrap();
            built_situation(&s, i, &steps, playable.allowance).unit(i).footprints()
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
        let g = &app.world().resource::<Session>().game;
        assert_eq!(g.actions().len(), n + 1, "{:?}", refusal(&app));
        assert_eq!(g.actions().last(), Some(&Action::Move { unit: "33rd Foot".into(), steps: built }));
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

    // OTP 6.10, 10.1: the sheet offers a bonus move only when the engine would allow one: not to a
    // unit with a Morale Marker, which "may not perform any operation". (The bonus is set on the
    // engine's own record of it, as a charge won at 2:1 sets it.)
    #[test]
    fn a_bonus_move_is_offered_only_when_the_engine_allows_it() {
        use crate::rules::otp::engine::UnitTurn;
        use crate::rules::otp::engine::testing::{activate, ok, teaching};
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let key = (g.turn(), g.sequence().phasing.expect("a chit is drawn"));
        let owe = |g: &mut Game, name: &str| {
            let e = g.unit_entity(name).unwrap();
            g.world_mut().get_mut::<UnitTurn>(e).unwrap().bonus_move = Some(key);
            e
        };
        // The Loyalist Militia carry a Morale Marker: owed, but barred (10.1).
        let marked = owe(&mut g, "Loyalist Militia");
        assert!(g.has_marker(marked) && g.bonus_pending(marked));
        assert!(!bonus_open(&g, marked), "10.1 bars it: the sheet does not offer it");
        assert!(g.check_move("Loyalist Militia", &[MoveStep::Forward(1.0)]).is_err_and(|r| r.rule == "10.1"));
        // The 1st Maryland (not phasing, no marker): the bonus is open, and a drag may use it.
        let free = owe(&mut g, "1st Maryland");
        assert!(bonus_open(&g, free), "owed and free to take, whichever brigade is phasing");
        assert!(playable(&g, Entity::PLACEHOLDER, "1st Maryland", false).is_some());
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
