//! The automatic player for the orders sheet. It writes sensible orders for its own side only
//! (never reading the other side's, which stay sealed until step 3): charge (C) when an enemy in
//! reach and in the primary zone gives the better odds of impact, first fire (FR) with an enemy
//! in range, form (FM) to clear disorder, else move (M) on the nearest enemy. It then plays them
//! through the steps, and in step 7 drives a supply wagon the enemy has come near back out of
//! its way (OR12) and marches a unit low on ammunition back within reach of its wagons when one
//! move does it and no enemy is close (OR15). Every action it gives has passed the engine's own check.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::combat::sum;
use super::game::{Game, Morale, OrAction, Order, Phase};
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::Arm;
use crate::table::arc::Arc;
use crate::table::contact;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

#[derive(Clone, Copy, Debug, Default)]
pub struct Bot;

impl Automatic for Bot {
    fn next_action(&mut self, engine: &dyn Engine) -> Option<Action> {
        let game = engine.as_any().downcast_ref::<Game>()?;
        if engine.sequence().over {
            return None;
        }
        let allowed = |a: Action| engine.check(&a).is_ok().then_some(a);
        let Some(side) = game.acting_side() else { return allowed(Action::Next) };
        let s = game.situation();
        let mine: Vec<(Entity, usize)> = game.live_units().filter(|(_, u)| u.side == side).filter_map(|(e, u)| Some((e, s.find(&u.name).ok()?))).collect();
        let name = |i: usize| s.unit(i).name.clone();
        let enemies = |me: usize| {
            let mut list: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (range::unit_distance(&s, me, o), o)).collect();
            list.sort_by(|a, b| a.0.total_cmp(&b.0));
            list
        };
        match game.phase() {
            Phase::Orders(_) => {
                for &(e, me) in &mine {
                    let Some(o) = game.or(e) else { continue };
                    if o.order.is_some() || o.morale == Morale::Routed {
                        continue;
                    }
                    let order = choose_order(game, e, me, &s);
                    if let Some(a) = allowed(Action::AcwOrders(OrAction::WriteOrder { unit: name(me), order })) {
                        return Some(a);
                    }
                    if let Some(a) = allowed(Action::AcwOrders(OrAction::WriteOrder { unit: name(me), order: Order::H })) {
                        return Some(a);
                    }
                }
            }
            Phase::Reveal(_) => {
                for &(e, me) in &mine {
                    if game.or(e).is_none_or(|o| o.order != Some(Order::C) || o.target.is_some()) {
                        continue;
                    }
                    let best = enemies(me).into_iter().filter_map(|(_, o)| Some((charge_edge(game, e, &name(me), &name(o))?, o))).max_by(|a, b| a.0.total_cmp(&b.0));
                    if let Some((_, o)) = best {
                        return allowed(Action::Charge { unit: name(me), target: name(o) });
                    }
                }
            }
            Phase::FirstFire(_) | Phase::MovingFire(_) => {
                for &(e, me) in &mine {
                    for (_, o) in enemies(me) {
                        // OR15: breech-loaders and repeaters fire rapidly inside normal range,
                        // where the die more is worth the risk to their ammunition.
                        let near = game.find(&name(o)).ok().and_then(|t| game.shot_geometry(e, t).ok()).is_some_and(|(_, band)| band != super::combat::Band::Long);
                        if near && let Some(a) = allowed(Action::AcwOrders(OrAction::RapidFire { unit: name(me), target: name(o) })) {
                            return Some(a);
                        }
                        if let Some(a) = allowed(Action::Fire { unit: name(me), target: name(o) }) {
                            return Some(a);
                        }
                    }
                }
            }
            Phase::Movement(_) => {
                for &(e, me) in &mine {
                    let Some(o) = game.or(e) else { continue };
                    if o.order == Some(Order::FM) && !o.formed {
                        let unit = game.unit(e)?;
                        let to = if matches!(unit.arm, Arm::Artillery { .. }) { crate::scenario::model::Formation::Unlimbered } else { unit.formation };
                        if let Some(a) = allowed(Action::ChangeFormation { unit: name(me), formation: to }) {
                            return Some(a);
                        }
                        if let Some(a) = allowed(Action::ChangeFormation { unit: name(me), formation: crate::scenario::model::Formation::Line }) {
                            return Some(a);
                        }
                    }
                    if o.order != Some(Order::M) || o.moved {
                        continue;
                    }
                    let Some(movement) = engine.movement(e) else { continue };
                    if let Some(wagon) = resupply_point(game, e, me, &s)
                        && let Some(a) = back_to(&s, me, wagon, movement.allowance - movement.spent).into_iter().find_map(|steps| allowed(engine.move_action(e, 0, steps)))
                    {
                        return Some(a);
                    }
                    let Some(&(distance, nearest)) = enemies(me).first() else { continue };
                    // Close to a little inside the unit's normal range, no nearer.
                    let keep = game.ranges(e).map_or(2.0, |(_, normal, _)| (normal * 0.8).max(1.5));
                    let want = (distance - keep).min(movement.allowance - movement.spent);
                    if want < 0.25 {
                        continue;
                    }
                    if let Some(a) = approach(&s, me, nearest, want).into_iter().find_map(|steps| allowed(engine.move_action(e, 0, steps))) {
                        return Some(a);
                    }
                }
                // OR12 wagons: a wagon the enemy's line has come near drives back out of its way.
                if let Some(a) = wagon_back(game, side).into_iter().find_map(allowed) {
                    return Some(a);
                }
                // Leaders ride to stand with their brigade's first unit (an officer present, OR8).
                for &l in &game.leaders {
                    let Some((c, ol)) = game.leader(l) else { continue };
                    if c.side != side || ol.out || ol.moved {
                        continue;
                    }
                    let unit = game.live_units().find(|(_, u)| c.brigade.is_none_or(|b| u.brigade == b) && u.side == side);
                    let Some((_, u)) = unit else { continue };
                    let fs = crate::scenario::spawn::unit_footprints(game.world(), u);
                    let Some(f) = fs.first() else { continue };
                    let to = f.centre - f.forward() * (f.depth / 2.0 + 0.75);
                    if to.distance(c.at) > 0.5
                        && let Some(a) = allowed(Action::MoveLeader { leader: c.name.clone(), to: toward(c.at, to, 24.0) })
                    {
                        return Some(a);
                    }
                }
            }
            _ => {}
        }
        allowed(Action::Next)
    }
}

