//! Operations (3.1–3.3): each unit of the phasing brigade performs ONE permitted operation a
//! turn. What it has done so far is a list of [`Activity`]; each new one must still fit some
//! permitted operation, in order, within that operation's movement. And the Move and
//! ChangeFormation actions (6.1, 6.2), which ask the table's `plan_move` whether the move is legal.

use std::fmt;

use bevy::prelude::Entity;
use serde::{Deserialize, Serialize};

use super::action::Action;
use super::report::{Refusal, Report, refuse};
use super::Game;
use crate::rules::otp::charts::{ArmClass, MoraleResult};
use crate::scenario::model::{Formation, UnitType};
use crate::table::geom::EPS;
use super::move_rules::OTP;
use crate::table::movement::{Allowance, MoveReport, MoveStep, plan_move};

/// One part of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activity {
    Move,
    /// A change of formation, to this one (limbering and unlimbering for artillery).
    Form(Formation),
    Fire,
    Charge,
}

impl fmt::Display for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activity::Move => write!(f, "move"),
            Activity::Form(to) => write!(f, "form {}", super::describe::formation(*to)),
            Activity::Fire => write!(f, "fire"),
            Activity::Charge => write!(f, "charge"),
        }
    }
}

/// A place in an operation's pattern.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Move,
    Form(Option<Formation>),
    Fire,
    Charge,
}

impl Slot {
    fn matches(self, a: Activity) -> bool {
        match (self, a) {
            (Slot::Move, Activity::Move) | (Slot::Fire, Activity::Fire) | (Slot::Charge, Activity::Charge) => true,
            (Slot::Form(want), Activity::Form(to)) => want.is_none_or(|w| w == to),
            _ => false,
        }
    }
}

/// Which normal move an operation's movement is a fraction of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// The formation the unit started the operation in (6.1).
    Start,
    Limbered,
    Unlimbered,
}

/// A permitted operation (3.1–3.3).
#[derive(Debug)]
pub struct Operation {
    pub section: &'static str,
    pub number: u8,
    pub name: &'static str,
    /// The orders its parts may come in.
    orders: &'static [&'static [Slot]],
    /// The formation it must start in (artillery).
    start: Option<Formation>,
    /// Movement it allows, formation changes included: a fraction of a normal move.
    pub budget: Option<(f32, Base)>,
    /// "Militia units may only change formation" (3.1, 3.2, 6.2).
    militia_form_only: bool,
}

use Slot::{Charge as C, Fire as F, Form as Fm, Move as M};

const ANY: Slot = Fm(None);
const LIMBER: Slot = Fm(Some(Formation::Limbered));
const UNLIMBER: Slot = Fm(Some(Formation::Unlimbered));
const MILITIA_FORM: &[&[Slot]] = &[&[ANY]];

const fn op(section: &'static str, number: u8, name: &'static str, orders: &'static [&'static [Slot]], start: Option<Formation>, budget: Option<(f32, Base)>) -> Operation {
    Operation { section, number, name, orders, start, budget, militia_form_only: false }
}

const fn form_and_half(section: &'static str, number: u8) -> Operation {
    Operation { militia_form_only: true, ..op(section, number, "change formation and move 1/2", &[&[ANY, M]], None, Some((1.0, Base::Start))) }
}

pub const INFANTRY: [Operation; 5] = [
    op("3.1", 1, "move fully", &[&[M]], None, Some((1.0, Base::Start))),
    op("3.1", 2, "move 1/2 and fire", &[&[M, F], &[F, M]], None, Some((0.5, Base::Start))),
    form_and_half("3.1", 3),
    op("3.1", 4, "change formation and fire", &[&[ANY, F], &[F, ANY]], None, None),
    op("3.1", 5, "fire", &[&[F]], None, None),
];

pub const CAVALRY: [Operation; 3] = [
    op("3.2", 1, "move full", &[&[M]], None, Some((1.0, Base::Start))),
    op("3.2", 2, "charge", &[&[C]], None, None),
    form_and_half("3.2", 3),
];

const LIMBERED: Option<Formation> = Some(Formation::Limbered);
const UNLIMBERED: Option<Formation> = Some(Formation::Unlimbered);

pub const ARTILLERY: [Operation; 7] = [
    op("3.3", 1, "limber and move 1/2", &[&[LIMBER, M]], UNLIMBERED, Some((1.0, Base::Limbered))),
    op("3.3", 2, "move 1/2 and unlimber", &[&[M, UNLIMBER]], LIMBERED, Some((1.0, Base::Limbered))),
    op("3.3", 3, "unlimber and fire", &[&[UNLIMBER, F]], LIMBERED, None),
    op("3.3", 4, "move full", &[&[M]], LIMBERED, Some((1.0, Base::Limbered))),
    op("3.3", 5, "hand haul and fire", &[&[M, F], &[F, M]], UNLIMBERED, Some((1.0, Base::Unlimbered))),
    op("3.3", 6, "fire and limber", &[&[F, LIMBER]], UNLIMBERED, None),
    op("3.3", 7, "fire", &[&[F]], UNLIMBERED, None),
];

/// The permitted operations of an arm.
pub fn operations(arm: ArmClass) -> &'static [Operation] {
    match arm {
        ArmClass::Infantry => &INFANTRY,
        ArmClass::Cavalry => &CAVALRY,
        ArmClass::Artillery => &ARTILLERY,
    }
}

