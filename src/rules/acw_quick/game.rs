//! The state of a quick ACW game and one check per action. `apply` runs the action's check
//! before it changes anything, so the engine, the window's greyed buttons, the previews and the
//! automatic player cannot disagree. The dice and their results are in `resolve.rs`.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::math::Vec2;
use serde::Serialize;

use super::charts::{Charts, FireArm, FireModifier, Mover};
use super::moves::{self, COVER, FIRE, QK};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::Dice;
use crate::rules::report::{Refusal, Report};
use crate::scenario::Scenario;
use crate::scenario::basing;
use crate::scenario::model::{self, Arm, Formation, Nation};
use crate::scenario::spawn::{self, Commander, Unit};
use crate::table::aspect::{AttackZone, attack_zone};
use crate::table::contact::{self, ChargePath, charge_path, units_in_contact};
use crate::table::cover::unit_cover;
use crate::table::fire::{FireOptions, fire_geometry};
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use crate::table::movement::{self, Allowance, MoveStep};
use crate::table::situation::Situation;
use crate::table::words::{formation as formation_name, inches};

pub const QKS: RuleSetId = RuleSetId::AcwQuick;
/// The answers to QK3's question, in order.
pub const ROUT_ANSWERS: [&str; 2] = ["stay (it may only turn about)", "rout away from the nearest enemy"];
pub const STAY: u32 = 0;
pub const ROUT: u32 = 1;
/// The most steps one move may have: more is no order a player gives.
const MOST_STEPS: usize = 16;
/// QK14 (a reading): a sight line through more than this much woods sees nothing.
pub const SEE_INTO_WOODS: f32 = 2.0;

/// Refused under QK `rule`.
pub(super) fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::by(QKS.cite(rule), reason))
}

/// QK1, QK5: the steps of a player-turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Step {
    Command,
    Move,
    Rally,
    DefensiveFire,
    OffensiveFire,
    Melee,
}

impl Step {
    pub const ALL: [Step; 6] = [Step::Command, Step::Move, Step::Rally, Step::DefensiveFire, Step::OffensiveFire, Step::Melee];
    pub fn words(self) -> &'static str {
        match self {
            Step::Command => "Command",
            Step::Move => "Move",
            Step::Rally => "Rally",
            Step::DefensiveFire => "Defensive fire",
            Step::OffensiveFire => "Offensive fire",
            Step::Melee => "Melee",
        }
    }
    pub fn rule(self) -> &'static str {
        match self {
            Step::Command => "2",
            Step::Move => "3",
            Step::Rally => "4",
            _ => "5",
        }
    }
    fn next(self) -> Option<Step> {
        Step::ALL.iter().position(|s| *s == self).and_then(|i| Step::ALL.get(i + 1)).copied()
    }
}

/// What the quick rules keep for a unit beyond the common sheet.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct QkState {
    /// QK13: a Morale Marker (never more than one).
    pub marker: bool,
    /// QK19, QK22: stands at the start and left (a battery's stands are counted, its guns drawn
    /// as one stand).
    pub stands_start: u32,
    pub stands: u32,
    /// Inches of this player-turn's move spent (QK6).
    pub spent: f32,
    /// QK2: the share of its move the command step left it (1 or 1/2), fixed when the move
    /// step begins; 0 before.
    pub command: f32,
    /// Moved this player-turn other than turning about (QK4).
    pub moved: bool,
    /// QK3: a marked unit that chose to stay.
    pub stayed: bool,
    pub routed: bool,
    pub fired: bool,
    pub fought: bool,
    /// QK17: charged this player-turn from the flank or rear of this unit.
    #[serde(skip)]
    pub behind: Option<Entity>,
}

/// A leader as the quick rules keep him (QK2, QK20, QK21).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leader {
    #[serde(skip)]
    pub entity: Entity,
    pub name: String,
    pub side: usize,
    /// His brigade's units' entity, `None` for an army commander.
    #[serde(skip)]
    pub brigade: Option<Entity>,
    pub bonus: i32,
    pub radius: f32,
    #[serde(skip)]
    pub attached: Option<Entity>,
    pub lost: bool,
    pub moved: bool,
}

impl Leader {
    /// QK2, QK21: a brigadier commands his brigade, the army commander every unit of his side.
    pub fn commands(&self, unit: &Unit) -> bool {
        self.side == unit.side && self.brigade.is_none_or(|b| b == unit.brigade)
    }
}

/// QK3: the open question to a marked unit's owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Question {
    pub id: u32,
    pub unit: Entity,
}

