//! A simple automatic player for the tiny rules, speaking only to the engine interface: it
//! answers a question "stand" (TINY 6), fires at the nearest enemy it may (TINY 4), forms line
//! when the enemy is near (TINY 3), moves toward the nearest enemy (TINY 2) and otherwise goes
//! on (TINY 1). Every order it gives has passed the engine's own check first.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{FIRE_RANGE, STAND, fire_reach};
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::Formation;
use crate::scenario::spawn::Unit;
use crate::table::arc::Arc;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

#[derive(Clone, Copy, Debug, Default)]
pub struct Bot;

impl Automatic for Bot {
    fn next_action(&mut self, game: &dyn Engine) -> Option<Action> {
        let seq = game.sequence();
        if seq.over {
            return None;
        }
        if let Some(p) = &seq.prompt {
            return Some(Action::Answer { prompt: p.id, option: STAND });
        }
        let s = Situation::from_world(game.world());
        let index = |e: Entity| game.world().get::<Unit>(e).and_then(|u| s.find(&u.name).ok());
        let units: Vec<(Entity, usize)> = seq.acting.iter().filter_map(|&e| Some((e, index(e)?))).collect();
        let enemies = |me: usize| {
            let mut list: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (range::unit_distance(&s, me, o), o)).collect();
            list.sort_by(|a, b| a.0.total_cmp(&b.0));
            list
        };
        let allowed = |a: Action| game.check(&a).is_ok().then_some(a);
        // Fire first: the nearest enemy it may fire at.
        for &(_, me) in &units {
            for (_, o) in enemies(me) {
                if let Some(a) = allowed(Action::Fire { unit: s.unit(me).name.clone(), target: s.unit(o).name.clone() }) {
                    return Some(a);
                }
            }
        }
        for &(e, me) in &units {
            let Some(&(distance, nearest)) = enemies(me).first() else { continue };
            // Already in reach of an enemy: hold and fire next player-turn.
            if enemies(me).iter().any(|&(_, o)| fire_reach(&s, me, o).is_ok()) {
                continue;
            }
            let name = s.unit(me).name.clone();
            if s.unit(me).formation == Formation::Column
                && distance <= FIRE_RANGE + 4.0
                && let Some(a) = allowed(Action::ChangeFormation { unit: name.clone(), formation: Formation::Line })
            {
                return Some(a);
            }
            let Some(movement) = game.movement(e) else { continue };
            if let Some(a) = approach(&s, me, nearest, movement.allowance, distance).into_iter().find_map(|steps| allowed(game.move_action(e, 0, steps))) {
                return Some(a);
            }
        }
        allowed(Action::Next)
    }
}

/// Moves of `me` toward `enemy`, longest first, stopping short of contact.
fn approach(s: &Situation, me: usize, enemy: usize, allowance: f32, distance: f32) -> Vec<Vec<MoveStep>> {
    let unit = s.unit(me);
    let Some(arc) = Arc::of_unit(unit) else { return Vec::new() };
    let front = (arc.front_left + arc.front_right) / 2.0;
    let there = centre(s, enemy);
    let turn = (vector_bearing(there - front) - arc.facing + 180.0).rem_euclid(360.0) - 180.0;
    let reach = (distance - 1.0).min(allowance);
    let mut moves = Vec::new();
    for share in [1.0, 0.75, 0.5, 0.25] {
        let d = reach * share;
        if d < 0.25 {
            continue;
        }
        if unit.in_column() {
            moves.push(vec![MoveStep::Path(vec![front + (there - front).normalize_or_zero() * d])]);
        } else if turn.abs() <= 45.0 {
            moves.push(vec![MoveStep::Oblique { angle: turn, distance: d }]);
        } else {
            // Wheel toward the enemy (the end on its side stays), then on with what is left.
            let angle = turn.clamp(-90.0, 90.0);
            let pivot = if angle > 0.0 { End::Right } else { End::Left };
            let cost = angle.to_radians().abs() * arc.front_left.distance(arc.front_right);
            let rest = (d - cost).max(0.0);
            let mut steps = vec![MoveStep::Wheel { pivot, angle }];
            if rest >= 0.25 {
                steps.push(MoveStep::Forward(rest));
            }
            moves.push(steps);
        }
    }
    moves
}

fn centre(s: &Situation, unit: usize) -> Vec2 {
    let stands = &s.unit(unit).stands;
    stands.iter().map(|st| st.footprint.centre).sum::<Vec2>() / stands.len().max(1) as f32
}