/// The section listing an arm's operations.
pub fn section(arm: ArmClass) -> &'static str {
    match arm {
        ArmClass::Infantry => "3.1",
        ArmClass::Cavalry => "3.2",
        ArmClass::Artillery => "3.3",
    }
}

impl Operation {
    /// Whether `done` (in order) could be this operation, or the start of it.
    pub fn fits(&self, done: &[Activity], start: Formation, militia: bool) -> bool {
        let orders = if militia && self.militia_form_only { MILITIA_FORM } else { self.orders };
        self.start.is_none_or(|f| f == start) && orders.iter().any(|o| done.len() <= o.len() && o.iter().zip(done).all(|(s, a)| s.matches(*a)))
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}. {}", self.section, self.number, self.name)
    }
}

fn list(done: &[Activity]) -> String {
    done.iter().map(Activity::to_string).collect::<Vec<_>>().join(", then ")
}

/// Who asks whether an action is legal: the game now (whose turn it is counts, 4.3), or a
/// preview of the unit as if its brigade's chit had just been drawn (the CLI at set-up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Now,
    AsIfDrawn,
}

/// Leave to add `new` to a unit's operation: the operations it could still be.
#[derive(Debug)]
pub struct Permit {
    pub unit: Entity,
    /// The operation so far, with `new` added.
    pub done: Vec<Activity>,
    pub start: Formation,
    pub fitting: Vec<&'static Operation>,
    /// 1, or 1/2 after a Half move morale result (10.2).
    pub factor: f32,
    /// Inches already spent in the operation.
    pub spent: f32,
    /// 6.10: this is the unit's bonus move, outside its operation (which it leaves untouched).
    pub bonus: bool,
}

impl Game {
    /// May `unit` add `new` to its operation? (4.3, 10.1, 10.2 results, 3.1–3.3.) Failing that,
    /// is it a move or charge the unit's 6.10 bonus move allows? Changes nothing.
    pub(crate) fn permit(&self, unit: Entity, new: &[Activity]) -> Result<Permit, Refusal> {
        self.permit_operation(unit, new).or_else(|refusal| self.bonus_permit(unit, new).ok_or(refusal))
    }

    /// 6.10: a bonus move offered to `unit` in this activation and not yet taken.
    pub fn bonus_pending(&self, unit: Entity) -> bool {
        let key = self.sequence().phasing.map(|chit| (self.turn(), chit));
        key.is_some() && self.unit_turn(unit).bonus_move == key
    }

    /// 6.10: the bonus move as a fresh move or charge from where the unit stands: "charge another
    /// unit, make a special move, retreat or whatever", whichever brigade is phasing. Still not
    /// with a Morale Marker (10.1) and not off the table.
    fn bonus_permit(&self, unit: Entity, new: &[Activity]) -> Option<Permit> {
        let u = self.unit(unit);
        let plain = matches!(new, [Activity::Move] | [Activity::Charge]);
        if !plain || !self.bonus_pending(unit) || self.has_marker(unit) || self.unit_turn(unit).off_table || u.figures == 0 || self.require_play().is_err() {
            return None;
        }
        let militia = u.unit_type == UnitType::Militia;
        let fitting: Vec<&'static Operation> = operations(self.arm(unit)).iter().filter(|o| o.fits(new, u.formation, militia)).collect();
        (!fitting.is_empty()).then(|| Permit { unit, done: new.to_vec(), start: u.formation, fitting, factor: 1.0, spent: 0.0, bonus: true })
    }

    /// The unit's own operation (3.1–3.3), as `permit` without the bonus move.
    fn permit_operation(&self, unit: Entity, new: &[Activity]) -> Result<Permit, Refusal> {
        self.require_phasing(unit)?;
        self.operation_permit(unit, new)
    }

    /// As `permit`, or, `Asked::AsIfDrawn`, as if the unit's brigade had just been drawn (4.3
    /// left out: a preview at set-up, `otp fire` and `otp melee`). Every other rule is the same.
    pub(crate) fn permit_when(&self, asked: Asked, unit: Entity, new: &[Activity]) -> Result<Permit, Refusal> {
        match asked {
            Asked::Now => self.permit(unit, new),
            Asked::AsIfDrawn => {
                self.require_on_table(unit)?;
                self.operation_permit(unit, new)
            }
        }
    }

