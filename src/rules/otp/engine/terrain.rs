//! Disordering terrain (6.6): a unit moving into or through it rolls a D10 against the MOVEMENT
//! chart's number for its arm, formation and the terrain type; on a failure its move is halved,
//! and it stops at the edge of the terrain if it had already gone that far.

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::Game;
use super::report::Report;
use crate::rules::otp::charts::ArmClass;
use crate::scenario::model::DisorderType;
use crate::table::geom::{EPS, point_along, polyline_length};
use crate::table::footprint::Footprint;
use super::move_rules::OTP;
use crate::table::movement::{Allowance, MoveReport, MoveStep, StandMove, plan_move};

/// Steps that carry the unit over the ground (and so through terrain).
fn travels(step: &MoveStep) -> bool {
    matches!(step, MoveStep::Forward(_) | MoveStep::Oblique { .. } | MoveStep::SideStep(_) | MoveStep::Wheel { .. } | MoveStep::Path(_) | MoveStep::Stands(_))
}

/// The same step cut to `fraction` of its length, if it can be cut. `stands` are the unit's
/// stands where the move starts (a column's head leads a path; skirmish stands each go the
/// fraction of their own way, 5.3).
fn cut(step: &MoveStep, fraction: f32, stands: &[Footprint]) -> Option<MoveStep> {
    let head = stands.first().map_or(Vec2::ZERO, |f| f.front_centre());
    Some(match step {
        MoveStep::Forward(d) => MoveStep::Forward(d * fraction),
        MoveStep::Oblique { angle, distance } => MoveStep::Oblique { angle: *angle, distance: distance * fraction },
        MoveStep::SideStep(d) => MoveStep::SideStep(d * fraction),
        MoveStep::Wheel { pivot, angle } => MoveStep::Wheel { pivot: *pivot, angle: angle * fraction },
        MoveStep::Path(points) => {
            let mut trail = vec![head];
            trail.extend(points.iter().copied());
            let reach = polyline_length(&trail) * fraction;
            let mut kept: Vec<Vec2> = Vec::new();
            let mut run = 0.0;
            for w in trail.windows(2) {
                let len = w[0].distance(w[1]);
                if run + len >= reach {
                    break;
                }
                run += len;
                kept.push(w[1]);
            }
            kept.push(point_along(&trail, reach));
            MoveStep::Path(kept)
        }
        MoveStep::Stands(moves) => MoveStep::Stands(
            moves
                .iter()
                .map(|m| {
                    let from = stands.get(m.stand).map_or(m.to, |f| f.centre);
                    StandMove { to: from + (m.to - from) * fraction, ..*m }
                })
                .collect(),
        ),
        _ => return None,
    })
}

/// The steps of a planned move cut off once `limit` inches are spent.
pub fn truncate(steps: &[MoveStep], plan: &MoveReport, limit: f32, stands: &[Footprint]) -> Vec<MoveStep> {
    let mut out = Vec::new();
    let mut spent = 0.0;
    for (i, step) in steps.iter().enumerate() {
        let cost: f32 = plan.items.iter().filter(|it| it.step == i).map(|it| it.inches).sum();
        if spent + cost <= limit + EPS {
            out.push(step.clone());
            spent += cost;
            continue;
        }
        if cost > EPS
            && let Some(part) = cut(step, ((limit - spent) / cost).clamp(0.0, 1.0), stands)
        {
            out.push(part);
        }
        break;
    }
    out
}

impl Game {
    /// Roll for the disordering terrain a legal move meets (6.6); returns the move as it ends:
    /// whole, or cut to half the normal move (`full`), or at the edge of the terrain.
    pub(super) fn roll_for_terrain(&mut self, report: &mut Report, unit: Entity, steps: &[MoveStep], plan: MoveReport, allowance: Allowance, full: f32) -> MoveReport {
        if !steps.iter().any(travels) {
            return plan;
        }
        let u = self.unit(unit).clone();
        let arm = ArmClass::from(u.arm);
        // Terrain it starts in is rolled for before moving; then each new piece as it is reached.
        let worst_start = plan.starts_in.iter().max_by_key(|(_, d)| *d).map(|(n, d)| (n.clone(), *d, 0.0));
        let contacts: Vec<(String, DisorderType, f32)> = worst_start.into_iter().chain(plan.disorder.iter().map(|c| (c.terrain.clone(), c.disorder, c.after))).collect();
        let movement = &self.charts.movement;
        let Some(entry) = movement.disorder_entry(arm, u.unit_type, plan.formation).cloned() else { return plan };
        let half = full * movement.failed_disorder_factor();
        for (terrain, kind, after) in contacts {
            let number = entry.number(kind) as i32;
            let roll = self.dice.d10();
            report.die("6.6", format!("{} moving into {terrain} (type {kind:?})", u.name), &roll);
            let pass = roll.total <= number;
            report.chart("MOVEMENT: disordering terrain", format!("type {kind:?}"), format!("{arm:?} in {:?}", plan.formation), format!("{number} or less moves on"), &entry.source);
            if pass {
                report.note("6.6", format!("{} rolls {} against {number}: not disordered by {terrain}", u.name, roll.total));
                continue;
            }
            let limit = half.max(after);
            report.note("6.6", format!("{} rolls {} against {number}: disordered by {terrain}, its move is limited to {limit:.2}\"", u.name, roll.total));
            if plan.spent <= limit + EPS {
                return plan;
            }
            let start: Vec<Footprint> = u.stands.iter().filter_map(|&st| self.world.get::<Footprint>(st).copied()).collect();
            let s = self.situation();
            let Ok(index) = s.find(&u.name) else { return plan };
            // Cut the steps at the limit; obstacle costs inside a step may leave it a little
            // over, so cut again by what is left over.
            let mut cut_at = limit;
            let mut cut_steps = Vec::new();
            for _ in 0..4 {
                cut_steps = truncate(steps, &plan, cut_at, &start);
                let shorter = plan_move(&s, index, &cut_steps, allowance, &OTP);
                if shorter.legal() && shorter.doubled_up.is_none() && shorter.spent <= limit + EPS {
                    report.change("6.6", format!("{} halts after {:.2}\" ({terrain})", u.name, shorter.spent));
                    return shorter;
                }
                cut_at -= (shorter.spent - limit).max(0.1);
            }
            // The cut could not be planned: stop before the step that went too far.
            let before: Vec<MoveStep> = cut_steps.iter().take(cut_steps.len().saturating_sub(1)).cloned().collect();
            let stop = plan_move(&s, index, &before, allowance, &OTP);
            report.change("6.6", format!("{} halts after {:.2}\" ({terrain})", u.name, stop.spent));
            return if stop.legal() { stop } else { plan_move(&s, index, &[], allowance, &OTP) };
        }
        plan
    }
}


