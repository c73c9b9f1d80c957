//! The scenario on the table: sides, brigades, commanders, units and their stands as entities.
//!
//! Each stand is an entity with its real footprint in inches; a unit entity carries what the
//! unit sheet (OTP 4.2) records.

use bevy::math::Vec2;
use bevy::prelude::*;

use super::basing;
use super::model::{self, Arm, Formation, Rating, Scenario, UnitType, Weapon};
use crate::table::footprint::Footprint;

/// The scenario being played, as loaded (the source of truth for terrain and set-up).
#[derive(Resource, Clone, Debug)]
pub struct Battlefield {
    pub scenario: Scenario,
    /// Where it came from, for titles and messages.
    pub source: String,
}

#[derive(Component, Clone, Debug)]
pub struct SideInfo {
    pub index: usize,
    pub name: String,
    pub colour: [u8; 3],
}

/// A brigade and its numbered chit (4.3).
#[derive(Component, Clone, Debug)]
pub struct Brigade {
    pub side: usize,
    pub name: String,
    pub chit: u32,
    pub commander: Entity,
}

#[derive(Component, Clone, Debug)]
pub struct Commander {
    pub side: usize,
    pub name: String,
    pub kind: model::CommanderKind,
    /// Fixed by the scenario or rolled before play (2.0); None until then.
    pub rating: Option<Rating>,
    pub morale_passes_used: u32,
    /// None for the overall commander.
    pub brigade: Option<Entity>,
    pub at: Vec2,
}

/// What the unit sheet records about a unit (4.2).
#[derive(Component, Clone, Debug)]
pub struct Unit {
    pub side: usize,
    pub brigade: Entity,
    pub name: String,
    pub unit_type: UnitType,
    pub arm: Arm,
    pub weapon: Option<Weapon>,
    pub bayonets: bool,
    pub cv: u8,
    pub initial_figures: u32,
    pub figures: u32,
    pub formation: Formation,
    pub can_skirmish: bool,
    pub initial_volley_used: bool,
    pub rebuild_attempts: u8,
    pub attached_to: Option<Entity>,
    /// Stands front (or right) first.
    pub stands: Vec<Entity>,
}

/// A supply wagon where it stands now, for the rule sets that read the scenario's wagons (the
/// ACW orders sheet spawns them with [`spawn_wagons`]) and for the window, which draws them.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct SupplyWagon {
    pub side: usize,
    pub name: String,
    pub at: Vec2,
}

/// The scenario's supply wagons as entities. Not part of [`spawn_scenario`]: a rule set that
/// ignores wagons keeps a world without them.
pub fn spawn_wagons(world: &mut World, scenario: &Scenario) -> Vec<Entity> {
    let mut out = Vec::new();
    for (si, side) in scenario.sides.iter().enumerate() {
        for w in &side.wagons {
            out.push(world.spawn(SupplyWagon { side: si, name: w.name.clone(), at: Vec2::from(w.at) }).id());
        }
    }
    out
}

/// A Morale Marker on the unit (10.1); a unit carries at most one.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct MoraleMarker;

/// One stand of figures.
#[derive(Component, Clone, Copy, Debug)]
pub struct Stand {
    pub unit: Entity,
    pub index: usize,
    pub figures: u32,
}

/// Default side colours: British red and Continental blue read at a glance on a green table.
pub const SIDE_COLOURS: [[u8; 3]; 4] = [[196, 38, 38], [38, 74, 168], [214, 160, 30], [90, 90, 90]];

pub fn side_colour(side: &model::Side, index: usize) -> [u8; 3] {
    side.colour.unwrap_or(SIDE_COLOURS[index % SIDE_COLOURS.len()])
}

