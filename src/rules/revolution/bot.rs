//! The automatic player of *Revolution*, for either side: it re-rolls a grave morale failure
//! (a rout, a loss) when a leader is near (SG35); in the activation it re-mans and unlimbers guns near the
//! enemy, charges when the target's toss fails at least half the time or the target is a
//! router or a gun (SG17, SG23, SG32), deploys columns coming within reach, holds what can
//! already fire (SG7), and otherwise closes to its own range (SG11–SG16); leaders ride to the
//! unit nearest the enemy (SG35, SG36); in combat each unit attacks a router if it can, else
//! the nearest target (SG21, SG32). Every order it gives has passed the engine's own check.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{Attack, Category, Done, Game, Step};
use crate::rules::action::Action;
use crate::rules::engine::{Automatic, Engine};
use crate::scenario::model::{Formation, RevolutionKind};
use crate::scenario::spawn;
use crate::table::arc::Arc;
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;

#[derive(Clone, Copy, Debug, Default)]
pub struct Bot;

impl Automatic for Bot {
    fn next_action(&mut self, game: &dyn Engine) -> Option<Action> {
        let g = game.as_any().downcast_ref::<Game>()?;
        let seq = g.sequence_view();
        if seq.over {
            return None;
        }
        if let Some(p) = &g.pending {
            // SG35: the nearest leader (option 1) re-rolls a failure that routs or removes the
            // unit or costs it a stand; disorder and a crew falling back are taken.
            let words = g.failure_words(p.target, p.category);
            let grave = ["rout", "lost", "loses", "removed"].iter().any(|w| words.contains(w));
            return Some(Action::Answer { prompt: p.id, option: u32::from(grave && !p.leaders.is_empty()) });
        }
        let allowed = |a: Action| g.check(&a).is_ok().then_some(a);
        let s = g.situation();
        match g.step() {
            Step::Activation => {
                for &e in &seq.acting {
                    if let Some(a) = activation(g, &s, e) {
                        return Some(a);
                    }
                }
                if let Some(a) = leaders(g, &s) {
                    return Some(a);
                }
            }
            Step::Combat(c) if c != Category::Melee => {
                for &e in &seq.acting {
                    let Some(me) = index(g, &s, e) else { continue };
                    let name = s.unit(me).name.clone();
                    let mut targets = enemies(&s, me);
                    targets.sort_by_key(|&(_, o)| !g.live_units().any(|(t, u)| u.name == s.unit(o).name && g.sg(t).is_some_and(|x| x.routing)));
                    if let Some(a) = targets.into_iter().find_map(|(_, o)| allowed(Action::Fire { unit: name.clone(), target: s.unit(o).name.clone() })) {
                        return Some(a);
                    }
                }
            }
            Step::Combat(_) => {}
        }
        allowed(Action::Next)
    }
}

fn index(g: &Game, s: &Situation, e: Entity) -> Option<usize> {
    g.unit(e).and_then(|u| s.find(&u.name).ok())
}

/// Enemy units nearest first: (distance edge to edge, index).
fn enemies(s: &Situation, me: usize) -> Vec<(f32, usize)> {
    let mut list: Vec<(f32, usize)> = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(me).side).map(|o| (range::unit_distance(s, me, o), o)).collect();
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    list
}

/// One unit's order in the activation, if it has one worth giving.
fn activation(g: &Game, s: &Situation, e: Entity) -> Option<Action> {
    let allowed = |a: Action| g.check(&a).is_ok().then_some(a);
    let (u, sg) = (g.unit(e)?, g.sg(e)?);
    let me = index(g, s, e)?;
    let name = u.name.clone();
    let foes = enemies(s, me);
    let &(distance, nearest) = foes.first()?;
    let reach = Game::category(sg.kind).and_then(|c| c.range(g.rates()));
    if sg.done == Done::Nothing {
        // In a melee: fight on (SG34).
        for t in g.in_melee_with(s, e) {
            if let Some(a) = allowed(Action::Charge { unit: name.clone(), target: g.unit(t)?.name.clone() }) {
                return Some(a);
            }
        }
        if sg.kind == RevolutionKind::Artillery {
            let near = distance <= reach.unwrap_or(0.0) + 4.0;
            let to = if sg.crew_off || (u.formation == Formation::Limbered && near) { Some(Formation::Unlimbered) } else { None };
            return to.and_then(|formation| allowed(Action::ChangeFormation { unit: name.clone(), formation })).or_else(|| if u.formation == Formation::Unlimbered { None } else { approach(g, s, e, me, nearest, distance, reach.unwrap_or(36.0) - 4.0) });
        }
        // SG17, SG23: charge where the toss is worth it.
        for &(d, o) in &foes {
            let full = g.allowance(e)?.0;
            if d > full {
                break;
            }
            let target = s.unit(o).name.clone();
            let Ok(charge) = g.check_charge(&name, &target) else { continue };
            let attack = Attack { attacker: e, target: charge.target, category: Category::Melee, first_round: charge.path.is_some(), uphill: false };
            let toss = g.morale_toss(charge.target, Category::Melee, Some(attack));
            let easy = toss.router || g.sg(charge.target).is_some_and(|t| t.kind == RevolutionKind::Artillery);
            if easy || Game::fail_chance(g.rates().tosses.morale_fails_at_most.get(), toss.total()) >= 0.5 {
                return Some(Action::Charge { unit: name, target });
            }
        }
        // Deploy when the enemy is near.
        let near = reach.unwrap_or(g.allowance(e)?.0) + g.allowance(e)?.0;
        if Game::in_column(u.formation)
            && distance <= near
            && let Some(f) = g.formations_open(e).into_iter().find(|&f| Game::deployed(f))
            && let Some(a) = allowed(Action::ChangeFormation { unit: name.clone(), formation: f })
        {
            return Some(a);
        }
    }
    // Hold what can already fire (SG7: rifles and guns lose their fire by moving).
    if let Some(r) = reach
        && Game::deployed(u.formation)
        && foes.iter().any(|&(d, _)| d <= r)
    {
        return None;
    }
    let stop = match reach {
        Some(r) => r - 2.0,
        None => 2.0,
    };
    approach(g, s, e, me, nearest, distance, stop)
}

