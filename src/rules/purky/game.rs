//! The state of a Purky game and its sequence (PK1–PK3), with one check per action: `check_*`
//! says what the action would do or the rule that refuses it, and `apply` runs the same check
//! before it changes anything, so the engine, the window's buttons, the previews and the
//! automatic player cannot disagree. Fire, melee and morale are in `combat`.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::math::Vec2;
use serde::Serialize;

use super::card::{self, ClassRow};
use super::moves::{self, MOVES};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::Dice;
use crate::rules::report::{Refusal, Report, SideSummary, Summary};
use crate::scenario::Scenario;
use crate::scenario::basing;
use crate::scenario::model::{self, Arm, Formation, PurkyClass, Rating, UnitType};
use crate::scenario::spawn::{self, Brigade, Commander, Stand, Unit};
use crate::table::arc::Arc;
use crate::table::contact;
use crate::table::cover::distance_to_stand;
use crate::table::footprint::{Footprint, bearing_vector};
use crate::table::geom::{EPS, segment_crossing};
use crate::table::movement::{self, Allowance, MoveStep, TOUCH};
use crate::table::situation::{Outline, Situation};
use crate::table::words::{formation as formation_name, inches};

pub const PK: RuleSetId = RuleSetId::Purky;

/// PK5: a unit farther than this from its leader moves at half rate; PK25: a leader rides this far.
pub const COMMAND_RADIUS: f32 = 24.0;
pub const LEADER_MOVE: f32 = 24.0;
/// PK8: rout distances, foot (and gun crews, PK28) and horse.
pub const ROUT_FOOT: f32 = 16.0;
pub const ROUT_HORSE: f32 = 24.0;
/// PK10: a friend this near a flank secures it.
pub const FLANK_FRIEND: f32 = 3.0;
/// PK20: a leader this near one of its stands is attached (our reading: touching it).
pub const ATTACHED: f32 = 1.0;
/// PK20: a unit of this many figures or more rolls one more morale die.
pub const BIG_UNIT: u32 = 30;
/// PK25: a leader with a unit that is hit is lost on a d10 of this.
pub const LEADER_LOST_ON: u8 = 1;
/// PK4: a light gun shelters in a friendly square whose stand is this near its own.
pub const SHELTER: f32 = 1.0;
/// PK25 reading: a Purky figure's frontage is ¾ of OTP's, so a unit of men/15 figures keeps
/// about the ground the scenario gave it at 1:20.
pub const FRONTAGE_SCALE: f32 = 0.75;
/// The most steps one move may have: more is no order a player gives.
const MOST_STEPS: usize = 16;

/// Refused under PK `rule`.
pub(super) fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::by(PK.cite(rule), reason))
}

/// PK1: the two sides of a turn: A moves first, B fires first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Team {
    A,
    B,
}

/// PK1: the steps of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Step {
    Initiative,
    Rally(Team),
    Move(Team),
    Fire(Team),
    Melee,
    Reserve(Team),
}

pub const STEPS: [Step; 10] = [
    Step::Initiative,
    Step::Rally(Team::A),
    Step::Rally(Team::B),
    Step::Move(Team::A),
    Step::Move(Team::B),
    Step::Fire(Team::B),
    Step::Fire(Team::A),
    Step::Melee,
    Step::Reserve(Team::B),
    Step::Reserve(Team::A),
];

impl Step {
    pub fn team(self) -> Option<Team> {
        match self {
            Step::Rally(t) | Step::Move(t) | Step::Fire(t) | Step::Reserve(t) => Some(t),
            Step::Initiative | Step::Melee => None,
        }
    }
    /// The rule that sets the step.
    pub fn rule(self) -> &'static str {
        match self {
            Step::Initiative | Step::Melee => "1",
            Step::Rally(_) => "23",
            Step::Move(_) => "1",
            Step::Fire(_) => "3",
            Step::Reserve(_) => "2",
        }
    }
}

/// PK10, PK19–PK23: a unit's morale state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Status {
    #[default]
    Steady,
    Shaken,
    Routed,
}

/// What Purky's rules keep for a unit beyond the common sheet.
#[derive(Component, Clone, Debug, PartialEq, Serialize)]
pub struct PkState {
    pub class: PurkyClass,
    /// PK17, PK21: figures lost so far (cumulative hits).
    pub hits: u32,
    pub status: Status,
    /// Inches of this turn's move spent (PK6, PK7).
    pub spent: f32,
    pub moved: bool,
    pub fired: bool,
    pub meleed: bool,
    pub charged: bool,
    /// PK4: a gun's functions this turn (limber, move, unlimber, prolonge): two, and it still fires.
    pub functions: u8,
    /// PK22: hit in this turn's fire: tests morale after the fire steps.
    pub hit_by_fire: bool,
    pub rally_asked: bool,
    pub reserve_moved: bool,
}

impl PkState {
    fn new(class: PurkyClass) -> PkState {
        PkState { class, hits: 0, status: Status::Steady, spent: 0.0, moved: false, fired: false, meleed: false, charged: false, functions: 0, hit_by_fire: false, rally_asked: false, reserve_moved: false }
    }
    pub fn row(&self) -> &'static ClassRow {
        card::row(self.class)
    }
}

/// A question a rule asks, answered by `Action::Answer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// PK1: the initiative's winner (a side) chooses to move first or fire first.
    Initiative { winner: usize },
    /// PK23: a shaken or routed unit of the side rallying: roll, or not.
    Rally { unit: Entity },
    /// PK11: skirmishers charged: evade a full move (then test), or stand.
    Evade { unit: Entity, charger: Entity },
}

