//! The set-up editor's model (`otp edit`): a scenario changed one [`Edit`] at a time — the same
//! messages the window's mouse and forms send, so a test can build a table exactly as a designer
//! would — with undo and redo, live validation (`otp check`'s own messages, each on the item it
//! concerns) and a save that keeps the file's comments ([`splice`]).
//!
//! No window here: `ui/editor.rs` draws it and turns pointer gestures into edits.

pub mod palette;
pub mod pick;
pub mod splice;

use bevy::math::Vec2;

use crate::scenario::locate::{Locus, Step};
use crate::scenario::model::*;
use crate::scenario::{self, basing, validate};
use crate::table::footprint::bearing_vector;

/// A unit by its place in the file: side, brigade, unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnitRef {
    pub side: usize,
    pub brigade: usize,
    pub unit: usize,
}

/// One thing on the table the editor can pick, move, turn, copy or delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Terrain(usize),
    Objective(usize),
    Unit(UnitRef),
    /// A brigade's commander (`brigade: Some`), or the side's overall commander.
    Commander {
        side: usize,
        brigade: Option<usize>,
    },
    Wagon {
        side: usize,
        wagon: usize,
    },
}

/// The scenario's particulars, edited in the form: everything that is not placed on the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    pub name: String,
    pub rules: RuleSetId,
    pub description: String,
    pub history: Option<History>,
    pub table: Table,
    pub basing: Basing,
    pub optional_rules: OptionalRules,
    pub turn_limit: Option<u32>,
}

impl Details {
    pub fn of(s: &Scenario) -> Details {
        Details { name: s.name.clone(), rules: s.rules, description: s.description.clone(), history: s.history.clone(), table: s.table.clone(), basing: s.basing.clone(), optional_rules: s.optional_rules.clone(), turn_limit: s.turn_limit }
    }
}

/// One change to the scenario. Points and offsets are in inches; turns in degrees clockwise
/// (as compass bearings run).
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    AddTerrain(Terrain),
    /// A feature replaced (its form: name, density, elevation, capacity…).
    SetTerrain(usize, Terrain),
    /// Carried by an offset.
    Move(Item, [f32; 2]),
    /// Turned about its middle (a unit about the centre of its front edge).
    Turn(Item, f32),
    /// A unit, commander, wagon or objective put at a point (a unit: the centre of its front edge).
    Place(Item, Point),
    /// A unit faces this bearing.
    Face(UnitRef, f32),
    MoveVertex {
        terrain: usize,
        vertex: usize,
        to: Point,
    },
    /// A corner (or a bend of a path) inserted after `after`.
    InsertVertex {
        terrain: usize,
        after: usize,
        at: Point,
    },
    DeleteVertex {
        terrain: usize,
        vertex: usize,
    },
    /// A copy beside it (2" right and down).
    Copy(Item),
    Delete(Item),
    AddSide(Side),
    /// A side's name, colour, nation, commander, posture (its brigades as they are).
    SetSide(usize, Side),
    AddBrigade {
        side: usize,
        brigade: Brigade,
    },
    /// A brigade's name, chit, commander (his rating), posture (its units as they are).
    SetBrigade {
        side: usize,
        brigade: usize,
        to: Brigade,
    },
    AddUnit {
        side: usize,
        brigade: usize,
        unit: Unit,
    },
    SetUnit(UnitRef, Unit),
    /// Face as the friend faces, the front edge on his front line.
    AlignWith {
        unit: UnitRef,
        friend: UnitRef,
    },
    /// Face as the friend faces, flank to his flank (`right`: on his right).
    FormOnFlank {
        unit: UnitRef,
        friend: UnitRef,
        right: bool,
    },
    AddObjective(Objective),
    SetObjective(usize, Objective),
    Details(Box<Details>),
    /// A gate (or any gap) `width` inches wide cut in a fence, wall, barricade or breastwork where
    /// it passes nearest `at`: the feature becomes two with the gap between them. No rule set
    /// prices a gate, so it is what the table shows it to be: open ground between two ends of
    /// the obstruction (OTP 6.7 is paid only where the obstruction is).
    Gate { terrain: usize, at: Point, width: f32 },
}

