//! A plain-data snapshot of the table: every unit's stands and the terrain, so the CLI, the
//! window and the rules engine all ask the table's questions of the same thing.
//!
//! Built from a scenario file (`from_scenario`) or from the ECS world (`from_world`). The
//! snapshot also keeps what the questions need again and again: stand corners, ground
//! elevation under each stand, terrain outlines as points, and a grid of stands for the
//! sight-line sweep. Change units only through `new`/`with_stands` so that all of it agrees.

use bevy::math::Vec2;
use bevy::prelude::{Entity, World};
use serde::Serialize;

use super::footprint::Footprint;
use super::geom::{Aabb, turn_about};
use crate::picture::inside;
use crate::scenario::basing::{self, BasingError};
use crate::scenario::model::{Arm, Basing, Formation, GunSize, Point, Scenario, Table, Terrain, Unit, UnitType, Weapon};
use crate::scenario::spawn::{self, Battlefield, Stand};

/// One stand: where it is and how many figures it carries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StandInfo {
    pub footprint: Footprint,
    pub figures: u32,
}

/// What the geometry needs to know about a unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitInfo {
    pub name: String,
    /// Index of the side in the scenario; units of different sides are enemies.
    pub side: usize,
    pub arm: Arm,
    pub unit_type: UnitType,
    pub weapon: Option<Weapon>,
    pub formation: Formation,
    /// Militia may skirmish only when the scenario says so (5.3).
    pub can_skirmish: bool,
    /// Gap between stands in skirmish line or loose order (5.3, 5.4); 0 in line.
    pub gap: f32,
    /// Front (or left-hand) stand first, as laid out by the basing rules.
    pub stands: Vec<StandInfo>,
    /// For an artillery stand attached to infantry (7.5): the infantry unit's name.
    pub attached_to: Option<String>,
}

impl UnitInfo {
    /// A scenario unit with its stands laid out by the basing rules (1.1–1.3, 5.1–5.4).
    pub fn from_model(unit: &Unit, side: usize, basing: &Basing) -> Result<Self, BasingError> {
        let stands = basing::layout(unit, basing)?.into_iter().map(|(footprint, figures)| StandInfo { footprint, figures }).collect();
        Ok(UnitInfo {
            name: unit.name.clone(),
            side,
            arm: unit.arm,
            unit_type: unit.unit_type,
            weapon: unit.weapon,
            formation: unit.formation,
            can_skirmish: unit.can_skirmish,
            gap: basing::formation_gap(unit),
            stands,
            attached_to: unit.attached_to.clone(),
        })
    }

