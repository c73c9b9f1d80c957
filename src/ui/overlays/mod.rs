//! Teaching overlays: what the rules' geometry says about the selected unit, drawn on the table.
//!
//! - Arcs (A): its firing arcs out to its weapon's range, guns in three bands (8.1, 8.3, 8.4).
//! - Enfilade (E): the line straight out from its front, the flank and rear zones (8.11, 9.1).
//! - Sight (L): lines of sight to the enemy unit under the pointer, with a readout (8.1–8.11).
//! - Movement (M): its movement envelope; drag it to see a ghost of the move, legal or not (6.x).
//!
//! The overlays ask `table` (and the MOVEMENT chart) every question and decide none. The window
//! snapshots the world into a `Situation` each frame an overlay is on (`Snapshot`), and keeps each
//! overlay's drawing until what it depends on changes (`OverlayCache`). `table_view` paints the
//! drawings: fills under the troops, lines and ghosts over them, tags with the labels.

mod arcs;
pub(crate) mod command;
mod enfilade;
mod movement;
pub(crate) mod planned;
pub(crate) mod scene;
mod shapes;
mod sight;
pub(crate) mod trail;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::UiSet;
use crate::rules::engine::{Topic, plain_words};
use crate::scenario::spawn::{Battlefield, Unit};
use crate::table::footprint::Footprint;
use crate::table::movement::MoveStep;
use crate::table::situation::Situation;
pub(crate) use movement::{DragKind, built_situation, step as drag_step, used_left};
use movement::{AllowanceInfo, Built, Preview};
use scene::{Scene, colours};
use sight::{Mark, SightView};

/// A view asked of the engine and kept until the game changes (the session's revision), for
/// the overlays that draw what the engine gives them.
pub(crate) trait EngineView: Resource + bevy::ecs::component::Component<Mutability = bevy::ecs::component::Mutable> + Default {
    /// The revision it was asked at (`None`: never, or no game).
    fn revision(&mut self) -> &mut Option<u64>;
    fn ask(&mut self, engine: &dyn crate::rules::engine::Engine);
}

/// Asks the engine again when the game has changed; forgets everything when no game is open.
pub(crate) fn refresh_view<V: EngineView>(session: Option<Res<crate::ui::session::Session>>, mut view: ResMut<V>) {
    let Some(session) = session else {
        if view.revision().is_some() {
            *view = V::default();
        }
        return;
    };
    if *view.revision() != Some(session.revision) {
        view.ask(session.engine());
        *view.revision() = Some(session.revision);
    }
}

/// What a mark on the table means, in a box beside the pointer.
pub(crate) fn table_tooltip(painter: &egui::Painter, pointer: egui::Pos2, text: &str, font: egui::FontId) {
    const SHADOW: Color32 = Color32::from_rgba_premultiplied(20, 16, 10, 170);
    const INFO: Color32 = Color32::from_rgb(245, 225, 150);
    let galley = painter.layout(text.to_string(), font, INFO, 320.0);
    let rect = egui::Rect::from_min_size(pointer + egui::vec2(14.0, 14.0), galley.size()).expand(4.0);
    painter.rect_filled(rect, 4.0, SHADOW);
    painter.galley(rect.min + egui::vec2(4.0, 4.0), galley, INFO);
}

/// Which overlays are on.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Overlays {
    pub arcs: bool,
    pub enfilade: bool,
    pub sight: bool,
    pub movement: bool,
    /// Sight for guns firing ball, which fire over lower units (8.9).
    pub ball: bool,
}

impl Overlays {
    pub fn any(&self) -> bool {
        self.arcs || self.enfilade || self.sight || self.movement
    }

    /// Turns on the overlays named in a list like "arcs,enfilade,sight,movement" (`OTP_OVERLAYS`);
    /// the names it does not know.
    pub fn set_from(&mut self, list: &str) -> Vec<String> {
        let mut unknown = Vec::new();
        for name in list.split(',').map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()) {
            match name.as_str() {
                "arcs" | "arc" | "a" => self.arcs = true,
                "enfilade" | "flanks" | "e" => self.enfilade = true,
                "sight" | "los" | "l" => self.sight = true,
                "movement" | "move" | "m" => self.movement = true,
                "ball" => self.ball = true,
                "all" => {
                    self.arcs = true;
                    self.enfilade = true;
                    self.sight = true;
                    self.movement = true;
                }
                _ => unknown.push(name),
            }
        }
        unknown
    }
}

