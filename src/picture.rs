//! What the table looks like, as a list of shapes in inches: one description, drawn by the window
//! (egui painter) and by `otp render` (SVG, then PNG), so both show the same colours and layout.

use bevy::math::Vec2;

use crate::scenario::basing;
use crate::scenario::model::*;
use crate::scenario::spawn::side_colour;
use crate::table::footprint::Footprint;

pub type Rgba = [u8; 4];

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stroke {
    pub colour: Rgba,
    /// Inches on the table.
    pub width: f32,
    /// Dash length in inches, for dashed lines.
    pub dash: Option<f32>,
}

impl Stroke {
    pub const fn solid(colour: Rgba, width: f32) -> Self {
        Stroke { colour, width, dash: None }
    }
    pub const fn dashed(colour: Rgba, width: f32, dash: f32) -> Self {
        Stroke { colour, width, dash: Some(dash) }
    }
}

/// How a label behaves when the view zooms: the window keeps unit labels a readable pixel size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    Terrain,
    Unit,
    Scale,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A closed outline (may be concave).
    Polygon { points: Vec<Vec2>, fill: Option<Rgba>, stroke: Option<Stroke> },
    /// An open polyline.
    Line { points: Vec<Vec2>, stroke: Stroke },
    Circle { centre: Vec2, radius: f32, fill: Option<Rgba>, stroke: Option<Stroke> },
    /// Text centred on `at`; `size` is the letter height in inches at 1:1.
    Label { at: Vec2, text: String, size: f32, colour: Rgba, kind: LabelKind },
}

/// A drawing of the table: its size and shapes, back to front.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    pub width: f32,
    pub depth: f32,
    pub shapes: Vec<Shape>,
}

/// The palette: muted map colours for terrain, strong side colours for troops.
pub mod palette {
    use super::Rgba;
    pub const BACKGROUND: Rgba = [38, 41, 37, 255];
    pub const CLOTH: Rgba = [150, 172, 112, 255];
    pub const GRID_MINOR: Rgba = [0, 0, 0, 40];
    pub const GRID_MAJOR: Rgba = [0, 0, 0, 100];
    pub const GRID_FOOT: Rgba = [0, 0, 0, 160];
    pub const TABLE_EDGE: Rgba = [60, 45, 30, 255];
    pub const HILL: [Rgba; 3] = [[186, 178, 122, 255], [170, 152, 100, 255], [152, 128, 82, 255]];
    pub const CONTOUR: Rgba = [110, 80, 45, 255];
    pub const WOODS: [Rgba; 3] = [[110, 150, 80, 235], [72, 118, 60, 240], [44, 86, 44, 245]];
    pub const TREE: [Rgba; 3] = [[70, 110, 52, 255], [46, 88, 40, 255], [26, 60, 28, 255]];
    pub const WATER: Rgba = [84, 136, 190, 255];
    pub const WATER_EDGE: Rgba = [48, 92, 148, 255];
    pub const FORD: Rgba = [196, 178, 128, 255];
    pub const ROAD: Rgba = [206, 184, 140, 255];
    pub const ROAD_EDGE: Rgba = [140, 116, 80, 255];
    pub const TOWN: Rgba = [176, 160, 146, 235];
    pub const TOWN_EDGE: Rgba = [96, 80, 70, 255];
    pub const STONE: Rgba = [120, 120, 126, 255];
    pub const WOOD_BUILDING: Rgba = [140, 92, 58, 255];
    pub const FENCE: Rgba = [110, 72, 40, 255];
    pub const WALL: Rgba = [105, 105, 110, 255];
    pub const BREASTWORK: Rgba = [120, 88, 52, 255];
    pub const CROPS: Rgba = [214, 190, 96, 235];
    pub const PLOWED: Rgba = [150, 116, 80, 220];
    pub const ROCKY: Rgba = [160, 160, 150, 220];
    pub const SWAMP: Rgba = [104, 132, 96, 230];
    pub const PASTURE: Rgba = [166, 190, 120, 200];
    pub const LABEL: Rgba = [30, 28, 24, 255];
    pub const OBJECTIVE: Rgba = [150, 30, 120, 255];
    pub const FRONT_EDGE: Rgba = [250, 246, 220, 255];
    pub const STAND_EDGE: Rgba = [20, 20, 20, 255];
    pub const MORALE_MARKER: Rgba = [250, 210, 40, 255];
    pub const SELECTED: Rgba = [255, 240, 80, 255];
    pub const CANVAS: Rgba = [238, 232, 208, 255];
    pub const HOOP: Rgba = [120, 104, 80, 255];
    pub const HORSE: Rgba = [92, 62, 38, 255];
}

fn with_alpha(c: [u8; 3], a: u8) -> Rgba {
    [c[0], c[1], c[2], a]
}

fn shade(c: [u8; 3], k: f32) -> [u8; 3] {
    c.map(|v| (v as f32 * k).clamp(0.0, 255.0) as u8)
}

fn pts(p: &[Point]) -> Vec<Vec2> {
    p.iter().map(|&q| Vec2::from(q)).collect()
}

fn centroid(p: &[Vec2]) -> Vec2 {
    p.iter().copied().sum::<Vec2>() / p.len().max(1) as f32
}

/// Even-odd point-in-polygon (corners as `Vec2` or as the scenario's points).
pub fn inside<T: Copy + Into<Vec2>>(poly: &[T], p: Vec2) -> bool {
    let mut c = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b): (Vec2, Vec2) = (poly[i].into(), poly[(i + n - 1) % n].into());
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            c = !c;
        }
    }
    c
}

