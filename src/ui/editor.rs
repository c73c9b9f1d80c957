//! The set-up editor in the window (`otp edit [FILE]`, the toolbar's ✏ Edit): terrain drawn and
//! reshaped with the mouse, troops placed from a palette, dragged and turned, a form for the
//! selected item and one for the scenario, undo and redo, `otp check`'s problems shown live on
//! the items they concern, Save (comments kept, `editor::splice`) and Play this.
//!
//! Every change goes through an [`EditorCommand`] — the mouse, the keys and the forms send the
//! same messages a headless test does — and the model is `crate::editor::Editor`. The table shows
//! the scenario as a game of it would stand at set-up (the rule set lays out the stands), so
//! the editor draws only its own marks: the picked item, corners to drag, the outline being
//! drawn, problems in red.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::session::Session;
use super::table_view::TablePointer;
use super::{FreeRect, UiSet, root_ui};
use crate::editor::palette::{Feature, palette};
use crate::editor::pick::{self, hit, nearest_side, outline, vertex_at};
use crate::editor::{self, Details, Edit, Editor, Item, UnitRef, snap, snap_bearing};
use crate::rules::engine::Engine;
use crate::rules::registry;
use crate::scenario::model::*;
use crate::scenario::spawn::Battlefield;
use crate::table::footprint::{bearing_vector, vector_bearing};

/// What a left click on the table does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tool {
    /// Pick, drag, turn (Shift+drag, the handle), reshape (corners).
    Select,
    /// Draw a feature: click its corners, double-click or Enter to finish.
    Draw(Feature),
    /// Put a unit of the palette's `template` into the chosen brigade with a click.
    Place(usize),
    Objective,
    /// Cut a 2" gate in the fence, wall or breastwork clicked.
    Gate,
}

/// A drag under way.
#[derive(Clone, Copy, Debug)]
enum Drag {
    /// Carried: where the pointer took hold, where the item stood, the offset applied so far.
    Item {
        item: Item,
        from: Vec2,
        start: Vec2,
        applied: Vec2,
    },
    Corner {
        terrain: usize,
        vertex: usize,
    },
    Turn(UnitRef),
}

/// The editor, while the window is in edit mode.
#[derive(Resource)]
pub(crate) struct Editing {
    pub editor: Editor,
    /// The file it came from and is saved to.
    pub path: Option<PathBuf>,
    /// Where Save will write (the path's text field).
    pub save_as: String,
    pub tool: Tool,
    pub selected: Option<Item>,
    pub snap: bool,
    /// The corners of a feature being drawn.
    pub drawing: Vec<Vec2>,
    /// Which side and brigade the palette adds to.
    pub side: usize,
    pub brigade: usize,
    /// The line under the buttons: what the last command did (`true`: it went wrong).
    pub status: Option<(String, bool)>,
    drag: Option<Drag>,
    /// The game put aside when the editor opened from the window, given back on Close.
    before: Option<(Box<dyn Engine>, Battlefield)>,
    /// Save was asked over a file the editor did not open: ask once more.
    confirm_overwrite: bool,
    /// The session's autosave, off while editing.
    autosave: Option<PathBuf>,
    /// `otp check`'s problems with the scenario as it is, each with its item.
    pub problems: Vec<(Option<Item>, String)>,
}

impl Editing {
    pub fn new(editor: Editor, path: Option<PathBuf>) -> Self {
        let save_as = path.as_ref().map_or_else(|| format!("{}.ron", slug(&editor.scenario.name)), |p| p.display().to_string());
        let problems = editor.problems();
        Editing { problems, editor, path, save_as, tool: Tool::Select, selected: None, snap: true, drawing: Vec::new(), side: 0, brigade: 0, status: None, drag: None, before: None, confirm_overwrite: false, autosave: None }
    }

    /// What the table's title names.
    fn source(&self) -> String {
        self.path.as_ref().map_or("new scenario".into(), |p| p.display().to_string())
    }

    fn snapped(&self, p: Vec2) -> Vec2 {
        if self.snap { snap(p) } else { p }
    }
}

/// A file name from a scenario's name.
fn slug(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let s = s.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-");
    if s.is_empty() { "new-scenario".into() } else { s }
}

/// Everything the editor is asked to do.
#[derive(Message, Clone, Debug, PartialEq)]
pub(crate) enum EditorCommand {
    Edit(Edit),
    /// The rest of a drag or of typing in a field: no new undo step.
    Continue(Edit),
    Undo,
    Redo,
    Save,
    /// Leave the editor with a game of the set-up.
    PlayThis,
    /// Leave the editor, back to the game put aside.
    Close,
}

/// Run conditions: the window is in edit mode, or not.
pub(crate) fn editing(e: Option<Res<Editing>>) -> bool {
    e.is_some()
}
pub(crate) fn not_editing(e: Option<Res<Editing>>) -> bool {
    e.is_none()
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<EditorCommand>()
        .add_systems(PreStartup, start_from_options.after(super::session::open))
        .add_systems(EguiPrimaryContextPass, (panel.in_set(UiSet::ReplayBar), table_tools.in_set(UiSet::Tools)).run_if(editing).run_if(super::fonts_ready))
        .add_systems(Update, take_commands.run_if(editing));
}

/// `otp edit [FILE]`: the window opens in the editor.
fn start_from_options(world: &mut World) {
    let Some(edit) = world.get_resource::<super::RunOptions>().and_then(|o| o.edit.clone()) else {
        return;
    };
    let (editor, path) = edit;
    let mut editing = Editing::new(editor, path);
    if let Ok(preset) = std::env::var("OTP_EDIT") {
        preset_from(&mut editing, &preset);
    }
    enter(world, editing);
}