/// How near the enemy a wagon may wait before it drives back: a move of the enemy's foot beyond
/// the 1' the sheet keeps it from the line (OR12).
const WAGON_MARGIN: f32 = 8.0;

/// Drives of `side`'s wagons that the enemy has come near, away from the nearest enemy stand
/// and toward the side's own rear, farthest first; each still to be checked.
pub(super) fn wagon_back(game: &Game, side: usize) -> Vec<Action> {
    let m = &game.charts().movement;
    let (most, clear) = (m.wagon_move.value, m.wagon_clearance.value);
    let t = game.scenario().table;
    let inside = |p: Vec2| Vec2::new(p.x.clamp(0.5, t.width - 0.5), p.y.clamp(0.5, t.depth - 0.5));
    // The side's rear: from the enemy's centre of mass through its own.
    let centre = |mine: bool| {
        let at: Vec<Vec2> = game.live_units().filter(|(_, u)| (u.side == side) == mine).flat_map(|(_, u)| crate::scenario::spawn::unit_footprints(game.world(), u)).map(|f| f.centre).collect();
        (!at.is_empty()).then(|| at.iter().sum::<Vec2>() / at.len() as f32)
    };
    let rear = match (centre(true), centre(false)) {
        (Some(own), Some(enemy)) => (own - enemy).normalize_or_zero(),
        _ => Vec2::ZERO,
    };
    let mut out = Vec::new();
    for (e, w) in game.wagons() {
        if w.side != side || game.wagons_moved.contains(&e) {
            continue;
        }
        let Some((_, near)) = game.nearest_enemy_stand(side, w.at) else { continue };
        if near >= clear + WAGON_MARGIN {
            continue;
        }
        let mut ways = Vec::new();
        if let Some(f) = game.live_units().filter(|(_, u)| u.side != side).flat_map(|(_, u)| crate::scenario::spawn::unit_footprints(game.world(), u)).min_by(|a, b| a.centre.distance(w.at).total_cmp(&b.centre.distance(w.at))) {
            ways.push((w.at - f.centre).normalize_or_zero());
        }
        ways.push(rear);
        let mut drives: Vec<(f32, Vec2)> = Vec::new();
        for way in ways.into_iter().filter(|v| *v != Vec2::ZERO) {
            for share in [1.0, 0.5] {
                let to = inside(w.at + way * most * share);
                let after = game.nearest_enemy_stand(side, to).map_or(f32::INFINITY, |(_, d)| d);
                if after > near + 0.5 {
                    drives.push((after, to));
                }
            }
        }
        drives.sort_by(|a, b| b.0.total_cmp(&a.0));
        out.extend(drives.into_iter().map(|(_, to)| Action::AcwOrders(OrAction::MoveWagon { wagon: w.name.clone(), to })));
    }
    out
}

