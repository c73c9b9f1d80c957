//! Plane geometry in inches for the table's questions: convex stands, terrain areas, sight lines.
//!
//! Everything here is exact up to `EPS`, a thousandth of an inch: far below anything a player
//! can measure, and far above f32 rounding on a 12-foot table, so that turning or shifting the
//! whole table never changes an answer.

use bevy::math::Vec2;

use super::footprint::Footprint;
use crate::picture::inside;

/// A thousandth of an inch: how much counts as "touching" rather than "crossing".
pub const EPS: f32 = 1e-3;

/// An axis-aligned box, for cheap rejection before exact tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec2,
    pub max: Vec2,
}

impl Aabb {
    pub fn of(points: &[Vec2]) -> Self {
        let (min, max) = points
            .iter()
            .fold((Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        Aabb { min, max }
    }
    pub fn grow(self, by: f32) -> Self {
        Aabb { min: self.min - Vec2::splat(by), max: self.max + Vec2::splat(by) }
    }
    pub fn contains(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x && o.min.x <= self.max.x && self.min.y <= o.max.y && o.min.y <= self.max.y
    }
    /// The squared gap between two boxes (0 when they touch or overlap): nothing in one is
    /// nearer anything in the other.
    pub fn gap_squared(&self, o: &Aabb) -> f32 {
        (self.min - o.max).max(o.min - self.max).max(Vec2::ZERO).length_squared()
    }
}

pub fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 <= f32::EPSILON {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
}

pub fn point_segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    p.distance(closest_on_segment(p, a, b))
}

/// Distance from `p` to an open polyline.
pub fn point_polyline_distance(p: Vec2, path: &[Vec2]) -> f32 {
    match path {
        [] => f32::INFINITY,
        [only] => p.distance(*only),
        _ => path.windows(2).map(|w| point_segment_distance(p, w[0], w[1])).fold(f32::INFINITY, f32::min),
    }
}

/// Where segment ab crosses segment cd, as the fraction of the way from a to b.
pub fn segment_crossing(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> Option<f32> {
    let r = b - a;
    let s = d - c;
    let denom = r.perp_dot(s);
    if denom.abs() <= f32::EPSILON {
        return None; // parallel: a grazing run along an edge crosses nothing
    }
    let t = (c - a).perp_dot(s) / denom;
    let u = (c - a).perp_dot(r) / denom;
    ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then_some(t)
}

/// True when segment ab crosses any leg of the polyline.
pub fn crosses_polyline(a: Vec2, b: Vec2, path: &[Vec2]) -> bool {
    path.windows(2).any(|w| segment_crossing(a, b, w[0], w[1]).is_some())
}

fn edges(poly: &[Vec2]) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    (0..poly.len()).map(move |i| (poly[i], poly[(i + 1) % poly.len()]))
}

fn projection(poly: &[Vec2], axis: Vec2) -> (f32, f32) {
    poly.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
        let d = p.dot(axis);
        (lo.min(d), hi.max(d))
    })
}

/// How far two convex polygons overlap along the axis where they overlap least (separating
/// axis theorem): positive when they overlap by that much, zero when touching, negative when
/// apart (then at least that far apart).
pub fn convex_overlap_depth(a: &[Vec2], b: &[Vec2]) -> f32 {
    let mut depth = f32::INFINITY;
    for (p, q) in edges(a).chain(edges(b)) {
        let axis = (q - p).perp().normalize_or_zero();
        if axis == Vec2::ZERO {
            continue;
        }
        let (a0, a1) = projection(a, axis);
        let (b0, b1) = projection(b, axis);
        depth = depth.min(a1.min(b1) - a0.max(b0));
        if depth < 0.0 {
            return depth;
        }
    }
    depth
}

/// Edge-to-edge distance between two convex polygons (0 when they touch or overlap).
pub fn convex_distance(a: &[Vec2], b: &[Vec2]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return f32::INFINITY;
    }
    if convex_overlap_depth(a, b) >= 0.0 {
        return 0.0;
    }
    apart_distance(a, b)
}

/// [`convex_distance`] of two convex polygons already known to be apart (their boxes more than
/// `EPS` apart, say, which the overlap test's rounding cannot contradict): the same number,
/// without the overlap test.
pub fn apart_distance(a: &[Vec2], b: &[Vec2]) -> f32 {
    // Squared lengths, one root at the end: the root is monotonic and correctly rounded, so this
    // is the same number as the least of the distances, for a fraction of the work. A corner
    // farther from the other polygon's box than the least so far (a thousandth to spare, and a
    // millionth of a square inch for corners almost touching, far above rounding on the table)
    // cannot come nearer: its edges are not measured, and the least is the same.
    let one_way = |from: &[Vec2], to: &[Vec2], best: f32| {
        let bbox = Aabb::of(to);
        from.iter().fold(best, |best, &p| {
            if bbox.gap_squared(&Aabb { min: p, max: p }) > best * 1.001 + 1e-6 {
                return best;
            }
            edges(to).map(|(c, d)| p.distance_squared(closest_on_segment(p, c, d))).fold(best, f32::min)
        })
    };
    one_way(b, a, one_way(a, b, f32::INFINITY)).sqrt()
}

