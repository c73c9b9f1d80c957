//! The table: terrain (from `picture::table`, cached until the battlefield changes), the troops
//! drawn each frame from their stands (`picture::unit`, `picture::commander`), labels that stay
//! readable at any zoom, hover and selection, panning and zooming with the mouse, the scale bar.

use std::time::Instant;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, Pos2, Rect};

use super::backdrop::Backdrop;
use super::camera::View;
use super::overlays::{Teach, readout_ui, scene as overlay};
use super::paint::{self, LabelStyle, Prepared, Taken};
use super::ruler::Ruler;
use super::session::SessionCommand;
use super::what_if::WhatIfDrag;
use super::{FreeRect, UiSet, root_ui};
use crate::picture::{self, LabelKind, Shape, UnitLook, palette};
use crate::rules::engine::{Badge, Tone};
use crate::scenario::model::{Scenario, Terrain};
use crate::scenario::spawn::{Battlefield, Brigade, Commander, SIDE_COLOURS, SideInfo, Stand, SupplyWagon, Unit};
use crate::table::footprint::Footprint;

/// The unit whose sheet is shown, and the one under the pointer.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct Selection {
    pub unit: Option<Entity>,
    pub hovered: Option<Entity>,
}

/// A table point to treat as hovered when the real pointer is elsewhere (`OTP_HOVER`).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct HoverPreset(pub Option<Vec2>);

/// The table without troops, as shapes ready to paint; rebuilt when the battlefield changes.
#[derive(Resource, Default)]
pub(crate) struct TableCache {
    body: Vec<Prepared>,
    labels: Vec<Shape>,
    width: f32,
    depth: f32,
    /// Rebuilds so far: the backdrop paints a new battlefield afresh.
    generation: u64,
}

impl TableCache {
    fn rebuild(&mut self, scenario: &Scenario) {
        self.generation += 1;
        let picture = picture::table(scenario);
        self.width = picture.width;
        self.depth = picture.depth;
        let (labels, body): (Vec<Shape>, Vec<Shape>) = picture.shapes.into_iter().partition(|s| matches!(s, Shape::Label { .. }));
        self.body = body.into_iter().map(Prepared::new).collect();
        self.labels = labels;
    }
}

/// One unit's stands as drawn this frame, for hovering and the ruler.
#[derive(Clone, Debug)]
pub(crate) struct UnitGeom {
    pub entity: Entity,
    pub name: String,
    pub stands: Vec<Footprint>,
}

#[derive(Resource, Default)]
pub(crate) struct Troops(pub Vec<UnitGeom>);

/// Where each unit's label sat last frame, as an offset from where it belongs (screen points).
#[derive(Resource, Default)]
pub(crate) struct LabelPlaces(pub std::collections::HashMap<Entity, egui::Vec2>);

/// The view the last Fit gave (centre, points an inch) and the window's size then: while the
/// view is still that, a new window size fits the table again.
#[derive(Default)]
struct LastFit {
    view: Option<(Vec2, f32)>,
    window: egui::Vec2,
}

/// How many frames have painted the table, and when the first did.
#[derive(Resource, Default)]
pub(crate) struct TableFrames {
    pub count: u32,
    pub first_at: Option<Instant>,
}

/// The unit with a stand under `p` (stands widened by `tolerance` inches); the last drawn wins.
pub(crate) fn unit_at(troops: &[UnitGeom], p: Vec2, tolerance: f32) -> Option<&UnitGeom> {
    let hit = |f: &Footprint| Footprint { frontage: f.frontage + 2.0 * tolerance, depth: f.depth + 2.0 * tolerance, ..*f }.contains(p);
    troops.iter().rev().find(|u| u.stands.iter().any(hit))
}

/// Table frames at the start during which a fitted view follows the panels as they settle.
const FIT_WHILE_SETTLING: u32 = 10;
/// Zoom at which terrain labels show their full description rather than the name alone.
const FULL_TERRAIN_TEXT_PPI: f32 = 28.0;
/// Below this zoom labels that cannot find a clear spot are left out.
const CROWDED_PPI: f32 = 10.0;
/// Below this zoom only objectives keep their labels.
const TERRAIN_LABELS_MIN_PPI: f32 = 6.0;

/// The left button over the table this frame, for a tool that takes it over (`owned`: the
/// set-up editor), in table inches. The table then neither selects, drags nor pans with it.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct TablePointer {
    pub owned: bool,
    /// Over the table.
    pub at: Option<Vec2>,
    /// A left drag began here this frame.
    pub pressed: Option<Vec2>,
    /// The left button is held, dragging.
    pub dragging: bool,
    /// Where the pointer is while it drags (`at` may be hidden in a screenshot run; this is not).
    pub held: Option<Vec2>,
    /// A drag ended this frame.
    pub released: bool,
    pub clicked: Option<Vec2>,
    pub double_clicked: Option<Vec2>,
    pub secondary_clicked: Option<Vec2>,
    pub shift: bool,
    pub alt: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Selection>()
        .init_resource::<TablePointer>()
        .init_resource::<TableCache>()
        .init_resource::<Troops>()
        .init_resource::<TableFrames>()
        .init_resource::<HoverPreset>()
        .init_resource::<LabelPlaces>()
        .init_resource::<Backdrop>()
        .add_systems(EguiPrimaryContextPass, draw_table.in_set(UiSet::Table).run_if(super::fonts_ready));
}

/// What the table asks of the rest of the window: the hover preset, the run's options, the
/// targeting mode, and the game (its engine's badges and sheet for markers and tooltips).
type Asked<'w> = (Res<'w, HoverPreset>, Option<Res<'w, super::RunOptions>>, Option<Res<'w, super::fire_orders::Targeting>>, Option<Res<'w, super::session::Session>>);