/// No enemy this near (inches) when a low unit turns back for its wagons: about a charge's reach.
const RESUPPLY_SAFE: f32 = 8.0;

/// OR15 wagons: where a unit low on ammunition should go to be resupplied: its side's nearest
/// wagon, when none is within reach now, one move would bring it within reach, and no enemy is
/// within `RESUPPLY_SAFE`.
fn resupply_point(game: &Game, e: Entity, me: usize, s: &Situation) -> Option<Vec2> {
    let o = game.or(e)?;
    if !o.low_ammo || o.morale == Morale::Routed {
        return None;
    }
    let Err(Some((wagon, d))) = game.supplying_wagon(e) else { return None };
    let (rate, _) = game.allowance(e)?;
    if d - game.charts().movement.wagon_supply.value > rate || Game::nearest_enemy(s, me).is_some_and(|(_, n)| n < RESUPPLY_SAFE) {
        return None;
    }
    game.wagons().find(|(_, w)| w.name == wagon).map(|(_, w)| w.at)
}

/// Moves of `me` back toward `to` (a wagon), longest first: a column along a path; a line
/// about faces and goes forward or obliquely, as the table prices it.
fn back_to(s: &Situation, me: usize, to: Vec2, reach: f32) -> Vec<Vec<MoveStep>> {
    let unit = s.unit(me);
    let Some(arc) = Arc::of_unit(unit) else { return Vec::new() };
    let stands = &unit.stands;
    let centre = stands.iter().map(|st| st.footprint.centre).sum::<Vec2>() / stands.len().max(1) as f32;
    let front = (arc.front_left + arc.front_right) / 2.0;
    let far = centre.distance(to);
    let mut moves = Vec::new();
    for share in [1.0, 0.66, 0.33] {
        let d = (reach * share).min(far);
        if d < 0.5 {
            continue;
        }
        if unit.in_column() {
            moves.push(vec![MoveStep::Path(vec![front + (to - front).normalize_or_zero() * d])]);
        } else {
            let turn = (vector_bearing(to - centre) - (arc.facing + 180.0) + 180.0).rem_euclid(360.0) - 180.0;
            let step = if turn.abs() <= 45.0 { MoveStep::Oblique { angle: turn, distance: d } } else { MoveStep::Forward(d) };
            moves.push(vec![MoveStep::AboutFace, step]);
        }
    }
    moves
}

fn toward(from: Vec2, to: Vec2, most: f32) -> Vec2 {
    let d = to - from;
    if d.length() <= most { to } else { from + d.normalize() * most }
}

