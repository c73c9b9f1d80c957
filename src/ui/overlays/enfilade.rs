//! Enfilade and flanks overlay (E): the line drawn straight out from the selected unit's front
//! (8.11; the end stands' fronts for a bent line, the head for a column), and the ground behind
//! it: the flank zones (enfilade fire, 8.11; flank attacks, 9.1) and the rear zone directly
//! behind (rear attacks, 9.1). Enemy units already standing there are named.

use bevy::math::Vec2;

use super::scene::{Prim, Scene, Tag, colours};
use super::shapes::zones;
use crate::table::aspect::{AttackZone, attack_zone, front_lines};
use crate::table::range::unit_distance;
use crate::table::situation::Situation;

/// How far the zones are drawn beyond the unit, inches: the longest musket and rifle ranges and
/// a charge's reach are well inside it.
pub(crate) const REACH: f32 = 15.0;

pub(crate) fn scene(s: &Situation, unit: usize) -> Scene {
    let mut out = Scene::default();
    let u = s.unit(unit);
    let Some(mid) = u.stands.get(u.stands.len() / 2) else { return out };
    let lines = front_lines(u);
    let z = zones(u, &lines, REACH, &s.edge());
    let border = colours::ZONE_LINE;
    for f in &z.flanks {
        out.under.push(Prim::Fill { points: f.clone(), colour: colours::ZONE_FLANK });
        out.under.push(Prim::Hatch { points: f.clone(), colour: colours::ZONE_HATCH, spacing: 11.0, angle: 45.0 });
    }
    if !z.rear.is_empty() {
        out.under.push(Prim::Fill { points: z.rear.clone(), colour: colours::ZONE_REAR });
        out.under.push(Prim::Hatch { points: z.rear.clone(), colour: colours::ZONE_HATCH, spacing: 11.0, angle: 45.0 });
        out.under.push(Prim::Hatch { points: z.rear.clone(), colour: colours::ZONE_HATCH, spacing: 11.0, angle: -45.0 });
        out.under.push(Prim::Line { points: z.rear.clone(), colour: border.gamma_multiply(0.7), width: 1.0, dash: Some(4.0), closed: true, casing: false });
    }
    for &(a, b) in &z.lines {
        out.under.push(Prim::Line { points: vec![a, b], colour: border, width: 2.5, dash: Some(9.0), closed: false, casing: false });
    }
    // Where the tags go: a few inches out from each end of the unit, just behind the front line,
    // and a few inches straight behind it.
    let (o, fwd, right) = (mid.footprint.centre, z.forward, z.right);
    let corners: Vec<Vec2> = u.stands.iter().flat_map(|s| s.footprint.corners()).collect();
    let along = |v: Vec2| corners.iter().map(|c| (*c - o).dot(v)).fold(f32::NEG_INFINITY, f32::max);
    let (left, rightmost, rear) = (-along(-right), along(right), -along(-fwd));
    let text_flank = "stand here and you enfilade me (8.11)\nflank attack from here: no closing roll, ×2 (9.1)";
    if !z.flanks.is_empty() {
        out.tags.push(Tag::new(o + right * (left - 5.0) + fwd * (rear - 2.5), text_flank, colours::ZONE_TAG, border).bold().towards(&[-right, -fwd, fwd]));
        out.tags.push(Tag::new(o + right * (rightmost + 5.0) + fwd * (rear - 2.5), "enfilade (8.11) · flank attack (9.1)", colours::ZONE_TAG, border).towards(&[right, -fwd, fwd]));
    }
    if !z.rear.is_empty() {
        out.tags.push(Tag::new(o + fwd * (rear - 4.0), "rear: attack ×3, no closing roll (9.1)\nand enfilade (8.11)", colours::ZONE_TAG, border).bold().towards(&[-fwd, right, -right]));
    }
    if let Some(&(a, b)) = z.lines.first() {
        // On the line, a few inches beyond the unit's right end.
        let along = (b - a).normalize_or_zero();
        let along = if along.dot(right) >= 0.0 { along } else { -along };
        let on_line = a + along * (o - a).dot(along);
        out.tags.push(Tag::new(on_line + along * (rightmost + 6.0), "front line drawn straight out (8.11)", colours::ZONE_TAG, border).towards(&[fwd, -fwd]));
    }
    let front = lines.first().map(|l| l.0).unwrap_or(o);
    out.tags.push(Tag::new(front + fwd * 3.0, "in front: no enfilade; closing needs a roll (9.1)", colours::ZONE_TAG, border.gamma_multiply(0.6)).towards(&[fwd, right]));
    // Enemies already behind the line.
    for (e, enemy) in s.units().iter().enumerate() {
        if enemy.side == u.side || enemy.stands.is_empty() || unit_distance(s, e, unit) > REACH {
            continue;
        }
        let zone = attack_zone(s, e, unit);
        if zone == AttackZone::Front {
            continue;
        }
        let at = enemy.stands.iter().map(|s| s.footprint.centre).sum::<Vec2>() / enemy.stands.len() as f32;
        let what = if zone == AttackZone::Rear { "in my rear" } else { "on my flank" };
        out.tags.push(Tag::new(at, format!("⚑ {} is {what} (9.1, 8.11)", enemy.name), colours::ZONE_TAG, border).bold());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::Formation;
    use crate::table::aspect::behind_front;
    use crate::table::situation::UnitInfo;
    use crate::ui::overlays::testing::{table, v};

    #[test]
    fn zones_are_drawn_behind_the_front_line_and_enemies_there_are_named() {
        let target = UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 20.0), 0.0);
        let flanker = UnitInfo::foot("Flanker", 0, 8, Formation::Line, v(32.0, 18.0), 270.0);
        let s = table(vec![target.clone(), flanker]);
        let sc = scene(&s, 0);
        let fills: Vec<&Vec<Vec2>> = sc.under.iter().filter_map(|p| if let Prim::Fill { points, .. } = p { Some(points) } else { None }).collect();
        assert_eq!(fills.len(), 3, "two flanks and the rear");
        for f in fills {
            let c = f.iter().copied().sum::<Vec2>() / f.len() as f32;
            assert!(behind_front(&target, c), "{c:?}");
        }
        assert!(sc.tags.iter().any(|t| t.text.contains("Flanker is on my flank")), "{:?}", sc.tags);
        assert!(sc.tags.iter().any(|t| t.text.starts_with("stand here and you enfilade me (8.11)")));
    }
}