fn bounds(poly: &[Vec2]) -> (Vec2, Vec2) {
    poly.iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// Points on a staggered grid inside a polygon: trees in woods, tufts in a swamp.
fn scatter(poly: &[Vec2], spacing: f32) -> Vec<Vec2> {
    let (lo, hi) = bounds(poly);
    let mut out = Vec::new();
    let mut row = 0;
    let mut y = lo.y + spacing / 2.0;
    while y < hi.y {
        let mut x = lo.x + spacing / 2.0 + if row % 2 == 1 { spacing / 2.0 } else { 0.0 };
        while x < hi.x {
            let p = Vec2::new(x, y);
            if inside(poly, p) {
                out.push(p);
            }
            x += spacing;
        }
        y += spacing * 0.87;
        row += 1;
    }
    out
}

/// Parallel lines across a polygon's bounding box, clipped to the polygon: furrows and crop rows.
fn hatch(poly: &[Vec2], spacing: f32, colour: Rgba, width: f32) -> Vec<Shape> {
    let (lo, hi) = bounds(poly);
    let mut out = Vec::new();
    let mut y = lo.y + spacing / 2.0;
    while y < hi.y {
        // Crossings of the horizontal line with the outline, paired up.
        let mut xs: Vec<f32> = Vec::new();
        let n = poly.len();
        for i in 0..n {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            if (a.y > y) != (b.y > y) {
                xs.push(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x));
            }
        }
        xs.sort_by(f32::total_cmp);
        for pair in xs.chunks(2).filter(|p| p.len() == 2) {
            out.push(Shape::Line { points: vec![Vec2::new(pair[0], y), Vec2::new(pair[1], y)], stroke: Stroke::solid(colour, width) });
        }
        y += spacing;
    }
    out
}

fn label(at: Vec2, text: impl Into<String>, size: f32) -> Shape {
    Shape::Label { at, text: text.into(), size, colour: palette::LABEL, kind: LabelKind::Terrain }
}

fn disorder_text(d: Option<DisorderType>) -> String {
    d.map(|d| format!("type {d:?}")).unwrap_or_else(|| "no disorder".into())
}

/// The table without troops: cloth, terrain, grid and objectives.
pub fn table(scenario: &Scenario) -> Picture {
    let Table { width, depth } = scenario.table;
    let mut s = vec![Shape::Polygon {
        points: vec![Vec2::ZERO, Vec2::new(width, 0.0), Vec2::new(width, depth), Vec2::new(0.0, depth)],
        fill: Some(palette::CLOTH),
        stroke: None,
    }];
    let mut labels = Vec::new();
    // Back to front: fields, hills (lowest contour first), water, roads, woods, towns, obstacles.
    let order = |t: &Terrain| match t {
        Terrain::Field { .. } => 0,
        Terrain::Hill { elevation, .. } => 1 + *elevation as usize,
        Terrain::Stream { .. } => 20,
        Terrain::Road { .. } => 21,
        Terrain::Woods { .. } => 22,
        Terrain::Town { .. } | Terrain::Building { .. } => 23,
        Terrain::Obstacle { .. } => 24,
    };
    let mut terrain: Vec<&Terrain> = scenario.terrain.iter().collect();
    terrain.sort_by_key(|t| order(t));
    for t in terrain {
        terrain_shapes(t, &mut s, &mut labels);
    }
    grid(width, depth, &mut s);
    for o in &scenario.objectives {
        let at = Vec2::from(o.at);
        s.push(Shape::Circle { centre: at, radius: o.radius, fill: Some([150, 30, 120, 28]), stroke: Some(Stroke::dashed(palette::OBJECTIVE, 0.12, 0.5)) });
        s.push(star(at, 0.7, palette::OBJECTIVE));
        labels.push(Shape::Label { at: at + Vec2::new(0.0, o.radius + 0.6), text: format!("★ {} ({} VP)", o.name, o.points), size: 0.6, colour: palette::OBJECTIVE, kind: LabelKind::Terrain });
    }
    s.extend(labels);
    Picture { width, depth, shapes: s }
}

fn star(c: Vec2, r: f32, colour: Rgba) -> Shape {
    let points = (0..10)
        .map(|i| {
            let a = std::f32::consts::PI * (i as f32 / 5.0) + std::f32::consts::FRAC_PI_2;
            let rr = if i % 2 == 0 { r } else { r * 0.45 };
            c + Vec2::new(a.cos(), a.sin()) * rr
        })
        .collect();
    Shape::Polygon { points, fill: Some(colour), stroke: Some(Stroke::solid([255, 255, 255, 255], 0.05)) }
}

fn grid(width: f32, depth: f32, s: &mut Vec<Shape>) {
    let line = |a: Vec2, b: Vec2, i: u32| {
        let (colour, w) = if i.is_multiple_of(12) { (palette::GRID_FOOT, 0.06) } else if i.is_multiple_of(6) { (palette::GRID_MAJOR, 0.045) } else { (palette::GRID_MINOR, 0.025) };
        Shape::Line { points: vec![a, b], stroke: Stroke::solid(colour, w) }
    };
    for i in 1..width.ceil() as u32 {
        if (i as f32) < width {
            s.push(line(Vec2::new(i as f32, 0.0), Vec2::new(i as f32, depth), i));
        }
    }
    for j in 1..depth.ceil() as u32 {
        if (j as f32) < depth {
            s.push(line(Vec2::new(0.0, j as f32), Vec2::new(width, j as f32), j));
        }
    }
    let edge = vec![Vec2::ZERO, Vec2::new(width, 0.0), Vec2::new(width, depth), Vec2::new(0.0, depth)];
    s.push(Shape::Polygon { points: edge, fill: None, stroke: Some(Stroke::solid(palette::TABLE_EDGE, 0.25)) });
}

