//! Enfilade and flanks overlay (E): the line drawn straight out from the selected unit's front
//! (8.11; the end stands' fronts for a bent line, the head for a column), and the ground behind
//! it: the flank zones (enfilade fire, 8.11; flank attacks, 9.1) and the rear zone directly
//! behind (rear attacks, 9.1). Enemy units already standing there are named.

use bevy::math::Vec2;

use bevy_egui::egui;

use super::scene::{Prim, Scene, Tag, colours};
use crate::rules::engine::Topic;
use super::shapes::zones;
use crate::table::aspect::{AttackZone, attack_zone, front_lines};
use crate::table::range::unit_distance;
use crate::table::situation::Situation;

/// How far the zones are drawn beyond the unit, inches: the longest musket and rifle ranges and
/// a charge's reach are well inside it.
pub(crate) const REACH: f32 = 15.0;

/// `words`: the rule set's words for the tags (`Engine::words`); a tag it has none for is left out.
pub(crate) fn scene(s: &Situation, unit: usize, words: &dyn Fn(Topic) -> Option<String>) -> Scene {
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
    let mut tag = |topic: Topic, at: Vec2, strong: bool, colour: egui::Color32, towards: &[Vec2]| {
        if let Some(text) = words(topic) {
            let t = Tag::new(at, text, colours::ZONE_TAG, colour).towards(towards);
            out.tags.push(if strong { t.bold() } else { t });
        }
    };
    if !z.flanks.is_empty() {
        tag(Topic::FlankTag, o + right * (left - 5.0) + fwd * (rear - 2.5), true, border, &[-right, -fwd, fwd]);
        tag(Topic::FlankTagShort, o + right * (rightmost + 5.0) + fwd * (rear - 2.5), false, border, &[right, -fwd, fwd]);
    }
    if !z.rear.is_empty() {
        tag(Topic::RearTag, o + fwd * (rear - 4.0), true, border, &[-fwd, right, -right]);
    }
    if let Some(&(a, b)) = z.lines.first() {
        // On the line, a few inches beyond the unit's right end.
        let along = (b - a).normalize_or_zero();
        let along = if along.dot(right) >= 0.0 { along } else { -along };
        let on_line = a + along * (o - a).dot(along);
        tag(Topic::LineTag, on_line + along * (rightmost + 6.0), false, border, &[fwd, -fwd]);
    }
    let front = lines.first().map(|l| l.0).unwrap_or(o);
    tag(Topic::FrontTag, front + fwd * 3.0, false, border.gamma_multiply(0.6), &[fwd, right]);
    let cite = words(Topic::EnemyInZone).filter(|c| !c.is_empty()).map(|c| format!(" ({c})")).unwrap_or_default();
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
        out.tags.push(Tag::new(at, format!("⚑ {} is {what}{cite}", enemy.name), colours::ZONE_TAG, border).bold());
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
        let engine = crate::rules::registry::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let sc = scene(&s, 0, &|t| engine.words(t));
        let fills: Vec<&Vec<Vec2>> = sc.under.iter().filter_map(|p| if let Prim::Fill { points, .. } = p { Some(points) } else { None }).collect();
        assert_eq!(fills.len(), 3, "two flanks and the rear");
        for f in fills {
            let c = f.iter().copied().sum::<Vec2>() / f.len() as f32;
            assert!(behind_front(&target, c), "{c:?}");
        }
        assert!(sc.tags.iter().any(|t| t.text.contains("Flanker is on my flank")), "{:?}", sc.tags);
        assert!(sc.tags.iter().any(|t| t.text.starts_with("stand here and you enfilade me (8.11)")));
        // A rule set without enfilade words: the zones, but no OTP tags on them.
        let plain = scene(&s, 0, &crate::rules::engine::plain_words);
        assert!(plain.tags.iter().all(|t| !t.text.contains("8.11") && !t.text.contains("enfilade")), "{:?}", plain.tags);
        assert!(plain.tags.iter().any(|t| t.text == "⚑ Flanker is on my flank"), "{:?}", plain.tags);
    }
}
