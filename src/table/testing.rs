//! Small constructed tables for the unit tests.

use bevy::math::Vec2;

use super::situation::{Situation, UnitInfo};
use crate::scenario::model::{Point, Table, Terrain};

pub fn table(units: Vec<UnitInfo>) -> Situation {
    with_terrain(units, Vec::new())
}

pub fn with_terrain(units: Vec<UnitInfo>, terrain: Vec<Terrain>) -> Situation {
    Situation::new(Table { width: 72.0, depth: 48.0 }, terrain, units)
}

/// Corners of an axis-aligned rectangle, counter-clockwise.
pub fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Point> {
    vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
}

pub fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

pub fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-3
}