fn terrain_shapes(t: &Terrain, s: &mut Vec<Shape>, labels: &mut Vec<Shape>) {
    match t {
        Terrain::Field { name, kind, outline } => {
            let p = pts(outline);
            let (fill, mark) = match kind {
                FieldKind::TallCrops => (palette::CROPS, Some(([170, 140, 50, 255], 0.5))),
                FieldKind::Plowed => (palette::PLOWED, Some(([110, 80, 52, 255], 0.4))),
                FieldKind::Rocky => (palette::ROCKY, None),
                FieldKind::Swamp => (palette::SWAMP, None),
                FieldKind::Pasture => (palette::PASTURE, None),
            };
            s.push(Shape::Polygon { points: p.clone(), fill: Some(fill), stroke: Some(Stroke::solid([90, 80, 50, 160], 0.04)) });
            if let Some((c, spacing)) = mark {
                s.extend(hatch(&p, spacing, c, 0.05));
            }
            match kind {
                FieldKind::Swamp => s.extend(scatter(&p, 1.1).into_iter().map(|q| Shape::Line { points: vec![q - Vec2::X * 0.3, q + Vec2::X * 0.3], stroke: Stroke::solid(palette::WATER_EDGE, 0.07) })),
                FieldKind::Rocky => s.extend(scatter(&p, 1.0).into_iter().map(|q| Shape::Circle { centre: q, radius: 0.15, fill: Some([110, 110, 104, 255]), stroke: None })),
                _ => {}
            }
            let what = match kind {
                FieldKind::TallCrops => "tall crops",
                FieldKind::Plowed => "plowed",
                FieldKind::Rocky => "rocky",
                FieldKind::Swamp => "swamp",
                FieldKind::Pasture => "pasture",
            };
            labels.push(label(centroid(&p), format!("{name} · {what} · {}", disorder_text(kind.disorder())), 0.5));
        }
        Terrain::Hill { name, elevation, outline, slope } => {
            let p = pts(outline);
            let fill = palette::HILL[(*elevation as usize - 1).min(2)];
            s.push(Shape::Polygon { points: p.clone(), fill: Some(fill), stroke: Some(Stroke::solid(palette::CONTOUR, 0.08)) });
            // Contour label on the lowest edge point, like a map's spot height.
            let low = p.iter().copied().fold(p[0], |a, b| if b.y < a.y { b } else { a });
            labels.push(label(low + Vec2::new(0.0, 0.6), format!("{name} · elevation {elevation} · slope {}", disorder_text(*slope)), 0.5));
        }
        Terrain::Woods { name, density, outline, .. } => {
            let p = pts(outline);
            let i = match density {
                WoodsDensity::Light => 0,
                WoodsDensity::Regular => 1,
                WoodsDensity::Dense => 2,
            };
            s.push(Shape::Polygon { points: p.clone(), fill: Some(palette::WOODS[i]), stroke: Some(Stroke::solid(palette::TREE[2], 0.07)) });
            let spacing = [2.0, 1.4, 1.0][i];
            s.extend(scatter(&p, spacing).into_iter().map(|q| Shape::Circle { centre: q, radius: spacing * 0.3, fill: Some(palette::TREE[i]), stroke: None }));
            let d = format!("{density:?}").to_lowercase();
            labels.push(label(centroid(&p), format!("{name} · {d} woods · {}", disorder_text(t.disorder())), 0.5));
        }
        Terrain::Stream { name, kind, path, width, fords } => {
            let p = pts(path);
            s.push(Shape::Line { points: p.clone(), stroke: Stroke::solid(palette::WATER_EDGE, width + 0.15) });
            s.push(Shape::Line { points: p.clone(), stroke: Stroke::solid(palette::WATER, *width) });
            for f in fords {
                let at = Vec2::from(f.at);
                let dir = nearest_direction(&p, at);
                let half = dir * (f.width / 2.0);
                s.push(Shape::Line { points: vec![at - half, at + half], stroke: Stroke::solid(palette::FORD, width + 0.2) });
                labels.push(label(at + dir.perp() * (width + 0.9), "ford · type B", 0.45));
            }
            let what = match kind {
                StreamKind::Narrow => "narrow stream · obstacle",
                StreamKind::Large => "large stream · ford type B",
                StreamKind::River => "river · fords only",
            };
            // On the longest reach, clear of the fords and crossings that crowd the bends.
            let reach = p.windows(2).max_by(|a, b| a[0].distance(a[1]).total_cmp(&b[0].distance(b[1]))).expect("validated: 2+ points");
            let normal = (reach[1] - reach[0]).normalize_or_zero().perp();
            let up = if normal.y < 0.0 { -normal } else { normal };
            labels.push(label((reach[0] + reach[1]) / 2.0 + up * (width + 0.8), format!("{name} · {what}"), 0.5));
        }
        Terrain::Road { name, path, width } => {
            let p = pts(path);
            s.push(Shape::Line { points: p.clone(), stroke: Stroke::solid(palette::ROAD_EDGE, width + 0.12) });
            s.push(Shape::Line { points: p.clone(), stroke: Stroke::solid(palette::ROAD, *width) });
            let (a, b) = (p[0], p[1]);
            let mid = (a + b) / 2.0;
            labels.push(label(mid + (b - a).normalize_or_zero().perp() * (width + 0.5), name.clone(), 0.45));
        }
        Terrain::Town { name, outline, capacity } => {
            let p = pts(outline);
            s.push(Shape::Polygon { points: p.clone(), fill: Some(palette::TOWN), stroke: Some(Stroke::solid(palette::TOWN_EDGE, 0.1)) });
            // Blocks of houses, so a town reads as built-up.
            s.extend(scatter(&p, 1.6).into_iter().map(|q| Shape::Polygon {
                points: vec![q + Vec2::new(-0.4, -0.3), q + Vec2::new(0.4, -0.3), q + Vec2::new(0.4, 0.3), q + Vec2::new(-0.4, 0.3)],
                fill: Some([130, 104, 90, 255]),
                stroke: None,
            }));
            labels.push(label(centroid(&p), format!("{name} · town · medium cover · {capacity} stands"), 0.5));
        }
        Terrain::Building { name, at, size, facing, construction, capacity } => {
            let f = Footprint { centre: Vec2::from(*at), facing: *facing, frontage: size[0], depth: size[1] };
            let fill = match construction {
                Construction::Wood => palette::WOOD_BUILDING,
                Construction::Stone => palette::STONE,
            };
            s.push(Shape::Polygon { points: f.corners().to_vec(), fill: Some(fill), stroke: Some(Stroke::solid([40, 36, 32, 255], 0.08)) });
            let cover = format!("{:?}", construction.cover()).to_lowercase();
            let what = format!("{construction:?}").to_lowercase();
            labels.push(label(Vec2::from(*at) + Vec2::new(0.0, size[1].max(size[0]) / 2.0 + 0.6), format!("{name} · {what} · {cover} cover · {capacity} stands"), 0.45));
        }
        Terrain::Obstacle { name, kind, path, .. } => {
            let p = pts(path);
            let stroke = match kind {
                ObstacleKind::Fence => Stroke::dashed(palette::FENCE, 0.12, 0.35),
                ObstacleKind::StoneWall => Stroke::solid(palette::WALL, 0.25),
                ObstacleKind::Barricade => Stroke::dashed([90, 60, 30, 255], 0.25, 0.2),
                ObstacleKind::Breastwork => Stroke::solid(palette::BREASTWORK, 0.4),
            };
            s.push(Shape::Line { points: p.clone(), stroke });
            if *kind == ObstacleKind::Breastwork {
                s.push(Shape::Line { points: p.clone(), stroke: Stroke::dashed([80, 56, 30, 255], 0.12, 0.25) });
            }
            let cover = format!("{:?}", kind.cover()).to_lowercase();
            let what = match kind {
                ObstacleKind::Fence => "fence",
                ObstacleKind::StoneWall => "stone wall",
                ObstacleKind::Barricade => "barricade",
                ObstacleKind::Breastwork => "breastwork (works)",
            };
            let (a, b) = (p[0], p[p.len() - 1]);
            let normal = (b - a).normalize_or_zero().perp();
            let offset = if normal.y < 0.0 { -normal } else { normal };
            labels.push(label((a + b) / 2.0 + offset * 0.5, format!("{name} · {what} · {cover} cover"), 0.4));
        }
    }
}

