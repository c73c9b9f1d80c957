//! A big generated battle for the eligibility matrix (OTP 8.1 range and arcs, 8.4 measuring, 8.8
//! sight): two armies of 200 units drawn up close on a 12' x 8' table among a dozen terrain
//! features. The `eligibility` bench times the matrix on it; `export` writes it with the matrix
//! for the independent shapely implementation (`tools/eligibility_shapely.py`), which the
//! geometry test runs in CI (issue 20).

use bevy::math::Vec2;

use super::range::FIRE;
use crate::scenario::model::{Arm, Construction, FieldKind, Formation, GunSize, Point, StreamKind, Table, Terrain, UnitType, Weapon, WoodsDensity};
use crate::table::fire::{Eligible, FireOptions, eligibility};
use crate::table::situation::{Situation, UnitInfo};

const COLUMNS: usize = 20;
const ROWS: usize = 10;

fn rect(x: f32, y: f32, w: f32, h: f32) -> Vec<Point> {
    vec![[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
}

/// Ten ranks of twenty units a side, 7" apart along the rank and 4" between ranks, the two
/// front ranks 5" apart (within musket range): lines of foot, with skirmishers, guns and horse mixed in.
fn armies() -> Vec<UnitInfo> {
    let mut units = Vec::new();
    for side in 0..2 {
        for row in 0..ROWS {
            for col in 0..COLUMNS {
                let x = 5.0 + col as f32 * 7.0;
                let (y, facing) = if side == 0 { (44.0 - row as f32 * 4.0, 0.0) } else { (49.0 + row as f32 * 4.0, 180.0) };
                let at = Vec2::new(x, y);
                let name = format!("{side}-{row}-{col}");
                let u = match (row + col) % 10 {
                    0 => UnitInfo::battery(&name, side, [GunSize::Light, GunSize::Medium, GunSize::Heavy][col % 3], 4, Formation::Unlimbered, at, facing),
                    3 => UnitInfo::sketch(&name, side, UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 6, Formation::Skirmish, at, facing),
                    7 => UnitInfo::sketch(&name, side, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 6, Formation::Line, at, facing),
                    _ => UnitInfo::foot(&name, side, 12, Formation::Line, at, facing),
                };
                units.push(u);
            }
        }
    }
    units
}

/// A dozen features, most of them between or among the armies.
fn terrain() -> Vec<Terrain> {
    let woods = |name: &str, density, outline| Terrain::Woods { name: name.into(), density, outline, disorder: None };
    let hill = |name: &str, elevation, outline| Terrain::Hill { name: name.into(), elevation, outline, slope: None };
    vec![
        woods("North Wood", WoodsDensity::Regular, rect(10.0, 46.0, 12.0, 4.0)),
        woods("Orchard", WoodsDensity::Light, rect(60.0, 45.0, 10.0, 6.0)),
        woods("Thicket", WoodsDensity::Dense, vec![[100.0, 40.0], [112.0, 42.0], [110.0, 50.0], [98.0, 48.0]]),
        woods("South Copse", WoodsDensity::Regular, rect(30.0, 20.0, 8.0, 8.0)),
        hill("Long Hill", 1, vec![[40.0, 30.0], [80.0, 28.0], [84.0, 40.0], [44.0, 42.0]]),
        hill("Long Hill crest", 2, vec![[50.0, 33.0], [72.0, 32.0], [74.0, 38.0], [52.0, 39.0]]),
        hill("Knoll", 1, rect(120.0, 55.0, 10.0, 10.0)),
        Terrain::Town { name: "Crossroads".into(), outline: rect(85.0, 46.0, 8.0, 6.0), capacity: 5 },
        Terrain::Building { name: "Mill".into(), at: [30.0, 48.0], size: [2.0, 2.0], facing: 20.0, construction: Construction::Stone, capacity: 2 },
        Terrain::Field { name: "Wheat".into(), kind: FieldKind::TallCrops, outline: rect(120.0, 44.0, 14.0, 8.0) },
        Terrain::Field { name: "Plowed".into(), kind: FieldKind::Plowed, outline: rect(5.0, 60.0, 20.0, 10.0) },
        Terrain::Stream { name: "Brook".into(), kind: StreamKind::Narrow, path: vec![[0.0, 47.0], [70.0, 49.0], [144.0, 47.0]], width: 0.5, fords: Vec::new() },
    ]
}

/// The battle: 400 units, 12 terrain features.
pub fn battle() -> Situation {
    Situation::new(Table { width: 144.0, depth: 96.0 }, terrain(), armies())
}

/// OTP's eligibility matrix of a table (its fire modes and reaches from the charts).
pub fn matrix(s: &Situation) -> Vec<Eligible> {
    eligibility(s, FireOptions::new(&FIRE))
}

/// The battle (stands, terrain, each unit's fire mode and reach from the OTP charts), the Rust
/// matrix and the Rust time for one matrix, as the JSON `tools/eligibility_shapely.py` reads.
pub fn export(s: &Situation, matrix: &[Eligible], seconds: f64, runs: usize) -> serde_json::Value {
    let units: Vec<serde_json::Value> = s
        .units()
        .iter()
        .map(|u| {
            let stands: Vec<serde_json::Value> = u
                .stands
                .iter()
                .map(|st| serde_json::json!({ "centre": [st.footprint.centre.x, st.footprint.centre.y], "facing": st.footprint.facing, "frontage": st.footprint.frontage, "depth": st.footprint.depth, "figures": st.figures }))
                .collect();
            let mode = format!("{:?}", (FIRE.mode)(u));
            serde_json::json!({ "name": u.name, "side": u.side, "column": u.in_column(), "mode": mode, "reach": (FIRE.reach)(u, 0.0), "stands": stands })
        })
        .collect();
    serde_json::json!({ "table": [s.table().width, s.table().depth], "terrain": s.terrain(), "units": units, "rust": { "matrix": matrix, "seconds": seconds, "runs": runs } })
}