/// The shortcuts, for the help window.
pub(crate) const SHORTCUTS: &[(&str, &str)] = &[
    ("A", "teaching overlay: firing arcs and ranges of the selected unit"),
    ("E", "teaching overlay: the front line, flank and rear zones"),
    ("L", "teaching overlay: line of sight to the enemy under the pointer"),
    ("M", "teaching overlay: movement envelope; drag the unit to try a move"),
    ("Drag the selected unit", "forward / oblique; from an end stand: wheel; a column: its head's path. In a game a unit that acts now drags with M off or on; otherwise M turns on the try-out"),
    ("Shift-drag", "side step (half rate); a skirmish line: the whole line"),
    ("Drag a skirmisher's stand", "that stand alone; the others stay"),
    ("Drag a unit that acts now", "in a game: each drag adds a step to the move (wheel, then forward…), judged by the engine with the inches used and left; drag on from the ghost"),
    ("Enter, or click the ghost", "order the move built on the table"),
    ("Backspace", "take back the move's last step"),
    (LEADER_CLICK, "in a game: pick him up; then click the table to ride there, or a unit of his command to join it"),
];

/// The key of F1's line on clicking a leader, whose words are the rule set's (`Topic::LeaderClick`).
pub(crate) const LEADER_CLICK: &str = "Click a commander's figure";

/// A move being dragged, or the ghost left after one (until Esc).
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub(crate) struct MoveDrag {
    pub unit: Option<Entity>,
    pub kind: Option<DragKind>,
    /// Where the pointer has been, table inches; the first is where the drag started.
    pub points: Vec<Vec2>,
    pub active: bool,
    /// A drag to replay at start (`OTP_DRAG`): points and Shift.
    pub pending: Option<(Vec<Vec2>, bool)>,
    /// In a game: the selected unit of the phasing brigade, which a drag moves by order (set
    /// by `orders` every frame). Its drag is judged by the engine, not the teaching overlay.
    pub playable: Option<super::orders::Playable>,
    /// A game drag was let go: `orders` adds its step to the move (or shows the refusal).
    pub released: bool,
    /// In a game: the steps of the move built so far on the table (each drag adds one, 6.3);
    /// `orders` sends them as one order on Enter or a click on the ghost.
    pub steps: Vec<MoveStep>,
}

impl MoveDrag {
    pub fn clear(&mut self) {
        *self = MoveDrag { pending: self.pending.take(), playable: self.playable.take(), ..Default::default() };
    }

    /// The playable unit, if it is `unit`.
    pub fn plays(&self, unit: Option<Entity>) -> bool {
        self.playable.as_ref().is_some_and(|p| Some(p.unit) == unit)
    }
    pub fn has_ghost(&self) -> bool {
        self.unit.is_some() && (self.points.len() >= 2 || !self.steps.is_empty())
    }
}

/// The world as the geometry sees it, rebuilt when a stand or unit changes.
#[derive(Resource, Default)]
pub(crate) struct Snapshot {
    pub situation: Option<Situation>,
    pub index: HashMap<Entity, usize>,
    signature: u64,
    generation: u64,
}

impl Snapshot {
    fn unit(&self, e: Option<Entity>) -> Option<usize> {
        e.and_then(|e| self.index.get(&e).copied())
    }
}

type BaseKey = (u64, Option<Entity>, Option<Entity>, Overlays);
type SightKey = (u64, Entity, Entity, bool);
/// (snapshot, unit, kind, points, the game's revision and kind of move for a game drag, the
/// steps built before it).
type DragKey = (u64, Entity, Option<DragKind>, Vec<[u32; 2]>, Option<(u64, usize)>, String);
/// (snapshot, unit, the game's revision, the steps built, a drag under way).
type BuiltKey = (u64, Entity, u64, String, bool);

/// The overlays' drawings, kept until what they show changes.
#[derive(Resource, Default)]
pub(crate) struct OverlayCache {
    base: Option<(BaseKey, Scene)>,
    /// The movement envelope's shapes, and its tags (left out while a ghost is shown).
    envelope: Option<(BaseKey, Scene, Scene)>,
    sight: Option<(SightKey, Option<(SightView, Scene)>)>,
    drag: Option<(DragKey, Option<(Preview, Scene)>)>,
    /// In a game: the engine's verdict on the dragged move.
    verdict: Option<super::orders::Verdict>,
    /// The selected unit's allowance, for the legend.
    allowance: Option<(String, AllowanceInfo)>,
    /// In a game: the move built so far, and its ghost.
    built: Option<(BuiltKey, Built, Scene)>,
}

impl OverlayCache {
    /// The dragged move as one step, and the engine's verdict on it in a game.
    pub fn dragged(&self) -> Option<(&MoveStep, Option<&super::orders::Verdict>)> {
        let (_, Some((p, _))) = self.drag.as_ref()? else { return None };
        Some((&p.step, self.verdict.as_ref()))
    }
}