fn nearest_direction(path: &[Vec2], at: Vec2) -> Vec2 {
    path.windows(2)
        .min_by(|x, y| seg_dist(x[0], x[1], at).total_cmp(&seg_dist(y[0], y[1], at)))
        .map(|w| (w[1] - w[0]).normalize_or_zero())
        .unwrap_or(Vec2::X)
}

fn seg_dist(a: Vec2, b: Vec2, p: Vec2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-9)).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

/// What the picture needs to know about a unit to draw it.
#[derive(Clone, Debug)]
pub struct UnitLook<'a> {
    pub name: &'a str,
    pub arm: Arm,
    pub figures: u32,
    pub colour: [u8; 3],
    pub morale_marker: bool,
    pub selected: bool,
}

/// A unit's stands: body in the side colour, a pale front edge, an arm mark; then its badge and label.
pub fn unit(look: &UnitLook, stands: &[Footprint], out: &mut Vec<Shape>, labels: &mut Vec<Shape>) {
    let body = with_alpha(look.colour, 255);
    let dark = with_alpha(shade(look.colour, 0.45), 255);
    let edge = if look.selected { Stroke::solid(palette::SELECTED, 0.12) } else { Stroke::solid(palette::STAND_EDGE, 0.05) };
    for f in stands {
        out.push(Shape::Polygon { points: f.corners().to_vec(), fill: Some(body), stroke: Some(edge) });
        // The front edge, so facing reads at a glance.
        let inset = f.forward() * 0.06;
        out.push(Shape::Line { points: vec![f.front_left() - inset, f.front_right() - inset], stroke: Stroke::solid(palette::FRONT_EDGE, 0.15) });
        match look.arm {
            Arm::Cavalry => out.push(Shape::Line { points: vec![f.rear_left(), f.front_right() - f.forward() * 0.12], stroke: Stroke::solid(dark, 0.08) }),
            Arm::Artillery { .. } => {
                out.push(Shape::Circle { centre: f.centre - f.forward() * 0.3, radius: 0.25, fill: Some(dark), stroke: None });
                out.push(Shape::Line { points: vec![f.centre - f.forward() * 0.3, f.front_centre() - f.forward() * 0.15], stroke: Stroke::solid(dark, 0.14) });
            }
            Arm::Infantry => {}
        }
    }
    if stands.is_empty() {
        return;
    }
    let centre = stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len() as f32;
    let back = stands[0].forward() * -1.0;
    let rear = stands.iter().map(|f| (f.centre - centre).dot(back) + f.depth / 2.0).fold(0.0, f32::max);
    if look.morale_marker {
        let at = centre + back * (rear + 0.45) + stands[0].right() * 0.0;
        out.push(Shape::Circle { centre: at, radius: 0.38, fill: Some(palette::MORALE_MARKER), stroke: Some(Stroke::solid(palette::STAND_EDGE, 0.06)) });
        out.push(Shape::Label { at, text: "M".into(), size: 0.45, colour: palette::STAND_EDGE, kind: LabelKind::Unit });
    }
    let offset = if look.morale_marker { 1.25 } else { 0.55 };
    labels.push(Shape::Label {
        at: centre + back * (rear + offset),
        text: format!("{} ({})", look.name, look.figures),
        size: 0.5,
        colour: with_alpha(shade(look.colour, 0.55), 255),
        kind: LabelKind::Unit,
    });
}