/// `OTP_EDIT` (screenshots): `;`-separated `pick:NAME` (a unit or terrain feature by name),
/// `place:NAME:x,y` (a unit put there, as a drag would), `tool:KIND` (a feature's name, e.g.
/// Woods) and `draw:x,y x,y…` (corners clicked so far).
fn preset_from(ed: &mut Editing, preset: &str) {
    let point = |t: &str| -> Option<Vec2> {
        let (x, y) = t.trim().split_once(',')?;
        Some(Vec2::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
    };
    let find = |s: &Scenario, name: &str| pick::units(s).find(|&r| editor::unit(s, r).is_some_and(|u| u.name == name)).map(Item::Unit).or_else(|| s.terrain.iter().position(|t| t.name() == name).map(Item::Terrain));
    for part in preset.split(';') {
        let Some((verb, rest)) = part.split_once(':') else { continue };
        match verb.trim() {
            "pick" => ed.selected = find(&ed.editor.scenario, rest.trim()),
            "place" => {
                if let Some((name, at)) = rest.rsplit_once(':')
                    && let (Some(item), Some(at)) = (find(&ed.editor.scenario, name.trim()), point(at))
                {
                    let _ = ed.editor.apply(&Edit::Place(item, at.into()));
                    ed.problems = ed.editor.problems();
                }
            }
            "tool" => {
                if let Some(f) = Feature::ALL.iter().find(|f| f.name().eq_ignore_ascii_case(rest.trim())) {
                    ed.tool = Tool::Draw(*f);
                }
            }
            "draw" => ed.drawing = rest.split_whitespace().filter_map(point).collect(),
            _ => {}
        }
    }
}

/// Put the window into edit mode on `editing`. The game in the window is kept aside (a copy,
/// replayed from its save) for Close, and autosaving stops: the player's autosaved game is not
/// the set-up being edited.
pub(crate) fn enter(world: &mut World, mut editing: Editing) {
    if let Some(mut session) = world.get_resource_mut::<Session>() {
        editing.autosave = session.autosave.take();
        session.resume_offer = None;
        let game = registry::load_save(&session.game.save_text(), "the game");
        if let (Ok(game), Some(b)) = (game, world.get_resource::<Battlefield>().cloned()) {
            editing.before = Some((game, b));
        }
    }
    world.resource_mut::<TablePointer>().owned = true;
    if let Some(mut v) = world.get_resource_mut::<View>() {
        v.fit_pending = true;
    }
    let scenario = editing.editor.scenario.clone();
    let source = editing.source();
    world.insert_resource(editing);
    show(world, scenario, source);
}

/// The toolbar's ✏ Edit: the scenario in the window, from its file when it is one and unchanged
/// since (its comments kept), else written anew.
pub(crate) fn edit_current(world: &mut World) {
    let Some(b) = world.get_resource::<Battlefield>().cloned() else {
        return;
    };
    let path = PathBuf::from(&b.source);
    let from_file = std::fs::read_to_string(&path).ok().filter(|t| !(t.contains("actions:") && t.contains("seed:"))).and_then(|t| Editor::open(&t, &b.source).ok()).filter(|e| e.scenario == b.scenario);
    let editing = match from_file {
        Some(e) => Editing::new(e, Some(path)),
        None => {
            let mut e = Editor::blank(b.scenario.table.width, b.scenario.table.depth, b.scenario.rules, &[]);
            e.scenario = b.scenario.clone();
            Editing::new(e, None)
        }
    };
    enter(world, editing);
}

/// The table shows `scenario`: its terrain at once, its troops as a game of it sets them up.
fn show(world: &mut World, scenario: Scenario, source: String) {
    world.insert_resource(Battlefield { scenario: scenario.clone(), source });
    let opened = registry::open(scenario.rules, scenario, 1);
    match (opened, world.get_resource_mut::<Session>()) {
        (Ok(game), Some(mut s)) => s.replace(game),
        (Ok(game), None) => {
            world.insert_resource(Session::new(game));
        }
        (Err(e), _) => {
            if let Some(mut ed) = world.get_resource_mut::<Editing>() {
                ed.status = Some((format!("the troops are shown as they were: {e}"), true));
            }
        }
    }
    super::session::sync_world(world);
}

/// Apply the commands; after a change, show the scenario again.
fn take_commands(world: &mut World) {
    let commands: Vec<EditorCommand> = world.resource_mut::<Messages<EditorCommand>>().drain().collect();
    if commands.is_empty() {
        return;
    }
    let Some(mut ed) = world.remove_resource::<Editing>() else {
        return;
    };
    let before = ed.editor.scenario.clone();
    let mut leave = None;
    for c in commands {
        let result = match &c {
            EditorCommand::Edit(e) => ed.editor.apply(e),
            EditorCommand::Continue(e) => ed.editor.apply_continuing(e),
            EditorCommand::Undo => ed.editor.undo().then_some(()).ok_or_else(|| "nothing to undo".to_string()),
            EditorCommand::Redo => ed.editor.redo().then_some(()).ok_or_else(|| "nothing to redo".to_string()),
            EditorCommand::Save => save(&mut ed),
            EditorCommand::PlayThis | EditorCommand::Close => {
                leave = Some(c.clone());
                Ok(())
            }
        };
        match result {
            Err(e) => ed.status = Some((e, true)),
            Ok(()) if matches!(c, EditorCommand::Edit(_)) => ed.status = None,
            Ok(()) => {}
        }
        // An item deleted or an undo may leave the selection naming nothing.
        if ed.selected.is_some_and(|i| editor::position(&ed.editor.scenario, i).is_none()) {
            ed.selected = None;
        }
    }
    match leave {
        Some(EditorCommand::PlayThis) => return play_this(world, ed),
        Some(EditorCommand::Close) => return close(world, ed),
        _ => {}
    }
    let scenario = (ed.editor.scenario != before).then(|| ed.editor.scenario.clone());
    if scenario.is_some() {
        ed.problems = ed.editor.problems();
    }
    let source = ed.source();
    world.insert_resource(ed);
    if let Some(s) = scenario {
        show(world, s, source);
    }
}

/// Save to the path asked for: `otp check` must accept the scenario, and a file the editor did
/// not open is overwritten only when asked twice.
fn save(ed: &mut Editing) -> Result<(), String> {
    let path = PathBuf::from(ed.save_as.trim());
    if path.as_os_str().is_empty() {
        return Err("name the file to save to".into());
    }
    let ours = ed.path.as_ref().is_some_and(|p| p == &path);
    if path.exists() && !ours && !ed.confirm_overwrite {
        ed.confirm_overwrite = true;
        return Err(format!("{} exists: Save again to overwrite it", path.display()));
    }
    ed.confirm_overwrite = false;
    if !ours {
        // Comments belong to the file they were read from: a new file is written whole.
        ed.editor.saved = None;
    }
    ed.editor.save(&path)?;
    ed.status = Some((format!("saved {}", path.display()), false));
    ed.path = Some(path);
    Ok(())
}

fn play_this(world: &mut World, mut ed: Editing) {
    let problems = ed.problems.clone();
    if let Some((_, first)) = problems.first() {
        ed.status = Some((format!("not yet playable: {first}{}", if problems.len() > 1 { format!(" (and {} more)", problems.len() - 1) } else { String::new() }), true));
        world.insert_resource(ed);
        return;
    }
    let s = ed.editor.scenario.clone();
    match registry::open(s.rules, s.clone(), super::session::new_seed()) {
        Ok(game) => {
            world.resource_mut::<TablePointer>().owned = false;
            world.insert_resource(Battlefield { scenario: s, source: ed.source() });
            match world.get_resource_mut::<Session>() {
                Some(mut session) => {
                    session.autosave = ed.autosave;
                    session.replace(game);
                }
                None => {
                    world.insert_resource(Session::new(game));
                }
            }
            super::session::sync_world(world);
        }
        Err(e) => {
            ed.status = Some((e, true));
            world.insert_resource(ed);
        }
    }
}

fn close(world: &mut World, ed: Editing) {
    let Some((game, battlefield)) = ed.before else {
        return play_this(world, ed);
    };
    world.resource_mut::<TablePointer>().owned = false;
    world.insert_resource(battlefield);
    if let Some(mut s) = world.get_resource_mut::<Session>() {
        s.autosave = ed.autosave;
        s.replace(game);
    }
    super::session::sync_world(world);
}

const PICKED: Color32 = Color32::from_rgb(255, 214, 64);
const WRONG: Color32 = Color32::from_rgb(235, 60, 50);
const DRAWING: Color32 = Color32::from_rgb(120, 220, 255);

/// The pointer over the table turned into edits, and the editor's marks drawn.
fn table_tools(mut contexts: EguiContexts, mut pointer: ResMut<TablePointer>, view: Res<View>, mut ed: ResMut<Editing>, mut send: MessageWriter<EditorCommand>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let view = *view;
    let tolerance = 6.0 / view.ppi;
    // This frame's clicks are taken; the position and the held button stay for a second pass.
    let p = *pointer;
    *pointer = TablePointer { owned: p.owned, at: p.at, dragging: p.dragging, held: p.held, shift: p.shift, alt: p.alt, ..default() };
    let s = ed.editor.scenario.clone();

    // Keys, unless a text field has them.
    if !ctx.egui_wants_keyboard_input() {
        keys(&ctx, &mut ed, &mut send);
    }

    match ed.tool {
        Tool::Select => select_tool(&s, &p, tolerance, &mut ed, &mut send),
        Tool::Draw(f) => {
            if let Some(at) = p.clicked {
                let at = ed.snapped(at);
                if f == Feature::Building {
                    send.write(EditorCommand::Edit(Edit::AddTerrain(f.make(fresh_feature(&s, f), vec![at.into()]))));
                    ed.selected = Some(Item::Terrain(s.terrain.len()));
                    ed.tool = Tool::Select;
                } else if ed.drawing.last().is_none_or(|l| l.distance(at) > 0.05) {
                    ed.drawing.push(at);
                }
            }
            if p.double_clicked.is_some() {
                finish_drawing(&s, f, &mut ed, &mut send);
            }
        }
        Tool::Place(k) => {
            if let Some(at) = p.clicked {
                let at = ed.snapped(at);
                let Some(t) = palette(s.rules).get(k) else { return Ok(()) };
                let names: Vec<String> = pick::units(&s).filter_map(|r| editor::unit(&s, r)).map(|u| u.name.clone()).collect();
                let name = editor::fresh_name(t.label.split(',').next().unwrap_or("Unit"), names.iter().map(String::as_str));
                // Facing the far side of the table from where it stands.
                let facing = if at.y > s.table.depth / 2.0 { 180.0 } else { 0.0 };
                match s.sides.get(ed.side).and_then(|x| x.brigades.get(ed.brigade)) {
                    Some(b) => {
                        let unit = b.units.len();
                        send.write(EditorCommand::Edit(Edit::AddUnit { side: ed.side, brigade: ed.brigade, unit: t.unit(name, at.into(), facing) }));
                        ed.selected = Some(Item::Unit(UnitRef { side: ed.side, brigade: ed.brigade, unit }));
                    }
                    None => ed.status = Some(("add a brigade first (the panel's + Brigade)".into(), true)),
                }
            }
        }
        Tool::Objective => {
            if let Some(at) = p.clicked {
                let at = ed.snapped(at);
                let name = editor::fresh_name("Objective", s.objectives.iter().map(|o| o.name.as_str()));
                send.write(EditorCommand::Edit(Edit::AddObjective(Objective { name, at: at.into(), radius: 3.0, points: 1 })));
                ed.selected = Some(Item::Objective(s.objectives.len()));
                ed.tool = Tool::Select;
            }
        }
        Tool::Gate => {
            if let Some(at) = p.clicked {
                match hit(&s, at, tolerance) {
                    Some(Item::Terrain(i)) if matches!(s.terrain[i], Terrain::Obstacle { .. }) => {
                        send.write(EditorCommand::Edit(Edit::Gate { terrain: i, at: at.into(), width: 2.0 }));
                        ed.selected = Some(Item::Terrain(i));
                    }
                    _ => ed.status = Some(("click on a fence, wall, barricade or breastwork to cut a gate in it".into(), true)),
                }
            }
        }
    }
    if p.owned && p.at.is_some() {
        ctx.set_cursor_icon(match (ed.tool, ed.drag) {
            (_, Some(_)) => egui::CursorIcon::Grabbing,
            (Tool::Select, None) => egui::CursorIcon::Default,
            _ => egui::CursorIcon::Crosshair,
        });
    }
    marks(&ctx, &view, &s, &ed, p.at);
    Ok(())
}

fn fresh_feature(s: &Scenario, f: Feature) -> String {
    editor::fresh_name(&format!("{} 1", f.name()), s.terrain.iter().map(Terrain::name)).replace(" 1 (", " (")
}

fn finish_drawing(s: &Scenario, f: Feature, ed: &mut Editing, send: &mut MessageWriter<EditorCommand>) {
    let points: Vec<Point> = ed.drawing.drain(..).map(Into::into).collect();
    if points.len() < f.least() {
        ed.status = Some((format!("{} needs at least {} {}: click them on the table", f.name(), f.least(), if f.area() { "corners" } else { "points" }), true));
        return;
    }
    send.write(EditorCommand::Edit(Edit::AddTerrain(f.make(fresh_feature(s, f), points))));
    ed.selected = Some(Item::Terrain(s.terrain.len()));
    ed.tool = Tool::Select;
}

fn select_tool(s: &Scenario, p: &TablePointer, tolerance: f32, ed: &mut Editing, send: &mut MessageWriter<EditorCommand>) {
    let picked_terrain = match ed.selected {
        Some(Item::Terrain(i)) => s.terrain.get(i).map(|t| (i, t)),
        _ => None,
    };
    if let Some(at) = p.pressed {
        let corner = picked_terrain.and_then(|(i, t)| vertex_at(t, at, tolerance).map(|v| (i, v)));
        let handle = match ed.selected {
            Some(Item::Unit(r)) => turn_handle(s, r).filter(|h| h.distance(at) <= tolerance * 1.5).map(|_| r),
            _ => None,
        };
        ed.drag = if let Some((terrain, vertex)) = corner {
            Some(Drag::Corner { terrain, vertex })
        } else if let Some(r) = handle {
            Some(Drag::Turn(r))
        } else {
            let item = hit(s, at, tolerance);
            ed.selected = item;
            match item {
                Some(Item::Unit(r)) if p.shift => Some(Drag::Turn(r)),
                Some(item) => editor::position(s, item).map(|start| Drag::Item { item, from: at, start, applied: Vec2::ZERO }),
                None => None,
            }
        };
        if ed.drag.is_some() {
            // The first step of the drag is an undo step; the rest continue it.
            ed.status = None;
        }
    }
    if let (Some(drag), Some(at)) = (ed.drag, p.held.filter(|_| p.dragging)) {
        let first = p.pressed.is_some();
        let wrap = |e: Edit| {
            if first { EditorCommand::Edit(e) } else { EditorCommand::Continue(e) }
        };
        match drag {
            Drag::Item { item: Item::Terrain(i), from, applied, .. } => {
                let offset = if ed.snap { (at - from).round() } else { at - from };
                if offset != applied || first {
                    send.write(wrap(Edit::Move(Item::Terrain(i), (offset - applied).into())));
                    ed.drag = Some(Drag::Item { item: Item::Terrain(i), from, start: Vec2::ZERO, applied: offset });
                }
            }
            Drag::Item { item, from, start, .. } => {
                send.write(wrap(Edit::Place(item, ed.snapped(start + (at - from)).into())));
            }
            Drag::Corner { terrain, vertex } => {
                send.write(wrap(Edit::MoveVertex { terrain, vertex, to: ed.snapped(at).into() }));
            }
            Drag::Turn(r) => {
                if let Some(u) = editor::unit(s, r) {
                    let b = vector_bearing(at - Vec2::from(u.at));
                    send.write(wrap(Edit::Face(r, if ed.snap { snap_bearing(b) } else { b })));
                }
            }
        }
    }
    if p.released || (ed.drag.is_some() && !p.dragging && p.pressed.is_none()) {
        ed.drag = None;
    }
    if let Some(at) = p.clicked {
        ed.selected = hit(s, at, tolerance);
    }
    // Double-click on a picked feature's side: a corner there; right-click (or Alt+click) on a
    // corner: gone.
    if let (Some(at), Some((i, t))) = (p.double_clicked, picked_terrain)
        && vertex_at(t, at, tolerance).is_none()
        && let Some((after, d)) = nearest_side(t, at)
        && d <= tolerance * 2.0
    {
        send.write(EditorCommand::Edit(Edit::InsertVertex { terrain: i, after, at: ed.snapped(at).into() }));
        ed.selected = Some(Item::Terrain(i));
    }
    let remove = p.secondary_clicked.or(p.clicked.filter(|_| p.alt));
    if let (Some(at), Some((i, t))) = (remove, picked_terrain)
        && let Some(vertex) = vertex_at(t, at, tolerance)
    {
        send.write(EditorCommand::Edit(Edit::DeleteVertex { terrain: i, vertex }));
        ed.selected = Some(Item::Terrain(i));
    }
}

/// Where a picked unit's turning handle is: 1½" ahead of the centre of its front.
fn turn_handle(s: &Scenario, r: UnitRef) -> Option<Vec2> {
    editor::unit(s, r).map(|u| Vec2::from(u.at) + bearing_vector(u.facing) * 1.5)
}

fn keys(ctx: &egui::Context, ed: &mut Editing, send: &mut MessageWriter<EditorCommand>) {
    let (cmd, shift) = ctx.input(|i| (i.modifiers.command, i.modifiers.shift));
    let key = |k: egui::Key| ctx.input(|i| i.key_pressed(k));
    if cmd && key(egui::Key::Z) {
        send.write(if shift { EditorCommand::Redo } else { EditorCommand::Undo });
    } else if cmd && key(egui::Key::Y) {
        send.write(EditorCommand::Redo);
    } else if cmd && key(egui::Key::S) {
        send.write(EditorCommand::Save);
    } else if cmd && key(egui::Key::D) {
        if let Some(item) = ed.selected {
            send.write(EditorCommand::Edit(Edit::Copy(item)));
        }
    } else if key(egui::Key::G) && !cmd {
        ed.snap = !ed.snap;
    } else if key(egui::Key::R) && !cmd {
        if let Some(item @ (Item::Unit(_) | Item::Terrain(_))) = ed.selected {
            send.write(EditorCommand::Edit(Edit::Turn(item, if shift { -15.0 } else { 15.0 })));
        }
    } else if key(egui::Key::Delete) || key(egui::Key::Backspace) {
        if !ed.drawing.is_empty() {
            ed.drawing.pop();
        } else if let Some(item) = ed.selected {
            send.write(EditorCommand::Edit(Edit::Delete(item)));
        }
    } else if key(egui::Key::Enter) {
        if let Tool::Draw(f) = ed.tool {
            let s = ed.editor.scenario.clone();
            finish_drawing(&s, f, ed, send);
        }
    } else if key(egui::Key::Escape) {
        if ed.drawing.is_empty() {
            ed.selected = None;
            ed.tool = Tool::Select;
        }
        ed.drawing.clear();
    }
}

/// The picked item, its corners or turning handle, what is being drawn, and every item with a
/// problem in red with the first message beside it.
fn marks(ctx: &egui::Context, view: &View, s: &Scenario, ed: &Editing, at: Option<Vec2>) {
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::new(egui::Order::Middle, egui::Id::new("editor_marks")), view.rect);
    let to = |p: Vec2| view.to_screen(p);
    let ring = |item: Item, colour: Color32, width: f32| {
        let o = outline(s, item);
        match item {
            Item::Unit(_) => o.chunks(4).for_each(|c| {
                painter.add(egui::Shape::closed_line(c.iter().map(|&p| to(p)).collect(), egui::Stroke::new(width, colour)));
            }),
            Item::Terrain(i) if s.terrain.get(i).is_some_and(|t| !editor::is_area(t) && !matches!(t, Terrain::Building { .. })) => {
                painter.add(egui::Shape::line(o.iter().map(|&p| to(p)).collect(), egui::Stroke::new(width + 1.0, colour)));
            }
            _ => {
                painter.add(egui::Shape::closed_line(o.iter().map(|&p| to(p)).collect(), egui::Stroke::new(width, colour)));
            }
        }
    };
    // Each item with a problem ringed in red, its first message on a dark plate beside it; plates
    // that would cover one another are stacked below.
    let mut told: Vec<Item> = Vec::new();
    let mut plates: Vec<egui::Rect> = Vec::new();
    for (item, message) in &ed.problems {
        let Some(item) = *item else { continue };
        ring(item, WRONG, 2.5);
        if told.contains(&item) {
            continue;
        }
        told.push(item);
        let Some(c) = editor::position(s, item) else { continue };
        let short: String = if message.chars().count() > 70 { message.chars().take(68).chain("…".chars()).collect() } else { message.clone() };
        let galley = painter.layout_no_wrap(format!("⚠ {short}"), egui::FontId::proportional(12.0), Color32::from_rgb(255, 200, 190));
        let mut rect = egui::Rect::from_min_size(to(c) + egui::vec2(10.0, 6.0), galley.size() + egui::vec2(8.0, 4.0));
        while let Some(hit) = plates.iter().find(|p| p.intersects(rect)) {
            rect = rect.translate(egui::vec2(0.0, hit.max.y - rect.min.y + 2.0));
        }
        plates.push(rect);
        painter.rect(rect, 3.0, Color32::from_rgba_unmultiplied(40, 12, 10, 225), egui::Stroke::new(1.0, WRONG), egui::StrokeKind::Inside);
        painter.galley(rect.min + egui::vec2(4.0, 2.0), galley, Color32::WHITE);
    }
    if let Some(item) = ed.selected {
        ring(item, PICKED, 2.0);
        match item {
            Item::Terrain(i) if s.terrain.get(i).is_some_and(|t| !matches!(t, Terrain::Building { .. })) => {
                for &v in editor::vertices(&s.terrain[i]) {
                    let c = to(v.into());
                    painter.rect(egui::Rect::from_center_size(c, egui::vec2(8.0, 8.0)), 1.0, Color32::from_rgb(30, 26, 20), egui::Stroke::new(1.5, PICKED), egui::StrokeKind::Middle);
                }
            }
            Item::Unit(r) => {
                if let (Some(h), Some(u)) = (turn_handle(s, r), editor::unit(s, r)) {
                    painter.line_segment([to(u.at.into()), to(h)], egui::Stroke::new(1.5, PICKED));
                    painter.circle(to(h), 5.0, Color32::from_rgb(30, 26, 20), egui::Stroke::new(1.5, PICKED));
                }
            }
            _ => {}
        }
    }
    if !ed.drawing.is_empty() {
        let mut line: Vec<egui::Pos2> = ed.drawing.iter().map(|&p| to(p)).collect();
        if let Some(p) = at {
            line.push(to(ed.snapped(p)));
        }
        painter.add(egui::Shape::line(line.clone(), egui::Stroke::new(2.0, DRAWING)));
        for c in &line[..ed.drawing.len()] {
            painter.circle_filled(*c, 3.5, DRAWING);
        }
    }
}