    /// The operation rules (10.1, 10.2, 6.8, 7.4, 3.1–3.3, 7.6) for a unit allowed to act.
    fn operation_permit(&self, unit: Entity, new: &[Activity]) -> Result<Permit, Refusal> {
        let u = self.unit(unit);
        if self.has_marker(unit) {
            return refuse("10.1", format!("{} has a Morale Marker: it may not perform any operation until the marker is removed (10.2)", u.name));
        }
        let t = self.unit_turn(unit);
        let arm = self.arm(unit);
        let start = t.start_formation.unwrap_or(u.formation);
        if t.special_move && !new.is_empty() {
            return refuse("6.8", format!("{} made a special move: it may not also fire or change formation, and its operation is done", u.name));
        }
        if t.remanned && !new.is_empty() {
            return refuse("7.4", format!("{} remanned its guns this turn: they act again from its next operation", u.name));
        }
        if self.world.get::<super::crew::Detached>(unit).is_some() && new.iter().any(|a| !matches!(a, Activity::Move)) {
            return refuse("7.4", format!("{}'s crew has left its guns: they cannot fire, limber or move until remanned (7.1, 7.4)", u.name));
        }
        match t.restriction {
            Some(MoraleResult::Stand) => return refuse("10.2", format!("{} rolled Stand on the MORALE RESULTS TABLE: it stays where it is this turn", u.name)),
            Some(MoraleResult::Deploy) => {
                let deploy = match u.formation {
                    Formation::Column => Some(Formation::Line),
                    Formation::Limbered => Some(Formation::Unlimbered),
                    _ => None,
                };
                if deploy.is_none_or(|d| new != [Activity::Form(d)]) {
                    let what = deploy.map_or("it is deployed already, so it stands".to_string(), |d| format!("it may only form {}", super::describe::formation(d)));
                    return refuse("10.2", format!("{} rolled Deploy on the MORALE RESULTS TABLE: {what}", u.name));
                }
            }
            _ => {}
        }
        let mut done = t.done.clone();
        done.extend_from_slice(new);
        let militia = u.unit_type == UnitType::Militia;
        let fitting: Vec<&'static Operation> = operations(arm).iter().filter(|o| o.fits(&done, start, militia)).collect();
        if fitting.is_empty() {
            let formed = done.iter().position(|a| matches!(a, Activity::Form(_)));
            let (rule, why) = if militia && formed.is_some_and(|i| done[i..].contains(&Activity::Move)) {
                ("6.2", "militia units can only change formation: they cannot move after changing formation (3.1, 6.2)".to_string())
            } else if t.done.is_empty() {
                (section(arm), format!("{} is not a permitted {} operation from {}", list(new), arm_word(arm), super::describe::formation(start)))
            } else if t.done.contains(&Activity::Move) && new.contains(&Activity::Move) {
                (section(arm), format!("it has already moved this turn: a move is one order of as many steps as it needs (a wheel, then forward…), and no operation has a second move; it has done: {}", list(&t.done)))
            } else {
                (section(arm), format!("it has already done: {}; with {} added it would fit none of its permitted operations, and a unit performs one a turn", list(&t.done), list(new)))
            };
            return refuse(rule, format!("{}: {why} (permitted: {})", u.name, permitted(arm)));
        }
        if let Some(g) = self.galloper_moves(unit)
            && new.contains(&Activity::Fire)
            && done.contains(&Activity::Move)
            && t.spent > g.move_and_fire + EPS
        {
            return refuse("7.6", format!("{}: a galloper gun moves {}\" and fires, or {}\" without firing; it has moved {:.2}\"", u.name, g.move_and_fire, g.move_only, t.spent));
        }
        let factor = if t.restriction == Some(MoraleResult::HalfMove) { 0.5 } else { 1.0 };
        Ok(Permit { unit, done, start, fitting, factor, spent: t.spent, bonus: false })
    }

    /// Optional 7.6: an unlimbered galloper gun's moves (6\" without fire, 3\" with it), when
    /// the scenario uses the option; without it gallopers are ordinary light guns.
    pub fn galloper_moves(&self, unit: Entity) -> Option<&crate::rules::otp::charts::movement::Galloper> {
        let u = self.unit(unit);
        let galloper = matches!(u.arm, crate::scenario::model::Arm::Artillery { galloper: true, .. });
        (galloper && self.scenario.optional_rules.galloper_guns && u.formation == Formation::Unlimbered).then(|| self.charts.movement.galloper())
    }

    /// A normal move by the MOVEMENT chart (6.1).
    pub fn normal_move(&self, unit: Entity, formation: Formation) -> f32 {
        let u = self.unit(unit);
        self.charts.movement.allowance(ArmClass::from(u.arm), u.unit_type, formation).unwrap_or(0.0)
    }

    fn base_inches(&self, p: &Permit, base: Base) -> f32 {
        match base {
            Base::Start => self.normal_move(p.unit, p.start),
            Base::Limbered => self.normal_move(p.unit, Formation::Limbered),
            Base::Unlimbered => self.normal_move(p.unit, Formation::Unlimbered),
        }
    }

    /// The inches an operation allows the permitted unit in all (3.x fractions of the normal
    /// move, halved by a Half move result 10.2, 7.6 gallopers); None for no movement limit.
    /// `start_move` replaces the start formation's normal move (the road bonus, 5.1).
    fn operation_limit(&self, p: &Permit, o: &Operation, start_move: Option<f32>) -> Option<f32> {
        o.budget.map(|(fraction, base)| {
            let inches = match (base, start_move, self.galloper_moves(p.unit)) {
                // 7.6: hand hauling a galloper: 3" if it fires, else 6".
                (Base::Unlimbered, _, Some(g)) if p.done.contains(&Activity::Fire) => g.move_and_fire,
                (Base::Unlimbered, _, Some(g)) => g.move_only,
                (Base::Start, Some(road), _) => road,
                _ => self.base_inches(p, base),
            };
            fraction * inches * p.factor
        })
    }

    /// A unit's movement this operation as (inches spent, the most a fitting operation allows),
    /// for views to show "used / left"; None if it may not move now. Legality is `check_move`'s.
    pub fn movement_budget(&self, unit: Entity) -> Option<(f32, f32)> {
        let p = self.permit(unit, &[Activity::Move]).ok()?;
        let most = p.fitting.iter().filter_map(|o| self.operation_limit(&p, o, None)).max_by(f32::total_cmp)?;
        Some((p.spent, most))
    }

    /// The operations that still fit with `spent` inches used in all; refused if none (3.x).
    /// `start_move` replaces the start formation's normal move (the road bonus, 5.1).
    /// The most inches the permit's operations allow in all (`None`: one has no limit): what
    /// `within_budget` measures against.
    pub(super) fn most_budget(&self, p: &Permit) -> Option<f32> {
        p.fitting.iter().map(|o| self.operation_limit(p, o, None)).try_fold(0.0_f32, |most, l| l.map(|l| most.max(l)))
    }

