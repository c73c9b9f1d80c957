//! The state of a game under the ACW orders sheet, and one check per action (OR1-OR23). `apply`
//! runs the same check before it changes anything, so the engine, the window's greyed buttons,
//! the previews and the automatic player cannot disagree. The steps that throw dice for
//! everybody (2, 5, 6, 9, 10, and the simultaneous fire at the end of 4, 7 and 8) are resolved
//! by `Next` in [`super::steps`]; the numbers of fire, morale and impact in [`super::combat`].

use std::fmt;

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::math::Vec2;
use serde::{Deserialize, Serialize};

use super::charts::{Charts, Ground};
use super::moves::{self, MOVES};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::Dice;
use crate::rules::report::{Refusal, Report};
use crate::scenario::Scenario;
use crate::scenario::basing;
use crate::scenario::model::{AcwGun, AcwQuality, AcwWeapon, Arm, Formation};
use crate::scenario::spawn::{self, Commander, Stand, Unit};
use crate::table::arc::Arc;
use crate::table::contact::{self, ChargePath};
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use crate::table::movement::{self, Allowance, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;
use crate::table::words::{formation as formation_name, inches};

pub const OR: RuleSetId = RuleSetId::AcwOrders;
/// Figures a stand (OR: 4 figures a stand at 1:25, so 100 men a stand).
pub const FIGURES_A_STAND: u32 = 4;
pub const MEN_A_STAND: u32 = 100;
/// The most steps one move may have.
const MOST_STEPS: usize = 16;

/// Refused under OR `rule`.
pub(super) fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::by(OR.cite(rule), reason))
}

/// OR1: the seven orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order {
    /// Hold: stays; may refuse a flank; fires once in steps 4-8.
    H,
    /// Form: changes formation (or re-forms from disorder) in step 7.
    FM,
    /// First Fire: fires in step 4.
    FR,
    /// Charge: names its target in step 3, charges in step 6.
    C,
    /// Conditional Hold: holds; may half-move in step 7 if an enemy is within 6".
    CH,
    /// Move: moves in step 7, fires in step 8.
    M,
    /// Disengage: retires in step 5.
    D,
}

impl Order {
    pub const ALL: [Order; 7] = [Order::H, Order::FM, Order::FR, Order::C, Order::CH, Order::M, Order::D];
    pub fn code(self) -> &'static str {
        match self {
            Order::H => "H",
            Order::FM => "FM",
            Order::FR => "FR",
            Order::C => "C",
            Order::CH => "CH",
            Order::M => "M",
            Order::D => "D",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Order::H => "Hold",
            Order::FM => "Form",
            Order::FR => "First Fire",
            Order::C => "Charge",
            Order::CH => "Conditional Hold",
            Order::M => "Move",
            Order::D => "Disengage",
        }
    }
    /// What it permits, in the sheet's words (OR2).
    pub fn permits(self) -> &'static str {
        match self {
            Order::H => "stays; may fire once in steps 4-8",
            Order::FM => "changes formation or re-forms in step 7",
            Order::FR => "fires in step 4",
            Order::C => "names its target in step 3, charges in step 6",
            Order::CH => "holds; may half-move in step 7 if an enemy is within 6\"",
            Order::M => "moves in step 7, fires in step 8",
            Order::D => "retires in step 5 by its bonus dice, disordered",
        }
    }
}

/// The orders sheet's own words: writing an order (OR1), and rapid fire with breech-loaders
/// and repeaters (OR15). Writing's `Display` never says the order: the log, the undo button and
/// every view keep it sealed until step 3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OrAction {
    WriteOrder { unit: String, order: Order },
    /// What a report says of a written order before step 3: the unit, not the order.
    Sealed { unit: String },
    /// OR15: fire as `Fire` does, rapidly: a die more, and ammunition runs low on all 5s and 6s
    /// (breech-loaders) or all 4s, 5s and 6s (repeaters).
    RapidFire { unit: String, target: String },
    /// OR12, OR15: a supply wagon drives in its side's part of step 7, never to end within 1' of
    /// the enemy's line.
    MoveWagon { wagon: String, to: Vec2 },
}

impl OrAction {
    pub fn unit(&self) -> &str {
        match self {
            OrAction::WriteOrder { unit, .. } | OrAction::Sealed { unit } | OrAction::RapidFire { unit, .. } => unit,
            OrAction::MoveWagon { wagon, .. } => wagon,
        }
    }
    /// The units it names: the one acting first, then its target.
    pub fn units_named(&self) -> Vec<&str> {
        match self {
            OrAction::RapidFire { unit, target } => vec![unit, target],
            // A wagon is no unit.
            OrAction::MoveWagon { .. } => Vec::new(),
            other => vec![other.unit()],
        }
    }
}

impl fmt::Display for OrAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrAction::RapidFire { unit, target } => write!(f, "{unit} fires rapidly at {target}"),
            OrAction::MoveWagon { wagon, to } => write!(f, "{wagon} drives to ({:.2}, {:.2})", to.x, to.y),
            other => write!(f, "write the order of {} (sealed until step 3)", other.unit()),
        }
    }
}

/// A unit's morale state (OR10-OR11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Morale {
    #[default]
    Steady,
    /// Yellow marker: −1 DRM, no charging.
    Shaken,
    /// Red marker: no fire, moves only in step 2a.
    Routed,
}

/// What the orders sheet keeps for a unit beyond the common sheet.
#[derive(Component, Clone, Debug, PartialEq, Serialize)]
pub struct OrUnit {
    pub quality: AcwQuality,
    pub weapon: Option<AcwWeapon>,
    pub gun: Option<AcwGun>,
    /// Figures at 1:25, 4 a stand (guns: crew, 4 a section).
    pub figures: u32,
    pub initial_figures: u32,
    /// This turn's order (OR1), sealed until step 3.
    pub order: Option<Order>,
    /// A charger's target, named in step 3 (OR4).
    pub target: Option<String>,
    pub morale: Morale,
    pub disordered: bool,
    /// Has taken its first casualty (OR9: a check).
    pub bloodied: bool,
    pub low_ammo: bool,
    pub horses_lost: u32,
    /// Fired this turn (each order fires once at most).
    pub fired: bool,
    /// Whom it fired at in step 4 (OR17: no defensive volley at an attacker it fired at first).
    pub fired_first_at: Vec<String>,
    /// Chargers it volleyed at this turn (OR17: never twice at one unit).
    pub volleyed_at: Vec<String>,
    /// Inches of its step-7 move spent.
    pub spent: f32,
    pub moved: bool,
    pub formed: bool,
    /// Fought in melee this turn (OR22: officers near it roll 5-6).
    pub meleed: bool,
}

impl OrUnit {
    pub fn stands(&self) -> u32 {
        self.figures.div_ceil(FIGURES_A_STAND)
    }
    pub fn initial_stands(&self) -> u32 {
        self.initial_figures.div_ceil(FIGURES_A_STAND)
    }
    pub fn stands_lost(&self) -> u32 {
        self.initial_stands().saturating_sub(self.stands())
    }
}

