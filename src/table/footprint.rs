//! A stand's footprint on the table: an oriented rectangle in inches.
//!
//! This is the one place where a bearing becomes a direction, and where the table's
//! `bevy::math::Vec2` (glam 0.32) meets parry2d's vectors (glam 0.33).

use bevy::ecs::component::Component;
use bevy::math::Vec2;
use parry2d::math::{Pose, Vector};
use parry2d::shape::Cuboid;
use serde::{Deserialize, Serialize};

/// Unit vector of a compass bearing in degrees (0 = up the table, 90 = right).
pub fn bearing_vector(bearing_deg: f32) -> Vec2 {
    let r = bearing_deg.to_radians();
    Vec2::new(r.sin(), r.cos())
}

/// Bearing in degrees [0, 360) of a direction.
pub fn vector_bearing(v: Vec2) -> f32 {
    v.x.atan2(v.y).to_degrees().rem_euclid(360.0)
}

pub fn to_parry(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

pub fn from_parry(v: Vector) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// One stand on the table: centre, facing (bearing, degrees), frontage and depth (inches).
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    pub centre: Vec2,
    pub facing: f32,
    pub frontage: f32,
    pub depth: f32,
}

impl Footprint {
    pub fn forward(&self) -> Vec2 {
        bearing_vector(self.facing)
    }
    /// The stand's right hand, looking the way it faces.
    pub fn right(&self) -> Vec2 {
        bearing_vector(self.facing + 90.0)
    }
    pub fn front_centre(&self) -> Vec2 {
        self.centre + self.forward() * (self.depth / 2.0)
    }
    pub fn front_left(&self) -> Vec2 {
        self.front_centre() - self.right() * (self.frontage / 2.0)
    }
    pub fn front_right(&self) -> Vec2 {
        self.front_centre() + self.right() * (self.frontage / 2.0)
    }
    pub fn rear_left(&self) -> Vec2 {
        self.front_left() - self.forward() * self.depth
    }
    pub fn rear_right(&self) -> Vec2 {
        self.front_right() - self.forward() * self.depth
    }
    /// Corners counter-clockwise: front-right, front-left, rear-left, rear-right.
    pub fn corners(&self) -> [Vec2; 4] {
        // The same arithmetic as `front_right()` and the rest, with the facing's sine and cosine
        // taken once, not eight times (the sweeps ask for corners at every sample).
        let (forward, right) = (self.forward(), self.right());
        let front_centre = self.centre + forward * (self.depth / 2.0);
        let (front_left, front_right) = (front_centre - right * (self.frontage / 2.0), front_centre + right * (self.frontage / 2.0));
        [front_right, front_left, front_left - forward * self.depth, front_right - forward * self.depth]
    }

    /// parry2d's view of the stand: a cuboid and its pose (rotation counter-clockwise from +x).
    pub fn shape(&self) -> (Cuboid, Pose) {
        let half = Vector::new(self.frontage / 2.0, self.depth / 2.0);
        // The cuboid's local +y is the stand's forward; bearing 0 is +y, so rotate by -bearing.
        let pose = Pose::new(to_parry(self.centre), -self.facing.to_radians());
        (Cuboid::new(half), pose)
    }

    /// True when the two stands overlap by more than `tolerance` inches (touching is not overlap).
    pub fn overlaps(&self, other: &Footprint, tolerance: f32) -> bool {
        let shrink = |f: &Footprint| Footprint {
            frontage: (f.frontage - 2.0 * tolerance).max(0.0),
            depth: (f.depth - 2.0 * tolerance).max(0.0),
            ..*f
        };
        let (a, pa) = shrink(self).shape();
        let (b, pb) = shrink(other).shape();
        parry2d::query::intersection_test(&pa, &a, &pb, &b).is_ok_and(|i| i.intersecting)
    }

    /// Edge-to-edge distance in inches (0 when touching or overlapping).
    pub fn distance(&self, other: &Footprint) -> f32 {
        let (a, pa) = self.shape();
        let (b, pb) = other.shape();
        parry2d::query::distance(&pa, &a, &pb, &b).map(|d| d.distance.max(0.0)).unwrap_or(f32::INFINITY)
    }

    pub fn contains(&self, p: Vec2) -> bool {
        let d = p - self.centre;
        d.dot(self.right()).abs() <= self.frontage / 2.0 && d.dot(self.forward()).abs() <= self.depth / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearings_follow_the_compass() {
        assert!((bearing_vector(0.0) - Vec2::Y).length() < 1e-6);
        assert!((bearing_vector(90.0) - Vec2::X).length() < 1e-6);
        assert!((vector_bearing(Vec2::new(-1.0, 0.0)) - 270.0).abs() < 1e-4);
    }

    #[test]
    fn corners_are_the_named_corners_to_the_bit() {
        for k in 0..720 {
            let f = Footprint { centre: Vec2::new(31.7, -4.3), facing: k as f32 * 0.5 + 0.13, frontage: 2.0, depth: 0.75 };
            assert_eq!(f.corners(), [f.front_right(), f.front_left(), f.rear_left(), f.rear_right()], "facing {}", f.facing);
        }
    }

    #[test]
    fn corners_agree_with_parry() {
        // A 2" x 1" stand facing east: its front edge is the line x = 10.5.
        let f = Footprint { centre: Vec2::new(10.0, 5.0), facing: 90.0, frontage: 2.0, depth: 1.0 };
        assert!((f.front_left() - Vec2::new(10.5, 6.0)).length() < 1e-5);
        assert!((f.front_right() - Vec2::new(10.5, 4.0)).length() < 1e-5);
        let g = Footprint { centre: Vec2::new(13.5, 5.0), ..f };
        assert!((f.distance(&g) - 2.5).abs() < 1e-4, "{}", f.distance(&g));
        let h = Footprint { centre: Vec2::new(10.0, 7.0), ..f };
        assert!((f.distance(&h)).abs() < 1e-4, "touching along a frontage edge");
        assert!(!f.overlaps(&h, 0.01));
        assert!(f.overlaps(&Footprint { centre: Vec2::new(10.0, 6.5), ..f }, 0.01));
    }
}