    pub(super) fn within_budget(&self, p: &Permit, spent: f32, start_move: Option<f32>) -> Result<Vec<&'static Operation>, Refusal> {
        let limit = |o: &Operation| self.operation_limit(p, o, start_move);
        let ok: Vec<&'static Operation> = p.fitting.iter().copied().filter(|o| limit(o).is_none_or(|l| spent <= l + EPS)).collect();
        if !ok.is_empty() {
            return Ok(ok);
        }
        let best = p.fitting.iter().filter_map(|o| limit(o).map(|l| (l, *o))).max_by(|a, b| a.0.total_cmp(&b.0));
        let halved = if p.factor < 1.0 { " (halved by a Half move morale result, 10.2)" } else { "" };
        let u = self.unit(p.unit);
        let most = best.map_or("no movement".to_string(), |(l, o)| format!("at most {l:.2}\" ({o})"));
        refuse(section(self.arm(p.unit)), format!("{} would spend {spent:.2}\" in its operation, but {}{halved} allows {most}", u.name, list(&p.done), ))
    }

    /// Record the operation's new parts and the inches spent (the fire and melee modules call
    /// this once they have resolved a Fire or Charge their `permit` allowed).
    pub(crate) fn record(&mut self, p: &Permit, spent: f32) {
        let mut t = self.turn_mut(p.unit);
        if p.bonus {
            // 6.10: the bonus move is taken; the operation stays as it was.
            t.bonus_move = None;
            t.moved = true;
            return;
        }
        t.done = p.done.clone();
        t.start_formation = Some(p.start);
        t.spent = spent;
        // 11.0: moving, changing formation or charging ends reserve status; firing does not.
        t.moved |= p.done.iter().any(|a| !matches!(a, Activity::Fire));
    }

    /// The allowance `plan_move` is given: the start formation's normal move, with the road bonus
    /// for a column (5.1); artillery moves by its present formation.
    pub(super) fn allowance_for(&self, p: &Permit) -> Allowance {
        let u = self.unit(p.unit);
        let full = match self.arm(p.unit) {
            ArmClass::Artillery => self.galloper_moves(p.unit).map_or_else(|| self.normal_move(p.unit, u.formation), |g| g.move_only),
            _ => self.normal_move(p.unit, p.start),
        };
        let column = matches!(u.formation, Formation::Column | Formation::Limbered);
        Allowance { full, road: column.then(|| full + self.charts.movement.road_bonus()) }
    }

    /// The MOVEMENT chart cell for the unit's normal move.
    pub(super) fn report_allowance(&self, report: &mut Report, unit: Entity, formation: Formation) {
        let u = self.unit(unit);
        let arm = ArmClass::from(u.arm);
        if let Some(entry) = self.charts.movement.allowance_entry(arm, u.unit_type, formation) {
            report.chart("MOVEMENT", format!("{formation:?}"), format!("{arm:?} ({:?})", u.unit_type), format!("{}\"", entry.inches), &entry.source);
        }
    }

    /// Ask the table whether the steps are legal (6.x); refused with the table's rule if not.
    pub(super) fn plan(&self, unit: Entity, steps: &[MoveStep], allowance: Allowance) -> Result<MoveReport, Refusal> {
        let s = self.situation();
        let name = &self.unit(unit).name;
        let index = s.find(name).map_err(|e| Refusal::otp("4.2", e))?;
        let plan = plan_move(&s, index, steps, allowance, &OTP);
        if let Some(p) = &plan.problem {
            return refuse(p.section, format!("{name}, step {}: {}", p.step + 1, p.reason));
        }
        if let Some(stand) = plan.doubled_up {
            return refuse("6.5", format!("{name} would end its move with stand {stand} doubled up: a unit can neither move nor end its operations so"));
        }
        Ok(plan)
    }

    /// A move judged (4.3, 3.x, 5.x, 6.x, 7.5), nothing rolled or changed.
    #[allow(clippy::type_complexity)]
    fn validate_move(&self, name: &str, steps: &[MoveStep]) -> Result<(Entity, Permit, Allowance, MoveReport, Vec<&'static Operation>), Refusal> {
        let unit = self.find_unit(name)?;
        let mut new = Vec::new();
        if let Some(MoveStep::ChangeFormation(to)) = steps.first() {
            new.push(Activity::Form(*to));
        }
        if steps.iter().any(|s| !matches!(s, MoveStep::ChangeFormation(_))) {
            new.push(Activity::Move);
        }
        if new.is_empty() {
            return refuse("6.1", format!("{name}: a move needs at least one step"));
        }
        let p = self.permit(unit, &new)?;
        if let Some(to) = steps.first().and_then(|s| if let MoveStep::ChangeFormation(f) = s { Some(*f) } else { None }) {
            self.formation_allowed(unit, to)?;
        }
        let allowance = self.allowance_for(&p);
        let plan = self.plan(unit, steps, allowance)?;
        let road = plan.road_bonus.then_some(plan.allowance);
        let fitting = self.within_budget(&p, p.spent + plan.spent, road)?;
        self.check_carried(name, &plan)?;
        self.check_drivers(unit, &plan)?;
        Ok((unit, p, allowance, plan, fitting))
    }

    pub(super) fn move_unit(&mut self, action: &Action, name: &str, steps: &[MoveStep]) -> Result<Report, Refusal> {
        // 7.4: a detached artillery unit's move is its crew's.
        if let Ok(unit) = self.find_unit(name)
            && self.world.get::<super::crew::Detached>(unit).is_some()
        {
            return self.move_crew(action, unit, steps);
        }
        let (unit, p, allowance, plan, fitting) = self.validate_move(name, steps)?;
        // Validated: from here the dice may roll and the world change.
        let mut report = Report::otp(self.turn(), action, format!("{name} moves ({}, 6.1)", section(self.arm(unit))));
        self.report_allowance(&mut report, unit, p.start);
        let plan = self.roll_for_terrain(&mut report, unit, steps, plan, allowance, allowance.full * p.factor);
        for item in &plan.items {
            report.note(item.section, format!("{}: {:.2}\"", item.what, item.inches));
        }
        if plan.road_bonus {
            report.note("5.1", format!("road bonus: the column moves up to {:.2}\"", plan.allowance));
        }
        self.place(unit, &plan.stands, plan.formation);
        self.place_carried(&mut report, name, &plan);
        // 7.5: crews riding with it go along; back in contact with their gun, they reman it.
        self.carry_riders(&mut report, unit, true);
        self.record(&p, p.spent + plan.spent);
        let names: Vec<String> = fitting.iter().map(|o| o.to_string()).collect();
        report.outcome = format!("{name} spends {:.2}\" ({:.2}\" in all this turn); its operation: {}", plan.spent, p.spent + plan.spent, names.join(" or "));
        report.change("6.1", format!("{name} is now in {}, front at ({:.2}, {:.2})", super::describe::formation(plan.formation), plan.stands[0].front_centre().x, plan.stands[0].front_centre().y));
        if plan.off_table {
            self.turn_mut(unit).off_table = true;
            report.change("6.1", format!("{name} has left the table"));
        }
        Ok(report)
    }

    /// 7.5: an attached gun moves with its infantry only within its own formation's move.
    pub(super) fn check_carried(&self, name: &str, plan: &MoveReport) -> Result<(), Refusal> {
        for c in &plan.carried {
            let gun = self.find_unit(&c.unit)?;
            let most = self.galloper_moves(gun).map_or_else(|| self.normal_move(gun, self.unit(gun).formation), |g| g.move_only);
            let spent = self.unit_turn(gun).spent + c.travelled;
            if spent > most + EPS {
                return refuse("7.5", format!("{} is attached to {name} and moves with it only within its {} move of {most}\"; this would take it {spent:.2}\"", c.unit, super::describe::formation(self.unit(gun).formation)));
            }
        }
        Ok(())
    }

    /// 7.5: the attached guns go where the move took them.
    pub(super) fn place_carried(&mut self, report: &mut Report, name: &str, plan: &MoveReport) {
        for c in &plan.carried {
            let Some(gun) = self.unit_entity(&c.unit) else { continue };
            if c.travelled <= EPS {
                continue;
            }
            let formation = self.unit(gun).formation;
            self.place(gun, &c.stands, formation);
            let mut t = self.turn_mut(gun);
            t.spent += c.travelled;
            t.moved = true;
            report.change("7.5", format!("{} moves {:.2}\" with {name}", c.unit, c.travelled));
        }
    }

    /// Scenario switches and optional rules on formations (5.3–5.5, 7.7).
    fn formation_allowed(&self, unit: Entity, to: Formation) -> Result<(), Refusal> {
        let u = self.unit(unit);
        let rules = self.scenario.optional_rules;
        if to == Formation::LooseOrder && !rules.loose_order {
            return refuse("5.4", "loose order is an optional rule this scenario does not use");
        }
        if u.unit_type == UnitType::Indian && rules.indians_skirmish_only {
            return refuse("5.5", format!("{}: Indians fight only in skirmish line (optional 5.5)", u.name));
        }
        if to == Formation::Skirmish && u.unit_type == UnitType::Militia && !u.can_skirmish {
            return refuse("5.3", format!("{}: militia skirmish only where the scenario says so", u.name));
        }
        let galloper = matches!(u.arm, crate::scenario::model::Arm::Artillery { galloper: true, .. });
        if to == Formation::Limbered && rules.civilian_drivers && u.formation == Formation::Unlimbered && !galloper {
            return refuse("7.7", format!("{}: with civilian drivers, artillery once unlimbered stays unlimbered", u.name));
        }
        Ok(())
    }

    /// A change of formation judged (4.3, 3.x, 5.3–5.5, 6.2, 7.7), nothing changed.
    fn validate_formation(&self, name: &str, to: Formation) -> Result<(Entity, Permit, MoveReport, Vec<&'static Operation>), Refusal> {
        let unit = self.find_unit(name)?;
        if let Some(r) = super::move_rules::unknown_formation(to) {
            return refuse(r.section, r.reason);
        }
        let p = self.permit(unit, &[Activity::Form(to)])?;
        self.formation_allowed(unit, to)?;
        // Artillery pays for limbering out of its limbered move (3.3); others out of their start move.
        let full = match self.arm(unit) {
            ArmClass::Artillery => self.normal_move(unit, Formation::Limbered),
            _ => self.normal_move(unit, p.start),
        };
        let plan = self.plan(unit, &[MoveStep::ChangeFormation(to)], Allowance::new(full))?;
        let fitting = self.within_budget(&p, p.spent + plan.spent, None)?;
        self.check_carried(name, &plan)?;
        Ok((unit, p, plan, fitting))
    }

    /// Would this move or change of formation be allowed now? Nothing is rolled or changed.
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<(), Refusal> {
        if let Ok(unit) = self.find_unit(name)
            && self.world.get::<super::crew::Detached>(unit).is_some()
        {
            return self.validate_crew_move(unit, steps).map(|_| ());
        }
        self.validate_move(name, steps).map(|_| ())
    }

    /// Would this change of formation be allowed now? Nothing is rolled or changed.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<(), Refusal> {
        self.validate_formation(name, to).map(|_| ())
    }

    pub(super) fn change_formation(&mut self, action: &Action, name: &str, to: Formation) -> Result<Report, Refusal> {
        let (unit, p, plan, fitting) = self.validate_formation(name, to)?;
        let from = self.unit(unit).formation;
        let mut report = Report::otp(self.turn(), action, format!("{name} changes formation ({}, 6.2)", section(self.arm(unit))));
        self.report_allowance(&mut report, unit, p.start);
        for item in &plan.items {
            report.note(item.section, format!("{}: {:.2}\"", item.what, item.inches));
        }
        self.place(unit, &plan.stands, plan.formation);
        self.place_carried(&mut report, name, &plan);
        // 7.5: crews riding with it go along; back in contact with their gun, they reman it.
        self.carry_riders(&mut report, unit, true);
        self.record(&p, p.spent + plan.spent);
        let names: Vec<String> = fitting.iter().map(|o| o.to_string()).collect();
        report.outcome = format!("{name} forms {} from {} for {:.2}\"; its operation: {}", super::describe::formation(to), super::describe::formation(from), plan.spent, names.join(" or "));
        report.change("6.2", format!("{name} is now in {}", super::describe::formation(to)));
        Ok(report)
    }
}

