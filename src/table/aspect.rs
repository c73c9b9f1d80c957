//! Which side of a unit one is on: enfilade (OTP 8.11) and the flank and rear attack zones
//! for closure (9.1).
//!
//! Both rules use "a line drawn straight out from the target unit's front": the infinite line
//! through the front edge. Behind it is the flank-or-rear side. For a bent line (6.4) 8.11 uses
//! the end stand's front; we use both end stands' fronts and call a point behind only when it
//! is behind both, so a refused flank faces what it was refused against. A column's front is
//! its head stand.

use bevy::math::Vec2;
use serde::Serialize;

use super::geom::EPS;
use super::situation::{Situation, UnitInfo};

/// The lines drawn straight out from a unit's front: (a point on the line, the unit's forward).
pub fn front_lines(unit: &UnitInfo) -> Vec<(Vec2, Vec2)> {
    let line = |i: usize| {
        let f = &unit.stands[i].footprint;
        (f.front_centre(), f.forward())
    };
    match unit.stands.len() {
        0 => Vec::new(),
        1 => vec![line(0)],
        _ if unit.in_column() => vec![line(0)],
        n => vec![line(0), line(n - 1)],
    }
}

/// 8.11, 9.1: true when `p` lies behind the line drawn straight out from the unit's front.
pub fn behind_front(unit: &UnitInfo, p: Vec2) -> bool {
    behind_front_by(unit, p, EPS)
}

/// Behind every front line by more than `margin` (a negative margin lets `p` lie on it).
fn behind_front_by(unit: &UnitInfo, p: Vec2, margin: f32) -> bool {
    behind_lines_by(&front_lines(unit), p, margin)
}

fn behind_lines_by(lines: &[(Vec2, Vec2)], p: Vec2, margin: f32) -> bool {
    !lines.is_empty() && lines.iter().all(|&(o, fwd)| (p - o).dot(fwd) < -margin)
}

/// [`behind_front`] given the unit's [`front_lines`] (worked out once for many points).
pub fn behind_lines(lines: &[(Vec2, Vec2)], p: Vec2) -> bool {
    behind_lines_by(lines, p, EPS)
}

/// 9.1: true when `p` is directly behind the unit: beyond its rear edge and between the lines
/// that extend its two side edges straight back. The unit's frame is its middle stand's, so a
/// bent line is judged by its centre.
pub fn directly_behind(unit: &UnitInfo, p: Vec2) -> bool {
    directly_behind_by(unit, p, EPS)
}

/// As `directly_behind`, inside those lines by more than `margin` (negative: on them is inside).
fn directly_behind_by(unit: &UnitInfo, p: Vec2, margin: f32) -> bool {
    let Some(mid) = unit.stands.get(unit.stands.len() / 2) else { return false };
    let (o, fwd, right) = (mid.footprint.centre, mid.footprint.forward(), mid.footprint.right());
    let corners = unit.stands.iter().flat_map(|s| s.footprint.corners());
    let (rear, left, rightmost) = corners.fold((f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY), |(r, l, h), c| {
        let d = c - o;
        (r.min(d.dot(fwd)), l.min(d.dot(right)), h.max(d.dot(right)))
    });
    let d = p - o;
    d.dot(fwd) < rear - margin && d.dot(right) > left + margin && d.dot(right) < rightmost - margin
}

/// 8.11: a firing stand at `p` fires on the target's enfilade. (6.13: units deployed in a town
/// cannot be enfiladed; deployment is a formation the rules engine keeps, not geometry.)
pub fn enfilades(target: &UnitInfo, p: Vec2) -> bool {
    behind_front(target, p)
}

/// 8.11 for a whole firing unit: every one of the given stands (the ones that bear, say) is
/// behind the target's front line.
pub fn unit_enfilades(s: &Situation, firer: usize, stands: impl IntoIterator<Item = usize>, target: usize) -> bool {
    let (f, t) = (s.unit(firer), s.unit(target));
    let lines = front_lines(t);
    let mut stands = stands.into_iter().peekable();
    stands.peek().is_some() && stands.all(|i| behind_lines(&lines, f.stands[i].footprint.centre))
}

/// 9.1: where an attacker starts its move relative to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum AttackZone {
    Front,
    /// Behind the line drawn straight out along the target's front edge: closes automatically,
    /// x2 in melee (9.14).
    Flank,
    /// Directly behind the target: closes automatically, x3 in melee (9.14).
    Rear,
}

