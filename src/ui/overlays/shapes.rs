//! The teaching overlays' shapes in table inches: fans, range bands, wheel arcs, side-step bands,
//! the flank and rear zones. Pure geometry, no rule decided here: the shapes draw what the
//! `table` module measures (a fan is the ground within `r` of a front edge and within 45° of its
//! ends, which is what `Arc::contains` plus `range` answer point by point).

use bevy::math::Vec2;

use crate::table::footprint::{Footprint, bearing_vector};
use crate::table::geom::{clip_half_plane, turn_about};
use crate::table::situation::UnitInfo;

/// Degrees between the points of a drawn arc.
const ARC_STEP: f32 = 3.0;

/// Points on a circle about `centre` from bearing `from` to bearing `to` (degrees, either way).
pub fn arc_points(centre: Vec2, r: f32, from: f32, to: f32, out: &mut Vec<Vec2>) {
    let span = to - from;
    let n = ((span.abs() / ARC_STEP).ceil() as usize).max(1);
    for k in 0..=n {
        push_distinct(out, centre + bearing_vector(from + span * k as f32 / n as f32) * r);
    }
}

fn push_distinct(out: &mut Vec<Vec2>, p: Vec2) {
    if out.last().is_none_or(|q| q.distance(p) > 1e-4) {
        out.push(p);
    }
}

/// The far edge of a fan at `r`: round the left end from 45° outward to straight ahead, across,
/// and round the right end to 45° outward (8.1 for an arc, 6.3 for an oblique move).
pub fn fan_edge(front_left: Vec2, front_right: Vec2, facing: f32, r: f32) -> Vec<Vec2> {
    let mut out = Vec::new();
    arc_points(front_left, r, facing - 45.0, facing, &mut out);
    arc_points(front_right, r, facing, facing + 45.0, &mut out);
    out
}

/// The ground in front of a front edge, within 45° of its ends and within `r` of the edge: a
/// firing arc out to a range (8.1, 8.3), or the reach of forward and oblique moves (6.1, 6.3).
pub fn fan(front_left: Vec2, front_right: Vec2, facing: f32, r: f32) -> Vec<Vec2> {
    if r <= 0.0 {
        return Vec::new();
    }
    let mut out = vec![front_left];
    for p in fan_edge(front_left, front_right, facing, r) {
        push_distinct(&mut out, p);
    }
    push_distinct(&mut out, front_right);
    out
}

/// The part of a fan between `r0` and `r1` inches from the edge (an artillery range band, 8.4).
pub fn fan_band(front_left: Vec2, front_right: Vec2, facing: f32, r0: f32, r1: f32) -> Vec<Vec2> {
    if r0 <= 0.0 {
        return fan(front_left, front_right, facing, r1);
    }
    let mut out = fan_edge(front_left, front_right, facing, r1);
    let mut inner = fan_edge(front_left, front_right, facing, r0);
    inner.reverse();
    out.extend(inner);
    out
}

/// The largest wheel (degrees, at most 180) whose swinging end moves no more than `allowance`
/// inches along its arc about the other end, `radius` away (6.3).
pub fn max_wheel(radius: f32, allowance: f32) -> f32 {
    if radius <= 1e-4 { 180.0 } else { (allowance / radius).to_degrees().min(180.0) }
}

/// Where the swinging corner `end` goes as the line wheels about `pivot` through `degrees`
/// (clockwise +), as a polyline.
pub fn wheel_path(pivot: Vec2, end: Vec2, degrees: f32) -> Vec<Vec2> {
    let n = ((degrees.abs() / ARC_STEP).ceil() as usize).max(1);
    (0..=n).map(|k| turn_about(end, pivot, degrees * k as f32 / n as f32)).collect()
}

/// The ground a unit's end can side-step into: `width` inches out from the edge `front`–`rear`
/// along `outward` (6.3: side steps are at half rate).
pub fn side_band(front: Vec2, rear: Vec2, outward: Vec2, width: f32) -> [Vec2; 4] {
    [front, front + outward * width, rear + outward * width, rear]
}

