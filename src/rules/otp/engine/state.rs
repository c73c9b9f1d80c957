//! The engine's part of the game state, kept in the bevy `World` beside what the scenario
//! spawned: the turn and the cup ([`Sequence`], a resource), what each unit has done this turn
//! ([`UnitTurn`]) and each commander's state ([`CommandState`]), both components.

use bevy::prelude::*;
use serde::Serialize;

use super::operations::Activity;
use crate::rules::otp::charts::MoraleResult;
use crate::scenario::model::{Formation, Scenario};
use crate::scenario::spawn::{Brigade, Commander, Stand, Unit};
use crate::table::footprint::Footprint;

/// Where the game is in the sequence of play (4.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Phase {
    /// Before StartGame: commander values not yet rolled (4.2).
    Setup,
    /// Chits remain in the cup and no brigade is phasing: draw one (4.3).
    Draw,
    /// A brigade is phasing (4.3).
    Activation { chit: u32 },
    /// The last chit has been drawn and its activation ended: rebuilds, then end the turn (4.4, 4.5).
    Rebuild,
    /// The turn limit has passed.
    Over,
}

/// The turn record and the cup of chits (4.3–4.5).
#[derive(Resource, Clone, Debug, PartialEq, Serialize)]
pub struct Sequence {
    /// 0 before the game starts.
    pub turn: u32,
    pub turn_limit: Option<u32>,
    pub started: bool,
    pub over: bool,
    /// Chits still in the cup, in increasing order.
    pub cup: Vec<u32>,
    /// Chits drawn this turn, in the order drawn.
    pub drawn: Vec<u32>,
    /// The chit of the phasing brigade.
    pub phasing: Option<u32>,
}

impl Sequence {
    pub fn new(scenario: &Scenario) -> Self {
        Sequence { turn: 0, turn_limit: scenario.turn_limit, started: false, over: false, cup: Vec::new(), drawn: Vec::new(), phasing: None }
    }

    pub fn phase(&self) -> Phase {
        match (self.started, self.over, self.phasing) {
            (false, _, _) => Phase::Setup,
            (_, true, _) => Phase::Over,
            (_, _, Some(chit)) => Phase::Activation { chit },
            _ if self.cup.is_empty() => Phase::Rebuild,
            _ => Phase::Draw,
        }
    }
}

/// A morale roll made this turn (10.2): one a turn, and one re-roll bought with a pass.
#[derive(Clone, Debug, Serialize)]
pub struct MoraleRoll {
    pub result: MoraleResult,
    pub rerolled: bool,
    /// The unit as it was before the roll, to put back for a re-roll.
    #[serde(skip)]
    pub before: Option<Box<UnitRestore>>,
}

/// What a unit has done and suffered this turn, and its Morale Marker's history.
#[derive(Component, Clone, Debug, Default, Serialize)]
pub struct UnitTurn {
    /// The parts of its one operation done so far, in order (3.1–3.3).
    pub done: Vec<Activity>,
    /// Its formation when the operation began (6.1: the move is the start formation's).
    pub start_formation: Option<Formation>,
    /// Inches of movement spent in the operation, formation changes included (6.2).
    pub spent: f32,
    /// It moved or changed formation this turn: not in reserve status (11.0).
    pub moved: bool,
    pub morale: Option<MoraleRoll>,
    /// A result of this turn's morale roll that limits what it may do (HalfMove, Deploy, Stand, Forward).
    pub restriction: Option<MoraleResult>,
    /// Fired on by artillery this turn: not in reserve status (11.0).
    pub artillery_target: bool,
    pub rebuild_tried: bool,
    /// The turn its Morale Marker came (0: before the game); a pass may not remove it that turn (10.4).
    pub marker_turn: Option<u32>,
    /// The marker came from two rounds of a firefight: only a roll removes it (10.4).
    pub marker_from_firefight: bool,
    /// It has left the table (a retreat or a move off an edge).
    pub off_table: bool,
    /// Its operation was a special move (6.8): nothing more this turn, no fire.
    pub special_move: bool,
    /// Its crew remanned its guns this turn (7.4): the guns act again from the next operation.
    pub remanned: bool,
    /// 6.10: a bonus move won in melee at 2:1 or more, offered in this activation (turn, chit)
    /// and not yet taken: one more charge, special move or move, outside its operation.
    pub bonus_move: Option<(u32, u32)>,
    /// 6.10: it has been offered its one bonus move this turn (taken or not).
    pub bonus_used: bool,
}

