//! The state of a *Revolution* game and one check per action (`check_*`): what the action would
//! do, or the rule that refuses it. `apply` (in `resolve.rs`) runs the same check before it
//! changes anything, so the engine, the window's greyed buttons, the previews and the automatic
//! player cannot disagree.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::math::Vec2;
use serde::{Deserialize, Serialize};

use super::moves::{self, FIRE, MOVES, OBSTACLE};
use super::rates::Rates;
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::Dice;
use crate::rules::report::{Refusal, Report};
use crate::scenario::Scenario;
use crate::scenario::model::{Arm, Formation, RevolutionKind};
use crate::scenario::spawn::{self, Commander, Stand, Unit};
use crate::table::contact::{self, ChargePath};
use crate::table::cover::{CoverRules, distance_to_stand, unit_cover};
use crate::table::fire::{FireOptions, fire_geometry};
use crate::table::footprint::{Footprint, bearing_vector};
use crate::table::geom::EPS;
use crate::table::movement::{self, Allowance, MoveStep, RetreatPath, TOUCH};
use crate::table::situation::Situation;
use crate::table::words::inches;

pub const SG: RuleSetId = RuleSetId::Revolution;
/// The most steps one move may have: more is no order a player gives.
const MOST_STEPS: usize = 16;
/// The leader's re-roll prompt's first answer: take the failure.
pub const ACCEPT: u32 = 0;

/// Refused under SG `rule`.
pub(super) fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::by(SG.cite(rule), reason))
}

/// *Revolution*'s own words: a withdrawal straight back (SG13; out of a melee, SG17, SG20).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SgAction {
    Withdraw { unit: String, inches: f32 },
}

impl std::fmt::Display for SgAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SgAction::Withdraw { unit, inches: d } => write!(f, "{unit} withdraws {} straight back", inches(*d)),
        }
    }
}

/// The combat categories, resolved in this order (SG21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Category {
    Artillery,
    Rifles,
    Musketry,
    Melee,
}

impl Category {
    pub const ALL: [Category; 4] = [Category::Artillery, Category::Rifles, Category::Musketry, Category::Melee];
    pub fn name(self) -> &'static str {
        match self {
            Category::Artillery => "artillery",
            Category::Rifles => "rifles",
            Category::Musketry => "musketry",
            Category::Melee => "melee",
        }
    }
    /// The category's reach (SG21); melee is contact.
    pub fn range(self, rates: &Rates) -> Option<f32> {
        match self {
            Category::Artillery => Some(rates.ranges.artillery.get()),
            Category::Rifles => Some(rates.ranges.rifles.get()),
            Category::Musketry => Some(rates.ranges.musketry.get()),
            Category::Melee => None,
        }
    }
}

/// The steps of a player-turn (SG10): activation, then combat by category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Step {
    Activation,
    Combat(Category),
}

/// What a unit did with its activation this player-turn (SG10, SG17).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Done {
    #[default]
    Nothing,
    /// Changed formation: it may still move at its normal speed (SG17).
    Formed,
    Moved,
    Charged,
    Withdrew,
    /// A toss failed: "failure is no movement" (SG14, SG17).
    Failed,
}

/// What the rules keep for a unit beyond the common sheet.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sg {
    pub kind: RevolutionKind,
    /// SG5, SG28, SG31: disordered, for good.
    pub disordered: bool,
    /// SG28: routing, backs to the enemy.
    pub routing: bool,
    /// SG26: a gun whose crew has fallen back.
    pub crew_off: bool,
    pub done: Done,
    /// Moved (or changed formation) this player-turn: rifles and unlimbered guns may not fire (SG7).
    pub moved: bool,
    /// Declared an attack this player-turn (one a unit).
    pub attacked: bool,
}

/// A leader's move this player-turn (SG16).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ride {
    pub moved: bool,
}

/// A declared attack of the phasing player (SG22): by fire in its category, or a charge that
/// went in (melee).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attack {
    pub attacker: Entity,
    pub target: Entity,
    pub category: Category,
    /// SG23: a new melee, its first round.
    pub first_round: bool,
    /// SG23: the charge went up a slope.
    pub uphill: bool,
}

/// A failed morale toss waiting for its owner's answer: take it, or a leader's re-roll (SG35).
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub id: u32,
    pub target: Entity,
    pub category: Category,
    pub modifier: i32,
    /// The leaders within 8" who may re-roll, nearest first.
    pub leaders: Vec<Entity>,
}

/// A unit gone from the table, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lost {
    pub name: String,
    pub side: usize,
    pub stands: usize,
    pub why: String,
}

/// Where a unit's stands end after an order.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub unit: Entity,
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    /// Inches moved.
    pub inches: f32,
    /// It leaves the table: lost (SG33).
    pub off_table: bool,
    /// Obstacles and terrain that make it toss first (SG14, SG15).
    pub obstacles: Vec<String>,
}

/// A toss of SG17 or SG14: its modifiers (rule, name, value) and what success brings.
#[derive(Clone, Debug, PartialEq)]
pub struct Toss {
    pub modifiers: Vec<(String, String, i32)>,
    pub placed: Option<Placed>,
}

impl Toss {
    pub fn total(&self) -> i32 {
        self.modifiers.iter().map(|m| m.2).sum()
    }
}

/// A charge SG17 and SG19 allow.
#[derive(Clone, Debug)]
pub struct Charge {
    pub attacker: Entity,
    pub target: Entity,
    /// None: a melee that goes on (SG34), no move.
    pub path: Option<ChargePath>,
    pub toss: Toss,
}