#[allow(clippy::too_many_arguments)]
fn draw_table(
    mut contexts: EguiContexts,
    free: Res<FreeRect>,
    battlefield: Option<Res<Battlefield>>,
    mut cache: ResMut<TableCache>,
    mut view: ResMut<View>,
    mut selection: ResMut<Selection>,
    mut ruler: ResMut<Ruler>,
    mut troops: ResMut<Troops>,
    (mut frames, mut places, mut backdrop, mut fit, mut what_if, mut place, mut owner): (ResMut<TableFrames>, ResMut<LabelPlaces>, ResMut<Backdrop>, Local<LastFit>, ResMut<WhatIfDrag>, MessageWriter<SessionCommand>, ResMut<TablePointer>),
    (hover_preset, options, targeting, session): Asked,
    mut teach: Teach,
    sides: Query<&SideInfo>,
    units: Query<(Entity, &Unit)>,
    stands: Query<&Footprint, With<Stand>>,
    (commanders, wagons): (Query<(Entity, &Commander)>, Query<&SupplyWagon>),
    brigades: Query<&Brigade>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some(battlefield) = battlefield else { return Ok(()) };
    if battlefield.is_changed() || cache.body.is_empty() {
        cache.rebuild(&battlefield.scenario);
    }
    let (width, depth) = (cache.width, cache.depth);
    if selection.unit.is_some_and(|e| units.get(e).is_err()) {
        selection.unit = None;
    }

    let side_colour = |i: usize| sides.iter().find(|s| s.index == i).map(|s| s.colour).unwrap_or(SIDE_COLOURS[i % SIDE_COLOURS.len()]);
    let side_name = |i: usize| sides.iter().find(|s| s.index == i).map(|s| s.name.clone()).unwrap_or_default();

    // This frame's troops, in a steady order (by side, brigade chit, then as spawned).
    // Each unit with the engine's badges for it: a marker that limits it (Tone::Bad, OTP's
    // Morale Marker 10.1) is drawn on its stands.
    let badges = |e: Entity| -> Vec<Badge> { session.as_ref().and_then(|s| s.game_entity(e).map(|g| s.engine().badges(g))).unwrap_or_default() };
    let mut list: Vec<(Entity, &Unit, Vec<Badge>)> = units.iter().map(|(e, u)| (e, u, badges(e))).collect();
    list.sort_by_key(|(e, u, _)| (u.side, brigades.get(u.brigade).map(|b| b.chit).unwrap_or(0), *e));
    troops.0 = list
        .iter()
        .map(|(e, u, _)| UnitGeom { entity: *e, name: u.name.clone(), stands: u.stands.iter().filter_map(|&s| stands.get(s).ok().copied()).collect() })
        .collect();

    let mut root = root_ui(&ctx, "table_root", free.0);
    // No fill: the camera's clear colour is the background already, and on a software renderer
    // every layer the size of the window costs a share of each frame (docs/performance.md).
    egui::CentralPanel::default().frame(egui::Frame::NONE).show(&mut root, |ui| {
        let (response, painter) = ui.allocate_painter(ui.available_size(), egui::Sense::click_and_drag());
        // When a panel opens or the window resizes, the table stays where it was on screen
        // (the panel covers part of it) rather than jumping to re-centre.
        let old = view.rect;
        // Until someone pans or zooms, the table is fitted again whenever the window's size
        // changes (it opens at one size and is then sized to the screen) and while the panels
        // settle in the first frames.
        let window = ctx.content_rect().size();
        let fitted = fit.view.is_some_and(|(c, p)| c == view.centre && p == view.ppi);
        if fitted && (fit.window != window || frames.count < FIT_WHILE_SETTLING) && old != response.rect {
            view.fit_pending = true;
        }
        fit.window = window;
        if old != response.rect && old.is_positive() && !view.fit_pending {
            let shift = response.rect.center() - old.center();
            let ppi = view.ppi;
            view.centre += Vec2::new(shift.x, -shift.y) / ppi;
        }
        view.rect = response.rect;
        if view.fit_pending {
            view.fit(width, depth);
            fit.view = Some((view.centre, view.ppi));
            if let Some((centre, ppi)) = view.preset.take() {
                view.centre = centre;
                view.ppi = ppi.clamp(super::camera::MIN_PPI, super::camera::MAX_PPI);
            }
        }

        // egui may run a frame's pass twice (a discarded first pass); the input is the same both
        // times, so movements are taken from the first pass only.
        let first_pass = ctx.current_pass_index() == 0;
        // With the Movement overlay on, a left drag that starts on the selected unit moves it (a
        // ghost, 6.x); it takes precedence over the ruler and panning.
        let shift = ui.input(|i| i.modifiers.shift);
        let owned = owner.owned;
        if owned && first_pass {
            let at = |p: Option<egui::Pos2>| p.map(|p| view.to_table(p));
            let origin = ui.input(|i| i.pointer.press_origin()).or(response.interact_pointer_pos());
            *owner = TablePointer {
                owned,
                // In screenshot runs the X server's idle pointer is nowhere a player put it.
                at: at(response.hover_pos().filter(|_| options.as_ref().is_none_or(|o| o.screenshot.is_none()))),
                pressed: at(origin.filter(|_| response.drag_started_by(egui::PointerButton::Primary))),
                dragging: response.dragged_by(egui::PointerButton::Primary),
                held: at(response.interact_pointer_pos().filter(|_| response.dragged_by(egui::PointerButton::Primary))),
                released: response.drag_stopped_by(egui::PointerButton::Primary),
                clicked: at(response.interact_pointer_pos().filter(|_| response.clicked_by(egui::PointerButton::Primary))),
                double_clicked: at(response.interact_pointer_pos().filter(|_| response.double_clicked_by(egui::PointerButton::Primary))),
                secondary_clicked: at(response.interact_pointer_pos().filter(|_| response.clicked_by(egui::PointerButton::Secondary))),
                shift,
                alt: ui.input(|i| i.modifiers.alt),
            };
        }
        // What-if (teaching): a left drag on any unit places it, without the rules, every step.
        let placing = !owned && session.as_ref().is_some_and(|s| s.in_what_if());
        if placing
            && response.drag_started_by(egui::PointerButton::Primary)
            && let Some(o) = ui.input(|i| i.pointer.press_origin()).or(response.interact_pointer_pos())
            && let Some(u) = unit_at(&troops.0, view.to_table(o), 3.0 / view.ppi)
        {
            // The guns attached to it go where it goes (OTP 7.5).
            let attached = units.iter().filter(|(_, a)| a.attached_to == Some(u.entity)).filter_map(|(e, a)| troops.0.iter().find(|g| g.entity == e).map(|g| (a.name.clone(), g.stands.clone())));
            what_if.start(std::iter::once((u.name.clone(), u.stands.clone())).chain(attached).collect(), view.to_table(o));
        }
        if what_if.dragging() {
            if first_pass
                && response.dragged_by(egui::PointerButton::Primary)
                && let Some(p) = response.interact_pointer_pos()
            {
                place.write_batch(what_if.to(view.to_table(p), shift));
            }
            if response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()) || !placing {
                what_if.end();
            }
            ctx.set_cursor_icon(egui::CursorIcon::Grabbing);
        }
        if !owned
            && !what_if.dragging()
            && response.drag_started_by(egui::PointerButton::Primary)
            && let Some(o) = ui.input(|i| i.pointer.press_origin()).or(response.interact_pointer_pos())
        {
            let at = view.to_table(o);
            let on_selected = selection.unit.is_some() && unit_at(&troops.0, at, 3.0 / view.ppi).map(|u| u.entity) == selection.unit;
            // A move being built drags on from its ghost.
            if on_selected || teach.on_ghost(at) {
                teach.start_drag(selection.unit, at, shift);
            }
        }
        if teach.dragging() {
            if response.dragged_by(egui::PointerButton::Primary) && let Some(p) = response.interact_pointer_pos() {
                teach.drag_to(view.to_table(p), shift);
            }
            if response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()) {
                teach.end_drag();
            }
            ctx.set_cursor_icon(egui::CursorIcon::Grabbing);
        }
        let move_drag = teach.dragging() || what_if.dragging();
        // Pan: right or middle drag, or left drag when the ruler is off. Zoom: the wheel, to the cursor.
        let primary_pans = !ruler.enabled && !move_drag && !owned;
        if first_pass && response.dragged_by(egui::PointerButton::Secondary) || response.dragged_by(egui::PointerButton::Middle) || (primary_pans && response.dragged_by(egui::PointerButton::Primary)) {
            view.pan_by_screen(response.drag_delta());
            ctx.set_cursor_icon(egui::CursorIcon::Grabbing);
        }
        if first_pass && let Some(pos) = response.hover_pos() {
            let notches: f32 = ui.input(|i| {
                i.events
                    .iter()
                    .map(|e| match e {
                        egui::Event::MouseWheel { unit, delta, .. } => match unit {
                            egui::MouseWheelUnit::Line => delta.y,
                            egui::MouseWheelUnit::Point => delta.y / 40.0,
                            egui::MouseWheelUnit::Page => delta.y * 4.0,
                        },
                        _ => 0.0,
                    })
                    .sum()
            });
            let pinch = ui.input(|i| i.multi_touch().map(|t| t.zoom_delta).unwrap_or(1.0));
            if notches != 0.0 || pinch != 1.0 {
                view.zoom_at(pos, 1.2f32.powf(notches.clamp(-6.0, 6.0)) * pinch);
            }
        }
        view.clamp_to(width, depth);
        let view = *view;
        let tolerance = 3.0 / view.ppi;

        // What is under the pointer.
        // In screenshot runs the X server's idle pointer would hover at random: ignore it.
        let real_pointer = if options.as_ref().is_none_or(|o| o.screenshot.is_none()) { response.hover_pos() } else { None };
        let pointer_pos = hover_preset.0.map(|p| view.to_screen(p)).or(real_pointer);
        let pointer = pointer_pos.map(|p| view.to_table(p));
        let hovered = pointer.and_then(|p| unit_at(&troops.0, p, tolerance)).map(|u| u.entity);
        selection.hovered = hovered;
        let hovered_commander = if hovered.is_none() {
            pointer.and_then(|p| commanders.iter().find(|(_, c)| c.at.distance(p) <= (0.5f32).max(8.0 / view.ppi)))
        } else {
            None
        };
        // Over a wagon and its team (as `picture::wagon` draws them).
        let hovered_wagon = if hovered.is_none() && hovered_commander.is_none() {
            let (lo, hi) = picture::WAGON_EXTENT;
            pointer.and_then(|p| wagons.iter().find(|w| (lo[0]..=hi[0]).contains(&(p.x - w.at.x)) && (lo[1]..=hi[1]).contains(&(p.y - w.at.y))))
        } else {
            None
        };

        // Ruler drags and selection clicks.
        if ruler.enabled && !move_drag && !owned {
            if response.drag_started_by(egui::PointerButton::Primary) {
                let origin = ui.input(|i| i.pointer.press_origin()).or(response.interact_pointer_pos());
                if let Some(o) = origin {
                    ruler.from = Some(view.to_table(o));
                    ruler.to = ruler.from;
                    ruler.dragging = true;
                }
            }
            if ruler.dragging && response.dragged_by(egui::PointerButton::Primary) && let Some(p) = response.interact_pointer_pos() {
                ruler.to = Some(view.to_table(p));
            }
            if response.drag_stopped() {
                ruler.dragging = false;
            }
            if response.hovered() && !response.dragged() {
                ctx.set_cursor_icon(egui::CursorIcon::Crosshair);
            }
        }
        // A click on a built move's ghost orders the move; elsewhere it selects.
        if !owned && response.clicked() && !pointer.is_some_and(|p| teach.click(p)) {
            selection.unit = hovered;
        }
        // Teaching (the Movement overlay) or playing (a unit of the phasing brigade) may drag.
        let movable = teach.overlays.movement || teach.drag.plays(selection.unit);
        let grabbable = movable && hovered.is_some() && hovered == selection.unit;
        if hovered.is_some() && !response.dragged() && (!ruler.enabled || grabbable) {
            ctx.set_cursor_icon(if grabbable { egui::CursorIcon::Grab } else { egui::CursorIcon::PointingHand });
        }
        // The teaching overlays for this frame's selection and pointer.
        if teach.update(selection.unit, hovered) {
            ctx.request_repaint();
        }
        let scenes = teach.scenes();

        // Terrain, grid and objectives: one image, painted again only when the zoom changes.
        let mut out: Vec<egui::Shape> = Vec::new();
        if backdrop.cached() {
            backdrop.draw(&ctx, &view, &cache.body, cache.generation, (width, depth), &mut out);
        } else {
            for p in &cache.body {
                paint::shape(&view, &p.shape, &p.triangles, &mut out);
            }
        }
        // Overlay areas lie on the table, under the troops.
        for sc in &scenes {
            overlay::paint(&view, &sc.under, &mut out);
        }

        // The troops: selected unit last, so its outline is on top. Names keep clear of what
        // sits on the table's edges: the scale bar, the status line and the fire toolbar.
        let mut taken = Taken::default();
        taken.add(scale_plate(&view).0);
        taken.add(Rect::from_min_max(view.rect.right_bottom() - egui::vec2(96.0, 34.0), view.rect.right_bottom()));
        if let Some(bar) = ctx.memory(|m| m.area_rect(egui::Id::new("fire_toolbar"))) {
            taken.add(bar);
        }
        let mut unit_labels: Vec<(Shape, Vec2, bool, Entity)> = Vec::new();
        let mut order: Vec<&(Entity, &Unit, Vec<Badge>)> = list.iter().collect();
        order.sort_by_key(|(e, _, _)| Some(*e) == selection.unit);
        for (e, u, badges) in order {
            let marker = badges.iter().any(|b| b.tone == Tone::Bad);
            let geom = troops.0.iter().find(|g| g.entity == *e);
            let Some(geom) = geom.filter(|g| !g.stands.is_empty()) else { continue };
            let selected = selection.unit == Some(*e);
            let look = UnitLook { name: &u.name, arm: u.arm, figures: u.figures, colour: side_colour(u.side), morale_marker: marker, selected };
            let (mut shapes, mut labels) = (Vec::new(), Vec::new());
            picture::unit(&look, &geom.stands, &mut shapes, &mut labels);
            troop_shapes(&ctx, &view, &shapes, &mut out, &mut taken);
            if hovered == Some(*e) && !selected {
                for f in &geom.stands {
                    let pts: Vec<Pos2> = f.corners().iter().map(|&c| view.to_screen(c)).collect();
                    out.push(egui::Shape::closed_line(pts, egui::Stroke::new(2.5, Color32::from_rgba_unmultiplied(255, 255, 255, 230))));
                }
            }
            for f in &geom.stands {
                taken.add(paint::screen_bounds(&view, &f.corners()));
            }
            let centre = geom.stands.iter().map(|f| f.centre).sum::<Vec2>() / geom.stands.len() as f32;
            unit_labels.extend(labels.into_iter().map(|l| (l, centre, selected, *e)));
        }
        let mut commander_labels: Vec<(Shape, Vec2)> = Vec::new();
        for (_, c) in &commanders {
            let (mut shapes, mut labels) = (Vec::new(), Vec::new());
            picture::commander(&c.name, c.at, side_colour(c.side), &mut shapes, &mut labels);
            troop_shapes(&ctx, &view, &shapes, &mut out, &mut taken);
            let r = (0.5 * view.ppi).max(3.0);
            taken.add(Rect::from_center_size(view.to_screen(c.at), egui::vec2(2.0 * r, 2.0 * r)));
            commander_labels.extend(labels.into_iter().map(|l| (l, c.at)));
        }
        // Supply wagons, where a rule set keeps them (their labels placed as commanders' are).
        for w in &wagons {
            let (mut shapes, mut labels) = (Vec::new(), Vec::new());
            picture::wagon(&w.name, w.at, side_colour(w.side), &mut shapes, &mut labels);
            troop_shapes(&ctx, &view, &shapes, &mut out, &mut taken);
            let (lo, hi) = picture::WAGON_EXTENT;
            taken.add(Rect::from_two_pos(view.to_screen(w.at + Vec2::from(lo)), view.to_screen(w.at + Vec2::from(hi))));
            commander_labels.extend(labels.into_iter().map(|l| (l, w.at)));
        }
        // Overlay lines, ghosts and markers over the troops; their tags before any other label.
        let mut label_shapes: Vec<egui::Shape> = Vec::new();
        for sc in &scenes {
            overlay::paint(&view, &sc.over, &mut out);
        }
        for sc in &scenes {
            overlay::reserve(&view, &sc.over, &mut taken);
        }
        let mut badges: Vec<egui::Shape> = Vec::new();
        for sc in &scenes {
            overlay::paint_badges(&ctx, &view, &sc.over, &mut taken, &mut badges);
        }
        for sc in &scenes {
            overlay::paint_tags(&ctx, &view, &sc.tags, &mut taken, &mut label_shapes);
        }
        // Badges over the tags' leader lines.
        label_shapes.extend(badges);

        // Labels, most important first: the selected unit, then the others in the troops' steady
        // order. Every unit keeps its name at every zoom: placed clear of the stands, badges,
        // tags and other names, staying where it was while that spot stays clear (no hopping
        // while another unit is dragged), and joined to its unit by a leader line when moved off.
        unit_labels.sort_by_key(|(_, _, selected, _)| !*selected);
        let mut leaders: Vec<egui::Shape> = Vec::new();
        let mut galleys = Vec::with_capacity(unit_labels.len());
        let mut asks = Vec::with_capacity(unit_labels.len());
        for (l, centre, selected, entity) in &unit_labels {
            let Shape::Label { at, text, size, colour, .. } = l else { continue };
            let px = paint::label_px(LabelKind::Unit, *size, view.ppi);
            let g = paint::galley(&ctx, text, px, true, paint::colour(*colour));
            let style = if *selected {
                LabelStyle::Tag { border: Some(Color32::from_rgb(40, 34, 20)), fill: paint::colour(palette::SELECTED) }
            } else {
                LabelStyle::Tag { border: None, fill: paint::TAG_FILL }
            };
            let size = paint::label_rect(&g, Pos2::ZERO, style).size();
            asks.push(paint::ScreenLabel { anchor: view.to_screen(*at), size, prefer: View::dir_to_screen(*at - *centre), previous: places.0.get(entity).copied() });
            galleys.push((g, style, *entity));
        }
        let placed = paint::place(&asks, &mut taken, view.rect);
        places.0.clear();
        for (((r, _), ask), (g, style, entity)) in placed.into_iter().zip(&asks).zip(galleys) {
            places.0.insert(entity, r.center() - ask.anchor);
            // A label pushed out of its place keeps a thin leader line to its unit.
            if r.center().distance(ask.anchor) > ask.size.y * 0.75
                && let Some(geom) = troops.0.iter().find(|g| g.entity == entity)
            {
                let target = view.to_table(r.center());
                let foot = geom.stands.iter().map(|f| super::ruler::closest_on_stand(f, target)).min_by(|a, b| a.distance_squared(target).total_cmp(&b.distance_squared(target)));
                if let Some(foot) = foot {
                    let foot = view.to_screen(foot);
                    let end = Pos2::new(foot.x.clamp(r.left() + 4.0, r.right() - 4.0), foot.y.clamp(r.top(), r.bottom()));
                    let ink = Color32::from_rgba_unmultiplied(30, 26, 20, 200);
                    leaders.push(egui::Shape::line_segment([foot, end], egui::Stroke::new(1.2, ink)));
                    leaders.push(egui::Shape::circle_filled(foot, 2.0, ink));
                }
            }
            paint::label(g, r.center(), style, &mut label_shapes);
        }
        let crowded = view.ppi < CROWDED_PPI;
        let steps = if crowded { 3 } else { 10 };
        for (l, at_commander) in &commander_labels {
            let Shape::Label { at, text, size, colour, .. } = l else { continue };
            let px = paint::label_px(LabelKind::Unit, *size, view.ppi) * 0.92;
            let g = paint::galley(&ctx, text, px, false, paint::colour(*colour));
            let style = LabelStyle::Tag { border: None, fill: Color32::from_rgba_unmultiplied(236, 232, 214, 190) };
            let size = paint::label_rect(&g, Pos2::ZERO, style).size();
            let away = View::dir_to_screen(*at - *at_commander);
            let dirs = [away, -away, egui::vec2(1.0, 0.0), egui::vec2(-1.0, 0.0)];
            let (r, clear) = paint::place_near(size, view.to_screen(*at), &dirs, &taken, view.rect, steps);
            if !clear {
                continue;
            }
            taken.add(r);
            paint::label(g, r.center(), style, &mut label_shapes);
        }
        let mut terrain_labels: Vec<&Shape> = cache.labels.iter().collect();
        terrain_labels.sort_by_key(|l| !matches!(l, Shape::Label { colour, .. } if *colour == palette::OBJECTIVE));
        for l in terrain_labels {
            let Shape::Label { at, text, size, colour, kind } = l else { continue };
            let objective = *colour == palette::OBJECTIVE;
            if !objective && view.ppi < TERRAIN_LABELS_MIN_PPI {
                continue;
            }
            let px = paint::label_px(*kind, *size, view.ppi);
            let halo = LabelStyle::Halo(Color32::from_rgba_unmultiplied(246, 242, 226, 170));
            let centre = view.to_screen(*at);
            let full = view.ppi >= FULL_TERRAIN_TEXT_PPI || objective;
            let mut candidates = vec![];
            if full {
                candidates.push(text.as_str());
            }
            if paint::short_label(text) != text || !full {
                candidates.push(paint::short_label(text));
            }
            if objective {
                // Objectives always keep their label: below the star, else above, beside.
                let g = paint::galley(&ctx, text, px, true, paint::colour(*colour));
                let size = paint::label_rect(&g, Pos2::ZERO, halo).size();
                let dirs = [egui::vec2(0.0, 1.0), egui::vec2(0.0, -1.0), egui::vec2(1.0, 0.0), egui::vec2(-1.0, 0.0)];
                let (r, clear) = paint::place_near(size, centre, &dirs, &taken, view.rect, steps);
                if !clear && crowded {
                    continue;
                }
                taken.add(r);
                paint::label(g, r.center(), halo, &mut label_shapes);
                continue;
            }
            for t in candidates {
                let g = paint::galley(&ctx, t, px, false, paint::colour(*colour));
                let r = paint::label_rect(&g, centre, halo);
                if !r.intersects(view.rect) {
                    break;
                }
                if !taken.hits(r) {
                    taken.add(r);
                    paint::label(g, centre, halo, &mut label_shapes);
                    break;
                }
            }
        }
        painter.extend(out);
        painter.extend(label_shapes);
        // Over the names: a leader to a name stacked behind others crosses them, visibly.
        painter.extend(leaders);

        scale_bar(&ctx, &painter, &view);
        status_line(&ctx, &painter, &view, pointer, &battlefield.scenario);
        let mut hints = Vec::new();
        if ruler.enabled {
            hints.push("Ruler: drag to measure · an end on a stand measures edge to edge · Esc clears · R puts it away");
        }
        if teach.overlays.any() && selection.unit.is_none() {
            hints.push("Teaching overlays: click a unit to see its arcs, flanks, sight or moves");
        }
        if (teach.overlays.movement || teach.drag.plays(selection.unit)) && selection.unit.is_some() {
            hints.push("Move: drag the unit · an end stand wheels · Shift side-steps · Esc clears");
        }
        for (row, text) in hints.into_iter().enumerate() {
            hint(&ctx, &painter, &view, text, row);
        }
        let readout = teach.readout();

        // The tooltip for the unit or commander under the pointer.
        if !response.dragged() && let Some(pos) = pointer_pos {
            if let Some((title, rows)) = &readout {
                // Sight overlay: the readout for the enemy under the pointer (8.1–8.11), on the
                // side away from the firer so that it does not hide the lines.
                let firer = selection.unit.and_then(|e| troops.0.iter().find(|g| g.entity == e)).map(|g| g.stands.iter().map(|f| f.centre).sum::<Vec2>() / g.stands.len().max(1) as f32);
                let away = firer.map(|f| pos - view.to_screen(f)).unwrap_or(egui::vec2(1.0, 1.0));
                let pivot = egui::Align2([if away.x >= 0.0 { egui::Align::Min } else { egui::Align::Max }, if away.y >= 0.0 { egui::Align::Min } else { egui::Align::Max }]);
                let offset = egui::vec2(if away.x >= 0.0 { 18.0 } else { -18.0 }, if away.y >= 0.0 { 18.0 } else { -18.0 });
                egui::Area::new(egui::Id::new("sight_readout"))
                    .order(egui::Order::Tooltip)
                    .interactable(false)
                    .pivot(pivot)
                    .fixed_pos(pos + offset)
                    .constrain(true)
                    .show(&ctx, |ui| {
                        egui::Frame::popup(ui.style()).show(ui, |ui| {
                            ui.set_max_width(430.0);
                            readout_ui(ui, title, rows);
                        });
                    });
            } else if let Some((e, u, badges)) = hovered.and_then(|e| list.iter().find(|(x, _, _)| *x == e)).filter(|(_, u, _)| {
                // Fire and charge targeting show their own preview over an enemy (fire_orders).
                let targeting = targeting.as_ref().is_some_and(|t| t.mode != super::fire_orders::Mode::Off);
                let firer_side = selection.unit.and_then(|s| list.iter().find(|(x, _, _)| *x == s)).map(|(_, f, _)| f.side);
                !(targeting && firer_side.is_some_and(|side| side != u.side))
            }) {
                // Below the unit's stands, not over them.
                let bounds = troops.0.iter().find(|g| g.entity == *e).map(|g| paint::screen_bounds(&view, &g.stands.iter().flat_map(|f| f.corners()).collect::<Vec<_>>()));
                tooltip(&ctx, bounds.map_or(pos, |b| super::unit_sheet::below(pos, b)), |ui| {
                    ui.horizontal(|ui| {
                        swatch(ui, side_colour(u.side));
                        ui.label(egui::RichText::new(&u.name).strong().size(15.0));
                    });
                    let brigade = brigades.get(u.brigade).map(|b| session.as_ref().map_or_else(|| b.name.clone(), |s| s.brigade_title(u.brigade, &b.name))).unwrap_or_default();
                    ui.label(format!("{} · {brigade}", side_name(u.side)));
                    // The rule set's own words for its type and rating.
                    if let Some(line) = session.as_ref().and_then(|s| s.game_entity(*e).and_then(|g| s.engine().unit_line(g))) {
                        ui.label(line);
                    }
                    let stands = if u.stands.len() == 1 { "1 stand".to_string() } else { format!("{} stands", u.stands.len()) };
                    ui.label(format!("{} of {} figures · {stands} · {}", u.figures, u.initial_figures, super::unit_sheet::formation_name(u.formation)));
                    for b in badges {
                        let colour = if b.tone == Tone::Bad { paint::colour(palette::MORALE_MARKER) } else { Color32::from_gray(200) };
                        let tip = b.cite.as_ref().map_or(b.meaning.clone(), |c| format!("{} ({c})", b.meaning));
                        ui.label(egui::RichText::new(format!("● {}", b.meaning)).color(colour)).on_hover_text(tip);
                    }
                    if selection.unit != Some(*e) {
                        ui.label(egui::RichText::new("Click for the unit sheet").weak().italics());
                    }
                });
            } else if let Some(w) = hovered_wagon {
                tooltip(&ctx, pos, |ui| {
                    ui.horizontal(|ui| {
                        swatch(ui, side_colour(w.side));
                        ui.label(egui::RichText::new(&w.name).strong().size(15.0));
                    });
                    ui.label(format!("Supply wagons · {}", side_name(w.side)));
                });
            } else if let Some((ce, c)) = hovered_commander {
                tooltip(&ctx, pos, |ui| {
                    ui.horizontal(|ui| {
                        swatch(ui, side_colour(c.side));
                        ui.label(egui::RichText::new(&c.name).strong().size(15.0));
                    });
                    let role = match c.brigade.and_then(|b| brigades.get(b).ok().map(|x| (b, x))) {
                        Some((e, b)) => format!("Commands {}", session.as_ref().map_or_else(|| b.name.clone(), |s| s.brigade_title(e, &b.name))),
                        None => format!("Commands the {} army", side_name(c.side)),
                    };
                    ui.label(role);
                    // What the rule set keeps for him (OTP: his rating and morale passes).
                    let rows = session.as_ref().and_then(|s| s.game_entity(ce).map(|g| s.engine().sheet(g))).unwrap_or_default();
                    for r in rows {
                        ui.label(format!("{}: {}", r.label, r.value));
                    }
                });
            }
        }
    });

    frames.count += 1;
    if frames.first_at.is_none() {
        frames.first_at = Some(Instant::now());
    }
    Ok(())
}

