//! The On to Philadelphia rules engine: a [`Game`] is the scenario's entities in a bevy `World`,
//! the seeded [`Dice`], the [`Charts`], the turn and cup ([`state::Sequence`]), the actions taken
//! and their reports.
//!
//! Every change is an [`Action`]. Applying one validates it first: an illegal action is refused
//! with the rule that forbids it ([`Refusal`]) and nothing changes, not even the dice. A legal one
//! rolls from the game's dice, changes the world and returns a [`Report`] of every die, modifier,
//! chart cell and change. Same scenario + seed + actions ⇒ the same reports, always: a saved game
//! ([`Save`]) is just those three, loading replays them and undo replays all but the last.
//!
//! Sections implemented here: 2.0/4.2 commander values ([`sequence`], [`commanders`]), 3.1–3.3
//! operations ([`operations`]), 4.3–4.5 sequence of play and the end-of-game summary
//! ([`sequence`]), 5.3–5.5/7.7 formation permissions, 6.1–6.2 movement through the table's
//! `plan_move` (7.5: attached guns within their own move), 6.6 disordering terrain ([`terrain`]),
//! 6.11 retreats and optional 6.14 stragglers, 6.12 commanders riding to units, 10.1–10.5 morale
//! markers, passes, re-rolls and commander casualties ([`morale`], [`commanders`]), 11.0
//! rebuilding ([`rebuild`]).
//!
//! 8.x fire combat is wired in through the fire module ([`fire`]); 9.x melee through [`charge`]
//! (`Action::Charge`/`ChargeWith`: declaration, closure, reaction, countercharge, firefight,
//! closing fire and melee with the melee module's values, retreats, markers, commander
//! casualties and the 6.10 bonus move), using `Game::permit` (may the unit charge now?),
//! `Game::record` (the operation done), [`Game::give_marker`], [`Game::mark_artillery_target`],
//! [`Game::lose_figures`] and [`Game::commander_casualty`], each writing into the action's report.

pub mod action;
pub mod attach;
pub mod charge;
pub mod commanders;
pub mod crew;
pub mod describe;
pub mod drivers;
pub mod fire;
pub mod morale;
pub mod move_rules;
pub mod operations;
pub mod rebuild;
pub mod report;
pub mod save;
pub mod sequence;
pub mod special;
pub mod state;
pub mod terrain;
pub mod towns;

use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use bevy::prelude::*;
use serde::Serialize;

pub use action::{Action, ChargeOptions, Reaction, Removal};
pub use operations::Asked;
pub use report::{ChartRead, DieRecord, Entry, Item, Modifier, Refusal, Report, SideSummary, Summary};
pub use save::Save;
pub use state::{CommandState, Phase, Sequence, UnitTurn};

use self::report::refuse;
use self::state::Roster;
use crate::rules::otp::charts::{ArmClass, Charts};
use crate::rules::dice::Dice;
use crate::rules::otp::fire::{CommanderCasualty, FireTable};
use crate::rules::otp::melee::MeleeTable;
use crate::scenario::model::{self, Formation, Scenario};
use crate::scenario::spawn::{self, Brigade, Commander, MoraleMarker, Stand, Unit};
use crate::table::footprint::Footprint;
use crate::table::situation::Situation;

/// A game in progress.
pub struct Game {
    scenario: Scenario,
    seed: u64,
    charts: Charts,
    world: Kept,
    dice: Dice,
    roster: Roster,
    actions: Vec<Action>,
    reports: Vec<Report>,
}

/// The world with the tables built from it, each when first asked for and kept for every
/// question until the world changes (the automatic player asks hundreds between two actions).
/// Any change goes through `DerefMut`, which forgets them.
struct Kept {
    world: World,
    situation: OnceLock<Situation>,
    fire: OnceLock<FireTable>,
    melee: OnceLock<MeleeTable>,
}

impl Kept {
    fn new(world: World) -> Kept {
        Kept { world, situation: OnceLock::new(), fire: OnceLock::new(), melee: OnceLock::new() }
    }
}