/// A target's morale toss (SG22, SG23): every modifier and the attackers counted.
#[derive(Clone, Debug, PartialEq)]
pub struct MoraleToss {
    pub target: Entity,
    pub category: Category,
    pub attackers: Vec<Entity>,
    pub modifiers: Vec<(String, String, i32)>,
    /// SG32: a router attacked is removed, no toss.
    pub router: bool,
}

impl MoraleToss {
    pub fn total(&self) -> i32 {
        self.modifiers.iter().map(|m| m.2).sum()
    }
}

/// A game under *Revolution*.
pub struct Game {
    pub(super) scenario: Scenario,
    pub(super) seed: u64,
    pub(super) dice: Dice,
    pub(super) world: World,
    pub(super) rates: &'static Rates,
    /// Every unit as spawned, in scenario order; a lost unit is no longer in the world.
    pub(super) units: Vec<Entity>,
    pub(super) leaders: Vec<Entity>,
    /// The sides in the order of play (SG9: British first).
    pub(super) order: Vec<usize>,
    pub(super) turn: u32,
    /// An index of `order`: whose player-turn it is.
    pub(super) phase: usize,
    pub(super) step: Step,
    pub(super) attacks: Vec<Attack>,
    /// Targets of the current category still to toss.
    pub(super) queue: Vec<Entity>,
    pub(super) pending: Option<Pending>,
    pub(super) asked: u32,
    pub(super) over: bool,
    pub(super) lost: Vec<Lost>,
    pub(super) leaders_lost: Vec<(String, usize)>,
    pub(super) actions: Vec<Action>,
    pub(super) reports: Vec<Report>,
}

