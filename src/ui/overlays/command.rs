//! Command radii: each leader's circle as the engine gives it (`Engine::command_radii`), in his
//! side's colour, tagged with his name and radius; the pointer on a circle says what it means,
//! with its rule. With a unit selected, the circles of the leaders who command it are drawn
//! bold and the others left out; with none, those of the side deciding now. The window names no
//! rule set: a rule set without radii draws none.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::rules::engine::CommandRadius;
use crate::scenario::spawn::side_colour;
use crate::ui::UiSet;
use crate::ui::camera::View;
use crate::ui::session::Session;
use crate::ui::table_view::Selection;

use super::planned::{TagAsk, place_tags};

/// The engine's radii and the side deciding, asked again only when the game changes.
#[derive(Resource, Default)]
pub(crate) struct Radii {
    pub radii: Vec<CommandRadius>,
    pub deciding: Option<usize>,
    revision: Option<u64>,
}

impl super::EngineView for Radii {
    fn revision(&mut self) -> &mut Option<u64> {
        &mut self.revision
    }
    fn ask(&mut self, engine: &dyn crate::rules::engine::Engine) {
        let seq = engine.sequence();
        self.radii = if seq.over { Vec::new() } else { engine.command_radii() };
        self.deciding = seq.deciding;
    }
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Radii>().add_systems(PostUpdate, super::refresh_view::<Radii>).add_systems(EguiPrimaryContextPass, draw.in_set(UiSet::Tools).run_if(crate::ui::fonts_ready));
}


/// The radii to draw, and whether bold: the selected unit's commanders', else the deciding side's.
pub(crate) fn shown(radii: &[CommandRadius], selected: Option<Entity>, deciding: Option<usize>) -> Vec<(&CommandRadius, bool)> {
    match selected {
        Some(unit) if radii.iter().any(|r| r.units.contains(&unit)) => radii.iter().filter(|r| r.units.contains(&unit)).map(|r| (r, true)).collect(),
        _ => radii.iter().filter(|r| Some(r.side) == deciding).map(|r| (r, false)).collect(),
    }
}

const SHADOW: egui::Color32 = egui::Color32::from_rgba_premultiplied(20, 16, 10, 150);

