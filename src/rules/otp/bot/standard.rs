//! The standard and strong automatic players for On to Philadelphia: they play the scenario.
//!
//! At the start of each of its activations a brigade takes a plan: what its posture asks now
//! ([`automatic::stance`]: the scenario's `posture`, else derived from the objectives) and the
//! objective it goes for or holds (points over distance). Then, unit by unit with the novice's
//! legality checks, each unit's whole operation (3.1–3.3: a shot and a half move, in either
//! order, where the operation allows both): shed a Morale Marker (10.2–10.4); charge when
//! the exact closure and melee odds clear the stance's bar (an attacker charges on better than
//! even odds, a defender counter-attacks only on good ones, 9.1, 9.8); fire at the target the
//! exact FIRE odds make worth most, an enemy on an objective first (8.x); form line or unlimber
//! near the enemy; then move — a defender to its place on the objective (and stays there), an
//! attacker toward its objective keeping its place in the brigade (it waits for the brigade when
//! ahead of it), a screen to the edge of its range. Every action carries a one-line reason.
//!
//! The strong player rehearses: at a brigade's activation it plays each of its best-weighed plans
//! out to the end of the game in copies with fresh dice (`rehearse`) and takes the one that
//! stands best there; and it plays with more judgement of the enemy's reply: an attacker
//! weighs each objective against how strongly it is held, a defender throws an enemy off an
//! objective on shorter odds, and its fire counts what a hit costs the target next (10.2, 10.3).

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::{DEPLOY_DISTANCE, rehearse, shed_marker};
use crate::rules::automatic::route::{Fire, Going, way};
use crate::rules::automatic::{self, Seen, Stance};
use crate::rules::engine::PlannedPath;
use crate::rules::otp::charts::ArmClass;
use crate::rules::otp::engine::operations::Activity;
use crate::rules::otp::engine::{Action, ChargeOptions, Game, Phase, Removal};
use crate::rules::otp::fire::range::{FIRE, max_range};
use crate::scenario::model::{Arm, Formation};
use crate::scenario::spawn::Brigade;
use crate::table::aspect::AttackZone;
use crate::table::fire::{FireOptions, targets};
use crate::table::footprint::vector_bearing;
use crate::table::movement::{End, MoveStep};
use crate::table::range::unit_distance;
use crate::table::situation::Situation;

/// The most plans of a brigade the strong player rehearses (the ones that weigh most).
const CANDIDATES: usize = 3;

/// How much better (points ahead at the end, 4.5, on average) another plan must stand in the
/// rehearsals than the one that weighs most to be taken instead (measured: one point let two
/// games' luck steer the British attack at Brandywine, docs/bot.md).
pub(super) const CLEARLY_BETTER: f64 = 2.0;

/// An objective a brigade goes for or holds.
#[derive(Clone, Debug)]
struct Goal {
    name: String,
    at: Vec2,
    radius: f32,
    points: u32,
    /// A defender's objective the enemy alone holds: the brigade counter-attacks to retake it.
    retake: bool,
}

/// A brigade's plan for one activation.
#[derive(Clone, Debug)]
struct Plan {
    stance: Stance,
    /// The last three turns: objectives are counted at the end (4.5), so no more waiting.
    late: bool,
    /// An attacker whose objective is hardly within reach of the turns left (4.5): no waiting
    /// for the line, no firefight with what stands in the way, charges on shorter odds.
    pressed: bool,
    /// The strong player's plan.
    look_ahead: bool,
    goal: Option<Goal>,
    /// The middle of the brigade's units' fronts when the activation began.
    centre: Vec2,
}

/// The standard (or, looking ahead, strong) automatic player.
#[derive(Clone, Debug, Default)]
pub struct Standard {
    look_ahead: bool,
    /// Looking ahead, it rehearses its plans (not in a rehearsal: one level deep).
    rehearses: bool,
    key: Option<(u32, u32)>,
    /// Units done for this activation.
    handled: Vec<String>,
    /// Units that have taken the first part of their operation this activation: the second
    /// (3.1 2: move 1/2 and fire, or vice versa; 4: change formation and fire; 3.3 3: unlimber
    /// and fire) comes when the loop reaches them again.
    begun: Vec<String>,
    plan: Option<Plan>,
    /// Each brigade's objective at its last activation: kept unless another is clearly worth
    /// more, so that a brigade does not march to and fro between two.
    goals: Vec<(Entity, String)>,
    /// The going over the table (the scenario's, worked out once) and the enemy's fire over it
    /// at the start of this activation: the ways round (automatic::route).
    going: Option<Going>,
    fire: Fire,
    /// The way round the enemy's fire of the move just chosen, for the window to draw.
    way: Option<PlannedPath>,
    /// How the strong player's rehearsals of the brigade's plans came out, said with the
    /// activation's first action.
    rehearsed: Option<String>,
    /// In a rehearsal: the brigade held to the objective of the plan rehearsed, at every one of
    /// its activations to the end (a plan is a commitment, not one activation's move).
    held_to: Option<(Entity, String)>,
}

fn pct(p: f64) -> String {
    format!("{:.0}%", 100.0 * p)
}

fn dir(bearing: f32) -> Vec2 {
    let r = bearing.to_radians();
    Vec2::new(r.sin(), r.cos())
}

impl Standard {
    pub fn new(look_ahead: bool) -> Self {
        Standard { look_ahead, rehearses: look_ahead, ..Standard::default() }
    }

    /// The way round the enemy's fire of the move last decided, if it took one (taken once).
    pub fn take_way(&mut self) -> Option<PlannedPath> {
        self.way.take()
    }

    /// The objective of the plan of the activation under way.
    #[cfg(test)]
    pub(super) fn goal(&self) -> Option<&str> {
        self.plan.as_ref()?.goal.as_ref().map(|goal| goal.name.as_str())
    }

