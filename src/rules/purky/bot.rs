//! The automatic player for Purky's rules, speaking only to the engine interface and the
//! game's own checks and pools: it chooses to move first, rallies when the exact odds favour
//! it, evades with skirmishers, charges when its first-round pool beats the enemy's, forms line
//! or unlimbers near the enemy, advances to its range, fires at the target it expects to hurt
//! most, and otherwise goes on. Every order it gives has passed the engine's check first.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{Game, Question, Status, Step};
use super::odds::{self, Test};
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::{Arm, Formation};
use crate::table::arc::Arc;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

#[derive(Clone, Copy, Debug, Default)]
pub struct Bot;

impl Automatic for Bot {
    fn next_action(&mut self, engine: &dyn Engine) -> Option<Action> {
        let game = engine.as_any().downcast_ref::<Game>()?;
        let seq = engine.sequence();
        if seq.over {
            return None;
        }
        if let Some(a) = game.open_question() {
            let option = match a.question {
                Question::Initiative { .. } => 0,
                Question::Rally { unit } => rally_or_not(game, unit),
                Question::Evade { unit, charger } => evade_or_fire(game, a.id, unit, charger),
            };
            return Some(Action::Answer { prompt: a.id, option });
        }
        let s = game.situation();
        let allowed = |a: Action| game.check(&a).is_ok().then_some(a);
        match game.current() {
            Step::Fire(_) => {
                let mut best: Option<(f64, Action)> = None;
                for &e in &seq.acting {
                    let Some(me) = index(game, s, e) else { continue };
                    let reach = game.fire_reach(e);
                    for o in enemies(s, me).into_iter().take_while(|(d, _)| *d <= reach + 0.5).take(4).map(|(_, o)| o) {
                        let a = Action::Fire { unit: s.unit(me).name.clone(), target: s.unit(o).name.clone() };
                        if let Ok(shot) = game.check_fire(&s.unit(me).name, &s.unit(o).name) {
                            // PK25: a leader lost is worth a few figures.
                            let hits = odds::pool_hits(shot.pool.dice, shot.pool.value);
                            let leaders: f64 = game.leader_risk(shot.target, &hits).iter().map(|r| r.1).sum();
                            let expected = shot.pool.dice as f64 * odds::at_or_under(shot.pool.value) + LEADER_WORTH * leaders;
                            if expected > 0.0 && best.as_ref().is_none_or(|b| expected > b.0) {
                                best = Some((expected, a));
                            }
                        }
                    }
                }
                best.map(|b| b.1).or_else(|| allowed(Action::Next))
            }
            Step::Move(_) => {
                for &e in &seq.acting {
                    if let Some(a) = order(game, s, e) {
                        return Some(a);
                    }
                }
                follow(game).or_else(|| allowed(Action::Next))
            }
            _ => allowed(Action::Next),
        }
    }
}

/// PK5, PK25: each leader of the moving side rides to the middle of his brigade, once a turn,
/// so his units keep within 24".
fn follow(game: &Game) -> Option<Action> {
    use crate::scenario::spawn::{Brigade, Commander, Unit};
    let side = game.acting_side()?;
    let world = game.world();
    let mut leaders: Vec<(String, Vec2, Entity)> = world.try_query::<&Brigade>()?.iter(world).filter(|b| b.side == side).filter_map(|b| Some((world.get::<Commander>(b.commander)?.name.clone(), world.get::<Commander>(b.commander)?.at, b.commander))).collect();
    leaders.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, at, leader) in leaders {
        if game.rides.iter().any(|(l, _)| *l == leader) {
            continue;
        }
        let centres: Vec<Vec2> = game.live_units().filter(|(e, _)| game.leader_of(*e) == Some(leader)).flat_map(|(_, u): (Entity, &Unit)| crate::scenario::spawn::unit_footprints(world, u)).map(|f| f.centre).collect();
        if centres.is_empty() {
            continue;
        }
        let middle = centres.iter().sum::<Vec2>() / centres.len() as f32;
        let d = at.distance(middle);
        if d < 3.0 {
            continue;
        }
        let to = at + (middle - at) * ((d - 1.5).min(super::game::LEADER_MOVE) / d);
        let a = Action::MoveLeader { leader: name, to };
        if game.check(&a).is_ok() {
            return Some(a);
        }
    }
    None
}

/// Figures a leader lost is worth to the automatic player (PK25: his brigade moves half).
const LEADER_WORTH: f64 = 3.0;

/// PK11: skirmishers charged fire and evade half when their pool expects half a hit or more
/// (the engine allowing it), else evade a full move.
fn evade_or_fire(game: &Game, prompt: u32, unit: Entity, charger: Entity) -> u32 {
    let fire = Action::Answer { prompt, option: 2 };
    match game.evade_fire(unit, charger) {
        Ok(shot) if game.check(&fire).is_ok() && shot.pool.dice as f64 * odds::at_or_under(shot.pool.value) >= 0.5 => 2,
        _ => 0,
    }
}

/// PK23: rally when passing is likelier than the worst outcome.
fn rally_or_not(game: &Game, unit: Entity) -> u32 {
    let Some(pool) = game.morale_pool(unit, true, None) else { return 1 };
    let [(_, pass), (_, one), (_, both)] = odds::morale(pool.dice, pool.value).map(|(t, p)| (t == Test::Pass, p));
    let routed = game.pk(unit).is_some_and(|p| p.status == Status::Routed);
    let worst = if routed { one + both } else { both };
    u32::from(pass < worst)
}

fn index(game: &Game, s: &Situation, e: Entity) -> Option<usize> {
    s.find(&game.unit(e)?.name).ok()
}

fn enemies(s: &Situation, me: usize) -> Vec<(f32, usize)> {
    let mut list: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (range::unit_distance(s, me, o), o)).collect();
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    list
}