/// Where a unit's stands end after a move.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub unit: Entity,
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    pub inches: f32,
    /// Only turned about (QK3, QK4: not a move).
    pub turned_only: bool,
    pub rough: bool,
}

/// A charge QK9 allows: the path to contact and the numbers of both morale rolls.
#[derive(Clone, Debug, PartialEq)]
pub struct ChargePlan {
    pub unit: Entity,
    pub target: Entity,
    pub path: ChargePath,
    /// 2d6 + `charger_bonus` must reach `charger_needs`.
    pub charger_needs: i32,
    pub charger_bonus: i32,
    pub target_needs: i32,
    pub target_bonus: i32,
    pub zone: AttackZone,
}

/// A shot QK11–QK14 allow.
#[derive(Clone, Debug, PartialEq)]
pub struct Shot {
    pub firer: Entity,
    pub target: Entity,
    pub arm: FireArm,
    pub range: f32,
    pub band: usize,
    pub needs: i32,
    pub modifiers: Vec<(FireModifier, i32)>,
}

impl Shot {
    pub fn modifier(&self) -> i32 {
        self.modifiers.iter().map(|m| m.1).sum()
    }
}

/// A game under the quick ACW rules.
pub struct Game {
    pub(super) scenario: Scenario,
    pub(super) seed: u64,
    pub(super) dice: Dice,
    pub(super) world: World,
    pub(super) charts: &'static Charts,
    /// Every unit as spawned, in scenario order; a removed unit is no longer in the world.
    pub(super) units: Vec<Entity>,
    pub(super) leaders: Vec<Leader>,
    /// Each side's nation (Union or Confederate), by side index.
    pub(super) nations: Vec<Nation>,
    /// QK1: the sides in the order of their player-turns.
    pub(super) order: Vec<usize>,
    pub(super) turn: u32,
    /// Index into `order`: whose player-turn it is.
    pub(super) phase: usize,
    pub(super) step: Step,
    pub(super) question: Option<Question>,
    /// QK3: marked units still to be asked this move step.
    pub(super) to_ask: Vec<Entity>,
    pub(super) asked: u32,
    pub(super) over: bool,
    /// Units removed (QK19, QK22), by name, in order.
    pub(super) removed: Vec<String>,
    pub(super) actions: Vec<Action>,
    pub(super) reports: Vec<Report>,
}

/// QK22: the stands a unit of `men` has, about 100 men a stand, at least one.
pub fn stands_of(men: u32, charts: &Charts) -> u32 {
    let per = charts.men_a_stand.value;
    ((men + per / 2) / per).clamp(1, 30)
}