    /// A unit laid out by the basing rules with default stand depths: for tests, benchmarks and
    /// quick sketches. `at` is the centre of the front edge, as in a scenario file.
    #[allow(clippy::too_many_arguments)]
    pub fn sketch(name: &str, side: usize, unit_type: UnitType, arm: Arm, weapon: Option<Weapon>, figures: u32, formation: Formation, at: Vec2, facing: f32) -> UnitInfo {
        let unit = blank_unit(name, unit_type, arm, weapon, figures, formation, at, facing);
        UnitInfo::from_model(&unit, side, &Basing::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Line infantry with muskets (1.1: four figures a stand, 2" each).
    pub fn foot(name: &str, side: usize, figures: u32, formation: Formation, at: Vec2, facing: f32) -> UnitInfo {
        UnitInfo::sketch(name, side, UnitType::Line, Arm::Infantry, Some(Weapon::Musket), figures, formation, at, facing)
    }

    /// A battery of `guns` guns (1.3: a 1" front a section of two).
    pub fn battery(name: &str, side: usize, gun: GunSize, guns: u32, formation: Formation, at: Vec2, facing: f32) -> UnitInfo {
        UnitInfo::sketch(name, side, UnitType::Line, Arm::Artillery { gun, galloper: false }, None, guns, formation, at, facing)
    }

    pub fn figures(&self) -> u32 {
        self.stands.iter().map(|s| s.figures).sum()
    }

    pub fn footprints(&self) -> Vec<Footprint> {
        self.stands.iter().map(|s| s.footprint).collect()
    }

    pub fn gun(&self) -> Option<GunSize> {
        match self.arm {
            Arm::Artillery { gun, .. } => Some(gun),
            _ => None,
        }
    }

    /// Mounted for the costs of 6.7: cavalry, and artillery while limbered.
    pub fn mounted(&self) -> bool {
        matches!(self.arm, Arm::Cavalry) || (self.gun().is_some() && self.formation == Formation::Limbered)
    }

    /// Moves as a march column: one stand behind another (5.1); limbered guns move the same way.
    pub fn in_column(&self) -> bool {
        matches!(self.formation, Formation::Column | Formation::Limbered)
    }

    /// Stands abreast in one rank: line, loose order or skirmish line (5.2–5.4), an extended or
    /// dismounted line.
    pub fn abreast(&self) -> bool {
        matches!(self.formation, Formation::Line | Formation::LooseOrder | Formation::Skirmish | Formation::ExtendedLine | Formation::Dismounted)
    }

    /// A line whose stands no longer all face the same way (6.4 conforming to cover).
    pub fn is_bent(&self) -> bool {
        let Some(first) = self.stands.first() else { return false };
        self.abreast()
            && self.stands.iter().any(|s| {
                let d = (s.footprint.facing - first.footprint.facing).rem_euclid(360.0);
                d.min(360.0 - d) > 0.5
            })
    }

    /// The model unit this one stands for, as the basing rules would lay it out afresh in
    /// `formation` with its front centre at `at` (for changes of formation, 6.2).
    pub(crate) fn relaid(&self, formation: Formation, at: Vec2, facing: f32) -> Result<Vec<Footprint>, BasingError> {
        let per = self.stands.iter().map(|s| s.figures).max().unwrap_or(1);
        let mut unit = blank_unit(&self.name, self.unit_type, self.arm, self.weapon, self.figures(), formation, at, facing);
        unit.figures_per_stand = (!matches!(self.arm, Arm::Artillery { .. })).then_some(per);
        unit.can_skirmish = self.can_skirmish;
        unit.gap = (self.gap > 0.0).then_some(self.gap);
        let depth = self.stands.first().map(|s| s.footprint.depth).unwrap_or(0.75);
        let basing = Basing { infantry_depth: depth, cavalry_depth: depth, artillery_depth: depth };
        Ok(basing::layout(&unit, &basing)?.into_iter().map(|(f, _)| f).collect())
    }
}

/// A scenario unit with nothing but what the basing rules need (skirmishing allowed: 5.3 is the
/// rules engine's to enforce on a real scenario).
#[allow(clippy::too_many_arguments)]
fn blank_unit(name: &str, unit_type: UnitType, arm: Arm, weapon: Option<Weapon>, figures: u32, formation: Formation, at: Vec2, facing: f32) -> Unit {
    Unit {
        name: name.into(),
        unit_type,
        arm,
        weapon,
        bayonets: None,
        figures,
        figures_per_stand: None,
        cv: None,
        can_skirmish: true,
        formation,
        at: at.to_array(),
        facing,
        gap: None,
        attached_to: None,
        morale_marker: false,
        men: None,
        purky: None,
        revolution: None,
        acw: None,
    }
}

/// A terrain feature's outline as points: an area, a ribbon (stream, road) or a line (obstacle).
#[derive(Clone, Debug, PartialEq)]
pub enum Outline {
    Area(Vec<Vec2>),
    Ribbon { path: Vec<Vec2>, half_width: f32 },
    Line(Vec<Vec2>),
}

/// One terrain feature as geometry; `index` points into `Situation::terrain()` for what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    pub index: usize,
    pub outline: Outline,
    pub bbox: Aabb,
}

/// One stand, flattened, with what the questions need precomputed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StandRec {
    pub unit: usize,
    pub footprint: Footprint,
    pub corners: [Vec2; 4],
    /// The box around the corners: no point of the stand is nearer anything than it.
    pub bbox: Aabb,
    pub right: Vec2,
    pub forward: Vec2,
    pub radius: f32,
    /// Ground level under the stand's centre (hill contours, 8.8).
    pub elevation: u32,
}

/// Stands (or units) by the grid cell of their centre, so a sight line looks only at stands near it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    items: Vec<u32>,
    /// The largest radius: a query box grows by this to catch items centred outside it.
    reach: f32,
}