/// A commander's figure: a disc in his side's colour with a star.
pub fn commander(name: &str, at: Vec2, colour: [u8; 3], out: &mut Vec<Shape>, labels: &mut Vec<Shape>) {
    out.push(Shape::Circle { centre: at, radius: 0.5, fill: Some(with_alpha(colour, 255)), stroke: Some(Stroke::solid(palette::FRONT_EDGE, 0.1)) });
    out.push(star(at, 0.35, palette::FRONT_EDGE));
    labels.push(Shape::Label { at: at + Vec2::new(0.0, -0.95), text: name.to_string(), size: 0.45, colour: with_alpha(shade(colour, 0.55), 255), kind: LabelKind::Unit });
}

/// A supply wagon seen from above, as a 28mm model with its team (about 4" long): the wagon
/// bed in its side's colour with its wheels, the canvas cover and its hoops, the tongue and a
/// team of four ahead; its name below. `at` is the middle of the wagon bed.
pub fn wagon(name: &str, at: Vec2, colour: [u8; 3], out: &mut Vec<Shape>, labels: &mut Vec<Shape>) {
    let p = |x: f32, y: f32| at + Vec2::new(x, y);
    let rect = |x0: f32, y0: f32, x1: f32, y1: f32| vec![p(x0, y0), p(x1, y0), p(x1, y1), p(x0, y1)];
    let edge = Stroke::solid(palette::STAND_EDGE, 0.05);
    // Wheels first, so the bed covers their inner halves.
    for (x, y) in [(-0.75, -0.55), (-0.75, 0.55), (0.7, -0.55), (0.7, 0.55)] {
        out.push(Shape::Polygon { points: rect(x - 0.3, y - 0.08, x + 0.3, y + 0.08), fill: Some(palette::STAND_EDGE), stroke: None });
    }
    out.push(Shape::Polygon { points: rect(-1.1, -0.55, 1.0, 0.55), fill: Some(with_alpha(colour, 255)), stroke: Some(edge) });
    // The canvas bows a little out over the bed's ends.
    let cover = vec![p(-1.2, -0.3), p(-1.05, -0.45), p(0.85, -0.45), p(0.95, -0.3), p(0.95, 0.3), p(0.85, 0.45), p(-1.05, 0.45), p(-1.2, 0.3)];
    out.push(Shape::Polygon { points: cover, fill: Some(palette::CANVAS), stroke: Some(Stroke::solid(palette::HOOP, 0.05)) });
    for x in [-0.7, -0.25, 0.2, 0.6] {
        out.push(Shape::Line { points: vec![p(x, -0.45), p(x, 0.45)], stroke: Stroke::solid(palette::HOOP, 0.06) });
    }
    out.push(Shape::Line { points: vec![p(1.0, 0.0), p(2.0, 0.0)], stroke: Stroke::solid(palette::STAND_EDGE, 0.08) });
    // Two pairs of horses, heads forward.
    for x in [1.55, 2.45] {
        for y in [-0.25, 0.25] {
            let horse: Vec<Vec2> = (0..10).map(|i| {
                let a = i as f32 / 10.0 * std::f32::consts::TAU;
                p(x + 0.36 * a.cos(), y + 0.13 * a.sin())
            }).collect();
            out.push(Shape::Polygon { points: horse, fill: Some(palette::HORSE), stroke: Some(Stroke::solid(palette::STAND_EDGE, 0.03)) });
            out.push(Shape::Circle { centre: p(x + 0.42, y), radius: 0.09, fill: Some(palette::HORSE), stroke: None });
        }
    }
    labels.push(Shape::Label { at: p(0.6, -1.05), text: name.to_string(), size: 0.42, colour: with_alpha(shade(colour, 0.55), 255), kind: LabelKind::Unit });
}

/// Where `wagon` draws, about its `at`, for hit tests and keeping labels clear: (left, bottom)
/// and (right, top) in table inches.
pub const WAGON_EXTENT: ([f32; 2], [f32; 2]) = ([-1.2, -0.65], [2.9, 0.65]);

