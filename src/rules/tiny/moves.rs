//! The tiny rules' movement and fire as the table applies them (TINY 2-4): every manoeuvre of the
//! table's sweep at face value, no terrain, line and march column only.

use crate::scenario::model::{Formation, Terrain};
use crate::table::arc::FireMode;
use crate::table::fire::FireRules;
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::UnitInfo;

/// The tiny rules' movement, for every call of `plan_move`.
pub static TINY: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "2",
        formation: "3",
        manoeuvre: "2",
        bend: "2",
        interpenetrate: "2",
        double_up: "2",
        ford: "2",
        obstacle: "2",
        road: "2",
        skirmish: "2",
        stand_by_stand: "2",
        basing: "3",
        disorder: "2",
    },
    oblique_max: 45.0,
    side_step_rate: 2.0,
    bend_max: 0.0,
    skirmish_gap: (1.0, 3.0),
    double_up_needs: 1.0,
    road_note: "the tiny rules have no road bonus",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

/// TINY 2: a unit moves whole (forward, oblique, side step, wheel, about face, a march column
/// along a path); no stand by stand, no bent line, no road bonus.
fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    match ask {
        Ask::Wheel | Ask::MoveAfterFormationChange => Ok(()),
        Ask::Path if unit.in_column() => Ok(()),
        Ask::Path => Err(Refused::new("2", "only a march column follows a path")),
        Ask::StandByStand | Ask::Bend | Ask::Road => Err(Refused::new("2", "the tiny rules move a unit whole: no stand by stand, no bent line, no road bonus")),
    }
}

fn share(_unit: &UnitInfo, _what: Share, _full: f32) -> (f32, &'static str) {
    (0.0, "free")
}

/// TINY 3: line and march column, for the whole move.
fn form(unit: &UnitInfo, to: Formation) -> Result<FormationPrice, Refused> {
    match (unit.formation, to) {
        (Formation::Line, Formation::Column) | (Formation::Column, Formation::Line) => Ok(FormationPrice { share: 1.0, section: "3", words: "the whole move" }),
        _ => Err(Refused::new("3", "the tiny rules change formation only between line and march column")),
    }
}

fn terrain(_terrain: &Terrain, _unit: &UnitInfo) -> TerrainEffect {
    TerrainEffect::None
}

fn obstacle(_terrain: &Terrain) -> bool {
    false
}

fn crossing(_terrain: &Terrain, _unit: &UnitInfo) -> Result<f32, String> {
    Ok(0.0)
}

/// TINY 4: every unit fires from its front corners (one 45° arc), 12" edge to edge, measured
/// as it is.
pub static FIRE: FireRules = FireRules { mode: |_| FireMode::Unit, reach: |_, extra| Some(12.0 + extra), measure: |d| d };