impl Game {
    pub fn new(scenario: Scenario, seed: u64) -> Game {
        let rates = Rates::embedded();
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &scenario, &scenario.name);
        let models: Vec<&crate::scenario::model::Unit> = scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).collect();
        let mut units: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Unit)>() {
            Some(mut q) => q.iter(&world).map(|(e, u)| (models.iter().position(|m| m.name == u.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        units.sort();
        let depths = scenario.basing;
        for &(i, e) in &units {
            let Some(model) = models.get(i) else { continue };
            let kind = model.revolution_profile().kind;
            let formation = starting_formation(kind, model.formation);
            let n = if kind == RevolutionKind::Artillery { 1 } else { 3 };
            let depth = match model.arm {
                Arm::Infantry => depths.infantry_depth,
                Arm::Cavalry => depths.cavalry_depth,
                Arm::Artillery { .. } => depths.artillery_depth.min(1.5),
            };
            let disordered = kind == RevolutionKind::Militia;
            let stands = moves::lay(kind, formation, disordered, n, Vec2::from(model.at), model.facing, depth, rates);
            let old = world.get::<Unit>(e).map(|u| u.stands.clone()).unwrap_or_default();
            for s in old {
                world.despawn(s);
            }
            let ids: Vec<Entity> = stands.into_iter().enumerate().map(|(index, f)| world.spawn((Stand { unit: e, index, figures: 2 }, f)).id()).collect();
            let mut u = world.get_mut::<Unit>(e).expect("spawned");
            u.formation = formation;
            u.figures = 2 * ids.len() as u32;
            u.initial_figures = u.figures;
            u.stands = ids;
            u.attached_to = None;
            world.entity_mut(e).insert(Sg { kind, disordered, routing: false, crew_off: false, done: Done::Nothing, moved: false, attacked: false });
        }
        let units: Vec<Entity> = units.into_iter().map(|(_, e)| e).collect();
        let mut leaders: Vec<(usize, String, Entity)> = match world.try_query::<(Entity, &Commander)>() {
            Some(mut q) => q.iter(&world).map(|(e, c)| (c.side, c.name.clone(), e)).collect(),
            None => Vec::new(),
        };
        leaders.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let leaders: Vec<Entity> = leaders.into_iter().map(|l| l.2).collect();
        for &l in &leaders {
            world.entity_mut(l).insert(Ride::default());
        }
        let order = side_order(&scenario);
        Game {
            scenario,
            seed,
            dice: Dice::new(seed),
            world,
            rates,
            units,
            leaders,
            order,
            turn: 1,
            phase: 0,
            step: Step::Activation,
            attacks: Vec::new(),
            queue: Vec::new(),
            pending: None,
            asked: 0,
            over: false,
            lost: Vec::new(),
            leaders_lost: Vec::new(),
            actions: Vec::new(),
            reports: Vec::new(),
        }
    }

    // ---- reading the table ----

    pub fn unit(&self, e: Entity) -> Option<&Unit> {
        self.world.get::<Unit>(e)
    }

    pub fn sg(&self, e: Entity) -> Option<Sg> {
        self.world.get::<Sg>(e).copied()
    }

    pub fn rates(&self) -> &'static Rates {
        self.rates
    }

    pub fn turn_limit(&self) -> u32 {
        self.scenario.turn_limit.unwrap_or(self.rates.turns.default_limit.get())
    }

    /// The units still on the table, in scenario order.
    pub fn live_units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.units.iter().filter_map(|&e| Some((e, self.unit(e)?)))
    }

    pub fn live_leaders(&self) -> impl Iterator<Item = (Entity, &Commander)> {
        self.leaders.iter().filter_map(|&e| Some((e, self.world.get::<Commander>(e)?)))
    }

    /// The side whose player-turn it is.
    pub fn phasing(&self) -> usize {
        self.order[self.phase]
    }

    pub fn step(&self) -> Step {
        self.step
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.scenario.sides.get(side).map_or("?", |s| s.name.as_str())
    }

    pub(super) fn name(&self, e: Entity) -> String {
        self.unit(e).map(|u| u.name.clone()).or_else(|| self.world.get::<Commander>(e).map(|c| c.name.clone())).unwrap_or_else(|| "?".into())
    }

    pub fn situation(&self) -> Situation {
        Situation::from_world(&self.world)
    }

    /// The unit of that name on the table; a lost one is refused by the rule that lost it.
    pub fn find(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_units().find(|(_, u)| u.name == name) {
            return Ok(e);
        }
        if let Some(l) = self.lost.iter().find(|l| l.name == name) {
            return refuse("33", format!("{name} is gone from the table: {}", l.why));
        }
        Err(Refusal::unruled(SG, format!("no unit named \"{name}\"")))
    }

    pub fn find_leader(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_leaders().find(|(_, c)| c.name == name) {
            return Ok(e);
        }
        if self.leaders_lost.iter().any(|l| l.0 == name) {
            return refuse("35", format!("{name} was lost with a failed re-roll"));
        }
        Err(Refusal::unruled(SG, format!("no leader named \"{name}\"")))
    }

    /// SG3, SG4, SG28: in column (a wedge, a close or disordered column, limbered guns).
    pub fn in_column(formation: Formation) -> bool {
        matches!(formation, Formation::Column | Formation::Wedge | Formation::Limbered)
    }

    /// SG3, SG6: deployed: a line (formed, reinforced or disordered) or unlimbered guns.
    pub fn deployed(formation: Formation) -> bool {
        matches!(formation, Formation::Line | Formation::ReinforcedLine | Formation::Unlimbered)
    }

    /// SG16: the normal move of the unit in its formation, and where the number comes from.
    pub fn allowance(&self, e: Entity) -> Option<(f32, String)> {
        let (u, sg) = (self.unit(e)?, self.sg(e)?);
        let m = &self.rates.moves;
        let r = match (sg.kind, u.formation) {
            (RevolutionKind::Artillery, Formation::Limbered) => &m.guns_limbered,
            (RevolutionKind::Artillery, _) => &m.guns_unlimbered,
            (RevolutionKind::Dragoons, f) if Game::in_column(f) => &m.dragoons_column,
            (RevolutionKind::Dragoons, _) => &m.dragoons_deployed,
            (_, f) if Game::in_column(f) => &m.foot_column,
            _ => &m.foot_deployed,
        };
        Some((r.get(), r.cited()))
    }

    /// SG13, SG20: how far the unit withdraws: a line straight back at 2/3, a column its move.
    pub fn withdrawal(&self, e: Entity) -> Option<f32> {
        let (full, _) = self.allowance(e)?;
        let f = self.unit(e)?.formation;
        Some(if Game::in_column(f) { full } else { full * self.rates.moves.withdraw_share.get() })
    }

    /// The unit's combat category (SG21); dragoons fire not at all (SG25).
    pub fn category(kind: RevolutionKind) -> Option<Category> {
        match kind {
            RevolutionKind::Artillery => Some(Category::Artillery),
            RevolutionKind::Rifles => Some(Category::Rifles),
            RevolutionKind::Dragoons => None,
            _ => Some(Category::Musketry),
        }
    }

    /// Enemy units in contact with this one: a melee that lasts (SG34).
    pub fn in_melee_with(&self, s: &Situation, e: Entity) -> Vec<Entity> {
        let Some(i) = self.unit(e).and_then(|u| s.find(&u.name).ok()) else { return Vec::new() };
        contact::units_in_contact(s, i).into_iter().filter_map(|o| self.live_units().find(|(_, u)| u.name == s.unit(o).name).map(|(e, _)| e)).collect()
    }

    /// The leaders of `side` within `reach` of the unit (edge of its nearest stand), nearest first.
    pub fn leaders_near(&self, e: Entity, side: usize, reach: f32) -> Vec<Entity> {
        let Some(u) = self.unit(e) else { return Vec::new() };
        let stands = spawn::unit_footprints(&self.world, u);
        let mut near: Vec<(f32, Entity)> = self
            .live_leaders()
            .filter(|(_, c)| c.side == side)
            .map(|(l, c)| (stands.iter().map(|f| distance_to_stand(f, c.at)).fold(f32::INFINITY, f32::min), l))
            .filter(|(d, _)| *d <= reach + EPS)
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0));
        near.into_iter().map(|(_, l)| l).collect()
    }

    // ---- the checks, one an action ----

    /// Orders wait while a question is open (SG35) and end with the game (SG37).
    pub(super) fn open_to_orders(&self) -> Result<(), Refusal> {
        if self.over {
            return refuse("37", "the game is over");
        }
        if let Some(p) = &self.pending {
            let owner = self.unit(p.target).map_or(0, |u| u.side);
            return refuse("35", format!("{} must first answer: does a leader re-roll {}'s failed morale toss?", self.side_name(owner), self.name(p.target)));
        }
        Ok(())
    }

    /// A unit of the phasing side (SG9), not routing (SG28), for an order under `rule`.
    fn own_unit(&self, name: &str, rule: &str) -> Result<Entity, Refusal> {
        self.open_to_orders()?;
        let e = self.find(name)?;
        let side = self.unit(e).map_or(0, |u| u.side);
        if side != self.phasing() {
            return refuse("9", format!("{name} is {}'s: it is {}'s player-turn: no {} order for it now", self.side_name(side), self.side_name(self.phasing()), SG.cite(rule)));
        }
        if self.sg(e).is_some_and(|s| s.routing) {
            return refuse("36", format!("{name} is routing: it takes no orders until it rallies (SG36)"));
        }
        Ok(e)
    }

    /// SG10: moves, formation changes, charges and withdrawals belong to the activation.
    fn activating(&self, name: &str, rule: &str) -> Result<Entity, Refusal> {
        let e = self.own_unit(name, rule)?;
        if self.step != Step::Activation {
            return refuse("10", format!("{name}: the activation is over; it is the combat ({})", self.step_name()));
        }
        Ok(e)
    }

    pub fn step_name(&self) -> String {
        match self.step {
            Step::Activation => "activation".into(),
            Step::Combat(c) => format!("{} combat", c.name()),
        }
    }

    /// SG17, SG18: a toss's modifiers: −1 disordered; +1 column or reinforced line and +2
    /// wedge, the column's and the wedge's for formation changes only.
    pub fn toss_modifiers(&self, e: Entity, forming: bool) -> Vec<(String, String, i32)> {
        let (Some(u), Some(sg)) = (self.unit(e), self.sg(e)) else { return Vec::new() };
        let m = &self.rates.modifiers;
        let mut out = Vec::new();
        if sg.disordered {
            out.push(("18".into(), "disordered".into(), m.disordered.get()));
        }
        match u.formation {
            Formation::ReinforcedLine => out.push(("18".into(), "reinforced line".into(), m.column_or_reinforced.get())),
            Formation::Wedge if forming => out.push(("18".into(), "wedge (formation changes only)".into(), m.wedge.get())),
            Formation::Column if forming => out.push(("18".into(), "column (formation changes only)".into(), m.column_or_reinforced.get())),
            _ => {}
        }
        out
    }

    /// SG3, SG4, SG26, SG31: the formations the unit may change to, by a toss.
    pub fn formations_open(&self, e: Entity) -> Vec<Formation> {
        let (Some(u), Some(sg)) = (self.unit(e), self.sg(e)) else { return Vec::new() };
        let three = u.stands.len() >= 3;
        match (sg.kind, u.formation) {
            (RevolutionKind::Artillery, Formation::Unlimbered) if sg.crew_off => vec![Formation::Unlimbered],
            (RevolutionKind::Artillery, Formation::Unlimbered) => vec![Formation::Limbered],
            (RevolutionKind::Artillery, _) => vec![Formation::Unlimbered],
            (RevolutionKind::Elite, Formation::Wedge) if three => vec![Formation::ReinforcedLine],
            (RevolutionKind::Elite, Formation::ReinforcedLine) if three => vec![Formation::Wedge],
            (_, f) if Game::in_column(f) => vec![Formation::Line],
            _ => vec![Formation::Column],
        }
    }

    /// SG17, SG18, SG26: a change of formation, by a toss: where the stands would stand.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<Toss, Refusal> {
        let e = self.activating(name, "17")?;
        let (u, sg) = (self.unit(e).expect("found"), self.sg(e).expect("every unit has one"));
        if sg.done != Done::Nothing {
            return refuse("17", format!("{name} has taken its action this player-turn"));
        }
        let s = self.situation();
        if !self.in_melee_with(&s, e).is_empty() {
            return refuse("17", format!("{name} is in melee: it may charge again or withdraw (SG34), not change formation"));
        }
        let open = self.formations_open(e);
        if !open.contains(&to) {
            let words: Vec<&str> = open.iter().map(|f| crate::table::words::formation(*f)).collect();
            let why = if sg.disordered && matches!(to, Formation::Wedge | Formation::ReinforcedLine) { " (a disordered unit never reforms, SG31)" } else { "" };
            return refuse("17", format!("{name} in {} may form {}, not {}{why}", crate::table::words::formation(u.formation), words.join(" or "), crate::table::words::formation(to)));
        }
        let placed = if to == u.formation {
            // SG26: the crew comes back to its gun.
            Placed { unit: e, stands: spawn::unit_footprints(&self.world, u), formation: to, inches: 0.0, off_table: false, obstacles: Vec::new() }
        } else {
            let stands = self.relaid(&s, e, to, sg.disordered).map_err(|why| Refusal::by(SG.cite("17"), format!("{name} cannot form {}: {why}", crate::table::words::formation(to))))?;
            Placed { unit: e, stands, formation: to, inches: 0.0, off_table: false, obstacles: Vec::new() }
        };
        Ok(Toss { modifiers: self.toss_modifiers(e, true), placed: Some(placed) })
    }

    /// The unit's stands laid afresh in `to` on the centre of its front, facing the same way;
    /// why not, when they would overlap another unit or leave the table.
    pub(super) fn relaid(&self, s: &Situation, e: Entity, to: Formation, disordered: bool) -> Result<Vec<Footprint>, String> {
        let (u, sg) = (self.unit(e).ok_or("gone")?, self.sg(e).ok_or("gone")?);
        let old = spawn::unit_footprints(&self.world, u);
        let first = old.first().ok_or("no stands")?;
        let facing = first.facing;
        let fwd = bearing_vector(facing);
        // The front centre: the most forward stands' front edges, centred across.
        let front = old.iter().map(|f| f.front_centre().dot(fwd)).fold(f32::NEG_INFINITY, f32::max);
        let right = bearing_vector(facing + 90.0);
        let across = old.iter().map(|f| f.centre.dot(right)).sum::<f32>() / old.len() as f32;
        let at = fwd * front + right * across;
        let placed = moves::lay(sg.kind, to, disordered, old.len(), at, facing, first.depth, self.rates);
        self.fits(s, &u.name, &placed)?;
        Ok(placed)
    }

    /// The stands overlap no other unit and stay on the table.
    pub(super) fn fits(&self, s: &Situation, name: &str, stands: &[Footprint]) -> Result<(), String> {
        if let Some(f) = stands.iter().find(|f| !s.on_table(f.centre)) {
            return Err(format!("a stand would be off the table at ({:.1}, {:.1})", f.centre.x, f.centre.y));
        }
        for o in s.units().iter().filter(|o| o.name != name) {
            if o.stands.iter().any(|st| stands.iter().any(|f| crate::table::geom::convex_overlap_depth(&f.corners(), &st.footprint.corners()) > TOUCH)) {
                return Err(format!("the stands would overlap {}", o.name));
            }
        }
        Ok(())
    }

    /// SG11–SG16, SG33: a move at the normal speed. A column manoeuvres freely; a line pivots on
    /// a flank first if it will, then goes straight ahead and takes ground to a flank. A move
    /// that enters woods, a swamp, a town or a stream, or crosses a linear obstacle, needs a
    /// toss (SG14, SG15). A move off the table loses the unit (SG33).
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<Toss, Refusal> {
        let e = self.activating(name, "16")?;
        let (u, sg) = (self.unit(e).expect("found"), self.sg(e).expect("every unit has one"));
        match sg.done {
            Done::Nothing | Done::Formed => {}
            _ => return refuse("16", format!("{name} has taken its action this player-turn")),
        }
        if sg.crew_off {
            return refuse("26", format!("{name}'s crew has fallen back: it must re-man the gun first"));
        }
        let s = self.situation();
        if !self.in_melee_with(&s, e).is_empty() {
            return refuse("34", format!("{name} is in melee: it may charge again or withdraw, not move (SG34)"));
        }
        if steps.is_empty() {
            return refuse("16", "a move needs at least one step");
        }
        if steps.len() > MOST_STEPS {
            return Err(Refusal::unruled(SG, format!("{} steps is no move a player orders (at most {MOST_STEPS})", steps.len())));
        }
        let column = Game::in_column(u.formation);
        for (i, step) in steps.iter().enumerate() {
            let numbers: Vec<f32> = match step {
                MoveStep::Forward(d) | MoveStep::SideStep(d) => vec![*d],
                MoveStep::Oblique { angle, distance } => vec![*angle, *distance],
                MoveStep::Wheel { angle, .. } => vec![*angle],
                MoveStep::Path(points) => points.iter().flat_map(|p| [p.x, p.y]).collect(),
                MoveStep::AboutFace => Vec::new(),
                MoveStep::ChangeFormation(_) => return refuse("17", "a change of formation is its own action, a toss (SG17)"),
                _ => return refuse("11", format!("{step}: a unit moves whole (forward, oblique, side step, pivot, about face, or a column along a path)")),
            };
            if numbers.iter().any(|x| !x.is_finite() || x.abs() > 10_000.0) {
                return Err(Refusal::unruled(SG, format!("{step}: not a number a table can measure")));
            }
            if !column {
                match step {
                    MoveStep::Wheel { .. } if i > 0 => return refuse("12", format!("{name} is deployed: it may pivot on a flank only before it moves (SG12)")),
                    MoveStep::Wheel { angle, .. } if angle.abs() > 180.0 => return refuse("12", "a pivot of more than 180° is no pivot"),
                    MoveStep::Path(_) | MoveStep::AboutFace => {
                        return refuse("12", format!("{name} is deployed: straight ahead after an optional pivot, or taking ground to a flank; to go back it withdraws (SG13)"));
                    }
                    _ => {}
                }
            }
        }
        let (full, _) = self.allowance(e).expect("a unit");
        let index = s.find(name).map_err(|why| Refusal::unruled(SG, why))?;
        let plan = movement::plan_move(&s, index, steps, Allowance::new(full), &MOVES);
        if let Some(p) = &plan.problem {
            return Err(Refusal::by(SG.cite(p.section), format!("{name}: {}", p.reason)));
        }
        let mut obstacles: Vec<String> = plan.disorder.iter().map(|d| d.terrain.clone()).collect();
        obstacles.extend(plan.items.iter().filter(|it| it.section == OBSTACLE).map(|it| it.what.clone()));
        let off_table = plan.stands.iter().any(|f| !s.on_table(f.centre));
        let placed = Placed { unit: e, stands: plan.stands, formation: u.formation, inches: plan.spent, off_table, obstacles };
        Ok(Toss { modifiers: Vec::new(), placed: Some(placed) })
    }

    /// SG13, SG17, SG20: a withdrawal straight back, a line at 2/3 of its move and a column at
    /// its own; out of a melee only after a toss.
    pub fn check_withdraw(&self, name: &str, d: f32) -> Result<(Toss, bool), Refusal> {
        let e = self.activating(name, "13")?;
        let (u, sg) = (self.unit(e).expect("found"), self.sg(e).expect("every unit has one"));
        if sg.done != Done::Nothing {
            return refuse("13", format!("{name} has taken its action this player-turn"));
        }
        if sg.crew_off {
            return refuse("26", format!("{name}'s crew has fallen back: nobody is there to move the gun"));
        }
        let most = self.withdrawal(e).expect("a unit");
        if !d.is_finite() || d <= 0.0 || d > most + EPS {
            return refuse("13", format!("{name} withdraws up to {} straight back, not {}", inches(most), if d.is_finite() { inches(d) } else { "that".into() }));
        }
        let s = self.situation();
        let index = s.find(name).map_err(|why| Refusal::unruled(SG, why))?;
        let back = -bearing_vector(spawn::unit_footprints(&self.world, u).first().map_or(0.0, |f| f.facing));
        let path = movement::shift_path(&s, index, back, d);
        if let Some(w) = path.in_the_way.first() {
            return refuse("13", format!("{name} cannot withdraw {}: {} is in the way after {}", inches(d), w.unit, inches(w.after)));
        }
        let melee = !self.in_melee_with(&s, e).is_empty();
        let placed = Placed { unit: e, stands: path.stands, formation: u.formation, inches: d, off_table: path.off_table, obstacles: Vec::new() };
        let modifiers = if melee { self.toss_modifiers(e, false) } else { Vec::new() };
        Ok((Toss { modifiers, placed: Some(placed) }, melee))
    }

    /// SG6, SG17, SG19, SG34: a deployed unit (not guns) charges an enemy within its normal move,
    /// or charges again in a melee it is in; a toss, then contact.
    pub fn check_charge(&self, name: &str, target: &str) -> Result<Charge, Refusal> {
        let e = self.activating(name, "17")?;
        let t = self.find(target)?;
        let (u, sg) = (self.unit(e).expect("found"), self.sg(e).expect("every unit has one"));
        if self.unit(t).is_some_and(|o| o.side == u.side) {
            return refuse("17", format!("{target} is a friend: a charge is at the enemy"));
        }
        if sg.done != Done::Nothing {
            return refuse("17", format!("{name} has taken its action this player-turn"));
        }
        if sg.kind == RevolutionKind::Artillery {
            return refuse("6", format!("{name} is artillery: guns do not charge"));
        }
        if !matches!(u.formation, Formation::Line | Formation::ReinforcedLine) {
            return refuse("6", format!("{name} is in {}: a unit charges only when deployed (SG6, SG17)", crate::table::words::formation(u.formation)));
        }
        let s = self.situation();
        let melee = self.in_melee_with(&s, e);
        let toss = Toss { modifiers: self.toss_modifiers(e, false), placed: None };
        if melee.contains(&t) {
            return Ok(Charge { attacker: e, target: t, path: None, toss });
        }
        if !melee.is_empty() {
            return refuse("34", format!("{name} is in melee with {}: it fights on there or withdraws", self.name(melee[0])));
        }
        let (a, b) = (s.find(name).map_err(|w| Refusal::unruled(SG, w))?, s.find(target).map_err(|w| Refusal::unruled(SG, w))?);
        let path = contact::charge_path(&s, a, b, &MOVES);
        if let Some(p) = &path.problem {
            return Err(Refusal::by(SG.cite(p.section), format!("{name} cannot reach {target}: {}", p.reason)));
        }
        if let Some(w) = path.interpenetrates.first() {
            return refuse("19", format!("{name} cannot reach {target}: {w} is in the way"));
        }
        let (full, _) = self.allowance(e).expect("a unit");
        if path.distance > full + EPS {
            return refuse("19", format!("{target} is {} away by the charge's path: {name} charges at most its normal move, {}", inches(path.distance), inches(full)));
        }
        let mut toss = toss;
        toss.placed = Some(Placed { unit: e, stands: path.stands.clone(), formation: u.formation, inches: path.distance, off_table: false, obstacles: path.obstacles.clone() });
        Ok(Charge { attacker: e, target: t, path: Some(path), toss })
    }

    /// SG6, SG7, SG21, SG24, SG25: a unit of the category being fought declares fire at an
    /// enemy within its reach, in its arc and in sight.
    pub fn check_fire(&self, name: &str, target: &str) -> Result<Category, Refusal> {
        let e = self.own_unit(name, "21")?;
        let t = self.find(target)?;
        let (u, sg) = (self.unit(e).expect("found"), self.sg(e).expect("every unit has one"));
        let other = self.unit(t).expect("found");
        if other.side == u.side {
            return refuse("22", format!("{target} is a friend: attacks are on the enemy"));
        }
        let Some(category) = Game::category(sg.kind) else { return refuse("25", format!("{name} is dragoons: dragoons charge, they do not fire")) };
        match self.step {
            Step::Combat(Category::Melee) => return refuse("21", "the melee's attackers are the units whose charge went in; nobody fires now"),
            Step::Combat(c) if c == category => {}
            Step::Combat(c) => return refuse("21", format!("{name} fires in the {} combat; this is the {} combat", category.name(), c.name())),
            Step::Activation => return refuse("10", format!("{name}: fire comes after the activation, in the {} combat", category.name())),
        }
        if sg.attacked {
            return refuse("22", format!("{name} has declared its attack this player-turn"));
        }
        if !Game::deployed(u.formation) {
            return refuse("6", format!("{name} is in {}: it fires only when deployed", crate::table::words::formation(u.formation)));
        }
        if sg.crew_off {
            return refuse("26", format!("{name}'s crew has fallen back: the gun is silent until re-manned"));
        }
        if sg.moved && matches!(sg.kind, RevolutionKind::Rifles | RevolutionKind::Artillery) {
            return refuse("7", format!("{name} moved this player-turn: rifles and unlimbered guns cannot move and fire in the same turn"));
        }
        if self.sg(t).is_some_and(|o| o.crew_off) {
            return refuse("26", format!("{target}'s crew has fallen back: nobody stands at the gun to be fired on"));
        }
        let s = self.situation();
        if !self.in_melee_with(&s, e).is_empty() {
            return refuse("25", format!("{name} is in melee: units in melee do not fire"));
        }
        let (a, b) = (s.find(name).map_err(|w| Refusal::unruled(SG, w))?, s.find(target).map_err(|w| Refusal::unruled(SG, w))?);
        let reach = category.range(self.rates).expect("fire has a range");
        let g = fire_geometry(&s, a, b, FireOptions::new(&FIRE));
        if !g.in_arc {
            return refuse("24", format!("{target} is outside {name}'s arc (45° beyond each end of its front)"));
        }
        let firing: Vec<_> = g.firing().filter(|st| st.range <= reach + EPS).collect();
        if firing.is_empty() {
            if g.range > reach + EPS {
                return refuse("21", format!("{target} is {} away edge to edge: {} reaches {}", inches(g.range), category.name(), inches(reach)));
            }
            let blocked = g.blocked_by();
            return refuse("24", if blocked.is_empty() { format!("{name} has no clear line of sight to {target}") } else { format!("{name} cannot see {target}: {} in the way", blocked.join(", ")) });
        }
        let woods = self.rates.ranges.woods_seen_into.get();
        if g.woods_in() > woods + EPS {
            return refuse("24", format!("the sight line runs {} through woods: one sees {} into woods", inches(g.woods_in()), inches(woods)));
        }
        Ok(category)
    }

    /// SG16: a leader rides up to 24" once a player-turn, in the activation.
    pub fn check_leader(&self, name: &str, to: Vec2) -> Result<(Entity, f32), Refusal> {
        self.open_to_orders()?;
        let l = self.find_leader(name)?;
        let c = self.world.get::<Commander>(l).expect("found");
        if c.side != self.phasing() {
            return refuse("9", format!("{name} is {}'s: it is {}'s player-turn", self.side_name(c.side), self.side_name(self.phasing())));
        }
        if self.step != Step::Activation {
            return refuse("10", format!("{name}: leaders ride in the activation"));
        }
        if self.world.get::<Ride>(l).is_some_and(|r| r.moved) {
            return refuse("16", format!("{name} has ridden this player-turn"));
        }
        if !to.is_finite() {
            return Err(Refusal::unruled(SG, "not a point on the table"));
        }
        let d = c.at.distance(to);
        let most = self.rates.moves.leader.get();
        if d > most + EPS {
            return refuse("16", format!("{name} rides at most {}, not {}", inches(most), inches(d)));
        }
        if !self.situation().on_table(to) {
            return refuse("16", format!("{name} would ride off the table"));
        }
        Ok((l, d))
    }

    /// SG36: a leader joins a unit: he rides to stand just behind it (his ride for the player-turn).
    pub fn check_join(&self, leader: &str, unit: &str) -> Result<(Entity, Vec2), Refusal> {
        self.open_to_orders()?;
        let e = self.find(unit)?;
        let u = self.unit(e).expect("found");
        let l = self.find_leader(leader)?;
        if self.world.get::<Commander>(l).is_some_and(|c| c.side != u.side) {
            return refuse("36", format!("{leader} leads the other side"));
        }
        let stands = spawn::unit_footprints(&self.world, u);
        let rear = stands.iter().map(|f| f.centre - f.forward() * (f.depth / 2.0 + 0.5)).next_back().unwrap_or_default();
        self.check_leader(leader, rear)?;
        Ok((l, rear))
    }

    /// SG35: the answer to the open re-roll question.
    pub fn check_answer(&self, prompt: u32, option: u32) -> Result<Option<Entity>, Refusal> {
        if self.over {
            return refuse("37", "the game is over");
        }
        let Some(p) = &self.pending else { return refuse("35", "no question is open") };
        if prompt != p.id {
            return refuse("35", format!("question {prompt} is not the open one (question {})", p.id));
        }
        match option {
            ACCEPT => Ok(None),
            k if (k as usize) <= p.leaders.len() => Ok(Some(p.leaders[k as usize - 1])),
            _ => refuse("35", format!("question {prompt} has {} answers", p.leaders.len() + 1)),
        }
    }

    /// SG9, SG10: go on to the next step (resolving the category's attacks) or player-turn.
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
            Action::Revolution(SgAction::Withdraw { unit, inches }) => self.check_withdraw(unit, *inches).map(drop),
            other => refuse("10", format!("{other}: not an order of Revolution")),
        }
    }

    // ---- combat: the target's toss (SG22, SG23) ----

    /// The target's morale toss against the attacks declared on it in `category` (with `extra`,
    /// an attack not yet declared, for a preview): the attackers counted and every modifier.
    pub fn morale_toss(&self, target: Entity, category: Category, extra: Option<Attack>) -> MoraleToss {
        let attacks: Vec<Attack> = self.attacks.iter().copied().filter(|a| a.target == target && a.category == category).chain(extra).collect();
        let attackers: Vec<Entity> = attacks.iter().map(|a| a.attacker).collect();
        let m = &self.rates.modifiers;
        let mut modifiers = Vec::new();
        let router = self.sg(target).is_some_and(|s| s.routing);
        let s = self.situation();
        let covered = self.unit(target).and_then(|t| s.find(&t.name).ok()).is_some_and(|ti| {
            let from: Vec<Vec2> = attackers.iter().filter_map(|&a| self.unit(a)).flat_map(|u| spawn::unit_footprints(&self.world, u)).map(|f| f.centre).collect();
            unit_cover(&s, &COVER, ti, &from).is_some()
        });
        let kind = |e: Entity| self.sg(e).map(|s| s.kind);
        if category == Category::Melee {
            // SG23: charged, the first round only, not in cover nor against rifles.
            if attacks.iter().any(|a| a.first_round && kind(a.attacker) != Some(RevolutionKind::Rifles)) && !covered {
                modifiers.push(("23".into(), "charged (first round)".into(), m.charged_first_round.get()));
            }
            if kind(target) != Some(RevolutionKind::Dragoons) && attacks.iter().any(|a| kind(a.attacker) == Some(RevolutionKind::Dragoons)) {
                modifiers.push(("23".into(), "in melee with dragoons".into(), m.dragoons_against_foot.get()));
            }
            if attacks.iter().any(|a| a.uphill) {
                modifiers.push(("23".into(), "attacker charging uphill".into(), m.charged_uphill.get()));
            }
        }
        if attackers.len() > 1 {
            modifiers.push(("23".into(), format!("{} attackers: each over one", attackers.len()), m.each_attacker_over_one.get() * (attackers.len() as i32 - 1)));
        }
        if covered {
            modifiers.push(("23".into(), "behind cover".into(), m.cover.get()));
        }
        MoraleToss { target, category, attackers, modifiers, router }
    }

    /// SG14, SG17, SG22: the chance a d6 toss with `modifier` fails (`fails_at_most` or less).
    pub fn fail_chance(fails_at_most: i32, modifier: i32) -> f64 {
        crate::rules::dice::chance_at_most(crate::rules::dice::DiceKind::D6, modifier, fails_at_most)
    }

    /// SG28: what a failed morale toss does to the unit, in words.
    pub fn failure_words(&self, e: Entity, category: Category) -> String {
        let (Some(u), Some(sg)) = (self.unit(e), self.sg(e)) else { return String::new() };
        match (sg.kind, u.formation) {
            _ if sg.routing => "removed (a router attacked, SG32)".into(),
            (RevolutionKind::Artillery, _) if category == Category::Melee => "the gun is lost (SG26)".into(),
            (RevolutionKind::Artillery, _) => format!("the crew falls back {} (SG26)", inches(self.rates.moves.crew_falls_back.get())),
            (_, Formation::Wedge) => "loses a stand: a 2-stand close column (SG27)".into(),
            (_, Formation::ReinforcedLine) => "loses its rear stand: a 2-stand formed line (SG28)".into(),
            _ if sg.disordered => format!("routs {} (SG28, SG29)", inches(self.rates.moves.rout.get())),
            (_, f) if Game::in_column(f) => "falls into disordered column (SG28)".into(),
            _ => "falls into disordered line (SG28)".into(),
        }
    }

    /// The path a rout of `d` inches takes, away from the nearest enemy (SG28, SG36).
    pub(super) fn rout_path(&self, s: &Situation, e: Entity, d: f32) -> Option<RetreatPath> {
        let u = self.unit(e)?;
        let me = s.find(&u.name).ok()?;
        let enemy = (0..s.units().len()).filter(|&o| s.unit(o).side != u.side).min_by(|&a, &b| crate::table::range::unit_distance(s, me, a).total_cmp(&crate::table::range::unit_distance(s, me, b)));
        Some(match enemy {
            Some(o) => movement::retreat(s, me, o, d),
            None => movement::shift_path(s, me, -bearing_vector(s.unit(me).stands[0].footprint.facing), d),
        })
    }
}