/// The order a sensible commander writes (OR1-OR2).
fn choose_order(game: &Game, e: Entity, me: usize, s: &Situation) -> Order {
    let Some(o) = game.or(e) else { return Order::H };
    let unit = game.unit(e).expect("on the table");
    if o.disordered {
        return Order::FM;
    }
    let guns = matches!(unit.arm, Arm::Artillery { .. });
    if guns && unit.formation == crate::scenario::model::Formation::Limbered {
        return Order::FM;
    }
    // OR15 wagons: low on ammunition, out of its wagons' reach, one move from it and no enemy
    // close: it goes back to be resupplied in step 2c.
    if !guns && resupply_point(game, e, me, s).is_some() {
        return Order::M;
    }
    // Charge when an enemy in reach (and the primary zone, if any is there) gives the better odds.
    if !guns && o.morale == Morale::Steady {
        let reach = game.charge_reach(e);
        let zone = Game::primary_zone(s, me, reach);
        let candidates: Vec<usize> = if zone.is_empty() { (0..s.units().len()).filter(|&x| s.unit(x).side != s.unit(me).side).collect() } else { zone };
        for t in candidates {
            let path = contact::charge_path(s, me, t, &super::moves::MOVES);
            if !path.clear() || path.distance > game.allowance(e).map_or(0.0, |(r, _)| r) + 3.0 {
                continue;
            }
            let Ok(te) = game.find(&s.unit(t).name) else { continue };
            let (att, def) = game.impact_mods(e, te, &path, !Game::steady(o.quality));
            let edge = match def {
                None => 1.0,
                Some(def) => {
                    let (a, d, _) = Game::impact_odds(sum(&att), sum(&def));
                    a - d
                }
            };
            if edge > 0.15 {
                return Order::C;
            }
        }
    }
    let in_range = (0..s.units().len()).filter(|&x| s.unit(x).side != s.unit(me).side).any(|x| game.find(&s.unit(x).name).is_ok_and(|t| game.shot_geometry(e, t).is_ok()));
    if in_range {
        return Order::FR;
    }
    if guns { Order::H } else { Order::M }
}

/// How much better the attacker's odds of impact are than the defender's; `None` if the charge
/// is not open.
fn charge_edge(game: &Game, _e: Entity, unit: &str, target: &str) -> Option<f64> {
    let (a, t, path) = game.check_charge(unit, target).ok()?;
    let q = game.or(a)?.quality;
    let (att, def) = game.impact_mods(a, t, &path, !Game::steady(q));
    Some(match def {
        None => 1.0,
        Some(def) => {
            let (w, l, _) = Game::impact_odds(sum(&att), sum(&def));
            w - l
        }
    })
}

/// Moves of `me` toward `enemy`, longest first.
fn approach(s: &Situation, me: usize, enemy: usize, reach: f32) -> Vec<Vec<MoveStep>> {
    let unit = s.unit(me);
    let Some(arc) = Arc::of_unit(unit) else { return Vec::new() };
    let front = (arc.front_left + arc.front_right) / 2.0;
    let stands = &s.unit(enemy).stands;
    let there = stands.iter().map(|st| st.footprint.centre).sum::<Vec2>() / stands.len().max(1) as f32;
    let turn = (vector_bearing(there - front) - arc.facing + 180.0).rem_euclid(360.0) - 180.0;
    let mut moves = Vec::new();
    for share in [1.0, 0.66, 0.33] {
        let d = reach * share;
        if d < 0.25 {
            continue;
        }
        if unit.in_column() {
            moves.push(vec![MoveStep::Path(vec![front + (there - front).normalize_or_zero() * d])]);
        } else if turn.abs() <= 45.0 {
            moves.push(vec![MoveStep::Oblique { angle: turn, distance: d }]);
        } else {
            let angle = turn.clamp(-90.0, 90.0);
            let pivot = if angle > 0.0 { End::Right } else { End::Left };
            moves.push(vec![MoveStep::Wheel { pivot, angle: angle / 2.0 }]);
        }
    }
    moves
}