/// Troop shapes, with the morale badge's "M" sized to its badge rather than to the zoom.
fn troop_shapes(ctx: &egui::Context, view: &View, shapes: &[Shape], out: &mut Vec<egui::Shape>, taken: &mut Taken) {
    let mut badge: Option<(Vec2, f32)> = None;
    for s in shapes {
        match s {
            Shape::Label { at, text, colour, .. } => {
                let r = badge.filter(|(c, _)| c.distance(*at) < 0.01).map(|(_, r)| r).unwrap_or(paint::MORALE_BADGE_MIN_RADIUS);
                let g = paint::galley(ctx, text, (r * 1.25).clamp(9.0, 22.0), true, paint::colour(*colour));
                paint::label(g, view.to_screen(*at), LabelStyle::Plain, out);
            }
            Shape::Circle { centre, radius, fill, .. } => {
                if *fill == Some(palette::MORALE_MARKER) {
                    let r = (radius * view.ppi).max(paint::MORALE_BADGE_MIN_RADIUS);
                    badge = Some((*centre, r));
                    taken.add(Rect::from_center_size(view.to_screen(*centre), egui::vec2(2.0 * r, 2.0 * r)));
                }
                paint::shape(view, s, &[], out);
            }
            _ => paint::shape(view, s, &[], out),
        }
    }
}