    /// The next action and why; `None` once the game is over.
    pub fn decide(&mut self, g: &Game) -> Option<(Action, String)> {
        self.way = None;
        match g.phase() {
            Phase::Over => None,
            Phase::Setup => Some((Action::StartGame, "starts the game".into())),
            Phase::Draw => Some((Action::DrawChit, "draws the next chit (4.3)".into())),
            Phase::Rebuild => Some(match g.units().map(|(_, u)| u.name.clone()).find(|n| g.check_rebuild(n).is_ok()) {
                Some(unit) => (Action::AttemptRebuild { unit: unit.clone() }, format!("tries to rebuild {unit}: the rules allow it (11.0)")),
                None => (Action::EndTurn, "ends the turn: no rebuild left to try (11.0)".into()),
            }),
            Phase::Activation { chit } => self.activation(g, chit),
        }
    }

    fn activation(&mut self, g: &Game, chit: u32) -> Option<(Action, String)> {
        let (a, why) = self.activation_step(g, chit)?;
        Some(match self.rehearsed.take() {
            Some(said) => (a, format!("{why}; {said}")),
            None => (a, why),
        })
    }

    fn activation_step(&mut self, g: &Game, chit: u32) -> Option<(Action, String)> {
        let seen = automatic::seen(g);
        let units: Vec<(Entity, String)> = g.units().filter(|(_, u)| g.world().get::<Brigade>(u.brigade).is_some_and(|b| b.chit == chit)).map(|(e, u)| (e, u.name.clone())).collect();
        let fresh = self.key != Some((g.turn(), chit));
        let s = std::cell::LazyCell::new(|| Situation::from_world(g.world()));
        if fresh || self.going.is_none() {
            let going = self.going.get_or_insert_with(|| Going::of(g.scenario()));
            let side = units.first().map_or(0, |&(e, _)| g.unit(e).side);
            let reaches: Vec<(Entity, f32)> = seen.iter().map(|x| (x.entity, reach(&s, x))).collect();
            self.fire = Fire::of(going, &seen, side, |x| reaches.iter().find(|r| r.0 == x.entity).map_or(2.0, |r| r.1));
        }
        if fresh {
            self.key = Some((g.turn(), chit));
            self.handled.clear();
            self.begun.clear();
            self.rehearsed = None;
            self.plan = units.first().map(|&(e, _)| {
                let brigade = g.unit(e).brigade;
                let before = self.goals.iter().find(|(b, _)| *b == brigade).map(|(_, goal)| goal.as_str());
                let mut ranked = plans(g, &seen, brigade, self.look_ahead, before);
                if let Some((_, goal)) = self.held_to.as_ref().filter(|(b, _)| *b == brigade) {
                    ranked.sort_by_key(|(_, p)| p.goal.as_ref().is_none_or(|g| &g.name != goal));
                }
                ranked.truncate(CANDIDATES);
                let p = if self.rehearses && ranked.len() > 1 {
                    let (p, said) = self.rehearsed_plan(g, g.unit(e).side, brigade, ranked);
                    self.rehearsed = Some(said);
                    p
                } else {
                    ranked.swap_remove(0).1
                };
                self.goals.retain(|(b, _)| *b != brigade);
                if let Some(goal) = &p.goal {
                    self.goals.push((brigade, goal.name.clone()));
                }
                p
            });
        }
        let stance = self.plan.as_ref().map_or(Stance::Attack, |p| p.stance);
        // 6.10: a bonus move goes into another charge when one is worth it.
        let bonus: Vec<(Entity, String)> = g.units().filter(|(e, _)| g.bonus_pending(*e)).map(|(e, u)| (e, u.name.clone())).collect();
        if let Some(a) = bonus.iter().find_map(|(e, name)| charge(g, &s, &seen, *e, name, stance, self.plan.as_ref(), None)) {
            return Some(a);
        }
        for (e, name) in units {
            if self.handled.contains(&name) || g.unit_turn(e).off_table {
                continue;
            }
            if let Some(a) = shed_marker(g, e, &name) {
                let how = match &a {
                    Action::RemoveMarker { how: Removal::Pass { commander }, .. } => format!("a pass from {commander}"),
                    _ => "a roll".into(),
                };
                return Some((a, format!("{name} tries to shed its Morale Marker with {how} (10.2–10.4)")));
            }
            let plan = self.plan.clone();
            let p = plan.as_ref();
            if self.begun.contains(&name) {
                self.handled.push(name.clone());
                if let Some(a) = self.rest(g, &s, &seen, e, &name, stance, p) {
                    return Some(a);
                }
                continue;
            }
            self.begun.push(name.clone());
            // A unit on its way to an objective nobody holds, for the count at the end (4.5), goes:
            // it charges only an enemy standing in an objective or across its way there, and
            // stops for no telling shot.
            let late = p.zip(seen.iter().find(|x| x.entity == e)).and_then(|(p, me)| errand(g, &seen, me, p));
            let on_errand = match &late {
                Some(Late::Go { at, free: true, .. }) => Some(*at),
                _ => None,
            };
            // A telling shot first; else form; an attacker with time in hand fires any shot that
            // can hurt and goes on at half pace after it (3.1 2), one pressed for time moves
            // fully; and only then any shot.
            let leisure = stance == Stance::Attack && on_errand.is_none() && !p.is_some_and(|p| p.pressed);
            let choice = charge(g, &s, &seen, e, &name, stance, p, on_errand)
                .or_else(|| if on_errand.is_some() { None } else { fire(g, &s, &seen, e, &name, stance, p, self.look_ahead, false) })
                .or_else(|| deploy(g, &s, &seen, e, &name, p))
                .or_else(|| if leisure { fire(g, &s, &seen, e, &name, stance, p, self.look_ahead, true) } else { None })
                .or_else(|| self.movement(g, &s, &seen, e, &name, p, late))
                .or_else(|| fire(g, &s, &seen, e, &name, stance, p, self.look_ahead, true));
            if let Some(a) = choice {
                return Some(a);
            }
        }
        Some((Action::EndActivation, "ends the activation: every unit has done what is worth doing".into()))
    }