/// What `table_view` needs of the overlays.
#[derive(SystemParam)]
pub(crate) struct Teach<'w> {
    pub overlays: ResMut<'w, Overlays>,
    pub drag: ResMut<'w, MoveDrag>,
    snapshot: Res<'w, Snapshot>,
    cache: ResMut<'w, OverlayCache>,
    /// The game, to judge a drag of the phasing brigade's unit.
    session: Option<Res<'w, super::session::Session>>,
    /// A click on a built move's ghost orders it.
    moves: MessageWriter<'w, super::orders::MoveCommand>,
}

impl Teach<'_> {
    /// The engine and its entity for an app unit, if a game is on.
    fn engine_unit(&self, unit: Option<Entity>) -> Option<(&dyn crate::rules::engine::Engine, Entity)> {
        let session = self.session.as_ref()?;
        Some((session.engine(), session.game_entity(unit?)?))
    }

    /// The arcs overlay of the app's `unit` (index `i` in `s`), as its rule set measures fire.
    fn arcs_scene(&self, sc: &mut Scene, s: &crate::table::situation::Situation, i: usize, main: bool, unit: Option<Entity>) {
        let Some((engine, e)) = self.engine_unit(unit) else { return };
        let (bands, close, notes) = (engine.fire_bands(e), engine.close_range(e), engine.arc_notes(e));
        let words = |t| engine.words(t);
        sc.extend(arcs::scene(s, i, main, arcs::ArcRules { bands: &bands, fire: engine.fire_rules(), close: close.as_ref(), notes: &notes, words: &words }));
    }

    /// A left press on the selected unit starts a move drag: an order in a game when the unit
    /// is the phasing brigade's, else a try-out with the Movement overlay on.
    pub fn start_drag(&mut self, selected: Option<Entity>, at: Vec2, shift: bool) -> bool {
        let Some(e) = selected else { return false };
        if !self.overlays.movement && !self.drag.plays(selected) {
            return false;
        }
        let (Some(s), Some(i)) = (&self.snapshot.situation, self.snapshot.unit(selected)) else { return false };
        // A move being built: the next step starts where its ghost stands.
        let steps = if self.drag.unit == selected && self.drag.plays(selected) { std::mem::take(&mut self.drag.steps) } else { Vec::new() };
        let kind = match self.built_for(e, &steps) {
            Some(b) => movement::grab_kind(b.situation(s, i).unit(i), at, shift),
            None => movement::grab_kind(s.unit(i), at, shift),
        };
        let playable = self.drag.playable.take();
        *self.drag = MoveDrag { unit: Some(e), kind: Some(kind), points: vec![at], active: true, pending: None, playable, released: false, steps };
        true
    }

    /// How far the app's `unit` can go in a move, as the game's engine says (`Engine::reach`);
    /// nothing without a game.
    fn reach(&self, unit: Option<Entity>) -> Option<AllowanceInfo> {
        let session = self.session.as_ref()?;
        movement::allowance(session.engine(), session.game_entity(unit?)?)
    }

    /// The cached plan of a move being built, if it is of these steps.
    fn built_for(&self, e: Entity, steps: &[MoveStep]) -> Option<&Built> {
        let (k, b, _) = self.cache.built.as_ref()?;
        (k.1 == e && !steps.is_empty() && b.steps == steps).then_some(b)
    }

    /// Whether a point is on the ghost of the move being built (a drag may start there).
    pub fn on_ghost(&self, at: Vec2) -> bool {
        self.drag.unit.is_some_and(|e| self.built_for(e, &self.drag.steps).is_some_and(|b| b.contains(at)))
    }

    /// A click on the table: on a built move's ghost it orders the move (true: taken).
    pub fn click(&mut self, at: Vec2) -> bool {
        let on = self.on_ghost(at);
        if on {
            self.moves.write(super::orders::MoveCommand::Commit);
        }
        on
    }

    pub fn drag_to(&mut self, at: Vec2, shift: bool) {
        if !self.drag.active {
            return;
        }
        // A skirmish line's Shift-drag is its whole line: Shift does not side-step it.
        let skirmish = matches!((&self.snapshot.situation, self.snapshot.unit(self.drag.unit)), (Some(s), Some(i)) if movement::by_stand(s.unit(i)));
        let d = &mut *self.drag;
        // Shift turns a straight move into a side step and back, live.
        if let Some(k @ (DragKind::Advance | DragKind::SideStep)) = d.kind
            && !skirmish
        {
            let want = if shift { DragKind::SideStep } else { DragKind::Advance };
            if k != want {
                d.kind = Some(want);
            }
        }
        match d.kind {
            // A column's head leaves a trail: keep a point every quarter inch.
            Some(DragKind::Path) => {
                if d.points.last().is_none_or(|p| p.distance(at) >= 0.25) {
                    d.points.push(at);
                }
            }
            _ => {
                d.points.truncate(1);
                d.points.push(at);
            }
        }
    }

    pub fn end_drag(&mut self) {
        if self.drag.active && self.drag.plays(self.drag.unit) {
            self.drag.released = true;
        }
        self.drag.active = false;
    }

    pub fn dragging(&self) -> bool {
        self.drag.active
    }

    /// Brings every drawing up to date for this frame; true when any of them changed (the
    /// window then paints again, so panels drawn before the table catch up).
    pub fn update(&mut self, selected: Option<Entity>, hovered: Option<Entity>) -> bool {
        let o = *self.overlays;
        let play = self.drag.plays(selected);
        if !o.movement && self.drag.unit.is_some() && !play {
            self.drag.clear();
        }
        if !o.any() && !play {
            return false;
        }
        let Some(s) = &self.snapshot.situation else { return false };
        let mut changed = false;
        let generation = self.snapshot.generation;
        // A replayed drag (OTP_DRAG) once the unit is known.
        if let (Some((points, shift)), Some(e), Some(i)) = (self.drag.pending.clone(), selected, self.snapshot.unit(selected))
            && points.len() >= 2
        {
            let kind = movement::grab_kind(s.unit(i), points[0], shift);
            // Shown, not let go: in a game the ghost waits and no order is sent.
            let playable = self.drag.playable.take();
            *self.drag = MoveDrag { unit: Some(e), kind: Some(kind), points, active: false, pending: None, playable, released: false, steps: Vec::new() };
        }
        if self.drag.unit.is_some() && (self.drag.unit != selected || !(o.movement || play)) {
            self.drag.clear();
        }
        // Arcs, zones and the envelope depend on the selected unit (and the one hovered, for arcs).
        let compare = hovered.filter(|h| o.arcs && !o.sight && Some(*h) != selected);
        let key: BaseKey = (generation, selected, compare, Overlays { ball: false, ..o });
        if !o.any() {
            self.cache.base = None;
            self.cache.envelope = None;
        } else if self.cache.base.as_ref().is_none_or(|(k, _)| *k != key) {
            changed = true;
            let mut sc = Scene::default();
            let mut envelope = Scene::default();
            if let Some(i) = self.snapshot.unit(selected) {
                if o.enfilade {
                    let words = |t| self.session.as_ref().map_or_else(|| plain_words(t), |s| s.engine().words(t));
                    sc.extend(enfilade::scene(s, i, &words));
                }
                if o.movement && let (Some(info), Some(session)) = (self.reach(selected), self.session.as_ref()) {
                    envelope = movement::envelope(s, i, &info, session.engine().move_rules());
                }
                if o.arcs {
                    self.arcs_scene(&mut sc, s, i, true, selected);
                }
            }
            if let Some(j) = self.snapshot.unit(compare) {
                self.arcs_scene(&mut sc, s, j, false, compare);
            }
            self.cache.base = Some((key, sc));
            let tags = Scene { tags: std::mem::take(&mut envelope.tags), ..Default::default() };
            self.cache.envelope = Some((key, envelope, tags));
        }
        self.cache.allowance = self.snapshot.unit(selected).and_then(|i| self.reach(selected).map(|a| (s.unit(i).name.clone(), a)));
        // Sight: the selected unit at the enemy under the pointer.
        let pair = match (o.sight, self.snapshot.unit(selected), self.snapshot.unit(hovered)) {
            (true, Some(f), Some(t)) if s.unit(f).side != s.unit(t).side => Some((f, t)),
            _ => None,
        };
        match (pair, selected, hovered) {
            (Some((f, t)), Some(a), Some(b)) => {
                let key: SightKey = (generation, a, b, o.ball);
                if self.cache.sight.as_ref().is_none_or(|(k, _)| *k != key) {
                    changed = true;
                    // The rule set measures and reads the shot; no game, no lines.
                    let seen = self.engine_unit(selected).zip(self.engine_unit(hovered)).map(|((engine, unit), (_, at))| {
                        let v = sight::view(s, f, t, o.ball, engine, unit, at);
                        let sc = sight::scene(&v);
                        (v, sc)
                    });
                    self.cache.sight = Some((key, seen));
                }
            }
            _ => self.cache.sight = None,
        }
        // The dragged move: in a game judged by the engine, else by the geometry alone.
        let game = match (&self.drag.playable, &self.session) {
            (Some(p), Some(session)) if play && self.drag.unit == Some(p.unit) => Some((p.clone(), session)),
            _ => None,
        };
        let allowance = match &game {
            Some((p, _)) => Some(p.allowance),
            None => self.cache.allowance.as_ref().map(|(_, info)| info.allowance),
        };
        // The rule set's movement rules, which the geometry applies (none without a game).
        let allowance = allowance.zip(self.session.as_ref().map(|s| s.engine().move_rules()));
        // In a game, the move built so far: its ghost, and where the next drag starts.
        let steps_key = format!("{:?}", self.drag.steps);
        match (&game, self.drag.unit, self.snapshot.unit(self.drag.unit), allowance) {
            (Some((p, session)), Some(e), Some(i), Some((allowance, rules))) if !self.drag.steps.is_empty() => {
                let key: BuiltKey = (generation, e, session.revision, steps_key.clone(), self.drag.points.len() >= 2);
                if self.cache.built.as_ref().is_none_or(|(k, _, _)| *k != key) {
                    changed = true;
                    let b = movement::build(s, i, &self.drag.steps, allowance, rules);
                    let sc = movement::built_scene(&b, p.spent, p.most, key.4);
                    self.cache.built = Some((key, b, sc));
                }
            }
            _ => self.cache.built = None,
        }
        match (self.drag.unit, self.snapshot.unit(self.drag.unit), self.drag.points.len() >= 2, allowance) {
            (Some(e), Some(i), true, Some((allowance, rules))) => {
                let judged = game.as_ref().map(|(p, session)| (session.revision, p.kind));
                let key: DragKey = (generation, e, self.drag.kind, self.drag.points.iter().map(|p| [p.x.to_bits(), p.y.to_bits()]).collect(), judged, steps_key);
                if self.cache.drag.as_ref().is_none_or(|(k, _)| *k != key) {
                    changed = true;
                    let built = self.cache.built.as_ref().map(|(_, b, _)| b).filter(|b| b.steps == self.drag.steps);
                    let p = match built {
                        // The step is dragged from the ghost, with what the built steps leave.
                        Some(b) => {
                            let left = |a: f32| (a - b.spent()).max(0.0);
                            let rest = crate::table::movement::Allowance { full: left(allowance.full), road: allowance.road.map(left) };
                            self.drag.kind.and_then(|k| movement::preview(&b.situation(s, i), i, k, &self.drag.points, rest, rules))
                        }
                        None => self.drag.kind.and_then(|k| movement::preview(s, i, k, &self.drag.points, allowance, rules)),
                    };
                    let before = built.map_or(0.0, Built::spent);
                    self.cache.verdict = match (&game, &p) {
                        (Some((playable, session)), Some(p)) => Some(super::orders::judge(session.engine(), playable, &self.drag.steps, before, &p.step, &p.report)),
                        _ => None,
                    };
                    let verdict = self.cache.verdict.as_ref();
                    let made = p.map(|p| {
                        let sc = match verdict {
                            Some(v) => movement::judged_scene(&p, v.allowed(), v.text()),
                            None => movement::preview_scene(&p),
                        };
                        (p, sc)
                    });
                    self.cache.drag = Some((key, made));
                }
            }
            _ => {
                self.cache.drag = None;
                self.cache.verdict = None;
            }
        }
        changed
    }

    /// This frame's drawings, back to front.
    pub fn scenes(&self) -> Vec<&Scene> {
        let mut out = Vec::new();
        if !self.overlays.any() {
            // A game drag shows its ghost without the teaching overlays.
            if self.drag.plays(self.drag.unit) {
                if let Some((_, _, s)) = &self.cache.built {
                    out.push(s);
                }
                if let Some((_, Some((_, s)))) = &self.cache.drag {
                    out.push(s);
                }
            }
            return out;
        }
        if let Some((_, _, s)) = &self.cache.built {
            out.push(s);
        }
        if let Some((_, shapes, tags)) = &self.cache.envelope {
            out.push(shapes);
            if !matches!(self.cache.drag, Some((_, Some(_)))) {
                out.push(tags);
            }
        }
        if let Some((_, s)) = &self.cache.base {
            out.push(s);
        }
        if let Some((_, Some((_, s)))) = &self.cache.sight {
            out.push(s);
        }
        if let Some((_, Some((_, s)))) = &self.cache.drag {
            out.push(s);
        }
        out
    }

    /// The sight readout's rows for the enemy under the pointer, if the sight overlay has one.
    pub fn readout(&self) -> Option<(String, Vec<(Mark, String)>)> {
        let (_, Some((v, _))) = self.cache.sight.as_ref()? else { return None };
        Some((format!("{} firing at {}", v.firer, v.target), sight::readout(v)))
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Overlays>()
        .init_resource::<MoveDrag>()
        .init_resource::<Snapshot>()
        .init_resource::<OverlayCache>()
        .add_systems(Update, keyboard.run_if(not(egui_wants_any_keyboard_input)).after(super::unit_sheet::keyboard))
        .add_systems(EguiPrimaryContextPass, snapshot.in_set(UiSet::Begin));
}