#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, teaching};
    use super::super::Action;
    use super::*;

    // OTP 6.6: moving through disordering terrain, a D10 over the MOVEMENT chart's number halves
    // the move. The Virginia State Regiment climbs onto the Long Ridge's crest (a type A slope;
    // line infantry pass on 6 or less: 70%) asking for 5": on a failure it stops by 3".
    #[test]
    fn disorder_halves_the_move() {
        let n = 600;
        let mut failed = 0;
        for seed in 0..n {
            let mut g = teaching(seed);
            ok(&mut g, Action::StartGame);
            activate(&mut g, "Howard's Continentals");
            let r = ok(&mut g, Action::Move { unit: "Virginia State Regiment".into(), steps: vec![MoveStep::Forward(5.0)] });
            let rolls: Vec<_> = r.dice.iter().filter(|d| d.rule == "6.6").collect();
            assert_eq!(rolls.len(), 1, "{r}");
            let spent = g.unit_turn(g.unit_entity("Virginia State Regiment").unwrap()).spent;
            if rolls[0].roll.total > 6 {
                failed += 1;
                assert!(spent <= 3.0 + EPS && spent > 2.0, "{spent}\n{r}");
                assert!(r.changes.iter().any(|c| c.rule == "6.6"), "{r}");
            } else {
                assert!((spent - 5.0).abs() < EPS, "{spent}\n{r}");
            }
        }
        let share = failed as f64 / n as f64;
        assert!((share - 0.3).abs() < 3.0 * (0.3f64 * 0.7 / n as f64).sqrt(), "{share}");
    }

    // OTP 6.6 with 5.3: skirmish stands moved one by one into disordering terrain roll for it
    // as a unit does (a failure's limit, half the 8" move, is beyond these 2").
    #[test]
    fn skirmish_stands_moving_alone_roll_for_terrain() {
        use crate::scenario::spawn::Unit;
        use crate::table::footprint::Footprint;
        use crate::table::movement::StandMove;
        let mut rolled = 0;
        for seed in 0..40 {
            let mut g = teaching(seed);
            ok(&mut g, Action::StartGame);
            activate(&mut g, "Webster's Brigade");
            // Set the 71st Light Company down just east of the Wheat Field (x 18–29, y 28.5–34).
            let unit = g.unit_entity("71st Light Company").unwrap();
            let stands = g.world().get::<Unit>(unit).unwrap().stands.clone();
            let feet: Vec<Footprint> = stands.iter().map(|&s| *g.world().get::<Footprint>(s).unwrap()).collect();
            let west = feet.iter().flat_map(|f| f.corners()).map(|c| c.x).fold(f32::MAX, f32::min);
            let shift = Vec2::new(30.0 - west, 31.0 - feet[0].centre.y);
            for (&s, f) in stands.iter().zip(&feet) {
                g.world_mut().get_mut::<Footprint>(s).unwrap().centre = f.centre + shift;
            }
            let moves: Vec<StandMove> = feet.iter().enumerate().map(|(i, f)| StandMove { stand: i, to: f.centre + shift - Vec2::new(2.0, 0.0), facing: f.facing }).collect();
            let r = ok(&mut g, Action::Move { unit: "71st Light Company".into(), steps: vec![MoveStep::Stands(moves)] });
            let rolls = r.dice.iter().filter(|d| d.rule == "6.6").count();
            assert_eq!(rolls, 1, "{r}");
            rolled += rolls;
            let spent = g.unit_turn(unit).spent;
            assert!(spent <= 2.0 + EPS, "{spent}\n{r}");
        }
        assert_eq!(rolled, 40);
    }
}