    /// Looking ahead: the plan to take of `ranked` when each is rehearsed to the end of the game
    /// ([`rehearse`]: its own side played by this player without rehearsals, the brigade held to
    /// the plan's objective, the enemy by the standard player), and what the rehearsals said.
    fn rehearsed_plan(&self, g: &Game, side: usize, brigade: Entity, ranked: Vec<(f32, Plan)>) -> (Plan, String) {
        let candidates: Vec<Plan> = ranked.into_iter().map(|(_, p)| p).collect();
        let stood = rehearse::rehearse(g, side, &candidates, |copy, plan| {
            let held_to = plan.goal.as_ref().map(|goal| (brigade, goal.name.clone()));
            let me = Standard { rehearses: false, plan: Some(plan.clone()), rehearsed: None, way: None, held_to, ..self.clone() };
            let enemy = || Standard { going: self.going.clone(), ..Standard::new(false) };
            let mut players = super::Sides((0..g.scenario().sides.len()).map(|s| super::Leveled::Standard(if s == side { me.clone() } else { enemy() })).collect());
            crate::rules::simulate::play_out_with(copy, &mut players, None);
        });
        // The plan that weighs most stands unless another did clearly better (two points ahead
        // at the end, on average): two games a plan are few, and their luck should not steer it.
        let best = (1..candidates.len()).filter(|&c| stood[c] >= stood[0] + CLEARLY_BETTER).max_by(|&a, &b| stood[a].total_cmp(&stood[b]).then(b.cmp(&a))).unwrap_or(0);
        let name = |p: &Plan| p.goal.as_ref().map_or_else(|| "no objective".to_string(), |goal| goal.name.clone());
        let each: Vec<String> = candidates.iter().zip(&stood).map(|(p, s)| format!("{} {s:+.1}", name(p))).collect();
        let verdict = if best == 0 { format!("{} stands", name(&candidates[0])) } else { format!("{} clearly better than {}", name(&candidates[best]), name(&candidates[0])) };
        let said = format!("its plans rehearsed to the end, {} games each with fresh dice (VP ahead at the end): {}; {verdict}", rehearse::REHEARSALS, each.join(", "));
        (candidates[best].clone(), said)
    }

    /// The second part of a unit's operation, after its first this activation (3.1–3.3): a shot
    /// after a half move or a change of formation (a full move leaves none, and the engine says
    /// so), a half move after a shot or a change of formation.
    #[allow(clippy::too_many_arguments)]
    fn rest(&mut self, g: &Game, s: &Situation, seen: &[Seen], e: Entity, name: &str, stance: Stance, p: Option<&Plan>) -> Option<(Action, String)> {
        let done = g.unit_turn(e).done.clone();
        let after = match done.as_slice() {
            [Activity::Move] => "after its half move",
            [Activity::Fire] => "at half pace after its fire",
            [Activity::Form(_)] => "after its change of formation",
            _ => return None,
        };
        let look_ahead = self.look_ahead;
        let shot = || fire(g, s, seen, e, name, stance, p, look_ahead, true);
        let mut walk = || {
            let me = seen.iter().find(|x| x.entity == e)?;
            let late = p.and_then(|p| errand(g, seen, me, p));
            self.movement(g, s, seen, e, name, p, late)
        };
        let (a, why) = match done[0] {
            Activity::Move => shot(),
            Activity::Fire => walk(),
            _ => shot().or_else(walk),
        }?;
        Some((a, format!("{why}; {after} (3.1–3.3)")))
    }