fn swatch(ui: &mut egui::Ui, c: [u8; 3]) {
    let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect(r, 2.0, paint::rgb(c), egui::Stroke::new(1.0, Color32::from_gray(20)), egui::StrokeKind::Inside);
}

fn tooltip(ctx: &egui::Context, pos: Pos2, add: impl FnOnce(&mut egui::Ui)) {
    egui::Area::new(egui::Id::new("table_tooltip"))
        .order(egui::Order::Tooltip)
        .interactable(false)
        .fixed_pos(pos + egui::vec2(18.0, 18.0))
        .constrain(true)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(340.0);
                add(ui);
            });
        });
}

/// A 0–6–12" style bar in the bottom-left corner, sized to the zoom.
/// The scale bar's plate at the table's lower left, and the inches the bar shows: the longest
/// of a few lengths that fits in about 240 points.
fn scale_plate(view: &View) -> (Rect, f32) {
    let total = [1.0f32, 2.0, 3.0, 6.0, 12.0, 24.0, 48.0].into_iter().rev().find(|t| t * view.ppi <= 240.0).unwrap_or(1.0);
    let origin = view.rect.left_bottom() + egui::vec2(18.0, -22.0);
    (Rect::from_min_max(origin + egui::vec2(-10.0, -30.0), origin + egui::vec2(total * view.ppi + 22.0, 12.0)), total)
}

