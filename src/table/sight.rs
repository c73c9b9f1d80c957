//! Line of sight (OTP 8.8, 8.9) and woods on the sight line (8.7).
//!
//! A line runs from the centre of a firing stand to a point on the target: its corners and
//! points at most 1" apart along every edge. The target is seen when any such line is clear.
//! Other units (friend or foe), towns, buildings and hills block; woods (and tall crops, which
//! 8.7 lists with light woods) do not block outright but are measured, since 1" or more of
//! them on the line calls for a visibility roll that belongs to the rules engine.

use bevy::math::Vec2;
use serde::Serialize;

use super::geom::{Aabb, EPS, footprint_interval, point_segment_distance, polygon_intervals};
use super::footprint::Footprint;
use super::situation::{Outline, Situation};
use crate::scenario::model::{FieldKind, Terrain, WoodsDensity};

/// Inches of woods a sight line crosses, by density (8.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct WoodsCrossed {
    pub light: f32,
    pub regular: f32,
    pub dense: f32,
}

impl WoodsCrossed {
    pub fn total(&self) -> f32 {
        self.light + self.regular + self.dense
    }
    /// 8.7: a line must cross less than 1" of woods to avoid checking visibility.
    pub fn needs_visibility_roll(&self) -> bool {
        self.total() >= 1.0 - EPS
    }
    fn add(&mut self, density: WoodsDensity, inches: f32) {
        match density {
            WoodsDensity::Light => self.light += inches,
            WoodsDensity::Regular => self.regular += inches,
            WoodsDensity::Dense => self.dense += inches,
        }
    }
}

/// What a sight line may pass over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SightOptions {
    /// 8.9: artillery firing ball fires over units on lower ground than the guns.
    pub ball: bool,
    /// Seeing, not firing (a commander, 10.6): 8.8 lets a viewer on higher ground see over a
    /// unit nearer to it than the target. Fire passes over a unit only as ball (8.9).
    pub sight_only: bool,
}

/// One terrain feature a sight line crosses that 8.7 measures, by its own name: woods, or tall
/// crops seen as light woods.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WoodsOnLine {
    /// The feature's name in the scenario ("Wheat Field").
    pub name: String,
    /// What it is and how sight counts it ("tall crops, seen as light woods").
    pub kind: String,
    pub density: WoodsDensity,
    /// Inches of the line inside it (where a higher viewer sees over it, none).
    pub inches: f32,
    /// The stretches of the line inside it, viewer's end first.
    #[serde(skip)]
    pub spans: Vec<(Vec2, Vec2)>,
}

impl std::fmt::Display for WoodsOnLine {
    /// "Wheat Field — tall crops, seen as light woods, 5.40\"".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} — {}, {:.2}\"", self.name, self.kind, self.inches)
    }
}

/// One stand's view of a target.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Sight {
    pub clear: bool,
    /// Woods on the clear line that crosses the least of them (0 when not clear).
    pub woods: WoodsCrossed,
    /// That line's woods feature by feature (filled when the sight is asked for a report).
    pub woods_on_line: Vec<WoodsOnLine>,
    /// The point on the target that line reaches.
    #[serde(skip)]
    pub to: Option<Vec2>,
    /// When not clear: what blocks, nearest the firer first.
    pub blocked_by: Vec<String>,
}

/// Scratch space for the sight-line sweep, reused from pair to pair.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Stands (flat indices) and features near the firer and the target: only the features
    /// that matter to sight, and apart the hills, which alone decide the ground level there.
    stands: Vec<usize>,
    features: Vec<usize>,
    hills: Vec<usize>,
    /// The target of the pair.
    target: usize,
    /// Every target's sample points (`target_samples`), worked out when a line is first traced
    /// to it and kept for the other firers (a scratch space serves one table): where each
    /// unit's lie in `samples` (none yet: `u32::MAX`), and the points.
    sampled: Vec<(u32, u32)>,
    samples: Vec<Vec2>,
    /// The target's circle (centre, radius), and its stands' corners: every sample point lies
    /// within their hull.
    aim: Vec2,
    reach: f32,
    corners: Vec<Vec2>,
    /// Stretches of bearing from a firing stand that single stands cover ([`shadowed`]).
    walls: Vec<(f32, f32)>,
    /// Of `stands`, those a line from the firing stand to the target may come near ([`shadowed`]).
    view: Vec<usize>,
    /// The stand (flat index) that blocked the last line: lines to neighbouring points mostly
    /// cross the same stand, so it is tried first.
    blocker: Option<usize>,
    cuts: Vec<f32>,
    spans: Vec<(f32, f32)>,
    pub clip: Vec<Vec2>,
    pub tmp: Vec<Vec2>,
}

