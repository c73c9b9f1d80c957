//! What fire needs to know beyond geometry: Morale Markers (10.1), the initial volley (4.2, 8.5),
//! attached artillery (7.5), figure losses an artillery stand carries towards a lost crew (7.1),
//! attached commanders (8.16) and the optional rules (5.4).

use bevy::math::Vec2;
use bevy::prelude::{Entity, World};

use super::apply::{CommanderCasualty, GunHits};
use super::cover::distance_to_stand;
use crate::scenario::Scenario;
use crate::scenario::model::OptionalRules;
use crate::scenario::spawn::{self, Battlefield, Commander, MoraleMarker};
use crate::table::situation::Situation;

/// A commander's figure this close to one of a unit's stands (inches, edge to point) is attached
/// to it (8.16, 9.6, 9.10). The rules attach a leader by putting him with the unit; the scenario
/// keeps only where he stands, so touching (within half an inch) is the test.
pub const ATTACH_REACH: f32 = 0.5;

/// One unit's sheet and markers, as fire reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitState {
    /// A Morale Marker: the unit is disordered (10.1, 8.12).
    pub morale_marker: bool,
    /// The unit sheet's initial-volley box (4.2, 8.5).
    pub initial_volley_used: bool,
    /// Artillery attached to an infantry unit (7.5): the index of that unit.
    pub attached_to: Option<usize>,
    /// Figure losses an artillery stand has taken from fire that have not yet cost a crew
    /// figure (7.1: a crew figure only per 2 losses).
    pub gun_hits: u32,
    /// Names of the commanders attached to the unit (8.16).
    pub commanders: Vec<String>,
}

/// The table as fire sees it: the geometry, each unit's state (indexed as the situation's
/// units) and the optional rules in play.
#[derive(Clone, Debug)]
pub struct FireTable {
    pub situation: Situation,
    pub units: Vec<UnitState>,
    pub optional: OptionalRules,
}

impl FireTable {
    /// Every unit fresh: no markers, initial volleys unfired, nothing attached.
    pub fn new(situation: Situation) -> Self {
        let units = vec![UnitState::default(); situation.units().len()];
        FireTable { situation, units, optional: OptionalRules::default() }
    }

    /// The units, markers and commanders spawned in the world (spawn.rs) with the
    /// `Battlefield`'s terrain and optional rules.
    pub fn from_world(world: &World) -> Self {
        FireTable::with_situation(world, Situation::from_world(world))
    }

    /// As [`FireTable::from_world`], on `situation`: the world's own table, already built.
    pub fn with_situation(world: &World, situation: Situation) -> Self {
        let mut table = FireTable::new(situation);
        if let Some(b) = world.get_resource::<Battlefield>() {
            table.optional = b.scenario.optional_rules;
        }
        let index = |name: &str| table.situation.units().iter().position(|u| u.name == name);
        let mut states: Vec<(usize, UnitState)> = Vec::new();
        if let Some(mut q) = world.try_query::<(Entity, &spawn::Unit)>() {
            for (e, u) in q.iter(world) {
                let Some(i) = index(&u.name) else { continue };
                let host = u.attached_to.and_then(|h| world.get::<spawn::Unit>(h)).and_then(|h| index(&h.name));
                states.push((
                    i,
                    UnitState {
                        morale_marker: world.get::<MoraleMarker>(e).is_some(),
                        initial_volley_used: u.initial_volley_used,
                        attached_to: host,
                        gun_hits: world.get::<GunHits>(e).map_or(0, |g| g.0),
                        commanders: Vec::new(),
                    },
                ));
            }
        }
        for (i, st) in states {
            table.units[i] = st;
        }
        let mut commanders: Vec<(String, usize, Vec2)> = Vec::new();
        if let Some(mut q) = world.try_query::<(Entity, &Commander)>() {
            for (e, c) in q.iter(world) {
                if world.get::<CommanderCasualty>(e).is_none() {
                    commanders.push((c.name.clone(), c.side, c.at));
                }
            }
        }
        commanders.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, side, at) in commanders {
            if let Some(u) = table.attached_unit(side, at) {
                table.units[u].commanders.push(name);
            }
        }
        table
    }

    /// A scenario at set-up, as the world would hold it after spawning.
    pub fn from_scenario(scenario: &Scenario) -> Self {
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, scenario, "scenario");
        FireTable::from_world(&world)
    }

    pub fn state(&self, unit: usize) -> &UnitState {
        &self.units[unit]
    }

    pub fn state_mut(&mut self, unit: usize) -> &mut UnitState {
        &mut self.units[unit]
    }

    /// The artillery units attached to `host` (7.5).
    pub fn attached_guns(&self, host: usize) -> Vec<usize> {
        (0..self.units.len()).filter(|&i| self.units[i].attached_to == Some(host)).collect()
    }

    /// The unit of `side` a commander standing at `at` is attached to: the nearest whose stands
    /// are within [`ATTACH_REACH`].
    pub fn attached_unit(&self, side: usize, at: Vec2) -> Option<usize> {
        let s = &self.situation;
        (0..s.units().len())
            .filter(|&i| s.unit(i).side == side)
            .map(|i| (i, s.unit(i).stands.iter().map(|st| distance_to_stand(&st.footprint, at)).fold(f32::INFINITY, f32::min)))
            .filter(|&(_, d)| d <= ATTACH_REACH)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}
