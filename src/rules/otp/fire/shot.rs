//! The summary behind `otp fire SCENARIO FIRER TARGET [--json]`: one unit firing on another.

use std::fmt;

use serde::Serialize;

use super::range::{ArtilleryBand, FIRE, artillery_band, is_close_range};
use crate::table::fire::{FireOptions, fire_geometry};
use crate::table::sight::WoodsOnLine;
use crate::table::situation::Situation;

/// The geometry of one unit firing on another, as the CLI prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShotGeometry {
    /// Edge to edge from the firer's nearest stand, inches.
    pub range_in: f32,
    /// Within the weapon's range (8.3) or the guns' long range (8.4), partial inches rounded up.
    pub in_range: bool,
    /// Some of the target is inside the firer's arc (8.1).
    pub in_arc: bool,
    /// Stands with some of the target inside their arc and within their range (8.1).
    pub stands_bearing: u32,
    pub figures_bearing: u32,
    /// A bearing stand (any stand, if none bears) has a clear line of sight (8.8).
    pub los_clear: bool,
    /// When the sight is not clear: the units and terrain in the way, nearest first.
    pub blocked_by: Vec<String>,
    /// Inches of woods on the sight line that decides the visibility roll (`FireGeometry::
    /// woods_in`); 1" or more calls for a roll (8.7).
    pub woods_in: f32,
    /// That line's woods, feature by feature with its own name and kind.
    pub woods_on_line: Vec<WoodsOnLine>,
    /// The bearing stands are all behind the target's front line (8.11).
    pub enfilade: bool,
    /// Small arms at 2" or less (8.3).
    pub close_range: bool,
    /// For artillery: short, medium or long range (8.4); None beyond long range.
    pub artillery_band: Option<ArtilleryBand>,
}

/// `firer` fires on `target` (unit names), with no elevation bonus and small arms or canister
/// sight (artillery ball over lower units: use `shot_with`).
pub fn shot(situation: &Situation, firer: &str, target: &str) -> Result<ShotGeometry, String> {
    shot_with(situation, firer, target, FireOptions::new(&FIRE))
}

pub fn shot_with(situation: &Situation, firer: &str, target: &str, opts: FireOptions) -> Result<ShotGeometry, String> {
    let f = situation.find(firer)?;
    let t = situation.find(target)?;
    let (fu, tu) = (situation.unit(f), situation.unit(t));
    if f == t {
        return Err(format!("\"{}\" cannot fire on itself", fu.name));
    }
    if fu.side == tu.side {
        return Err(format!("\"{}\" and \"{}\" are on the same side: units fire on enemy units (8.1)", fu.name, tu.name));
    }
    let g = fire_geometry(situation, f, t, opts);
    let gun = fu.gun();
    Ok(ShotGeometry {
        range_in: g.range,
        in_range: g.in_range,
        in_arc: g.in_arc,
        stands_bearing: g.bearing().count() as u32,
        figures_bearing: g.bearing().map(|s| s.figures).sum(),
        los_clear: g.los_clear(),
        blocked_by: g.blocked_by(),
        woods_in: g.woods_in(),
        woods_on_line: g.woods_on_line(),
        enfilade: g.enfilade(situation),
        close_range: gun.is_none() && fu.weapon.is_some() && is_close_range(g.range),
        artillery_band: gun.and_then(|gun| artillery_band(gun, g.range, opts.extra_range)),
    })
}