fn scale_bar(ctx: &egui::Context, painter: &egui::Painter, view: &View) {
    let (plate, total) = scale_plate(view);
    let len = total * view.ppi;
    let origin = view.rect.left_bottom() + egui::vec2(18.0, -22.0);
    let dark = Color32::from_rgb(25, 22, 18);
    let light = Color32::from_rgb(240, 236, 220);
    let mut out = vec![egui::Shape::Rect(egui::epaint::RectShape::new(plate, 4.0, Color32::from_black_alpha(150), egui::Stroke::NONE, egui::StrokeKind::Inside))];
    let h = 6.0;
    let segments = if total >= 2.0 { 2 } else { 1 };
    for i in 0..segments {
        let x0 = origin.x + len * i as f32 / segments as f32;
        let x1 = origin.x + len * (i + 1) as f32 / segments as f32;
        let r = Rect::from_min_max(egui::pos2(x0, origin.y - h), egui::pos2(x1, origin.y));
        let fill = if i % 2 == 0 { light } else { dark };
        out.push(egui::Shape::Rect(egui::epaint::RectShape::new(r, 0.0, fill, egui::Stroke::new(1.0, light), egui::StrokeKind::Inside)));
    }
    for i in 0..=segments {
        let v = total * i as f32 / segments as f32;
        let x = origin.x + len * i as f32 / segments as f32;
        let text = if i == segments { format!("{v}\"") } else { format!("{v}") };
        let g = paint::galley(ctx, &text, 11.0, i == segments, light);
        out.push(egui::Shape::galley(egui::pos2(x - g.size().x / 2.0, origin.y - h - 3.0 - g.size().y), g, light));
    }
    painter.extend(out);
}