/// Points on the target that a sight line may reach: corners, and along every edge at most 1"
/// apart (so a long artillery front or a 2" stand has points between its corners).
fn target_samples(s: &Situation, target: usize, out: &mut Vec<Vec2>) {
    for st in s.unit_stands(target) {
        let c = &st.corners;
        for i in 0..4 {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            // Rounding must not add a point when the table is turned: a 2" edge gets one midpoint.
            let n = (a.distance(b) - EPS).ceil().max(1.0) as usize;
            out.extend((0..n).map(|k| a.lerp(b, k as f32 / n as f32)));
        }
    }
}

impl Scratch {
    /// Gathers the stands and terrain that could stand between the two units: everything
    /// touching the capsule around the line joining their centres, as wide as the wider unit.
    fn gather(&mut self, s: &Situation, firer: usize, target: usize) {
        let (_, ca, ra) = s.spans[firer];
        let (_, cb, rb) = s.spans[target];
        let r = ra.max(rb);
        let area = Aabb::of(&[ca, cb]).grow(r);
        self.stands.clear();
        s.unit_grid.query(area, |u| {
            let (stands, cu, ru) = &s.spans[u];
            // A unit whose circle (a stand widened by 8.8's hair included) is clear of the capsule
            // has no stand that can cross a line: its stands are not looked at.
            if u == firer || u == target || point_segment_distance(*cu, ca, cb) > r + ru + 2.0 * EPS {
                return;
            }
            for i in stands.clone() {
                if point_segment_distance(s.stands[i].footprint.centre, ca, cb) <= r + s.stands[i].radius {
                    self.stands.push(i);
                }
            }
        });
        self.near_features(s, area);
        self.blocker = None;
        self.target = target;
        (self.aim, self.reach) = (cb, rb);
        self.corners.clear();
        self.corners.extend(s.unit_stands(target).iter().flat_map(|st| st.corners));
    }

    /// The features within `area` that matter to sight, and the hills within it.
    fn near_features(&mut self, s: &Situation, area: Aabb) {
        self.features.clear();
        self.hills.clear();
        for (i, f) in s.features.iter().enumerate().filter(|(_, f)| f.bbox.overlaps(&area)) {
            let role = role(&s.terrain()[f.index]);
            if let SightRole::Hill(_) = role {
                self.hills.push(i);
            }
            if matches!(f.outline, Outline::Area(_)) && !matches!(role, SightRole::Nothing) {
                self.features.push(i);
            }
        }
    }
}

/// What a feature does to sight.
enum SightRole {
    Blocks,
    Hill(u32),
    Woods(WoodsDensity),
    Nothing,
}

/// What a woods feature is, for a reader (8.7): "light woods", "tall crops, seen as light woods".
fn woods_kind(t: &Terrain, density: WoodsDensity) -> String {
    let d = match density {
        WoodsDensity::Light => "light",
        WoodsDensity::Regular => "regular",
        WoodsDensity::Dense => "dense",
    };
    match t {
        Terrain::Field { kind: FieldKind::TallCrops, .. } => format!("tall crops, seen as {d} woods"),
        _ => format!("{d} woods"),
    }
}

fn role(t: &Terrain) -> SightRole {
    match t {
        Terrain::Town { .. } | Terrain::Building { .. } => SightRole::Blocks,
        Terrain::Hill { elevation, .. } => SightRole::Hill(*elevation),
        Terrain::Woods { density, .. } => SightRole::Woods(*density),
        // 8.7: crops have the visibility of light woods.
        Terrain::Field { kind: FieldKind::TallCrops, .. } => SightRole::Woods(WoodsDensity::Light),
        _ => SightRole::Nothing,
    }
}