/// The most edits kept for undo.
const UNDO_DEPTH: usize = 500;

/// A scenario being edited.
#[derive(Clone, Debug)]
pub struct Editor {
    pub scenario: Scenario,
    /// The text and scenario as last read or saved: what a save splices into (comments kept),
    /// and what "unsaved" is measured against.
    pub saved: Option<(String, Scenario)>,
    undo: Vec<Scenario>,
    redo: Vec<Scenario>,
}

impl Editor {
    /// A new, empty table: its size, rule set and sides (each with no brigades yet).
    pub fn blank(width: f32, depth: f32, rules: RuleSetId, sides: &[&str]) -> Editor {
        let scenario = Scenario {
            name: "New scenario".into(),
            rules,
            description: String::new(),
            history: None,
            table: Table { width, depth },
            basing: Basing::default(),
            optional_rules: OptionalRules::default(),
            terrain: Vec::new(),
            sides: sides.iter().map(|n| Side { name: n.to_string(), colour: None, commander: None, nation: None, moves_first: false, posture: None, brigades: Vec::new(), wagons: Vec::new() }).collect(),
            turn_limit: None,
            objectives: Vec::new(),
        };
        Editor { scenario, saved: None, undo: Vec::new(), redo: Vec::new() }
    }

    /// A scenario file's text, as read (it need not be valid: the editor is where it is mended,
    /// but it must parse).
    pub fn open(text: &str, file: &str) -> Result<Editor, scenario::ScenarioError> {
        let scenario: Scenario = scenario::from_ron(scenario::without_bom(text), file)?;
        Ok(Editor { saved: Some((text.to_string(), scenario.clone())), scenario, undo: Vec::new(), redo: Vec::new() })
    }

    /// Make one change; refused (nothing changed) when it names nothing or would leave a
    /// shape that is no shape.
    pub fn apply(&mut self, edit: &Edit) -> Result<(), String> {
        let mut next = self.scenario.clone();
        change(&mut next, edit)?;
        if next != self.scenario {
            self.undo.push(std::mem::replace(&mut self.scenario, next));
            if self.undo.len() > UNDO_DEPTH {
                self.undo.remove(0);
            }
            self.redo.clear();
        }
        Ok(())
    }

    /// Change without a new undo step: the rest of a drag whose first step [`Editor::apply`] took.
    pub fn apply_continuing(&mut self, edit: &Edit) -> Result<(), String> {
        change(&mut self.scenario, edit)
    }

    pub fn undo(&mut self) -> bool {
        let Some(before) = self.undo.pop() else {
            return false;
        };
        self.redo.push(std::mem::replace(&mut self.scenario, before));
        true
    }