/// Pointer position and the terrain under it, bottom right.
fn status_line(ctx: &egui::Context, painter: &egui::Painter, view: &View, pointer: Option<Vec2>, scenario: &Scenario) {
    let mut text = format!("{:.0} px/in", view.ppi);
    if let Some(p) = pointer {
        text = format!("{:.1}\", {:.1}\"   ·   {text}", p.x, p.y);
        let here = terrain_at(scenario, p, 3.0 / view.ppi);
        if !here.is_empty() {
            text = format!("{}   ·   {text}", here.join("; "));
        }
    }
    let light = Color32::from_rgb(236, 232, 214);
    let g = paint::galley(ctx, &text, 12.0, false, light);
    let pos = view.rect.right_bottom() + egui::vec2(-12.0 - g.size().x, -12.0 - g.size().y);
    let plate = Rect::from_min_size(pos, g.size()).expand2(egui::vec2(8.0, 4.0));
    painter.add(egui::Shape::Rect(egui::epaint::RectShape::new(plate, 4.0, Color32::from_black_alpha(150), egui::Stroke::NONE, egui::StrokeKind::Inside)));
    painter.galley(pos, g, light);
}

fn hint(ctx: &egui::Context, painter: &egui::Painter, view: &View, text: &str, row: usize) {
    let light = Color32::from_rgb(250, 238, 170);
    let g = paint::galley(ctx, text, 13.0, false, light);
    let pos = egui::pos2(view.rect.center().x - g.size().x / 2.0, view.rect.top() + 10.0 + row as f32 * (g.size().y + 16.0));
    let plate = Rect::from_min_size(pos, g.size()).expand2(egui::vec2(10.0, 5.0));
    painter.add(egui::Shape::Rect(egui::epaint::RectShape::new(plate, 5.0, Color32::from_black_alpha(170), egui::Stroke::new(1.0, light), egui::StrokeKind::Inside)));
    painter.galley(pos, g, light);
}