/// What the sheet keeps for an officer (OR22-OR23).
#[derive(Component, Clone, Debug, Default, PartialEq, Serialize)]
pub struct OrLeader {
    /// OR8: −1, −2 or −3 to morale, written 1-3.
    pub rating: u8,
    /// Out of the battle (severe, mortal, killed) until replaced in step 2c.
    pub out: bool,
    /// A wound: no benefits until the end of this turn.
    pub no_benefit_until: u32,
    pub wound: Option<String>,
    pub moved: bool,
}

/// The phases of the ten steps (OR3-OR5). Steps where a side decides are played by each side in
/// turn (`usize`: its place in [`Game::sides_in_order`]); the others are resolved by `Next`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Phase {
    /// Step 1: a side writes its orders.
    Orders(usize),
    /// Step 2: routers move, rally, replacement rolls.
    Rally,
    /// Step 3: orders revealed; a side names its chargers' targets.
    Reveal(usize),
    /// Step 4: a side declares its first fire; resolved at once when the last side goes on.
    FirstFire(usize),
    /// Step 5: disengaging units retire.
    Disengage,
    /// Step 6: charges.
    Charges,
    /// Step 7: a side moves; hold fire declared here is resolved when the last side goes on.
    Movement(usize),
    /// Step 8: a side declares moving and hold fire; resolved, then morale.
    MovingFire(usize),
    /// Step 9: officer casualties.
    Officers,
    /// Step 10: orders off, 20 minutes pass.
    End,
}

impl Phase {
    /// The step of the ten (0-based).
    pub fn step(self) -> usize {
        match self {
            Phase::Orders(_) => 0,
            Phase::Rally => 1,
            Phase::Reveal(_) => 2,
            Phase::FirstFire(_) => 3,
            Phase::Disengage => 4,
            Phase::Charges => 5,
            Phase::Movement(_) => 6,
            Phase::MovingFire(_) => 7,
            Phase::Officers => 8,
            Phase::End => 9,
        }
    }
    /// The side's place, in a step where sides decide in turn.
    pub fn side_place(self) -> Option<usize> {
        match self {
            Phase::Orders(p) | Phase::Reveal(p) | Phase::FirstFire(p) | Phase::Movement(p) | Phase::MovingFire(p) => Some(p),
            _ => None,
        }
    }
    /// Orders are on the table for all to see from step 3 (OR4).
    pub fn revealed(self) -> bool {
        self.step() >= 2
    }
}

/// The ten steps as the sheet names them, with their rules.
pub const STEPS: [(&str, &str); 10] = [
    ("1 Mark orders", "1"),
    ("2 Routers, rally, replacements", "3"),
    ("3 Reveal orders, charge targets", "4"),
    ("4 First fire", "5"),
    ("5 Disengage", "5"),
    ("6 Charges", "16"),
    ("7 Normal movement", "12"),
    ("8 Moving and hold fire, morale", "5"),
    ("9 Officer casualties", "22"),
    ("10 Orders off", "5"),
];

/// A shot declared in a fire step, resolved with the others of its step (OR6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Declared {
    pub firer: String,
    pub target: String,
    /// Rapid fire (OR15).
    pub rapid: bool,
}

/// A move the sheet allows: where the stands end and what it spent.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub unit: Entity,
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    pub inches: f32,
}

/// A game under the ACW orders sheet.
pub struct Game {
    pub(super) scenario: Scenario,
    pub(super) charts: Charts,
    pub(super) seed: u64,
    pub(super) dice: Dice,
    pub(super) world: World,
    /// Every unit as spawned, in scenario order; a unit picked up or off the table is gone.
    pub(super) units: Vec<Entity>,
    pub(super) leaders: Vec<Entity>,
    pub(super) turn: u32,
    pub(super) phase: Phase,
    /// Side indices, the one that acts first first (`moves_first`).
    pub(super) sides: Vec<usize>,
    pub(super) declared: Vec<Declared>,
    /// Units gone: name, side, figures then, why.
    pub(super) gone: Vec<(String, usize, u32, String)>,
    /// Each side's figures at the start (OR23: losses are counted from these).
    pub(super) initial_strength: Vec<u32>,
    pub(super) over: bool,
    pub(super) actions: Vec<Action>,
    pub(super) reports: Vec<Report>,
    /// The scenario's supply wagons (`SupplyWagon` entities), and those driven this turn.
    pub(super) wagons: Vec<Entity>,
    pub(super) wagons_moved: Vec<Entity>,
    /// Who sits at the window (`Engine::seat`): the sides played by hand in solo play, `None`
    /// at a hot-seat table. It changes what the views show, never the game.
    pub(super) seat: Option<Vec<usize>>,
}

impl Game {
    pub fn new(scenario: Scenario, seed: u64) -> Game {
        Game::with_charts(scenario, seed, Charts::embedded().clone())
    }