/// 9.1: the attack zone of `attacker` against `target`, judged from where the attacker starts:
/// all of it (every corner of every stand; on the line counts as behind) must be behind the
/// line drawn straight out along the target's front for a flank attack, so a unit with any part
/// in front of that line attacks the front; and all of it directly behind the target for a rear
/// attack. Wheeling round later does not change it (9.1).
pub fn attack_zone(s: &Situation, attacker: usize, target: usize) -> AttackZone {
    let (a, t) = (s.unit(attacker), s.unit(target));
    let corners: Vec<Vec2> = a.stands.iter().flat_map(|st| st.footprint.corners()).collect();
    if corners.is_empty() || !corners.iter().all(|&p| behind_front_by(t, p, -EPS)) {
        AttackZone::Front
    } else if corners.iter().all(|&p| directly_behind_by(t, p, -EPS)) {
        AttackZone::Rear
    } else {
        AttackZone::Flank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Formation, Table};

    fn table(units: Vec<UnitInfo>) -> Situation {
        Situation::new(Table { width: 48.0, depth: 48.0 }, Vec::new(), units)
    }

    /// A 16-figure line facing north with its front from (16, 20) to (24, 20).
    fn target() -> UnitInfo {
        UnitInfo::foot("Target", 1, 16, Formation::Line, Vec2::new(20.0, 20.0), 0.0)
    }

    #[test]
    fn enfilade_is_behind_the_front_line() {
        // OTP 8.11 enfilade: behind a line drawn straight out from the target's front.
        let t = target();
        assert!(!enfilades(&t, Vec2::new(20.0, 25.0)), "straight ahead");
        assert!(!enfilades(&t, Vec2::new(40.0, 20.5)), "off to the side but in front of the line");
        assert!(enfilades(&t, Vec2::new(40.0, 19.5)), "off to the side and behind the line: the flank");
        assert!(enfilades(&t, Vec2::new(20.0, 10.0)), "behind: the rear");
    }

    #[test]
    fn bent_line_uses_its_end_stands() {
        // OTP 8.11: "or front of end stand if unit is in a bent line". Refuse the right-hand
        // stand to face east: a firer east of it, level with the line, is in front of that
        // stand and does not enfilade; one south-west, behind both ends, does.
        let mut t = target();
        let last = t.stands.last_mut().unwrap();
        last.footprint.facing = 90.0;
        last.footprint.centre = Vec2::new(24.0 + 0.375, 19.0);
        assert!(t.is_bent());
        assert!(!enfilades(&t, Vec2::new(30.0, 19.5)));
        assert!(enfilades(&t, Vec2::new(10.0, 15.0)));
        assert!(!enfilades(&t, Vec2::new(20.0, 25.0)));
    }

    #[test]
    fn closure_zones_front_flank_rear() {
        // OTP 9.1: flank = starts behind the line along the front edge; rear = directly behind.
        let t = target();
        let attacker = |at: Vec2, facing: f32| UnitInfo::foot("Attacker", 0, 8, Formation::Line, at, facing);
        let zone = |a: UnitInfo| attack_zone(&table(vec![t.clone(), a]), 1, 0);
        assert_eq!(zone(attacker(Vec2::new(20.0, 26.0), 180.0)), AttackZone::Front);
        assert_eq!(zone(attacker(Vec2::new(32.0, 18.0), 270.0)), AttackZone::Flank, "east of the line, behind its front");
        assert_eq!(zone(attacker(Vec2::new(20.0, 12.0), 0.0)), AttackZone::Rear);
        // Half of it behind the rear, half out to the side: a flank attack, not a rear one.
        assert_eq!(zone(attacker(Vec2::new(25.0, 12.0), 0.0)), AttackZone::Flank);
        // Straddling the line drawn out from the front is not behind it.
        assert_eq!(zone(attacker(Vec2::new(32.0, 20.75), 270.0)), AttackZone::Front);
    }

    #[test]
    fn a_charger_with_any_part_in_front_of_the_line_attacks_the_front() {
        // OTP 9.1: "must start its move from behind a line drawn straight out along the target
        // unit's front edge". An 8-figure line facing west, 4" long north-south, east of the
        // target: both stand centres 0.2" behind the front line (y = 20) but its north end 0.8"
        // in front of it: not behind the line, a front attack. Moved 0.9" south, the whole unit
        // is behind the line (its end 0.1" behind): a flank attack.
        let t = target();
        let attacker = |y: f32| UnitInfo::foot("Attacker", 0, 8, Formation::Line, Vec2::new(32.0, y), 270.0);
        let zone = |a: UnitInfo| attack_zone(&table(vec![t.clone(), a]), 1, 0);
        let straddling = attacker(18.8);
        assert!(straddling.stands.iter().all(|st| behind_front(&t, st.footprint.centre)), "every stand centre is behind the line");
        assert_eq!(zone(straddling), AttackZone::Front);
        assert_eq!(zone(attacker(17.9)), AttackZone::Flank);
        // Rear: directly behind the target, all of it; one end beyond the target's side edge
        // (x = 24) makes it a flank attack.
        let behind = |x: f32| UnitInfo::foot("Attacker", 0, 8, Formation::Line, Vec2::new(x, 12.0), 0.0);
        assert_eq!(zone(behind(21.9)), AttackZone::Rear);
        assert_eq!(zone(behind(22.1)), AttackZone::Flank);
    }

    #[test]
    fn column_front_is_its_head() {
        // OTP 9.1 with a march column (5.1): the head stand's front is the front.
        let c = UnitInfo::foot("Column", 1, 16, Formation::Column, Vec2::new(20.0, 20.0), 0.0);
        assert!(!behind_front(&c, Vec2::new(25.0, 20.5)));
        assert!(behind_front(&c, Vec2::new(25.0, 19.0)), "beside the column is its flank");
        assert!(directly_behind(&c, Vec2::new(20.0, 16.0)));
        assert!(!directly_behind(&c, Vec2::new(22.0, 16.0)), "a 2\" column is only 2\" wide");
    }
}