impl fmt::Display for ShotGeometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yes = |b: bool| if b { "yes" } else { "no" };
        write!(f, "range:          {:.2}\" from the nearest stand", self.range_in)?;
        if let Some(band) = self.artillery_band {
            write!(f, " ({band} range)")?;
        } else if self.close_range {
            write!(f, " (close range)")?;
        }
        writeln!(f)?;
        writeln!(f, "in range:       {}", yes(self.in_range))?;
        writeln!(f, "in arc:         {}", yes(self.in_arc))?;
        writeln!(f, "bearing:        {} stand(s), {} figure(s)", self.stands_bearing, self.figures_bearing)?;
        if self.los_clear {
            writeln!(f, "line of sight:  clear")?;
        } else if self.blocked_by.is_empty() {
            writeln!(f, "line of sight:  blocked")?;
        } else {
            writeln!(f, "line of sight:  blocked by {}", self.blocked_by.join(", "))?;
        }
        let roll = if self.woods_in >= 1.0 - crate::table::geom::EPS { " (visibility roll needed, 8.7)" } else { "" };
        writeln!(f, "woods:          {:.2}\"{roll}", self.woods_in)?;
        for w in &self.woods_on_line {
            writeln!(f, "                {w} (8.7)")?;
        }
        write!(f, "enfilade:       {}", yes(self.enfilade))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Formation, GunSize};
    use crate::table::situation::UnitInfo;
    use crate::table::testing::{close, table, v};

    #[test]
    fn light_guns_at_nine_and_a_quarter_inches_are_at_medium_range() {
        // OTP 8.4: 9 1/4" rounds up to 10": medium range for light guns (9-16").
        let guns = UnitInfo::battery("Guns", 0, GunSize::Light, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        let target = UnitInfo::foot("Target", 1, 8, Formation::Line, v(20.0, 19.25), 180.0);
        let s = table(vec![guns, target]);
        let g = shot(&s, "Guns", "Target").unwrap();
        assert!(close(g.range_in, 9.25));
        assert_eq!(g.artillery_band, Some(ArtilleryBand::Medium));
        assert!(g.in_range && g.in_arc && g.los_clear && !g.close_range && !g.enfilade);
        assert_eq!((g.stands_bearing, g.figures_bearing), (1, 2));
    }

    #[test]
    fn close_range_and_enfilade() {
        // OTP 8.3 close range (2" or less) and 8.11 enfilade: firing into the target's flank.
        let firer = UnitInfo::foot("Firer", 0, 8, Formation::Line, v(20.0, 10.0), 0.0);
        // The target faces west, its front edge on x = 17.5: both firing stands are east of it.
        let target = UnitInfo::foot("Target", 1, 8, Formation::Line, v(17.5, 14.0), 270.0);
        let g = shot(&table(vec![firer, target]), "Firer", "Target").unwrap();
        assert!(g.close_range && g.enfilade && g.in_range, "{g:?}");
        assert_eq!(g.artillery_band, None);
    }

    #[test]
    fn json_has_exactly_the_cli_fields() {
        let s = table(vec![
            UnitInfo::foot("A", 0, 8, Formation::Line, v(20.0, 10.0), 0.0),
            UnitInfo::foot("B", 1, 8, Formation::Line, v(20.0, 14.0), 180.0),
            UnitInfo::foot("C", 0, 16, Formation::Line, v(20.0, 12.0), 0.0),
        ]);
        let g = shot(&s, "A", "B").unwrap();
        assert_eq!(g.blocked_by, vec!["C".to_string()]);
        let json = serde_json::to_value(&g).unwrap();
        let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["artillery_band", "blocked_by", "close_range", "enfilade", "figures_bearing", "in_arc", "in_range", "los_clear", "range_in", "stands_bearing", "woods_in", "woods_on_line"]);
        let text = g.to_string();
        assert!(text.contains("blocked by C") && text.contains("in range:       yes"), "{text}");
    }

    #[test]
    fn unknown_and_friendly_units_are_errors() {
        let s = table(vec![UnitInfo::foot("1st Foot", 0, 8, Formation::Line, v(20.0, 10.0), 0.0), UnitInfo::foot("2nd Foot", 0, 8, Formation::Line, v(30.0, 10.0), 0.0)]);
        let e = shot(&s, "1st Fot", "2nd Foot").unwrap_err();
        assert!(e.contains("\"1st Fot\"") && e.contains("\"1st Foot\""), "{e}");
        assert!(shot(&s, "1st Foot", "2nd Foot").unwrap_err().contains("same side"));
    }

    #[test]
    fn teaching_battle_guns_on_the_ridge() {
        // The embedded scenario: the Continental guns on Long Ridge see the 23rd Foot at medium
        // range across the Wheat Field, which 8.7 counts as light woods: a visibility roll.
        let s = Situation::from_scenario(&crate::scenario::default_scenario());
        let g = shot(&s, "Continental Artillery", "23rd Foot").unwrap();
        assert!(g.range_in > 10.0 && g.range_in < 20.0, "{g}");
        assert!(g.artillery_band == Some(ArtilleryBand::Medium) && g.in_arc && g.los_clear);
        assert!(g.woods_in > 1.0, "{g}");
        // Item 11 of #13: the crops are named as what they are, not as "light woods".
        assert_eq!(g.woods_on_line.len(), 1, "{g}");
        let w = &g.woods_on_line[0];
        assert_eq!((w.name.as_str(), w.kind.as_str()), ("Wheat Field", "tall crops, seen as light woods"));
        assert!((w.inches - g.woods_in).abs() < 1e-4, "one line, one figure: {g}");
        assert!(g.to_string().contains("Wheat Field — tall crops, seen as light woods"), "{g}");
    }
}