/// Keeps the part of a convex polygon inside every half-plane `(x - origin) . normal >= 0`.
pub fn clip_convex(poly: &[Vec2], planes: &[(Vec2, Vec2)]) -> Vec<Vec2> {
    let mut cur = poly.to_vec();
    let mut tmp = Vec::with_capacity(poly.len() + 4);
    for &(o, n) in planes {
        clip_half_plane(&cur, o, n, &mut tmp);
        std::mem::swap(&mut cur, &mut tmp);
        if cur.len() < 3 {
            return Vec::new();
        }
    }
    cur
}

/// The table's edge as inward half-planes (corners in order, either winding).
pub fn inside_planes(corners: &[Vec2; 4]) -> Vec<(Vec2, Vec2)> {
    let centre = corners.iter().copied().sum::<Vec2>() / 4.0;
    (0..4)
        .map(|i| {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            let mut n = (b - a).perp();
            if (centre - a).dot(n) < 0.0 {
                n = -n;
            }
            (a, n)
        })
        .collect()
}

/// 8.11 and 9.1 drawn: the lines straight out from a unit's front, and the ground behind them
/// split into the flank zones and the rear zone, out to `reach` inches and inside the table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Zones {
    /// Each front line as a segment across the drawn area (a bent line has two).
    pub lines: Vec<(Vec2, Vec2)>,
    /// Behind the front line and off to either side: an enemy here enfilades (8.11) and
    /// attacks in the flank (9.1). Left first, then right; convex.
    pub flanks: Vec<Vec<Vec2>>,
    /// Directly behind the unit (9.1 rear attack; enfilade too). Convex, maybe empty.
    pub rear: Vec<Vec2>,
    /// The unit's own frame: its middle stand's forward and right.
    pub forward: Vec2,
    pub right: Vec2,
}

/// The zones of `unit`, using the lines of `aspect::front_lines` and the frame of
/// `aspect::directly_behind` (the middle stand's), clipped to `table` (its four corners).
pub fn zones(unit: &UnitInfo, front_lines: &[(Vec2, Vec2)], reach: f32, table: &[Vec2; 4]) -> Zones {
    let Some(mid) = unit.stands.get(unit.stands.len() / 2) else { return Zones::default() };
    let (o, fwd, right) = (mid.footprint.centre, mid.footprint.forward(), mid.footprint.right());
    let corners: Vec<Vec2> = unit.stands.iter().flat_map(|s| s.footprint.corners()).collect();
    let (mut rear, mut left, mut rightmost, mut front) = (f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY);
    for c in &corners {
        let d = *c - o;
        rear = rear.min(d.dot(fwd));
        front = front.max(d.dot(fwd));
        left = left.min(d.dot(right));
        rightmost = rightmost.max(d.dot(right));
    }
    // A square in the unit's frame, `reach` beyond the unit every way.
    let (x0, x1, y0, y1) = (left - reach, rightmost + reach, rear - reach, front + reach);
    let at = |x: f32, y: f32| o + right * x + fwd * y;
    let square = [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)];
    let mut planes = inside_planes(table);
    // Behind every front line (8.11: behind the line drawn straight out from the front).
    planes.extend(front_lines.iter().map(|&(p, f)| (p, -f)));
    let behind = clip_convex(&square, &planes);
    let with = |extra: &[(Vec2, Vec2)]| if behind.is_empty() { Vec::new() } else { clip_convex(&behind, extra) };
    let flanks = vec![with(&[(at(left, 0.0), -right)]), with(&[(at(rightmost, 0.0), right)])].into_iter().filter(|p| p.len() >= 3).collect();
    let rear = with(&[(at(0.0, rear), -fwd), (at(left, 0.0), right), (at(rightmost, 0.0), -right)]);
    // Each front line drawn across the square, then cut to the table; a straight line's two end
    // stands give the same line twice.
    let mut distinct: Vec<(Vec2, Vec2)> = Vec::new();
    for &(p, f) in front_lines {
        if !distinct.iter().any(|&(q, g)| g.dot(f) > 1.0 - 1e-5 && (p - q).dot(g).abs() < 1e-3) {
            distinct.push((p, f));
        }
    }
    let lines = distinct
        .iter()
        .filter_map(|&(p, f)| {
            let across = Vec2::new(f.y, -f.x);
            let span = (x1 - x0).abs() + (y1 - y0).abs();
            clip_segment(p - across * span, p + across * span, &square).and_then(|(a, b)| clip_segment(a, b, table))
        })
        .collect();
    Zones { lines, flanks, rear, forward: fwd, right }
}