    /// Where the unit goes and why, by its brigade's plan.
    /// `late`: what the unit is about for the objectives' count at the end ([`errand`]).
    #[allow(clippy::too_many_arguments)]
    fn movement(&mut self, g: &Game, s: &Situation, seen: &[Seen], e: Entity, name: &str, plan: Option<&Plan>, late: Option<Late>) -> Option<(Action, String)> {
        let u = g.unit(e);
        if u.formation == Formation::Unlimbered {
            return None;
        }
        let me = seen.iter().find(|x| x.entity == e)?;
        let plan = plan?;
        let front = me.front();
        let reach = |x: &Seen| reach(s, x);
        let my_range = reach(me);
        let nearest = seen.iter().filter(|x| x.side != me.side).map(|x| (x, x.distance_to(front))).min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some(Late::Stay) = late {
            return None;
        }
        // (`round`: a way to a place, which may go round the enemy's fire.)
        let (target, stop, why, round) = match (plan.stance, &plan.goal) {
            _ if let Some(Late::Go { at, gap, why, .. }) = late => (at, gap, why, true),
            (Stance::Screen, _) | (_, None) => {
                let (enemy, d) = nearest?;
                let keep = if ArmClass::from(u.arm) == ArmClass::Cavalry { 4.0 } else { (my_range - 1.0).max(1.5) };
                if d <= keep + 0.5 {
                    return None;
                }
                (enemy.front(), d - keep, format!("closes to its range of {}", enemy.name), false)
            }
            (stance, Some(goal)) => {
                if me.within(goal.at, (goal.radius - 0.75).max(0.5)) {
                    return None;
                }
                // Its place in the brigade's body, shifted onto the objective.
                let offset = (front - plan.centre).clamp_length_max(goal.radius * 0.6);
                let slot = goal.at + offset;
                let gap = slot.distance(front);
                // An attacker ahead of its brigade waits for it (the line kept).
                let progress = |p: Vec2| (plan.centre - goal.at).length() - (p - goal.at).length();
                if !plan.pressed && stance == Stance::Attack && progress(front) > progress(plan.centre) + 5.0 && gap > goal.radius + 4.0 {
                    return None;
                }
                // An enemy nearer than the objective and off it stands in the way: an attacker
                // closes to its own range of it (to shoot it out of the way next; horse waits
                // within its charge) rather than walk past its muskets, and stops there.
                if let Some((enemy, d)) = nearest
                    && stance == Stance::Attack
                    && !plan.pressed
                    && d < my_range + 4.0
                    && enemy.distance_to(goal.at) > goal.radius + 2.0
                    && d < gap
                {
                    let keep = (my_range - 0.5).max(1.0);
                    if ArmClass::from(u.arm) == ArmClass::Cavalry || d <= keep + 0.25 {
                        return None;
                    }
                    (enemy.front(), d - keep, format!("closes to its range of {}, in the way to {}", enemy.name, goal.name), false)
                } else {
                    let verb = if goal.retake {
                        "counter-attacks to retake"
                    } else if stance == Stance::Defend {
                        "falls back on"
                    } else {
                        "advances on"
                    };
                    (slot, gap, format!("{verb} {}: objective, {} VP", goal.name, goal.points), true)
                }
            }
        };
        if stop <= 0.25 {
            return None;
        }
        // What its operation leaves it (half a move after a shot, 3.1 2), else its normal move.
        let full = if g.unit_turn(e).done.is_empty() { g.normal_move(e, u.formation) } else { g.movement_budget(e).map(|(spent, most)| most - spent).filter(|&m| m >= 0.25)? };
        // The cheapest way there over the going and under the enemy's fire (automatic::route):
        // where it turns off the straight line, the unit heads for the point of it a move away —
        // when going round saves a quarter of the straight way's cost and more, is no more than
        // half as long again, and there are turns enough left to walk it; and not where the
        // enemy stands at the place itself (the fight is there whichever way it goes).
        let guarded = seen.iter().any(|x| x.side != me.side && x.distance_to(target) <= 6.0);
        let straight = front.distance(target);
        let round = self.going.as_ref().filter(|_| round && !guarded).and_then(|going| way(going, &self.fire, front, target, stop.min(full)));
        let mut shown = None;
        let (target, stop, why) = match round {
            Some(w) if w.turn > 8.0 && w.straight > w.cost * 1.25 + 3.0 && w.length <= 1.5 * straight && w.length <= turns_left(g) * full => {
                let label = format!("{name}'s way round the enemy's fire: {:.0}\" against {straight:.0}\" straight through it", w.length);
                shown = self.going.as_ref().map(|going| PlannedPath { label, cite: "automatic player".into(), side: me.side, points: w.pulled(going, &self.fire), marks: Vec::new() });
                (w.next, w.next.distance(front), format!("{why}, going round the enemy's fire ({:.0}\" round against {:.0}\" straight through it)", w.length, straight))
            }
            _ => (target, stop, why),
        };
        let facing = me.facing();
        let turn = (vector_bearing(target - front) - facing + 540.0).rem_euclid(360.0) - 180.0;
        let want = stop.min(full);
        let mut candidates: Vec<Vec<MoveStep>> = Vec::new();
        for k in [1.0, 0.75, 0.5, 0.25] {
            let d = want * k;
            if d < 0.25 {
                continue;
            }
            if turn.abs() < 5.0 {
                candidates.push(vec![MoveStep::Forward(d)]);
            } else if turn.abs() <= 45.0 {
                candidates.push(vec![MoveStep::Oblique { angle: turn, distance: d }]);
            }
        }
        if turn.abs() > 45.0 && turn.abs() <= 135.0 {
            // Wheel toward the goal, then on with what is left.
            let angle = turn.clamp(-90.0, 90.0);
            let pivot = if angle > 0.0 { End::Right } else { End::Left };
            for k in [0.5, 0.25, 0.0] {
                let mut steps = vec![MoveStep::Wheel { pivot, angle }];
                if k > 0.0 {
                    steps.push(MoveStep::Forward(want * k));
                }
                candidates.push(steps);
            }
            candidates.push(vec![MoveStep::Wheel { pivot, angle: angle / 2.0 }]);
            candidates.push(vec![MoveStep::Oblique { angle: 45f32.copysign(turn), distance: want * 0.5 }]);
        } else if turn.abs() > 135.0 && u.formation == Formation::Line {
            candidates.push(vec![MoveStep::AboutFace]);
        }
        let allowed = |steps: &Vec<MoveStep>| g.check_move(name, steps).is_ok();
        let mut legal: Vec<Vec<MoveStep>> = candidates.into_iter().filter(allowed).collect();
        if legal.is_empty() {
            // 6.5: no unit passes through another, its own side's included. When every move at
            // the place is blocked (its own guns in front, the next battalion on its flank), the
            // move that gains most ground of those the rules allow: the other oblique, straight
            // on, a wheel and on — not a brigade standing behind its guns all day.
            let gain = |steps: &Vec<MoveStep>| front.distance(target) - end_of(front, facing, steps).0.distance(target);
            let mut aside: Vec<Vec<MoveStep>> = Vec::new();
            for k in [1.0, 0.75, 0.5, 0.25] {
                for angle in [0.0, -15.0, 15.0, -30.0, 30.0, -45.0, 45.0] {
                    aside.push(if angle == 0.0 { vec![MoveStep::Forward(want * k)] } else { vec![MoveStep::Oblique { angle, distance: want * k }] });
                }
            }
            for (pivot, angle) in [(End::Right, 45.0), (End::Left, -45.0)] {
                aside.push(vec![MoveStep::Wheel { pivot, angle }, MoveStep::Forward(want * 0.5)]);
            }
            aside.retain(|steps| gain(steps) > 0.25);
            aside.sort_by(|a, b| gain(b).total_cmp(&gain(a)));
            // Else a side step (6.3, at half rate) to clear the way for the next move.
            aside.extend([1.0, -1.0].map(|side| vec![MoveStep::SideStep(side * want / 2.0)]));
            legal.extend(aside.into_iter().find(allowed));
        }
        // The fullest move the rules allow (an attacker lacks time, 4.5 counts at the end; a
        // defender goes to its place). (A strong defender that weighed each move's end by the ground
        // and the enemy arcs bearing there, and stayed put when that weighed better, lost more
        // than it saved: Camden, docs/bot.md.)
        let steps = legal.into_iter().next()?;
        let (end, _) = end_of(front, facing, &steps);
        let (_, words) = automatic::ground(g.scenario(), end);
        let ground = if words.is_empty() { String::new() } else { format!(", {}", words.join(", ")) };
        self.way = shown;
        Some((Action::Move { unit: name.to_string(), steps }, format!("{name} {why}{ground} ({} brigade)", plan.stance.word())))
    }
}