impl Game {
    pub fn new(scenario: Scenario, seed: u64) -> Game {
        let charts = Charts::embedded();
        // QK22: re-lay foot and horse at a stand a hundred men; a battery stays one stand on
        // the table and counts its stands.
        let mut based = scenario.clone();
        let mut starts: Vec<(String, u32)> = Vec::new();
        for u in based.sides.iter_mut().flat_map(|s| s.brigades.iter_mut()).flat_map(|b| b.units.iter_mut()) {
            let n = stands_of(u.men_or_default(), charts);
            starts.push((u.name.clone(), n));
            if !matches!(u.arm, Arm::Artillery { .. }) {
                u.figures_per_stand = None;
                u.figures = n * basing::figures_per_stand(u);
            }
        }
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &based, &scenario.name);
        let order: Vec<&str> = scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).map(|u| u.name.as_str()).collect();
        let mut units: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Unit)>() {
            Some(mut q) => q.iter(&world).map(|(e, u)| (order.iter().position(|n| *n == u.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        units.sort();
        let units: Vec<Entity> = units.into_iter().map(|(_, e)| e).collect();
        for &e in &units {
            let name = world.get::<Unit>(e).map(|u| u.name.clone()).unwrap_or_default();
            let n = starts.iter().find(|(m, _)| *m == name).map_or(1, |s| s.1);
            let marker = world.get::<spawn::MoraleMarker>(e).is_some();
            world.entity_mut(e).insert(QkState { marker, stands_start: n, stands: n, ..QkState::default() });
        }
        let nations: Vec<Nation> = scenario.sides.iter().enumerate().map(|(i, s)| s.nation_or_default().filter(|n| matches!(n, Nation::Union | Nation::Confederate)).unwrap_or(if i == 0 { Nation::Union } else { Nation::Confederate })).collect();
        let leaders = Game::leaders_of(&world, &scenario, &nations, charts);
        // QK1: the Confederates first (a scenario may say otherwise with moves_first).
        let first = scenario.sides.iter().position(|s| s.moves_first).or_else(|| nations.iter().position(|n| *n == Nation::Confederate)).unwrap_or(0);
        let order: Vec<usize> = std::iter::once(first).chain((0..scenario.sides.len()).filter(|&i| i != first)).collect();
        Game { scenario, seed, dice: Dice::new(seed), world, charts, units, leaders, nations, order, turn: 1, phase: 0, step: Step::Command, question: None, to_ask: Vec::new(), asked: 0, over: false, removed: Vec::new(), actions: Vec::new(), reports: Vec::new() }
    }

    /// QK21: every leader with his bonus and radius: as the scenario names them, else his nation's.
    fn leaders_of(world: &World, scenario: &Scenario, nations: &[Nation], charts: &Charts) -> Vec<Leader> {
        let mut found: Vec<(Entity, Commander)> = match world.try_query::<(Entity, &Commander)>() {
            Some(mut q) => q.iter(world).map(|(e, c)| (e, c.clone())).collect(),
            None => Vec::new(),
        };
        let model_of = |c: &Commander| -> Option<&model::Commander> {
            let side = scenario.sides.get(c.side)?;
            side.commander.iter().chain(side.brigades.iter().map(|b| &b.commander)).find(|m| m.name == c.name)
        };
        let order: Vec<&str> = scenario.sides.iter().flat_map(|s| s.commander.iter().chain(s.brigades.iter().map(|b| &b.commander))).map(|c| c.name.as_str()).collect();
        found.sort_by_key(|(e, c)| (order.iter().position(|n| *n == c.name).unwrap_or(usize::MAX), *e));
        found
            .into_iter()
            .map(|(e, c)| {
                let row = charts.leader(nations.get(c.side).copied().unwrap_or(Nation::Union));
                let acw = model_of(&c).and_then(|m| m.acw).unwrap_or_default();
                Leader { entity: e, name: c.name.clone(), side: c.side, brigade: c.brigade, bonus: acw.bonus.unwrap_or(row.bonus), radius: acw.radius.unwrap_or(row.radius), attached: None, lost: false, moved: false }
            })
            .collect()
    }

    // ---- reading the table ----

    pub fn unit(&self, e: Entity) -> Option<&Unit> {
        self.world.get::<Unit>(e)
    }

    pub fn state(&self, e: Entity) -> QkState {
        self.world.get::<QkState>(e).copied().unwrap_or_default()
    }

    /// The units still on the table, in scenario order.
    pub fn live_units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.units.iter().filter_map(|&e| Some((e, self.unit(e)?)))
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.scenario.sides.get(side).map_or("?", |s| s.name.as_str())
    }

    pub fn nation(&self, side: usize) -> Nation {
        self.nations.get(side).copied().unwrap_or(Nation::Union)
    }

    /// The side whose player-turn it is (QK1).
    pub fn phasing(&self) -> usize {
        self.order[self.phase]
    }

    /// The side that acts in the current step: the other side in defensive fire (QK5).
    pub fn acting_side(&self) -> usize {
        if self.step == Step::DefensiveFire { self.order[1 - self.phase.min(1)] } else { self.phasing() }
    }

    pub fn step(&self) -> Step {
        self.step
    }

    pub(super) fn name(&self, e: Entity) -> String {
        self.unit(e).map_or_else(|| "?".into(), |u| u.name.clone())
    }

    /// The unit of that name on the table; a removed unit is refused by QK19.
    pub fn find(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_units().find(|(_, u)| u.name == name) {
            return Ok(e);
        }
        if self.removed.iter().any(|n| n == name) {
            return refuse("19", format!("{name} was removed from the game"));
        }
        Err(Refusal::unruled(QKS, format!("no unit named \"{name}\"")))
    }

    pub fn situation(&self) -> Situation {
        Situation::from_world(&self.world)
    }

    pub fn leaders(&self) -> &[Leader] {
        &self.leaders
    }

    pub fn leader_of_entity(&self, e: Entity) -> Option<&Leader> {
        self.leaders.iter().find(|l| l.entity == e)
    }

    /// The leader attached to a unit, if one is (and not lost).
    pub fn attached_leader(&self, unit: Entity) -> Option<&Leader> {
        self.leaders.iter().find(|l| !l.lost && l.attached == Some(unit))
    }

    pub fn leader_at(&self, l: &Leader) -> Vec2 {
        self.world.get::<Commander>(l.entity).map_or(Vec2::ZERO, |c| c.at)
    }

    /// QK6: the row of the MOVEMENT table a unit moves on.
    pub fn mover(unit: &Unit) -> Mover {
        match (unit.arm, unit.formation) {
            (Arm::Artillery { .. }, Formation::Unlimbered) => Mover::Unlimbered,
            (Arm::Artillery { .. }, _) => Mover::Limbered,
            // Dismounted cavalry moves as foot (QK6).
            (Arm::Cavalry, Formation::Dismounted) => Mover::FootLine,
            (Arm::Cavalry, Formation::Column) => Mover::CavalryColumn,
            (Arm::Cavalry, _) => Mover::CavalryLine,
            (Arm::Infantry, Formation::Column) => Mover::FootColumn,
            (Arm::Infantry, _) => Mover::FootLine,
        }
    }

    pub fn is_mounted(unit: &Unit) -> bool {
        unit.arm == Arm::Cavalry && unit.formation != Formation::Dismounted
    }

    /// QK2, QK21: the unit's command: its brigadier lost halves it for the rest of the battle;
    /// otherwise full when every stand is inside its brigadier's or the army commander's radius.
    /// The factor and why.
    pub fn command(&self, e: Entity) -> (f32, String) {
        self.command_with(e, |l| self.leader_at(l))
    }

    /// `command` with the leaders standing where `at` puts them (the automatic player weighs
    /// where its brigadier should ride with it).
    pub fn command_with(&self, e: Entity, at: impl Fn(&Leader) -> Vec2) -> (f32, String) {
        let Some(unit) = self.unit(e) else { return (1.0, String::new()) };
        let half = self.charts.no_leader.value;
        let brigadier = self.leaders.iter().find(|l| l.brigade == Some(unit.brigade));
        if let Some(l) = brigadier.filter(|l| l.lost) {
            return (half, format!("{} was lost: his units move at half rate (QK21)", l.name));
        }
        let corners: Vec<Vec2> = spawn::unit_footprints(&self.world, unit).iter().flat_map(|f| f.corners()).collect();
        let mut commanders = self.leaders.iter().filter(|l| !l.lost && l.commands(unit));
        if let Some(l) = commanders.find(|l| {
            let at = at(l);
            corners.iter().all(|c| c.distance(at) <= l.radius + EPS)
        }) {
            return (1.0, format!("inside {}'s {} radius (QK2)", l.name, inches(l.radius)));
        }
        (half, "outside its leaders' radius: half move (QK2)".into())
    }

    /// QK6, QK2: the inches the unit may move this player-turn, terrain aside, and the command.
    pub fn allowance(&self, e: Entity) -> f32 {
        let Some(unit) = self.unit(e) else { return 0.0 };
        // Guns move at the limbered rate; unlimbered they must limber first (QK6).
        let mover = if Game::mover(unit) == Mover::Unlimbered { Mover::Limbered } else { Game::mover(unit) };
        let fixed = self.state(e).command;
        self.charts.moves(mover).inches * if fixed > 0.0 { fixed } else { self.command(e).0 }
    }

    /// QK6: the share of the move rough ground leaves (a quarter for limbered guns).
    pub fn rough_share(&self, unit: &Unit) -> f32 {
        if matches!(unit.arm, Arm::Artillery { .. }) { self.charts.rough_limbered.value } else { self.charts.rough.value }
    }

    /// QK10: a unit's morale number and what it adds (its attached leader's bonus, −1 for a
    /// marker).
    pub fn morale(&self, e: Entity) -> (i32, i32) {
        let side = self.unit(e).map_or(0, |u| u.side);
        let bonus = self.morale_factors(e).iter().map(|f| f.1).sum();
        (self.charts.morale(self.nation(side)).number, bonus)
    }

    /// QK10: what the unit's morale rolls add, each in words: its attached leader's bonus
    /// (QK21), −1 with a Morale Marker.
    pub fn morale_factors(&self, e: Entity) -> Vec<(String, i32)> {
        let mut out = Vec::new();
        if let Some(l) = self.attached_leader(e).filter(|l| l.bonus != 0) {
            out.push((format!("{} with it (QK21)", l.name), l.bonus));
        }
        if self.state(e).marker {
            out.push(("a Morale Marker".into(), -1));
        }
        out
    }

    // ---- the checks, one an action ----

    /// Orders wait while a question is open (QK3) and end with the game.
    fn open_to_orders(&self) -> Result<(), Refusal> {
        if self.over {
            return refuse("1", "the game is over");
        }
        if let Some(q) = self.question {
            return refuse("3", format!("{} must first say whether {} stays or routs", self.side_name(self.unit(q.unit).map_or(0, |u| u.side)), self.name(q.unit)));
        }
        Ok(())
    }

    /// A unit of the acting side in `step`, for an order under `rule`.
    fn own_unit(&self, name: &str, step: Step, rule: &str, what: &str) -> Result<Entity, Refusal> {
        self.open_to_orders()?;
        let e = self.find(name)?;
        if self.step != step {
            return refuse(rule, format!("{what} is in the {} step; this is the {} step (QK5)", step.words().to_lowercase(), self.step.words().to_lowercase()));
        }
        let side = self.unit(e).map_or(0, |u| u.side);
        if side != self.acting_side() {
            return refuse(rule, format!("{name} is {}'s: {} acts in this step (QK1, QK5)", self.side_name(side), self.side_name(self.acting_side())));
        }
        Ok(e)
    }

    /// QK3, QK6: may this unit move now, and how far in all?
    pub fn may_move(&self, name: &str) -> Result<Entity, Refusal> {
        let e = self.own_unit(name, Step::Move, "6", "moving")?;
        let st = self.state(e);
        if st.routed {
            return refuse("3", format!("{name} routed this player-turn"));
        }
        if st.spent >= self.allowance(e) - EPS && !st.stayed {
            return refuse("6", format!("{name} has spent its move ({})", inches(self.allowance(e))));
        }
        Ok(e)
    }

    /// QK3, QK6–QK8: a move by today's move steps, measured by the table; rough ground halves
    /// it (a quarter for limbered guns); no stand may end in contact with the enemy (that is a
    /// charge, QK9) or off the table.
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<Placed, Refusal> {
        let e = self.may_move(name)?;
        let unit = self.unit(e).expect("found above");
        let st = self.state(e);
        if steps.is_empty() {
            return refuse("6", "a move needs at least one step");
        }
        if steps.len() > MOST_STEPS {
            return Err(Refusal::unruled(QKS, format!("{} steps is no move a player orders (at most {MOST_STEPS})", steps.len())));
        }
        for step in steps {
            let numbers: Vec<f32> = match step {
                MoveStep::Forward(d) | MoveStep::SideStep(d) => vec![*d],
                MoveStep::Oblique { angle, distance } => vec![*angle, *distance],
                MoveStep::Wheel { angle, .. } => vec![*angle],
                MoveStep::Path(points) => points.iter().flat_map(|p| [p.x, p.y]).collect(),
                MoveStep::AboutFace | MoveStep::ChangeFormation(_) => Vec::new(),
                _ => return refuse("6", format!("{step}: the quick rules move a unit whole")),
            };
            if numbers.iter().any(|x| !x.is_finite() || x.abs() > 1_000.0) {
                return Err(Refusal::unruled(QKS, format!("{step}: not a number a table can measure")));
            }
        }
        let turned_only = steps.iter().all(|s| matches!(s, MoveStep::AboutFace));
        if st.marker && !turned_only {
            return refuse("3", format!("{name} has a Morale Marker: it stays, turning about at most, or routs"));
        }
        if st.marker && !st.stayed {
            return refuse("3", format!("{name} has a Morale Marker: its owner must first say whether it stays or routs"));
        }
        if unit.formation == Formation::Unlimbered && !turned_only && !matches!(steps.first(), Some(MoveStep::ChangeFormation(Formation::Limbered))) {
            return refuse("6", format!("{name} is unlimbered: guns move 0\" until they limber (half a move)"));
        }
        let full = self.allowance(e);
        let s = self.situation();
        let index = s.find(name).map_err(|why| Refusal::unruled(QKS, why))?;
        let plan = movement::plan_move(&s, index, steps, Allowance::new(full), &QK);
        if let Some(p) = &plan.problem
            && !(p.section == QK.cite.allowance && p.reason.contains("allowance"))
        {
            return refuse(p.section, format!("{name}: {}", p.reason));
        }
        let rough = !plan.starts_in.is_empty() || !plan.disorder.is_empty();
        let limit = if rough { full * self.rough_share(unit) } else { full };
        if st.spent + plan.spent > limit + EPS {
            let why = if rough { format!(" (rough ground: {} of {})", inches(limit), inches(full)) } else { String::new() };
            return refuse(if rough { "8" } else { "6" }, format!("{name} needs {} but has {} left{why}", inches(plan.spent), inches((limit - st.spent).max(0.0))));
        }
        if !turned_only && plan.formation == unit.formation && plan.spent <= EPS {
            return refuse("6", format!("{name}: that move goes nowhere"));
        }
        if plan.off_table || plan.stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("22", format!("{name} would leave the table"));
        }
        let after = s.with_stands(index, &plan.stands, plan.formation);
        if let Some(&o) = units_in_contact(&after, index).first() {
            return refuse("9", format!("{name} would touch {}: moving into contact is a charge (QK9)", after.unit(o).name));
        }
        Ok(Placed { unit: e, stands: plan.stands, formation: plan.formation, inches: plan.spent, turned_only, rough })
    }

    /// QK6: a change of formation is a move of one step.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<Placed, Refusal> {
        self.check_move(name, &[MoveStep::ChangeFormation(to)])
    }

    /// QK9, QK10: a charge into contact with an enemy unit within the charger's move.
    pub fn check_charge(&self, name: &str, target: &str) -> Result<ChargePlan, Refusal> {
        let e = self.own_unit(name, Step::Move, "9", "charging")?;
        let unit = self.unit(e).expect("found");
        let t = self.find(target)?;
        let tu = self.unit(t).expect("found");
        if tu.side == unit.side {
            return refuse("9", format!("{target} is a friend: a charge is at the enemy"));
        }
        let st = self.state(e);
        if st.marker {
            return refuse("3", format!("{name} has a Morale Marker: it stays or routs, and may not charge"));
        }
        if st.routed || st.stayed {
            return refuse("3", format!("{name} has routed or stayed this player-turn"));
        }
        if matches!(unit.arm, Arm::Artillery { .. }) {
            return refuse("9", "guns do not charge (a reading: the sheet's charges are foot and horse)");
        }
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(name), s.find(target)) else { return Err(Refusal::unruled(QKS, "no stands on the table")) };
        if units_in_contact(&s, a).contains(&b) {
            return refuse("15", format!("{name} already touches {target}: they fight in the melee step"));
        }
        let path = charge_path(&s, a, b, &QK);
        if let Some(p) = &path.problem {
            return refuse(p.section, format!("{name} cannot reach {target}: {}", p.reason));
        }
        if let Some(w) = path.interpenetrates.first() {
            return refuse("9", format!("{name} cannot reach {target}: {w} is in the way"));
        }
        let full = self.allowance(e);
        let rough = !path.disordering.is_empty();
        let limit = if rough { full * self.rough_share(unit) } else { full };
        if st.spent + path.distance > limit + EPS {
            return refuse("9", format!("{target} is {} away by the charge path; {name} has {} of move left{}", inches(path.distance), inches((limit - st.spent).max(0.0)), if rough { " (rough ground, QK8)" } else { "" }));
        }
        let (charger_needs, charger_bonus) = self.morale(e);
        let (target_needs, target_bonus) = self.morale(t);
        let zone = attack_zone(&s, a, b);
        Ok(ChargePlan { unit: e, target: t, path, charger_needs, charger_bonus, target_needs, target_bonus, zone })
    }

    /// QK11–QK14: a unit that has not fired this step fires at an enemy unit it bears on and sees.
    pub fn check_fire(&self, name: &str, target: &str) -> Result<Shot, Refusal> {
        let step = if self.step == Step::DefensiveFire { Step::DefensiveFire } else { Step::OffensiveFire };
        let e = self.own_unit(name, step, "5", "fire")?;
        let unit = self.unit(e).expect("found");
        let t = self.find(target)?;
        let tu = self.unit(t).expect("found");
        if tu.side == unit.side {
            return refuse("14", format!("{target} is a friend: fire is at the enemy"));
        }
        if self.state(e).fired {
            return refuse("5", format!("{name} has fired in this step"));
        }
        let Some(arm) = moves::fire_arm(unit.arm, unit.formation) else {
            let why = if matches!(unit.arm, Arm::Cavalry) { "mounted cavalry can't fire" } else { "limbered guns can't fire: unlimber first" };
            return refuse("14", format!("{name}: {why}"));
        };
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(name), s.find(target)) else { return Err(Refusal::unruled(QKS, "no stands on the table")) };
        // A reading (QK5, QK15): a unit touching an enemy fights it in the melee step, not with fire.
        if let Some(&o) = units_in_contact(&s, a).first() {
            return refuse("15", format!("{name} touches {}: units in contact fight in the melee step", s.unit(o).name));
        }
        let g = fire_geometry(&s, a, b, FireOptions::new(&FIRE));
        if !g.in_arc {
            return refuse("14", format!("{target} is outside {name}'s arc (45° beyond each end of its front)"));
        }
        let reach = moves::reach_of(arm).unwrap_or(0.0);
        if !g.stands.iter().any(|f| f.bears) {
            return refuse("11", format!("{target} is {} away: {} fire reaches {}", inches(g.range), arm.words().to_lowercase(), inches(reach)));
        }
        let firing: Vec<_> = g.firing().collect();
        if firing.is_empty() {
            let by = g.blocked_by();
            let why = if by.is_empty() { "no line of sight".to_string() } else { format!("{} is in the way", by.join(", ")) };
            return refuse("14", format!("{name} cannot see {target}: {why} (no firing through friends or without sight)"));
        }
        if g.woods_in() > SEE_INTO_WOODS + EPS {
            return refuse("14", format!("{name} cannot see {target}: {} of woods on the line (woods are seen into {})", inches(g.woods_in()), inches(SEE_INTO_WOODS)));
        }
        let range = firing.iter().map(|f| f.range).fold(f32::INFINITY, f32::min);
        let band = self.charts.band(range).unwrap_or(self.charts.bands.len() - 1);
        let Some(needs) = self.charts.fire_row(arm).needs[band] else {
            return refuse("11", format!("{target} is {} away: {} have no fire at {}", inches(range), arm.words().to_lowercase(), self.charts.band_label(band)));
        };
        let mut mods = Vec::new();
        let mut add = |m: FireModifier| mods.push((m, self.charts.fire_modifier(m).value));
        let from: Vec<Vec2> = firing.iter().map(|f| s.unit(a).stands[f.stand].footprint.centre).collect();
        if unit_cover(&s, &COVER, b, &from).is_some() {
            add(FireModifier::TargetInCover);
        }
        match (tu.arm, tu.formation) {
            (Arm::Artillery { .. }, _) => add(FireModifier::TargetArtillery),
            (Arm::Cavalry, Formation::Dismounted) => add(FireModifier::TargetDismounted),
            (Arm::Cavalry, _) => add(FireModifier::TargetMounted),
            (Arm::Infantry, Formation::Column) => add(FireModifier::TargetFootColumn),
            _ => {}
        }
        if self.state(e).marker {
            add(FireModifier::FirerMarked);
        }
        if self.nation(unit.side) == Nation::Union {
            add(FireModifier::UnionFiring);
        }
        if matches!(unit.formation, Formation::Line | Formation::Dismounted) && arm != FireArm::Artillery {
            add(FireModifier::FirerInLine);
        }
        Ok(Shot { firer: e, target: t, arm, range, band, needs, modifiers: mods })
    }

    /// QK2, QK6: a leader of the phasing side moves up to 24" (half in rough ground) in the
    /// command step, once a player-turn; he leaves any unit he was with.
    pub fn check_leader_move(&self, leader: &str, to: Vec2) -> Result<usize, Refusal> {
        let i = self.own_leader(leader)?;
        let l = &self.leaders[i];
        if !to.is_finite() || !self.situation().on_table(to) {
            return refuse("22", format!("{leader} would leave the table"));
        }
        let from = self.leader_at(l);
        let most = self.leader_reach(from, to);
        if from.distance(to) > most + EPS {
            return refuse("6", format!("{leader} rides {} at most (24\", half in rough ground); that is {}", inches(most), inches(from.distance(to))));
        }
        Ok(i)
    }

    /// QK6, QK8: a leader's ride, halved when it starts or ends in rough ground.
    pub fn leader_reach(&self, from: Vec2, to: Vec2) -> f32 {
        let full = self.charts.moves(Mover::Leader).inches;
        let s = self.situation();
        let rough = |p: Vec2| s.terrain().iter().any(|t| moves::is_rough(t) && terrain_contains(t, p));
        if rough(from) || rough(to) { full * self.charts.rough.value } else { full }
    }

    /// QK10, QK20: a leader joins a unit of his side within his ride; he rides to it.
    pub fn check_join(&self, leader: &str, unit: &str) -> Result<(usize, Entity), Refusal> {
        let i = self.own_leader(leader)?;
        let e = self.find(unit)?;
        let u = self.unit(e).expect("found");
        if u.side != self.leaders[i].side {
            return refuse("21", format!("{unit} is not of {leader}'s side"));
        }
        let at = centre(&spawn::unit_footprints(&self.world, u));
        let from = self.leader_at(&self.leaders[i]);
        let most = self.leader_reach(from, at);
        if from.distance(at) > most + EPS {
            return refuse("6", format!("{unit} is {} from {leader}: he rides {} at most", inches(from.distance(at)), inches(most)));
        }
        Ok((i, e))
    }

    fn own_leader(&self, name: &str) -> Result<usize, Refusal> {
        self.open_to_orders()?;
        let Some(i) = self.leaders.iter().position(|l| l.name == name) else { return Err(Refusal::unruled(QKS, format!("no leader named \"{name}\""))) };
        let l = &self.leaders[i];
        if l.lost {
            return refuse("21", format!("{name} was killed or captured: he is not replaced"));
        }
        if self.step != Step::Command {
            return refuse("2", format!("leaders move in the command step; this is the {} step", self.step.words().to_lowercase()));
        }
        if l.side != self.phasing() {
            return refuse("1", format!("{name} is {}'s: it is {}'s player-turn", self.side_name(l.side), self.side_name(self.phasing())));
        }
        if l.moved {
            return refuse("6", format!("{name} has moved this player-turn"));
        }
        Ok(i)
    }

    /// QK3: the answer to the open question.
    pub fn check_answer(&self, prompt: u32, option: u32) -> Result<Question, Refusal> {
        if self.over {
            return refuse("1", "the game is over");
        }
        let Some(q) = self.question else { return refuse("3", "no question is open") };
        if prompt != q.id {
            return refuse("3", format!("question {prompt} is not the open one (question {})", q.id));
        }
        if option > ROUT {
            return refuse("3", format!("question {prompt} has two answers: 0 stay, 1 rout"));
        }
        Ok(q)
    }

    /// QK5, QK15: `Next` closes the step; in the melee step it first fights each melee in turn.
    pub fn check_next(&self) -> Result<(), Refusal> {
        self.open_to_orders()
    }

    /// The verdict `apply` would give, without dice and without change.
    pub fn check(&self, action: &Action) -> Result<(), Refusal> {
        match action {
            Action::Move { unit, steps } => self.check_move(unit, steps).map(drop),
            Action::ChangeFormation { unit, formation } => self.check_formation(unit, *formation).map(drop),
            Action::Fire { unit, target } => self.check_fire(unit, target).map(drop),
            Action::Charge { unit, target } => self.check_charge(unit, target).map(drop),
            Action::MoveLeader { leader, to } => self.check_leader_move(leader, *to).map(drop),
            Action::JoinUnit { leader, unit } => self.check_join(leader, unit).map(drop),
            Action::Answer { prompt, option } => self.check_answer(*prompt, *option).map(drop),
            Action::Next => self.check_next(),
            other => refuse("1", format!("{other}: not an order of the quick ACW rules")),
        }
    }

    // ---- the melee step's work list ----

    /// QK15, QK18: the next melee to fight: a phasing unit and the enemy it touches, neither
    /// having fought this step, in scenario order.
    pub fn next_melee(&self) -> Option<(Entity, Entity)> {
        if self.step != Step::Melee {
            return None;
        }
        let s = self.situation();
        for (e, u) in self.live_units().filter(|(_, u)| u.side == self.phasing()) {
            if self.state(e).fought {
                continue;
            }
            let Ok(a) = s.find(&u.name) else { continue };
            for b in units_in_contact(&s, a) {
                let Ok(t) = self.find(&s.unit(b).name) else { continue };
                if !self.state(t).fought {
                    return Some((e, t));
                }
            }
        }
        None
    }

    /// The steps to the next step of the sequence (for views).
    pub(super) fn step_after(&self) -> Option<Step> {
        self.step.next()
    }

    pub(super) fn charge_zone_words(zone: AttackZone) -> &'static str {
        match zone {
            AttackZone::Front => "front",
            AttackZone::Flank => "flank",
            AttackZone::Rear => "rear",
        }
    }

    pub(super) fn part_way(&self, plan: &ChargePlan) -> Vec<Footprint> {
        contact::part_way(&self.situation(), &QK, &plan.path, 0.5)
    }
}

/// The centre of a unit's stands.
pub fn centre(stands: &[Footprint]) -> Vec2 {
    stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len().max(1) as f32
}

/// A point inside an area feature's outline.
pub fn terrain_contains(t: &model::Terrain, p: Vec2) -> bool {
    let outline: &[model::Point] = match t {
        model::Terrain::Woods { outline, .. } | model::Terrain::Town { outline, .. } | model::Terrain::Field { outline, .. } | model::Terrain::Hill { outline, .. } => outline,
        _ => return false,
    };
    let poly: Vec<Vec2> = outline.iter().map(|&q| Vec2::from(q)).collect();
    crate::picture::inside(&poly, p)
}

/// What a unit in a formation is called ("foot in line").
pub fn formation_words(unit: &Unit) -> String {
    let arm = match unit.arm {
        Arm::Infantry => "foot",
        Arm::Cavalry if unit.formation == Formation::Dismounted => "dismounted cavalry",
        Arm::Cavalry => "mounted cavalry",
        Arm::Artillery { .. } => "guns",
    };
    format!("{arm}, {}", formation_name(unit.formation))
}
