//! A way round: the path a unit takes across the table to a place, weighed by the going
//! (disordering ground dearer, a river passable only at its fords, 6.6) and by the enemy
//! muskets and guns that would bear on it on the way ([`bearing_on`]), so that an attacker goes
//! round a line it need not fight rather than walk along its front. A grid of 2" squares over
//! the table, searched A* from the unit's front to the place; the unit then heads for the point
//! of that path a move away.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use bevy::math::Vec2;

use super::{Seen, bearing_on};
use crate::picture::inside;
use crate::scenario::model::{DisorderType, Scenario, StreamKind, Terrain};
use crate::table::geom::point_segment_distance;

/// The side of a square of the grid, inches.
const CELL: f32 = 2.0;
/// What an inch under the fire of one enemy figure (at the edge of its range, half that) costs,
/// in inches of open ground.
const UNDER_FIRE: f32 = 0.12;
/// What an inch costs within reach of an enemy's stands (no way through a unit, 6.11).
const THROUGH_A_UNIT: f32 = 25.0;

/// The going over the table: what an inch costs in each square, `INFINITY` where no unit may go.
#[derive(Clone, Debug, Default)]
pub struct Going {
    columns: usize,
    rows: usize,
    cost: Vec<f32>,
}

fn disorder_cost(d: Option<DisorderType>) -> f32 {
    match d {
        None => 0.0,
        Some(DisorderType::A) => 0.3,
        Some(DisorderType::B) => 0.6,
        Some(DisorderType::C) => 1.0,
        Some(DisorderType::D) => 2.0,
    }
}

impl Going {
    /// The scenario's going: the table's squares, each the dearest feature at its centre.
    pub fn of(scenario: &Scenario) -> Going {
        let columns = (scenario.table.width / CELL).ceil().max(1.0) as usize;
        let rows = (scenario.table.depth / CELL).ceil().max(1.0) as usize;
        let mut cost = vec![1.0f32; columns * rows];
        for (i, c) in cost.iter_mut().enumerate() {
            let p = Vec2::new((i % columns) as f32 + 0.5, (i / columns) as f32 + 0.5) * CELL;
            for t in &scenario.terrain {
                let extra = match t {
                    Terrain::Woods { outline, .. } | Terrain::Field { outline, .. } | Terrain::Town { outline, .. } if inside(outline, p) => disorder_cost(t.disorder()).max(if matches!(t, Terrain::Town { .. }) { 0.5 } else { 0.0 }),
                    Terrain::Stream { kind, path, width, fords, .. } => {
                        let near = path.windows(2).any(|w| point_segment_distance(p, Vec2::from(w[0]), Vec2::from(w[1])) <= width / 2.0 + CELL * 0.5);
                        let ford = fords.iter().any(|f| Vec2::from(f.at).distance(p) <= f.width / 2.0 + CELL * 0.5);
                        match kind {
                            _ if !near => 0.0,
                            StreamKind::River if !ford => f32::INFINITY,
                            StreamKind::Narrow => 0.3,
                            _ => 0.6,
                        }
                    }
                    _ => 0.0,
                };
                *c = c.max(1.0 + extra);
            }
        }
        Going { columns, rows, cost }
    }

    fn cell(&self, p: Vec2) -> Option<usize> {
        let (x, y) = ((p.x / CELL).floor(), (p.y / CELL).floor());
        (x >= 0.0 && y >= 0.0 && (x as usize) < self.columns && (y as usize) < self.rows).then(|| y as usize * self.columns + x as usize)
    }

    fn centre(&self, i: usize) -> Vec2 {
        Vec2::new((i % self.columns) as f32 + 0.5, (i / self.columns) as f32 + 0.5) * CELL
    }
}

/// The enemy's fire over the table for a unit of `side`: each square's figures bearing on it
/// (drawn enemy by enemy over the squares within its reach), and the squares its stands fill.
#[derive(Clone, Debug, Default)]
pub struct Fire {
    side: usize,
    fire: Vec<f32>,
}

impl Fire {
    pub fn of(going: &Going, units: &[Seen], side: usize, reach: impl Fn(&Seen) -> f32) -> Fire {
        let mut fire = vec![0.0; going.cost.len()];
        for e in units.iter().filter(|e| e.side != side) {
            let r = reach(e).max(0.0);
            // The squares within its reach of its front, and about its stands.
            let (mut lo, mut hi) = (e.front() - Vec2::splat(r), e.front() + Vec2::splat(r));
            for f in &e.stands {
                lo = lo.min(f.centre - Vec2::splat(2.0));
                hi = hi.max(f.centre + Vec2::splat(2.0));
            }
            let (x0, y0) = ((lo.x / CELL).floor().max(0.0) as usize, (lo.y / CELL).floor().max(0.0) as usize);
            let (x1, y1) = (((hi.x / CELL).ceil() as usize).min(going.columns), ((hi.y / CELL).ceil() as usize).min(going.rows));
            for y in y0..y1 {
                for x in x0..x1 {
                    let i = y * going.columns + x;
                    let p = going.centre(i);
                    let body = if e.distance_to(p) <= 1.5 { THROUGH_A_UNIT } else { 0.0 };
                    fire[i] += body + UNDER_FIRE * bearing_on(e, p, r);
                }
            }
        }
        Fire { side, fire }
    }