/// The editor's panel: file and undo, the tools and palette, the picked item's form, the
/// scenario's form, and the problems.
fn panel(mut contexts: EguiContexts, mut free: ResMut<FreeRect>, mut ed: ResMut<Editing>, mut send: MessageWriter<EditorCommand>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "editor_root", free.0);
    let response = egui::Panel::left("editor_panel").resizable(true).default_size(330.0).size_range(280.0..=460.0).show(&mut root, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            let s = ed.editor.scenario.clone();
            ui.horizontal(|ui| {
                ui.label(RichText::new("✏ Set-up editor").strong().size(17.0).color(Color32::from_rgb(236, 228, 200)));
                if ed.editor.unsaved() {
                    ui.label(RichText::new("• unsaved").color(Color32::from_rgb(240, 190, 90))).on_hover_text("Changed since it was opened or saved");
                }
            });
            ui.horizontal(|ui| {
                ui.label("File");
                ui.add(egui::TextEdit::singleline(&mut ed.save_as).desired_width(230.0)).on_hover_text("Where Save writes; a file the editor did not open is overwritten only when asked twice");
            });
            ui.horizontal_wrapped(|ui| {
                if ui.button("💾 Save").on_hover_text("Ctrl+S: write the scenario (only if `otp check` accepts it); comments around what changed are kept").clicked() {
                    send.write(EditorCommand::Save);
                }
                if ui.add_enabled(ed.editor.can_undo(), egui::Button::new("↩ Undo")).on_hover_text("Ctrl+Z").clicked() {
                    send.write(EditorCommand::Undo);
                }
                if ui.add_enabled(ed.editor.can_redo(), egui::Button::new("↪ Redo")).on_hover_text("Ctrl+Y or Ctrl+Shift+Z").clicked() {
                    send.write(EditorCommand::Redo);
                }
                if ui.button("▶ Play this").on_hover_text("Leave the editor and play the set-up as it is (it must pass the checks)").clicked() {
                    send.write(EditorCommand::PlayThis);
                }
                if ed.before.is_some() && ui.button("✖ Close").on_hover_text("Back to the game that was open (nothing saved)").clicked() {
                    send.write(EditorCommand::Close);
                }
            });
            let mut snap_on = ed.snap;
            if ui.checkbox(&mut snap_on, "Snap to the inch grid and 15° (G)").changed() {
                ed.snap = snap_on;
            }
            if let Some((text, bad)) = &ed.status {
                ui.label(RichText::new(text).color(if *bad { WRONG } else { Color32::from_rgb(150, 210, 150) }));
            }
            ui.separator();
            tools(ui, &mut ed, &s, &mut send);
            ui.separator();
            if let Some(item) = ed.selected {
                item_form(ui, &s, item, &mut ed, &mut send);
                ui.separator();
            }
            egui::CollapsingHeader::new(RichText::new("Scenario").strong()).default_open(ed.selected.is_none()).show(ui, |ui| details_form(ui, &s, &mut send));
            egui::CollapsingHeader::new(RichText::new("Sides and brigades").strong()).default_open(false).show(ui, |ui| sides_form(ui, &s, &mut ed, &mut send));
            problems(ui, &mut ed);
            ui.add_space(6.0);
            ui.label(
                RichText::new(
                    "Drag to move · Shift+drag or the handle turns a unit · R / Shift+R turn 15° · drag a corner · double-click a side adds a corner · right-click a corner removes it · Del deletes · Ctrl+D copies · right-drag pans, wheel zooms",
                )
                .weak()
                .size(11.0),
            );
        });
    });
    free.0.min.x = free.0.min.x.max(response.response.rect.max.x);
    Ok(())
}

