//! Making a fire report's changes to the ECS world: figures off stands, Morale Markers, the
//! initial volley box, an artillery stand's carried losses (7.1) and commander casualties (8.16).

use bevy::prelude::{Component, Entity, World};

use super::report::{FireReport, MarkerChange};
use crate::scenario::spawn::{Commander, MoraleMarker, Stand, Unit};

/// Figure losses an artillery stand has taken from fire and not yet turned into a lost crew
/// figure (7.1: one crew figure per 2 losses). Absent means none.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GunHits(pub u32);

/// A commander removed from the game by fire (8.16): `FireTable::from_world` no longer attaches
/// him to a unit. His command operates a turn without him, then a new one is rolled (10.5): that
/// is the engine's to do, from the report's `commander_rolls`.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommanderCasualty;

fn unit_entity(world: &mut World, name: &str) -> Result<Entity, String> {
    world.query::<(Entity, &Unit)>().iter(world).find(|(_, u)| u.name == name).map(|(e, _)| e).ok_or_else(|| format!("no unit named \"{name}\" in the world"))
}

fn commander_entity(world: &mut World, name: &str) -> Result<Entity, String> {
    world.query::<(Entity, &Commander)>().iter(world).find(|(_, c)| c.name == name).map(|(e, _)| e).ok_or_else(|| format!("no commander named \"{name}\" in the world"))
}

/// Takes `lost` figures off a unit, from its last stand forward; stands left empty are removed,
/// and a unit left with none is removed with them (and anything attached to it detached).
fn remove_figures(world: &mut World, unit: Entity, lost: u32) {
    let Some(u) = world.get::<Unit>(unit) else { return };
    let mut left = lost.min(u.figures);
    let mut stands = u.stands.clone();
    let figures = u.figures - left;
    while left > 0 {
        let Some(&last) = stands.last() else { break };
        let remaining = match world.get_mut::<Stand>(last) {
            Some(mut st) => {
                let take = left.min(st.figures);
                st.figures -= take;
                left -= take;
                st.figures
            }
            None => 0,
        };
        if remaining == 0 {
            stands.pop();
            world.despawn(last);
        }
    }
    if figures == 0 {
        for s in stands {
            world.despawn(s);
        }
        world.despawn(unit);
        let orphans: Vec<Entity> = world.query::<(Entity, &Unit)>().iter(world).filter(|(_, u)| u.attached_to == Some(unit)).map(|(e, _)| e).collect();
        for o in orphans {
            if let Some(mut u) = world.get_mut::<Unit>(o) {
                u.attached_to = None;
            }
        }
        return;
    }
    if let Some(mut u) = world.get_mut::<Unit>(unit) {
        u.figures = figures;
        u.stands = stands;
    }
}

/// Applies a report made by `resolve` to the world it was judged on. Every unit and commander it
/// names is looked up first: if one is missing, nothing is changed.
pub fn apply_fire(world: &mut World, report: &FireReport) -> Result<(), String> {
    let firer = unit_entity(world, &report.shot.firer)?;
    let units = report.effects.iter().map(|e| unit_entity(world, &e.unit)).collect::<Result<Vec<_>, _>>()?;
    let fallen = report.commander_rolls.iter().filter(|c| c.casualty).map(|c| commander_entity(world, &c.commander)).collect::<Result<Vec<_>, _>>()?;
    if report.initial_volley_expended
        && let Some(mut u) = world.get_mut::<Unit>(firer)
    {
        u.initial_volley_used = true;
    }
    for (e, &entity) in report.effects.iter().zip(&units) {
        if e.morale_marker == MarkerChange::Gained {
            world.entity_mut(entity).insert(MoraleMarker);
        }
        if let Some((_, after)) = e.gun_hits {
            world.entity_mut(entity).insert(GunHits(after));
        }
    }
    // Figures last: a unit wiped out is despawned.
    for (e, &entity) in report.effects.iter().zip(&units) {
        if e.figures_lost > 0 {
            remove_figures(world, entity, e.figures_lost);
        }
    }
    for c in fallen {
        world.entity_mut(c).insert(CommanderCasualty);
    }
    Ok(())
}