/// Put every side, brigade, commander, unit and stand of a (validated) scenario in the world.
pub fn spawn_scenario(world: &mut World, scenario: &Scenario, source: &str) {
    let mut units_by_name: Vec<(String, Entity)> = Vec::new();
    let mut attachments: Vec<(Entity, String)> = Vec::new();
    for (si, side) in scenario.sides.iter().enumerate() {
        world.spawn(SideInfo { index: si, name: side.name.clone(), colour: side_colour(side, si) });
        if let Some(c) = &side.commander {
            let at = c.at.map(Vec2::from).unwrap_or_else(|| first_unit_position(side));
            world.spawn(commander(si, c, None, at));
        }
        for b in &side.brigades {
            let brigade = world.spawn_empty().id();
            let at = b.commander.at.map(Vec2::from).unwrap_or_else(|| behind_unit(&b.units[0]));
            let cmd = world.spawn(commander(si, &b.commander, Some(brigade), at)).id();
            world.entity_mut(brigade).insert(Brigade { side: si, name: b.name.clone(), chit: b.chit, commander: cmd });
            for u in &b.units {
                let stands = basing::layout(u, &scenario.basing).expect("validated scenarios lay out");
                let unit = world.spawn_empty().id();
                let stand_ids: Vec<Entity> = stands
                    .into_iter()
                    .enumerate()
                    .map(|(index, (footprint, figures))| world.spawn((Stand { unit, index, figures }, footprint)).id())
                    .collect();
                world.entity_mut(unit).insert(Unit {
                    side: si,
                    brigade,
                    name: u.name.clone(),
                    unit_type: u.unit_type,
                    arm: u.arm,
                    weapon: u.weapon,
                    bayonets: u.bayonets.unwrap_or(basing::default_bayonets(u.unit_type, u.weapon)),
                    cv: u.cv.unwrap_or(basing::combat_value(u.unit_type, u.arm)),
                    initial_figures: u.figures,
                    figures: u.figures,
                    formation: u.formation,
                    can_skirmish: u.can_skirmish,
                    initial_volley_used: false,
                    rebuild_attempts: 0,
                    attached_to: None,
                    stands: stand_ids,
                });
                if u.morale_marker {
                    world.entity_mut(unit).insert(MoraleMarker);
                }
                units_by_name.push((u.name.clone(), unit));
                if let Some(host) = &u.attached_to {
                    attachments.push((unit, host.clone()));
                }
            }
        }
    }
    for (gun, host) in attachments {
        let host = units_by_name.iter().find(|(n, _)| *n == host).map(|(_, e)| *e);
        world.get_mut::<Unit>(gun).expect("spawned above").attached_to = host;
    }
    world.insert_resource(Battlefield { scenario: scenario.clone(), source: source.to_string() });
}

fn commander(side: usize, c: &model::Commander, brigade: Option<Entity>, at: Vec2) -> Commander {
    Commander { side, name: c.name.clone(), kind: c.kind, rating: c.rating, morale_passes_used: 0, brigade, at }
}

/// A brigade commander without a position stands 4" behind the centre of his first unit's front,
/// clear of the unit's label.
pub fn behind_unit(u: &model::Unit) -> Vec2 {
    Vec2::from(u.at) - crate::table::footprint::bearing_vector(u.facing) * 4.0
}

fn first_unit_position(side: &model::Side) -> Vec2 {
    side.brigades.first().and_then(|b| b.units.first()).map(behind_unit).unwrap_or(Vec2::ZERO) - Vec2::new(0.0, 2.0)
}

/// Footprints of a unit's stands, in order.
pub fn unit_footprints(world: &World, unit: &Unit) -> Vec<Footprint> {
    unit.stands.iter().filter_map(|&s| world.get::<Footprint>(s).copied()).collect()
}

/// Removes everything a scenario spawned, so another can be loaded in its place.
/// The scenario with its units where `world` has them now: each unit's front-edge centre and
/// facing taken from its stands (the front rank of those facing as its first stand does: the
/// inverse of `basing::layout`), its figures and formation as they are. How a position in one
/// game is read by another rule set (the side-by-side judgement); units the world no longer
/// holds, and everything else, stay as the file has them.
pub fn as_it_stands(world: &World, scenario: &Scenario) -> Scenario {
    let mut out = scenario.clone();
    let Some(mut units) = world.try_query::<&Unit>() else { return out };
    for unit in units.iter(world) {
        let stands: Vec<Footprint> = unit.stands.iter().filter_map(|&s| world.get::<Footprint>(s).copied()).collect();
        let Some(first) = stands.first() else { continue };
        let facing = first.facing;
        let forward = crate::table::footprint::bearing_vector(facing);
        let right = crate::table::footprint::bearing_vector(facing + 90.0);
        let facing_so: Vec<&Footprint> = stands.iter().filter(|f| (f.facing - facing).abs() < 0.5).collect();
        let lead = facing_so.iter().map(|f| f.front_centre().dot(forward)).fold(f32::NEG_INFINITY, f32::max);
        // The front rank's span, end to end (stands of unequal frontage, gaps): its middle.
        let rank = facing_so.iter().filter(|f| f.front_centre().dot(forward) > lead - 0.05);
        let (lo, hi) = rank.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), f| (lo.min(f.front_left().dot(right)), hi.max(f.front_right().dot(right))));
        let at = forward * lead + right * ((lo + hi) / 2.0);
        let Some(u) = out.sides.iter_mut().flat_map(|s| s.brigades.iter_mut()).flat_map(|b| b.units.iter_mut()).find(|u| u.name == unit.name) else { continue };
        u.at = [at.x, at.y];
        u.facing = facing.rem_euclid(360.0);
        u.figures = unit.figures;
        u.formation = unit.formation;
    }
    out
}