/// Rough width of a label in the same units as `size` (DejaVu Sans averages ~0.55 em a letter).
pub fn label_width(text: &str, size: f32) -> f32 {
    text.chars().count() as f32 * size * 0.55
}

/// An axis-aligned box (`min` ≤ `max` on both axes), in whatever units the caller places in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub min: Vec2,
    pub max: Vec2,
}

impl Area {
    pub fn around(centre: Vec2, size: Vec2) -> Area {
        Area { min: centre - size / 2.0, max: centre + size / 2.0 }
    }
    pub fn of_points(points: &[Vec2]) -> Area {
        let (min, max) = bounds(points);
        Area { min, max }
    }
    pub fn centre(&self) -> Vec2 {
        (self.min + self.max) / 2.0
    }
    /// Area of the overlap with `o` (0 if they only touch).
    pub fn overlap(&self, o: &Area) -> f32 {
        let d = self.max.min(o.max) - self.min.max(o.min);
        if d.x > 0.0 && d.y > 0.0 { d.x * d.y } else { 0.0 }
    }
    pub fn contains(&self, o: &Area) -> bool {
        self.min.x <= o.min.x && self.min.y <= o.min.y && o.max.x <= self.max.x && o.max.y <= self.max.y
    }
    pub fn expand(&self, by: f32) -> Area {
        Area { min: self.min - Vec2::splat(by), max: self.max + Vec2::splat(by) }
    }
}

/// A label to place: its box size, the point it belongs at, the directions it would rather move
/// in when that point is taken (first best), and where it sat last time (offset from `anchor`).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelAsk {
    pub anchor: Vec2,
    pub size: Vec2,
    pub prefer: Vec2,
    pub previous: Option<Vec2>,
}

/// Where a label went: its centre, and whether the spot is clear of everything else.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub centre: Vec2,
    pub clear: bool,
}

/// How much better (in the units placed in) a new spot must be before a label leaves a clear
/// spot it already has: labels do not hop about while something else moves nearby.
const LABEL_HYSTERESIS: f32 = 0.6;
/// Clear space kept between a label and what it avoids, as a share of its height.
const LABEL_GAP: f32 = 0.12;

/// How far a label is from where it belongs, in label heights; moving along the preferred
/// direction costs half.
fn offset_cost(o: Vec2, size: Vec2, prefer: Vec2) -> f32 {
    let o = o / size.y;
    o.length() - 0.5 * o.dot(prefer).max(0.0)
}

/// Candidate offsets from the anchor, best first: nearest first, on the preferred side first.
/// Steps are a quarter of the label's width across and half its height up and down, out to three
/// widths and ten heights, so a crowded line of units can stack its names behind it.
fn label_offsets(size: Vec2, prefer: Vec2) -> Vec<(f32, Vec2)> {
    let prefer = prefer.normalize_or_zero();
    let (sx, sy) = (size.x / 4.0, size.y / 2.0);
    let mut out = Vec::with_capacity(25 * 41);
    for i in -12i32..=12 {
        for j in -20i32..=20 {
            let o = Vec2::new(i as f32 * sx, j as f32 * sy);
            out.push((offset_cost(o, size, prefer), o));
        }
    }
    // Ties broken by position, so the order (and the choice) never depends on the sort.
    out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.y.total_cmp(&b.1.y)).then(a.1.x.total_cmp(&b.1.x)));
    out
}

/// Place labels in the order given, each clear of `taken` (stands, badges, labels placed before
/// it) and inside `within`: the nearest clear spot, or the least covered one if none is clear.
/// A label keeps its `previous` spot while that is clear and not much worse than the best, so
/// the same input gives the same places and a small change elsewhere moves nothing. Every
/// label's box is added to `taken`. Works in any units (screen points in the window, inches for
/// `otp render`), y either way.
pub fn place_labels(asks: &[LabelAsk], taken: &mut Vec<Area>, within: Area) -> Vec<Placed> {
    let mut out = Vec::with_capacity(asks.len());
    for ask in asks {
        let gap = ask.size.y * LABEL_GAP;
        let cost_of = |o: Vec2| offset_cost(o, ask.size, ask.prefer.normalize_or_zero());
        let clear = |taken: &[Area], c: Vec2| {
            let b = Area::around(c, ask.size);
            within.contains(&b) && !taken.iter().any(|t| t.overlap(&b.expand(gap)) > 0.0)
        };
        let offsets = label_offsets(ask.size, ask.prefer);
        let best = offsets.iter().find(|(_, o)| clear(taken, ask.anchor + *o)).map(|&(_, o)| o);
        let kept = ask.previous.filter(|&p| clear(taken, ask.anchor + p) && best.is_none_or(|b| cost_of(p) <= cost_of(b) + LABEL_HYSTERESIS));
        let placed = match kept.or(best) {
            Some(o) => Placed { centre: ask.anchor + o, clear: true },
            None => {
                // Nowhere clear: the least covered of the nearer spots.
                let covered = |o: Vec2| {
                    let b = Area::around(ask.anchor + o, ask.size);
                    taken.iter().map(|t| t.overlap(&b)).sum::<f32>() + if within.contains(&b) { 0.0 } else { ask.size.x * ask.size.y }
                };
                let o = offsets.iter().take(300).map(|&(c, o)| (covered(o) + c, o)).min_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, o)| o).unwrap_or(Vec2::ZERO);
                Placed { centre: ask.anchor + o, clear: false }
            }
        };
        taken.push(Area::around(placed.centre, ask.size));
        out.push(placed);
    }
    out
}