fn tools(ui: &mut egui::Ui, ed: &mut Editing, s: &Scenario, send: &mut MessageWriter<EditorCommand>) {
    ui.label(RichText::new("Tools").strong());
    ui.horizontal_wrapped(|ui| {
        let mut choose = |ui: &mut egui::Ui, tool: Tool, label: &str, tip: &str| {
            if ui.selectable_label(ed.tool == tool, label).on_hover_text(tip).clicked() {
                ed.tool = tool;
                ed.drawing.clear();
            }
        };
        choose(ui, Tool::Select, "↖ Select", "Pick, drag, turn and reshape");
        for f in Feature::ALL {
            let how = if f == Feature::Building {
                "click where it stands"
            } else if f.area() {
                "click its corners, double-click (or Enter) to finish"
            } else {
                "click the points along it, double-click (or Enter) to finish"
            };
            choose(ui, Tool::Draw(f), f.name(), &format!("Draw {}: {how}", f.name().to_lowercase()));
        }
        choose(ui, Tool::Gate, "Gate", "Click on a fence, wall or breastwork: a 2\" gap is cut there (two lengths of it, open ground between)");
        choose(ui, Tool::Objective, "◎ Objective", "Click where the objective is");
    });
    ui.add_space(4.0);
    ui.label(RichText::new("Troops").strong());
    if s.sides.is_empty() {
        ui.label(RichText::new("No sides yet: add one under Sides and brigades.").weak());
        return;
    }
    ed.side = ed.side.min(s.sides.len() - 1);
    let side = &s.sides[ed.side];
    egui::ComboBox::from_id_salt("palette_side").selected_text(&side.name).show_ui(ui, |ui| {
        for (i, x) in s.sides.iter().enumerate() {
            ui.selectable_value(&mut ed.side, i, &x.name);
        }
    });
    if side.brigades.is_empty() {
        ui.label(RichText::new("This side has no brigade yet.").weak());
    } else {
        ed.brigade = ed.brigade.min(side.brigades.len() - 1);
        egui::ComboBox::from_id_salt("palette_brigade").selected_text(format!("{} (chit {})", side.brigades[ed.brigade].name, side.brigades[ed.brigade].chit)).show_ui(ui, |ui| {
            for (i, b) in side.brigades.iter().enumerate() {
                ui.selectable_value(&mut ed.brigade, i, format!("{} (chit {})", b.name, b.chit));
            }
        });
        for (k, t) in palette(s.rules).iter().enumerate() {
            if ui.selectable_label(ed.tool == Tool::Place(k), t.label).on_hover_text("Then click the table: the centre of its front edge").clicked() {
                ed.tool = Tool::Place(k);
            }
        }
    }
    if ui.button("+ Brigade").on_hover_text("A new brigade of this side, with the next chit and a commander").clicked() {
        let chit = s.sides.iter().flat_map(|x| &x.brigades).map(|b| b.chit).max().unwrap_or(0) + 1;
        let kind = side.brigades.first().map(|b| b.commander.kind).or(side.commander.as_ref().map(|c| c.kind)).unwrap_or(crate::editor::palette::commander_kind(s.rules, ed.side));
        let brigade = Brigade { name: format!("Brigade {chit}"), chit, commander: Commander { name: format!("Commander {chit}"), kind, rating: None, at: None, acw: None }, posture: None, units: Vec::new() };
        ed.brigade = side.brigades.len();
        send.write(EditorCommand::Edit(Edit::AddBrigade { side: ed.side, brigade }));
    }
}