/// One sight line from a firing stand's centre `a` (ground level `ea`) to a point `b` on the
/// target. Returns the woods crossed, or None when blocked. With `names`, every blocker is
/// recorded (distance from `a`, name) instead of stopping at the first; with `on_line`, every
/// woods feature counted, by name.
#[allow(clippy::too_many_arguments)]
fn line(
    s: &Situation,
    sc: &mut Scratch,
    a: Vec2,
    ea: u32,
    b: Vec2,
    opts: SightOptions,
    mut names: Option<&mut Vec<(f32, String)>>,
    mut on_line: Option<&mut Vec<WoodsOnLine>>,
) -> Option<WoodsCrossed> {
    let len = a.distance(b);
    if len <= EPS {
        return Some(WoodsCrossed::default());
    }
    let bbox = Aabb::of(&[a, b]);
    let mut blocked = false;
    let mut block = |t: f32, name: &str, names: &mut Option<&mut Vec<(f32, String)>>| {
        blocked = true;
        if let Some(n) = names.as_deref_mut() {
            n.push((t * len, name.to_string()));
        }
        names.is_none()
    };
    let seen_over = |elevation: u32, t_exit: f32| sees_over(ea, elevation, t_exit);

    // Where the line is stopped at its first blocker, any blocker will do: the last one first.
    if names.is_none()
        && let Some(i) = sc.blocker
        && stand_blocks(s, i, a, b, len, ea, opts).is_some()
    {
        return None;
    }
    for &i in &sc.stands {
        let Some(t0) = stand_blocks(s, i, a, b, len, ea, opts) else { continue };
        if block(t0, &s.unit(s.stands[i].unit).name, &mut names) {
            sc.blocker = Some(i);
            return None;
        }
    }

    let mut woods = WoodsCrossed::default();
    let mut eb: Option<u32> = None;
    for k in 0..sc.features.len() {
        let f = &s.features[sc.features[k]];
        let Outline::Area(poly) = &f.outline else { continue };
        if !f.bbox.overlaps(&bbox) {
            continue;
        }
        let t = &s.terrain()[f.index];
        let role = role(t);
        if let SightRole::Nothing = role {
            continue;
        }
        if let SightRole::Hill(e) = role {
            // 8.8: a hill blocks where the line crosses ground higher than both its ends.
            if e <= ea || e <= *eb.get_or_insert_with(|| s.ground_elevation_among(&sc.hills, b)) {
                continue;
            }
        }
        polygon_intervals(poly, a, b, &mut sc.cuts, &mut sc.spans);
        for &(t0, t1) in &sc.spans {
            let inches = (t1 - t0) * len;
            if inches <= EPS {
                continue;
            }
            let ground = || s.ground_elevation_among(&sc.hills, a.lerp(b, (t0 + t1) / 2.0));
            let blocks = match role {
                SightRole::Hill(_) => true,
                // A town or building one stands in (or fires into) does not hide the other side.
                SightRole::Blocks => t0 * len > EPS && t1 * len < len - EPS && !seen_over(ground(), t1),
                SightRole::Woods(density) => {
                    if !seen_over(ground(), t1) {
                        woods.add(density, inches);
                        if let Some(found) = on_line.as_deref_mut() {
                            let span = (a.lerp(b, t0), a.lerp(b, t1));
                            match found.iter_mut().find(|w| w.name == t.name()) {
                                Some(w) => {
                                    w.inches += inches;
                                    w.spans.push(span);
                                }
                                None => found.push(WoodsOnLine { name: t.name().to_string(), kind: woods_kind(t, density), density, inches, spans: vec![span] }),
                            }
                        }
                    }
                    false
                }
                SightRole::Nothing => false,
            };
            if blocks && block(t0, t.name(), &mut names) {
                return None;
            }
        }
    }
    (!blocked).then_some(woods)
}

/// 8.8: a viewer on ground `ea` higher than a blocker's `elevation` sees over it when the line
/// leaves it (`t_exit`, a fraction of the way) nearer the viewer than the target.
fn sees_over(ea: u32, elevation: u32, t_exit: f32) -> bool {
    ea > elevation && t_exit < 0.5
}