fn keyboard(keys: Res<ButtonInput<KeyCode>>, mut overlays: ResMut<Overlays>, mut drag: ResMut<MoveDrag>) {
    if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight, KeyCode::AltLeft, KeyCode::AltRight]) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyA) {
        overlays.arcs = !overlays.arcs;
    }
    if keys.just_pressed(KeyCode::KeyE) {
        overlays.enfilade = !overlays.enfilade;
    }
    if keys.just_pressed(KeyCode::KeyL) {
        overlays.sight = !overlays.sight;
    }
    if keys.just_pressed(KeyCode::KeyM) {
        overlays.movement = !overlays.movement;
    }
    if keys.just_pressed(KeyCode::Escape) {
        drag.clear();
    }
}

/// Rebuilds the `Situation` when the troops or the battlefield have changed (only while an
/// overlay is on).
fn snapshot(world: &mut World) {
    if !world.resource::<Overlays>().any() && world.resource::<MoveDrag>().playable.is_none() {
        return;
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if let Some(b) = world.get_resource::<Battlefield>() {
        b.source.hash(&mut h);
        b.scenario.name.hash(&mut h);
    }
    let mut units = world.query::<(Entity, &Unit)>();
    let mut names: Vec<(Entity, String)> = Vec::new();
    for (e, u) in units.iter(world) {
        e.hash(&mut h);
        u.name.hash(&mut h);
        (u.formation as u8).hash(&mut h);
        u.stands.hash(&mut h);
        names.push((e, u.name.clone()));
    }
    let mut stands = world.query::<(Entity, &Footprint)>();
    for (e, f) in stands.iter(world) {
        e.hash(&mut h);
        [f.centre.x, f.centre.y, f.facing, f.frontage, f.depth].map(f32::to_bits).hash(&mut h);
    }
    let signature = h.finish();
    let snap = world.resource::<Snapshot>();
    if snap.situation.is_some() && snap.signature == signature {
        return;
    }
    let situation = Situation::from_world(world);
    let index = names.into_iter().filter_map(|(e, n)| situation.units().iter().position(|u| u.name == n).map(|i| (e, i))).collect();
    let mut snap = world.resource_mut::<Snapshot>();
    snap.situation = Some(situation);
    snap.index = index;
    snap.signature = signature;
    snap.generation += 1;
}

/// A swatch of an overlay colour as it shows on the cloth.
fn swatch(ui: &mut egui::Ui, fill: Color32, edge: Color32) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(16.0, 14.0), egui::Sense::hover());
    ui.painter().rect(r, 2.0, colours::on_cloth(fill), egui::Stroke::new(2.0, edge), egui::StrokeKind::Inside);
}