impl Question {
    /// How many answers the question has.
    pub fn answers(&self) -> &'static [&'static str] {
        match self {
            Question::Initiative { .. } => &INITIATIVE_ANSWERS,
            Question::Rally { .. } => &RALLY_ANSWERS,
            Question::Evade { .. } => &EVADE_ANSWERS,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asked {
    pub id: u32,
    pub question: Question,
}

pub const INITIATIVE_ANSWERS: [&str; 2] = ["move first (Side A)", "fire first (Side B)"];
pub const RALLY_ANSWERS: [&str; 2] = ["roll to rally", "do not rally"];
/// PK11: the third answer came later than the first two, so saves keep their meaning.
pub const EVADE_ANSWERS: [&str; 3] = ["evade a full move, then test morale", "stand and fight", "fire, then evade a half move and test morale"];

/// A charge that reached contact, fought out in the melee step (PK18, PK19).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Engagement {
    pub charger: Entity,
    pub target: Entity,
    /// The charger came in on the target's flank or rear (PK18 major advantage).
    pub flank: bool,
    /// The charger climbed (the target fights uphill of it) or came down.
    pub climbed: bool,
    pub descended: bool,
}

/// Where a unit's stands end after an order.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub unit: Entity,
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    /// Inches spent.
    pub inches: f32,
    /// What the move cost, in the rules' words.
    pub notes: Vec<(String, &'static str)>,
}

/// A charge the rules allow (PK18).
#[derive(Clone, Debug, PartialEq)]
pub struct ChargePlan {
    pub placed: Placed,
    pub target: Entity,
    pub engagement: Engagement,
}

/// A unit's move this turn: the rate and its reasons.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub full: f32,
    pub road: Option<f32>,
    /// Each factor applied: words and rule.
    pub why: Vec<(String, &'static str)>,
}

/// A game under Purky's rules.
pub struct Game {
    pub(super) scenario: Scenario,
    pub(super) seed: u64,
    pub(super) dice: Dice,
    pub(super) world: World,
    /// Every unit as spawned, in scenario order; removed units are no longer in the world.
    pub(super) units: Vec<Entity>,
    pub(super) turn: u32,
    /// An index of [`STEPS`].
    pub(super) step: usize,
    /// The scenario side that is Side A this turn (PK1).
    pub(super) side_a: usize,
    pub(super) asked: Option<Asked>,
    pub(super) questions: u32,
    pub(super) melees: Vec<Engagement>,
    /// Leaders and the inches they rode this turn (PK25).
    pub(super) rides: Vec<(Entity, f32)>,
    pub(super) over: bool,
    /// PK25: leaders lost, by name (not replaced).
    pub(super) lost_leaders: Vec<String>,
    /// PK4: light guns (first) whose crews shelter in a friendly square (second).
    pub(super) shelters: Vec<(Entity, Entity)>,
    pub(super) actions: Vec<Action>,
    pub(super) reports: Vec<Report>,
    /// The table's geometry, cached (see [`Game::situation`]).
    pub(super) table: std::sync::OnceLock<Situation>,
}

impl Game {
    /// A new game, turn 1 at its initiative roll; the stands re-laid at Purky's scale (PK25).
    pub fn new(scenario: Scenario, seed: u64) -> Result<Game, String> {
        if scenario.sides.len() != 2 {
            return Err(format!("{}: Purky's rules are for two sides (PK1), this scenario has {}", scenario.name, scenario.sides.len()));
        }
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &scenario, &scenario.name);
        let order: Vec<&model::Unit> = scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).collect();
        let mut units: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Unit)>() {
            Some(mut q) => q.iter(&world).map(|(e, u)| (order.iter().position(|m| m.name == u.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        units.sort();
        for &(i, e) in &units {
            let m = order[i];
            let side = &scenario.sides[world.get::<Unit>(e).map_or(0, |u| u.side)];
            let profile = m.purky_profile(side);
            let figures = profile.figures.unwrap_or(1);
            let formation = match m.formation {
                Formation::LooseOrder => Formation::Skirmish,
                f => f,
            };
            let stands = relay(m, figures, formation, Vec2::from(m.at), m.facing, &scenario.basing).map_err(|e| format!("{}: {} cannot be based at Purky's scale: {e}", scenario.name, m.name))?;
            let old = world.get::<Unit>(e).map(|u| u.stands.clone()).unwrap_or_default();
            for s in old {
                world.despawn(s);
            }
            let ids: Vec<Entity> = stands.into_iter().enumerate().map(|(index, (f, n))| world.spawn((Stand { unit: e, index, figures: n }, f)).id()).collect();
            let mut u = world.get_mut::<Unit>(e).expect("spawned above");
            u.stands = ids;
            u.figures = figures;
            u.initial_figures = figures;
            u.formation = formation;
            world.entity_mut(e).insert(PkState::new(profile.class));
        }
        let units = units.into_iter().map(|(_, e)| e).collect();
        Ok(Game { scenario, seed, dice: Dice::new(seed), world, units, turn: 1, step: 0, side_a: 0, asked: None, questions: 0, melees: Vec::new(), rides: Vec::new(), over: false, lost_leaders: Vec::new(), shelters: Vec::new(), actions: Vec::new(), reports: Vec::new(), table: std::sync::OnceLock::new() })
    }

    // ---- reading the table ----

    pub fn unit(&self, e: Entity) -> Option<&Unit> {
        self.world.get::<Unit>(e)
    }

    pub fn pk(&self, e: Entity) -> Option<&PkState> {
        self.world.get::<PkState>(e)
    }

    pub fn live_units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.units.iter().filter_map(|&e| Some((e, self.unit(e)?)))
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.scenario.sides.get(side).map_or("?", |s| s.name.as_str())
    }

    pub(super) fn name(&self, e: Entity) -> String {
        self.unit(e).map_or_else(|| "?".into(), |u| u.name.clone())
    }

    pub fn current(&self) -> Step {
        STEPS[self.step]
    }

    /// The scenario side of a team this turn.
    pub fn side_of(&self, team: Team) -> usize {
        match team {
            Team::A => self.side_a,
            Team::B => 1 - self.side_a,
        }
    }

    /// The side whose step it is, if the step is one side's.
    pub fn acting_side(&self) -> Option<usize> {
        self.current().team().map(|t| self.side_of(t))
    }

    pub fn turn(&self) -> u32 {
        self.turn
    }

    pub fn open_question(&self) -> Option<Asked> {
        self.asked
    }

    pub fn engagements(&self) -> &[Engagement] {
        &self.melees
    }

    pub fn engaged(&self, e: Entity) -> bool {
        self.melees.iter().any(|m| m.charger == e || m.target == e)
    }

    /// The unit of that name on the table; a removed one is refused by PK24.
    pub fn find(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_units().find(|(_, u)| u.name == name) {
            return Ok(e);
        }
        if self.scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).any(|u| u.name == name) {
            return refuse("24", format!("{name} has been removed from the table"));
        }
        Err(Refusal::unruled(PK, format!("no unit named \"{name}\"")))
    }

    /// The table as the geometry sees it, built once until something on it changes
    /// (`place`, `lose_figures`, `remove` forget it).
    pub fn situation(&self) -> &Situation {
        self.table.get_or_init(|| Situation::from_world(&self.world))
    }

    pub(super) fn table_changed(&mut self) {
        self.table = std::sync::OnceLock::new();
    }

    /// The unit's leader: its brigade's commander (PK5).
    pub fn leader_of(&self, e: Entity) -> Option<Entity> {
        let u = self.unit(e)?;
        Some(self.world.get::<Brigade>(u.brigade)?.commander)
    }

    /// Inches from the unit's leader to its nearest stand.
    pub fn leader_distance(&self, e: Entity) -> Option<f32> {
        let at = self.world.get::<Commander>(self.leader_of(e)?)?.at;
        let u = self.unit(e)?;
        spawn::unit_footprints(&self.world, u).iter().map(|f| distance_to_stand(f, at)).reduce(f32::min)
    }

    /// PK20: a leader of its side stands with it.
    pub fn leader_attached(&self, e: Entity) -> Option<String> {
        let u = self.unit(e)?;
        let stands = spawn::unit_footprints(&self.world, u);
        let mut q = self.world.try_query::<&Commander>()?;
        q.iter(&self.world).filter(|c| c.side == u.side).find(|c| stands.iter().any(|f| distance_to_stand(f, c.at) <= ATTACHED)).map(|c| c.name.clone())
    }

    /// PK20, PK25: the leaders of its side standing with the unit (within 1" of a stand).
    pub fn leaders_with(&self, e: Entity) -> Vec<Entity> {
        let Some(u) = self.unit(e) else { return Vec::new() };
        let stands = spawn::unit_footprints(&self.world, u);
        let Some(mut q) = self.world.try_query::<(Entity, &Commander)>() else { return Vec::new() };
        let mut out: Vec<(String, Entity)> = q.iter(&self.world).filter(|(_, c)| c.side == u.side && stands.iter().any(|f| distance_to_stand(f, c.at) <= ATTACHED)).map(|(l, c)| (c.name.clone(), l)).collect();
        out.sort();
        out.into_iter().map(|(_, l)| l).collect()
    }

    /// PK25: the exact chance each leader with `e` is lost when a pool with these odds of each
    /// number of hits is rolled at it: a hit, then a d10 of 1.
    pub fn leader_risk(&self, e: Entity, hits: &[f64]) -> Vec<(String, f64)> {
        let hit = 1.0 - hits.first().copied().unwrap_or(1.0);
        self.leaders_with(e).into_iter().filter_map(|l| Some((self.world.get::<Commander>(l)?.name.clone(), hit * f64::from(LEADER_LOST_ON) / 10.0))).collect()
    }

    /// PK25: each leader who was with a unit when it lost figures rolls a d10: on a 1 he is lost.
    pub(super) fn leaders_at_risk(&mut self, leaders: &[Entity], unit: &str, report: &mut Report) {
        for &l in leaders {
            let Some(name) = self.world.get::<Commander>(l).map(|c| c.name.clone()) else { continue };
            let roll = super::combat::d10s(&mut self.dice, 1);
            report.die("25", format!("{name}, with {unit} when it was hit: lost on a d10 of {LEADER_LOST_ON}"), &roll);
            if roll.faces[0] <= LEADER_LOST_ON {
                self.lose_leader(l, report);
            }
        }
    }

    /// PK25: a leader lost is not replaced: his brigade's units are out of any leader's 24"
    /// (PK5, half rate); a C-in-C lost takes his initiative bonus with him (PK1).
    fn lose_leader(&mut self, l: Entity, report: &mut Report) {
        let Some(c) = self.world.get::<Commander>(l).cloned() else { return };
        self.world.despawn(l);
        self.rides.retain(|(r, _)| *r != l);
        self.lost_leaders.push(c.name.clone());
        let then = if c.brigade.is_some() { "his brigade's units move at half rate, out of any leader's 24\" (PK5)" } else { "the army loses its commander's initiative bonus (PK1)" };
        report.change("25", format!("{} is lost, killed or captured: he is not replaced; {then}", c.name));
    }

    /// PK1: the C-in-C's initiative bonus: +1 when exceptional or aggressive.
    pub fn initiative_bonus(&self, side: usize) -> Option<String> {
        let c = self.scenario.sides[side].commander.as_ref().filter(|c| !self.lost_leaders.contains(&c.name))?;
        matches!(c.rating, Some(Rating::Exceptional | Rating::Aggressive | Rating::Firebrand)).then(|| c.name.clone())
    }

    /// The unit's rate this turn (PK5–PK9, PK2) in its formation, terrain aside.
    pub fn rate(&self, e: Entity) -> Option<Rate> {
        let (u, pk) = (self.unit(e)?, self.pk(e)?);
        let base = card::rate(pk.class, u.formation)? as f32;
        let mut why = vec![(format!("{} in {}: {}", pk.row().row, formation_name(u.formation), inches(base)), "6")];
        let mut factor = 1.0;
        if self.leader_distance(e).is_some_and(|d| d > COMMAND_RADIUS + EPS) {
            factor *= 0.5;
            why.push(("more than 24\" from its leader: half".into(), "5"));
        } else if self.leader_of(e).is_some_and(|l| self.world.get::<Commander>(l).is_none()) {
            factor *= 0.5;
            why.push(("its leader is lost (PK25): out of any leader's 24\", half".into(), "5"));
        }
        if matches!(self.current(), Step::Reserve(_)) {
            factor *= 0.5;
            why.push(("a reserve move: half".into(), "2"));
        }
        let road = (u.formation == Formation::Column && pk.row().column.is_some()).then(|| pk.row().road as f32 * factor);
        Some(Rate { full: base * factor, road, why })
    }

    /// PK9: the slowest ground any of the footprints stands in: its factor and name.
    pub fn ground(&self, s: &Situation, stands: &[Footprint]) -> (f32, Option<String>) {
        let mut worst = (1.0, None);
        for f in s.features() {
            let t = &s.terrain()[f.index];
            let Some((factor, words)) = moves::ground_factor(t) else { continue };
            if factor >= worst.0 {
                continue;
            }
            let touches = match &f.outline {
                Outline::Area(poly) => stands.iter().any(|st| st.corners().iter().chain([&st.centre]).any(|&p| crate::picture::inside(poly, p))),
                Outline::Ribbon { path, half_width } => stands.iter().any(|st| crate::table::geom::point_polyline_distance(st.centre, path) <= *half_width + st.depth / 2.0),
                Outline::Line(_) => false,
            };
            if touches {
                worst = (factor, Some(format!("{words}: {}", t.name())));
            }
        }
        worst
    }

    // ---- the checks, one an action ----

    /// Orders wait while a question is open and end with the game.
    fn open_to_orders(&self) -> Result<(), Refusal> {
        if self.over {
            return refuse("1", "the game is over: the turn limit has passed");
        }
        if let Some(a) = self.asked {
            return refuse(question_rule(&a.question), format!("first answer: {}", self.question_text(&a.question)));
        }
        Ok(())
    }

    /// A unit of the side whose step `want` is now.
    fn own_unit(&self, name: &str, rule: &str, want: fn(Step) -> bool, what: &str) -> Result<Entity, Refusal> {
        self.open_to_orders()?;
        let e = self.find(name)?;
        if !want(self.current()) {
            return refuse(rule, format!("{what} is not an order of the {} step (PK1)", step_name(self.current())));
        }
        let side = self.unit(e).map_or(0, |u| u.side);
        if Some(side) != self.acting_side() {
            return refuse(rule, format!("{name} is {}'s: the {} step is {}'s (PK1)", self.side_name(side), step_name(self.current()), self.side_name(self.acting_side().unwrap_or(0))));
        }
        Ok(e)
    }

    /// May this unit move now, and how far in all (PK2, PK5–PK8)?
    pub fn may_move(&self, name: &str) -> Result<(Entity, Rate), Refusal> {
        let e = self.own_unit(name, "6", |s| matches!(s, Step::Move(_) | Step::Reserve(_)), "a move")?;
        let pk = self.pk(e).expect("every unit has a state");
        if pk.status == Status::Routed {
            return refuse("8", format!("{name} is routing: it routs in its own move step and takes no orders"));
        }
        if self.engaged(e) {
            return refuse("19", format!("{name} is in melee: it fights in the melee step"));
        }
        if let Some(sq) = self.shelter_of(e) {
            return refuse("4", format!("{name}'s crews shelter in {}'s square: form it unlimbered to bring them out first", self.name(sq)));
        }
        if matches!(self.current(), Step::Reserve(_)) && (pk.moved || pk.fired || pk.meleed || pk.reserve_moved) {
            return refuse("2", format!("{name} moved, fired or fought this turn: only units that did none of these make a reserve move"));
        }
        if self.row_of(e).is_gun() && pk.functions >= 2 {
            return refuse("4", format!("{name} has done its two functions this turn"));
        }
        let Some(rate) = self.rate(e) else { return refuse("6", format!("the card gives {} no rate in {}", pk.row().row, formation_name(self.unit(e).expect("found").formation))) };
        if pk.spent >= rate.full.max(rate.road.unwrap_or(0.0)) - EPS {
            return refuse("6", format!("{name} has spent its move this turn ({})", inches(pk.spent)));
        }
        Ok((e, rate))
    }

    pub(super) fn row_of(&self, e: Entity) -> &'static ClassRow {
        self.pk(e).map_or_else(|| card::row(PurkyClass::Regulars), |p| p.row())
    }

    /// PK6–PK9: a move of the unit by today's move steps, measured by the table: the rest of
    /// its rate, half backward (an about face in column or line, PK7), slowed by the worst
    /// ground it starts or ends in, plus half the rate for a linear obstacle; never into contact
    /// with an enemy (that is a charge, PK18).
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<Placed, Refusal> {
        let (e, rate) = self.may_move(name)?;
        let pk = self.pk(e).expect("checked");
        if steps.is_empty() {
            return refuse("6", "a move needs at least one step");
        }
        if steps.len() > MOST_STEPS {
            return Err(Refusal::unruled(PK, format!("{} steps is no move a player orders (at most {MOST_STEPS})", steps.len())));
        }
        for step in steps {
            let numbers: Vec<f32> = match step {
                MoveStep::Forward(d) | MoveStep::SideStep(d) => vec![*d],
                MoveStep::Oblique { angle, distance } => vec![*angle, *distance],
                MoveStep::Wheel { angle, .. } => vec![*angle],
                MoveStep::Path(points) => points.iter().flat_map(|p| [p.x, p.y]).collect(),
                MoveStep::Stands(list) => list.iter().flat_map(|m| [m.to.x, m.to.y, m.facing]).collect(),
                MoveStep::AboutFace => Vec::new(),
                MoveStep::ChangeFormation(_) => return refuse("7", "a change of formation is its own order"),
                _ => return refuse("6", format!("{step}: Purky's card has no such manoeuvre")),
            };
            if numbers.iter().any(|x| !x.is_finite() || x.abs() > 10_000.0) {
                return Err(Refusal::unruled(PK, format!("{step}: not a number a table can measure")));
            }
        }
        let s = self.situation();
        let i = s.find(name).map_err(|why| Refusal::unruled(PK, why))?;
        let unit = s.unit(i);
        let mut notes = rate.why.clone();
        let mut factor = 1.0;
        let formed = matches!(unit.formation, Formation::Line | Formation::Column | Formation::AttackColumn);
        if formed && steps.iter().any(|st| matches!(st, MoveStep::AboutFace)) {
            factor *= 0.5;
            notes.push(("backward in column or line: half".into(), "7"));
        }
        let (start_ground, start_name) = self.ground(s, &unit.footprints());
        let left = |full: f32| (full * factor * start_ground - pk.spent).max(0.0);
        let allowance = Allowance { full: left(rate.full), road: rate.road.map(left) };
        let plan = movement::plan_move(s, i, steps, allowance, &MOVES);
        if let Some(p) = &plan.problem {
            return refuse(p.section, p.reason.clone());
        }
        if plan.off_table || plan.stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("6", format!("{name} would leave the table"));
        }
        let (end_ground, end_name) = self.ground(s, &plan.stands);
        let ground = start_ground.min(end_ground);
        if let Some(g) = start_name.or(end_name).filter(|_| ground < 1.0) {
            notes.push((format!("{g}: ×{ground}"), "9"));
        }
        let obstacle = self.obstacle_crossed(s, &unit.footprints(), &plan.stands);
        let extra = obstacle.as_ref().map_or(0.0, |_| rate.full * factor * ground / 2.0);
        if let Some(o) = &obstacle {
            notes.push((format!("crossing {o}: half the rate, {}", inches(extra)), "9"));
        }
        let most = if plan.road_bonus { rate.road.unwrap_or(rate.full) } else { rate.full } * factor * ground;
        let spent = plan.spent + extra;
        if pk.spent + spent > most + EPS {
            return refuse("6", format!("{name} may move {} in all this turn ({}); this move costs {} after {} spent", inches(most), notes.iter().map(|n| n.0.as_str()).collect::<Vec<_>>().join("; "), inches(spent), inches(pk.spent)));
        }
        if let Some(enemy) = self.touching_enemy(s, i, &plan.stands) {
            return refuse("18", format!("{name} would end in contact with {enemy}: contact is made by a charge"));
        }
        Ok(Placed { unit: e, stands: plan.stands, formation: unit.formation, inches: spent, notes })
    }

    /// PK9: the first linear obstacle a stand's centre crosses between two placings.
    fn obstacle_crossed(&self, s: &Situation, from: &[Footprint], to: &[Footprint]) -> Option<String> {
        s.features().iter().find_map(|f| {
            let t = &s.terrain()[f.index];
            let path = match &f.outline {
                Outline::Line(path) | Outline::Ribbon { path, .. } if moves::obstacle(t) => path,
                _ => return None,
            };
            from.iter().zip(to).any(|(a, b)| path.windows(2).any(|w| segment_crossing(a.centre, b.centre, w[0], w[1]).is_some())).then(|| t.name().to_string())
        })
    }

    fn touching_enemy(&self, s: &Situation, i: usize, stands: &[Footprint]) -> Option<String> {
        let side = s.unit(i).side;
        s.units().iter().filter(|o| o.side != side).find(|o| o.stands.iter().any(|st| stands.iter().any(|f| f.distance(&st.footprint) < contact::CONTACT_REACH))).map(|o| o.name.clone())
    }

    /// PK6, PK7: a change of formation, for half the new formation's rate, in the move step;
    /// PK4: guns limber and unlimber as one of their two functions.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<Placed, Refusal> {
        let e = self.own_unit(name, "7", |s| matches!(s, Step::Move(_)), "a change of formation")?;
        let (u, pk) = (self.unit(e).expect("found"), self.pk(e).expect("found"));
        if pk.status == Status::Routed {
            return refuse("8", format!("{name} is routing: it takes no orders"));
        }
        if self.engaged(e) {
            return refuse("19", format!("{name} is in melee"));
        }
        if u.formation == to {
            return refuse("7", format!("{name} is already in {}", formation_name(to)));
        }
        let row = pk.row();
        if row.is_gun() && (to == Formation::Square || u.formation == Formation::Square) {
            return self.check_shelter(e, to);
        }
        let Some(new_rate) = card::rate(pk.class, to) else {
            let why = if to == Formation::Square { " (only grenadiers, lights, regulars and Continentals have a square rate)" } else { "" };
            return refuse("6", format!("the card gives {} no rate in {}{why}", row.row, formation_name(to)));
        };
        let gun = row.is_gun();
        if gun && !matches!(to, Formation::Limbered | Formation::Unlimbered) || !gun && matches!(to, Formation::Limbered | Formation::Unlimbered) {
            return refuse("6", format!("{} cannot form {}", row.row, formation_name(to)));
        }
        let mut notes = Vec::new();
        let cost = if gun {
            if pk.functions >= 2 {
                return refuse("4", format!("{name} has done its two functions this turn"));
            }
            notes.push(("a gun's function (limber or unlimber): no inches".to_string(), "4"));
            0.0
        } else {
            let cost = new_rate as f32 / 2.0;
            if pk.spent + cost > new_rate as f32 + EPS {
                return refuse("7", format!("forming {} costs {} (half its rate) and {name} has spent {} of that rate's {}", formation_name(to), inches(cost), inches(pk.spent), inches(new_rate as f32)));
            }
            notes.push((format!("half the {} rate: {}", formation_name(to), inches(cost)), "7"));
            cost
        };
        let s = self.situation();
        let i = s.find(name).map_err(|why| Refusal::unruled(PK, why))?;
        let arc = Arc::of_unit(s.unit(i)).ok_or_else(|| Refusal::unruled(PK, format!("{name} has no stands")))?;
        let at = (arc.front_left + arc.front_right) / 2.0;
        let m = self.model(e).ok_or_else(|| Refusal::unruled(PK, format!("{name} is not in the scenario")))?;
        let figures: Vec<u32> = u.stands.iter().filter_map(|&st| self.world.get::<Stand>(st).map(|x| x.figures)).collect();
        let stands = relay_stands(m, &figures, to, at, arc.facing, &self.scenario.basing).map_err(|why| Refusal::by(PK.cite("25"), why))?;
        if stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("7", format!("{name} in {} would not fit on the table", formation_name(to)));
        }
        if let Some(o) = s.units().iter().enumerate().filter(|(j, _)| *j != i).find(|(_, o)| o.stands.iter().any(|st| stands.iter().any(|f| f.overlaps(&st.footprint, TOUCH)))) {
            return refuse("7", format!("{name} in {} would stand on {}", formation_name(to), o.1.name));
        }
        Ok(Placed { unit: e, stands, formation: to, inches: cost, notes })
    }

    /// PK4: the card's "•" under Square: a light gun or amusette, unlimbered beside a friendly
    /// square (a stand within 1"), sends its crews into it as one of its two functions; while
    /// they shelter it neither moves nor fires, and is neither fired at nor charged (the square
    /// is the target). Forming it unlimbered again brings them out (a function).
    fn check_shelter(&self, e: Entity, to: Formation) -> Result<Placed, Refusal> {
        let (u, pk) = (self.unit(e).expect("found"), self.pk(e).expect("found"));
        let name = u.name.clone();
        if pk.functions >= 2 {
            return refuse("4", format!("{name} has done its two functions this turn"));
        }
        let stands = spawn::unit_footprints(&self.world, u);
        if u.formation == Formation::Square {
            if to != Formation::Unlimbered {
                return refuse("4", format!("{name}'s crews shelter in a square: they come out to their unlimbered guns first"));
            }
            let notes = vec![("the crews come out of the square to their guns: a gun's function".to_string(), "4")];
            return Ok(Placed { unit: e, stands, formation: to, inches: 0.0, notes });
        }
        if !pk.row().square_shelter {
            return refuse("4", format!("only light guns and amusettes shelter in a square (the card's \"•\"); {} has no square", pk.row().row));
        }
        if u.formation != Formation::Unlimbered {
            return refuse("4", format!("{name} is limbered: its crews shelter from their unlimbered guns"));
        }
        let Some(sq) = self.square_beside(e) else {
            return refuse("4", format!("no friendly square stands within 1\" of {name}"));
        };
        let notes = vec![(format!("the crews shelter in {}'s square: a gun's function", self.name(sq)), "4")];
        Ok(Placed { unit: e, stands, formation: Formation::Square, inches: 0.0, notes })
    }

    /// PK4: the nearest friendly square, not routing, with a stand within 1" of the gun's.
    pub fn square_beside(&self, gun: Entity) -> Option<Entity> {
        let u = self.unit(gun)?;
        let mine = spawn::unit_footprints(&self.world, u);
        self.live_units()
            .filter(|&(o, ou)| o != gun && ou.side == u.side && ou.formation == Formation::Square && self.pk(o).is_some_and(|p| p.status != Status::Routed && !p.row().is_gun()))
            .filter_map(|(o, ou)| {
                let d = spawn::unit_footprints(&self.world, ou).iter().flat_map(|f| mine.iter().map(move |m| m.distance(f))).fold(f32::INFINITY, f32::min);
                (d <= SHELTER + EPS).then_some((d, o))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, o)| o)
    }

    /// PK4: the square a gun's crews shelter in.
    pub fn shelter_of(&self, gun: Entity) -> Option<Entity> {
        self.shelters.iter().find(|(g, _)| *g == gun).map(|&(_, sq)| sq)
    }

    /// PK4, PK28: after every order, crews in a square that broke (routed or removed) have lost
    /// their guns; a square that moved off or changed formation sends them back to the guns.
    fn settle_shelters(&mut self, report: &mut Report) {
        for (gun, sq) in self.shelters.clone() {
            if self.unit(gun).is_none() {
                self.shelters.retain(|&(g, _)| g != gun);
                continue;
            }
            let (gname, sname) = (self.name(gun), self.name(sq));
            if self.unit(sq).is_none() || self.status(sq) == Status::Routed {
                self.shelters.retain(|&(g, _)| g != gun);
                self.remove(gun);
                report.change("28", format!("{sname}'s square broke with {gname}'s crews in it: the guns are abandoned (removed)"));
            } else if self.unit(sq).is_some_and(|u| u.formation != Formation::Square) || self.square_beside(gun) != Some(sq) {
                self.shelters.retain(|&(g, _)| g != gun);
                let stands = self.unit(gun).map(|u| spawn::unit_footprints(&self.world, u)).unwrap_or_default();
                self.place(&Placed { unit: gun, stands, formation: Formation::Unlimbered, inches: 0.0, notes: Vec::new() });
                report.change("4", format!("{sname} is no longer a square beside {gname}: its crews come out to their guns"));
            }
        }
    }

    /// PK11: skirmishers charged fire at the charger before evading half a move: their pool,
    /// or why they cannot.
    pub fn evade_fire(&self, unit: Entity, charger: Entity) -> Result<super::combat::Shot, Refusal> {
        let (name, target) = (self.name(unit), self.name(charger));
        if self.pk(unit).is_some_and(|p| p.fired) {
            return refuse("11", format!("{name} has fired this turn"));
        }
        let s = self.situation();
        let (Ok(i), Ok(j)) = (s.find(&name), s.find(&target)) else { return Err(Refusal::unruled(PK, "no stands on the table")) };
        let pool = self.fire_pool(s, unit, i, j).map_err(|r| Refusal::by(PK.cite("11"), format!("{name} cannot fire and evade: {}", r.reason)))?;
        Ok(super::combat::Shot { firer: unit, target: charger, range: crate::table::range::unit_distance(s, i, j), pool })
    }

    pub(super) fn model(&self, e: Entity) -> Option<&model::Unit> {
        let name = &self.unit(e)?.name;
        self.scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).find(|m| &m.name == name)
    }

    /// PK18, PK19, PK25: a charge in the move step by a steady unit that has not moved, into
    /// contact with an enemy within its rate, along the table's path to contact.
    pub fn check_charge(&self, name: &str, target: &str) -> Result<ChargePlan, Refusal> {
        let (e, rate) = self.may_move(name)?;
        if matches!(self.current(), Step::Reserve(_)) {
            return refuse("2", "a reserve move may not go into contact");
        }
        let pk = self.pk(e).expect("checked");
        if pk.status != Status::Steady {
            return refuse("25", format!("{name} is shaken: shaken units do not charge"));
        }
        if pk.row().is_gun() {
            return refuse("18", "guns do not charge");
        }
        if pk.moved || pk.spent > 0.0 {
            return refuse("18", format!("{name} has moved this turn: a charge is its whole move"));
        }
        let t = self.find(target)?;
        if self.unit(t).is_some_and(|tu| tu.side == self.unit(e).map_or(0, |u| u.side)) {
            return refuse("18", format!("{target} is a friend"));
        }
        if self.engaged(t) {
            return refuse("18", format!("{target} is already in melee"));
        }
        if let Some(sq) = self.shelter_of(t) {
            return refuse("4", format!("{target}'s crews shelter in {}'s square: charge the square", self.name(sq)));
        }
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(name), s.find(target)) else { return Err(Refusal::unruled(PK, "no stands on the table")) };
        let path = contact::charge_path(s, a, b, &MOVES);
        if let Some(p) = &path.problem {
            return refuse(p.section, format!("{name} cannot reach {target}: {}", p.reason));
        }
        if let Some(w) = path.interpenetrates.first() {
            return refuse("6", format!("{name} cannot reach {target}: {w} is in the way"));
        }
        let (ground, gname) = self.ground(s, &s.unit(a).footprints());
        let most = rate.full * ground;
        let extra = self.obstacle_crossed(s, &path.start, &path.stands).map_or(0.0, |_| rate.full * ground / 2.0);
        if path.distance + extra > most + EPS {
            let g = gname.map_or(String::new(), |g| format!(", {g}"));
            return refuse("6", format!("{target} is {} away by the path to contact{}; {name} moves {}{g}", inches(path.distance), if extra > 0.0 { format!(" and an obstacle costs {}", inches(extra)) } else { String::new() }, inches(most)));
        }
        let flank = path.zone != crate::table::aspect::AttackZone::Front;
        let mut notes = rate.why.clone();
        notes.push((format!("{} to contact", inches(path.distance + extra)), "18"));
        Ok(ChargePlan {
            placed: Placed { unit: e, stands: path.stands.clone(), formation: s.unit(a).formation, inches: path.distance + extra, notes },
            target: t,
            engagement: Engagement { charger: e, target: t, flank, climbed: path.climbed_slope, descended: path.descended_slope },
        })
    }

    /// PK25: a leader rides up to 24" a turn, in his side's move step.
    pub fn check_leader(&self, leader: &str, to: Vec2) -> Result<(Entity, f32), Refusal> {
        self.open_to_orders()?;
        let Some((e, c)) = self.world.try_query::<(Entity, &Commander)>().and_then(|mut q| q.iter(&self.world).find(|(_, c)| c.name == leader).map(|(e, c)| (e, c.clone()))) else {
            if self.lost_leaders.iter().any(|n| n == leader) {
                return refuse("25", format!("{leader} was lost: he is not replaced"));
            }
            return Err(Refusal::unruled(PK, format!("no leader named \"{leader}\"")));
        };
        if !matches!(self.current(), Step::Move(_)) {
            return refuse("25", "leaders ride in their side's move step");
        }
        if Some(c.side) != self.acting_side() {
            return refuse("1", format!("{leader} is {}'s: it is {}'s move step", self.side_name(c.side), self.side_name(self.acting_side().unwrap_or(0))));
        }
        if !to.is_finite() || !self.situation().on_table(to) {
            return refuse("25", format!("{leader} would ride off the table"));
        }
        let ridden = self.rides.iter().find(|(l, _)| *l == e).map_or(0.0, |r| r.1);
        let d = c.at.distance(to);
        if ridden + d > LEADER_MOVE + EPS {
            return refuse("25", format!("{leader} rides 24\" a turn: {} ridden, this ride is {}", inches(ridden), inches(d)));
        }
        Ok((e, d))
    }

    /// The point where a leader joining `unit` stands: its middle stand's centre.
    pub fn join_point(&self, unit: &str) -> Result<Vec2, Refusal> {
        let e = self.find(unit)?;
        let u = self.unit(e).expect("found");
        let stands = spawn::unit_footprints(&self.world, u);
        stands.get(stands.len() / 2).map(|f| f.centre).ok_or_else(|| Refusal::unruled(PK, format!("{unit} has no stands")))
    }

    pub fn check_join(&self, leader: &str, unit: &str) -> Result<(Entity, f32, Vec2), Refusal> {
        let to = self.join_point(unit)?;
        let e = self.find(unit)?;
        let (l, d) = self.check_leader(leader, to)?;
        if self.world.get::<Commander>(l).map(|c| c.side) != self.unit(e).map(|u| u.side) {
            return refuse("20", format!("{leader} joins only units of his own side"));
        }
        Ok((l, d, to))
    }

    /// The answer to the open question.
    pub fn check_answer(&self, prompt: u32, option: u32) -> Result<Question, Refusal> {
        if self.over {
            return refuse("1", "the game is over");
        }
        let Some(a) = self.asked else { return refuse("1", "no question is open") };
        if prompt != a.id {
            return refuse(question_rule(&a.question), format!("question {prompt} is not the open one (question {})", a.id));
        }
        let n = a.question.answers().len() as u32;
        if option >= n {
            return refuse(question_rule(&a.question), format!("question {prompt} has {n} answers, 0 to {}", n - 1));
        }
        if let (Question::Evade { unit, charger }, 2) = (a.question, option) {
            self.evade_fire(unit, charger)?;
        }
        Ok(a.question)
    }

    /// PK1: `Next` ends the step (and rolls the initiative in its step).
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
            Action::MoveLeader { leader, to } => self.check_leader(leader, *to).map(drop),
            Action::JoinUnit { leader, unit } => self.check_join(leader, unit).map(drop),
            Action::Answer { prompt, option } => self.check_answer(*prompt, *option).map(drop),
            Action::Next => self.check_next(),
            other => refuse("1", format!("{other}: not an order of Purky's rules")),
        }
    }

    // ---- applying ----

    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let mut report = match &action {
            Action::Move { unit, steps } => {
                let placed = self.check_move(unit, steps)?;
                let mut report = self.report(&action, format!("{unit} moves (PK6)"));
                for (n, rule) in &placed.notes {
                    report.note(rule, n.clone());
                }
                report.outcome = format!("{unit} moves, spending {}", inches(placed.inches));
                self.place(&placed);
                let reserve = matches!(self.current(), Step::Reserve(_));
                let gun = self.row_of(placed.unit).is_gun();
                self.mark(placed.unit, |m| {
                    m.spent += placed.inches;
                    m.moved |= !reserve;
                    m.reserve_moved |= reserve;
                    if gun {
                        m.functions += 1;
                    }
                });
                report.change("6", report.outcome.clone());
                report
            }
            Action::ChangeFormation { unit, formation } => {
                let placed = self.check_formation(unit, *formation)?;
                let mut report = self.report(&action, format!("{unit} forms {} (PK7)", formation_name(*formation)));
                for (n, rule) in &placed.notes {
                    report.note(rule, n.clone());
                }
                let square = (placed.formation == Formation::Square).then(|| self.square_beside(placed.unit)).flatten();
                self.place(&placed);
                let gun = self.row_of(placed.unit).is_gun();
                self.shelters.retain(|&(g, _)| g != placed.unit);
                if let Some(sq) = square.filter(|_| gun) {
                    self.shelters.push((placed.unit, sq));
                }
                self.mark(placed.unit, |m| {
                    m.spent += placed.inches;
                    m.moved = true;
                    if gun {
                        m.functions += 1;
                    }
                });
                report.outcome = format!("{unit} is in {}", formation_name(*formation));
                report.change("7", report.outcome.clone());
                report
            }
            Action::Fire { unit, target } => {
                let shot = self.check_fire(unit, target)?;
                self.fire(&action, shot)
            }
            Action::Charge { unit, target } => {
                let plan = self.check_charge(unit, target)?;
                self.charge(&action, plan)
            }
            Action::MoveLeader { leader, to } => {
                let (l, d) = self.check_leader(leader, *to)?;
                self.ride(&action, l, d, *to, format!("{leader} rides {}", inches(d)))
            }
            Action::JoinUnit { leader, unit } => {
                let (l, d, to) = self.check_join(leader, unit)?;
                self.ride(&action, l, d, to, format!("{leader} joins {unit} (PK20: one more morale die)"))
            }
            Action::Answer { prompt, option } => {
                let q = self.check_answer(*prompt, *option)?;
                self.answer(&action, q, *option)
            }
            Action::Next => {
                self.check_next()?;
                self.next(&action)
            }
            other => return self.check(other).and_then(|()| refuse("1", format!("{other}: not an order of Purky's rules"))),
        };
        self.settle_shelters(&mut report);
        self.actions.push(action);
        self.reports.push(report.clone());
        Ok(report)
    }

    pub(super) fn report(&self, action: &Action, title: String) -> Report {
        Report::new(PK, self.turn, action.clone(), title)
    }

    pub(super) fn mark(&mut self, e: Entity, f: impl FnOnce(&mut PkState)) {
        if let Some(mut m) = self.world.get_mut::<PkState>(e) {
            f(&mut m);
        }
    }

    pub(super) fn place(&mut self, placed: &Placed) {
        self.table_changed();
        let Some(mut unit) = self.world.get_mut::<Unit>(placed.unit) else { return };
        unit.formation = placed.formation;
        let stands = unit.stands.clone();
        for (s, f) in stands.into_iter().zip(&placed.stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
    }

    fn ride(&mut self, action: &Action, leader: Entity, d: f32, to: Vec2, title: String) -> Report {
        let mut report = self.report(action, format!("{title} (PK25)"));
        if let Some(mut c) = self.world.get_mut::<Commander>(leader) {
            c.at = to;
        }
        match self.rides.iter_mut().find(|(l, _)| *l == leader) {
            Some(r) => r.1 += d,
            None => self.rides.push((leader, d)),
        }
        report.outcome = title;
        report.change("25", report.outcome.clone());
        report
    }

    fn charge(&mut self, action: &Action, plan: ChargePlan) -> Report {
        let (name, target) = (self.name(plan.placed.unit), self.name(plan.target));
        let mut report = self.report(action, format!("{name} charges {target} (PK18)"));
        for (n, rule) in &plan.placed.notes {
            report.note(rule, n.clone());
        }
        if plan.engagement.flank {
            report.note("18", format!("{name} strikes {target}'s flank or rear"));
        }
        self.place(&plan.placed);
        self.mark(plan.placed.unit, |m| {
            m.moved = true;
            m.charged = true;
            m.spent = f32::MAX / 4.0;
        });
        let t = self.pk(plan.target).expect("checked");
        if t.status == Status::Routed {
            self.remove(plan.target);
            report.outcome = format!("{target} was routing: contacted by a charge, it is removed");
            report.change("19", report.outcome.clone());
        } else if self.unit(plan.target).is_some_and(|u| u.formation == Formation::Skirmish) {
            self.melees.push(plan.engagement);
            self.ask(Question::Evade { unit: plan.target, charger: plan.placed.unit });
            report.outcome = format!("{name} reaches {target}: its skirmishers may evade");
            report.note("11", format!("{} must answer: evade a full move and test morale, or stand?", self.side_name(self.unit(plan.target).map_or(0, |u| u.side))));
        } else {
            self.melees.push(plan.engagement);
            report.outcome = format!("{name} is in contact with {target}: they fight in the melee step");
            report.change("18", report.outcome.clone());
        }
        report
    }

    pub(super) fn ask(&mut self, question: Question) {
        self.questions += 1;
        self.asked = Some(Asked { id: self.questions, question });
    }

    fn answer(&mut self, action: &Action, q: Question, option: u32) -> Report {
        self.asked = None;
        match q {
            Question::Initiative { winner } => {
                self.side_a = if option == 0 { winner } else { 1 - winner };
                let mut report = self.report(action, format!("{} chooses to {} (PK1)", self.side_name(winner), INITIATIVE_ANSWERS[option as usize]));
                report.outcome = format!("{} is Side A (moves first), {} Side B (fires first)", self.side_name(self.side_a), self.side_name(1 - self.side_a));
                report.change("1", report.outcome.clone());
                self.advance(&mut report);
                report
            }
            Question::Rally { unit } => {
                let name = self.name(unit);
                let mut report = self.report(action, format!("{name}: {} (PK23)", RALLY_ANSWERS[option as usize]));
                self.mark(unit, |m| m.rally_asked = true);
                if option == 0 {
                    self.rally(unit, &mut report);
                } else {
                    report.outcome = format!("{name} does not try to rally");
                }
                self.ask_rally();
                report
            }
            Question::Evade { unit, charger } => {
                let name = self.name(unit);
                let mut report = self.report(action, format!("{name}: {} (PK11)", EVADE_ANSWERS[option as usize]));
                if option == 2 {
                    let shot = self.evade_fire(unit, charger).expect("checked");
                    self.melees.retain(|m| m.target != unit);
                    report.note("11", format!("{name} fires at {} before evading", self.name(charger)));
                    self.fire_into(&shot, &mut report);
                    let half = self.rate(unit).map_or(0.0, |r| r.full / 2.0);
                    if self.unit(unit).is_some() && self.unit(charger).is_some() {
                        self.fall_back(unit, charger, half, "11", &mut report);
                    }
                    if self.unit(unit).is_some() {
                        self.morale_test(unit, None, &mut report);
                    }
                    report.outcome = format!("{name} fires and evades {}", inches(half));
                } else if option == 0 {
                    self.melees.retain(|m| m.target != unit);
                    let full = self.rate(unit).map_or(0.0, |r| r.full);
                    self.fall_back(unit, charger, full, "11", &mut report);
                    if self.unit(unit).is_some() {
                        self.morale_test(unit, None, &mut report);
                    }
                    report.outcome = format!("{name} evades {}", inches(full));
                } else {
                    report.outcome = format!("{name} stands: it fights in the melee step");
                }
                report
            }
        }
    }

    /// PK1: go on to the next step; the initiative step rolls first.
    fn next(&mut self, action: &Action) -> Report {
        let step = self.current();
        let mut report = self.report(action, format!("end of the {} step (PK{})", step_name(step), step.rule()));
        match step {
            Step::Initiative => {
                self.roll_initiative(&mut report);
                return report;
            }
            Step::Fire(Team::A) => self.morale_after_fire(&mut report),
            Step::Melee => self.resolve_melees(&mut report),
            _ => {}
        }
        self.advance(&mut report);
        report
    }

    /// PK1: each side's C-in-C rolls a d10, +1 exceptional or aggressive; ties roll again.
    fn roll_initiative(&mut self, report: &mut Report) {
        report.title = format!("Turn {}: the initiative (PK1)", self.turn);
        loop {
            let mut scores = [0i32; 2];
            for (side, score) in scores.iter_mut().enumerate() {
                let roll = super::combat::d10s(&mut self.dice, 1);
                let bonus = self.initiative_bonus(side);
                *score = roll.faces[0] as i32 + i32::from(bonus.is_some());
                report.die("1", format!("{}'s initiative (d10 read 1–10)", self.side_name(side)), &roll);
                if let Some(c) = bonus {
                    report.modifier("1", format!("{c}, exceptional or aggressive"), 1);
                }
            }
            if scores[0] != scores[1] {
                let winner = usize::from(scores[1] > scores[0]);
                report.outcome = format!("{} wins the initiative {}–{}: it chooses to move first or fire first", self.side_name(winner), scores[winner], scores[1 - winner]);
                self.ask(Question::Initiative { winner });
                return;
            }
            report.note("1", format!("a tie at {}: both roll again", scores[0]));
        }
    }

    /// Into the next step (or the next turn), doing what entering it does.
    fn advance(&mut self, report: &mut Report) {
        if self.live_sides() < 2 {
            self.end(report);
            return;
        }
        self.step += 1;
        if self.step == STEPS.len() {
            if self.scenario.turn_limit.is_some_and(|l| self.turn >= l) {
                self.step = STEPS.len() - 1;
                self.end(report);
                return;
            }
            self.turn += 1;
            self.step = 0;
            self.rides.clear();
            for e in self.units.clone() {
                self.mark(e, |m| {
                    m.spent = 0.0;
                    m.moved = false;
                    m.fired = false;
                    m.meleed = false;
                    m.charged = false;
                    m.functions = 0;
                    m.hit_by_fire = false;
                    m.rally_asked = false;
                    m.reserve_moved = false;
                });
            }
            report.change("1", format!("turn {} begins: roll for the initiative", self.turn));
            return;
        }
        let step = self.current();
        report.change(step.rule(), format!("the {} step", step_name(step)));
        match step {
            Step::Rally(_) => self.ask_rally(),
            Step::Move(t) => {
                // PK8: routers rout again in their own move step.
                let side = self.side_of(t);
                for e in self.units.clone() {
                    if self.unit(e).is_some_and(|u| u.side == side) && self.pk(e).is_some_and(|p| p.status == Status::Routed) {
                        self.rout(e, report);
                    }
                }
            }
            _ => {}
        }
    }

    /// PK23: the next shaken or routed unit of the rallying side not yet asked.
    fn ask_rally(&mut self) {
        let Some(side) = self.acting_side().filter(|_| matches!(self.current(), Step::Rally(_))) else { return };
        let next = self.units.iter().copied().find(|&e| self.unit(e).is_some_and(|u| u.side == side) && self.pk(e).is_some_and(|p| p.status != Status::Steady && !p.rally_asked));
        if let Some(unit) = next {
            self.ask(Question::Rally { unit });
        }
    }

    fn live_sides(&self) -> usize {
        (0..2).filter(|&s| self.live_units().any(|(_, u)| u.side == s)).count()
    }

    fn end(&mut self, report: &mut Report) {
        self.over = true;
        let summary = self.summary().expect("the game is over");
        report.outcome = format!("the game is over after turn {}: {}", self.turn, summary.result.clone().unwrap_or_default());
        report.change("25", report.outcome.clone());
        report.summary = Some(summary);
    }

    /// Takes figures from the rear stands first, removing emptied stands (PK17). Figures lost.
    pub(super) fn lose_figures(&mut self, e: Entity, n: u32) -> u32 {
        self.table_changed();
        let Some(unit) = self.unit(e) else { return 0 };
        let mut stands = unit.stands.clone();
        let mut owed = n;
        while owed > 0 {
            let Some(&s) = stands.last() else { break };
            let Some(mut st) = self.world.get_mut::<Stand>(s) else { break };
            let take = owed.min(st.figures);
            st.figures -= take;
            owed -= take;
            if st.figures == 0 {
                self.world.despawn(s);
                stands.pop();
            }
        }
        let lost = n - owed;
        let mut unit = self.world.get_mut::<Unit>(e).expect("read above");
        unit.figures = unit.figures.saturating_sub(lost);
        unit.stands = stands;
        self.mark(e, |m| m.hits += lost);
        lost
    }

    /// PK24: removed at one infantry stand (4 figures) or two cavalry stands (4 figures), a
    /// skirmish line at one figure, guns with no gunner: the reason, when so.
    pub fn removal_due(&self, e: Entity) -> Option<String> {
        let (u, pk) = (self.unit(e)?, self.pk(e)?);
        if u.figures == 0 {
            return Some("no figures left".into());
        }
        if pk.hits == 0 {
            return None;
        }
        match u.arm {
            Arm::Artillery { .. } => None,
            _ if u.formation == Formation::Skirmish => (u.figures <= 1).then(|| "reduced to one skirmish figure".into()),
            Arm::Cavalry => (u.figures <= 4).then(|| "reduced to two cavalry stands".into()),
            Arm::Infantry => (u.figures <= 4).then(|| "reduced to one infantry stand".into()),
        }
    }

    /// PK24: remove it if it is due.
    pub(super) fn check_removal(&mut self, e: Entity, report: &mut Report) -> bool {
        let Some(why) = self.removal_due(e) else { return false };
        let name = self.name(e);
        self.remove(e);
        report.change("24", format!("{name} is removed: {why}"));
        true
    }

    pub(super) fn remove(&mut self, e: Entity) {
        self.table_changed();
        let stands = self.unit(e).map(|u| u.stands.clone()).unwrap_or_default();
        for s in stands {
            self.world.despawn(s);
        }
        self.world.despawn(e);
        self.melees.retain(|m| m.charger != e && m.target != e);
        if self.asked.is_some_and(|a| matches!(a.question, Question::Rally { unit } | Question::Evade { unit, .. } if unit == e)) {
            self.asked = None;
        }
    }

    /// The enemy unit nearest `e` (by the table's edge-to-edge distance).
    pub(super) fn nearest_enemy(&self, s: &Situation, i: usize) -> Option<usize> {
        let side = s.unit(i).side;
        (0..s.units().len()).filter(|&o| s.unit(o).side != side).min_by(|&a, &b| crate::table::range::unit_distance(s, i, a).total_cmp(&crate::table::range::unit_distance(s, i, b)))
    }

    /// Moves `e` straight away from `from` by up to `distance`, stopping short of anything in
    /// the way; off the table it is removed. Keeps its facing (PK19: retire facing the enemy).
    pub(super) fn fall_back(&mut self, e: Entity, from: Entity, distance: f32, rule: &str, report: &mut Report) {
        let name = self.name(e);
        let s = self.situation().clone();
        let (Ok(i), Ok(j)) = (s.find(&name), s.find(&self.name(from))) else { return };
        self.fall_back_from(e, &s, i, j, distance, rule, report);
    }

    #[allow(clippy::too_many_arguments)]
    fn fall_back_from(&mut self, e: Entity, s: &Situation, i: usize, j: usize, distance: f32, rule: &str, report: &mut Report) {
        let name = self.name(e);
        let mut path = movement::retreat(s, i, j, distance);
        if path.off_table {
            self.remove(e);
            report.change(rule, format!("{name} falls back off the table and is removed"));
            return;
        }
        if let Some(w) = path.in_the_way.first().cloned() {
            let short = w.after - 0.25;
            if short < 0.25 {
                report.change(rule, format!("{name} cannot fall back: {} is in the way", w.unit));
                return;
            }
            path = movement::retreat(s, i, j, short);
            report.note(rule, format!("{name} stops after {}: {} is in the way", inches(short), w.unit));
        }
        let formation = self.unit(e).map_or(Formation::Line, |u| u.formation);
        self.place(&Placed { unit: e, stands: path.stands, formation, inches: 0.0, notes: Vec::new() });
        report.change(rule, format!("{name} falls back {} (facing the enemy)", inches(distance)));
    }

    /// PK8, PK28: a routed unit runs 16" (cavalry 24") from the nearest enemy; guns routed are
    /// abandoned (their crews run and the guns are lost).
    pub(super) fn rout(&mut self, e: Entity, report: &mut Report) {
        let name = self.name(e);
        if self.row_of(e).is_gun() {
            self.remove(e);
            report.change("28", format!("{name}'s crews rout and abandon their guns: removed"));
            return;
        }
        self.melees.retain(|m| m.charger != e && m.target != e);
        let distance = if self.unit(e).is_some_and(|u| u.arm == Arm::Cavalry) { ROUT_HORSE } else { ROUT_FOOT };
        let s = self.situation().clone();
        let Ok(i) = s.find(&name) else { return };
        let Some(j) = self.nearest_enemy(&s, i) else { return };
        self.fall_back_from(e, &s, i, j, distance, "8", report);
    }

    // ---- the end ----

    /// PK25 (victory from the scenario): objectives held at the end count their points; level on
    /// points, the side that lost the smaller share of its figures wins.
    pub fn summary(&self) -> Option<Summary> {
        if !self.over {
            return None;
        }
        let mut shares = Vec::new();
        let sides: Vec<SideSummary> = self
            .scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let models: Vec<&model::Unit> = side.brigades.iter().flat_map(|b| &b.units).collect();
                let begun: u32 = models.iter().map(|m| m.purky_profile(side).figures.unwrap_or(0)).sum();
                let now: u32 = self.live_units().filter(|(_, u)| u.side == i).map(|(_, u)| u.figures).sum();
                let broken = models.iter().filter(|m| !self.live_units().any(|(_, u)| u.name == m.name)).map(|m| m.name.clone()).collect();
                let held: Vec<&model::Objective> = self.scenario.objectives.iter().filter(|o| self.holds(i, o)).collect();
                shares.push((begun - now) as f64 / begun.max(1) as f64);
                SideSummary {
                    side: side.name.clone(),
                    figures_lost: begun - now,
                    units_broken: broken,
                    units_off_table: Vec::new(),
                    objectives_held: held.iter().map(|o| o.name.clone()).collect(),
                    points: held.iter().map(|o| o.points).sum(),
                }
            })
            .collect();
        let unheld = self.scenario.objectives.iter().filter(|o| !self.holds(0, o) && !self.holds(1, o)).map(|o| o.name.clone()).collect();
        let winner = match sides[0].points.cmp(&sides[1].points) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal if (shares[0] - shares[1]).abs() < 1e-9 => None,
            std::cmp::Ordering::Equal => Some(usize::from(shares[1] < shares[0])),
        };
        let result = match winner {
            Some(w) => format!("{} wins: {} objective points to {}, {:.0}% of its figures lost to {:.0}% (PK25)", sides[w].side, sides[w].points, sides[1 - w].points, 100.0 * shares[w], 100.0 * shares[1 - w]),
            None => "a draw (PK25)".to_string(),
        };
        Some(Summary { turns_played: self.turn, sides, objectives_unheld: unheld, winner, result: Some(result) })
    }

    /// A side holds an objective with a unit of it within the radius and no enemy there.
    fn holds(&self, side: usize, o: &model::Objective) -> bool {
        let at = Vec2::from(o.at);
        let near = |s: usize| self.live_units().any(|(_, u)| u.side == s && spawn::unit_footprints(&self.world, u).iter().any(|f| distance_to_stand(f, at) <= o.radius));
        near(side) && !near(1 - side)
    }
}