/// Where the stand (flat index) blocks the line from `a` (ground level `ea`) to `b`, `len` long:
/// the fraction of the way it is entered; None when it does not block.
fn stand_blocks(s: &Situation, i: usize, a: Vec2, b: Vec2, len: f32, ea: u32, opts: SightOptions) -> Option<f32> {
    let st = &s.stands[i];
    if point_segment_distance(st.footprint.centre, a, b) > st.radius + EPS {
        return None;
    }
    // Stands of a line touch end to end: widened a hair, no line slips between two of them.
    let f = Footprint { frontage: st.footprint.frontage + 2.0 * EPS, ..st.footprint };
    let (t0, t1) = footprint_interval(&f, st.right, st.forward, a, b)?;
    // 8.9: "only artillery firing ball can fire over units at a lower elevation"; 8.8's
    // seeing over a nearer, lower blocker is sight, not fire.
    let over = if opts.sight_only { sees_over(ea, st.elevation, t1) } else { opts.ball && st.elevation < ea };
    ((t1 - t0) * len > EPS && !over).then_some(t0)
}

/// Sight from one stand (index within the firer unit) to the target unit, the scratch space
/// prepared for the pair ([`prepare`]).
pub(crate) fn stand_sight(s: &Situation, sc: &mut Scratch, firer: usize, stand: usize, opts: SightOptions, report: bool) -> Sight {
    let st = s.unit_stands(firer)[stand];
    let (a, ea) = (st.footprint.centre, st.elevation);
    // Without a report, a stand that surely sees nothing need not trace each line to find it.
    if !report && shadowed(s, sc, a, ea, opts) {
        return Sight::default();
    }
    // Then its lines need test only the stands they may come near (every one, for a report).
    if !report {
        std::mem::swap(&mut sc.stands, &mut sc.view);
    }
    let t = sc.target;
    if sc.sampled.len() <= t {
        sc.sampled.resize(s.units().len().max(t + 1), (u32::MAX, u32::MAX));
    }
    if sc.sampled[t].0 == u32::MAX {
        let start = sc.samples.len();
        target_samples(s, t, &mut sc.samples);
        sc.sampled[t] = (start as u32, sc.samples.len() as u32);
    }
    let (from, to) = sc.sampled[t];
    let samples = std::mem::take(&mut sc.samples);
    let sight = best_line(s, sc, a, ea, &samples[from as usize..to as usize], opts, report);
    sc.samples = samples;
    if !report {
        std::mem::swap(&mut sc.stands, &mut sc.view);
    }
    sight
}

/// What [`shadowed`] asks of a stand's wall: `a` and the target this far beyond its front and
/// rear edges, and the wall's ends this far ahead of `a`.
const SHADOW_MARGIN: f32 = 0.01;

