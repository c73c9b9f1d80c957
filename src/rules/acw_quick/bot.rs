//! The automatic player of the quick ACW rules, for either side. Every order it gives has passed
//! the engine's own check first; the odds it weighs are the engine's own previews.
//! - QK3: a marked unit close to the enemy and down to half its stands routs; otherwise it stays
//!   (and rallies in the rally step).
//! - Command: a brigadier stays, rides to the middle of his brigade or joins a unit, whichever
//!   keeps most of it inside his radius (QK2), the units that could charge counting most, and
//!   adds his bonus to a unit about to charge (QK10).
//! - Move: first the charge worth most by its exact odds, if one is worth making (before a friend's
//!   move can block its path); then foot in column near the enemy forms line (+2 to fire, QK12);
//!   guns unlimber in reach; otherwise advance to just outside the 2" band, to fire and charge
//!   next turn (guns keep their distance).
//! - Fire: each unit at the target where the exact odds give most stands.
//! - Melee: fights (the sequence does it).

use std::collections::HashSet;

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{Game, Leader, ROUT, STAY, Step, centre};
use super::melee::{fight_on, odds as melee_odds};
use super::views::chance_2d6;
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::{Arm, Formation};
use crate::table::arc::Arc;
use crate::table::aspect::AttackZone;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

