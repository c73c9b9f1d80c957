//! Firing arcs: out to 45° from each end of a front (OTP 8.1), measured from the unit's front or
//! from each stand as the rule set says by formation ([`FireMode`]; OTP's in
//! `rules::otp::fire::range::fire_mode`).

use bevy::math::Vec2;
use serde::Serialize;

use super::footprint::{Footprint, bearing_vector};
use super::geom::{clip_half_plane, signed_area};
use super::situation::UnitInfo;

/// Less ground than this (square inches) inside an arc is a boundary touched, not a target seen.
const AREA_EPS: f32 = 1e-5;

/// How a unit's arc is measured (the rule set decides which, by formation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FireMode {
    /// One arc from the two ends of the unit's front (8.1).
    Unit,
    /// Each stand has its own arc: skirmish line (5.3) and bent line (8.1, 6.4).
    PerStand,
    /// Cannot fire: a march column, or limbered guns (8.13).
    None,
}

/// The ground in front of a front edge, out to 45° beyond each end: three half-planes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arc {
    pub front_left: Vec2,
    pub front_right: Vec2,
    pub facing: f32,
    planes: [(Vec2, Vec2); 3],
}

impl Arc {
    /// The arc of a front edge from `front_left` to `front_right`, facing `facing`.
    pub fn new(front_left: Vec2, front_right: Vec2, facing: f32) -> Arc {
        // The left boundary runs from the left end at 45° outward of straight ahead; the ground
        // inside it lies towards the bearing 45° right of the facing, and the mirror on the right.
        let planes = [
            (front_left, bearing_vector(facing)),
            (front_left, bearing_vector(facing + 45.0)),
            (front_right, bearing_vector(facing - 45.0)),
        ];
        Arc { front_left, front_right, facing, planes }
    }

    pub fn of_stand(f: &Footprint) -> Arc {
        Arc::new(f.front_left(), f.front_right(), f.facing)
    }

    /// The whole unit's arc (8.1): from the outer front corners of its end stands; a column's
    /// front is its head stand.
    pub fn of_unit(unit: &UnitInfo) -> Option<Arc> {
        let head = unit.stands.first()?.footprint;
        if unit.in_column() {
            return Some(Arc::of_stand(&head));
        }
        let right = head.right();
        let key = |p: Vec2| p.dot(right);
        // Each stand's front corners from one sine and cosine (`Footprint::corners`: front-right,
        // front-left first); the first of equals leftmost and the last rightmost, as min_by and max_by.
        let mut fronts = unit.stands.iter().map(|s| s.footprint.corners());
        let first = fronts.next()?;
        let (left, rightmost) = fronts.fold((first[1], first[0]), |(l, r), c| {
            (if key(c[1]).total_cmp(&key(l)).is_lt() { c[1] } else { l }, if key(c[0]).total_cmp(&key(r)).is_ge() { c[0] } else { r })
        });
        Some(Arc::new(left, rightmost, head.facing))
    }

    /// The arc a given stand fires through, by the unit's fire mode: its own, or its unit's.
    pub fn for_stand(unit: &UnitInfo, mode: FireMode, stand: usize) -> Option<Arc> {
        match mode {
            FireMode::PerStand => unit.stands.get(stand).map(|s| Arc::of_stand(&s.footprint)),
            _ => Arc::of_unit(unit),
        }
    }

    pub fn contains(&self, p: Vec2) -> bool {
        self.planes.iter().all(|&(o, n)| (p - o).dot(n) >= 0.0)
    }

    /// The part of a convex polygon inside the arc (empty when none). `tmp` is scratch space.
    pub fn clip(&self, poly: &[Vec2], out: &mut Vec<Vec2>, tmp: &mut Vec<Vec2>) {
        out.clear();
        // Half-planes the polygon lies wholly inside leave it as it is, and one it lies wholly
        // outside leaves nothing, as clipping would (the same test, no point moved): only from
        // the first that cuts it is it clipped.
        let mut first = 0;
        while let Some(&(o, n)) = self.planes.get(first) {
            let (mut inside, mut outside) = (true, true);
            for &p in poly {
                let d = (p - o).dot(n);
                inside &= d >= 0.0;
                outside &= d < 0.0;
            }
            if outside {
                return;
            }
            if !inside {
                break;
            }
            first += 1;
        }
        out.extend_from_slice(poly);
        for &(o, n) in &self.planes[first..] {
            clip_half_plane(out, o, n, tmp);
            std::mem::swap(out, tmp);
            if out.len() < 3 {
                out.clear();
                return;
            }
        }
        if signed_area(out).abs() <= AREA_EPS {
            out.clear();
        }
    }

    /// True when some of the polygon lies inside the arc.
    pub fn reaches(&self, poly: &[Vec2]) -> bool {
        let (mut out, mut tmp) = (Vec::with_capacity(8), Vec::with_capacity(8));
        self.clip(poly, &mut out, &mut tmp);
        !out.is_empty()
    }
}