/// What a unit does about the objectives in the last turns, when only who stands in them at the
/// end counts (4.5: an objective scores for the one side with a stand inside it).
enum Late {
    /// It stands in an objective: it holds it, or denies it to the enemy, by staying.
    Stay,
    /// The objective where it makes the most difference that it can still reach; `free`: nobody
    /// holds it (the points are the walk's; there is no fight for them there).
    Go { at: Vec2, gap: f32, why: String, free: bool },
}

/// What the unit is about for the count of the objectives at the end (4.5), before its
/// brigade's plan: in the last turns [`last_turns`], before them [`detached`].
fn errand(g: &Game, seen: &[Seen], me: &Seen, plan: &Plan) -> Option<Late> {
    if plan.late { last_turns(g, seen, me) } else { detached(g, seen, me, plan.goal.as_ref()) }
}

/// Turns still to play, this one included (4.5 counts the objectives at the end of the last).
fn turns_left(g: &Game) -> f32 {
    (g.scenario().turn_limit.unwrap_or(10) + 1).saturating_sub(g.turn()) as f32
}

/// How far the unit's front is from standing in an objective, and the turns that takes at its
/// normal move.
fn way_to(g: &Game, me: &Seen, at: Vec2, radius: f32) -> (f32, f32) {
    let step = g.normal_move(me.entity, g.unit(me.entity).formation).max(1.0);
    let gap = (me.front().distance(at) - radius + 0.5).max(0.0);
    (gap, (gap / step).ceil())
}

/// 4.5 in the last turns: a unit inside an objective stays; else it makes for the objective where
/// a stand of its side changes the count most for the turns it takes — one the enemy alone
/// holds (its points denied), one nobody holds (its points taken) — among those it can reach
/// before the end at its normal move.
fn last_turns(g: &Game, seen: &[Seen], me: &Seen) -> Option<Late> {
    let objectives = &g.scenario().objectives;
    if objectives.iter().any(|o| me.within(Vec2::from(o.at), o.radius)) {
        return Some(Late::Stay);
    }
    let sides = g.scenario().sides.len();
    let turns_left = turns_left(g);
    objectives
        .iter()
        .filter_map(|o| {
            let at = Vec2::from(o.at);
            let held = automatic::holders(seen, at, o.radius, sides);
            let ours = held.get(me.side).copied().unwrap_or(0);
            let theirs: usize = held.iter().enumerate().filter(|&(s, _)| s != me.side).map(|(_, n)| n).sum();
            let (swing, what) = match (ours, theirs) {
                (0, 0) => (o.points as f32, "nobody holds it"),
                (0, _) => (o.points as f32 * 1.2, "the enemy alone holds it"),
                _ => return None,
            };
            let (gap, turns) = way_to(g, me, at, o.radius);
            (turns <= turns_left).then(|| (swing / (1.0 + turns), at, gap, format!("makes for {} before the end: {what}, {} VP (4.5)", o.name, o.points), theirs == 0))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, at, gap, why, free)| Late::Go { at, gap, why, free })
}

/// 4.5 before the last turns: an objective nobody holds and no enemy is near is points for the
/// taking, so the side's unit nearest to it (not a gun) goes to stand in it, if it can get there
/// before the end, and a unit standing alone in one for its side that is not its brigade's
/// objective stays there.
fn detached(g: &Game, seen: &[Seen], me: &Seen, goal: Option<&Goal>) -> Option<Late> {
    let sides = g.scenario().sides.len();
    let free = |o: &crate::scenario::model::Objective| {
        let at = Vec2::from(o.at);
        !seen.iter().any(|u| u.side != me.side && u.distance_to(at) <= o.radius + 6.0)
    };
    let gun = |u: &Seen| ArmClass::from(u.arm) == ArmClass::Artillery;
    let objectives = &g.scenario().objectives;
    if let Some(o) = objectives.iter().find(|o| me.within(Vec2::from(o.at), o.radius)) {
        let held = automatic::holders(seen, Vec2::from(o.at), o.radius, sides);
        let alone = held.get(me.side) == Some(&1) && held.iter().sum::<usize>() == 1;
        return (alone && goal.is_none_or(|goal| goal.name != o.name)).then_some(Late::Stay);
    }
    if gun(me) {
        return None;
    }
    let turns_left = turns_left(g);
    objectives
        .iter()
        .filter(|o| automatic::holders(seen, Vec2::from(o.at), o.radius, sides).iter().all(|&n| n == 0) && free(o))
        .filter(|o| goal.is_none_or(|goal| goal.name != o.name))
        .filter(|o| {
            // The side's nearest unit to it, not a gun and not holding another objective.
            let at = Vec2::from(o.at);
            let spare = |u: &&Seen| u.side == me.side && !gun(u) && !objectives.iter().any(|p| u.within(Vec2::from(p.at), p.radius));
            seen.iter().filter(spare).min_by(|a, b| a.distance_to(at).total_cmp(&b.distance_to(at)).then(a.entity.cmp(&b.entity))).is_some_and(|u| u.entity == me.entity)
        })
        .filter_map(|o| {
            let at = Vec2::from(o.at);
            let (gap, needs) = way_to(g, me, at, o.radius);
            (needs <= turns_left && needs + 3.0 >= turns_left).then(|| (o.points, at, gap, format!("goes to take {}: nobody holds it and no enemy is near, {} VP (4.5)", o.name, o.points)))
        })
        .max_by_key(|(points, ..)| *points)
        .map(|(_, at, gap, why)| Late::Go { at, gap, why, free: true })
}

