//! The automatic player of the quick ACW rules, for either side. Every order it gives has passed
//! the engine's own check first; the odds it weighs are the engine's own previews.
//! - QK3: a marked unit close to the enemy and down to half its stands routs; otherwise it stays
//!   (and rallies in the rally step).
//! - Command: each brigadier rides to the middle of his brigade, so its units move full (QK2).
//! - Move: charge when the charge roll favours it and the unit is at least as strong; foot in
//!   column near the enemy forms line (+2 to fire, QK12); guns unlimber in reach; otherwise
//!   advance to fire range (guns keep their distance).
//! - Fire: each unit at the target where the exact odds give most stands.
//! - Melee: fights (the sequence does it).

use std::collections::HashSet;

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{Game, ROUT, STAY, Step, centre};
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::{Arm, Formation};
use crate::table::arc::Arc;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

#[derive(Clone, Debug, Default)]
pub struct Bot {
    /// Units that have had their turn in the current step: (turn, phase, step, name).
    tried: HashSet<(u32, usize, u8, String)>,
}

impl Automatic for Bot {
    fn next_action(&mut self, engine: &dyn Engine) -> Option<Action> {
        let game = engine.as_any().downcast_ref::<Game>()?;
        let seq = engine.sequence();
        if seq.over {
            return None;
        }
        if let Some(p) = &seq.prompt {
            let unit = seq.acting.first().copied();
            let option = unit.map_or(STAY, |e| if should_rout(game, e) { ROUT } else { STAY });
            return Some(Action::Answer { prompt: p.id, option });
        }
        let allowed = |a: Action| engine.check(&a).is_ok().then_some(a);
        let s = game.situation();
        match game.step() {
            Step::Command => {
                for l in game.leaders().iter().filter(|l| !l.lost && !l.moved && l.side == game.phasing()) {
                    // A brigadier joins the unit of his nearest the enemy once the lines close (QK10).
                    if l.brigade.is_some() && l.attached.is_none() {
                        let close = game.live_units().filter(|(_, u)| Some(u.brigade) == l.brigade && !matches!(u.arm, Arm::Artillery { .. })).find(|(_, u)| {
                            s.find(&u.name).is_ok_and(|me| (0..s.units().len()).any(|o| s.unit(o).side != u.side && range::unit_distance(&s, me, o) <= 8.0))
                        });
                        if let Some((_, u)) = close
                            && let Some(a) = allowed(Action::JoinUnit { leader: l.name.clone(), unit: u.name.clone() })
                        {
                            return Some(a);
                        }
                    }
                    let units: Vec<Vec2> = game.live_units().filter(|(_, u)| Some(u.brigade) == l.brigade || (l.brigade.is_none() && u.side == l.side)).map(|(e, _)| centre(&game.footprints(e))).collect();
                    if units.is_empty() {
                        continue;
                    }
                    let middle = units.iter().sum::<Vec2>() / units.len() as f32;
                    let at = game.leader_at(l);
                    if at.distance(middle) < 1.0 {
                        continue;
                    }
                    let to = at + (middle - at).clamp_length_max(game.leader_reach(at, middle) - 0.1);
                    if let Some(a) = allowed(Action::MoveLeader { leader: l.name.clone(), to }) {
                        return Some(a);
                    }
                }
            }
            Step::Move => {
                let key = (game.turn, game.phase, 1u8);
                for &e in &seq.acting {
                    let Some(unit) = game.unit(e) else { continue };
                    let name = unit.name.clone();
                    if !self.tried.insert((key.0, key.1, key.2, name.clone())) {
                        continue;
                    }
                    if let Some(a) = self.move_unit(engine, game, &s, e) {
                        return Some(a);
                    }
                }
            }
            Step::DefensiveFire | Step::OffensiveFire => {
                for &e in &seq.acting {
                    let Some(unit) = game.unit(e) else { continue };
                    let mut best: Option<(f64, Action)> = None;
                    for (_, other) in game.live_units().filter(|(_, o)| o.side != unit.side) {
                        let a = Action::Fire { unit: unit.name.clone(), target: other.name.clone() };
                        let Ok(Some(p)) = engine.preview(&a) else { continue };
                        let odds = &p.blocks[0].odds;
                        let expected = odds.get(1).map_or(0.0, |o| o.chance) + 2.0 * odds.get(2).map_or(0.0, |o| o.chance);
                        if best.as_ref().is_none_or(|(b, _)| expected > *b) {
                            best = Some((expected, a));
                        }
                    }
                    if let Some((_, a)) = best {
                        return Some(a);
                    }
                }
            }
            _ => {}
        }
        allowed(Action::Next)
    }
}