    pub fn redo(&mut self) -> bool {
        let Some(after) = self.redo.pop() else {
            return false;
        };
        self.undo.push(std::mem::replace(&mut self.scenario, after));
        true
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Changed since last read or saved.
    pub fn unsaved(&self) -> bool {
        self.saved.as_ref().is_none_or(|(_, s)| *s != self.scenario)
    }

    /// What `otp check` would say of the scenario now, each problem with the item it concerns.
    pub fn problems(&self) -> Vec<(Option<Item>, String)> {
        validate::validate(&self.scenario).into_iter().map(|(locus, message)| (item_of(&locus), message)).collect()
    }

    /// The file's text for the scenario as it is: the text read, unchanged where nothing was
    /// edited, its comments kept around what was ([`splice::splice`]).
    pub fn text(&self) -> String {
        match &self.saved {
            Some((text, old)) => splice::splice(text, old, &self.scenario),
            None => scenario::to_ron(&self.scenario),
        }
    }

    /// Write the file atomically, refusing (nothing written) a scenario `otp check` would
    /// refuse: the messages, `file:line:col` in the text that would have been written.
    pub fn save(&mut self, path: &std::path::Path) -> Result<(), String> {
        let text = self.text();
        let file = path.display().to_string();
        let read = scenario::parse(&text, &file).map_err(|e| e.to_string())?;
        scenario::write_atomically(path, &text).map_err(|e| format!("{file}: {e}"))?;
        self.saved = Some((text, read));
        Ok(())
    }
}

/// The item a validation problem is about (the innermost thing on the table its path names).
pub fn item_of(locus: &Locus) -> Option<Item> {
    let index = |i: usize| match locus.path.get(i) {
        Some(Step::Index(n)) => Some(*n),
        _ => None,
    };
    let field = |i: usize| match locus.path.get(i) {
        Some(Step::Field(f)) => Some(*f),
        _ => None,
    };
    match field(0)? {
        "terrain" => Some(Item::Terrain(index(1)?)),
        "objectives" => Some(Item::Objective(index(1)?)),
        "sides" => {
            let side = index(1)?;
            match field(2)? {
                "commander" => Some(Item::Commander { side, brigade: None }),
                "wagons" => Some(Item::Wagon { side, wagon: index(3)? }),
                "brigades" => {
                    let brigade = index(3)?;
                    match (field(4), index(5)) {
                        (Some("units"), Some(unit)) => Some(Item::Unit(UnitRef { side, brigade, unit })),
                        (Some("commander"), _) => Some(Item::Commander { side, brigade: Some(brigade) }),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Round a point to the inch grid.
pub fn snap(p: Vec2) -> Vec2 {
    p.round()
}

/// Round a bearing to 15°.
pub fn snap_bearing(b: f32) -> f32 {
    ((b / 15.0).round() * 15.0).rem_euclid(360.0)
}

/// The corners or bends of a feature (a building: its centre).
pub fn vertices(t: &Terrain) -> &[Point] {
    match t {
        Terrain::Woods { outline, .. } | Terrain::Hill { outline, .. } | Terrain::Town { outline, .. } | Terrain::Field { outline, .. } => outline,
        Terrain::Stream { path, .. } | Terrain::Obstacle { path, .. } | Terrain::Road { path, .. } => path,
        Terrain::Building { at, .. } => std::slice::from_ref(at),
    }
}

fn vertices_mut(t: &mut Terrain) -> &mut Vec<Point> {
    match t {
        Terrain::Woods { outline, .. } | Terrain::Hill { outline, .. } | Terrain::Town { outline, .. } | Terrain::Field { outline, .. } => outline,
        Terrain::Stream { path, .. } | Terrain::Obstacle { path, .. } | Terrain::Road { path, .. } => path,
        Terrain::Building { .. } => {
            unreachable!("a building has no corners to edit (checked by the caller)")
        }
    }
}

/// An area (at least three corners) rather than a path (at least two points).
pub fn is_area(t: &Terrain) -> bool {
    matches!(t, Terrain::Woods { .. } | Terrain::Hill { .. } | Terrain::Town { .. } | Terrain::Field { .. })
}

/// Every point of a feature, fords and all: what moving or turning it carries.
fn points_mut(t: &mut Terrain) -> Vec<&mut Point> {
    match t {
        Terrain::Building { at, .. } => vec![at],
        Terrain::Stream { path, fords, .. } => path.iter_mut().chain(fords.iter_mut().map(|f| &mut f.at)).collect(),
        _ => vertices_mut(t).iter_mut().collect(),
    }
}

/// The middle of a feature's corners.
pub fn middle(t: &Terrain) -> Vec2 {
    let v = vertices(t);
    v.iter().map(|&p| Vec2::from(p)).sum::<Vec2>() / v.len().max(1) as f32
}

/// `p` turned `degrees` clockwise about `about`.
fn turned(p: Vec2, about: Vec2, degrees: f32) -> Vec2 {
    // A compass bearing grows clockwise; glam's angles counter-clockwise.
    about + Vec2::from_angle(-degrees.to_radians()).rotate(p - about)
}

fn unit_mut(s: &mut Scenario, r: UnitRef) -> Result<&mut Unit, String> {
    s.sides.get_mut(r.side).and_then(|x| x.brigades.get_mut(r.brigade)).and_then(|b| b.units.get_mut(r.unit)).ok_or_else(|| format!("no unit {} of brigade {} of side {}", r.unit + 1, r.brigade + 1, r.side + 1))
}

pub fn unit(s: &Scenario, r: UnitRef) -> Option<&Unit> {
    s.sides.get(r.side)?.brigades.get(r.brigade)?.units.get(r.unit)
}

fn terrain_mut(s: &mut Scenario, i: usize) -> Result<&mut Terrain, String> {
    s.terrain.get_mut(i).ok_or_else(|| format!("no terrain feature {}", i + 1))
}

fn commander_mut(s: &mut Scenario, side: usize, brigade: Option<usize>) -> Result<&mut Commander, String> {
    let x = s.sides.get_mut(side).ok_or_else(|| format!("no side {}", side + 1))?;
    match brigade {
        Some(b) => x.brigades.get_mut(b).map(|b| &mut b.commander).ok_or_else(|| format!("no brigade {}", b + 1)),
        None => x.commander.as_mut().ok_or_else(|| format!("{} has no overall commander", x.name)),
    }
}

/// Where an item stands: a unit's front centre, a feature's middle, a commander's figure (by
/// default beside his first unit, as the table puts him).
pub fn position(s: &Scenario, item: Item) -> Option<Vec2> {
    match item {
        Item::Terrain(i) => s.terrain.get(i).map(middle),
        Item::Objective(i) => s.objectives.get(i).map(|o| o.at.into()),
        Item::Unit(r) => unit(s, r).map(|u| u.at.into()),
        Item::Commander { side, brigade } => {
            let x = s.sides.get(side)?;
            let c = match brigade {
                Some(b) => &x.brigades.get(b)?.commander,
                None => x.commander.as_ref()?,
            };
            c.at.map(Vec2::from).or_else(|| brigade.and_then(|b| x.brigades[b].units.first()).map(crate::scenario::spawn::behind_unit))
        }
        Item::Wagon { side, wagon } => s.sides.get(side)?.wagons.get(wagon).map(|w| w.at.into()),
    }
}

/// Half the width of a unit's front, from the centre of its front edge to its flank (its stands
/// as the basing rules lay them out).
pub fn half_front(u: &Unit, basing: &Basing) -> f32 {
    let right = bearing_vector(u.facing + 90.0);
    let at = Vec2::from(u.at);
    basing::layout(u, basing).map_or(0.5, |stands| stands.iter().flat_map(|(f, _)| f.corners()).map(|c| (c - at).dot(right).abs()).fold(0.0, f32::max))
}

fn add(p: &mut Point, by: Vec2) {
    *p = (Vec2::from(*p) + by).into();
}

/// A name not yet used among `taken`: `name`, else `name (2)`, `name (3)`…
pub fn fresh_name<'a>(name: &str, taken: impl Iterator<Item = &'a str> + Clone) -> String {
    let base = name.split(" (").next().unwrap_or(name);
    std::iter::once(name.to_string()).chain((2..).map(|n| format!("{base} ({n})"))).find(|n| !taken.clone().any(|t| t == n)).expect("some name is free")
}

fn unit_names(s: &Scenario) -> Vec<String> {
    s.sides.iter().flat_map(|x| &x.brigades).flat_map(|b| &b.units).map(|u| u.name.clone()).collect()
}

/// Apply `edit` to `s`, or say why not (then `s` may be part-changed: the caller works on a copy).
fn change(s: &mut Scenario, edit: &Edit) -> Result<(), String> {
    match edit {
        Edit::AddTerrain(t) => {
            check_shape(t)?;
            s.terrain.push(t.clone());
        }
        Edit::SetTerrain(i, t) => {
            check_shape(t)?;
            *terrain_mut(s, *i)? = t.clone();
        }
        Edit::Move(item, by) => {
            let by = Vec2::from(*by);
            match *item {
                Item::Terrain(i) => points_mut(terrain_mut(s, i)?).into_iter().for_each(|p| add(p, by)),
                Item::Objective(i) => add(&mut s.objectives.get_mut(i).ok_or("no such objective")?.at, by),
                Item::Unit(r) => carry(s, r, by)?,
                Item::Commander { .. } | Item::Wagon { .. } => {
                    let at = position(s, *item).ok_or("no such commander or wagon")?;
                    return change(s, &Edit::Place(*item, (at + by).into()));
                }
            }
        }
        Edit::Place(item, to) => match *item {
            Item::Unit(r) => {
                let by = Vec2::from(*to) - Vec2::from(unit_mut(s, r)?.at);
                carry(s, r, by)?;
            }
            Item::Objective(i) => s.objectives.get_mut(i).ok_or("no such objective")?.at = *to,
            Item::Commander { side, brigade } => commander_mut(s, side, brigade)?.at = Some(*to),
            Item::Wagon { side, wagon } => s.sides.get_mut(side).and_then(|x| x.wagons.get_mut(wagon)).ok_or("no such wagon")?.at = *to,
            Item::Terrain(i) => {
                let by = Vec2::from(*to) - middle(s.terrain.get(i).ok_or("no such terrain feature")?);
                return change(s, &Edit::Move(*item, by.into()));
            }
        },
        Edit::Turn(item, degrees) => match *item {
            Item::Unit(r) => {
                let u = unit_mut(s, r)?;
                u.facing = (u.facing + degrees).rem_euclid(360.0);
            }
            Item::Terrain(i) => {
                let t = terrain_mut(s, i)?;
                if let Terrain::Building { facing, .. } = t {
                    *facing = (*facing + degrees).rem_euclid(360.0);
                } else {
                    let about = middle(t);
                    // To the hundredth of an inch: the file says 3.98, not 3.9761677.
                    points_mut(t).into_iter().for_each(|p| *p = ((turned(Vec2::from(*p), about, *degrees) * 100.0).round() / 100.0).into());
                }
            }
            _ => return Err("only units and terrain turn".into()),
        },
        Edit::Face(r, bearing) => unit_mut(s, *r)?.facing = bearing.rem_euclid(360.0),
        Edit::MoveVertex { terrain, vertex, to } => {
            let t = terrain_mut(s, *terrain)?;
            if let Terrain::Building { at, .. } = t {
                *at = *to;
            } else {
                *vertices_mut(t).get_mut(*vertex).ok_or("no such corner")? = *to;
            }
        }
        Edit::InsertVertex { terrain, after, at } => {
            let t = terrain_mut(s, *terrain)?;
            if matches!(t, Terrain::Building { .. }) {
                return Err("a building is placed by its centre; it has no corners to add".into());
            }
            let v = vertices_mut(t);
            if *after >= v.len() {
                return Err("no such corner".into());
            }
            v.insert(after + 1, *at);
        }
        Edit::DeleteVertex { terrain, vertex } => {
            let t = terrain_mut(s, *terrain)?;
            if matches!(t, Terrain::Building { .. }) {
                return Err("a building is placed by its centre; delete the building instead".into());
            }
            let least = if is_area(t) { 3 } else { 2 };
            let v = vertices_mut(t);
            if v.len() <= least {
                return Err(format!("{} needs at least {least} {}: delete the feature instead", if least == 3 { "an area" } else { "a path" }, if least == 3 { "corners" } else { "points" }));
            }
            if *vertex >= v.len() {
                return Err("no such corner".into());
            }
            v.remove(*vertex);
        }
        Edit::Copy(item) => {
            let by = Vec2::new(2.0, -2.0);
            match *item {
                Item::Terrain(i) => {
                    let mut t = s.terrain.get(i).ok_or("no such terrain feature")?.clone();
                    points_mut(&mut t).into_iter().for_each(|p| add(p, by));
                    let name = fresh_name(t.name(), s.terrain.iter().map(Terrain::name));
                    *t.name_mut() = name;
                    s.terrain.push(t);
                }
                Item::Unit(r) => {
                    let mut u = unit_mut(s, r)?.clone();
                    add(&mut u.at, by);
                    let names = unit_names(s);
                    u.name = fresh_name(&u.name, names.iter().map(String::as_str));
                    s.sides[r.side].brigades[r.brigade].units.push(u);
                }
                Item::Objective(i) => {
                    let mut o = s.objectives.get(i).ok_or("no such objective")?.clone();
                    add(&mut o.at, by);
                    o.name = fresh_name(&o.name, s.objectives.iter().map(|o| o.name.as_str()));
                    s.objectives.push(o);
                }
                _ => {
                    return Err("a commander or a wagon is not copied: add another brigade or wagon".into());
                }
            }
        }
        Edit::Delete(item) => match *item {
            Item::Terrain(i) => {
                s.terrain.get(i).ok_or("no such terrain feature")?;
                s.terrain.remove(i);
            }
            Item::Objective(i) => {
                s.objectives.get(i).ok_or("no such objective")?;
                s.objectives.remove(i);
            }
            Item::Unit(r) => {
                unit_mut(s, r)?;
                s.sides[r.side].brigades[r.brigade].units.remove(r.unit);
            }
            Item::Wagon { side, wagon } => {
                let x = s.sides.get_mut(side).ok_or("no such side")?;
                x.wagons.get(wagon).ok_or("no such wagon")?;
                x.wagons.remove(wagon);
            }
            Item::Commander { side, brigade: None } => s.sides.get_mut(side).ok_or("no such side")?.commander = None,
            Item::Commander { brigade: Some(_), .. } => {
                return Err("a brigade keeps its commander: change him in the brigade's form".into());
            }
        },
        Edit::AddSide(x) => s.sides.push(x.clone()),
        Edit::SetSide(i, x) => {
            let side = s.sides.get_mut(*i).ok_or("no such side")?;
            let brigades = std::mem::take(&mut side.brigades);
            *side = Side { brigades, ..x.clone() };
        }
        Edit::AddBrigade { side, brigade } => s.sides.get_mut(*side).ok_or("no such side")?.brigades.push(brigade.clone()),
        Edit::SetBrigade { side, brigade, to } => {
            let b = s.sides.get_mut(*side).and_then(|x| x.brigades.get_mut(*brigade)).ok_or("no such brigade")?;
            let units = std::mem::take(&mut b.units);
            *b = Brigade { units, ..to.clone() };
        }
        Edit::AddUnit { side, brigade, unit } => s.sides.get_mut(*side).and_then(|x| x.brigades.get_mut(*brigade)).ok_or("no such brigade")?.units.push(unit.clone()),
        Edit::SetUnit(r, u) => *unit_mut(s, *r)? = u.clone(),
        Edit::AlignWith { unit: r, friend } | Edit::FormOnFlank { unit: r, friend, .. } => {
            let f = unit(s, *friend).ok_or("no such friend")?.clone();
            if r == friend {
                return Err("a unit cannot form on itself".into());
            }
            let basing = s.basing.clone();
            let u = unit_mut(s, *r)?;
            u.facing = f.facing;
            let forward = bearing_vector(f.facing);
            let at = Vec2::from(u.at);
            let on = Vec2::from(f.at);
            u.at = match edit {
                // Onto the friend's front line, as far along it as it stood.
                Edit::AlignWith { .. } => (at - forward * (at - on).dot(forward)).into(),
                Edit::FormOnFlank { right, .. } => {
                    let side = bearing_vector(f.facing + 90.0) * if *right { 1.0 } else { -1.0 };
                    (on + side * (half_front(&f, &basing) + half_front(u, &basing))).into()
                }
                _ => unreachable!(),
            };
        }
        Edit::Gate { terrain, at, width } => {
            let t = s.terrain.get(*terrain).ok_or_else(|| format!("no terrain feature {}", terrain + 1))?;
            let Terrain::Obstacle { path, .. } = t else { return Err(format!("{}: a gate is cut in a fence, wall, barricade or breastwork", t.name())) };
            let (before, after) = cut(path, Vec2::from(*at), *width).ok_or_else(|| format!("{}: a gate {width}\" wide does not fit there (too near an end: shorten the feature instead)", t.name()))?;
            let mut second = t.clone();
            let name = fresh_name(&format!("{} (beyond the gate)", t.name()), s.terrain.iter().map(Terrain::name));
            *second.name_mut() = name;
            if let Terrain::Obstacle { path, .. } = &mut second {
                *path = after;
            }
            if let Terrain::Obstacle { path, .. } = &mut s.terrain[*terrain] {
                *path = before;
            }
            s.terrain.insert(terrain + 1, second);
        }
        Edit::AddObjective(o) => s.objectives.push(o.clone()),
        Edit::SetObjective(i, o) => *s.objectives.get_mut(*i).ok_or("no such objective")? = o.clone(),
        Edit::Details(d) => {
            if !(d.table.width > 0.0 && d.table.depth > 0.0) {
                return Err("a table needs a width and a depth".into());
            }
            let d = (**d).clone();
            (s.name, s.rules, s.description, s.history, s.table, s.basing, s.optional_rules, s.turn_limit) = (d.name, d.rules, d.description, d.history, d.table, d.basing, d.optional_rules, d.turn_limit);
        }
    }
    Ok(())
}

/// `path` cut by a gap `width` long centred where it passes nearest `at`: the two pieces, each a
/// path of two points or more, or None when the gap reaches an end.
pub fn cut(path: &[Point], at: Vec2, width: f32) -> Option<(Vec<Point>, Vec<Point>)> {
    let p: Vec<Vec2> = path.iter().map(|&q| q.into()).collect();
    // Distance along the path of the point nearest `at`.
    let mut along = 0.0;
    let (mut best, mut centre) = (f32::INFINITY, 0.0);
    for w in p.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = a.distance(b);
        let t = if len > 0.0 { ((at - a).dot(b - a) / (len * len)).clamp(0.0, 1.0) } else { 0.0 };
        let d = at.distance(a + (b - a) * t);
        if d < best {
            (best, centre) = (d, along + t * len);
        }
        along += len;
    }
    let (from, to) = (centre - width / 2.0, centre + width / 2.0);
    if width <= 0.0 || from <= 0.05 || to >= along - 0.05 {
        return None;
    }
    // The point `d` along the path.
    let point_at = |d: f32| {
        let mut run = 0.0;
        for w in p.windows(2) {
            let len = w[0].distance(w[1]);
            if run + len >= d {
                return w[0] + (w[1] - w[0]) * ((d - run) / len.max(1e-6));
            }
            run += len;
        }
        *p.last().expect("a path has points")
    };
    let round = |v: Vec2| -> Point { ((v * 100.0).round() / 100.0).into() };
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut run = 0.0;
    for (i, &q) in p.iter().enumerate() {
        if i > 0 {
            run += p[i - 1].distance(q);
        }
        if run < from {
            before.push(round(q));
        } else if run > to {
            after.push(round(q));
        }
    }
    before.push(round(point_at(from)));
    after.insert(0, round(point_at(to)));
    Some((before, after))
}

/// A unit carried by `by`, and the guns attached to it with it (OTP 7.5: an attached gun goes
/// where its unit goes, so a set-up moved keeps them touching).
fn carry(s: &mut Scenario, r: UnitRef, by: Vec2) -> Result<(), String> {
    let name = unit_mut(s, r)?.name.clone();
    add(&mut unit_mut(s, r)?.at, by);
    s.sides[r.side].brigades.iter_mut().flat_map(|b| &mut b.units).filter(|u| u.attached_to.as_deref() == Some(name.as_str())).for_each(|u| add(&mut u.at, by));
    Ok(())
}

/// A feature drawn must be a shape: an area three corners or more, a path two points or more.
fn check_shape(t: &Terrain) -> Result<(), String> {
    let n = vertices(t).len();
    match t {
        Terrain::Building { .. } => Ok(()),
        _ if is_area(t) && n < 3 => Err(format!("{}: an area needs at least three corners", t.name())),
        _ if n < 2 => Err(format!("{}: a path needs at least two points", t.name())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