/// A text field that sends its edit as one undo step however many keys were typed.
fn text(ui: &mut egui::Ui, label: &str, value: &mut String) -> bool {
    ui.horizontal(|ui| {
        ui.label(label);
        ui.add(egui::TextEdit::singleline(value).desired_width(200.0)).changed()
    })
    .inner
}

fn number(ui: &mut egui::Ui, label: &str, value: &mut f32, range: std::ops::RangeInclusive<f32>, speed: f64) -> bool {
    ui.horizontal(|ui| {
        ui.label(label);
        ui.add(egui::DragValue::new(value).range(range).speed(speed).max_decimals(2)).changed()
    })
    .inner
}

fn count(ui: &mut egui::Ui, label: &str, value: &mut u32, range: std::ops::RangeInclusive<u32>) -> bool {
    ui.horizontal(|ui| {
        ui.label(label);
        ui.add(egui::DragValue::new(value).range(range)).changed()
    })
    .inner
}

fn choice<T: PartialEq + Copy + std::fmt::Debug>(ui: &mut egui::Ui, label: &str, value: &mut T, all: &[T]) -> bool {
    let before = *value;
    ui.horizontal(|ui| {
        ui.label(label);
        egui::ComboBox::from_id_salt(label).selected_text(format!("{value:?}")).show_ui(ui, |ui| {
            for v in all {
                ui.selectable_value(value, *v, format!("{v:?}"));
            }
        });
    });
    *value != before
}


/// A choice that may be left to its default (`usual` says what that is).
fn maybe<T: PartialEq + Copy + std::fmt::Debug>(ui: &mut egui::Ui, label: &str, value: &mut Option<T>, all: &[T], usual: &str) -> bool {
    let before = *value;
    ui.horizontal(|ui| {
        ui.label(label);
        egui::ComboBox::from_id_salt(label).selected_text(value.map_or(format!("by default: {usual}"), |v| format!("{v:?}"))).show_ui(ui, |ui| {
            ui.selectable_value(value, None, format!("by default: {usual}"));
            for v in all {
                ui.selectable_value(value, Some(*v), format!("{v:?}"));
            }
        });
    });
    *value != before
}

/// Send a form's change: typing in a field goes on as one step while it keeps the focus.
fn send_form(ui: &egui::Ui, edit: Edit, send: &mut MessageWriter<EditorCommand>) {
    let typing = ui.ctx().memory(|m| m.focused().is_some()) && ui.input(|i| !i.pointer.any_down());
    send.write(if typing { EditorCommand::Continue(edit) } else { EditorCommand::Edit(edit) });
}