    pub fn side(&self) -> usize {
        self.side
    }
}

/// Where a unit heads this move on its way to a place.
#[derive(Clone, Debug, PartialEq)]
pub struct Way {
    /// The point of the path `step` inches along it (the place itself when nearer).
    pub next: Vec2,
    /// The length of the whole path.
    pub length: f32,
    /// What it costs: inches of open ground, more for the going and for the enemy's fire on it.
    pub cost: f32,
    /// What the straight line there costs, weighed the same way.
    pub straight: f32,
    /// How far the path's first leg turns off the straight line to the place, degrees.
    pub turn: f32,
    /// The path as found: the unit's front, the squares' centres between, the place.
    pub points: Vec<Vec2>,
}

impl Way {
    /// The path pulled straight, to show on the table: from each corner on to the farthest
    /// point a straight line reaches at no more cost than the path does there.
    pub fn pulled(&self, going: &Going, fire: &Fire) -> Vec<Vec2> {
        let points = &self.points;
        let mut out = vec![points[0]];
        let mut at = 0;
        while at + 1 < points.len() {
            let (mut so_far, mut reach) = (0.0, at + 1);
            for k in at + 1..points.len() {
                so_far += along(going, fire, points[k - 1], points[k]);
                if along(going, fire, points[at], points[k]) <= so_far * 1.05 + 0.25 {
                    reach = k;
                }
            }
            out.push(points[reach]);
            at = reach;
        }
        out
    }
}

/// What going straight from `a` to `b` costs over the going and under the enemy's fire.
fn along(going: &Going, fire: &Fire, a: Vec2, b: Vec2) -> f32 {
    let cost = |i: usize| going.cost[i] + fire.fire.get(i).copied().unwrap_or(0.0);
    let samples = (a.distance(b) / 0.5).ceil().max(1.0) as usize;
    (0..samples).map(|k| going.cell(a + (b - a) * ((k as f32 + 0.5) / samples as f32)).map_or(f32::INFINITY, cost)).sum::<f32>() * a.distance(b) / samples as f32
}