/// A step in words.
pub fn step_name(step: Step) -> String {
    let t = |t: Team| if t == Team::A { "A" } else { "B" };
    match step {
        Step::Initiative => "initiative".into(),
        Step::Rally(x) => format!("rally, Side {}", t(x)),
        Step::Move(x) => format!("movement, Side {}", t(x)),
        Step::Fire(x) => format!("fire, Side {}", t(x)),
        Step::Melee => "melee".into(),
        Step::Reserve(x) => format!("reserve moves, Side {}", t(x)),
    }
}

pub(super) fn question_rule(q: &Question) -> &'static str {
    match q {
        Question::Initiative { .. } => "1",
        Question::Rally { .. } => "23",
        Question::Evade { .. } => "11",
    }
}

impl Game {
    pub fn question_text(&self, q: &Question) -> String {
        match *q {
            Question::Initiative { winner } => format!("{} won the initiative: move first or fire first?", self.side_name(winner)),
            Question::Rally { unit } => {
                let status = self.pk(unit).map_or(Status::Shaken, |p| p.status);
                format!("{} is {}: roll 2d10 to rally?", self.name(unit), if status == Status::Routed { "routing" } else { "shaken" })
            }
            Question::Evade { unit, charger } => format!("{} is charged by {}: evade a full move (and test morale), or stand?", self.name(unit), self.name(charger)),
        }
    }
}