/// One unit's order in its move step, if it has one worth giving.
fn order(game: &Game, s: &Situation, e: Entity) -> Option<Action> {
    let me = index(game, s, e)?;
    let pk = game.pk(e)?;
    let name = s.unit(me).name.clone();
    let list = enemies(s, me);
    let &(distance, nearest) = list.first()?;
    let row = pk.row();
    let allowed = |a: Action| game.check(&a).is_ok().then_some(a);
    let form = |formation| allowed(Action::ChangeFormation { unit: name.clone(), formation });
    // PK4: light guns' crews shelter in a square beside them while enemy horse is near, and
    // come out when it has gone.
    let horse = |within: f32| list.iter().any(|&(d, o)| d <= within && s.unit(o).arm == Arm::Cavalry);
    let foot = |within: f32| list.iter().any(|&(d, o)| d <= within && s.unit(o).arm == Arm::Infantry);
    if row.is_gun() {
        match s.unit(me).formation {
            Formation::Square if !horse(20.0) => return form(Formation::Unlimbered),
            Formation::Square => return None,
            Formation::Unlimbered if row.square_shelter && horse(16.0) => {
                if let Some(a) = form(Formation::Square) {
                    return Some(a);
                }
            }
            _ => {}
        }
    }
    if pk.moved || pk.spent > 0.0 {
        return None;
    }
    // PK6, PK18: foot that can form square does so against horse nearest it (a major advantage
    // in melee) when no enemy foot is close enough to shoot it on chart A; it forms line again
    // when the horse has gone or foot comes up.
    if !row.is_gun() && pk.status == Status::Steady && crate::rules::purky::card::rate(pk.class, Formation::Square).is_some() {
        let formation = s.unit(me).formation;
        if formation == Formation::Square && (!horse(20.0) || foot(10.0)) {
            return form(Formation::Line).or_else(|| form(Formation::AttackColumn));
        }
        if formation != Formation::Square && formation != Formation::Skirmish && s.unit(nearest).arm == Arm::Cavalry && distance <= 14.0 && !foot(10.0)
            && let Some(a) = form(Formation::Square)
        {
            return Some(a);
        }
        if formation == Formation::Square {
            return None;
        }
    }
    if row.is_gun() {
        let reach = row.long_range.unwrap_or(row.range) as f32;
        if s.unit(me).formation == Formation::Limbered && distance <= reach {
            return allowed(Action::ChangeFormation { unit: name, formation: Formation::Unlimbered });
        }
        if s.unit(me).formation == Formation::Unlimbered {
            return None;
        }
    }
    // PK18: charge when the first round favours it.
    if pk.status == Status::Steady && !row.is_gun() && s.unit(me).formation != Formation::Skirmish {
        for &(d, o) in list.iter().take(3) {
            if d > 12.0 {
                break;
            }
            let target = s.unit(o).name.clone();
            if let Ok(Some(p)) = game.preview_of(&Action::Charge { unit: name.clone(), target: target.clone() })
                && let [_, mine, theirs, ..] = &p.blocks[..]
            {
                let mean = |b: &crate::rules::engine::PreviewBlock| b.odds.iter().enumerate().map(|(k, o)| k as f64 * o.chance).sum::<f64>();
                if mean(mine) > 1.3 * mean(theirs) + 0.2 {
                    return Some(Action::Charge { unit: name, target });
                }
            }
        }
    }
    let reach = game.fire_reach(e);
    let range = if row.is_gun() { row.range as f32 } else { reach };
    if list.iter().take_while(|(d, _)| *d <= reach + 0.5).any(|&(_, o)| game.fire_pool(s, e, me, o).is_ok_and(|p| p.value > 0)) {
        return None;
    }
    if matches!(s.unit(me).formation, Formation::Column | Formation::AttackColumn) && distance <= range + 10.0 && crate::rules::purky::card::rate(pk.class, Formation::Line).is_some()
        && let Some(a) = allowed(Action::ChangeFormation { unit: name.clone(), formation: Formation::Line }) {
            return Some(a);
        }
    let movement = game.movement_now(e)?;
    approach(s, me, nearest, movement.allowance - movement.spent, distance - (range - 1.0).max(1.0)).into_iter().find_map(|steps| allowed(Action::Move { unit: name.clone(), steps }))
}

/// Moves of `me` toward `enemy` covering up to `want` inches, longest first.
fn approach(s: &Situation, me: usize, enemy: usize, allowance: f32, want: f32) -> Vec<Vec<MoveStep>> {
    let unit = s.unit(me);
    let Some(arc) = Arc::of_unit(unit) else { return Vec::new() };
    let front = (arc.front_left + arc.front_right) / 2.0;
    let there = centre(s, enemy);
    let turn = (vector_bearing(there - front) - arc.facing + 180.0).rem_euclid(360.0) - 180.0;
    let reach = want.min(allowance);
    let mut moves = Vec::new();
    for share in [1.0, 0.6, 0.3] {
        let d = reach * share;
        if d < 0.5 {
            continue;
        }
        if unit.in_column() {
            moves.push(vec![MoveStep::Path(vec![front + (there - front).normalize_or_zero() * d])]);
        } else if turn.abs() <= 45.0 {
            moves.push(vec![MoveStep::Oblique { angle: turn, distance: d }]);
        } else if unit.formation != crate::scenario::model::Formation::Skirmish {
            let angle = turn.clamp(-60.0, 60.0);
            let pivot = if angle > 0.0 { End::Right } else { End::Left };
            let cost = angle.to_radians().abs() * arc.front_left.distance(arc.front_right);
            let rest = (d - cost).max(0.0);
            let mut steps = vec![MoveStep::Wheel { pivot, angle }];
            if rest >= 0.5 {
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
