//! Purky's movement, fire geometry and cover as the table applies them (PK4–PK13): moves of
//! a whole unit (a march column following its head, a skirmish line stand by stand, 2"–4"
//! apart), linear obstacles and rough ground priced by the engine from the rate, every base
//! firing through its own 45° arcs, cover light (fences, walls, woods) or hard (entrenchments,
//! towns, stone buildings).

use crate::scenario::model::{Arm, Construction, Cover, Formation, ObstacleKind, StreamKind, Terrain, UnitType, Weapon};
use crate::table::arc::FireMode;
use crate::table::cover::CoverRules;
use crate::table::fire::FireRules;
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::UnitInfo;

/// Purky's movement, for every call of `plan_move` and `charge_path`.
pub static MOVES: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "6",
        formation: "7",
        manoeuvre: "7",
        bend: "6",
        interpenetrate: "6",
        double_up: "6",
        ford: "9",
        obstacle: "9",
        road: "6",
        skirmish: "6",
        stand_by_stand: "6",
        basing: "25",
        disorder: "9",
    },
    oblique_max: 45.0,
    // PK7: units in column or line move at half rate sideways.
    side_step_rate: 2.0,
    bend_max: 0.0,
    // PK6: skirmishers 2"–4" apart.
    skirmish_gap: (2.0, 4.0),
    double_up_needs: 1.0,
    road_note: "the road-march rate needs a march column on the road the whole way (PK6)",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

/// PK6: a march column follows its head and earns the road-march rate on a road; skirmishers
/// move stand by stand; nobody bends a line or doubles up (the card has no such thing).
fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    match ask {
        Ask::Wheel | Ask::MoveAfterFormationChange => Ok(()),
        Ask::Path | Ask::Road if unit.in_column() => Ok(()),
        Ask::Path | Ask::Road => Err(Refused::new("6", "only a march column follows a path and earns the road-march rate")),
        Ask::StandByStand if unit.formation == Formation::Skirmish => Ok(()),
        Ask::StandByStand => Err(Refused::new("6", "only skirmishers move their stands one by one")),
        Ask::Bend => Err(Refused::new("6", "Purky's card has no bent line")),
    }
}

/// PK7: about face is a move backward: free to turn; the engine halves the rate of the whole
/// move backward or sideways.
fn share(_unit: &UnitInfo, _what: Share, _full: f32) -> (f32, &'static str) {
    (0.0, "free")
}

/// Changes of formation are their own order under Purky (PK7, priced from the new formation's
/// rate by the engine), never a step of a move.
fn form(_unit: &UnitInfo, _to: Formation) -> Result<FormationPrice, Refused> {
    Err(Refused::new("7", "a change of formation is its own order (half the new formation's rate), not a step of a move"))
}

/// PK9: a river is crossed only at its fords; everything else the engine prices from the rate.
fn terrain(t: &Terrain, _unit: &UnitInfo) -> TerrainEffect {
    match t {
        Terrain::Stream { kind: StreamKind::River, .. } => TerrainEffect::Ford(crate::scenario::model::DisorderType::A),
        _ => TerrainEffect::None,
    }
}

/// PK9: linear obstacles (fences, walls, works, narrow streams).
pub fn obstacle(t: &Terrain) -> bool {
    matches!(t, Terrain::Obstacle { .. } | Terrain::Stream { kind: StreamKind::Narrow, .. })
}

/// PK9: the engine adds half the rate for crossing; the table charges nothing by the rank.
fn crossing(t: &Terrain, unit: &UnitInfo) -> Result<f32, String> {
    if let Terrain::Obstacle { impassable_to_artillery: true, .. } = t
        && unit.gun().is_some()
    {
        return Err(format!("guns cannot cross {} (the scenario says so)", t.name()));
    }
    Ok(0.0)
}

/// PK9: how ground slows a unit: rough ½, very rough ¼ (rulesets.md PK9; which ground is which
/// is our reading: woods, crops, rocky ground, large streams and towns rough; dense woods and
/// swamps very rough).
pub fn ground_factor(t: &Terrain) -> Option<(f32, &'static str)> {
    use crate::scenario::model::{FieldKind, WoodsDensity};
    match t {
        Terrain::Woods { density: WoodsDensity::Dense, .. } | Terrain::Field { kind: FieldKind::Swamp, .. } => Some((0.25, "very rough")),
        Terrain::Woods { .. } | Terrain::Field { kind: FieldKind::TallCrops | FieldKind::Plowed | FieldKind::Rocky, .. } | Terrain::Town { .. } | Terrain::Building { .. } | Terrain::Stream { kind: StreamKind::Large | StreamKind::River, .. } => {
            Some((0.5, "rough"))
        }
        _ => None,
    }
}

/// The card's range of a unit by the default mapping (rulesets.md §3), for the geometry's
/// arcs; the engine grants the difference where a scenario names another class.
pub fn default_range(unit: &UnitInfo) -> Option<f32> {
    Some(match unit.arm {
        Arm::Artillery { galloper: true, .. } => 36.0,
        Arm::Artillery { gun, .. } => match gun {
            crate::scenario::model::GunSize::Heavy => 48.0,
            crate::scenario::model::GunSize::Medium => 36.0,
            crate::scenario::model::GunSize::Light => 24.0,
        },
        Arm::Cavalry => 4.0,
        Arm::Infantry if unit.weapon == Some(Weapon::Rifle) => 18.0,
        Arm::Infantry if unit.unit_type == UnitType::Indian => 6.0,
        Arm::Infantry => 8.0,
    })
}

/// PK12, PK13: every base fires through its own 45° arcs; limbered guns do not fire.
pub static FIRE: FireRules = FireRules {
    mode: |u| if u.formation == Formation::Limbered { FireMode::None } else { FireMode::PerStand },
    reach: |u, extra| default_range(u).map(|r| r + extra),
    measure: |d| d,
};

/// PK14: light cover (fences, walls, woods, wood buildings) reads chart D; hard cover
/// (entrenchments, towns, stone buildings) chart E. Which feature is which is our reading:
/// the card names only "fences or walls" and "entrenchments".
pub static COVER: CoverRules = CoverRules {
    class: |t| match t {
        Terrain::Obstacle { kind: ObstacleKind::Breastwork, .. } | Terrain::Town { .. } | Terrain::Building { construction: Construction::Stone, .. } => Some(Cover::Heavy),
        Terrain::Obstacle { .. } | Terrain::Woods { .. } | Terrain::Building { .. } => Some(Cover::Light),
        _ => None,
    },
    behind_reach: 1.0,
};