/// Move unit labels that would overprint another label or a stand (`otp render`'s set-up), with
/// the window's placement; `scale` converts a label's `size` into the units of `at` (1 for inches).
pub fn declutter(labels: &mut [Shape], stands: &[Footprint], scale: f32, width: f32, depth: f32) {
    let mut taken: Vec<Area> = stands.iter().map(|f| Area::of_points(&f.corners())).collect();
    let within = Area { min: Vec2::splat(-1.0), max: Vec2::new(width + 1.0, depth + 1.0) };
    for shape in labels.iter_mut() {
        let Shape::Label { at, text, size, kind, .. } = shape else { continue };
        let box_size = Vec2::new(label_width(text, *size * scale), *size * scale * 1.2);
        if *kind != LabelKind::Unit {
            taken.push(Area::around(*at, box_size));
            continue;
        }
        let ask = LabelAsk { anchor: *at, size: box_size, prefer: Vec2::ZERO, previous: None };
        *at = place_labels(&[ask], &mut taken, within)[0].centre;
    }
}

/// The whole set-up of a scenario as it starts: table, units and commanders.
pub fn setup(scenario: &Scenario) -> Picture {
    setup_with_labels(scenario, 1.0)
}

/// [`setup`] with every label `text` times its size, units' and commanders' labels drawn in
/// nearer to them to match, before they are placed clear of each other: a table printed at true
/// size wants letters a fifth of an inch high, not the half inch a whole-table view needs.
pub fn setup_with_labels(scenario: &Scenario, text: f32) -> Picture {
    let mut picture = table(scenario);
    let shrink = |label: Option<&mut Shape>, towards: Vec2, by: f32| {
        if let Some(Shape::Label { at, size, .. }) = label {
            *size *= text;
            *at += towards * by * (1.0 - text);
        }
    };
    if text != 1.0 {
        for shape in &mut picture.shapes {
            shrink(Some(shape), Vec2::ZERO, 0.0);
        }
    }
    let mut labels = Vec::new();
    let mut all_stands = Vec::new();
    for (si, side) in scenario.sides.iter().enumerate() {
        let colour = side_colour(side, si);
        for b in &side.brigades {
            for u in &b.units {
                let stands: Vec<Footprint> = basing::layout(u, &scenario.basing).map(|v| v.into_iter().map(|(f, _)| f).collect()).unwrap_or_default();
                let look = UnitLook { name: &u.name, arm: u.arm, figures: u.figures, colour, morale_marker: u.morale_marker, selected: false };
                unit(&look, &stands, &mut picture.shapes, &mut labels);
                if text != 1.0 && !stands.is_empty() {
                    shrink(labels.last_mut(), stands[0].forward(), 0.45);
                }
                all_stands.extend(stands);
            }
            let at = b.commander.at.map(Vec2::from).unwrap_or_else(|| crate::scenario::spawn::behind_unit(&b.units[0]));
            commander(&b.commander.name, at, colour, &mut picture.shapes, &mut labels);
            if text != 1.0 {
                shrink(labels.last_mut(), Vec2::Y, 0.35);
            }
        }
        if let Some(c) = &side.commander
            && let Some(at) = c.at
        {
            commander(&c.name, Vec2::from(at), colour, &mut picture.shapes, &mut labels);
            if text != 1.0 {
                shrink(labels.last_mut(), Vec2::Y, 0.35);
            }
        }
    }
    declutter(&mut labels, &all_stands, 1.0, picture.width, picture.depth);
    picture.shapes.extend(labels);
    picture
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unit's stands and its label request at a zoom, on a screen with y down: what the
    /// window asks of `place_labels` (unit labels 13 points high at Fit zoom, bold DejaVu Sans
    /// about 0.62 em a letter, tag padding 4 by 1).
    #[allow(clippy::type_complexity)] // a test fixture: the layout, its asks and the view transform
    fn cowpens_at(area: Vec2) -> (Vec<Area>, Vec<LabelAsk>, Area, Vec<Vec<Footprint>>, impl Fn(Vec2) -> Vec2) {
        let scenario = crate::scenario::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/cowpens.ron"))).expect("cowpens loads");
        let (w, d) = (scenario.table.width, scenario.table.depth);
        // As `View::fit`: the table and a 1.5" margin fill the area.
        let ppi = (area.x / (w + 3.0)).min(area.y / (d + 3.0));
        let to_screen = move |p: Vec2| Vec2::new(area.x / 2.0 + (p.x - w / 2.0) * ppi, area.y / 2.0 - (p.y - d / 2.0) * ppi);
        let mut stands_of = Vec::new();
        let mut asks = Vec::new();
        for side in &scenario.sides {
            for b in &side.brigades {
                for u in &b.units {
                    let stands: Vec<Footprint> = basing::layout(u, &scenario.basing).expect("layout").into_iter().map(|(f, _)| f).collect();
                    let look = UnitLook { name: &u.name, arm: u.arm, figures: u.figures, colour: [0, 0, 0], morale_marker: false, selected: false };
                    let (mut shapes, mut labels) = (Vec::new(), Vec::new());
                    unit(&look, &stands, &mut shapes, &mut labels);
                    let Some(Shape::Label { at, text, .. }) = labels.first() else { panic!("a unit label") };
                    let centre = stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len() as f32;
                    let px = 13.0;
                    let size = Vec2::new(text.chars().count() as f32 * px * 0.62 + 8.0, px * 1.2 + 2.0);
                    asks.push(LabelAsk { anchor: to_screen(*at), size, prefer: to_screen(*at) - to_screen(centre), previous: None });
                    stands_of.push(stands);
                }
            }
        }
        let boxes = |stands: &[Vec<Footprint>]| stands.iter().flatten().map(|f| Area::of_points(&f.corners().map(to_screen))).collect::<Vec<_>>();
        let stand_boxes = boxes(&stands_of);
        (stand_boxes, asks, Area { min: Vec2::ZERO, max: area }, stands_of, to_screen)
    }

    #[test]
    fn cowpens_at_fit_zoom_labels_every_unit_with_no_overlaps() {
        // The table area left by the panels at 1280x800 and at 1024x640.
        for area in [Vec2::new(1280.0, 600.0), Vec2::new(1024.0, 460.0)] {
            let (stands, asks, within, _, _) = cowpens_at(area);
            let mut taken = stands.clone();
            let placed = place_labels(&asks, &mut taken, within);
            assert_eq!(placed.len(), 23, "every unit of Cowpens has a label");
            let boxes: Vec<Area> = placed.iter().zip(&asks).map(|(p, a)| Area::around(p.centre, a.size)).collect();
            for (i, b) in boxes.iter().enumerate() {
                assert!(placed[i].clear, "{area}: label {i} found no clear spot");
                assert!(within.contains(b), "{area}: label {i} off the table area");
                assert!(stands.iter().all(|s| s.overlap(b) == 0.0), "{area}: label {i} is on a stand");
                assert!(boxes.iter().enumerate().all(|(j, o)| j == i || o.overlap(b) == 0.0), "{area}: label {i} overprints another");
            }
        }
    }

    #[test]
    fn labels_stay_put_when_another_unit_is_dragged_a_little_and_the_same_input_places_the_same() {
        let area = Vec2::new(1280.0, 600.0);
        let (stands, asks, within, stands_of, to_screen) = cowpens_at(area);
        let first = place_labels(&asks, &mut stands.clone(), within);
        assert_eq!(first, place_labels(&asks, &mut stands.clone(), within), "same input, same places");
        // Drag the middle unit half an inch forward (the window's drag step), placing again from
        // where every label was.
        let moved = asks.len() / 2;
        let mut dragged_stands = stands_of.clone();
        for f in &mut dragged_stands[moved] {
            f.centre += f.forward() * 0.5;
        }
        let shift = to_screen(dragged_stands[moved][0].centre) - to_screen(stands_of[moved][0].centre);
        let again_asks: Vec<LabelAsk> = asks
            .iter()
            .zip(&first)
            .enumerate()
            .map(|(i, (a, p))| LabelAsk { anchor: if i == moved { a.anchor + shift } else { a.anchor }, previous: Some(p.centre - a.anchor), ..a.clone() })
            .collect();
        let stand_boxes: Vec<Area> = dragged_stands.iter().flatten().map(|f| Area::of_points(&f.corners().map(&to_screen))).collect();
        let again = place_labels(&again_asks, &mut stand_boxes.clone(), within);
        // Only a label whose spot the dragged unit (or its label) now covers may move.
        let moved_boxes: Vec<Area> = dragged_stands[moved].iter().map(|f| Area::of_points(&f.corners().map(&to_screen))).chain([Area::around(again[moved].centre, asks[moved].size)]).collect();
        let mut unmoved = 0;
        for (i, (a, b)) in first.iter().zip(&again).enumerate() {
            if i == moved {
                continue;
            }
            let was = Area::around(a.centre, asks[i].size).expand(asks[i].size.y * LABEL_GAP);
            if moved_boxes.iter().any(|m| m.overlap(&was) > 0.0) {
                continue;
            }
            assert_eq!(a.centre, b.centre, "label {i} jumped though nothing came near it");
            unmoved += 1;
        }
        assert!(unmoved >= 18, "{unmoved} labels checked");
    }

    #[test]
    fn a_label_keeps_its_place_unless_a_much_better_one_opens() {
        let within = Area { min: Vec2::splat(-100.0), max: Vec2::splat(100.0) };
        let size = Vec2::new(40.0, 10.0);
        // Its own spot is free: it goes there.
        let ask = LabelAsk { anchor: Vec2::ZERO, size, prefer: Vec2::Y, previous: None };
        assert_eq!(place_labels(std::slice::from_ref(&ask), &mut vec![], within)[0].centre, Vec2::ZERO);
        // Covered: it moves out along the preferred direction (y here) before any other.
        let block = Area::around(Vec2::ZERO, Vec2::new(30.0, 8.0));
        let p = place_labels(std::slice::from_ref(&ask), &mut vec![block], within)[0];
        assert!(p.clear && p.centre.y > 0.0 && p.centre.x == 0.0, "{p:?}");
        // Once the block goes, a slightly displaced label stays; a far one comes home.
        let near = LabelAsk { previous: Some(Vec2::new(0.0, 5.0)), ..ask.clone() };
        assert_eq!(place_labels(&[near], &mut vec![], within)[0].centre, Vec2::new(0.0, 5.0));
        let far = LabelAsk { previous: Some(Vec2::new(0.0, 60.0)), ..ask };
        assert_eq!(place_labels(&[far], &mut vec![], within)[0].centre, Vec2::ZERO);
    }
}