/// The part of segment ab inside a convex polygon (either winding), if any.
pub fn clip_segment(a: Vec2, b: Vec2, poly: &[Vec2]) -> Option<(Vec2, Vec2)> {
    let n = poly.len();
    if n < 3 {
        return None;
    }
    let centre = poly.iter().copied().sum::<Vec2>() / n as f32;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let d = b - a;
    for i in 0..n {
        let (p, q) = (poly[i], poly[(i + 1) % n]);
        let mut normal = (q - p).perp();
        if (centre - p).dot(normal) < 0.0 {
            normal = -normal;
        }
        let (num, den) = ((a - p).dot(normal), d.dot(normal));
        if den.abs() < 1e-9 {
            if num < 0.0 {
                return None;
            }
            continue;
        }
        let t = -num / den;
        if den > 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
        if t0 > t1 {
            return None;
        }
    }
    Some((a + d * t0, a + d * t1))
}

/// The middle of a group of stands.
pub fn centre_of(stands: &[Footprint]) -> Vec2 {
    if stands.is_empty() {
        return Vec2::ZERO;
    }
    stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::Formation;
    use crate::table::arc::Arc;
    use crate::table::aspect::{behind_front, directly_behind, front_lines};
    use crate::table::footprint::vector_bearing;
    use crate::table::geom::{point_segment_distance, signed_area};

    fn angle_between(a: f32, b: f32) -> f32 {
        let d = (a - b).rem_euclid(360.0);
        d.min(360.0 - d)
    }

    #[test]
    fn fan_edges_are_at_45_degrees_and_end_at_the_reach() {
        // A front from (16, 10) to (24, 10) facing 30°: the fan's sides leave the ends at 45°
        // either side of the facing, and every point of the far edge is `r` from the front.
        let facing = 30.0;
        let fl = Vec2::new(16.0, 10.0);
        let fr = fl + bearing_vector(facing + 90.0) * 8.0;
        let r = 6.0;
        let f = fan(fl, fr, facing, r);
        assert_eq!(f.first(), Some(&fl));
        assert_eq!(f.last(), Some(&fr));
        assert!(angle_between(vector_bearing(f[1] - fl), facing - 45.0) < 1e-3, "left side at facing - 45°");
        let before_last = f[f.len() - 2];
        assert!(angle_between(vector_bearing(before_last - fr), facing + 45.0) < 1e-3, "right side at facing + 45°");
        for p in &f[1..f.len() - 1] {
            assert!((point_segment_distance(*p, fl, fr) - r).abs() < 1e-3, "far edge is {r}\" from the front: {p:?}");
        }
        // Every point of the far edge is in the unit's arc (8.1), as the table module reckons it.
        let arc = Arc::new(fl, fr, facing);
        let mid = (fl + fr) / 2.0;
        assert!(f[1..f.len() - 1].iter().all(|&p| arc.contains(p.lerp(mid, 1e-3))));
        assert!(signed_area(&f).abs() > 8.0 * r, "a real area");
    }

    #[test]
    fn bands_are_rings_between_two_reaches() {
        let (fl, fr) = (Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0));
        let b = fan_band(fl, fr, 0.0, 9.0, 18.0);
        for p in &b {
            let d = point_segment_distance(*p, fl, fr);
            assert!((d - 9.0).abs() < 1e-3 || (d - 18.0).abs() < 1e-3, "{p:?} at {d}");
        }
        // Area of the ring = area of the outer fan less the inner one.
        let whole = signed_area(&fan(fl, fr, 0.0, 18.0)).abs();
        let inner = signed_area(&fan(fl, fr, 0.0, 9.0)).abs();
        assert!((signed_area(&b).abs() - (whole - inner)).abs() < 0.02 * whole);
    }

    #[test]
    fn wheels_spend_the_allowance_along_the_arc() {
        // 6.3: an 8" line with 6" to move wheels at most 6/8 radian (about 43°).
        let w = max_wheel(8.0, 6.0);
        assert!((w - (0.75f32).to_degrees()).abs() < 1e-3);
        assert_eq!(max_wheel(2.0, 10.0), 180.0, "a short front can about-turn and no more");
        let path = wheel_path(Vec2::ZERO, Vec2::new(8.0, 0.0), -w);
        let len: f32 = path.windows(2).map(|p| p[0].distance(p[1])).sum();
        assert!((len - 6.0).abs() < 0.02, "{len}");
        assert!(path.iter().all(|p| (p.length() - 8.0).abs() < 1e-3));
        assert!(path.last().unwrap().y > 0.0, "anticlockwise swings the right end forward (up)");
    }

    #[test]
    fn zones_agree_with_the_aspect_questions() {
        // A 16-figure line facing 20°: the flank zones' centres are behind the front line and
        // not directly behind; the rear zone's centre is directly behind (8.11, 9.1).
        let unit = UnitInfo::foot("Target", 1, 16, Formation::Line, Vec2::new(30.0, 24.0), 20.0);
        let table = [Vec2::ZERO, Vec2::new(72.0, 0.0), Vec2::new(72.0, 48.0), Vec2::new(0.0, 48.0)];
        let z = zones(&unit, &front_lines(&unit), 12.0, &table);
        assert_eq!(z.flanks.len(), 2);
        assert_eq!(z.lines.len(), 1);
        let centroid = |p: &[Vec2]| p.iter().copied().sum::<Vec2>() / p.len() as f32;
        for f in &z.flanks {
            let c = centroid(f);
            assert!(behind_front(&unit, c) && !directly_behind(&unit, c), "{c:?}");
            assert!(f.iter().all(|&p| behind_front(&unit, p + (centroid(f) - p) * 1e-3)));
        }
        let c = centroid(&z.rear);
        assert!(directly_behind(&unit, c), "{c:?}");
        // The front line runs along the front edge.
        let (a, b) = z.lines[0];
        let front = unit.stands[0].footprint.front_centre();
        assert!(point_segment_distance(front, a, b) < 1e-3);
        // Near a table edge the zones stop at the edge.
        let low = UnitInfo::foot("Low", 1, 16, Formation::Line, Vec2::new(30.0, 4.0), 0.0);
        let z = zones(&low, &front_lines(&low), 12.0, &table);
        assert!(z.rear.iter().chain(z.flanks.iter().flatten()).all(|p| p.y >= -1e-3));
    }

    #[test]
    fn segments_clip_to_convex_polygons() {
        let square = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0), Vec2::new(0.0, 10.0)];
        let (a, b) = clip_segment(Vec2::new(-5.0, 5.0), Vec2::new(15.0, 5.0), &square).unwrap();
        assert!((a - Vec2::new(0.0, 5.0)).length() < 1e-4 && (b - Vec2::new(10.0, 5.0)).length() < 1e-4);
        assert!(clip_segment(Vec2::new(-5.0, 15.0), Vec2::new(15.0, 15.0), &square).is_none());
        let band = side_band(Vec2::ZERO, Vec2::new(0.0, -1.0), Vec2::new(-1.0, 0.0), 3.0);
        assert!((signed_area(&band).abs() - 3.0).abs() < 1e-4);
    }
}