impl Grid {
    const CELL: f32 = 4.0;

    /// A grid of circles (centre, radius).
    fn build(circles: &[(Vec2, f32)]) -> Grid {
        if circles.is_empty() {
            return Grid::default();
        }
        let bounds = Aabb::of(&circles.iter().map(|c| c.0).collect::<Vec<_>>());
        let cols = ((bounds.max.x - bounds.min.x) / Self::CELL) as usize + 1;
        let rows = ((bounds.max.y - bounds.min.y) / Self::CELL) as usize + 1;
        let mut g = Grid { origin: bounds.min, cell: Self::CELL, cols, rows, ..Default::default() };
        let cell_of: Vec<usize> = circles.iter().map(|c| g.cell_index(c.0)).collect();
        let mut counts = vec![0u32; cols * rows + 1];
        for &c in &cell_of {
            counts[c + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        g.items = vec![0; circles.len()];
        for (i, &c) in cell_of.iter().enumerate() {
            g.items[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
        g.starts = counts;
        g.reach = circles.iter().map(|c| c.1).fold(0.0, f32::max);
        g
    }

    fn clamp_cell(&self, v: f32, n: usize) -> usize {
        // The cast truncates towards zero and takes anything negative (or NaN) to 0: as `floor`
        // then `max(0.0)`, without the call.
        ((v / self.cell) as usize).min(n - 1)
    }

    fn cell_index(&self, p: Vec2) -> usize {
        let d = p - self.origin;
        self.clamp_cell(d.y, self.rows) * self.cols + self.clamp_cell(d.x, self.cols)
    }

    /// Calls `f` with every item whose circle may reach into `area`.
    pub fn query(&self, area: Aabb, mut f: impl FnMut(usize)) {
        if self.items.is_empty() {
            return;
        }
        let a = area.grow(self.reach);
        let (lo, hi) = (a.min - self.origin, a.max - self.origin);
        if hi.x < 0.0 || hi.y < 0.0 || lo.x > self.cols as f32 * self.cell || lo.y > self.rows as f32 * self.cell {
            return;
        }
        let (c0, c1) = (self.clamp_cell(lo.x, self.cols), self.clamp_cell(hi.x, self.cols));
        for r in self.clamp_cell(lo.y, self.rows)..=self.clamp_cell(hi.y, self.rows) {
            let (s, e) = (self.starts[r * self.cols + c0] as usize, self.starts[r * self.cols + c1 + 1] as usize);
            self.items[s..e].iter().for_each(|&i| f(i as usize));
        }
    }
}

/// The table at one moment: units, terrain and the table's edge.
#[derive(Clone, Debug)]
pub struct Situation {
    table: Table,
    /// The table's corners; turned and shifted with everything else by `transformed`.
    edge: [Vec2; 4],
    terrain: Vec<Terrain>,
    units: Vec<UnitInfo>,
    pub(crate) features: Vec<Feature>,
    pub(crate) stands: Vec<StandRec>,
    /// For each unit, the range of its stands in `stands`, and a circle around them all.
    pub(crate) spans: Vec<(std::ops::Range<usize>, Vec2, f32)>,
    /// For each unit, the box around its stands' corners (far tighter than the circle for a line).
    pub(crate) boxes: Vec<Aabb>,
    pub(crate) grid: Grid,
    /// Units by the cell of their circle's centre, for questions asked unit against unit.
    pub(crate) unit_grid: Grid,
}

fn to_vec2(points: &[Point]) -> Vec<Vec2> {
    points.iter().map(|&p| Vec2::from(p)).collect()
}

fn feature(index: usize, t: &Terrain) -> Feature {
    let outline = match t {
        Terrain::Woods { outline, .. } | Terrain::Hill { outline, .. } | Terrain::Town { outline, .. } | Terrain::Field { outline, .. } => {
            Outline::Area(to_vec2(outline))
        }
        Terrain::Building { at, size, facing, .. } => {
            Outline::Area(Footprint { centre: Vec2::from(*at), facing: *facing, frontage: size[0], depth: size[1] }.corners().to_vec())
        }
        Terrain::Stream { path, width, .. } | Terrain::Road { path, width, .. } => Outline::Ribbon { path: to_vec2(path), half_width: width / 2.0 },
        Terrain::Obstacle { path, .. } => Outline::Line(to_vec2(path)),
    };
    let bbox = match &outline {
        Outline::Area(p) | Outline::Line(p) => Aabb::of(p),
        Outline::Ribbon { path, half_width } => Aabb::of(path).grow(*half_width),
    };
    Feature { index, outline, bbox }
}

fn map_points(points: &mut [Point], f: &impl Fn(Vec2) -> Vec2) {
    points.iter_mut().for_each(|p| *p = f(Vec2::from(*p)).to_array());
}

impl Situation {
    pub fn new(table: Table, terrain: Vec<Terrain>, units: Vec<UnitInfo>) -> Situation {
        let edge = [Vec2::ZERO, Vec2::new(table.width, 0.0), Vec2::new(table.width, table.depth), Vec2::new(0.0, table.depth)];
        Situation::build(table, edge, terrain, units)
    }

    fn build(table: Table, edge: [Vec2; 4], terrain: Vec<Terrain>, units: Vec<UnitInfo>) -> Situation {
        let features: Vec<Feature> = terrain.iter().enumerate().map(|(i, t)| feature(i, t)).collect();
        let mut s = Situation { table, edge, terrain, units, features, stands: Vec::new(), spans: Vec::new(), boxes: Vec::new(), grid: Grid::default(), unit_grid: Grid::default() };
        for (u, unit) in s.units.iter().enumerate() {
            let first = s.stands.len();
            for st in &unit.stands {
                let f = st.footprint;
                let corners = f.corners();
                s.stands.push(StandRec {
                    unit: u,
                    footprint: f,
                    corners,
                    bbox: Aabb::of(&corners),
                    right: f.right(),
                    forward: f.forward(),
                    radius: (f.frontage.hypot(f.depth)) / 2.0,
                    elevation: s.ground_elevation(f.centre),
                });
            }
            let corners: Vec<Vec2> = s.stands[first..].iter().flat_map(|r| r.corners).collect();
            let b = Aabb::of(&corners);
            let centre = (b.min + b.max) / 2.0;
            let radius = corners.iter().map(|c| c.distance(centre)).fold(0.0, f32::max);
            s.spans.push((first..s.stands.len(), centre, radius));
            s.boxes.push(b);
        }
        s.grid = Grid::build(&s.stands.iter().map(|r| (r.footprint.centre, r.radius)).collect::<Vec<_>>());
        s.unit_grid = Grid::build(&s.spans.iter().map(|(_, c, r)| (*c, *r)).collect::<Vec<_>>());
        s
    }

    /// Every unit of every side, stands laid out by the basing rules. Units whose figures cannot
    /// be based are left out (a validated scenario has none).
    pub fn from_scenario(scenario: &Scenario) -> Situation {
        let units = scenario
            .sides
            .iter()
            .enumerate()
            .flat_map(|(side, s)| s.brigades.iter().flat_map(move |b| b.units.iter().map(move |u| (side, u))))
            .filter_map(|(side, u)| UnitInfo::from_model(u, side, &scenario.basing).ok())
            .collect();
        Situation::new(scenario.table, scenario.terrain.clone(), units)
    }

    /// The units and stands spawned in the world (spawn.rs), with the `Battlefield`'s terrain.
    /// A world without a `Battlefield` gives a bare table.
    pub fn from_world(world: &World) -> Situation {
        let mut found: Vec<(Entity, UnitInfo)> = match world.try_query::<(Entity, &spawn::Unit)>() {
            Some(mut q) => q
                .iter(world)
                .map(|(e, u)| {
                    let stands: Vec<StandInfo> = u
                        .stands
                        .iter()
                        .filter_map(|&s| Some(StandInfo { footprint: *world.get::<Footprint>(s)?, figures: world.get::<Stand>(s)?.figures }))
                        .collect();
                    // The gap is not kept on the entity: measure it (5.3, 5.4), only where there is one.
                    let spread = matches!(u.formation, Formation::Skirmish | Formation::LooseOrder | Formation::ExtendedLine | Formation::Dismounted);
                    let gaps: Vec<f32> = if spread { stands.windows(2).map(|w| w[0].footprint.distance(&w[1].footprint)).collect() } else { Vec::new() };
                    let gap = if gaps.is_empty() { 0.0 } else { gaps.iter().sum::<f32>() / gaps.len() as f32 };
                    let info = UnitInfo {
                        name: u.name.clone(),
                        side: u.side,
                        arm: u.arm,
                        unit_type: u.unit_type,
                        weapon: u.weapon,
                        formation: u.formation,
                        can_skirmish: u.can_skirmish,
                        gap,
                        stands,
                        attached_to: u.attached_to.and_then(|h| world.get::<spawn::Unit>(h)).map(|h| h.name.clone()),
                    };
                    (e, info)
                })
                .collect(),
            None => Vec::new(),
        };
        let battlefield = world.get_resource::<Battlefield>();
        // List units in scenario order, as `from_scenario` does, whatever order the world keeps.
        let order: Vec<&str> = battlefield.iter().flat_map(|b| &b.scenario.sides).flat_map(|s| &s.brigades).flat_map(|b| &b.units).map(|u| u.name.as_str()).collect();
        found.sort_by_cached_key(|(e, u)| (order.iter().position(|n| *n == u.name).unwrap_or(usize::MAX), *e));
        let (table, terrain) = match battlefield {
            Some(b) => (b.scenario.table, b.scenario.terrain.clone()),
            None => (Table { width: 0.0, depth: 0.0 }, Vec::new()),
        };
        Situation::new(table, terrain, found.into_iter().map(|(_, u)| u).collect())
    }

    pub fn table(&self) -> Table {
        self.table
    }

    /// The table's four corners (turned with the table by `transformed`).
    pub fn edge(&self) -> [Vec2; 4] {
        self.edge
    }

    pub fn terrain(&self) -> &[Terrain] {
        &self.terrain
    }

    pub fn features(&self) -> &[Feature] {
        &self.features
    }

    pub fn units(&self) -> &[UnitInfo] {
        &self.units
    }

    pub fn unit(&self, index: usize) -> &UnitInfo {
        &self.units[index]
    }

    /// The same table with one unit's stands moved (after a move, a retreat, a formation change).
    pub fn with_stands(&self, unit: usize, footprints: &[Footprint], formation: Formation) -> Situation {
        let mut units = self.units.clone();
        let u = &mut units[unit];
        u.formation = formation;
        u.stands = footprints.iter().zip(u.stands.iter().map(|s| s.figures).chain(std::iter::repeat(0))).map(|(&footprint, figures)| StandInfo { footprint, figures }).collect();
        Situation::build(self.table, self.edge, self.terrain.clone(), units)
    }

    /// The same table with `lost` figures taken off `unit`'s stands, from its last stand forward
    /// (as fire takes them); the stands stay where they are, one left empty with no figures. For
    /// weighing what a loss does (a melee after closing fire), not for moving anything.
    pub fn with_losses(&self, unit: usize, lost: u32) -> Situation {
        let mut s = self.clone();
        let mut left = lost;
        for st in s.units[unit].stands.iter_mut().rev() {
            let take = left.min(st.figures);
            st.figures -= take;
            left -= take;
        }
        s
    }

    /// The whole table turned clockwise by `degrees` about the origin, then shifted by `shift`.
    /// No answer of this module changes (tests/geometry_props.rs holds it to that).
    pub fn transformed(&self, degrees: f32, shift: Vec2) -> Situation {
        let f = |p: Vec2| turn_about(p, Vec2::ZERO, degrees) + shift;
        let units = self
            .units
            .iter()
            .map(|u| UnitInfo {
                stands: u
                    .stands
                    .iter()
                    .map(|s| StandInfo {
                        footprint: Footprint { centre: f(s.footprint.centre), facing: (s.footprint.facing + degrees).rem_euclid(360.0), ..s.footprint },
                        ..*s
                    })
                    .collect(),
                ..u.clone()
            })
            .collect();
        let terrain = self
            .terrain
            .iter()
            .map(|t| {
                let mut t = t.clone();
                match &mut t {
                    Terrain::Woods { outline, .. } | Terrain::Hill { outline, .. } | Terrain::Town { outline, .. } | Terrain::Field { outline, .. } => {
                        map_points(outline, &f)
                    }
                    Terrain::Stream { path, fords, .. } => {
                        map_points(path, &f);
                        fords.iter_mut().for_each(|ford| ford.at = f(Vec2::from(ford.at)).to_array());
                    }
                    Terrain::Obstacle { path, .. } | Terrain::Road { path, .. } => map_points(path, &f),
                    Terrain::Building { at, facing, .. } => {
                        *at = f(Vec2::from(*at)).to_array();
                        *facing = (*facing + degrees).rem_euclid(360.0);
                    }
                }
                t
            })
            .collect();
        Situation::build(self.table, self.edge.map(f), terrain, units)
    }

    /// Ground level at a point: the highest hill contour it lies in (0 off the hills).
    pub fn ground_elevation(&self, p: Vec2) -> u32 {
        self.features.iter().filter_map(|f| self.hill_level(f, p)).max().unwrap_or(0)
    }

    /// The hills whose boxes meet `area`: ground levels at points inside it need only these
    /// (`ground_elevation_among`), for many points along a short way.
    pub(crate) fn hills_in(&self, area: Aabb) -> Vec<usize> {
        (0..self.features.len()).filter(|&i| matches!(self.terrain[self.features[i].index], Terrain::Hill { .. }) && self.features[i].bbox.grow(0.01).overlaps(&area)).collect()
    }

    /// Ground level at a point inside the area `hills` came from ([`Situation::hills_in`]).
    pub(crate) fn ground_elevation_among(&self, hills: &[usize], p: Vec2) -> u32 {
        hills.iter().filter_map(|&i| self.hill_level(&self.features[i], p)).max().unwrap_or(0)
    }

    fn hill_level(&self, f: &Feature, p: Vec2) -> Option<u32> {
        match (&self.terrain[f.index], &f.outline) {
            // Outside a hill's box (grown by a hair) the even-odd test cannot find it inside.
            (Terrain::Hill { elevation, .. }, Outline::Area(poly)) if f.bbox.grow(0.01).contains(p) && inside(poly, p) => Some(*elevation),
            _ => None,
        }
    }

    /// Ground level under a unit: the highest under any of its stands.
    pub fn unit_elevation(&self, unit: usize) -> u32 {
        self.stands[self.spans[unit].0.clone()].iter().map(|s| s.elevation).max().unwrap_or(0)
    }

    pub(crate) fn unit_stands(&self, unit: usize) -> &[StandRec] {
        &self.stands[self.spans[unit].0.clone()]
    }

    /// True when the point is on the table.
    pub fn on_table(&self, p: Vec2) -> bool {
        inside(&self.edge, p)
    }

    /// The index of the unit with this name; an error that names it and suggests near matches.
    pub fn find(&self, name: &str) -> Result<usize, String> {
        if let Some(i) = self.units.iter().position(|u| u.name == name) {
            return Ok(i);
        }
        let folded: Vec<usize> = (0..self.units.len()).filter(|&i| self.units[i].name.eq_ignore_ascii_case(name)).collect();
        if let [only] = folded[..] {
            return Ok(only);
        }
        let want = name.to_lowercase();
        let mut near: Vec<(usize, &str)> = self
            .units
            .iter()
            .map(|u| {
                let have = u.name.to_lowercase();
                let d = if have.contains(&want) || want.contains(&have) { 0 } else { edit_distance(&have, &want) };
                (d, u.name.as_str())
            })
            .filter(|&(d, n)| d <= (n.len() / 3).max(2))
            .collect();
        near.sort();
        let list = |names: Vec<&str>| names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        Err(if near.is_empty() {
            let all: Vec<&str> = self.units.iter().take(12).map(|u| u.name.as_str()).collect();
            format!("no unit named \"{name}\"; the units are: {}{}", list(all), if self.units.len() > 12 { ", …" } else { "" })
        } else {
            format!("no unit named \"{name}\"; did you mean {}?", list(near.into_iter().take(5).map(|(_, n)| n).collect()))
        })
    }
}

/// Levenshtein distance, for suggesting unit names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j])).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::default_scenario;

    #[test]
    fn scenario_and_world_give_the_same_situation() {
        // The CLI reads the file, the window reads the world: both must see the same table.
        let scenario = default_scenario();
        let a = Situation::from_scenario(&scenario);
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &scenario, "test");
        let b = Situation::from_world(&world);
        assert_eq!(a.units().len(), b.units().len());
        for (x, y) in a.units().iter().zip(b.units()) {
            assert_eq!(x.name, y.name);
            assert_eq!(x.stands, y.stands);
            assert!((x.gap - y.gap).abs() < 1e-3, "{}: gap {} vs {}", x.name, x.gap, y.gap);
        }
        assert_eq!(a.terrain(), b.terrain());
    }

    #[test]
    fn unknown_names_suggest_near_matches() {
        let s = Situation::from_scenario(&default_scenario());
        assert!(s.find("23rd foot").is_ok(), "case alone is forgiven when it is unambiguous");
        let e = s.find("23nd Foot").unwrap_err();
        assert!(e.contains("\"23nd Foot\"") && e.contains("\"23rd Foot\""), "{e}");
        let e = s.find("Maryland").unwrap_err();
        assert!(e.contains("\"1st Maryland\""), "{e}");
    }

    #[test]
    fn ground_elevation_follows_contours() {
        // OTP 8.8: elevations are the hill contours the scenario gives.
        let s = Situation::from_scenario(&default_scenario());
        assert_eq!(s.ground_elevation(Vec2::new(17.0, 17.0)), 2, "on Long Ridge crest");
        assert_eq!(s.ground_elevation(Vec2::new(7.0, 14.0)), 1, "on Long Ridge");
        assert_eq!(s.ground_elevation(Vec2::new(60.0, 20.0)), 0);
    }

    #[test]
    fn grid_finds_every_stand_near_a_box() {
        let s = Situation::from_scenario(&default_scenario());
        let area = Aabb { min: Vec2::new(15.0, 15.0), max: Vec2::new(30.0, 25.0) };
        let mut found = Vec::new();
        s.grid.query(area, |i| found.push(i));
        for (i, st) in s.stands.iter().enumerate() {
            if Aabb::of(&st.corners).overlaps(&area) {
                assert!(found.contains(&i), "stand {i} of {} missed", s.units()[st.unit].name);
            }
        }
    }
}
