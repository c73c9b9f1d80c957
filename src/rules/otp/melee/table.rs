//! What melee reads beyond fire's table: the unit sheet's CV and bayonets (4.2, 9.12) and the
//! ratings of the leaders attached to each unit (9.6, 9.10).

use std::ops::Deref;

use bevy::prelude::World;

use crate::rules::otp::fire::FireTable;
use crate::scenario::model::Rating;
use crate::scenario::spawn::{self, Commander};
use crate::scenario::{Scenario, basing};
use crate::table::footprint::Footprint;
use crate::table::situation::Situation;

/// A leader attached to a unit (within `fire::ATTACH_REACH`).
#[derive(Clone, Debug, PartialEq)]
pub struct Leader {
    pub name: String,
    /// None until rolled (2.0): such a leader modifies nothing.
    pub rating: Option<Rating>,
}

/// The unit sheet as melee reads it (4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Sheet {
    pub cv: u8,
    /// Small arms with bayonets (9.12).
    pub bayonets: bool,
    pub leaders: Vec<Leader>,
}

/// The fire table (geometry, markers, attachments) with each unit's [`Sheet`], indexed as the
/// situation's units.
#[derive(Clone, Debug)]
pub struct MeleeTable {
    pub fire: FireTable,
    pub sheets: Vec<Sheet>,
}

impl Deref for MeleeTable {
    type Target = FireTable;
    fn deref(&self) -> &FireTable {
        &self.fire
    }
}

impl MeleeTable {
    pub fn new(fire: FireTable, sheets: Vec<Sheet>) -> Self {
        MeleeTable { fire, sheets }
    }

    /// The units, sheets, markers and commanders spawned in the world.
    pub fn from_world(world: &World) -> Self {
        MeleeTable::with_fire(world, FireTable::from_world(world))
    }

    /// As [`MeleeTable::from_world`], on `fire`: the world's own fire table, already built.
    pub fn with_fire(world: &World, fire: FireTable) -> Self {
        let mut sheets: Vec<Sheet> = fire.situation.units().iter().map(|u| Sheet { cv: basing::combat_value(u.unit_type, u.arm), bayonets: false, leaders: Vec::new() }).collect();
        let index = |name: &str| fire.situation.units().iter().position(|u| u.name == name);
        if let Some(mut q) = world.try_query::<&spawn::Unit>() {
            for u in q.iter(world) {
                if let Some(i) = index(&u.name) {
                    sheets[i].cv = u.cv;
                    sheets[i].bayonets = u.bayonets;
                }
            }
        }
        let mut ratings: Vec<(String, Option<Rating>)> = Vec::new();
        if let Some(mut q) = world.try_query::<&Commander>() {
            ratings.extend(q.iter(world).map(|c| (c.name.clone(), c.rating)));
        }
        for (sheet, state) in sheets.iter_mut().zip(&fire.units) {
            sheet.leaders = state.commanders.iter().map(|n| Leader { name: n.clone(), rating: ratings.iter().find(|(m, _)| m == n).and_then(|r| r.1) }).collect();
        }
        MeleeTable { fire, sheets }
    }

    /// A scenario at set-up, as the world would hold it after spawning.
    pub fn from_scenario(scenario: &Scenario) -> Self {
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, scenario, "scenario");
        MeleeTable::from_world(&world)
    }

    /// A bare table (tests, sketches): no markers, nothing attached but what the units say (7.5),
    /// every sheet the basing rules' defaults (2.0 CVs, 9.12 bayonets), no leaders.
    pub fn from_situation(situation: Situation) -> Self {
        let mut fire = FireTable::new(situation);
        let s = &fire.situation;
        let sheets = s.units().iter().map(|u| Sheet { cv: basing::combat_value(u.unit_type, u.arm), bayonets: basing::default_bayonets(u.unit_type, u.weapon), leaders: Vec::new() }).collect();
        let hosts: Vec<Option<usize>> = s.units().iter().map(|u| u.attached_to.as_ref().and_then(|h| s.units().iter().position(|x| &x.name == h))).collect();
        for (state, host) in fire.units.iter_mut().zip(hosts) {
            state.attached_to = host;
        }
        MeleeTable { fire, sheets }
    }

    pub fn sheet(&self, unit: usize) -> &Sheet {
        &self.sheets[unit]
    }

    /// The same table with `unit`'s stands moved (to where a charge put them, say).
    pub fn with_stands(&self, unit: usize, stands: &[Footprint]) -> Self {
        let mut t = self.clone();
        let formation = t.fire.situation.unit(unit).formation;
        t.fire.situation = t.fire.situation.with_stands(unit, stands, formation);
        t
    }

    /// The best leader attached to `unit` by `key` (the most a leader gives), with his name.
    pub(crate) fn best_leader<K: Ord>(&self, unit: usize, key: impl Fn(Rating) -> K) -> Option<(&Leader, Rating)> {
        self.sheets[unit].leaders.iter().filter_map(|l| l.rating.map(|r| (l, r))).max_by_key(|(_, r)| key(*r))
    }
}
