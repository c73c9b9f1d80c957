//! Arcs overlay (A): the ground a unit can fire on (8.1), shaded out to its weapon's range (8.3)
//! or, for guns, in the three range bands (8.4); each stand's own arc for a skirmish line (5.3)
//! and a bent line (8.1, 6.4).

use bevy_egui::egui::Color32;

use super::scene::{Prim, Scene, Tag, colours};
use super::shapes::{fan, fan_band, fan_edge};
use crate::scenario::model::Formation;
use crate::rules::otp::fire::range::{CLOSE_RANGE, artillery_bands, canister_masked_by, fire_mode, small_arms_range};
use crate::table::arc::{Arc, FireMode};
use crate::table::situation::{Situation, UnitInfo};


/// The arcs a unit fires through: its own (8.1), or one a stand (5.3, 6.4).
pub(crate) fn arcs_of(unit: &UnitInfo) -> Vec<Arc> {
    match fire_mode(unit) {
        FireMode::Unit => Arc::of_unit(unit).into_iter().collect(),
        FireMode::PerStand => unit.stands.iter().map(|s| Arc::of_stand(&s.footprint)).collect(),
        FireMode::None => Vec::new(),
    }
}

/// The bands drawn for a unit: (from, to, fill, label). Artillery: short, medium, long (8.4),
/// each band starting where the last ends, since partial inches round up; small arms: one.
pub(crate) fn bands(unit: &UnitInfo) -> Vec<(f32, f32, Color32, String)> {
    if let Some(gun) = unit.gun() {
        let [s, m, l] = artillery_bands(gun).map(|x| x as f32);
        return vec![
            (0.0, s, colours::ARC_FILL[0], format!("short 0–{s}\"")),
            (s, m, colours::ARC_FILL[1], format!("medium {}–{m}\"", s + 1.0)),
            (m, l, colours::ARC_FILL[2], format!("long {}–{l}\"", m + 1.0)),
        ];
    }
    match unit.weapon {
        Some(w) => {
            let r = small_arms_range(w);
            vec![(0.0, r, colours::ARC_SMALL_ARMS, format!("{r}\" {}", w.name()))]
        }
        None => Vec::new(),
    }
}