fn item_form(ui: &mut egui::Ui, s: &Scenario, item: Item, ed: &mut Editing, send: &mut MessageWriter<EditorCommand>) {
    match item {
        Item::Terrain(i) => {
            let Some(mut t) = s.terrain.get(i).cloned() else {
                return;
            };
            ui.label(RichText::new(format!("{}: {}", t.kind_name(), t.name())).strong());
            let mut changed = false;
            match &mut t {
                Terrain::Woods { name, density, disorder, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= choice(ui, "Density", density, &[WoodsDensity::Light, WoodsDensity::Regular, WoodsDensity::Dense]);
                    let usual = format!("as its density ({:?})", density.default_disorder());
                    changed |= maybe(ui, "Disorder type (6.6)", disorder, &DisorderType::ALL, &usual);
                }
                Terrain::Hill { name, elevation, slope, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= count(ui, "Elevation (levels)", elevation, 1..=9);
                    changed |= maybe(ui, "Slope disorders as", slope, &DisorderType::ALL, "a slight slope (none)");
                }
                Terrain::Field { name, kind, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= choice(ui, "Kind", kind, &[FieldKind::TallCrops, FieldKind::Plowed, FieldKind::Rocky, FieldKind::Swamp, FieldKind::Pasture]);
                }
                Terrain::Town { name, capacity, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= count(ui, "Capacity (stands)", capacity, 1..=60);
                }
                Terrain::Building { name, size, facing, construction, capacity, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= choice(ui, "Construction", construction, &[Construction::Wood, Construction::Stone]);
                    changed |= count(ui, "Capacity (stands)", capacity, 1..=12);
                    changed |= number(ui, "Width", &mut size[0], 0.5..=24.0, 0.1);
                    changed |= number(ui, "Depth", &mut size[1], 0.5..=24.0, 0.1);
                    changed |= number(ui, "Facing", facing, 0.0..=359.0, 1.0);
                }
                Terrain::Stream { name, kind, width, fords, path } => {
                    changed |= text(ui, "Name", name);
                    changed |= choice(ui, "Kind", kind, &[StreamKind::Narrow, StreamKind::Large, StreamKind::River]);
                    changed |= number(ui, "Width", width, 0.1..=6.0, 0.05);
                    // Fords (6.6: a river is crossed only there): where on the stream, how wide.
                    let mut gone = None;
                    for (k, ford) in fords.iter_mut().enumerate() {
                        ui.horizontal(|ui| {
                            ui.label(format!("Ford {}", k + 1));
                            changed |= ui.add(egui::DragValue::new(&mut ford.at[0]).speed(0.1).max_decimals(1).prefix("x ")).changed();
                            changed |= ui.add(egui::DragValue::new(&mut ford.at[1]).speed(0.1).max_decimals(1).prefix("y ")).changed();
                            changed |= ui.add(egui::DragValue::new(&mut ford.width).range(0.5..=12.0).speed(0.1).max_decimals(1).prefix("w ")).changed();
                            if ui.small_button("🗑").on_hover_text("Remove the ford").clicked() {
                                gone = Some(k);
                            }
                        });
                    }
                    if let Some(k) = gone {
                        fords.remove(k);
                        changed = true;
                    }
                    if ui.button("+ Ford").on_hover_text("A ford 2\" wide where the stream's middle bend is; set where it is below").clicked() {
                        let at = path[path.len() / 2];
                        fords.push(Ford { at, width: 2.0 });
                        changed = true;
                    }
                }
                Terrain::Road { name, width, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= number(ui, "Width", width, 0.25..=4.0, 0.05);
                }
                Terrain::Obstacle { name, kind, impassable_to_artillery, .. } => {
                    changed |= text(ui, "Name", name);
                    changed |= choice(ui, "Kind", kind, &[ObstacleKind::Fence, ObstacleKind::StoneWall, ObstacleKind::Barricade, ObstacleKind::Breastwork]);
                    changed |= ui.checkbox(impassable_to_artillery, "Impassable to artillery (6.7)").changed();
                }
            }
            if changed {
                send_form(ui, Edit::SetTerrain(i, t), send);
            }
        }
        Item::Unit(r) => {
            let Some(mut u) = editor::unit(s, r).cloned() else {
                return;
            };
            ui.label(RichText::new(format!("{} — {}", u.name, s.sides[r.side].brigades[r.brigade].name)).strong());
            let mut changed = text(ui, "Name", &mut u.name);
            changed |= choice(ui, "Type", &mut u.unit_type, &[UnitType::Line, UnitType::StateLine, UnitType::Militia, UnitType::Light, UnitType::Elite, UnitType::Indian]);
            if !matches!(u.arm, Arm::Artillery { .. }) {
                let mut w = u.weapon.unwrap_or(Weapon::Musket);
                if choice(ui, "Weapon", &mut w, &[Weapon::Musket, Weapon::Rifle, Weapon::Carbine, Weapon::Fusil, Weapon::Bow]) {
                    u.weapon = Some(w);
                    changed = true;
                }
            }
            changed |= count(ui, "Figures", &mut u.figures, 1..=200);
            changed |= choice(ui, "Formation", &mut u.formation, &Formation::ALL);
            changed |= number(ui, "Facing", &mut u.facing, 0.0..=359.9, 1.0);
            changed |= number(ui, "Front x", &mut u.at[0], 0.0..=s.table.width, 0.1);
            changed |= number(ui, "Front y", &mut u.at[1], 0.0..=s.table.depth, 0.1);
            changed |= ui.checkbox(&mut u.morale_marker, "Starts with a morale marker").changed();
            // The file's optional profiles: what the other rule sets read of the unit (each by
            // default mapped from the fields above).
            egui::CollapsingHeader::new("Under the other rule sets").id_salt(("profiles", r.side, r.brigade, r.unit)).show(ui, |ui| {
                let side = &s.sides[r.side];
                let mut purky = u.purky.map(|p| p.class);
                if maybe(ui, "Purky class", &mut purky, &PurkyClass::ALL, &format!("{:?}", u.purky_profile(side).class)) {
                    u.purky = purky.map(|class| PurkyProfile { class, figures: u.purky.and_then(|p| p.figures) });
                    changed = true;
                }
                let mut kind = u.revolution.map(|p| p.kind);
                if maybe(ui, "Revolution kind", &mut kind, &RevolutionKind::ALL, &format!("{:?}", u.revolution_profile().kind)) {
                    u.revolution = kind.map(|kind| RevolutionProfile { kind });
                    changed = true;
                }
                let mut quality = u.acw.map(|p| p.quality);
                if maybe(ui, "ACW quality", &mut quality, &AcwQuality::ALL, &format!("{:?}", u.acw_profile().quality)) {
                    u.acw = quality.map(|quality| AcwProfile { quality, ..u.acw.unwrap_or(u.acw_profile()) });
                    changed = true;
                }
                let mut men = u.men.unwrap_or(u.figures * MEN_PER_FIGURE);
                if count(ui, "Men", &mut men, 1..=5000) {
                    u.men = Some(men);
                    changed = true;
                }
            });
            if changed {
                send_form(ui, Edit::SetUnit(r, u), send);
            }
            // Align with or form on the flank of a friend of the same side.
            let friends: Vec<(UnitRef, String)> = pick::units(s).filter(|f| f.side == r.side && *f != r).filter_map(|f| editor::unit(s, f).map(|u| (f, u.name.clone()))).collect();
            if !friends.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.menu_button("Align with…", |ui| {
                        for (f, name) in &friends {
                            if ui.button(name).on_hover_text("Face as he faces, the front on his front line").clicked() {
                                send.write(EditorCommand::Edit(Edit::AlignWith { unit: r, friend: *f }));
                                ui.close();
                            }
                        }
                    });
                    ui.menu_button("Form on the flank of…", |ui| {
                        for (f, name) in &friends {
                            ui.horizontal(|ui| {
                                ui.label(name);
                                for (label, right) in [("left", false), ("right", true)] {
                                    if ui.button(label).clicked() {
                                        send.write(EditorCommand::Edit(Edit::FormOnFlank { unit: r, friend: *f, right }));
                                        ui.close();
                                    }
                                }
                            });
                        }
                    });
                });
            }
        }
        Item::Objective(i) => {
            let Some(mut o) = s.objectives.get(i).cloned() else {
                return;
            };
            ui.label(RichText::new(format!("Objective: {}", o.name)).strong());
            let mut changed = text(ui, "Name", &mut o.name);
            changed |= number(ui, "Radius", &mut o.radius, 0.5..=24.0, 0.1);
            changed |= count(ui, "Points", &mut o.points, 0..=20);
            if changed {
                send_form(ui, Edit::SetObjective(i, o), send);
            }
        }
        Item::Commander { side, brigade } => {
            let name = match brigade {
                Some(b) => s.sides[side].brigades[b].commander.name.clone(),
                None => s.sides[side].commander.as_ref().map_or(String::new(), |c| c.name.clone()),
            };
            ui.label(RichText::new(format!("Commander: {name}")).strong());
            ui.label(RichText::new("Drag him; his name and rating are in Sides and brigades.").weak());
        }
        Item::Wagon { .. } => {
            ui.label(RichText::new("Supply wagon: drag it (OR12 keeps it 1' from the battle line).").weak());
        }
    }
    ui.horizontal(|ui| {
        if ui.button("⎘ Copy").on_hover_text("Ctrl+D: a copy 2\" aside").clicked() {
            send.write(EditorCommand::Edit(Edit::Copy(item)));
        }
        if ui.button("🗑 Delete").on_hover_text("Del").clicked() {
            send.write(EditorCommand::Edit(Edit::Delete(item)));
            ed.selected = None;
        }
    });
}