/// The least a charge must be worth to be made (see `Bot::charge`).
const CHARGE_WORTH: f64 = 0.2;

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
                    if let Some(a) = self.command(game, &s, l).and_then(allowed) {
                        return Some(a);
                    }
                }
            }
            Step::Move => {
                // Charges first, before a friend's move can stand in a charge path (QK9).
                if let Some(a) = seq.acting.iter().find_map(|&e| self.charge(game, &s, e)) {
                    return Some(a);
                }
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
    /// QK2, QK10: where a brigadier goes. Each choice (stay, ride to the middle of the brigade,
    /// join one of its units) is scored by the units it leaves inside his radius, those that
    /// could charge this turn counting most, and by the unit it adds his bonus to.
    fn command(&self, game: &Game, s: &Situation, l: &Leader) -> Option<Action> {
        let brigade: Vec<(Entity, &crate::scenario::spawn::Unit)> = game.live_units().filter(|(_, u)| l.commands(u)).collect();
        if brigade.is_empty() {
            return None;
        }
        let near = |name: &str, within: f32| s.find(name).is_ok_and(|me| (0..s.units().len()).any(|o| s.unit(o).side != l.side && range::unit_distance(s, me, o) <= within));
        // A unit that could reach the enemy with a full move could charge this turn.
        let can_charge = |e: Entity, u: &crate::scenario::spawn::Unit| !matches!(u.arm, Arm::Artillery { .. }) && !game.state(e).marker && near(&u.name, game.charts.moves(Game::mover(u)).inches);
        let at = game.leader_at(l);
        let middle = brigade.iter().map(|(e, _)| centre(&game.footprints(*e))).sum::<Vec2>() / brigade.len() as f32;
        let ride = at + (middle - at).clamp_length_max(game.leader_reach(at, middle) - 0.1);
        let score = |p: Vec2, joined: Option<(Entity, &crate::scenario::spawn::Unit)>| {
            let inside: f32 = brigade
                .iter()
                .filter(|(e, _)| game.command_with(*e, |x| if x.name == l.name { p } else { game.leader_at(x) }).0 >= 1.0)
                .map(|(e, u)| if can_charge(*e, u) { 3.0 } else { 1.0 })
                .sum();
            inside + joined.map_or(0.0, |(e, u)| if can_charge(e, u) { 2.0 } else if near(&u.name, 8.0) { 0.5 } else { 0.0 })
        };
        let mut best = (score(at, None), None);
        if at.distance(middle) >= 1.0 {
            let v = score(ride, None);
            if v > best.0 {
                best = (v, Some(Action::MoveLeader { leader: l.name.clone(), to: ride }));
            }
        }
        if l.brigade.is_some() && l.attached.is_none() {
            for &(e, u) in brigade.iter().filter(|(_, u)| !matches!(u.arm, Arm::Artillery { .. })) {
                let v = score(centre(&game.footprints(e)), Some((e, u)));
                if v > best.0 && game.check_join(&l.name, &u.name).is_ok() {
                    best = (v, Some(Action::JoinUnit { leader: l.name.clone(), unit: u.name.clone() }));
                }
            }
        }
        best.1
    }

    /// QK9, QK10, QK15: the charge worth most, if any is worth making: the target running
    /// (the charge goes home and it fails to stand) counts one, a melee its chance of a win less
    /// that of a loss (the melee's exact odds with the charger where its charge would put it), a
    /// failed charge (half way and a marker) half a loss.
    fn charge(&self, game: &Game, s: &Situation, e: Entity) -> Option<Action> {
        let unit = game.unit(e)?;
        let st = game.state(e);
        if st.marker || matches!(unit.arm, Arm::Artillery { .. }) {
            return None;
        }
        let me = s.find(&unit.name).ok()?;
        let enemies = enemies_by_distance(s, me);
        enemies
            .iter()
            .take(3)
            .filter_map(|&(_, o)| {
                let target = s.unit(o).name.clone();
                let plan = game.check_charge(&unit.name, &target).ok()?;
                let (goes, stands) = (chance_2d6(plan.charger_bonus, plan.charger_needs), chance_2d6(plan.target_bonus, plan.target_needs));
                let placed = s.with_stands(me, &plan.path.stands, unit.formation);
                let fight = fight_on(game, &placed, e, plan.target, plan.zone != AttackZone::Front);
                let (mut won, mut lost) = (0.0, 0.0);
                for (outcome, p) in melee_odds(&fight, &game.charts.melee_results) {
                    if outcome.starts_with("attacker wins") {
                        won += p;
                    } else if outcome.starts_with("defender wins") {
                        lost += p;
                    }
                }
                let worth = goes * (1.0 - stands) + goes * stands * (won - lost) - (1.0 - goes) * 0.5;
                Some((worth, Action::Charge { unit: unit.name.clone(), target }))
            })
            .filter(|(worth, _)| *worth >= CHARGE_WORTH)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, a)| a)
    }

    fn move_unit(&self, engine: &dyn Engine, game: &Game, s: &Situation, e: Entity) -> Option<Action> {
        let unit = game.unit(e)?;
        let name = unit.name.clone();
        let allowed = |a: Action| engine.check(&a).is_ok().then_some(a);
        let st = game.state(e);
        if st.marker {
            return None;
        }
        let me = s.find(&name).ok()?;
        let enemies = enemies_by_distance(s, me);
        let &(distance, nearest) = enemies.first()?;
        match (unit.arm, unit.formation) {
            (Arm::Artillery { .. }, Formation::Limbered) if distance <= 26.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Unlimbered }),
            (Arm::Artillery { .. }, Formation::Unlimbered) => return None,
            (Arm::Infantry, Formation::Column) if distance <= 14.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Line }),
            (Arm::Cavalry, Formation::Column) if distance <= 20.0 => return allowed(Action::ChangeFormation { unit: name, formation: Formation::Line }),
            _ => {}
        }
        // Advance to fire range, foot and horse just outside the 2" band (closer, the enemy's
        // fire would mark them before they could charge: QK3), guns to about 12".
        let keep = if matches!(unit.arm, Arm::Artillery { .. }) { 12.0 } else { 1.5 };
        if distance <= keep + 0.5 {
            return None;
        }
        let movement = engine.movement(e)?;
        let left = (movement.allowance - movement.spent).max(0.0);
        approach(s, me, nearest, left, distance - keep).into_iter().find_map(|steps| allowed(engine.move_action(e, 0, steps)))
    }
}

/// The enemy units by their distance from `me`, nearest first.
fn enemies_by_distance(s: &Situation, me: usize) -> Vec<(f32, usize)> {
    let mut enemies: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (range::unit_distance(s, me, o), o)).collect();
    enemies.sort_by(|a, b| a.0.total_cmp(&b.0));
    enemies
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