/// SG23, SG25: any cover gives +1; a wall or fence shelters what stands within 1" behind it.
pub static COVER: CoverRules = CoverRules { class: |t| t.cover(), behind_reach: 1.0 };

/// SG1–SG5, SG3: the formation a unit starts in under *Revolution*, from the scenario's.
pub fn starting_formation(kind: RevolutionKind, f: Formation) -> Formation {
    let column = matches!(f, Formation::Column | Formation::Wedge | Formation::AttackColumn | Formation::Limbered);
    match kind {
        RevolutionKind::Artillery if f == Formation::Limbered => Formation::Limbered,
        RevolutionKind::Artillery => Formation::Unlimbered,
        RevolutionKind::Elite if column => Formation::Wedge,
        RevolutionKind::Elite => Formation::ReinforcedLine,
        _ if column => Formation::Column,
        _ => Formation::Line,
    }
}

/// SG9: the British first (a side flagged `moves_first`, else the British nation, else the
/// scenario's first side), then the rest in scenario order.
pub fn side_order(scenario: &Scenario) -> Vec<usize> {
    use crate::scenario::model::Nation;
    let n = scenario.sides.len();
    let first = scenario.sides.iter().position(|s| s.moves_first).or_else(|| scenario.sides.iter().position(|s| s.nation_or_default() == Some(Nation::British))).unwrap_or(0);
    std::iter::once(first).chain((0..n).filter(|&i| i != first)).collect()
}