/// Roughly where a move leaves the unit's front and which way it faces (for weighing moves
/// only; the engine places it).
pub(super) fn end_of(mut p: Vec2, mut facing: f32, steps: &[MoveStep]) -> (Vec2, f32) {
    for s in steps {
        match s {
            MoveStep::Forward(d) => p += dir(facing) * *d,
            MoveStep::Oblique { angle, distance } => p += dir(facing + angle) * *distance,
            MoveStep::SideStep(d) => p += dir(facing + 90.0) * *d,
            MoveStep::Wheel { angle, .. } => facing += angle,
            MoveStep::AboutFace => facing += 180.0,
            _ => {}
        }
    }
    (p, facing.rem_euclid(360.0))
}

/// A brigade's plans (its stance now and the objective it goes for or holds), the one that
/// weighs most first: one for each objective it might go for or hold (points over distance;
/// looking ahead, an attacker weighs how strongly each is held against its own strength), or
/// one with none (a screen, a scenario without objectives).
fn plans(g: &Game, seen: &[Seen], brigade: Entity, look_ahead: bool, before: Option<&str>) -> Vec<(f32, Plan)> {
    let b = g.world().get::<Brigade>(brigade);
    let (side, name) = b.map_or((0, String::new()), |b| (b.side, b.name.clone()));
    let stance = automatic::stance(g.scenario(), side, &name, g.turn());
    let mine: Vec<&Seen> = seen.iter().filter(|u| u.brigade == brigade).collect();
    let centre = if mine.is_empty() { Vec2::ZERO } else { mine.iter().map(|u| u.front()).sum::<Vec2>() / mine.len() as f32 };
    let sides = g.scenario().sides.len();
    let strength = mine.iter().map(|u| u.figures as f32).sum::<f32>().max(1.0);
    // Figures of a side about a place: `mine` the side's other brigades, else the enemy's.
    let figures_near = |at: Vec2, within: f32, ours: bool| -> f32 { seen.iter().filter(|u| (u.side == side) == ours && u.brigade != brigade && u.distance_to(at) <= within).map(|u| u.figures as f32).sum() };
    let goal = (stance != Stance::Screen)
        .then(|| {
            g.scenario()
                .objectives
                .iter()
                .map(|o| {
                    let at = Vec2::from(o.at);
                    let held = automatic::holders(seen, at, o.radius, sides);
                    let ours = held.get(side).copied().unwrap_or(0);
                    let theirs: usize = held.iter().enumerate().filter(|&(s, _)| s != side).map(|(_, n)| n).sum();
                    let d = at.distance(centre);
                    // A defender's objective the enemy alone holds is retaken (4.5 counts who
                    // stands in it at the end); one the enemy closes on with more figures than
                    // the side's others there is reinforced; one they hold enough already needs
                    // this brigade least.
                    let lost = stance == Stance::Defend && ours == 0 && theirs > 0;
                    let (enemy, others) = (figures_near(at, o.radius + 12.0, false), figures_near(at, o.radius + 3.0, true));
                    let worth = match stance {
                        Stance::Defend if lost => o.points as f32 * 1.2 / (1.0 + d / 18.0),
                        Stance::Defend if ours > 0 && enemy > others => o.points as f32 * 1.2 / (1.0 + d / 18.0),
                        Stance::Defend if others > 0.0 && others >= enemy && d <= o.radius + 3.0 => o.points as f32 * 0.35 / (1.0 + d / 10.0),
                        // A defender holds what is near; an objective already held by others of
                        // its side is worth less to it.
                        Stance::Defend => o.points as f32 * if ours > 0 && d > o.radius + 2.0 { 0.6 } else { 1.0 } / (1.0 + d / 10.0),
                        _ => o.points as f32 * if ours > 0 && theirs == 0 && d > o.radius + 2.0 { 0.5 } else { 1.0 } / (1.0 + d / 18.0),
                    };
                    // The enemy figures on and close about it (within a move of its edge).
                    let weighs = look_ahead && (stance == Stance::Attack || lost);
                    let guard: f32 = if weighs { seen.iter().filter(|u| u.side != side && u.distance_to(at) <= o.radius + 6.0).map(|u| u.figures as f32).sum() } else { 0.0 };
                    // (One its side alone holds already needs it less than its guard says.)
                    let worth = if weighs && ours > 0 && theirs == 0 { worth * 0.6 } else { worth / (1.0 + guard / strength) };
                    // The objective it made for last time counts a third again.
                    let worth = if before == Some(o.name.as_str()) { worth * 1.33 } else { worth };
                    (worth, Goal { name: o.name.clone(), at, radius: o.radius, points: o.points, retake: lost })
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut goals: Vec<(f32, Option<Goal>)> = goal.into_iter().map(|(worth, goal)| (worth, Some(goal))).collect();
    goals.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.as_ref().map(|g| &g.name).cmp(&b.1.as_ref().map(|g| &g.name))));
    if goals.is_empty() {
        goals.push((0.0, None));
    }
    let turn_limit = g.scenario().turn_limit.unwrap_or(10);
    let late = g.turn() + 2 >= turn_limit;
    // Turns the brigade needs to reach its objective at its slowest unit's normal move.
    let pace = mine.iter().map(|u| g.normal_move(u.entity, g.unit(u.entity).formation)).fold(f32::INFINITY, f32::min).clamp(1.0, 12.0);
    goals
        .into_iter()
        .map(|(worth, goal)| {
            // A defender going to retake an objective attacks (9.x bars, no waiting on it).
            let stance = if goal.as_ref().is_some_and(|goal| goal.retake) { Stance::Attack } else { stance };
            let needs = goal.as_ref().map_or(0.0, |goal| ((goal.at.distance(centre) - goal.radius).max(0.0) / pace).ceil());
            let pressed = stance == Stance::Attack && (late || needs + 1.0 >= turns_left(g));
            (worth, Plan { stance, late, pressed, look_ahead, goal, centre })
        })
        .collect()
}

/// How far a unit's fire reaches (8.3, 8.4); 2" for one with no fire of its own.
fn reach(s: &Situation, x: &Seen) -> f32 {
    s.find(&x.name).ok().and_then(|i| max_range(s.unit(i), 0.0)).unwrap_or(2.0)
}

/// The objective `unit` stands in, if any.
fn on_objective(g: &Game, unit: &Seen) -> Option<String> {
    g.scenario().objectives.iter().find(|o| unit.within(Vec2::from(o.at), o.radius)).map(|o| format!("{} ({} VP)", o.name, o.points))
}

/// 9.x: the charge with the best chance to close and win, when it clears the stance's bar.
/// `errand`: the objective the unit is on its way to (only an enemy standing in an objective or
/// across the way there is charged).
#[allow(clippy::too_many_arguments)]
fn charge(g: &Game, s: &Situation, seen: &[Seen], e: Entity, name: &str, stance: Stance, plan: Option<&Plan>, errand: Option<Vec2>) -> Option<(Action, String)> {
    let u = g.unit(e);
    let arm = ArmClass::from(u.arm);
    if arm == ArmClass::Artillery || g.has_marker(e) {
        return None;
    }
    let reach = if arm == ArmClass::Cavalry { g.charts().movement.cavalry_charge() } else { g.normal_move(e, u.formation) };
    let me = s.find(name).ok()?;
    let targets: Vec<String> = (0..s.units().len()).filter(|&i| s.unit(i).side != s.unit(me).side && unit_distance(s, me, i) <= reach).map(|i| s.unit(i).name.clone()).collect();
    if targets.is_empty() {
        return None;
    }
    let previews = g.charge_previews_if_allowed(name, &targets, ChargeOptions::default());
    // A defender counter-attacks only on good odds; a screen hardly ever.
    let (auto_bar, close_bar, win_bar) = match stance {
        Stance::Attack => (0.5, 0.5, 0.55),
        Stance::Defend => (0.55, 0.6, 0.65),
        Stance::Screen => (0.65, 0.75, 0.75),
    };
    // Late in the game an enemy on an objective must go whatever it costs: the points are
    // counted at the end (4.5), and a stand inside the objective is enough to deny it.
    let late = plan.is_some_and(|p| p.late);
    let pressed = plan.is_some_and(|p| p.pressed);
    // How far the charger is from its objective: a target nearer to it stands in the way.
    let mine = seen.iter().find(|x| x.entity == e);
    let my_gap = plan.and_then(|p| p.goal.as_ref()).zip(mine).map(|(goal, me)| me.distance_to(goal.at));
    let best = targets
        .into_iter()
        .zip(previews)
        .filter_map(|(target, p)| {
            let p = p?;
            let closes = p.closure.probability;
            // 9.4: a target that fails its reaction gives way with no melee (the ground is taken
            // and it carries a marker); one that fires and passes may still slip away.
            let (gives_way, fights) = p.reaction.as_ref().map_or((0.0, true), |r| (1.0 - r.stands(), r.fights));
            // The melee counts the target's fire at the charger in contact first (9.7, 9.4).
            let wins = gives_way + (1.0 - gives_way) * p.wins_once_closed() * if fights { 1.0 } else { 0.5 };
            let fire = p.closing_fire.as_ref().map(|c| c.rule);
            let them = seen.iter().find(|x| x.name == target);
            let on = them.and_then(|t| on_objective(g, t));
            if let Some((at, me)) = errand.zip(mine)
                && on.is_none()
                && them.is_none_or(|t| crate::table::geom::point_segment_distance(t.front(), me.front(), at) > 3.0)
            {
                return None;
            }
            // Pressed for time, an attacker charges what stands between it and its objective
            // on shorter odds rather than trade shots with it.
            let in_way = pressed && them.zip(plan.and_then(|p| p.goal.as_ref())).zip(my_gap).is_some_and(|((t, goal), gap)| t.distance_to(goal.at) < gap);
            let (auto_bar, close_bar, win_bar) = if late && on.is_some() {
                (0.35, 0.35, 0.35)
            } else if in_way || (pressed && on.is_some()) {
                (0.4, 0.4, 0.45)
            } else if on.is_some() && plan.is_some_and(|p| p.look_ahead && p.stance == Stance::Defend) {
                // Looking ahead, a defender throws an enemy off an objective before it settles.
                (0.45, 0.5, 0.5)
            } else {
                (auto_bar, close_bar, win_bar)
            };
            let worth = if p.closure.automatic { wins >= auto_bar } else { closes >= close_bar && wins >= win_bar };
            let goal_bonus = match (plan.and_then(|p| p.goal.as_ref()), them) {
                (Some(goal), Some(t)) if t.within(goal.at, goal.radius) => 0.3,
                _ if on.is_some() => 0.15,
                _ => 0.0,
            };
            worth.then(|| (closes * wins + goal_bonus, target, closes, wins, p.closure.zone, on, gives_way, fire))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)))?;
    let (_, target, closes, wins, zone, on, gives_way, fire) = best;
    let zone = match zone {
        AttackZone::Front => format!("{} to close (9.1)", pct(closes)),
        AttackZone::Flank => "a flank attack, closing without a roll (9.1)".into(),
        AttackZone::Rear => "a rear attack, closing without a roll (9.1)".into(),
    };
    let on = on.map(|o| format!("; it holds {o}")).unwrap_or_default();
    let after = fire.map(|rule| format!(" after its fire at the charge ({rule})")).unwrap_or_default();
    let win = if gives_way > 0.0 { format!("{} it gives way (9.4), {} to carry the charge in all{after} (9.8)", pct(gives_way), pct(wins)) } else { format!("{} to win the melee{after} (9.8)", pct(wins)) };
    Some((Action::Charge { unit: name.to_string(), target: target.clone() }, format!("{name} charges {target}: {zone}, {win}{on}")))
}

/// 8.x: the shot worth most by the exact FIRE odds (kills, then morale markers; an enemy on an
/// objective counts half again), when it is worth the unit's turn.
#[allow(clippy::too_many_arguments)]
fn fire(g: &Game, s: &Situation, seen: &[Seen], e: Entity, name: &str, stance: Stance, plan: Option<&Plan>, look_ahead: bool, any: bool) -> Option<(Action, String)> {
    if !g.may_fire(e) {
        return None;
    }
    let me = s.find(name).ok()?;
    let gun = s.unit(me).gun().is_some();
    let extra_range = if gun { g.charts().fire.elevation_bonus.value } else { 0.0 };
    let mut choices = targets(s, me, FireOptions { rules: &FIRE, ball: gun, extra_range });
    choices.sort_by(|a, b| a.range.total_cmp(&b.range).then(b.figures.cmp(&a.figures)));
    let mine = seen.iter().find(|x| x.entity == e)?;
    let best = choices
        .iter()
        .take(5)
        .filter_map(|t| {
            let p = g.fire_preview(name, &t.name, None).ok()?;
            let kills: f64 = p.outcomes.iter().map(|o| o.probability * o.kills as f64).sum();
            let marker: f64 = p.outcomes.iter().filter(|o| o.morale_marker).map(|o| o.probability).sum();
            let them = seen.iter().find(|x| x.name == t.name);
            let on = them.and_then(|x| on_objective(g, x));
            // 10.1: a unit carries one Morale Marker, so a second is worth nothing; a marker on a
            // unit whose brigade has yet to act this turn costs it that action (it must shed the
            // marker before it may move or fire, 10.2) — the strong player counts that.
            let marked = them.is_some_and(|x| g.has_marker(x.entity));
            let to_act = them.is_some_and(|x| g.world().get::<Brigade>(x.brigade).is_some_and(|b| g.sequence().cup.contains(&b.chit)));
            let marker_worth = if marked { 0.0 } else if look_ahead && to_act { 0.8 } else { 0.5 };
            // Looking ahead: a figure lost counts for more the fewer the unit has left (its
            // morale rolls worsen with its losses, 10.3, and at none it is gone).
            let weighed = if look_ahead { kills * (1.0 + 4.0 / them.map_or(20.0, |x| x.figures.max(1) as f64)) } else { kills };
            let mut value = weighed + marker_worth * marker;
            if on.is_some() {
                value *= 1.5;
            }
            // Looking ahead: a target that can hit back at us now is the one to hurt first.
            if look_ahead && let Some(x) = them {
                let their_reach = s.find(&x.name).ok().and_then(|i| max_range(s.unit(i), 0.0)).unwrap_or(0.0);
                if x.distance_to(mine.front()) <= their_reach {
                    value *= 1.25;
                }
            }
            let why = if marked {
                "; it has its Morale Marker already (10.1)"
            } else if look_ahead && to_act {
                "; its brigade has yet to act, and a marked unit must shed it first (10.2)"
            } else {
                ""
            };
            Some((value, t.name.clone(), marker, kills, p.geometry.range, on, why))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)))?;
    let (value, target, marker, kills, range, on, why) = best;
    // An attacker with its objective still ahead fires only a telling shot; otherwise any that
    // can hurt.
    let ahead = plan.and_then(|p| p.goal.as_ref()).is_some_and(|goal| !mine.within(goal.at, goal.radius));
    // (Pressed for time, a move onto the objective comes before any shot.)
    let pressed = plan.is_some_and(|p| p.pressed);
    let bar = if !any && stance == Stance::Attack && ahead && !gun { if pressed { f64::INFINITY } else { 0.6 } } else { 0.02 };
    if value < bar {
        return None;
    }
    let on = on.map(|o| format!("; it holds {o}")).unwrap_or_default();
    Some((Action::fire(name, target.clone()), format!("{name} fires at {target}: {} chance of a morale marker, {kills:.1} figures expected, range {range:.1}\" (8.x){on}{why}", pct(marker))))
}