/// Text size of the legend's rows (the sheet's own text is about 14).
const LEGEND_PX: f32 = 12.5;
const NOTE_PX: f32 = 11.5;

fn key_row(ui: &mut egui::Ui, fill: Color32, edge: Color32, text: &str) {
    ui.horizontal(|ui| {
        swatch(ui, fill, edge);
        ui.label(RichText::new(text).size(LEGEND_PX));
    });
}

fn note(ui: &mut egui::Ui, text: &str) {
    ui.label(RichText::new(text).size(NOTE_PX).weak());
}

fn heading(ui: &mut egui::Ui, text: &str, colour: Color32) {
    ui.add_space(3.0);
    ui.label(RichText::new(text).strong().color(colour));
}

/// The key to what is drawn, at the top of the unit sheet: colours, rules, the allowance and the
/// dragged move.
/// `words`: the rule set's words (`Engine::words`); a row it has none for is left out.
pub(crate) fn legend_ui(ui: &mut egui::Ui, overlays: &mut Overlays, unit: &Unit, cache: &OverlayCache, drag: &MoveDrag, words: &dyn Fn(Topic) -> Option<String>) {
    let artillery = matches!(unit.arm, crate::scenario::model::Arm::Artillery { .. });
    if overlays.arcs {
        heading(ui, &words(Topic::ArcsHeading).unwrap_or_default(), colours::ARC_TAG);
        if artillery {
            for (i, fill) in colours::ARC_FILL.iter().enumerate() {
                if let Some(band) = words(Topic::GunBand(i as u8)) {
                    key_row(ui, *fill, colours::ARC_OUTLINE, &band);
                }
            }
        } else {
            key_row(ui, colours::ARC_SMALL_ARMS, colours::ARC_OUTLINE, "45° out from each end, to the weapon's range");
            if let Some(n) = words(Topic::SmallArmsNote) {
                note(ui, &n);
            }
        }
        note(ui, "Point at another unit to compare its arcs.");
    }
    if overlays.enfilade {
        heading(ui, &words(Topic::FlanksHeading).unwrap_or_default(), colours::ZONE_TAG);
        for (fill, edge, topic) in [(Color32::TRANSPARENT, colours::ZONE_LINE, Topic::FrontLine), (colours::ZONE_FLANK, colours::ZONE_HATCH, Topic::FlankZone), (colours::ZONE_REAR, colours::ZONE_HATCH, Topic::RearZone)] {
            if let Some(row) = words(topic) {
                key_row(ui, fill, edge, &row);
            }
        }
    }
    if overlays.sight {
        heading(ui, &words(Topic::SightHeading).unwrap_or_default(), colours::SIGHT_CLEAR_TAG);
        key_row(ui, colours::SIGHT_CLEAR, colours::CASING, "clear, from the firing stand's centre");
        key_row(ui, colours::SIGHT_BLOCKED, colours::CASING, "blocked: ✖ where, and by what");
        if let Some(woods) = words(Topic::SightWoods) {
            key_row(ui, colours::SIGHT_WOODS, colours::CASING, &woods);
        }
        note(ui, "Dashed: a stand that does not bear (out of arc or range). Each line goes to the nearest point of the target the stand sees, through the least woods.");
        if let (true, Some(ball)) = (artillery, words(Topic::Ball)) {
            ui.checkbox(&mut overlays.ball, RichText::new(ball).size(LEGEND_PX));
        }
        if cache.sight.is_none() {
            ui.label(RichText::new("Point at an enemy unit.").italics());
        }
    }
    if overlays.movement {
        heading(ui, &words(Topic::MoveHeading).unwrap_or_default(), colours::MOVE_TAG);
        if let Some((_, a)) = &cache.allowance {
            let src = if a.reconstructed { "reconstructed value: the printed chart is lost" } else { "from the rules text" };
            ui.label(RichText::new(format!("MOVEMENT chart: {}", a.what)).size(LEGEND_PX)).on_hover_text(&a.source);
            ui.label(RichText::new(src).size(LEGEND_PX).weak()).on_hover_text(&a.source);
        }
        if matches!(unit.formation, crate::scenario::model::Formation::Column | crate::scenario::model::Formation::Limbered) && unit.stands.len() > 1 {
            key_row(ui, colours::MOVE_FILL, colours::MOVE_LINE, "the column's head, along any path; the road allowance dashed");
        } else {
            key_row(ui, colours::MOVE_FILL, colours::MOVE_LINE, "forward / oblique ≤ 45°, side steps (hatched), wheels");
        }
        note(ui, "Drag the unit to try a move: from an end stand it wheels, with Shift it side-steps, a column drags its head, a skirmish line moves the stand grabbed (Shift: the whole line). Esc clears.");
        if let Some((_, Some((p, _)))) = &cache.drag {
            ui.add_space(2.0);
            // In a game the engine's verdict, else the geometry's.
            let (legal, text) = match &cache.verdict {
                Some(v) => (v.allowed(), v.text()),
                None => (p.report.legal(), movement::verdict(p)),
            };
            let (fill, edge) = if legal { (colours::GHOST_OK_FILL, colours::GHOST_OK_EDGE) } else { (colours::GHOST_BAD_FILL, colours::GHOST_BAD_EDGE) };
            ui.horizontal_wrapped(|ui| {
                swatch(ui, fill, edge);
                ui.label(RichText::new(text).size(LEGEND_PX).strong());
            });
            let shown = match (&p.report.problem, &p.reach) {
                (Some(_), Some(reach)) => {
                    note(ui, "The farthest the same move is allowed:");
                    reach
                }
                _ => &p.report,
            };
            for item in &shown.items {
                let section = if item.section.is_empty() { String::new() } else { format!(" ({})", item.section) };
                ui.label(RichText::new(format!("{:>5.2}\"  {}{section}", item.inches, item.what)).size(LEGEND_PX).monospace());
            }
            for c in &shown.disorder {
                let roll = words(Topic::DisorderRoll).unwrap_or_else(|| "disordering terrain".into());
                ui.label(RichText::new(format!("  ⚠ {} (type {:?}) after {:.1}\": {roll}", c.terrain, c.disorder, c.after)).size(LEGEND_PX));
            }
            if drag.active {
                note(ui, "release to keep the ghost");
            }
        }
    }
}