fn draw(mut contexts: EguiContexts, radii: Res<Radii>, selection: Res<Selection>, session: Option<Res<Session>>, view: Res<View>) -> Result {
    let Some(session) = session else { return Ok(()) };
    // The radii name the game's entities; the selection is the window's.
    let selected = selection.unit.and_then(|e| session.game_entity(e));
    let shown = shown(&radii.radii, selected, radii.deciding);
    if shown.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let sides = &session.engine().scenario().sides;
    let pointer = ctx.pointer_hover_pos().filter(|p| view.rect.contains(*p));
    let font = egui::FontId::proportional(12.0);
    let mut hovered: Option<&str> = None;
    let mut tags = Vec::new();
    for (r, bold) in shown {
        let rgb = sides.get(r.side).map_or([220, 220, 220], |s| side_colour(s, r.side));
        let [red, green, blue] = rgb.map(|c| (c as f32 + (255.0 - c as f32) * 0.45) as u8);
        let colour = egui::Color32::from_rgb(red, green, blue);
        let points: Vec<egui::Pos2> = (0..=96).map(|i| view.to_screen(r.centre + Vec2::from_angle(i as f32 / 96.0 * std::f32::consts::TAU) * r.radius)).collect();
        let width = if bold { 2.5 } else { 1.5 };
        painter.extend(egui::Shape::dashed_line(&points, egui::Stroke::new(width + 2.0, SHADOW), 8.0, 6.0));
        painter.extend(egui::Shape::dashed_line(&points, egui::Stroke::new(width, colour), 8.0, 6.0));
        let (centre, edge) = (view.to_screen(r.centre), points[0]);
        if pointer.is_some_and(|p| (p.distance(centre) - centre.distance(edge)).abs() < 6.0) {
            hovered = Some(&r.detail);
        }
        // The tag sits above the circle's highest point on screen; circles that nearly coincide
        // (a brigadier joined to a unit beside his general) stack their tags upward.
        let top = points.iter().copied().min_by(|a, b| a.y.total_cmp(&b.y)).unwrap_or_default();
        tags.push((top, painter.layout_no_wrap(r.label.clone(), font.clone(), colour), colour, &r.detail));
    }
    let asks: Vec<TagAsk> = tags.iter().map(|(top, galley, _, _)| TagAsk { anchor: *top, size: galley.size() + egui::vec2(4.0, 4.0), away: egui::vec2(0.0, -1.0) }).collect();
    for (rect, (_, galley, colour, detail)) in place_tags(&asks).into_iter().zip(tags) {
        painter.rect_filled(rect, 3.0, SHADOW);
        painter.galley(rect.min + egui::vec2(2.0, 2.0), galley, colour);
        if pointer.is_some_and(|p| rect.contains(p)) {
            hovered = Some(detail);
        }
    }
    if let (Some(text), Some(p)) = (hovered, pointer) {
        super::table_tooltip(&painter, p, text, font);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn radius(leader: u32, side: usize, units: &[u32]) -> CommandRadius {
        CommandRadius { leader: Entity::from_raw_u32(leader).unwrap(), side, centre: Vec2::ZERO, radius: 6.0, label: String::new(), detail: String::new(), units: units.iter().map(|&u| Entity::from_raw_u32(u).unwrap()).collect() }
    }

    // QK2: a selected unit shows its commanders' radii, bold; with none selected (or a unit no
    // leader commands), the deciding side's, plain.
    #[test]
    fn the_selected_units_commanders_else_the_deciding_sides() {
        let radii = [radius(1, 0, &[10, 11]), radius(2, 0, &[10, 11, 12]), radius(3, 1, &[20])];
        let leaders = |v: Vec<(&CommandRadius, bool)>| v.into_iter().map(|(r, bold)| (r.leader.index_u32(), bold)).collect::<Vec<_>>();
        assert_eq!(leaders(shown(&radii, Some(Entity::from_raw_u32(12).unwrap()), Some(1))), vec![(2, true)]);
        assert_eq!(leaders(shown(&radii, Some(Entity::from_raw_u32(10).unwrap()), Some(1))), vec![(1, true), (2, true)]);
        assert_eq!(leaders(shown(&radii, None, Some(1))), vec![(3, false)]);
        assert_eq!(leaders(shown(&radii, Some(Entity::from_raw_u32(99).unwrap()), Some(0))), vec![(1, false), (2, false)]);
        assert!(shown(&radii, None, None).is_empty());
    }

    // Two circles that nearly coincide (Hale joined to the 2nd Ohio beside Warren) keep their
    // tags apart, both above the circles' tops.
    #[test]
    fn the_tags_of_nearly_coinciding_circles_stack() {
        let size = egui::vec2(60.0, 18.0);
        let asks = [TagAsk { anchor: egui::pos2(400.0, 300.0), size, away: egui::vec2(0.0, -1.0) }, TagAsk { anchor: egui::pos2(404.0, 303.0), size, away: egui::vec2(0.0, -1.0) }];
        let rects = place_tags(&asks);
        assert!(!rects[0].intersects(rects[1]), "{rects:?}");
        assert!(rects.iter().all(|r| r.bottom() <= 303.0), "{rects:?}");
    }

    // The window asks the engine once a change; a rule set without radii (OTP) draws none.
    #[test]
    fn radii_follow_the_game_and_a_rule_set_without_them_draws_none() {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .init_resource::<View>()
            .insert_resource(crate::ui::session::Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .add_plugins(crate::ui::session::plugin)
            .init_resource::<Radii>()
            .add_systems(PostUpdate, crate::ui::overlays::refresh_view::<Radii>);
        app.update();
        app.world_mut().resource_mut::<Session>().autosave = None;
        app.update();
        let revision = app.world().resource::<Session>().revision;
        assert_eq!(app.world().resource::<Radii>().revision, Some(revision));
        assert!(app.world().resource::<Radii>().radii.is_empty(), "On to Philadelphia draws no radius");
    }
}