fn arm_word(arm: ArmClass) -> &'static str {
    match arm {
        ArmClass::Infantry => "infantry",
        ArmClass::Cavalry => "cavalry",
        ArmClass::Artillery => "artillery",
    }
}

/// The operations of an arm, for refusals.
fn permitted(arm: ArmClass) -> String {
    operations(arm).iter().map(|o| format!("{}. {}", o.number, o.name)).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;
    use crate::scenario::spawn::MoraleMarker;

    fn acts(a: &[Activity]) -> Vec<Activity> {
        a.to_vec()
    }

    // OTP 3.1: the five infantry operations, in either order where the text says "or vice versa".
    #[test]
    fn infantry_operations_fit() {
        let fits = |done: &[Activity], militia| INFANTRY.iter().filter(|o| o.fits(done, Formation::Line, militia)).map(|o| o.number).collect::<Vec<_>>();
        assert_eq!(fits(&acts(&[Activity::Move]), false), vec![1, 2]);
        assert_eq!(fits(&acts(&[Activity::Fire, Activity::Move]), false), vec![2]);
        assert_eq!(fits(&acts(&[Activity::Form(Formation::Column), Activity::Move]), false), vec![3]);
        assert_eq!(fits(&acts(&[Activity::Fire, Activity::Form(Formation::Column)]), false), vec![4]);
        assert!(fits(&acts(&[Activity::Move, Activity::Move]), false).is_empty(), "one operation");
        assert!(fits(&acts(&[Activity::Move, Activity::Form(Formation::Column)]), false).is_empty(), "6.2: formation changes come first");
        // 3.1: militia may only change formation.
        assert!(fits(&acts(&[Activity::Form(Formation::Column), Activity::Move]), true).is_empty());
        assert_eq!(fits(&acts(&[Activity::Form(Formation::Column)]), true), vec![3, 4]);
    }

    // OTP 3.2, 3.3.
    #[test]
    fn cavalry_and_artillery_operations_fit() {
        let cav = |done: &[Activity]| CAVALRY.iter().filter(|o| o.fits(done, Formation::Line, false)).count();
        assert_eq!(cav(&[Activity::Charge]), 1);
        assert_eq!(cav(&[Activity::Fire]), 0, "3.2 lists no fire for cavalry");
        let art = |done: &[Activity], start| ARTILLERY.iter().filter(|o| o.fits(done, start, false)).map(|o| o.number).collect::<Vec<_>>();
        assert_eq!(art(&[Activity::Form(Formation::Limbered), Activity::Move], Formation::Unlimbered), vec![1]);
        assert_eq!(art(&[Activity::Move, Activity::Form(Formation::Unlimbered)], Formation::Limbered), vec![2]);
        assert_eq!(art(&[Activity::Fire, Activity::Form(Formation::Limbered)], Formation::Unlimbered), vec![6]);
        assert_eq!(art(&[Activity::Move], Formation::Unlimbered), vec![5], "hand haul");
        assert_eq!(art(&[Activity::Fire], Formation::Limbered), Vec::<u8>::new(), "limbered guns do not fire");
    }

    // OTP 3.1, 6.1: move fully, then no second move; 4.3: only the phasing brigade.
    #[test]
    fn one_operation_per_unit() {
        let mut g = teaching(7);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(6.5)] }, "6.1");
        // Before moving: nothing spent, a full 6" move the most any operation allows (3.1, 6.1).
        assert_eq!(g.movement_budget(g.unit_entity("33rd Foot").unwrap()), Some((0.0, 6.0)));
        let r = ok(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(4.0)] });
        assert!(r.outcome.contains("4.00"), "{r}");
        refused(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(1.0)] }, "3.1");
        // 3.1: "move 1/2 and fire" — after 4" of a 6" move there is no fire left.
        refused(&mut g, Action::fire("33rd Foot", "1st Maryland"), "3.1");
        assert!(!g.may_fire(g.unit_entity("33rd Foot").unwrap()));
        refused(&mut g, Action::Move { unit: "1st Maryland".into(), steps: vec![MoveStep::Forward(1.0)] }, "4.3");
        let t = g.unit_turn(g.unit_entity("33rd Foot").unwrap());
        assert_eq!(t.done, vec![Activity::Move]);
        // 7.5: the 23rd Foot carries its unlimbered guns, whose own move is 2".
        refused(&mut g, Action::Move { unit: "23rd Foot".into(), steps: vec![MoveStep::Forward(3.0)] }, "7.5");
        let r = ok(&mut g, Action::Move { unit: "23rd Foot".into(), steps: vec![MoveStep::Forward(2.0)] });
        assert!(r.changes.iter().any(|c| c.rule == "7.5"), "{r}");
        let guns = g.unit_entity("Royal Artillery").unwrap();
        assert!(g.unit_turn(guns).moved && g.unit_turn(guns).done.is_empty(), "moved with its infantry, its own operation untouched");
    }

    // OTP 10.1: no operation with a Morale Marker.
    #[test]
    fn marker_forbids_operations() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        refused(&mut g, Action::ChangeFormation { unit: "Loyalist Militia".into(), formation: Formation::Column }, "10.1");
        assert!(g.has_marker(g.unit_entity("Loyalist Militia").unwrap()));
        let e = g.unit_entity("British Legion Dragoons").unwrap();
        g.world_mut().entity_mut(e).insert(MoraleMarker);
        refused(&mut g, Action::Charge { unit: "British Legion Dragoons".into(), target: "1st Maryland".into() }, "10.1");
    }

    // OTP 6.2 (3.1): militia change formation and may not then move.
    #[test]
    fn militia_only_change_formation() {
        let mut g = teaching(5);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Pickens' Militia");
        ok(&mut g, Action::ChangeFormation { unit: "North Carolina Militia".into(), formation: Formation::Column });
        refused(&mut g, Action::Move { unit: "North Carolina Militia".into(), steps: vec![MoveStep::Forward(1.0)] }, "6.2");
        refused(&mut g, Action::Move { unit: "Virginia Riflemen".into(), steps: vec![MoveStep::ChangeFormation(Formation::Line), MoveStep::Forward(1.0)] }, "6.2");
    }

    // OTP 3.1 3, 6.2: formation change then half a move, in one action or two.
    #[test]
    fn change_formation_then_half_move() {
        let mut g = teaching(5);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        // Virginia State Regiment: line, 6"; forming column costs 3", leaving 3".
        ok(&mut g, Action::ChangeFormation { unit: "Virginia State Regiment".into(), formation: Formation::Column });
        refused(&mut g, Action::Move { unit: "Virginia State Regiment".into(), steps: vec![MoveStep::Forward(3.5)] }, "3.1");
        ok(&mut g, Action::Move { unit: "Virginia State Regiment".into(), steps: vec![MoveStep::Forward(2.5)] });
        let t = g.unit_turn(g.unit_entity("Virginia State Regiment").unwrap());
        assert!((t.spent - 5.5).abs() < 1e-3, "{}", t.spent);
        // An operation that cannot include fire is refused before the fire is judged.
        refused(&mut g, Action::fire("Virginia State Regiment", "23rd Foot"), "3.1");
    }

    // OTP 3.3 1: limber and move 1/2 (the limbering costs half the limbered move); no fire after.
    #[test]
    fn artillery_limbers_and_moves_half() {
        let mut g = teaching(2);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        let guns = "Royal Artillery".to_string();
        ok(&mut g, Action::ChangeFormation { unit: guns.clone(), formation: Formation::Limbered });
        refused(&mut g, Action::Move { unit: guns.clone(), steps: vec![MoveStep::Forward(6.0)] }, "3.3");
        ok(&mut g, Action::Move { unit: guns.clone(), steps: vec![MoveStep::Forward(3.0)] });
        refused(&mut g, Action::fire(guns, "1st Maryland"), "3.3");
    }

    // OTP 10.2 and the MORALE RESULTS TABLE: Stand keeps the unit still, Deploy allows only
    // deploying, Half move halves the movement.
    #[test]
    fn morale_results_limit_operations() {
        let mut g = teaching(2);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let set = |g: &mut Game, unit: &str, r: MoraleResult| {
            let e = g.unit_entity(unit).unwrap();
            g.turn_mut(e).restriction = Some(r);
        };
        set(&mut g, "British Legion Dragoons", MoraleResult::Stand);
        refused(&mut g, Action::Move { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Forward(1.0)] }, "10.2");
        set(&mut g, "British Legion Infantry", MoraleResult::Deploy);
        refused(&mut g, Action::Move { unit: "British Legion Infantry".into(), steps: vec![MoveStep::Forward(1.0)] }, "10.2");
        ok(&mut g, Action::ChangeFormation { unit: "British Legion Infantry".into(), formation: Formation::Line });
        // Cavalry in line: 10", halved to 5".
        set(&mut g, "British Legion Dragoons", MoraleResult::HalfMove);
        let r = refused(&mut g, Action::Move { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Oblique { angle: -45.0, distance: 6.0 }] }, "3.2");
        assert!(r.reason.contains("halved"), "{r}");
        ok(&mut g, Action::Move { unit: "British Legion Dragoons".into(), steps: vec![MoveStep::Oblique { angle: -45.0, distance: 4.0 }] });
    }

    /// The teaching battle with some optional rules and a unit changed in the scenario.
    fn variant(seed: u64, change: impl FnOnce(&mut crate::scenario::model::Scenario)) -> Game {
        let mut s = crate::scenario::default_scenario();
        change(&mut s);
        Game::new(s, seed, crate::rules::otp::charts::Charts::embedded().clone())
    }

    fn model_unit<'a>(s: &'a mut crate::scenario::model::Scenario, name: &str) -> &'a mut crate::scenario::model::Unit {
        s.sides.iter_mut().flat_map(|x| &mut x.brigades).flat_map(|b| &mut b.units).find(|u| u.name == name).unwrap()
    }

    // OTP 5.5 (optional): Indians stay in skirmish line.
    #[test]
    fn indians_keep_to_skirmish_line() {
        let mut g = variant(3, |s| {
            s.optional_rules.indians_skirmish_only = true;
            model_unit(s, "71st Light Company").unit_type = UnitType::Indian;
        });
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::ChangeFormation { unit: "71st Light Company".into(), formation: Formation::Line }, "5.5");
        refused(&mut g, Action::Move { unit: "71st Light Company".into(), steps: vec![MoveStep::ChangeFormation(Formation::Column), MoveStep::Forward(1.0)] }, "5.5");
        ok(&mut g, Action::Move { unit: "71st Light Company".into(), steps: vec![MoveStep::Forward(1.0)] });
    }

    // OTP 5.0: the other rule sets' formations (wedge, square...) are not OTP's: refused with
    // 5.0 whether asked as a change of formation or as a step of a move, and nothing changes.
    #[test]
    fn formations_of_other_rule_sets_are_refused() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        for f in Formation::ALL.into_iter().filter(|f| !Formation::OTP.contains(f)) {
            let r = refused(&mut g, Action::ChangeFormation { unit: "33rd Foot".into(), formation: f }, "5.0");
            assert!(r.reason.contains(crate::table::words::formation(f)), "{r}");
            assert_eq!(g.check_formation("33rd Foot", f).map_err(|r| r.rule), Err("5.0".into()));
            refused(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::ChangeFormation(f)] }, "5.0");
        }
        // OTP's own formations are judged by their own rules, not 5.0's list.
        assert!(g.check_formation("33rd Foot", Formation::Column).is_ok());
    }

    // OTP 7.7 (optional): with civilian drivers unlimbered artillery never limbers; 7.6
    // gallopers are exempt.
    #[test]
    fn civilian_drivers_keep_guns_unlimbered_but_not_gallopers() {
        let mut g = variant(3, |s| s.optional_rules.civilian_drivers = true);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::ChangeFormation { unit: "Royal Artillery".into(), formation: Formation::Limbered }, "7.7");
        let mut g = variant(3, |s| {
            s.optional_rules.civilian_drivers = true;
            s.optional_rules.galloper_guns = true;
            model_unit(s, "Royal Artillery").arm = crate::scenario::model::Arm::Artillery { gun: crate::scenario::model::GunSize::Light, galloper: true };
        });
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        ok(&mut g, Action::ChangeFormation { unit: "Royal Artillery".into(), formation: Formation::Limbered });
    }
}