/// PK25: the stands of a unit at Purky's scale: 4 infantry figures a stand (a remainder on a
/// last stand), 2 cavalry, one gun stand; laid out by the scenario's basing helpers.
pub fn relay(m: &model::Unit, figures: u32, formation: Formation, at: Vec2, facing: f32, b: &model::Basing) -> Result<Vec<(Footprint, u32)>, String> {
    let per = match m.arm {
        Arm::Infantry => 4,
        Arm::Cavalry => 2,
        Arm::Artillery { .. } => figures.max(1),
    };
    let mut list = vec![per; (figures / per) as usize];
    if !figures.is_multiple_of(per) {
        list.push(figures % per);
    }
    let stands = relay_stands(m, &list, formation, at, facing, b)?;
    Ok(stands.into_iter().zip(list).collect())
}

/// Footprints for stands carrying `figures` each, in `formation` with the front centre at `at`:
/// `basing::layout` of full stands, each narrowed to Purky's frontage (not a square's faces).
pub fn relay_stands(m: &model::Unit, figures: &[u32], formation: Formation, at: Vec2, facing: f32, b: &model::Basing) -> Result<Vec<Footprint>, String> {
    let mut blank = m.clone();
    blank.formation = formation;
    blank.at = at.to_array();
    blank.facing = facing;
    // PK6: skirmishers 2" apart once narrowed.
    blank.gap = (formation == Formation::Skirmish).then_some(2.0 / FRONTAGE_SCALE);
    let artillery = matches!(m.arm, Arm::Artillery { .. });
    if !artillery {
        let per = if m.arm == Arm::Cavalry { 2 } else { 4 };
        if matches!(m.unit_type, UnitType::Light | UnitType::Indian) {
            blank.unit_type = UnitType::Line;
        }
        blank.figures = per * figures.len().max(1) as u32;
        blank.figures_per_stand = Some(per);
    } else {
        blank.figures = figures.iter().sum::<u32>().max(1);
    }
    let laid = basing::layout(&blank, b).map_err(|e| e.to_string())?;
    let (right, forward) = (bearing_vector(facing + 90.0), bearing_vector(facing));
    Ok(laid
        .into_iter()
        .map(|(f, _)| {
            if artillery || formation == Formation::Square {
                return f;
            }
            let d = f.centre - at;
            let centre = at + right * (d.dot(right) * FRONTAGE_SCALE) + forward * d.dot(forward);
            Footprint { centre, frontage: f.frontage * FRONTAGE_SCALE, ..f }
        })
        .collect())
}