/// Keeps the part of a convex polygon where `(x - origin) . normal >= 0` (Sutherland–Hodgman).
pub fn clip_half_plane(poly: &[Vec2], origin: Vec2, normal: Vec2, out: &mut Vec<Vec2>) {
    out.clear();
    for (p, q) in edges(poly) {
        let dp = (p - origin).dot(normal);
        let dq = (q - origin).dot(normal);
        if dp >= 0.0 {
            out.push(p);
        }
        if (dp >= 0.0) != (dq >= 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
}

/// Area of a simple polygon (positive when counter-clockwise). Measured from its first corner,
/// so that a sliver far from the table's origin does not drown in rounding.
pub fn signed_area(poly: &[Vec2]) -> f32 {
    let Some(&o) = poly.first() else { return 0.0 };
    edges(poly).map(|(p, q)| (p - o).perp_dot(q - o)).sum::<f32>() / 2.0
}

/// Convex hull, counter-clockwise (Andrew's monotone chain).
pub fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let half = |chain: &mut dyn Iterator<Item = Vec2>| {
        let mut h: Vec<Vec2> = Vec::new();
        for p in chain {
            while h.len() >= 2 && (h[h.len() - 1] - h[h.len() - 2]).perp_dot(p - h[h.len() - 2]) <= 0.0 {
                h.pop();
            }
            h.push(p);
        }
        h.pop();
        h
    };
    let mut hull = half(&mut pts.iter().copied());
    hull.extend(half(&mut pts.iter().rev().copied()));
    hull
}

/// True when `p` lies inside (or on) a convex polygon of either winding.
pub fn convex_contains(poly: &[Vec2], p: Vec2) -> bool {
    let (mut pos, mut neg) = (false, false);
    for (a, b) in edges(poly) {
        let c = (b - a).perp_dot(p - a);
        pos |= c > EPS;
        neg |= c < -EPS;
    }
    !(pos && neg)
}

/// True when a convex polygon and a simple (possibly concave) polygon share any ground.
pub fn convex_touches_polygon(convex: &[Vec2], poly: &[Vec2]) -> bool {
    convex.iter().any(|&p| inside(poly, p))
        || poly.iter().any(|&p| convex_contains(convex, p))
        || edges(convex).any(|(a, b)| edges(poly).any(|(c, d)| segment_crossing(a, b, c, d).is_some()))
}

/// True when a convex polygon comes within `reach` of a polyline (a stream or road of that half-width).
pub fn convex_near_polyline(convex: &[Vec2], path: &[Vec2], reach: f32) -> bool {
    if path.iter().any(|&p| convex_contains(convex, p)) {
        return true;
    }
    path.windows(2).any(|w| {
        convex.iter().any(|&p| point_segment_distance(p, w[0], w[1]) <= reach)
            || edges(convex).any(|(a, b)| {
                segment_crossing(a, b, w[0], w[1]).is_some()
                    || point_segment_distance(w[0], a, b) <= reach
                    || point_segment_distance(w[1], a, b) <= reach
            })
    })
}

/// The stretches of segment ab inside a simple polygon, as fractions `(t0, t1)` of the way from
/// a to b, in order. `cuts` is scratch space, so the eligibility sweep allocates nothing.
pub fn polygon_intervals(poly: &[Vec2], a: Vec2, b: Vec2, cuts: &mut Vec<f32>, out: &mut Vec<(f32, f32)>) {
    out.clear();
    cuts.clear();
    cuts.push(0.0);
    cuts.extend(edges(poly).filter_map(|(c, d)| segment_crossing(a, b, c, d)));
    cuts.push(1.0);
    cuts.sort_by(f32::total_cmp);
    for w in cuts.windows(2) {
        if w[1] - w[0] <= f32::EPSILON || !inside(poly, a.lerp(b, (w[0] + w[1]) / 2.0)) {
            continue;
        }
        match out.last_mut() {
            Some(last) if (last.1 - w[0]).abs() <= f32::EPSILON => last.1 = w[1],
            _ => out.push((w[0], w[1])),
        }
    }
}

/// The stretch of segment ab inside a stand (slab clipping in the stand's own frame).
pub fn footprint_interval(f: &Footprint, right: Vec2, forward: Vec2, a: Vec2, b: Vec2) -> Option<(f32, f32)> {
    let (p, d) = (a - f.centre, b - a);
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (axis, half) in [(right, f.frontage / 2.0), (forward, f.depth / 2.0)] {
        let (s, v) = (p.dot(axis), d.dot(axis));
        if v.abs() <= f32::EPSILON {
            if s.abs() > half {
                return None;
            }
            continue;
        }
        let (mut lo, mut hi) = ((-half - s) / v, (half - s) / v);
        if lo > hi {
            std::mem::swap(&mut lo, &mut hi);
        }
        t0 = t0.max(lo);
        t1 = t1.min(hi);
        if t0 > t1 {
            return None;
        }
    }
    Some((t0, t1))
}

/// Rotates `p` about `pivot` clockwise by `degrees`, the way a bearing turns.
pub fn turn_about(p: Vec2, pivot: Vec2, degrees: f32) -> Vec2 {
    turn_by(p, pivot, degrees.to_radians().sin_cos())
}

/// As [`turn_about`], given the sine and cosine of the turn (for many points turned alike).
pub fn turn_by(p: Vec2, pivot: Vec2, (s, c): (f32, f32)) -> Vec2 {
    let d = p - pivot;
    pivot + Vec2::new(d.x * c + d.y * s, -d.x * s + d.y * c)
}

pub fn polyline_length(path: &[Vec2]) -> f32 {
    path.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// The point `s` inches along a polyline (clamped to its ends).
pub fn point_along(path: &[Vec2], s: f32) -> Vec2 {
    let mut left = s.max(0.0);
    for w in path.windows(2) {
        let len = w[0].distance(w[1]);
        if left <= len && len > 0.0 {
            return w[0].lerp(w[1], left / len);
        }
        left -= len;
    }
    *path.last().unwrap_or(&Vec2::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(c: Vec2, h: f32) -> Vec<Vec2> {
        vec![c + Vec2::new(h, h), c + Vec2::new(-h, h), c + Vec2::new(-h, -h), c + Vec2::new(h, -h)]
    }

    #[test]
    fn convex_distance_agrees_with_parry() {
        let a = Footprint { centre: Vec2::new(1.0, 2.0), facing: 30.0, frontage: 2.0, depth: 0.75 };
        for (x, y, facing) in [(5.0, 3.0, 80.0), (1.5, 6.0, 200.0), (-4.0, -1.0, 10.0), (2.0, 2.2, 0.0)] {
            let b = Footprint { centre: Vec2::new(x, y), facing, frontage: 1.5, depth: 1.5 };
            let ours = convex_distance(&a.corners(), &b.corners());
            assert!((ours - a.distance(&b)).abs() < 1e-3, "{ours} vs {}", a.distance(&b));
        }
    }

    #[test]
    fn overlap_depth_touching_and_apart() {
        let a = square(Vec2::ZERO, 1.0);
        assert!((convex_overlap_depth(&a, &square(Vec2::new(2.0, 0.0), 1.0))).abs() < 1e-6);
        assert!((convex_overlap_depth(&a, &square(Vec2::new(1.5, 0.5), 1.0)) - 0.5).abs() < 1e-6);
        assert!(convex_overlap_depth(&a, &square(Vec2::new(3.0, 0.0), 1.0)) < 0.0);
    }

    #[test]
    fn intervals_through_a_concave_polygon() {
        // A U shape: the line y = 3 passes through both arms.
        let u = [Vec2::new(0.0, 0.0), Vec2::new(6.0, 0.0), Vec2::new(6.0, 4.0), Vec2::new(4.0, 4.0), Vec2::new(4.0, 2.0), Vec2::new(2.0, 2.0), Vec2::new(2.0, 4.0), Vec2::new(0.0, 4.0)];
        let (mut cuts, mut out) = (Vec::new(), Vec::new());
        polygon_intervals(&u, Vec2::new(-1.0, 3.0), Vec2::new(7.0, 3.0), &mut cuts, &mut out);
        let inches: Vec<f32> = out.iter().map(|(a, b)| (b - a) * 8.0).collect();
        assert_eq!(out.len(), 2);
        assert!(inches.iter().all(|l| (l - 2.0).abs() < 1e-4), "{inches:?}");
    }

    #[test]
    fn hull_and_clip() {
        let h = convex_hull(&[Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ONE, Vec2::splat(0.5)]);
        assert_eq!(h.len(), 4);
        assert!((signed_area(&h) - 1.0).abs() < 1e-6);
        let mut out = Vec::new();
        clip_half_plane(&h, Vec2::new(0.5, 0.0), Vec2::X, &mut out);
        assert!((signed_area(&out) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn turning_follows_bearings() {
        // Turning the point due north of the pivot by 90 puts it due east.
        let p = turn_about(Vec2::new(0.0, 1.0), Vec2::ZERO, 90.0);
        assert!((p - Vec2::new(1.0, 0.0)).length() < 1e-6);
    }
}