pub fn despawn_scenario(world: &mut World) {
    let mut doomed: Vec<Entity> = Vec::new();
    doomed.extend(world.query_filtered::<Entity, With<SideInfo>>().iter(world));
    doomed.extend(world.query_filtered::<Entity, With<Brigade>>().iter(world));
    doomed.extend(world.query_filtered::<Entity, With<Commander>>().iter(world));
    doomed.extend(world.query_filtered::<Entity, With<Unit>>().iter(world));
    doomed.extend(world.query_filtered::<Entity, With<Stand>>().iter(world));
    doomed.extend(world.query_filtered::<Entity, With<SupplyWagon>>().iter(world));
    for e in doomed {
        world.despawn(e);
    }
    world.remove_resource::<Battlefield>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_spawns_stands_with_frontages() {
        let scenario = crate::scenario::default_scenario();
        let mut world = World::new();
        spawn_scenario(&mut world, &scenario, "test");
        let units: Vec<Unit> = world.query::<&Unit>().iter(&world).cloned().collect();
        let expected: usize = scenario.sides.iter().flat_map(|s| &s.brigades).map(|b| b.units.len()).sum();
        assert_eq!(units.len(), expected);
        for u in &units {
            let figures: u32 = u.stands.iter().map(|&s| world.get::<Stand>(s).unwrap().figures).sum();
            assert_eq!(figures, u.figures, "{}: stands carry every figure (1.1-1.3)", u.name);
        }
        let stands = world.query::<(&Stand, &Footprint)>().iter(&world).count();
        assert!(stands > units.len());
    }

    fn shipped() -> Vec<(String, Scenario)> {
        let mut files: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios")).expect("scenarios/").filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "ron")).collect();
        files.sort();
        files.into_iter().map(|p| (p.display().to_string(), super::super::load(&p).expect("shipped scenarios load"))).collect()
    }

    fn units(s: &Scenario) -> Vec<&model::Unit> {
        s.sides.iter().flat_map(|x| &x.brigades).flat_map(|b| &b.units).collect()
    }

    // Issue 22: a position read back from the stands is the one the file laid them out from, in
    // every formation the shipped scenarios use (OTP 5.1–5.4 layouts inverted).
    #[test]
    fn a_set_up_read_back_from_its_stands_is_the_file() {
        for (file, s) in shipped() {
            let mut world = World::new();
            spawn_scenario(&mut world, &s, &file);
            let back = as_it_stands(&world, &s);
            for (a, b) in units(&s).into_iter().zip(units(&back)) {
                let off = (Vec2::from(a.at) - Vec2::from(b.at)).length();
                let turned = (a.facing.rem_euclid(360.0) - b.facing).abs();
                assert!(off < 0.01 && (turned < 0.01 || (turned - 360.0).abs() < 0.01), "{file}: {} {:?} at {:?} facing {} read back at {:?} facing {}", a.name, a.formation, a.at, a.facing, b.at, b.facing);
            }
        }
    }

    #[test]
    fn a_unit_moved_and_worn_down_is_read_where_and_as_it_stands() {
        let s = crate::scenario::default_scenario();
        let mut world = World::new();
        spawn_scenario(&mut world, &s, "teaching");
        let (e, name, was) = {
            let mut q = world.query::<(Entity, &Unit)>();
            let (e, u) = q.iter(&world).next().expect("units");
            (e, u.name.clone(), units(&s).into_iter().find(|x| x.name == u.name).expect("in the file").at)
        };
        let stands = world.get::<Unit>(e).expect("unit").stands.clone();
        for st in stands {
            let mut f = world.get_mut::<Footprint>(st).expect("footprint");
            let ahead = f.forward() * 3.0;
            f.centre += ahead;
        }
        world.get_mut::<Unit>(e).expect("unit").figures -= 1;
        let back = as_it_stands(&world, &s);
        let u = units(&back).into_iter().find(|u| u.name == name).expect("kept");
        let moved = (Vec2::from(u.at) - Vec2::from(was)).length();
        assert!((moved - 3.0).abs() < 0.01, "{name} moved {moved}\"");
        assert_eq!(u.figures, units(&s).into_iter().find(|x| x.name == name).unwrap().figures - 1);
    }
}