impl UnitTurn {
    /// A new turn: the operation, the morale roll and reserve status start afresh (4.5).
    pub fn new_turn(&mut self) {
        *self = UnitTurn { marker_turn: self.marker_turn, marker_from_firefight: self.marker_from_firefight, off_table: self.off_table, ..UnitTurn::default() };
    }
}

/// A commander's state beyond the unit sheet (6.12, 10.5).
#[derive(Component, Clone, Debug, Default, PartialEq, Serialize)]
pub struct CommandState {
    /// Inches ridden in the current activation (6.12: at most 24").
    pub moved: f32,
    /// The turn he fell (10.5); his command has no commander until a replacement is rolled.
    pub casualty_turn: Option<u32>,
    /// Replacements rolled so far.
    pub replacements: u32,
    /// Optional 10.6: (turn, unit) for each woods visibility roll he has made to see a unit;
    /// one a turn per unit, so a roll cannot be fished for.
    #[serde(skip)]
    pub looked: Vec<(u32, Entity)>,
}

/// A unit's sheet and stands as they were, to undo a morale result for a re-roll (10.2).
#[derive(Clone, Debug)]
pub struct UnitRestore {
    pub unit: Unit,
    pub turn: UnitTurn,
    pub marker: bool,
    pub stands: Vec<(Entity, Stand, Footprint)>,
    /// A detached crew (7.4): its entity and stand.
    pub crew: Option<(Entity, Footprint)>,
    /// 7.5: the guns attached to it or whose crews ride with it, as they were.
    pub guns: Vec<GunRestore>,
}

/// 7.5: an attached gun as it was before its infantry's morale result.
#[derive(Clone, Debug)]
pub struct GunRestore {
    pub gun: Entity,
    pub attached_to: Option<Entity>,
    /// Its crew riding with the infantry: the crew stand.
    pub riding: Option<Footprint>,
    pub marker: bool,
    pub turn: UnitTurn,
}

/// The entities of the scenario in its own order: every list the engine walks is walked in
/// this order, so reports never depend on how the world stores things.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    pub sides: Vec<String>,
    pub brigades: Vec<Entity>,
    /// Each side's overall commander, then its brigade commanders, side by side.
    pub commanders: Vec<Entity>,
    /// Every unit the scenario spawned, with its name, side and starting figures: a unit the
    /// fire or melee modules remove from the world is still counted at the end (4.5).
    pub units: Vec<(Entity, String, usize, u32)>,
}

impl Roster {
    pub fn of(world: &World, scenario: &Scenario) -> Roster {
        let mut brigades: Vec<(Entity, Brigade)> = world.try_query::<(Entity, &Brigade)>().map(|mut q| q.iter(world).map(|(e, b)| (e, b.clone())).collect()).unwrap_or_default();
        let commanders: Vec<(Entity, Commander)> = world.try_query::<(Entity, &Commander)>().map(|mut q| q.iter(world).map(|(e, c)| (e, c.clone())).collect()).unwrap_or_default();
        let units: Vec<(Entity, String)> = world.try_query::<(Entity, &Unit)>().map(|mut q| q.iter(world).map(|(e, u)| (e, u.name.clone())).collect()).unwrap_or_default();
        let initial = |e: Entity| world.get::<Unit>(e).map_or(0, |u| u.initial_figures);
        let mut roster = Roster { sides: scenario.sides.iter().map(|s| s.name.clone()).collect(), ..Roster::default() };
        for (si, side) in scenario.sides.iter().enumerate() {
            if let Some((e, _)) = commanders.iter().find(|(_, c)| c.side == si && c.brigade.is_none()) {
                roster.commanders.push(*e);
            }
            for b in &side.brigades {
                let Some(i) = brigades.iter().position(|(_, x)| x.side == si && x.name == b.name) else { continue };
                let (e, brigade) = brigades.remove(i);
                roster.brigades.push(e);
                roster.commanders.push(brigade.commander);
                for u in &b.units {
                    if let Some((e, _)) = units.iter().find(|(_, n)| *n == u.name) {
                        roster.units.push((*e, u.name.clone(), si, initial(*e)));
                    }
                }
            }
        }
        roster
    }
}