/// The arcs overlay for one unit. `main`: the selected unit (labelled in full); otherwise a
/// lighter drawing for the unit under the pointer, to compare.
pub(crate) fn scene(s: &Situation, unit: usize, main: bool) -> Scene {
    let mut out = Scene::default();
    let u = s.unit(unit);
    let Some(head) = u.stands.first() else { return out };
    let arcs = arcs_of(u);
    let border = colours::ARC_OUTLINE;
    if arcs.is_empty() {
        if main {
            let why = match u.formation {
                Formation::Limbered => "limbered guns cannot fire (8.13)",
                _ => "a march column cannot fire (8.13)",
            };
            out.tags.push(Tag::new(head.footprint.front_centre(), why, colours::ARC_TAG, border).towards(&[head.footprint.forward()]));
        }
        return out;
    }
    let list = bands(u);
    if list.is_empty() {
        return out;
    }
    let fade = |c: Color32| if main { c } else { c.gamma_multiply(0.6) };
    let per_stand = arcs.len() > 1;
    for arc in &arcs {
        for (r0, r1, fill, _) in &list {
            out.under.push(Prim::Fill { points: fan_band(arc.front_left, arc.front_right, arc.facing, *r0, *r1), colour: fade(*fill) });
        }
        let outer = list.last().map(|b| b.1).unwrap_or(0.0);
        out.under.push(Prim::Line {
            points: fan(arc.front_left, arc.front_right, arc.facing, outer),
            colour: fade(border),
            width: if main { 1.5 } else { 1.0 },
            dash: None,
            closed: true,
            casing: false,
        });
        for (r0, ..) in list.iter().skip(1) {
            out.under.push(Prim::Line { points: fan_edge(arc.front_left, arc.front_right, arc.facing, *r0), colour: fade(border), width: 1.0, dash: None, closed: false, casing: false });
        }
        if u.gun().is_none() && main {
            // 8.3: close range, 2" or less.
            out.under.push(Prim::Line { points: fan_edge(arc.front_left, arc.front_right, arc.facing, CLOSE_RANGE), colour: border, width: 1.0, dash: Some(4.0), closed: false, casing: false });
        }
    }
    // Labels on the middle arc's centre line: a ladder of bands, nearest first.
    let arc = arcs[arcs.len() / 2];
    let mid = (arc.front_left + arc.front_right) / 2.0;
    let fwd = crate::table::footprint::bearing_vector(arc.facing);
    let side = crate::table::footprint::bearing_vector(arc.facing + 90.0);
    if main {
        for (r0, r1, _, text) in &list {
            let at = if u.gun().is_some() { mid + fwd * ((r0 + r1) / 2.0) } else { mid + fwd * *r1 };
            out.tags.push(Tag::new(at, text.clone(), colours::ARC_TAG, border).bold().towards(&[fwd, -fwd, side, -side]));
        }
        if u.gun().is_none() {
            out.tags.push(Tag::new(mid + fwd * CLOSE_RANGE, format!("close ≤ {CLOSE_RANGE}\" (8.3)"), colours::ARC_TAG, border).towards(&[side, -side, fwd]));
        }
        let why = if u.formation == Formation::Skirmish {
            Some("skirmish line: each stand its own 45° arc (5.3, 8.1)")
        } else if u.is_bent() {
            Some("bent line: each stand its own 45° arc (8.1)")
        } else {
            None
        };
        if let (true, Some(why)) = (per_stand, why) {
            out.tags.push(Tag::new(arc.front_left, why, colours::ARC_TAG, border).towards(&[-fwd, -side]));
        }
        if u.gun().is_some() {
            let masked = canister_masked_by(s, unit);
            if !masked.is_empty() {
                out.tags.push(Tag::new(mid, format!("no canister: {} in arc at short range (8.4)", masked.join(", ")), colours::ARC_TAG, border).towards(&[-fwd, side]));
            }
        }
    } else {
        let (_, r1, _, text) = &list[list.len() - 1];
        out.tags.push(Tag::new(mid + fwd * *r1, format!("{}: {text}", u.name), colours::ARC_TAG, border).towards(&[fwd, side]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Arm, GunSize, UnitType, Weapon};
    use crate::rules::otp::fire::range::artillery_band;
    use crate::ui::overlays::testing::{table, v};

    #[test]
    fn artillery_bands_meet_where_the_rules_change_band() {
        // OTP 8.4, medium guns: short 0-9", medium 10-18", long 19-24"; 9 1/4" is medium range.
        let guns = UnitInfo::battery("Guns", 0, GunSize::Medium, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        let b = bands(&guns);
        let edges: Vec<(f32, f32)> = b.iter().map(|x| (x.0, x.1)).collect();
        assert_eq!(edges, vec![(0.0, 9.0), (9.0, 18.0), (18.0, 24.0)]);
        assert_eq!(b.iter().map(|x| x.3.as_str()).collect::<Vec<_>>(), ["short 0–9\"", "medium 10–18\"", "long 19–24\""]);
        for (r0, r1, ..) in &b {
            let band = artillery_band(GunSize::Medium, (r0 + r1) / 2.0, 0.0);
            assert!(band.is_some());
        }
        assert_eq!(artillery_band(GunSize::Medium, 9.25, 0.0).map(|b| b.to_string()).as_deref(), Some("medium"));
    }

    #[test]
    fn skirmishers_get_an_arc_a_stand_and_columns_none() {
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 6, Formation::Skirmish, v(20.0, 10.0), 0.0);
        assert_eq!(arcs_of(&lights).len(), lights.stands.len());
        assert_eq!(bands(&lights)[0].1, 9.0, "rifles 9\" (8.3)");
        let column = UnitInfo::foot("Column", 0, 16, Formation::Column, v(20.0, 10.0), 0.0);
        assert!(arcs_of(&column).is_empty());
        let s = table(vec![column]);
        let sc = scene(&s, 0, true);
        assert!(sc.under.is_empty() && sc.tags[0].text.contains("8.13"));
        let line = UnitInfo::foot("Line", 0, 16, Formation::Line, v(20.0, 10.0), 0.0);
        let s = table(vec![line]);
        let sc = scene(&s, 0, true);
        assert!(sc.tags.iter().any(|t| t.text == "6\" musket"));
    }
}