/// 6.2, 3.3: a column near the enemy forms line, limbered guns unlimber; a defender on its
/// objective forms line there.
fn deploy(g: &Game, s: &Situation, seen: &[Seen], e: Entity, name: &str, plan: Option<&Plan>) -> Option<(Action, String)> {
    let u = g.unit(e);
    let to = match (u.formation, &u.arm) {
        (Formation::Column, Arm::Infantry | Arm::Cavalry) => Formation::Line,
        (Formation::Limbered, Arm::Artillery { .. }) => Formation::Unlimbered,
        _ => return None,
    };
    let me = s.find(name).ok()?;
    let mine = seen.iter().find(|x| x.entity == e)?;
    let d = (0..s.units().len()).filter(|&i| s.unit(i).side != s.unit(me).side).map(|i| unit_distance(s, me, i)).fold(f32::INFINITY, f32::min);
    let on_goal = plan.and_then(|p| p.goal.as_ref()).filter(|goal| mine.within(goal.at, goal.radius));
    let why = if d <= DEPLOY_DISTANCE {
        format!("the enemy is {d:.0}\" away")
    } else if let Some(goal) = on_goal.filter(|_| plan.is_some_and(|p| p.stance != Stance::Attack) || to == Formation::Unlimbered) {
        format!("it is on {} to hold it", goal.name)
    } else {
        return None;
    };
    g.check_formation(name, to).is_ok().then(|| {
        let what = if to == Formation::Line { "forms line (6.2)" } else { "unlimbers (3.3)" };
        (Action::ChangeFormation { unit: name.to_string(), formation: to }, format!("{name} {what}: {why}"))
    })
}