fn details_form(ui: &mut egui::Ui, s: &Scenario, send: &mut MessageWriter<EditorCommand>) {
    let mut d = Details::of(s);
    let mut changed = text(ui, "Name", &mut d.name);
    let before = d.rules;
    egui::ComboBox::from_label("Rule set").selected_text(d.rules.title()).show_ui(ui, |ui| {
        for r in crate::editor::palette::rule_sets() {
            ui.selectable_value(&mut d.rules, r, r.title());
        }
    });
    changed |= d.rules != before;
    ui.label("Description");
    changed |= ui.add(egui::TextEdit::multiline(&mut d.description).desired_rows(3).desired_width(300.0)).changed();
    changed |= number(ui, "Table width", &mut d.table.width, 12.0..=480.0, 1.0);
    changed |= number(ui, "Table depth", &mut d.table.depth, 12.0..=480.0, 1.0);
    let mut limited = d.turn_limit.is_some();
    let mut turns = d.turn_limit.unwrap_or(10);
    ui.horizontal(|ui| {
        changed |= ui.checkbox(&mut limited, "Turn limit").changed();
        changed |= ui.add_enabled(limited, egui::DragValue::new(&mut turns).range(1..=99)).changed();
    });
    d.turn_limit = limited.then_some(turns);
    ui.label(RichText::new("Optional rules").weak());
    let o = &mut d.optional_rules;
    for (flag, label) in [
        (&mut o.loose_order, "Loose order (5.4)"),
        (&mut o.militia_stragglers, "Militia stragglers"),
        (&mut o.galloper_guns, "Galloper guns (7.6)"),
        (&mut o.commanders_as_skirmishers, "Commanders as skirmishers"),
        (&mut o.indians_skirmish_only, "Indians skirmish only"),
        (&mut o.civilian_drivers, "Civilian drivers"),
        (&mut o.visibility_restrictions, "Visibility restrictions"),
        (&mut o.acw_orders_oneill, "ACW orders: O'Neill's charge table"),
        (&mut o.purky_skirmisher_fire, "Purky: skirmisher fire at 18\""),
    ] {
        changed |= ui.checkbox(flag, label).changed();
    }
    ui.label(RichText::new("History").weak());
    let mut h = d.history.clone().unwrap_or(History { date: String::new(), note: String::new(), sources: Vec::new(), winner: None });
    let mut hc = text(ui, "Date", &mut h.date);
    ui.label("Note");
    hc |= ui.add(egui::TextEdit::multiline(&mut h.note).desired_rows(2).desired_width(300.0)).changed();
    ui.label("Sources, one a line");
    let mut sources = h.sources.join("\n");
    if ui.add(egui::TextEdit::multiline(&mut sources).desired_rows(2).desired_width(300.0)).changed() {
        h.sources = sources.lines().map(str::to_string).filter(|l| !l.trim().is_empty()).collect();
        hc = true;
    }
    if hc {
        d.history = (!h.date.is_empty() || !h.note.is_empty() || !h.sources.is_empty()).then_some(h);
        changed = true;
    }
    if changed {
        send_form(ui, Edit::Details(Box::new(d)), send);
    }
}

fn sides_form(ui: &mut egui::Ui, s: &Scenario, ed: &mut Editing, send: &mut MessageWriter<EditorCommand>) {
    for (i, side) in s.sides.iter().enumerate() {
        let mut x = side.clone();
        ui.push_id(("side", i), |ui| {
            let mut changed = text(ui, "Side", &mut x.name);
            let mut overall = x.commander.clone().unwrap_or(Commander { name: String::new(), kind: CommanderKind::British, rating: None, at: None, acw: None });
            if text(ui, "Commander", &mut overall.name) {
                x.commander = (!overall.name.is_empty()).then_some(overall);
                changed = true;
            }
            if changed {
                send_form(ui, Edit::SetSide(i, x.clone()), send);
            }
            for (b, brigade) in side.brigades.iter().enumerate() {
                let mut br = brigade.clone();
                ui.push_id(b, |ui| {
                    ui.separator();
                    let mut changed = text(ui, "Brigade", &mut br.name);
                    changed |= count(ui, "Chit", &mut br.chit, 1..=99);
                    changed |= text(ui, "Commander", &mut br.commander.name);
                    changed |= choice(
                        ui,
                        "Kind",
                        &mut br.commander.kind,
                        &[CommanderKind::British, CommanderKind::German, CommanderKind::Continental, CommanderKind::French, CommanderKind::Loyalist, CommanderKind::Militia, CommanderKind::Union, CommanderKind::Confederate],
                    );
                    let mut rated = br.commander.rating.is_some();
                    let mut rating = br.commander.rating.unwrap_or(Rating::Aggressive);
                    ui.horizontal(|ui| {
                        changed |= ui.checkbox(&mut rated, "Rating from history").on_hover_text("Otherwise rolled on COMMANDER VALUES before play (2.0)").changed();
                        if rated {
                            changed |= choice(ui, "rating", &mut rating, &[Rating::Exceptional, Rating::Firebrand, Rating::Aggressive, Rating::Cautious, Rating::Poltroon]);
                        }
                    });
                    br.commander.rating = rated.then_some(rating);
                    if changed {
                        send_form(ui, Edit::SetBrigade { side: i, brigade: b, to: br.clone() }, send);
                    }
                    ui.label(RichText::new(format!("{} units", brigade.units.len())).weak());
                });
            }
        });
        ui.separator();
    }
    if ui.button("+ Side").clicked() {
        let name = editor::fresh_name("New side", s.sides.iter().map(|x| x.name.as_str()));
        send.write(EditorCommand::Edit(Edit::AddSide(Side { name, colour: None, commander: None, nation: None, moves_first: false, posture: None, brigades: Vec::new(), wagons: Vec::new() })));
        ed.side = s.sides.len();
    }
}

