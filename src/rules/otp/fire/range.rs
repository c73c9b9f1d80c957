//! OTP's ranges (8.3, 8.4): small arms, the artillery bands and their rounding, close range,
//! who fires from where by formation (8.1), and the canister restriction (8.4); given to the
//! table's fire geometry as [`FIRE`].

use serde::Serialize;

use crate::scenario::model::{Formation, GunSize, Weapon};
use crate::table::arc::{Arc, FireMode};
use crate::table::fire::{FireRules, friends_in_arc_within};
use crate::table::geom::EPS;
use crate::table::situation::{Situation, UnitInfo};

/// OTP's fire geometry rules: arcs by formation (8.1), reach (8.3, 8.4), partial inches rounded up (8.4).
pub static FIRE: FireRules = FireRules { mode: fire_mode, reach: max_range, measure: |d| measured_inches(d) as f32 };

/// 8.1: how a unit's arc is measured: a formed unit from the ends of its front; a skirmish line
/// (5.3) and a bent line (6.4) from each stand; a march column and limbered guns not at all (8.13).
pub fn fire_mode(unit: &UnitInfo) -> FireMode {
    match unit.formation {
        Formation::Column | Formation::Limbered => FireMode::None,
        Formation::Skirmish => FireMode::PerStand,
        _ if unit.is_bent() => FireMode::PerStand,
        _ => FireMode::Unit,
    }
}

/// 8.3: small arms at 2" or less fire at close range.
pub const CLOSE_RANGE: f32 = 2.0;

/// 8.3: carbines and fusils 4", muskets and bows 6", rifles 9".
pub fn small_arms_range(weapon: Weapon) -> f32 {
    match weapon {
        Weapon::Carbine | Weapon::Fusil => 4.0,
        Weapon::Musket | Weapon::Bow => 6.0,
        Weapon::Rifle => 9.0,
    }
}

/// 8.4: an artillery range band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtilleryBand {
    Short,
    Medium,
    Long,
}

impl std::fmt::Display for ArtilleryBand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ArtilleryBand::Short => "short",
            ArtilleryBand::Medium => "medium",
            ArtilleryBand::Long => "long",
        })
    }
}

/// 8.4: the far ends of short, medium and long range, whole inches, by gun size.
pub fn artillery_bands(gun: GunSize) -> [u32; 3] {
    match gun {
        GunSize::Light => [8, 16, 21],
        GunSize::Medium => [9, 18, 24],
        GunSize::Heavy => [10, 24, 30],
    }
}

/// 8.4: "all partial inches are rounded up when measuring". A thousandth of an inch over a
/// whole inch is measuring error, not a partial inch.
pub fn measured_inches(distance: f32) -> u32 {
    (distance - EPS).ceil().max(0.0) as u32
}

/// 8.4: the band a shot at `distance` falls in; `extra` inches (7.3 elevation bonus, decided by
/// the rules engine) lengthen long range only. None beyond long range.
pub fn artillery_band(gun: GunSize, distance: f32, extra: f32) -> Option<ArtilleryBand> {
    let [short, medium, long] = artillery_bands(gun);
    let d = measured_inches(distance);
    if d <= short {
        Some(ArtilleryBand::Short)
    } else if d <= medium {
        Some(ArtilleryBand::Medium)
    } else if d as f32 <= long as f32 + extra {
        Some(ArtilleryBand::Long)
    } else {
        None
    }
}

/// The longest a unit can fire in inches (artillery: long range plus `extra`), or None for a
/// unit without a weapon.
pub fn max_range(unit: &UnitInfo, extra: f32) -> Option<f32> {
    match (unit.gun(), unit.weapon) {
        (Some(gun), _) => Some(artillery_bands(gun)[2] as f32 + extra),
        (None, Some(w)) => Some(small_arms_range(w)),
        (None, None) => None,
    }
}

/// 8.3: small arms at 2" or less.
pub fn is_close_range(distance: f32) -> bool {
    distance <= CLOSE_RANGE + EPS
}

/// 8.4: canister only if no part of a friendly unit is within the gun's arc and short range.
/// The friendly units that forbid it, nearest first (empty: canister is allowed, if the target
/// is at short range).
pub fn canister_masked_by(s: &Situation, gun: usize) -> Vec<String> {
    let (Some(size), Some(arc)) = (s.unit(gun).gun(), Arc::of_unit(s.unit(gun))) else { return Vec::new() };
    friends_in_arc_within(s, gun, &arc, &FIRE, artillery_bands(size)[0] as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_arms_ranges() {
        // OTP 8.3
        assert_eq!(small_arms_range(Weapon::Carbine), 4.0);
        assert_eq!(small_arms_range(Weapon::Fusil), 4.0);
        assert_eq!(small_arms_range(Weapon::Musket), 6.0);
        assert_eq!(small_arms_range(Weapon::Bow), 6.0);
        assert_eq!(small_arms_range(Weapon::Rifle), 9.0);
        assert!(is_close_range(2.0) && !is_close_range(2.1));
    }

    #[test]
    fn partial_inches_round_up() {
        // OTP 8.4: "9 1/4 rounds up to 10": medium range for light guns, as for medium guns.
        assert_eq!(measured_inches(9.25), 10);
        assert_eq!(measured_inches(9.0), 9);
        assert_eq!(measured_inches(9.0004), 9, "a thousandth is measuring error");
        assert_eq!(artillery_band(GunSize::Light, 9.25, 0.0), Some(ArtilleryBand::Medium));
        assert_eq!(artillery_band(GunSize::Light, 8.0, 0.0), Some(ArtilleryBand::Short));
        assert_eq!(artillery_band(GunSize::Light, 8.01, 0.0), Some(ArtilleryBand::Medium));
        assert_eq!(artillery_band(GunSize::Medium, 9.25, 0.0), Some(ArtilleryBand::Medium));
        assert_eq!(artillery_band(GunSize::Heavy, 9.25, 0.0), Some(ArtilleryBand::Short));
    }

    #[test]
    fn artillery_bands_by_gun_size() {
        // OTP 8.4: light 0-8/9-16/17-21, medium 0-9/10-18/19-24, heavy 0-10/11-24/25-30.
        use ArtilleryBand::*;
        let cases = [
            (GunSize::Light, [(0.0, Some(Short)), (16.0, Some(Medium)), (16.5, Some(Long)), (21.0, Some(Long)), (21.2, None)]),
            (GunSize::Medium, [(9.0, Some(Short)), (18.0, Some(Medium)), (18.1, Some(Long)), (24.0, Some(Long)), (24.5, None)]),
            (GunSize::Heavy, [(10.0, Some(Short)), (24.0, Some(Medium)), (24.9, Some(Long)), (30.0, Some(Long)), (30.01, None)]),
        ];
        for (gun, list) in cases {
            for (d, band) in list {
                assert_eq!(artillery_band(gun, d, 0.0), band, "{gun:?} at {d}\"");
            }
        }
    }

    #[test]
    fn elevation_bonus_lengthens_long_range_only() {
        // OTP 7.3: the bonus is the rules engine's to grant; it moves only the far end.
        assert_eq!(artillery_band(GunSize::Light, 22.5, 0.0), None);
        assert_eq!(artillery_band(GunSize::Light, 22.5, 2.0), Some(ArtilleryBand::Long));
        assert_eq!(artillery_band(GunSize::Light, 8.5, 2.0), Some(ArtilleryBand::Medium));
    }
}