/// True when every line from `a` (ground level `ea`) to the target's `samples` is surely blocked
/// by some stand near the pair (8.8), found without tracing them one by one; false says only
/// that the lines must be traced. Each stand stands for a wall along its middle, from end to
/// end of its front and half an `EPS` beyond: a line crossing that wall, with `a` and the target
/// on either side beyond the stand's front and rear edges, runs inside the stand (widened by
/// `EPS` at each end, as [`stand_blocks`] widens it) at least half its depth or half its
/// frontage, far more than the `EPS` that blocks, and rounding cannot change that. Seen from
/// `a`, each wall covers a stretch of bearing; when the walls cover every sample's bearing
/// without a gap (the stands of a line overlap by an `EPS` at their seams), every line is
/// blocked, as [`line`] would find one by one. Not for sight over lower stands (a commander's),
/// which depends on where a line leaves the stand.
///
/// On the way, `view` gets the stands a line may come near: all but those whose circle (grown
/// by `EPS` and a margin) lies wholly outside the wedge from `a` that holds the target's
/// corners, and with them every line (`stand_blocks` finds them farther than that).
fn shadowed(s: &Situation, sc: &mut Scratch, a: Vec2, ea: u32, opts: SightOptions) -> bool {
    sc.view.clear();
    if opts.sight_only || sc.stands.is_empty() {
        sc.view.extend_from_slice(&sc.stands);
        return false;
    }
    let d = (sc.aim - a).normalize_or_zero();
    // Bearings as the tangent off the direction to the target's centre, for points ahead of `a`:
    // along a segment ahead of `a` it runs one way, so the samples' (on the target's stands'
    // edges) lie within the corners'.
    let bearing = |p: Vec2| {
        let v = p - a;
        let x = v.dot(d);
        (x > SHADOW_MARGIN).then(|| d.perp_dot(v) / x)
    };
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for &p in &sc.corners {
        let Some(u) = bearing(p) else {
            sc.view.extend_from_slice(&sc.stands);
            return false;
        };
        lo = lo.min(u);
        hi = hi.max(u);
    }
    // The wedge's edges, y = lo x and y = hi x (x along `d`, y across), a distance from them
    // being (y - hi x) / kh and (lo x - y) / kl.
    let (kl, kh) = ((1.0 + lo * lo).sqrt(), (1.0 + hi * hi).sqrt());
    let (cb, rb) = (sc.aim, sc.reach);
    sc.walls.clear();
    for &i in &sc.stands {
        let st = &s.stands[i];
        let c = st.footprint.centre;
        let (x, y) = ((c - a).dot(d), d.perp_dot(c - a));
        let far = st.radius + EPS + SHADOW_MARGIN;
        if x < -far || y - hi * x > far * kh || lo * x - y > far * kl {
            continue;
        }
        sc.view.push(i);
        let band = st.footprint.depth / 2.0 + SHADOW_MARGIN;
        let side = (a - c).dot(st.forward);
        // `a` on one side of the stand, the whole target (by its circle, else corner by corner) on the other.
        if side.abs() < band
            || (opts.ball && st.elevation < ea) // 8.9: fired over
            || ((cb - c).dot(st.forward) * side.signum() > -band - rb && sc.corners.iter().any(|&q| (q - c).dot(st.forward) * side.signum() > -band))
        {
            continue;
        }
        let half = st.right * (st.footprint.frontage / 2.0 + EPS / 2.0);
        if let (Some(u0), Some(u1)) = (bearing(c - half), bearing(c + half)) {
            sc.walls.push((u0.min(u1), u0.max(u1)));
        }
    }
    // Covered from `lo` up to `reached` so far: a wall reaching on from there takes it further.
    let mut reached = lo;
    loop {
        let before = reached;
        for &(w0, w1) in &sc.walls {
            if w0 <= reached && w1 > reached {
                reached = w1;
            }
        }
        if reached >= hi {
            return true;
        }
        if reached == before {
            return false;
        }
    }
}

/// The clear line from `a` (ground level `ea`) to one of `samples` that crosses the least woods
/// (8.7, 8.8): the one line every view of the sight shows. With `report`, its woods by name, or,
/// when none is clear, every blocker nearest first.
fn best_line(s: &Situation, sc: &mut Scratch, a: Vec2, ea: u32, samples: &[Vec2], opts: SightOptions, report: bool) -> Sight {
    let mut best: Option<(WoodsCrossed, Vec2)> = None;
    for &p in samples {
        if let Some(w) = line(s, sc, a, ea, p, opts, None, None)
            && best.is_none_or(|(b, _)| w.total() < b.total())
        {
            best = Some((w, p));
            if w.total() <= 0.0 {
                break; // nothing can beat a clear line through open ground
            }
        }
    }
    let to = best.map(|(_, p)| p);
    let mut sight = Sight { clear: best.is_some(), woods: best.map(|(w, _)| w).unwrap_or_default(), to, ..Sight::default() };
    if report {
        match to {
            Some(p) if sight.woods.total() > 0.0 => {
                line(s, sc, a, ea, p, opts, None, Some(&mut sight.woods_on_line));
            }
            Some(_) => {}
            None => {
                let mut found: Vec<(f32, String)> = Vec::new();
                for &p in samples {
                    line(s, sc, a, ea, p, opts, Some(&mut found), None);
                }
                sight.blocked_by = nearest_first(found);
            }
        }
    }
    sight
}

/// 8.7: of some stands' sights, the clear line that crosses the most woods: it decides whether
/// visibility is rolled (1" or more), so it is the line every view reports.
pub fn woodiest<'a>(sights: impl IntoIterator<Item = &'a Sight>) -> Option<&'a Sight> {
    sights.into_iter().filter(|v| v.clear).max_by(|a, b| a.woods.total().total_cmp(&b.woods.total()))
}