    /// A new game whose stands are laid out at the sheet's scale: a stand for each 100 men
    /// (at least one), guns in sections of two.
    pub fn with_charts(scenario: Scenario, seed: u64, charts: Charts) -> Game {
        let mut based = scenario.clone();
        for u in based.sides.iter_mut().flat_map(|s| &mut s.brigades).flat_map(|b| &mut b.units) {
            // A scenario written for another rule set may use formations the sheet lacks.
            if !moves::formations(u.arm).contains(&u.formation) {
                u.formation = match (u.arm, u.formation) {
                    (Arm::Infantry, Formation::LooseOrder | Formation::Dismounted) => Formation::ExtendedLine,
                    (Arm::Cavalry, Formation::ExtendedLine | Formation::LooseOrder) => Formation::Skirmish,
                    (Arm::Artillery { .. }, _) => Formation::Unlimbered,
                    _ => Formation::Line,
                };
            }
            if !matches!(u.arm, Arm::Artillery { .. }) {
                let per = basing::figures_per_stand(u);
                let most = (basing::MAX_FIGURES / per).max(1);
                u.figures = or_stands(u).min(most) * per;
            }
        }
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &based, &scenario.name);
        let order: Vec<&crate::scenario::model::Unit> = based.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).collect();
        let mut units: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Unit)>() {
            Some(mut q) => q.iter(&world).map(|(e, u)| (order.iter().position(|m| m.name == u.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        units.sort();
        let units: Vec<Entity> = units.into_iter().map(|(_, e)| e).collect();
        for &e in &units {
            let name = world.get::<Unit>(e).map(|u| u.name.clone()).unwrap_or_default();
            let Some(model) = order.iter().find(|m| m.name == name) else { continue };
            let profile = model.acw_profile();
            let figures = match model.arm {
                Arm::Artillery { .. } => model.figures.div_ceil(basing::GUNS_PER_SECTION).max(1) * FIGURES_A_STAND,
                _ => world.get::<Unit>(e).map_or(0, |u| u.stands.len() as u32) * FIGURES_A_STAND,
            };
            world.entity_mut(e).insert(OrUnit {
                quality: profile.quality,
                weapon: profile.weapon,
                gun: profile.gun,
                figures,
                initial_figures: figures,
                order: None,
                target: None,
                morale: Morale::Steady,
                disordered: false,
                bloodied: false,
                low_ammo: false,
                horses_lost: 0,
                fired: false,
                fired_first_at: Vec::new(),
                volleyed_at: Vec::new(),
                spent: 0.0,
                moved: false,
                formed: false,
                meleed: false,
            });
        }
        let models: Vec<(String, Option<u8>)> = scenario
            .sides
            .iter()
            .flat_map(|s| s.commander.iter().chain(s.brigades.iter().map(|b| &b.commander)))
            .map(|c| (c.name.clone(), c.acw.and_then(|a| a.rating)))
            .collect();
        let mut leaders: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Commander)>() {
            Some(mut q) => q.iter(&world).map(|(e, c)| (models.iter().position(|(n, _)| *n == c.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        leaders.sort();
        let leaders: Vec<Entity> = leaders.into_iter().map(|(_, e)| e).collect();
        for &e in &leaders {
            let name = world.get::<Commander>(e).map(|c| c.name.clone()).unwrap_or_default();
            let rating = models.iter().find(|(n, _)| *n == name).and_then(|(_, r)| *r).unwrap_or(charts.officers.default_rating.value).clamp(1, 3);
            world.entity_mut(e).insert(OrLeader { rating, ..OrLeader::default() });
        }
        let initial_strength = (0..scenario.sides.len()).map(|i| units.iter().filter(|&&e| world.get::<Unit>(e).is_some_and(|u| u.side == i)).filter_map(|&e| world.get::<OrUnit>(e)).map(|o| o.figures).sum()).collect();
        let mut sides: Vec<usize> = (0..scenario.sides.len()).collect();
        sides.sort_by_key(|&i| !scenario.sides[i].moves_first);
        let wagons = spawn::spawn_wagons(&mut world, &scenario);
        Game {
            scenario,
            charts,
            seed,
            dice: Dice::new(seed),
            world,
            units,
            leaders,
            turn: 1,
            phase: Phase::Orders(0),
            sides,
            declared: Vec::new(),
            gone: Vec::new(),
            initial_strength,
            over: false,
            actions: Vec::new(),
            reports: Vec::new(),
            wagons,
            wagons_moved: Vec::new(),
            seat: None,
        }
    }

    // ---- reading the table ----

    pub fn unit(&self, e: Entity) -> Option<&Unit> {
        self.world.get::<Unit>(e)
    }

    pub fn or(&self, e: Entity) -> Option<&OrUnit> {
        self.world.get::<OrUnit>(e)
    }

    pub fn leader(&self, e: Entity) -> Option<(&Commander, &OrLeader)> {
        Some((self.world.get::<Commander>(e)?, self.world.get::<OrLeader>(e)?))
    }

    pub fn charts(&self) -> &Charts {
        &self.charts
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The units on the table, in scenario order.
    pub fn live_units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.units.iter().filter_map(|&e| Some((e, self.unit(e)?)))
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.scenario.sides.get(side).map_or("?", |s| s.name.as_str())
    }

    pub(super) fn name(&self, e: Entity) -> String {
        self.unit(e).map_or_else(|| "?".into(), |u| u.name.clone())
    }

    /// The side deciding now, in a step where sides decide in turn.
    pub fn acting_side(&self) -> Option<usize> {
        if self.over {
            return None;
        }
        self.phase.side_place().map(|p| self.sides[p])
    }

    /// The unit of that name on the table.
    pub fn find(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_units().find(|(_, u)| u.name == name) {
            return Ok(e);
        }
        if let Some((_, _, _, why)) = self.gone.iter().find(|(n, ..)| n == name) {
            return refuse("11", format!("{name} is no longer on the table: {why}"));
        }
        Err(Refusal::unruled(OR, format!("no unit named \"{name}\"")))
    }

    pub fn situation(&self) -> Situation {
        Situation::from_world(&self.world)
    }

    /// Whether the order of `unit` may be shown now: to everyone from step 3; before, at a
    /// hot-seat table to its own side while that side writes (the other side has handed over
    /// the table), and in solo play to the sides played at the window, never to the automatic
    /// player's (OR1-OR2: orders are hidden).
    pub fn order_visible(&self, e: Entity) -> bool {
        if self.phase.revealed() {
            return true;
        }
        let Some(u) = self.unit(e) else { return false };
        match &self.seat {
            Some(by_hand) => by_hand.contains(&u.side),
            None => self.acting_side() == Some(u.side) && matches!(self.phase, Phase::Orders(_)),
        }
    }

    /// Who sits at the window: the sides played by hand (solo play), or `None` at a hot-seat
    /// table. Only what the views show changes.
    pub fn set_seat(&mut self, by_hand: Option<Vec<usize>>) {
        self.seat = by_hand;
    }

    // ---- supply wagons (OR12, OR15) ----

    /// The wagon entities with their state.
    pub fn wagons(&self) -> impl Iterator<Item = (Entity, &spawn::SupplyWagon)> {
        self.wagons.iter().filter_map(|&w| Some((w, self.world.get::<spawn::SupplyWagon>(w)?)))
    }

    /// The nearest stand of `side`'s enemies to `at`: its unit's name and the distance.
    pub fn nearest_enemy_stand(&self, side: usize, at: Vec2) -> Option<(String, f32)> {
        self.live_units()
            .filter(|(_, u)| u.side != side)
            .flat_map(|(_, u)| spawn::unit_footprints(&self.world, u).into_iter().map(move |f| (u.name.clone(), point_to_footprint(&f, at))))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// OR15: a unit may roll for ammunition in step 2c when a wagon of its side is within
    /// `wagon_supply` of one of its stands; a scenario without wagons needs none (as before
    /// wagons were built, so AWI and OTP scenarios play as they did). The nearest wagon when
    /// there is one, with its distance.
    pub fn supplying_wagon(&self, e: Entity) -> Result<Option<(String, f32)>, Option<(String, f32)>> {
        if self.wagons.is_empty() {
            return Ok(None);
        }
        let Some(u) = self.unit(e) else { return Err(None) };
        let stands = spawn::unit_footprints(&self.world, u);
        let nearest = self
            .wagons()
            .filter(|(_, w)| w.side == u.side)
            .map(|(_, w)| (w.name.clone(), stands.iter().map(|f| point_to_footprint(f, w.at)).fold(f32::INFINITY, f32::min)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some(n) if n.1 <= self.charts.movement.wagon_supply.value + EPS => Ok(Some(n)),
            other => Err(other),
        }
    }

    /// OR12: a wagon drives in its side's part of step 7, once a turn, at most `wagon_move`,
    /// staying on the table, and may not end within `wagon_clearance` of any enemy stand (the
    /// sheet's "1' from main battle line", read as the enemy's).
    pub fn check_wagon(&self, name: &str, to: Vec2) -> Result<Entity, Refusal> {
        self.open()?;
        let Some((e, w)) = self.wagons().find(|(_, w)| w.name == name) else {
            return Err(Refusal::unruled(OR, format!("no supply wagon named \"{name}\"")));
        };
        if !matches!(self.phase, Phase::Movement(_)) || self.acting_side() != Some(w.side) {
            return refuse("12", format!("{name} drives in its side's part of step 7"));
        }
        if self.wagons_moved.contains(&e) {
            return refuse("12", format!("{name} has driven this turn"));
        }
        if !to.is_finite() || !self.situation().on_table(to) {
            return refuse("12", format!("{name} must stay on the table"));
        }
        let most = self.charts.movement.wagon_move.value;
        if w.at.distance(to) > most + EPS {
            return refuse("12", format!("{name} drives at most {}; that is {}", inches(most), inches(w.at.distance(to))));
        }
        let clear = self.charts.movement.wagon_clearance.value;
        if let Some((unit, d)) = self.nearest_enemy_stand(w.side, to).filter(|(_, d)| *d < clear - EPS) {
            return refuse("12", format!("supply wagons must stay {} from the battle line: {name} would end {} from {unit}", inches(clear), inches(d)));
        }
        Ok(e)
    }

    /// The order as the views may show it: `None` while sealed or unwritten.
    pub fn shown_order(&self, e: Entity) -> Option<Order> {
        if self.order_visible(e) { self.or(e).and_then(|o| o.order) } else { None }
    }

    /// The officer present with a unit (OR8): its brigade's commander (or the side's overall
    /// commander) within `officer_present` inches, not out nor wounded; his rating.
    pub fn officer_present(&self, e: Entity) -> Option<(Entity, u8)> {
        let unit = self.unit(e)?;
        let stands = spawn::unit_footprints(&self.world, unit);
        let within = self.charts.morale.officer_present.value;
        self.leaders
            .iter()
            .filter_map(|&l| Some((l, self.leader(l)?)))
            .filter(|(_, (c, o))| c.side == unit.side && (c.brigade.is_none() || c.brigade == Some(unit.brigade)) && !o.out && o.no_benefit_until < self.turn)
            .filter(|(_, (c, _))| stands.iter().any(|f| crate::table::cover::distance_to_stand(f, c.at) <= within + EPS))
            .map(|(l, (_, o))| (l, o.rating))
            .max_by_key(|&(_, r)| r)
    }

    /// Quality of a unit as the rules group it: elite and veterans are steady, green and militia
    /// are not (OR12, OR16, OR17).
    pub fn steady(q: AcwQuality) -> bool {
        matches!(q, AcwQuality::Elite | AcwQuality::Veteran)
    }

    /// The nearest enemy unit (index in `s`) and its distance edge to edge.
    pub fn nearest_enemy(s: &Situation, me: usize) -> Option<(usize, f32)> {
        (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (o, range::unit_distance(s, me, o))).min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// OR12: the unit's move this step: its row and ground, and the inches.
    pub fn allowance(&self, e: Entity) -> Option<(f32, String)> {
        let unit = self.unit(e)?;
        let o = self.or(e)?;
        let s = self.situation();
        let index = s.find(&unit.name).ok()?;
        let ground = moves::ground_of(&s, &s.unit(index).footprints());
        let mover = moves::mover(unit.arm, unit.formation, o.disordered, o.morale == Morale::Routed, o.horses_lost > 0);
        let row = self.charts.movement.row(mover);
        let rate = row.rates.get(ground).or(if ground == Ground::Road { row.rates.open } else { None })?;
        Some((rate, format!("{mover:?}, {}: {}", ground.name(), inches(rate))))
    }

    // ---- the checks, one an action ----

    fn open(&self) -> Result<(), Refusal> {
        if self.over {
            return refuse("5", "the game is over: the last turn has been played");
        }
        Ok(())
    }

    /// A unit of the side deciding now, in `phase`-like steps, for an order under `rule`.
    fn own_unit(&self, name: &str, rule: &str, step: &str) -> Result<Entity, Refusal> {
        self.open()?;
        let e = self.find(name)?;
        let side = self.unit(e).map_or(0, |u| u.side);
        match self.acting_side() {
            Some(s) if s == side => Ok(e),
            Some(s) => refuse(rule, format!("{name} is {}'s: {} is acting in {step}", self.side_name(side), self.side_name(s))),
            None => refuse(rule, format!("{name} cannot act now: {step} is not a step where sides decide (it is step {})", self.phase.step() + 1)),
        }
    }

    /// OR1: a side writes one of the seven orders for each of its units in step 1; it may
    /// rewrite it until it goes on. Routed units take no orders (OR11); shaken units may not
    /// charge (OR11).
    pub fn check_write(&self, name: &str, order: Order) -> Result<Entity, Refusal> {
        if !matches!(self.phase, Phase::Orders(_)) {
            self.open()?;
            return refuse("1", format!("orders are written in step 1; it is step {}", self.phase.step() + 1));
        }
        let e = self.own_unit(name, "1", "step 1")?;
        let o = self.or(e).expect("every unit has its sheet");
        if o.morale == Morale::Routed {
            return refuse("11", format!("{name} is routed: it takes no order and moves in step 2a"));
        }
        if order == Order::C && o.morale == Morale::Shaken {
            return refuse("11", format!("{name} is shaken: a shaken unit may not charge"));
        }
        if order == Order::C && matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. })) {
            return refuse("16", format!("{name} is a battery: guns do not charge"));
        }
        Ok(e)
    }

    /// The enemies in the charger's primary zone (OR4): the corridor straight ahead of its
    /// frontage, any part of a stand in it, within `reach` inches.
    pub fn primary_zone(s: &Situation, me: usize, reach: f32) -> Vec<usize> {
        let u = s.unit(me);
        let Some(arc) = Arc::of_unit(u) else { return Vec::new() };
        let fwd = crate::table::footprint::bearing_vector(arc.facing);
        let (l, r) = (arc.front_left, arc.front_right);
        let across = r - l;
        let width = across.length();
        let side = across / width.max(EPS);
        (0..s.units().len())
            .filter(|&o| s.unit(o).side != u.side)
            .filter(|&o| {
                s.unit(o).stands.iter().flat_map(|st| st.footprint.corners()).any(|p| {
                    let d = p - l;
                    let (x, y) = (d.dot(side), d.dot(fwd));
                    (-EPS..=width + EPS).contains(&x) && y > -EPS && y <= reach + EPS
                })
            })
            .collect()
    }

    /// The most a charge may cover (OR16): the move plus every bonus die at its best.
    pub fn charge_reach(&self, e: Entity) -> f32 {
        let Some((rate, _)) = self.allowance(e) else { return 0.0 };
        rate + self.bonus_dice(e).map_or(0.0, |d| d * 6.0)
    }

    /// OR12 bonus dice for the unit on its ground (a half: a D6 halved).
    pub fn bonus_dice(&self, e: Entity) -> Option<f32> {
        let unit = self.unit(e)?;
        let s = self.situation();
        let index = s.find(&unit.name).ok()?;
        let ground = moves::ground_of(&s, &s.unit(index).footprints());
        let arm = match unit.arm {
            Arm::Infantry => super::charts::ArmKey::Infantry,
            Arm::Cavalry => super::charts::ArmKey::Cavalry,
            Arm::Artillery { .. } => super::charts::ArmKey::Artillery,
        };
        self.charts.movement.bonus(arm).dice.get(ground)
    }

    /// OR12: the least and the most the unit's bonus dice can throw on its ground (a half die:
    /// a D6 halved, rounded up, so 1 to 3).
    pub fn bonus_range(&self, e: Entity) -> (f32, f32) {
        let dice = self.bonus_dice(e).unwrap_or(0.0);
        let whole = dice.floor();
        let half = dice - whole > EPS;
        (whole + if half { 1.0 } else { 0.0 }, whole * 6.0 + if half { 3.0 } else { 0.0 })
    }

    /// OR16: inches along its charge where the unit falls into disorder, after its move `rate`
    /// and a bonus roll of `bonus`: elite and veterans after the move and half the bonus; green
    /// and militia throughout (0: from the start).
    pub fn disorder_point(&self, e: Entity, rate: f32, bonus: f32) -> f32 {
        match self.or(e) {
            Some(o) if Game::steady(o.quality) => rate + bonus * self.charts.charge.steady_disorder_share.value,
            _ => 0.0,
        }
    }

    /// OR17: why the defender `t` has no defensive volley at the charger `attacker` (routed, no
    /// weapon, it fired first at it, it volleyed at it already), as a phrase; `None`: it volleys.
    pub fn no_volley(&self, t: Entity, attacker: &str) -> Option<String> {
        let d = self.or(t)?;
        if d.morale == Morale::Routed {
            Some(" (it is routed)".into())
        } else if self.ranges(t).is_none() {
            Some(" (it has no weapon)".into())
        } else if d.fired_first_at.iter().any(|n| n == attacker) {
            Some(" (it fired first at it, FR)".into())
        } else if d.volleyed_at.iter().any(|n| n == attacker) {
            Some(" (it has volleyed at it this turn)".into())
        } else {
            None
        }
    }

    /// OR17: the defensive volley point's inches a pip (half for elite and veterans) and its
    /// net adjustment (-1" officer present, elite or works; +1" disordered, CH or forming; at
    /// most 1" either way).
    pub fn volley_terms(&self, t: Entity) -> (f32, f32) {
        let cc = &self.charts.charge;
        let Some(d) = self.or(t) else { return (cc.volley_pip_green.value, 0.0) };
        let pip = if Game::steady(d.quality) { cc.volley_pip_steady.value } else { cc.volley_pip_green.value };
        let mut adjust: f32 = 0.0;
        if self.officer_present(t).is_some() || d.quality == AcwQuality::Elite || self.morale_mods(t, true).iter().any(|m| m.rule == "8" && m.name.contains("works")) {
            adjust -= 1.0;
        }
        if d.disordered || matches!(d.order, Some(Order::CH | Order::FM)) {
            adjust += 1.0;
        }
        (pip, adjust.clamp(-cc.volley_adjust_most.value, cc.volley_adjust_most.value))
    }

    /// OR4: in step 3 a unit ordered to charge names its target: an enemy it can reach by the
    /// table's charge path within its move and bonus, one in its primary zone if any is there.
    pub fn check_charge(&self, name: &str, target: &str) -> Result<(Entity, Entity, ChargePath), Refusal> {
        if !matches!(self.phase, Phase::Reveal(_)) {
            self.open()?;
            return refuse("4", format!("charge targets are named in step 3 and charged in step 6; it is step {}", self.phase.step() + 1));
        }
        let e = self.own_unit(name, "4", "step 3")?;
        let o = self.or(e).expect("sheet");
        if o.order != Some(Order::C) {
            return refuse("2", format!("{name} is not ordered to charge (C): its order is {}", o.order.map_or("none", Order::name)));
        }
        if o.target.is_some() {
            return refuse("4", format!("{name} has named its target"));
        }
        if o.morale != Morale::Steady {
            return refuse("11", format!("{name} is {:?}: it may not charge", o.morale));
        }
        let t = self.find(target)?;
        if self.unit(t).map(|u| u.side) == self.unit(e).map(|u| u.side) {
            return refuse("4", format!("{target} is a friend"));
        }
        let s = self.situation();
        let (a, b) = (s.find(name).map_err(|m| Refusal::unruled(OR, m))?, s.find(target).map_err(|m| Refusal::unruled(OR, m))?);
        let reach = self.charge_reach(e);
        let zone = Game::primary_zone(&s, a, reach);
        if !zone.is_empty() && !zone.contains(&b) {
            let names: Vec<&str> = zone.iter().map(|&z| s.unit(z).name.as_str()).collect();
            return refuse("4", format!("{name} must charge a unit in its primary zone first: {}", names.join(", ")));
        }
        let path = contact::charge_path(&s, a, b, &MOVES);
        if let Some(p) = &path.problem {
            return refuse("16", format!("{name} has no path to {target}: {}", p.reason));
        }
        if let Some(w) = path.interpenetrates.first() {
            return refuse("16", format!("{name}'s path to {target} runs through {w}"));
        }
        if path.distance > reach + EPS {
            return refuse("16", format!("{target} is {} away by the charge path: {name} reaches at most {} (move and every bonus die)", inches(path.distance), inches(reach)));
        }
        Ok((e, t, path))
    }

    /// OR2, OR5, OR13: who fires when. Step 4: First Fire and Hold; step 7: Hold; step 8: Move
    /// and Hold. Once a turn; not routed; an enemy in range (long at most) and in the front arc;
    /// not a unit already in contact.
    pub fn check_fire(&self, name: &str, target: &str) -> Result<(Entity, Entity), Refusal> {
        let (rule, allowed): (&str, &[Order]) = match self.phase {
            Phase::FirstFire(_) => ("5", &[Order::FR, Order::H]),
            Phase::Movement(_) => ("5", &[Order::H]),
            Phase::MovingFire(_) => ("5", &[Order::M, Order::H]),
            _ => {
                self.open()?;
                return refuse("5", format!("fire is in steps 4, 7 (hold) and 8; it is step {}", self.phase.step() + 1));
            }
        };
        let e = self.own_unit(name, rule, "this step")?;
        let o = self.or(e).expect("sheet");
        let order = o.order.unwrap_or(Order::H);
        if !allowed.contains(&order) {
            let codes: Vec<&str> = allowed.iter().map(|o| o.code()).collect();
            return refuse("2", format!("{name} is ordered {} ({}): in this step only {} fire", order.code(), order.permits(), codes.join(" and ")));
        }
        if o.fired || self.declared.iter().any(|d| d.firer == name) {
            return refuse("2", format!("{name} has fired this turn"));
        }
        if o.morale == Morale::Routed {
            return refuse("11", format!("{name} is routed: routed units do not fire"));
        }
        let t = self.find(target)?;
        if self.unit(t).map(|u| u.side) == self.unit(e).map(|u| u.side) {
            return refuse("13", format!("{target} is a friend: fire is at an enemy"));
        }
        self.shot_geometry(e, t).map(|_| (e, t))
    }

    /// OR15: rapid fire is fire (every check of `check_fire`) by a unit with breech-loaders or
    /// repeaters that is not already low on ammunition.
    pub fn check_rapid_fire(&self, name: &str, target: &str) -> Result<(Entity, Entity), Refusal> {
        let (e, t) = self.check_fire(name, target)?;
        if self.rapid_low_from(e).is_none() {
            let arm = self.weapon_of(e).filter(|_| !matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. })));
            return refuse("15", format!("{name} fires {}: only breech-loaders and repeaters fire rapidly", arm.map_or_else(|| "guns".to_string(), |w| format!("{w:?}"))));
        }
        if self.or(e).is_some_and(|o| o.low_ammo) {
            return refuse("15", format!("{name} is low on ammunition: it cannot fire rapidly until a replacement roll in step 2c"));
        }
        Ok((e, t))
    }

    /// OR15: the face from which every die runs a rapid-firing unit low on ammunition (5 for
    /// breech-loading carbines, 4 for repeaters); `None` for a unit that cannot fire rapidly.
    pub fn rapid_low_from(&self, e: Entity) -> Option<u8> {
        if matches!(self.unit(e)?.arm, Arm::Artillery { .. }) {
            return None;
        }
        let c = &self.charts.combat;
        match self.weapon_of(e)? {
            AcwWeapon::BreechLoadingCarbine => Some(c.rapid_low_from_breechloaders.value),
            AcwWeapon::Repeater => Some(c.rapid_low_from_repeaters.value),
            _ => None,
        }
    }

    /// OR12: a move in step 7 by the movement table: M the full move, CH half if an enemy is
    /// within 6", FM what is left after forming. Gun and skirmisher stand-offs; no contact.
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<Placed, Refusal> {
        if !matches!(self.phase, Phase::Movement(_)) {
            self.open()?;
            return refuse("12", format!("units move in step 7 (routers in 2a, disengaging units in 5, chargers in 6); it is step {}", self.phase.step() + 1));
        }
        let e = self.own_unit(name, "12", "step 7")?;
        let unit = self.unit(e).expect("found");
        let o = self.or(e).expect("sheet");
        let s = self.situation();
        let index = s.find(name).map_err(|m| Refusal::unruled(OR, m))?;
        let order = o.order.unwrap_or(Order::H);
        let share = match order {
            Order::M => 1.0,
            Order::FM if o.formed => 1.0,
            Order::FM => return refuse("2", format!("{name} is ordered to form (FM): it forms first, then may move what is left")),
            Order::CH => {
                let near = Game::nearest_enemy(&s, index).is_some_and(|(_, d)| d <= self.charts.movement.conditional_hold_near.value + EPS);
                if !near {
                    return refuse("2", format!("{name} is on Conditional Hold: it may half-move only with an enemy within {}", inches(self.charts.movement.conditional_hold_near.value)));
                }
                0.5
            }
            other => return refuse("2", format!("{name} is ordered {} ({}): it does not move in step 7", other.code(), other.permits())),
        };
        if o.morale == Morale::Routed {
            return refuse("11", format!("{name} is routed: it moves only in step 2a"));
        }
        if o.moved && order != Order::FM {
            return refuse("12", format!("{name} has moved this turn"));
        }
        if steps.is_empty() {
            return refuse("12", "a move needs at least one step");
        }
        if steps.len() > MOST_STEPS {
            return Err(Refusal::unruled(OR, format!("{} steps is no move a player orders (at most {MOST_STEPS})", steps.len())));
        }
        let mut facing_cost = 0.0;
        for step in steps {
            let numbers: Vec<f32> = match step {
                MoveStep::Forward(d) | MoveStep::SideStep(d) => vec![*d],
                MoveStep::Oblique { angle, distance } => vec![*angle, *distance],
                MoveStep::Wheel { angle, .. } => vec![*angle],
                MoveStep::Path(points) => points.iter().flat_map(|p| [p.x, p.y]).collect(),
                MoveStep::Stands(list) => list.iter().flat_map(|m| [m.to.x, m.to.y, m.facing]).collect(),
                MoveStep::AboutFace => {
                    facing_cost += self.face_flank_cost(o.quality);
                    Vec::new()
                }
                MoveStep::ChangeFormation(_) => return refuse("12", "a change of formation is its own order (FM) in step 7"),
                _ => return refuse("12", format!("{step}: the sheet moves a unit whole (forward, oblique, side step, wheel, about face, a column along a path)")),
            };
            if numbers.iter().any(|x| !x.is_finite() || x.abs() > 10_000.0) || matches!(step, MoveStep::Wheel { angle, .. } if angle.abs() > 360.0) {
                return Err(Refusal::unruled(OR, format!("{step}: not a number a table can measure")));
            }
        }
        let (rate, what) = self.allowance(e).ok_or_else(|| Refusal::by(OR.cite("12"), format!("{name} may not move on this ground in its formation")))?;
        let full = rate * share;
        let left = full - o.spent - facing_cost;
        if left < -EPS {
            return refuse("12", format!("{name} has no move left: facing a flank costs {}", inches(facing_cost)));
        }
        let plan = movement::plan_move(&s, index, steps, Allowance::new(left.max(0.0)), &MOVES);
        if let Some(p) = &plan.problem {
            return refuse("12", format!("{name}: {} ({what}, {} left)", p.reason, inches(left.max(0.0))));
        }
        if plan.off_table || plan.stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("12", format!("{name} would leave the table"));
        }
        // The ground it ends on may be slower than where it began.
        let after = s.with_stands(index, &plan.stands, plan.formation);
        let end_ground = moves::ground_of(&after, &plan.stands);
        let mover = moves::mover(unit.arm, unit.formation, o.disordered, false, o.horses_lost > 0);
        let end_rate = self.charts.movement.row(mover).rates.get(end_ground).or(if end_ground == Ground::Road { None } else { Some(0.0) }).unwrap_or(rate);
        if plan.spent > end_rate * share - o.spent - facing_cost + EPS && end_rate < rate {
            return refuse("12", format!("{name} would end in {} ground, where it moves at most {}; the move is {}", end_ground.name(), inches(end_rate * share), inches(plan.spent)));
        }
        self.stand_offs(&after, index, name)?;
        if !contact::units_in_contact(&after, index).is_empty() {
            return refuse("12", format!("{name} would end in contact with the enemy: contact is made only by a charge (C) in step 6"));
        }
        Ok(Placed { unit: e, stands: plan.stands, formation: plan.formation, inches: plan.spent + facing_cost })
    }

    /// OR12: guns keep 4" from enemy infantry and 6" from others; skirmishers 2".
    fn stand_offs(&self, s: &Situation, index: usize, name: &str) -> Result<(), Refusal> {
        let me = s.unit(index);
        let m = &self.charts.movement;
        for o in (0..s.units().len()).filter(|&o| s.unit(o).side != me.side) {
            let d = range::unit_distance(s, index, o);
            let keep = match me.arm {
                Arm::Artillery { .. } if s.unit(o).arm == Arm::Infantry => m.guns_from_infantry.value,
                Arm::Artillery { .. } => m.guns_from_others.value,
                _ if me.formation == Formation::Skirmish => m.skirmishers_from_enemy.value,
                _ => continue,
            };
            if d < keep - EPS {
                return refuse("12", format!("{name} would end {} from {}: it must keep {}", inches(d), s.unit(o).name, inches(keep)));
            }
        }
        Ok(())
    }

    /// OR12: facing a flank costs 2" (veteran, elite) or 4" (green, militia).
    pub fn face_flank_cost(&self, q: AcwQuality) -> f32 {
        if Game::steady(q) { self.charts.movement.face_flank_steady.value } else { self.charts.movement.face_flank_green.value }
    }

    /// OR12: forming costs the whole move if green, skirmishing, disordered, in woods or rough;
    /// else half. The share of the move.
    pub fn form_share(&self, e: Entity) -> f32 {
        let (Some(unit), Some(o)) = (self.unit(e), self.or(e)) else { return 1.0 };
        let s = self.situation();
        let ground = s.find(&unit.name).map(|i| moves::ground_of(&s, &s.unit(i).footprints())).unwrap_or(Ground::Open);
        let slow = !Game::steady(o.quality) || unit.formation == Formation::Skirmish || o.disordered || matches!(ground, Ground::Woods | Ground::Rough);
        // Green guns take a full move to limber, half to unlimber (OR12).
        let guns = matches!(unit.arm, Arm::Artillery { .. });
        let slow = if guns { !Game::steady(o.quality) && unit.formation == Formation::Unlimbered } else { slow };
        if slow { self.charts.movement.form_slow.value } else { self.charts.movement.form_quick.value }
    }

    /// OR2, OR12: a unit ordered FM forms in step 7 (or re-forms from disorder: the same
    /// formation), once, for half or the whole move.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<Placed, Refusal> {
        if !matches!(self.phase, Phase::Movement(_)) {
            self.open()?;
            return refuse("12", format!("units form in step 7; it is step {}", self.phase.step() + 1));
        }
        let e = self.own_unit(name, "12", "step 7")?;
        let unit = self.unit(e).expect("found");
        let o = self.or(e).expect("sheet");
        if o.order != Some(Order::FM) {
            return refuse("2", format!("{name} is ordered {}: only a unit ordered to form (FM) changes formation", o.order.map_or("nothing", Order::code)));
        }
        if o.formed {
            return refuse("12", format!("{name} has formed this turn"));
        }
        if o.morale == Morale::Routed {
            return refuse("11", format!("{name} is routed"));
        }
        if !moves::formations(unit.arm).contains(&to) {
            return refuse("12", format!("{} is not a formation of {name}'s arm on the sheet", formation_name(to)));
        }
        let s = self.situation();
        let index = s.find(name).map_err(|m| Refusal::unruled(OR, m))?;
        if to == unit.formation {
            if !o.disordered {
                return refuse("12", format!("{name} is in {} already and not disordered", formation_name(to)));
            }
            let (rate, _) = self.allowance(e).unwrap_or((0.0, String::new()));
            return Ok(Placed { unit: e, stands: s.unit(index).footprints(), formation: to, inches: rate * self.form_share(e) });
        }
        let plan = movement::plan_move(&s, index, &[MoveStep::ChangeFormation(to)], Allowance::new(1_000.0), &MOVES);
        if let Some(p) = &plan.problem {
            return refuse("12", format!("{name} cannot form {}: {}", formation_name(to), p.reason));
        }
        if plan.stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("12", format!("{name} in {} would not fit on the table", formation_name(to)));
        }
        let after = s.with_stands(index, &plan.stands, to);
        if !contact::units_in_contact(&after, index).is_empty() {
            return refuse("12", format!("{name} in {} would touch the enemy", formation_name(to)));
        }
        let (rate, _) = self.allowance(e).unwrap_or((0.0, String::new()));
        Ok(Placed { unit: e, stands: plan.stands, formation: to, inches: rate * self.form_share(e) })
    }

    /// OR23: a leader moves up to 24" in step 7, once, if not out.
    pub fn check_leader(&self, name: &str, to: Vec2) -> Result<Entity, Refusal> {
        self.open()?;
        let Some(&l) = self.leaders.iter().find(|&&l| self.leader(l).is_some_and(|(c, _)| c.name == name)) else {
            return Err(Refusal::unruled(OR, format!("no leader named \"{name}\"")));
        };
        let (c, o) = self.leader(l).expect("found");
        if !matches!(self.phase, Phase::Movement(_)) || self.acting_side() != Some(c.side) {
            return refuse("23", format!("{name} moves in his side's part of step 7"));
        }
        if o.out {
            return refuse("22", format!("{name} is out of the battle"));
        }
        if o.moved {
            return refuse("23", format!("{name} has moved this turn"));
        }
        if !to.is_finite() || !self.situation().on_table(to) {
            return refuse("23", format!("{name} must stay on the table"));
        }
        let most = self.charts.movement.leader_move.value;
        if c.at.distance(to) > most + EPS {
            return refuse("23", format!("{name} rides at most {}; that is {}", inches(most), inches(c.at.distance(to))));
        }
        Ok(l)
    }

    pub fn check_next(&self) -> Result<(), Refusal> {
        self.open()
    }

    /// The verdict `apply` would give, without dice and without change.
    pub fn check(&self, action: &Action) -> Result<(), Refusal> {
        match action {
            Action::AcwOrders(OrAction::WriteOrder { unit, order }) => self.check_write(unit, *order).map(drop),
            Action::AcwOrders(OrAction::Sealed { .. }) => Err(Refusal::unruled(OR, "a sealed order is what the log shows; write the order itself")),
            Action::Charge { unit, target } => self.check_charge(unit, target).map(drop),
            Action::Fire { unit, target } => self.check_fire(unit, target).map(drop),
            Action::AcwOrders(OrAction::RapidFire { unit, target }) => self.check_rapid_fire(unit, target).map(drop),
            Action::Move { unit, steps } => self.check_move(unit, steps).map(drop),
            Action::ChangeFormation { unit, formation } => self.check_formation(unit, *formation).map(drop),
            Action::MoveLeader { leader, to } => self.check_leader(leader, *to).map(drop),
            Action::AcwOrders(OrAction::MoveWagon { wagon, to }) => self.check_wagon(wagon, *to).map(drop),
            Action::Next => self.check_next(),
            other => {
                self.open()?;
                refuse("5", format!("{other}: not an order of the ACW orders sheet"))
            }
        }
    }

    // ---- applying ----

    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let report = match &action {
            Action::AcwOrders(OrAction::WriteOrder { unit, order }) => {
                let e = self.check_write(unit, *order)?;
                let side = self.side_name(self.unit(e).map_or(0, |u| u.side)).to_string();
                // OR1: the report, the log and the undo button say who wrote, never what.
                let mut report = Report::new(OR, self.turn, Action::AcwOrders(OrAction::Sealed { unit: unit.clone() }), format!("{side} writes the order of {unit} (OR1)"));
                report.outcome = format!("{unit}'s order is written and sealed until step 3");
                self.mark(e, |o| o.order = Some(*order));
                report
            }
            Action::Charge { unit, target } => {
                let (e, _, path) = self.check_charge(unit, target)?;
                let mut report = self.report(&action, format!("{unit} names its charge target: {target} (OR4)"));
                report.note("4", format!("{target} is {} away by the charge path", inches(path.distance)));
                report.outcome = format!("{unit} will charge {target} in step 6");
                let t = target.clone();
                self.mark(e, |o| o.target = Some(t));
                report
            }
            Action::Fire { unit, target } => {
                self.check_fire(unit, target)?;
                let mut report = self.report(&action, format!("{unit} fires at {target} (OR6: resolved with the step's other fire)"));
                report.outcome = format!("{unit}'s fire at {target} is declared; every fire of this step is thrown together when the step ends");
                self.declared.push(Declared { firer: unit.clone(), target: target.clone(), rapid: false });
                report
            }
            Action::AcwOrders(OrAction::RapidFire { unit, target }) => {
                self.check_rapid_fire(unit, target)?;
                let mut report = self.report(&action, format!("{unit} fires rapidly at {target} (OR15; OR6: resolved with the step's other fire)"));
                report.outcome = format!("{unit}'s rapid fire at {target} is declared; every fire of this step is thrown together when the step ends");
                self.declared.push(Declared { firer: unit.clone(), target: target.clone(), rapid: true });
                report
            }
            Action::Move { unit, steps } => {
                let placed = self.check_move(unit, steps)?;
                let mut report = self.report(&action, format!("{unit} moves (OR12)"));
                report.outcome = format!("{unit} moves {}", inches(placed.inches));
                self.place(&placed);
                self.mark(placed.unit, |o| {
                    o.spent += placed.inches;
                    o.moved = true;
                });
                report
            }
            Action::ChangeFormation { unit, formation } => {
                let placed = self.check_formation(unit, *formation)?;
                let reform = self.unit(placed.unit).is_some_and(|u| u.formation == *formation);
                let title = if reform { format!("{unit} re-forms (OR12)") } else { format!("{unit} forms {} (OR12)", formation_name(*formation)) };
                let mut report = self.report(&action, title);
                report.outcome = format!("{unit} is in {}, in good order; forming cost {}", formation_name(*formation), inches(placed.inches));
                self.place(&placed);
                self.mark(placed.unit, |o| {
                    o.formed = true;
                    o.disordered = false;
                    o.spent += placed.inches;
                });
                report
            }
            Action::MoveLeader { leader, to } => {
                let l = self.check_leader(leader, *to)?;
                let mut report = self.report(&action, format!("{leader} rides (OR23)"));
                if let Some(mut c) = self.world.get_mut::<Commander>(l) {
                    c.at = *to;
                }
                if let Some(mut o) = self.world.get_mut::<OrLeader>(l) {
                    o.moved = true;
                }
                report.outcome = format!("{leader} is at ({:.1}, {:.1})", to.x, to.y);
                report
            }
            Action::AcwOrders(OrAction::MoveWagon { wagon, to }) => {
                let w = self.check_wagon(wagon, *to)?;
                let mut report = self.report(&action, format!("{wagon} drives (OR12)"));
                let from = self.world.get::<spawn::SupplyWagon>(w).map_or(*to, |s| s.at);
                if let Some(mut s) = self.world.get_mut::<spawn::SupplyWagon>(w) {
                    s.at = *to;
                }
                self.wagons_moved.push(w);
                report.outcome = format!("{wagon} drives {} to ({:.1}, {:.1})", inches(from.distance(*to)), to.x, to.y);
                report
            }
            Action::Next => {
                self.check_next()?;
                self.next(&action)
            }
            other => return self.check(other).and_then(|()| refuse("5", format!("{other}: not an order of the sheet"))),
        };
        self.actions.push(action);
        self.reports.push(report.clone());
        Ok(report)
    }

    pub(super) fn report(&self, action: &Action, title: String) -> Report {
        Report::new(OR, self.turn, action.clone(), title)
    }

    pub(super) fn mark(&mut self, e: Entity, f: impl FnOnce(&mut OrUnit)) {
        if let Some(mut m) = self.world.get_mut::<OrUnit>(e) {
            f(&mut m);
        }
    }

    /// The unit's stands where a move, a formation or a fall back put them.
    pub(super) fn place(&mut self, placed: &Placed) {
        let Some(mut unit) = self.world.get_mut::<Unit>(placed.unit) else { return };
        unit.formation = placed.formation;
        let stands = unit.stands.clone();
        for (s, f) in stands.into_iter().zip(&placed.stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
    }

    /// Takes `n` figures (at 1:25); the table loses a stand for every 4 (guns: their section).
    /// Returns (figures lost, stands lost, destroyed).
    pub(super) fn lose_figures(&mut self, e: Entity, n: u32) -> (u32, u32, bool) {
        let Some(o) = self.or(e) else { return (0, 0, false) };
        let before = o.stands();
        let lost = n.min(o.figures);
        self.mark(e, |o| {
            o.figures -= lost;
            if lost > 0 {
                o.bloodied = true;
            }
        });
        let o = self.or(e).expect("sheet");
        let (after, left) = (o.stands(), o.figures);
        let unit = self.unit(e).expect("on the table").clone();
        if matches!(unit.arm, Arm::Artillery { .. }) {
            let guns = after * basing::GUNS_PER_SECTION;
            if let Some(&s) = unit.stands.first()
                && let Some(mut st) = self.world.get_mut::<Stand>(s)
            {
                st.figures = guns.max(1);
            }
            if let Some(mut u) = self.world.get_mut::<Unit>(e) {
                u.figures = guns;
            }
        } else {
            let per = unit.stands.first().and_then(|&s| self.world.get::<Stand>(s)).map_or(1, |st| st.figures);
            let mut stands = unit.stands.clone();
            while stands.len() as u32 > after {
                let s = stands.pop().expect("more stands than owed");
                self.world.despawn(s);
            }
            if let Some(mut u) = self.world.get_mut::<Unit>(e) {
                u.stands = stands;
                u.figures = after * per.max(1);
            }
        }
        (lost, before - after, left == 0)
    }

    /// The unit leaves the table (picked up, surrendered, destroyed, routed off).
    pub(super) fn remove(&mut self, e: Entity, why: &str) {
        let Some(unit) = self.unit(e).cloned() else { return };
        let figures = self.or(e).map_or(0, |o| o.figures);
        self.gone.push((unit.name.clone(), unit.side, figures, why.to_string()));
        for s in unit.stands {
            self.world.despawn(s);
        }
        self.world.despawn(e);
    }
}

/// OR scale: a stand for each 100 men, at least one (guns: their own count).
pub fn or_stands(u: &crate::scenario::model::Unit) -> u32 {
    ((u.men_or_default() + MEN_A_STAND / 2) / MEN_A_STAND).max(1)
}

/// The distance from `p` to a stand (0 inside it).
pub fn point_to_footprint(f: &Footprint, p: Vec2) -> f32 {
    if f.contains(p) {
        return 0.0;
    }
    let c = f.corners();
    (0..4)
        .map(|i| {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            let ab = b - a;
            let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
            p.distance(a + ab * t)
        })
        .fold(f32::INFINITY, f32::min)
}