fn problems(ui: &mut egui::Ui, ed: &mut Editing) {
    let problems = ed.problems.clone();
    ui.separator();
    if problems.is_empty() {
        ui.label(RichText::new("✔ otp check: no problems").color(Color32::from_rgb(150, 210, 150)));
        return;
    }
    ui.label(RichText::new(format!("⚠ otp check: {} problem{}", problems.len(), if problems.len() == 1 { "" } else { "s" })).color(WRONG).strong());
    for (item, message) in problems {
        let r = ui.add(egui::Label::new(RichText::new(&message).color(WRONG)).sense(egui::Sense::click()));
        if let Some(item) = item
            && r.on_hover_text("Click: pick it").clicked()
        {
            ed.selected = Some(item);
            ed.tool = Tool::Select;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A headless window app on the teaching battle, in the editor.
    fn app(editor: Editor, path: Option<PathBuf>) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins).init_resource::<TablePointer>().init_resource::<View>().init_resource::<super::super::table_view::Selection>().add_message::<EditorCommand>().add_systems(Update, take_commands.run_if(editing));
        let game = registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 7).unwrap();
        let mut session = Session::new(game);
        session.autosave = Some(PathBuf::from("/nonexistent/autosave.ron"));
        app.world_mut().insert_resource(session);
        app.world_mut().insert_resource(Battlefield { scenario: crate::scenario::default_scenario(), source: "teaching".into() });
        enter(app.world_mut(), Editing::new(editor, path));
        app
    }

    fn send(app: &mut App, commands: &[EditorCommand]) {
        for c in commands {
            app.world_mut().write_message(c.clone());
        }
        app.update();
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("otp-ui-editor-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    // Issue 23: the mouse's messages change the table the window shows (terrain and the stands
    // laid out by the rule set), undo and redo with them, and the problems follow live.
    #[test]
    fn edits_show_on_the_table_and_undo_with_the_problems() {
        let mut app = app(Editor::open(crate::scenario::DEFAULT_SCENARIO, "teaching.ron").unwrap(), None);
        assert!(app.world().resource::<TablePointer>().owned, "the editor has the left button");
        assert!(app.world().resource::<Session>().autosave.is_none(), "no autosave over the player's game while editing");
        let wood = Terrain::Woods { name: "Copse".into(), density: WoodsDensity::Light, outline: vec![[60.0, 20.0], [66.0, 20.0], [66.0, 26.0]], disorder: None };
        send(&mut app, &[EditorCommand::Edit(Edit::AddTerrain(wood.clone()))]);
        assert_eq!(app.world().resource::<Battlefield>().scenario.terrain.last(), Some(&wood));
        // The 23rd Foot dragged onto the 33rd: the game shown has it there, and the problem is told.
        let foot = UnitRef { side: 0, brigade: 0, unit: 0 };
        send(&mut app, &[EditorCommand::Edit(Edit::Place(Item::Unit(foot), [29.0, 38.0])), EditorCommand::Continue(Edit::Place(Item::Unit(foot), [30.0, 38.0]))]);
        let shown = app.world().resource::<Session>().game.scenario().sides[0].brigades[0].units[0].at;
        assert_eq!(shown, [30.0, 38.0]);
        let ed = app.world().resource::<Editing>();
        assert!(ed.problems.iter().any(|(item, m)| *item == Some(Item::Unit(foot)) && m.contains("overlaps")), "{:?}", ed.problems);
        // The drag is one undo step.
        send(&mut app, &[EditorCommand::Undo]);
        assert!(app.world().resource::<Editing>().problems.is_empty());
        assert_eq!(app.world().resource::<Session>().game.scenario().sides[0].brigades[0].units[0].at, [20.0, 38.0]);
        send(&mut app, &[EditorCommand::Undo]);
        assert_eq!(app.world().resource::<Battlefield>().scenario, crate::scenario::default_scenario());
        send(&mut app, &[EditorCommand::Redo]);
        assert_eq!(app.world().resource::<Battlefield>().scenario.terrain.len(), crate::scenario::default_scenario().terrain.len() + 1);
        // A refused edit says why and changes nothing.
        send(&mut app, &[EditorCommand::Edit(Edit::DeleteVertex { terrain: 99, vertex: 0 })]);
        assert!(app.world().resource::<Editing>().status.as_ref().is_some_and(|(m, bad)| *bad && m.contains("no terrain feature")));
    }

    // Bad input changes nothing: Play this refuses a set-up `otp check` refuses; Save will not
    // write it, and overwrites a file it did not open only when asked twice.
    #[test]
    fn save_and_play_this_refuse_what_would_be_wrong() {
        let dir = temp("save");
        let other = dir.join("theirs.ron");
        std::fs::write(&other, "// someone else's file\n").unwrap();
        let mut app = app(Editor::open(crate::scenario::DEFAULT_SCENARIO, "teaching.ron").unwrap(), None);
        app.world_mut().resource_mut::<Editing>().save_as = other.display().to_string();
        let foot = UnitRef { side: 0, brigade: 0, unit: 0 };
        send(&mut app, &[EditorCommand::Edit(Edit::Place(Item::Unit(foot), [71.9, 38.0]))]);
        send(&mut app, &[EditorCommand::PlayThis]);
        assert!(app.world().get_resource::<Editing>().is_some_and(|e| e.status.as_ref().is_some_and(|(m, _)| m.contains("not yet playable"))), "still editing");
        send(&mut app, &[EditorCommand::Save]);
        assert!(app.world().resource::<Editing>().status.as_ref().unwrap().0.contains("exists"));
        send(&mut app, &[EditorCommand::Save]);
        assert!(app.world().resource::<Editing>().status.as_ref().unwrap().0.contains("off the table"), "{:?}", app.world().resource::<Editing>().status);
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "// someone else's file\n", "nothing written");
        // Mended, it saves (asked twice, since the file is not the editor's) and plays.
        send(&mut app, &[EditorCommand::Undo, EditorCommand::Save, EditorCommand::Save]);
        assert_eq!(crate::scenario::load(&other).unwrap(), crate::scenario::default_scenario());
        assert!(!app.world().resource::<Editing>().editor.unsaved());
        send(&mut app, &[EditorCommand::PlayThis]);
        assert!(app.world().get_resource::<Editing>().is_none());
        assert!(!app.world().resource::<TablePointer>().owned);
        assert_eq!(app.world().resource::<Session>().autosave, Some(PathBuf::from("/nonexistent/autosave.ron")), "autosave back on");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn close_gives_back_the_game_put_aside() {
        let mut app = app(Editor::blank(48.0, 36.0, RuleSetId::Otp, &["A", "B"]), None);
        assert_eq!(app.world().resource::<Battlefield>().scenario.table.width, 48.0, "a new table shown");
        send(&mut app, &[EditorCommand::Close]);
        assert!(app.world().get_resource::<Editing>().is_none());
        assert_eq!(app.world().resource::<Battlefield>().scenario, crate::scenario::default_scenario());
        assert_eq!(app.world().resource::<Session>().game.scenario().name, crate::scenario::default_scenario().name);
    }

    #[test]
    fn the_screenshot_preset_picks_places_and_draws() {
        let mut ed = Editing::new(Editor::open(crate::scenario::DEFAULT_SCENARIO, "teaching.ron").unwrap(), None);
        preset_from(&mut ed, "place:33rd Foot:21,38; pick:33rd Foot; tool:woods; draw:60,20 66,20 66,26");
        let r = UnitRef { side: 0, brigade: 0, unit: 1 };
        assert_eq!(ed.selected, Some(Item::Unit(r)));
        assert_eq!(editor::unit(&ed.editor.scenario, r).unwrap().at, [21.0, 38.0]);
        assert!(ed.problems.iter().any(|(i, _)| *i == Some(Item::Unit(r))), "the overlap told: {:?}", ed.problems);
        assert_eq!(ed.tool, Tool::Draw(Feature::Woods));
        assert_eq!(ed.drawing.len(), 3);
    }

    #[test]
    fn a_file_name_from_a_scenario_name() {
        assert_eq!(slug("Hannah's Crossroads (teaching battle)"), "hannah-s-crossroads-teaching-battle");
        assert_eq!(slug("…"), "new-scenario");
    }
}