impl Deref for Kept {
    type Target = World;
    fn deref(&self) -> &World {
        &self.world
    }
}

impl DerefMut for Kept {
    fn deref_mut(&mut self) -> &mut World {
        (self.situation, self.fire, self.melee) = (OnceLock::new(), OnceLock::new(), OnceLock::new());
        &mut self.world
    }
}

impl Game {
    /// A new game of a validated scenario, before StartGame.
    pub fn new(scenario: Scenario, seed: u64, charts: Charts) -> Game {
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &scenario, &scenario.name);
        world.insert_resource(Sequence::new(&scenario));
        let roster = Roster::of(&world, &scenario);
        for &(u, ..) in &roster.units {
            let marker = world.get::<MoraleMarker>(u).is_some();
            world.entity_mut(u).insert(UnitTurn { marker_turn: marker.then_some(0), ..UnitTurn::default() });
        }
        for &c in &roster.commanders {
            world.entity_mut(c).insert(CommandState::default());
        }
        Game { scenario, seed, charts, world: Kept::new(world), dice: Dice::new(seed), roster, actions: Vec::new(), reports: Vec::new() }
    }

    /// Apply an action: its report, or the rule that refuses it (and then nothing has changed).
    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        action.check_numbers(&self.scenario.table)?;
        let report = match &action {
            Action::StartGame => self.start_game(&action),
            Action::DrawChit => self.draw_chit(&action),
            Action::RemoveMarker { unit, how } => self.remove_marker(&action, unit, how),
            Action::Move { unit, steps } => self.move_unit(&action, unit, steps),
            Action::ChangeFormation { unit, formation } => self.change_formation(&action, unit, *formation),
            Action::Fire { unit, target, ammo } => self.fire(&action, unit, target, *ammo),
            Action::Charge { unit, target } => self.charge(&action, unit, target, ChargeOptions::default()),
            Action::EndActivation => self.end_activation(&action),
            Action::AttemptRebuild { unit } => self.attempt_rebuild(&action, unit),
            Action::EndTurn => self.end_turn(&action),
            Action::SpecialMove { unit, steps } => self.special_move(&action, unit, steps),
            Action::Detach { gun } => self.detach(&action, gun),
            Action::Attach { gun, unit } => self.attach(&action, gun, unit),
            Action::MoveCommander { commander, to } => self.move_commander(&action, commander, *to),
            Action::JoinUnit { commander, unit } => self.join_unit(&action, commander, unit),
            Action::DeployInto { unit, place } => self.deploy_into(&action, unit, place),
            Action::Reman { unit } => self.reman(&action, unit),
            Action::ChargeWith { unit, target, options } => self.charge(&action, unit, target, *options),
        }?;
        self.actions.push(action);
        self.reports.push(report.clone());
        self.sync();
        Ok(report)
    }

    /// Changes other modules make straight into the world, dated: a Morale Marker counts from
    /// this turn (10.4; a unit without one has no marker history), and a commander the fire
    /// module marked a casualty falls this turn (8.16, 10.5).
    fn sync(&mut self) {
        let turn = self.turn();
        for c in self.roster.commanders.clone() {
            let fallen = self.world.get::<CommanderCasualty>(c).is_some();
            if fallen && self.world.get::<CommandState>(c).is_some_and(|s| s.casualty_turn.is_none()) {
                self.command_mut(c).casualty_turn = Some(turn);
                self.world.get_mut::<Commander>(c).expect("a commander").rating = None;
            }
        }
        for u in self.live_units().collect::<Vec<_>>() {
            let has = self.has_marker(u);
            let mut t = self.turn_mut(u);
            if has && t.marker_turn.is_none() {
                t.marker_turn = Some(turn);
            } else if !has && t.marker_turn.is_some() {
                t.marker_turn = None;
                t.marker_from_firefight = false;
            }
        }
    }

    /// The units still in the world, in scenario order.
    fn live_units(&self) -> impl Iterator<Item = Entity> + '_ {
        self.roster.units.iter().map(|r| r.0).filter(|&e| self.world.get::<Unit>(e).is_some())
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn charts(&self) -> &Charts {
        &self.charts
    }
    /// The game state, for views (the window, the unit sheet) to read.
    pub fn world(&self) -> &World {
        &self.world
    }
    /// The world to change directly: for setting up tests and for wiring in other rule modules.
    /// A change made here is not an action: a replay (load, undo) does not repeat it.
    #[doc(hidden)]
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }
    pub fn reports(&self) -> &[Report] {
        &self.reports
    }
    /// How many throws of the dice so far.
    pub fn dice_thrown(&self) -> u64 {
        self.dice.thrown()
    }
    pub fn sequence(&self) -> &Sequence {
        self.world.resource::<Sequence>()
    }
    pub fn phase(&self) -> Phase {
        self.sequence().phase()
    }
    pub fn turn(&self) -> u32 {
        self.sequence().turn
    }
    /// The name of the phasing brigade.
    pub fn phasing_brigade(&self) -> Option<String> {
        self.sequence().phasing.and_then(|c| self.brigade_by_chit(c)).map(|b| self.brigade(b).name.clone())
    }
    /// The end-of-game summary, once the turn limit has passed.
    pub fn summary(&self) -> Option<Summary> {
        self.reports.last().and_then(|r| r.summary.clone())
    }

    /// Every unit still in the game, in scenario order.
    pub fn units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.live_units().map(|e| (e, self.unit(e)))
    }

    /// A unit's sheet (4.2).
    pub fn unit(&self, e: Entity) -> &Unit {
        self.world.get::<Unit>(e).expect("a unit")
    }

    /// Every commander in scenario order: each side's overall commander, then its brigades'.
    pub fn commanders(&self) -> impl Iterator<Item = (Entity, &Commander)> {
        self.roster.commanders.iter().map(|&e| (e, self.commander(e)))
    }

    /// The unit of that name.
    pub fn unit_entity(&self, name: &str) -> Option<Entity> {
        self.live_units().find(|&e| self.unit(e).name == name)
    }

    /// What a unit has done this turn.
    pub fn unit_turn(&self, unit: Entity) -> &UnitTurn {
        self.world.get::<UnitTurn>(unit).expect("every unit has a UnitTurn")
    }

    pub fn has_marker(&self, unit: Entity) -> bool {
        self.world.get::<MoraleMarker>(unit).is_some()
    }

    /// The commander of that name.
    pub fn commander_entity(&self, name: &str) -> Option<Entity> {
        self.roster.commanders.iter().copied().find(|&e| self.commander(e).name == name)
    }

    pub fn commander(&self, e: Entity) -> &Commander {
        self.world.get::<Commander>(e).expect("a commander")
    }

    /// Morale passes a commander has left (10.4, 10.5): none without a rating.
    pub fn passes_left(&self, e: Entity) -> u32 {
        let c = self.commander(e);
        c.rating.map_or(0, |r| (self.charts.commanders.passes(r) as u32).saturating_sub(c.morale_passes_used))
    }

    /// The whole game state as JSON text: two games in the same state give the same text.
    pub fn snapshot(&self) -> String {
        #[derive(Serialize)]
        struct UnitView<'a> {
            name: &'a str,
            figures: u32,
            cv: u8,
            formation: Formation,
            initial_volley_used: bool,
            rebuild_attempts: u8,
            marker: bool,
            turn: &'a UnitTurn,
            stands: Vec<(u32, Footprint)>,
        }
        #[derive(Serialize)]
        struct CommanderView<'a> {
            name: &'a str,
            rating: Option<model::Rating>,
            passes_used: u32,
            at: [f32; 2],
            state: &'a CommandState,
        }
        #[derive(Serialize)]
        struct View<'a> {
            sequence: &'a Sequence,
            dice_thrown: u64,
            actions: usize,
            units: Vec<UnitView<'a>>,
            commanders: Vec<CommanderView<'a>>,
        }
        let units = self
            .units()
            .map(|(e, u)| UnitView {
                name: &u.name,
                figures: u.figures,
                cv: u.cv,
                formation: u.formation,
                initial_volley_used: u.initial_volley_used,
                rebuild_attempts: u.rebuild_attempts,
                marker: self.has_marker(e),
                turn: self.unit_turn(e),
                stands: u.stands.iter().filter_map(|&s| Some((self.world.get::<Stand>(s)?.figures, *self.world.get::<Footprint>(s)?))).collect(),
            })
            .collect();
        let commanders = self
            .roster
            .commanders
            .iter()
            .map(|&e| {
                let c = self.commander(e);
                CommanderView {
                    name: &c.name,
                    rating: c.rating,
                    passes_used: c.morale_passes_used,
                    at: c.at.to_array(),
                    state: self.world.get::<CommandState>(e).expect("every commander has a CommandState"),
                }
            })
            .collect();
        let view = View { sequence: self.sequence(), dice_thrown: self.dice.thrown(), actions: self.actions.len(), units, commanders };
        serde_json::to_string(&view).expect("the snapshot serialises")
    }

    // ---- lookups shared by the handlers ----

    fn seq_mut(&mut self) -> Mut<'_, Sequence> {
        self.world.resource_mut::<Sequence>()
    }


    fn unit_mut(&mut self, e: Entity) -> Mut<'_, Unit> {
        self.world.get_mut::<Unit>(e).expect("a unit")
    }

    fn turn_mut(&mut self, e: Entity) -> Mut<'_, UnitTurn> {
        self.world.get_mut::<UnitTurn>(e).expect("every unit has a UnitTurn")
    }

    fn command_mut(&mut self, e: Entity) -> Mut<'_, CommandState> {
        self.world.get_mut::<CommandState>(e).expect("every commander has a CommandState")
    }

    fn brigade(&self, e: Entity) -> &Brigade {
        self.world.get::<Brigade>(e).expect("a brigade")
    }

    fn brigade_by_chit(&self, chit: u32) -> Option<Entity> {
        self.roster.brigades.iter().copied().find(|&b| self.brigade(b).chit == chit)
    }

    fn side_name(&self, side: usize) -> &str {
        self.roster.sides.get(side).map_or("?", String::as_str)
    }

    fn arm(&self, e: Entity) -> ArmClass {
        ArmClass::from(self.unit(e).arm)
    }

    /// The unit of that name, or a refusal that names the near misses.
    fn find_unit(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some(e) = self.unit_entity(name) {
            return Ok(e);
        }
        let near: Vec<String> = self.units().map(|(_, u)| u.name.clone()).filter(|n| n.eq_ignore_ascii_case(name) || n.to_lowercase().contains(&name.to_lowercase())).collect();
        let hint = if near.is_empty() { String::new() } else { format!("; did you mean {}?", near.join(", ")) };
        refuse("4.2", format!("the unit sheets list no unit named \"{name}\"{hint}"))
    }

    fn find_commander(&self, name: &str) -> Result<Entity, Refusal> {
        self.commander_entity(name).map_or_else(|| refuse("4.2", format!("there is no commander named \"{name}\"")), Ok)
    }

    /// The game must be under way: started and not over.
    fn require_play(&self) -> Result<(), Refusal> {
        match self.phase() {
            Phase::Setup => refuse("4.2", "the game has not started: commander values are rolled first (StartGame)"),
            Phase::Over => refuse("4.5", "the game is over: the turn limit has passed"),
            _ => Ok(()),
        }
    }

    /// The unit must belong to the phasing brigade and still be on the table (4.3).
    fn require_phasing(&self, unit: Entity) -> Result<(), Refusal> {
        self.require_play()?;
        let u = self.unit(unit);
        let b = self.brigade(u.brigade);
        match self.sequence().phasing {
            None => return refuse("4.3", format!("no brigade is phasing: draw a chit first ({} belongs to {}, chit {})", u.name, b.name, b.chit)),
            Some(chit) if chit != b.chit => {
                let phasing = self.brigade_by_chit(chit).map_or_else(String::new, |p| self.brigade(p).name.clone());
                return refuse("4.3", format!("{} belongs to {} (chit {}); the phasing brigade is {phasing} (chit {chit})", u.name, b.name, b.chit));
            }
            _ => {}
        }
        self.require_on_table(unit)
    }

    /// The unit is still on the table with figures (6.11, 8.2).
    fn require_on_table(&self, unit: Entity) -> Result<(), Refusal> {
        let u = self.unit(unit);
        if self.unit_turn(unit).off_table {
            return refuse("6.11", format!("{} has left the table", u.name));
        }
        if u.figures == 0 {
            return refuse("8.2", format!("{} has no figures left", u.name));
        }
        Ok(())
    }

    /// The table as it stands now, built once until the world changes.
    pub fn situation(&self) -> &Situation {
        self.world.situation.get_or_init(|| Situation::from_world(&self.world))
    }

    /// The table as fire sees it now (markers, attachments), kept as [`Game::situation`] is.
    pub fn fire_table(&self) -> &FireTable {
        self.world.fire.get_or_init(|| FireTable::with_situation(&self.world, self.situation().clone()))
    }

    /// The table as melee sees it now (sheets, leaders), kept as [`Game::situation`] is.
    pub fn melee_table(&self) -> &MeleeTable {
        self.world.melee.get_or_init(|| MeleeTable::with_fire(&self.world, self.fire_table().clone()))
    }

    /// The scenario's record of a unit (for its starting stands).
    fn model_unit(&self, name: &str) -> Option<&model::Unit> {
        self.scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).find(|u| u.name == name)
    }

    /// Move a unit's stands (in order) and set its formation.
    fn place(&mut self, unit: Entity, stands: &[Footprint], formation: Formation) {
        let ids = self.unit(unit).stands.clone();
        for (&s, f) in ids.iter().zip(stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
        self.unit_mut(unit).formation = formation;
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::rules::otp::charts::Charts;

    pub fn teaching(seed: u64) -> Game {
        Game::new(crate::scenario::default_scenario(), seed, Charts::embedded().clone())
    }

    /// Apply, panicking with the refusal.
    pub fn ok(g: &mut Game, a: Action) -> Report {
        g.apply(a.clone()).unwrap_or_else(|r| panic!("{a:?}: {r}"))
    }

    /// Draw chits until `brigade` is phasing, ending the others' activations.
    pub fn activate(g: &mut Game, brigade: &str) {
        for _ in 0..8 {
            if g.phasing_brigade().as_deref() == Some(brigade) {
                return;
            }
            if g.phasing_brigade().is_some() {
                ok(g, Action::EndActivation);
            }
            ok(g, Action::DrawChit);
        }
        panic!("{brigade} never came up");
    }

    /// Howard's Continentals phasing, the Delaware lights 3" forward: in musket range of the
    /// 71st Light Company (the set-up the fire views' tests share).
    pub fn in_range(seed: u64) -> Game {
        let mut g = teaching(seed);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![crate::table::movement::MoveStep::Forward(3.0)] });
        g
    }

    /// Draw and end every remaining activation without acting: the rebuild step (4.4).
    pub fn to_rebuilds(g: &mut Game) {
        while g.phase() != Phase::Rebuild {
            if g.phasing_brigade().is_some() {
                ok(g, Action::EndActivation);
            } else {
                ok(g, Action::DrawChit);
            }
        }
    }

    /// A refusal under `rule` that changes nothing.
    pub fn refused(g: &mut Game, a: Action, rule: &str) -> Refusal {
        let before = g.snapshot();
        let r = g.apply(a.clone()).expect_err(&format!("{a:?} should be refused"));
        assert_eq!(r.rule, rule, "{r}");
        assert_eq!(g.snapshot(), before, "a refused {a:?} changed the game");
        r
    }
}