fn dist_to_path(path: &[[f32; 2]], p: Vec2) -> f32 {
    path.windows(2)
        .map(|w| {
            let (a, b) = (Vec2::from(w[0]), Vec2::from(w[1]));
            let ab = b - a;
            let t = ((p - a).dot(ab) / ab.length_squared().max(1e-9)).clamp(0.0, 1.0);
            p.distance(a + ab * t)
        })
        .fold(f32::INFINITY, f32::min)
}

fn lower(x: impl std::fmt::Debug) -> String {
    format!("{x:?}").to_lowercase()
}

/// What a wargamer needs to know about a terrain feature: kind, disordering type, cover, capacity.
pub(crate) fn describe(t: &Terrain) -> String {
    let kind = match t {
        Terrain::Woods { density, .. } => format!("{} woods", lower(density)),
        Terrain::Hill { elevation, .. } => format!("hill, elevation {elevation}"),
        Terrain::Stream { kind, .. } => format!("{} stream", lower(kind)).replace("river stream", "river"),
        Terrain::Obstacle { kind, .. } => match kind {
            crate::scenario::model::ObstacleKind::StoneWall => "stone wall".into(),
            k => lower(k),
        },
        Terrain::Road { .. } => "road".into(),
        Terrain::Town { capacity, .. } => format!("town, {capacity} stands"),
        Terrain::Building { construction, capacity, .. } => format!("{} building, {capacity} stands", lower(construction)),
        Terrain::Field { kind, .. } => match kind {
            crate::scenario::model::FieldKind::TallCrops => "tall crops".into(),
            k => lower(k),
        },
    };
    let mut parts = vec![kind];
    if let Some(d) = t.disorder() {
        parts.push(format!("type {d:?}"));
    }
    if let Some(c) = t.cover() {
        parts.push(format!("{} cover", lower(c)));
    }
    format!("{}: {}", t.name(), parts.join(", "))
}