#[derive(PartialEq)]
struct Open(f32, usize);
impl Eq for Open {}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The cheapest way from `from` to `to` over the going and under the enemy's fire; `None`
/// when there is none on the table (then the unit goes straight, and the engine judges).
pub fn way(going: &Going, fire: &Fire, from: Vec2, to: Vec2, step: f32) -> Option<Way> {
    let (start, goal) = (going.cell(from)?, going.cell(to)?);
    let cost = |i: usize| going.cost[i] + fire.fire.get(i).copied().unwrap_or(0.0);
    let n = going.cost.len();
    let mut best = vec![f32::INFINITY; n];
    let mut came = vec![usize::MAX; n];
    let mut open = BinaryHeap::new();
    best[start] = 0.0;
    open.push(Open(from.distance(to), start));
    while let Some(Open(_, i)) = open.pop() {
        if i == goal {
            break;
        }
        let (x, y) = ((i % going.columns) as i64, (i / going.columns) as i64);
        for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx as usize >= going.columns || ny as usize >= going.rows {
                continue;
            }
            let j = ny as usize * going.columns + nx as usize;
            let length = if dx != 0 && dy != 0 { CELL * std::f32::consts::SQRT_2 } else { CELL };
            // Half each square's cost; the square it starts in costs its going only (the fire
            // there it is under already, wherever it goes).
            let here = if i == start { going.cost[i] } else { cost(i) };
            let g = best[i] + length * 0.5 * (here + cost(j));
            if g.is_finite() && g < best[j] {
                best[j] = g;
                came[j] = i;
                open.push(Open(g + going.centre(j).distance(to), j));
            }
        }
    }
    if !best[goal].is_finite() {
        return None;
    }
    // The path back from the place, as points: the unit's front, the squares between, the place.
    let mut cells = vec![goal];
    while let Some(&c) = cells.last()
        && came[c] != usize::MAX
    {
        cells.push(came[c]);
    }
    cells.reverse();
    let mut points: Vec<Vec2> = vec![from];
    points.extend(cells.iter().skip(1).take(cells.len().saturating_sub(2)).map(|&c| going.centre(c)));
    points.push(to);
    let length: f32 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
    // Pulled straight: the first leg runs to the farthest point of the path (within three
    // moves) that a straight line reaches at no more cost than the path does (the squares'
    // centres zigzag where the ground does not).
    let along = |a: Vec2, b: Vec2| along(going, fire, a, b);
    let (mut so_far, mut walked, mut corner) = (0.0, 0.0, to);
    for k in 1..points.len() {
        so_far += along(points[k - 1], points[k]);
        walked += points[k - 1].distance(points[k]);
        if along(from, points[k]) <= so_far * 1.05 + 0.25 {
            corner = points[k];
        }
        if walked > 3.0 * step {
            break;
        }
    }
    let leg = corner - from;
    let next = if leg.length() > step { from + leg * (step / leg.length()) } else { corner };
    let turn = super::angle_between(crate::table::footprint::vector_bearing(next - from), crate::table::footprint::vector_bearing(to - from));
    Some(Way { next, length, cost: best[goal], straight: along(from, to), turn, points })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::Arm;
    use crate::table::footprint::Footprint;
    use bevy::prelude::Entity;

    fn open_table() -> Scenario {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron");
        let mut s = crate::scenario::load(&path).unwrap();
        s.terrain.clear();
        s
    }

    fn line(name: &str, side: usize, at: Vec2, facing: f32, figures: u32) -> Seen {
        let stands = (0..3).map(|k| Footprint { centre: at + Vec2::new((k as f32 - 1.0) * 1.6, 0.0), facing, frontage: 1.5, depth: 0.75 }).collect();
        Seen { entity: Entity::from_bits(1000 + figures as u64), name: name.into(), side, brigade: Entity::PLACEHOLDER, arm: Arm::Infantry, figures, stands }
    }

    // Nothing in the way: the path is the straight line, and the next point a move along it.
    #[test]
    fn on_open_ground_the_way_is_straight() {
        let s = open_table();
        let going = Going::of(&s);
        let fire = Fire::of(&going, &[], 0, |_| 6.0);
        let w = way(&going, &fire, Vec2::new(40.0, 10.0), Vec2::new(40.0, 50.0), 6.0).unwrap();
        assert!((w.length - 40.0).abs() < 2.5, "{w:?}");
        assert!(w.turn < 8.0 && (w.next - Vec2::new(40.0, 16.0)).length() < 1.5, "{w:?}");
    }

    // An enemy line across the straight way, facing the unit: the way goes round its end (out of
    // its 45° arc and range, 8.x) rather than through its front — longer, but under no fire.
    #[test]
    fn the_way_goes_round_an_enemy_line_rather_than_through_its_fire() {
        let s = open_table();
        let going = Going::of(&s);
        let enemy = line("Militia", 1, Vec2::new(40.0, 30.0), 180.0, 12);
        let fire = Fire::of(&going, std::slice::from_ref(&enemy), 0, |_| 6.0);
        let (from, to) = (Vec2::new(40.0, 10.0), Vec2::new(40.0, 50.0));
        let w = way(&going, &fire, from, to, 6.0).unwrap();
        assert!(w.length > 42.0, "a detour: {w:?}");
        // Its points stay out of the militia's fire where they pass the line.
        assert!(w.turn > 10.0, "the first leg turns off the straight line: {w:?}");
        // Without the enemy, straight again: it is the fire that turns it.
        let none = Fire::of(&going, &[], 0, |_| 6.0);
        assert!(way(&going, &none, from, to, 6.0).unwrap().turn < 8.0);
        // Its own side's line is no obstacle to it.
        let friend = Fire::of(&going, std::slice::from_ref(&enemy), 1, |_| 6.0);
        assert!(way(&going, &friend, from, to, 6.0).unwrap().turn < 8.0);
    }

    // OTP 6.6: a river is impassable except at its fords; the way crosses at the ford.
    #[test]
    fn a_river_is_crossed_at_its_ford() {
        let mut s = open_table();
        s.terrain.push(Terrain::Stream { name: "River".into(), kind: StreamKind::River, path: vec![[0.0, 30.0], [96.0, 30.0]], width: 1.0, fords: vec![crate::scenario::model::Ford { at: [70.0, 30.0], width: 3.0 }] });
        let going = Going::of(&s);
        let fire = Fire::of(&going, &[], 0, |_| 6.0);
        let w = way(&going, &fire, Vec2::new(40.0, 20.0), Vec2::new(40.0, 40.0), 6.0).unwrap();
        // Round by the ford 30" along: some 2 x 31" instead of 20".
        assert!(w.length > 55.0, "{w:?}");
        assert!(w.next.x > 44.0, "it heads for the ford: {w:?}");
    }
}