#[cfg(test)]
mod galloper_tests {
    use super::super::testing::{activate, ok, refused};
    use super::*;
    use crate::scenario::model::{Arm, GunSize};
    use crate::table::footprint::Footprint;
    use bevy::math::Vec2;

    fn game(option: bool) -> Game {
        let mut s = crate::scenario::default_scenario();
        s.optional_rules.galloper_guns = option;
        let u = s.sides.iter_mut().flat_map(|x| &mut x.brigades).flat_map(|b| &mut b.units).find(|u| u.name == "Royal Artillery").unwrap();
        u.arm = Arm::Artillery { gun: GunSize::Light, galloper: true };
        let mut g = Game::new(s, 3, crate::rules::otp::charts::Charts::embedded().clone());
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        ok(&mut g, Action::Detach { gun: "Royal Artillery".into() });
        let e = g.unit_entity("Royal Artillery").unwrap();
        for s in g.unit(e).stands.clone() {
            let mut f = g.world_mut().get_mut::<Footprint>(s).unwrap();
            f.centre += Vec2::new(52.0, 27.0) - Vec2::new(24.5, 38.0);
        }
        g
    }

    // OTP 7.6 (optional): an unlimbered galloper moves 6" without firing, or 3" and fires.
    #[test]
    fn galloper_guns_move_six_or_three_and_fire() {
        let mut g = game(true);
        let gun = g.unit_entity("Royal Artillery").unwrap();
        refused(&mut g, Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(6.5)] }, "6.1");
        ok(&mut g, Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(5.0)] });
        let r = g.permit(gun, &[Activity::Fire]).unwrap_err();
        assert_eq!(r.rule, "7.6", "{r}");
        let mut g = game(true);
        ok(&mut g, Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(3.0)] });
        assert!(g.permit(gun, &[Activity::Fire]).is_ok(), "3\" and fire");
    }

    // OTP 7.6: without the option a galloper is an ordinary light gun (hand hauled 2").
    #[test]
    fn without_the_option_gallopers_are_light_guns() {
        let mut g = game(false);
        let most = g.normal_move(g.unit_entity("Royal Artillery").unwrap(), Formation::Unlimbered);
        assert!(most < 3.0);
        let r = g.apply(Action::Move { unit: "Royal Artillery".into(), steps: vec![MoveStep::Forward(3.0)] }).unwrap_err();
        assert!(r.rule == "6.1" || r.rule == "3.3", "{r}");
    }
}