/// QK3: rout when the enemy is within 6" and the unit is down to half its stands.
fn should_rout(game: &Game, e: Entity) -> bool {
    let st = game.state(e);
    let s = game.situation();
    let Some(name) = game.unit(e).map(|u| u.name.clone()) else { return false };
    let Ok(me) = s.find(&name) else { return false };
    let near = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).any(|o| range::unit_distance(&s, me, o) <= 6.0);
    near && 2 * st.stands <= st.stands_start + 1
}

impl Bot {
    fn move_unit(&self, engine: &dyn Engine, game: &Game, s: &Situation, e: Entity) -> Option<Action> {
        let unit = game.unit(e)?;
        let name = unit.name.clone();
        let allowed = |a: Action| engine.check(&a).is_ok().then_some(a);
        let st = game.state(e);
        if st.marker {
            return None;
        }
        let me = s.find(&name).ok()?;
        let mut enemies: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != unit.side).map(|o| (range::unit_distance(s, me, o), o)).collect();
        enemies.sort_by(|a, b| a.0.total_cmp(&b.0));
        let &(distance, nearest) = enemies.first()?;
        // Charge when the roll favours it and the unit is at least as strong.
        if !matches!(unit.arm, Arm::Artillery { .. }) {
            for &(_, o) in enemies.iter().take(3) {
                let target = s.unit(o).name.clone();
                let a = Action::Charge { unit: name.clone(), target: target.clone() };
                let Ok(Some(p)) = engine.preview(&a) else { continue };
                let fails = p.blocks[0].odds.first().map_or(1.0, |o| o.chance);
                let theirs = game.find(&target).map(|t| game.state(t).stands).unwrap_or(0);
                if fails <= 0.5 && st.stands >= theirs {
                    return Some(a);
                }
            }
        }
        match (unit.arm, unit.formation) {
            (Arm::Artillery { .. }, Formation::Limbered) if distance <= 26.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Unlimbered }),
            (Arm::Artillery { .. }, Formation::Unlimbered) => return None,
            (Arm::Infantry, Formation::Column) if distance <= 14.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Line }),
            (Arm::Cavalry, Formation::Column) if distance <= 20.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Line }),
            _ => {}
        }
        // Advance to fire range: foot to about 4", guns to about 12".
        let keep = if matches!(unit.arm, Arm::Artillery { .. }) { 12.0 } else { 1.5 };
        if distance <= keep + 0.5 {
            return None;
        }
        let movement = engine.movement(e)?;
        let left = (movement.allowance - movement.spent).max(0.0);
        approach(s, me, nearest, left, distance - keep).into_iter().find_map(|steps| allowed(engine.move_action(e, 0, steps)))
    }
}

/// Moves of `me` toward `enemy` by up to `reach`, longest first.
fn approach(s: &Situation, me: usize, enemy: usize, allowance: f32, reach: f32) -> Vec<Vec<MoveStep>> {
    let unit = s.unit(me);
    let Some(arc) = Arc::of_unit(unit) else { return Vec::new() };
    let front = (arc.front_left + arc.front_right) / 2.0;
    let there = centre(&s.unit(enemy).footprints());
    let turn = (vector_bearing(there - front) - arc.facing + 180.0).rem_euclid(360.0) - 180.0;
    let reach = reach.min(allowance);
    let mut moves = Vec::new();
    for share in [1.0, 0.7, 0.4, 0.2] {
        let d = reach * share;
        if d < 0.5 {
            continue;
        }
        if unit.in_column() {
            moves.push(vec![MoveStep::Path(vec![front + (there - front).normalize_or_zero() * d])]);
        } else if turn.abs() <= 45.0 {
            moves.push(vec![MoveStep::Oblique { angle: turn, distance: d }]);
        } else {
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