/// Names by their least distance, nearest first, each once.
pub(crate) fn nearest_first(mut found: Vec<(f32, String)>) -> Vec<String> {
    found.sort_by(|x, y| x.0.total_cmp(&y.0).then_with(|| x.1.cmp(&y.1)));
    let mut names: Vec<String> = Vec::new();
    for (_, n) in found {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// Sight from every stand of `firer` to `target` (8.8: "from the center of each firing stand").
pub fn sight(s: &Situation, firer: usize, target: usize, opts: SightOptions) -> Vec<Sight> {
    let mut sc = Scratch::default();
    sc.gather(s, firer, target);
    (0..s.unit(firer).stands.len()).map(|i| stand_sight(s, &mut sc, firer, i, opts, true)).collect()
}

/// What an observer at a point (a commander, OTP 10.6) sees of a unit: the best sight line from
/// the point to the unit (8.8 blockers; woods measured, 8.7), and the densest woods the point
/// or any of the unit's stands stands in (10.6: "if either ... is in woods", a roll is needed).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PointSight {
    pub sight: Sight,
    pub in_woods: Option<WoodsDensity>,
}

impl PointSight {
    /// 8.7, 10.6: visibility must be rolled (the line is clear but crosses 1" of woods, or
    /// either end is in woods). The densest woods concerned.
    pub fn woods_to_roll(&self) -> Option<WoodsDensity> {
        if !self.sight.clear {
            return None;
        }
        let w = self.sight.woods;
        let crossed = if w.needs_visibility_roll() {
            [(WoodsDensity::Dense, w.dense), (WoodsDensity::Regular, w.regular), (WoodsDensity::Light, w.light)].into_iter().find(|&(_, i)| i > EPS).map(|(d, _)| d)
        } else {
            None
        };
        [crossed, self.in_woods].into_iter().flatten().max_by_key(|&d| density_rank(d))
    }
}

fn density_rank(d: WoodsDensity) -> u8 {
    match d {
        WoodsDensity::Light => 0,
        WoodsDensity::Regular => 1,
        WoodsDensity::Dense => 2,
    }
}

/// A commander looking (10.6): sight, not fire.
const LOOKING: SightOptions = SightOptions { ball: false, sight_only: true };

/// Sight from the point `from` (on the ground there) to `target` (OTP 10.6, by 8.7 and 8.8).
pub fn point_sight(s: &Situation, from: Vec2, target: usize) -> PointSight {
    let mut sc = Scratch::default();
    let (_, cb, rb) = s.spans[target];
    let area = Aabb::of(&[from, cb]).grow(rb);
    s.grid.query(area, |i| {
        let st = &s.stands[i];
        if st.unit != target && point_segment_distance(st.footprint.centre, from, cb) <= rb + st.radius {
            sc.stands.push(i);
        }
    });
    sc.near_features(s, area);
    let ea = s.ground_elevation(from);
    let mut samples = Vec::new();
    target_samples(s, target, &mut samples);
    let sight = best_line(s, &mut sc, from, ea, &samples, LOOKING, true);
    let mut points = vec![from];
    points.extend(s.unit_stands(target).iter().map(|st| st.footprint.centre));
    let in_woods = s
        .features
        .iter()
        .filter_map(|f| match (&f.outline, role(&s.terrain()[f.index])) {
            (Outline::Area(poly), SightRole::Woods(d)) if points.iter().any(|&p| crate::picture::inside(poly, p)) => Some(d),
            _ => None,
        })
        .max_by_key(|&d| density_rank(d));
    PointSight { sight, in_woods }
}

/// Prepares scratch space for questions about one firer and one target.
pub(crate) fn prepare(s: &Situation, sc: &mut Scratch, firer: usize, target: usize) {
    sc.gather(s, firer, target);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{Construction, Formation, GunSize, Point};
    use crate::table::situation::UnitInfo;
    use crate::table::testing::{close, rect, v, with_terrain};

    /// One 2" stand at (19..21, 9.25..10) facing up the table, and a 16-figure line 5" away
    /// facing it, front from (16, 15) to (24, 15).
    fn pair() -> Vec<UnitInfo> {
        vec![
            UnitInfo::foot("Firer", 0, 4, Formation::Line, v(20.0, 10.0), 0.0),
            UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 15.0), 180.0),
        ]
    }

    fn look(units: Vec<UnitInfo>, terrain: Vec<Terrain>, ball: bool) -> Sight {
        let s = with_terrain(units, terrain);
        sight(&s, 0, 1, SightOptions { ball, ..SightOptions::default() })[0].clone()
    }

    fn hill(name: &str, elevation: u32, outline: Vec<Point>) -> Terrain {
        Terrain::Hill { name: name.into(), elevation, outline, slope: None }
    }

    fn woods(density: WoodsDensity, outline: Vec<Point>) -> Terrain {
        Terrain::Woods { name: "Woods".into(), density, outline, disorder: None }
    }

    fn blocker(x: f32, y: f32, figures: u32) -> UnitInfo {
        UnitInfo::foot("Blocker", 0, figures, Formation::Line, v(x, y), 0.0)
    }

    #[test]
    fn open_ground_is_clear() {
        // OTP 8.8
        let v = look(pair(), vec![], false);
        assert!(v.clear && v.woods.total() == 0.0 && v.blocked_by.is_empty());
    }

    #[test]
    fn any_other_unit_blocks() {
        // OTP 8.8: "blocked by any other unit (friendly or enemy)". An 8" line across the whole
        // view blocks and is named; a 2" stand leaves lines to the target's ends clear.
        let mut units = pair();
        units.push(blocker(20.0, 13.0, 16));
        let v = look(units, vec![], false);
        assert!(!v.clear);
        assert_eq!(v.blocked_by, vec!["Blocker".to_string()]);
        let mut units = pair();
        units.push(blocker(20.0, 13.0, 4));
        assert!(look(units, vec![], false).clear, "8.8: to any portion of the target");
    }

    #[test]
    fn no_line_slips_between_two_stands_of_a_line() {
        // OTP 8.8: a unit blocks. The straight line from the firer's centre (x = 20) runs along
        // the seam where two stands of the blocking line touch (18..20 and 20..22): blocked.
        let mut units = pair();
        units.push(blocker(20.0, 12.0, 16));
        let v = look(units, vec![], false);
        assert_eq!((v.clear, v.blocked_by), (false, vec!["Blocker".to_string()]));
    }

    #[test]
    fn towns_and_buildings_block_but_not_the_one_you_stand_in() {
        // OTP 8.8: towns and buildings block; a unit in a town fires out of it.
        let town = |outline| Terrain::Town { name: "Town".into(), outline, capacity: 5 };
        let v = look(pair(), vec![town(rect(10.0, 12.0, 30.0, 13.5))], false);
        assert_eq!((v.clear, v.blocked_by), (false, vec!["Town".to_string()]));
        let house = Terrain::Building { name: "House".into(), at: [20.0, 12.5], size: [12.0, 1.0], facing: 0.0, construction: Construction::Stone, capacity: 1 };
        assert!(!look(pair(), vec![house], false).clear);
        assert!(look(pair(), vec![town(rect(15.0, 8.0, 25.0, 11.0))], false).clear, "firing out of the town");
        assert!(look(pair(), vec![town(rect(10.0, 14.0, 30.0, 17.0))], false).clear, "firing into the town");
    }

    #[test]
    fn hills_block_ground_higher_than_both_ends() {
        // OTP 8.8: a hill between two units on lower ground blocks; from the hill itself the
        // line crosses no ground higher than the firer.
        assert!(!look(pair(), vec![hill("Knoll", 1, rect(10.0, 11.5, 30.0, 13.5))], false).clear);
        assert!(look(pair(), vec![hill("Knoll", 1, rect(10.0, 5.0, 30.0, 13.5))], false).clear);
        let v = look(pair(), vec![hill("Knoll", 1, rect(10.0, 11.5, 30.0, 13.5))], false);
        assert_eq!(v.blocked_by, vec!["Knoll".to_string()]);
    }

    #[test]
    fn small_arms_do_not_fire_over_lower_units() {
        // OTP 8.9: only artillery firing ball fires over units at a lower elevation; 8.8's
        // seeing over a lower blocker nearer the viewer is sight (a commander, 10.6), not fire.
        // Firer on a level-1 hill, a level-0 blocker 2" ahead: small arms are blocked, a
        // commander at the firer's place sees over it; with no hill, the commander is blocked.
        let knoll = || vec![hill("Knoll", 1, rect(10.0, 5.0, 30.0, 11.0))];
        let mut near = pair();
        near.push(blocker(20.0, 12.0, 16));
        let fire = look(near.clone(), knoll(), false);
        assert_eq!((fire.clear, fire.blocked_by), (false, vec!["Blocker".to_string()]));
        assert!(look(near.clone(), knoll(), true).clear, "ball would pass over it");
        let watched = |y: f32| vec![UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 15.0), 180.0), blocker(20.0, y, 16)];
        let commander = v(20.0, 9.5);
        assert!(point_sight(&with_terrain(watched(12.0), knoll()), commander, 0).sight.clear, "8.8: the commander on the hill sees over it");
        assert!(!point_sight(&with_terrain(watched(12.0), vec![]), commander, 0).sight.clear, "on level ground it blocks");
        let s = with_terrain(watched(14.0), knoll());
        assert!(!point_sight(&s, commander, 0).sight.clear, "8.8: not over a blocker nearer the target");
    }

    #[test]
    fn artillery_ball_fires_over_lower_units() {
        // OTP 8.9: guns on a level-1 hill firing ball clear a level-0 unit anywhere on the
        // line; not a unit on the same hill.
        let guns = UnitInfo::battery("Guns", 0, GunSize::Medium, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        let target = UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 20.0), 180.0);
        let units = vec![guns, target, blocker(20.0, 17.0, 16)];
        let knoll = || vec![hill("Knoll", 1, rect(10.0, 5.0, 30.0, 11.0))];
        assert!(!look(units.clone(), knoll(), false).clear);
        assert!(look(units.clone(), knoll(), true).clear);
        let ridge = vec![hill("Ridge", 1, rect(10.0, 5.0, 30.0, 18.0))];
        assert!(!look(units, ridge, true).clear, "the blocker is as high as the guns");
    }

    #[test]
    fn woods_on_the_line_are_measured() {
        // OTP 8.7: less than 1" of woods needs no visibility roll; crops count as light woods.
        let v = look(pair(), vec![woods(WoodsDensity::Regular, rect(10.0, 14.0, 30.0, 20.0))], false);
        assert!(v.clear && close(v.woods.regular, 1.0) && v.woods.needs_visibility_roll(), "{v:?}");
        let v = look(pair(), vec![woods(WoodsDensity::Dense, rect(10.0, 14.5, 30.0, 20.0))], false);
        assert!(close(v.woods.dense, 0.5) && !v.woods.needs_visibility_roll());
        let crops = Terrain::Field { name: "Wheat".into(), kind: FieldKind::TallCrops, outline: rect(10.0, 13.0, 30.0, 20.0) };
        let v = look(pair(), vec![crops], false);
        assert!(close(v.woods.light, 2.0), "{v:?}");
    }

    #[test]
    fn a_point_sees_a_unit_as_a_stand_would() {
        // OTP 10.6: a commander's sight of a unit: blocked as 8.8; woods at either end or 1"
        // on the line call for a roll (8.7).
        let s = with_terrain(pair(), vec![]);
        let t = s.find("Target").unwrap();
        let ps = point_sight(&s, v(10.0, 10.0), t);
        assert!(ps.sight.clear && ps.woods_to_roll().is_none(), "{ps:?}");
        let mut units = pair();
        units.push(blocker(20.0, 13.0, 16));
        let s = with_terrain(units, vec![]);
        let ps = point_sight(&s, v(20.0, 8.0), s.find("Target").unwrap());
        assert!(!ps.sight.clear && ps.woods_to_roll().is_none());
        assert!(ps.sight.blocked_by.contains(&"Blocker".to_string()) || ps.sight.blocked_by.contains(&"Firer".to_string()), "{ps:?}");
        let s = with_terrain(pair(), vec![woods(WoodsDensity::Light, rect(0.0, 0.0, 5.0, 5.0))]);
        let ps = point_sight(&s, v(2.0, 2.0), s.find("Target").unwrap());
        assert_eq!(ps.woods_to_roll(), Some(WoodsDensity::Light), "the commander stands in woods");
        let s = with_terrain(pair(), vec![woods(WoodsDensity::Dense, rect(10.0, 14.0, 30.0, 20.0))]);
        let ps = point_sight(&s, v(30.0, 8.0), s.find("Target").unwrap());
        assert_eq!(ps.woods_to_roll(), Some(WoodsDensity::Dense), "the unit stands in woods");
    }
}