/// Paints the rows of the sight readout (for the tooltip beside the pointer).
pub(crate) fn readout_ui(ui: &mut egui::Ui, title: &str, rows: &[(Mark, String)]) {
    ui.label(RichText::new(title).strong().size(14.5));
    for (mark, text) in rows {
        let colour = match mark {
            Mark::Yes => Color32::from_rgb(120, 225, 140),
            Mark::No => Color32::from_rgb(255, 130, 120),
            Mark::Warn => Color32::from_rgb(255, 205, 90),
            Mark::Info => Color32::from_rgb(210, 210, 200),
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new(mark.symbol()).color(colour).strong());
            ui.label(RichText::new(text).color(colour.lerp_to_gamma(Color32::WHITE, 0.45)));
        });
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use bevy::math::Vec2;

    use crate::scenario::model::{Table, Terrain};
    use crate::table::situation::{Situation, UnitInfo};

    pub fn table(units: Vec<UnitInfo>) -> Situation {
        Situation::new(Table { width: 72.0, depth: 48.0 }, Vec::<Terrain>::new(), units)
    }

    pub fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A drag starts on the selected unit with the Movement overlay on (a try-out), or in a game
    // when the unit is the phasing brigade's (an order: let go, it is handed to `orders`).
    #[test]
    fn drags_start_in_teaching_or_in_play_and_only_play_drags_are_released_as_orders() {
        use bevy::ecs::system::RunSystemOnce;
        let mut world = World::new();
        crate::scenario::spawn::spawn_scenario(&mut world, &crate::scenario::default_scenario(), "teaching");
        world.init_resource::<Overlays>();
        world.init_resource::<MoveDrag>();
        world.init_resource::<Snapshot>();
        world.init_resource::<OverlayCache>();
        world.init_resource::<Messages<crate::ui::orders::MoveCommand>>();
        let e = world.query::<(Entity, &Unit)>().iter(&world).find(|(_, u)| u.name == "33rd Foot").map(|(e, _)| e).unwrap();
        let front = world.get::<Footprint>(world.get::<Unit>(e).unwrap().stands[0]).unwrap().front_centre();
        let grab = front - Vec2::new(0.0, -0.3);
        let press = |world: &mut World| {
            world.run_system_once(snapshot).unwrap();
            let started = world.run_system_once(move |mut t: Teach| t.start_drag(Some(e), grab, false)).unwrap();
            world.run_system_once(|mut t: Teach| t.end_drag()).unwrap();
            (started, world.resource::<MoveDrag>().released)
        };
        assert_eq!(press(&mut world), (false, false), "no overlay, no game: the press pans");
        world.resource_mut::<Overlays>().movement = true;
        assert_eq!(press(&mut world), (true, false), "teaching: a ghost, no order");
        world.resource_mut::<Overlays>().movement = false;
        world.resource_mut::<MoveDrag>().playable = Some(crate::ui::orders::Playable { unit: e, game_unit: e, name: "33rd Foot".into(), allowance: crate::table::movement::Allowance::new(6.0), kind: 0, kind_label: "move".into(), dice: None, spent: 0.0, most: Some(6.0) });
        assert_eq!(press(&mut world), (true, true), "in a game: let go, it is an order");
    }

    // F1 says what the engine allows: a unit of the phasing brigade is dragged with M off (the
    // test above), so the help never says M is needed for it.
    #[test]
    fn the_help_says_a_game_drag_needs_no_m() {
        let (_, drag) = SHORTCUTS.iter().find(|(k, _)| *k == "Drag the selected unit").expect("listed");
        assert!(drag.contains("with M off or on"), "{drag}");
        assert!(!SHORTCUTS.iter().any(|(_, t)| t.starts_with("with M on")), "{SHORTCUTS:?}");
        assert!(SHORTCUTS.iter().any(|(k, _)| k.contains("Enter")) && SHORTCUTS.iter().any(|(k, _)| *k == "Backspace"), "building a move is in F1");
    }

    #[test]
    fn overlay_lists_turn_overlays_on() {
        let mut o = Overlays::default();
        assert!(!o.any());
        assert_eq!(o.set_from("arcs, Sight,bogus"), vec!["bogus".to_string()]);
        assert!(o.arcs && o.sight && !o.enfilade && !o.movement && o.any());
        o.set_from("all");
        assert!(o.enfilade && o.movement);
    }
}