/// Terrain under a table point, topmost last; for hills only the highest contour.
pub(crate) fn terrain_at(scenario: &Scenario, p: Vec2, tolerance: f32) -> Vec<String> {
    let poly = |o: &[[f32; 2]]| o.iter().map(|&q| Vec2::from(q)).collect::<Vec<_>>();
    let mut hill: Option<(u32, &Terrain)> = None;
    let mut out = Vec::new();
    for t in &scenario.terrain {
        let here = match t {
            Terrain::Hill { outline, elevation, .. } => {
                if picture::inside(&poly(outline), p) && hill.is_none_or(|(e, _)| *elevation > e) {
                    hill = Some((*elevation, t));
                }
                false
            }
            Terrain::Woods { outline, .. } | Terrain::Town { outline, .. } | Terrain::Field { outline, .. } => picture::inside(&poly(outline), p),
            Terrain::Stream { path, width, .. } => dist_to_path(path, p) <= width / 2.0 + tolerance,
            Terrain::Road { path, width, .. } => dist_to_path(path, p) <= width / 2.0 + tolerance,
            Terrain::Obstacle { path, .. } => dist_to_path(path, p) <= 0.2 + tolerance,
            Terrain::Building { at, size, facing, .. } => Footprint { centre: Vec2::from(*at), facing: *facing, frontage: size[0] + 2.0 * tolerance, depth: size[1] + 2.0 * tolerance }.contains(p),
        };
        if here {
            out.push(describe(t));
        }
    }
    if let Some((_, h)) = hill {
        out.insert(0, describe(h));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terrain_under_a_point_reads_like_the_rules() {
        let s = crate::scenario::default_scenario();
        let here = terrain_at(&s, Vec2::new(5.0, 31.0), 0.0);
        assert_eq!(here, vec!["Oak Wood: regular woods, type C, light cover".to_string()]);
        let here = terrain_at(&s, Vec2::new(18.0, 17.0), 0.0);
        assert!(here[0].starts_with("Long Ridge crest: hill, elevation 2"), "{here:?}");
        assert!(terrain_at(&s, Vec2::new(36.0, 5.0), 0.0).iter().any(|t| t.starts_with("Camden Road: road")));
    }
}