/// A move toward `enemy`, stopping `stop` inches short, longest first.
fn approach(g: &Game, s: &Situation, e: Entity, me: usize, enemy: usize, distance: f32, stop: f32) -> Option<Action> {
    let full = g.allowance(e)?.0;
    let go = (distance - stop.max(1.0)).min(full);
    if go < 0.5 {
        return None;
    }
    let unit = s.unit(me);
    let arc = Arc::of_unit(unit)?;
    let front = (arc.front_left + arc.front_right) / 2.0;
    let stands = &s.unit(enemy).stands;
    let there = stands.iter().map(|st| st.footprint.centre).sum::<Vec2>() / stands.len().max(1) as f32;
    let turn = (vector_bearing(there - front) - arc.facing + 180.0).rem_euclid(360.0) - 180.0;
    let column = Game::in_column(unit.formation);
    let name = unit.name.clone();
    for share in [1.0, 0.75, 0.5, 0.25] {
        let d = go * share;
        if d < 0.5 {
            continue;
        }
        let steps = if column && unit.formation == Formation::Column {
            vec![MoveStep::Path(vec![front + (there - front).normalize_or_zero() * d])]
        } else if turn.abs() <= 45.0 {
            vec![MoveStep::Oblique { angle: turn, distance: d }]
        } else {
            let angle = turn.clamp(-90.0, 90.0);
            let pivot = if angle > 0.0 { End::Right } else { End::Left };
            let cost = angle.to_radians().abs() * arc.front_left.distance(arc.front_right);
            let mut steps = vec![MoveStep::Wheel { pivot, angle }];
            if d - cost >= 0.5 {
                steps.push(MoveStep::Forward(d - cost));
            }
            steps
        };
        let action = Action::Move { unit: name.clone(), steps };
        // Never off the table on purpose (SG33).
        if let Ok(t) = g.check_move(&name, match &action {
            Action::Move { steps, .. } => steps,
            _ => unreachable!(),
        }) && t.placed.as_ref().is_some_and(|p| !p.off_table)
        {
            return Some(action);
        }
    }
    None
}

/// Each leader who has not ridden joins a steady unit of his side near the enemy, the first
/// leader the nearest unit, the second the next, and so on.
fn leaders(g: &Game, s: &Situation) -> Option<Action> {
    let side = g.phasing();
    let mut front: Vec<(f32, Entity)> = g
        .live_units()
        .filter(|(e, u)| u.side == side && g.sg(*e).is_some_and(|x| !x.routing))
        .filter_map(|(e, _)| Some((enemies(s, index(g, s, e)?).first()?.0, e)))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    if front.is_empty() {
        return None;
    }
    for (k, (l, c)) in g.live_leaders().filter(|(_, c)| c.side == side).enumerate() {
        if g.world.get::<super::game::Ride>(l).is_some_and(|r| r.moved) {
            continue;
        }
        let e = front[k % front.len()].1;
        let near = spawn::unit_footprints(&g.world, g.unit(e)?).iter().map(|f| crate::table::cover::distance_to_stand(f, c.at)).fold(f32::INFINITY, f32::min);
        if near <= 3.0 {
            continue;
        }
        let a = Action::JoinUnit { leader: c.name.clone(), unit: g.unit(e)?.name.clone() };
        if g.check(&a).is_ok() {
            return Some(a);
        }
    }
    None
}
