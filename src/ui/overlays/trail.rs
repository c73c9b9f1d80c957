//! The trail: each unit's last move drawn on the table — where its stands were (dashed
//! outlines) and an arrow to where they are — so a player watching the automatic player, or
//! coming back to the table, sees what moved. Moves of earlier turns are drawn fainter. T or the
//! View menu turn it off (a remembered setting).
//!
//! A move is whatever an applied action did to a unit's stands (a move, a charge, a retreat); an
//! undo or a load takes back the trails it no longer matches.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::scenario::spawn::{Unit, side_colour};
use crate::table::footprint::Footprint;
use crate::ui::UiSet;
use crate::ui::camera::View;
use crate::ui::session::{Applied, Session};
use crate::ui::settings::Settings;

/// One unit's last move.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Move {
    pub from: Vec<Footprint>,
    pub to: Vec<Footprint>,
    pub side: usize,
    /// The game turn it was made in.
    pub turn: u32,
}

/// Each unit's last move, by unit name, and every unit's stands as last seen.
#[derive(Resource, Default)]
pub(crate) struct Trail {
    pub moves: HashMap<String, Move>,
    seen: HashMap<String, Vec<Footprint>>,
    revision: Option<u64>,
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Trail>().add_systems(PostUpdate, record).add_systems(EguiPrimaryContextPass, draw.in_set(UiSet::Tools).run_if(crate::ui::fonts_ready));
}

/// Every unit's side and stands in the game's world, by name.
fn stands(world: &World) -> HashMap<String, (usize, Vec<Footprint>)> {
    let Some(mut units) = world.try_query::<&Unit>() else { return HashMap::new() };
    units.iter(world).map(|u| (u.name.clone(), (u.side, u.stands.iter().filter_map(|&s| world.get::<Footprint>(s).copied()).collect()))).collect()
}

/// After each change to the game: the units an applied action moved get a trail; any other
/// change (undo, load, a new game) keeps only the trails that still end where their units are.
fn record(session: Option<Res<Session>>, mut applied: MessageReader<Applied>, mut trail: ResMut<Trail>) {
    let acted = applied.read().count() > 0;
    let Some(session) = session else { return };
    if trail.revision == Some(session.revision) {
        return;
    }
    let engine = session.engine();
    let now_sides = stands(engine.world());
    let now: HashMap<String, Vec<Footprint>> = now_sides.iter().map(|(n, (_, f))| (n.clone(), f.clone())).collect();
    if acted && trail.revision.is_some() {
        let turn = engine.sequence().turn;
        let moved: Vec<(String, Move)> = now_sides
            .iter()
            .filter_map(|(name, (side, to))| {
                let from = trail.seen.get(name)?;
                let shifted = from.len() != to.len() || from.iter().zip(to).any(|(a, b)| a.centre.distance(b.centre) > 0.01 || (a.facing - b.facing).abs() > 0.1);
                shifted.then(|| (name.clone(), Move { from: from.clone(), to: to.clone(), side: *side, turn }))
            })
            .collect();
        trail.moves.extend(moved);
        // A unit no longer in the game (broken, off the table) leaves no trail behind.
        trail.moves.retain(|name, _| now.contains_key(name));
    } else {
        trail.moves.retain(|name, m| now.get(name) == Some(&m.to));
    }
    trail.seen = now;
    trail.revision = Some(session.revision);
}

fn draw(mut contexts: EguiContexts, trail: Res<Trail>, settings: Res<Settings>, session: Option<Res<Session>>, view: Res<View>) -> Result {
    let Some(session) = session else { return Ok(()) };
    if !settings.trail || trail.moves.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let engine = session.engine();
    let sides = &engine.scenario().sides;
    let turn = engine.sequence().turn;
    let mut shapes = Vec::new();
    for m in trail.moves.values() {
        let rgb = sides.get(m.side).map_or([220, 220, 220], |s| side_colour(s, m.side));
        // Lifted toward white to show on the cloth; fainter for an earlier turn's move.
        let [r, g, b] = rgb.map(|c| (c as f32 + (255.0 - c as f32) * 0.35) as u8);
        let now = m.turn == turn;
        let colour = egui::Color32::from_rgba_unmultiplied(r, g, b, if now { 255 } else { 120 });
        // A dark edge under each dash, so the trail reads on any terrain.
        let shadow = egui::Color32::from_rgba_unmultiplied(20, 16, 10, if now { 150 } else { 60 });
        let mut dashed = |points: &[egui::Pos2], width: f32, dash: f32, gap: f32| {
            shapes.extend(egui::Shape::dashed_line(points, egui::Stroke::new(width + 2.0, shadow), dash, gap));
            shapes.extend(egui::Shape::dashed_line(points, egui::Stroke::new(width, colour), dash, gap));
        };
        for f in &m.from {
            let mut corners: Vec<egui::Pos2> = f.corners().into_iter().map(|p| view.to_screen(p)).collect();
            corners.push(corners[0]);
            dashed(&corners, 2.0, 5.0, 3.0);
        }
        let centre = |fs: &[Footprint]| fs.iter().map(|f| f.centre).sum::<Vec2>() / fs.len().max(1) as f32;
        let (from, to) = (view.to_screen(centre(&m.from)), view.to_screen(centre(&m.to)));
        let along = to - from;
        if along.length() > 6.0 {
            // Stop short of the unit so the arrowhead sits at its edge, not on its label.
            let tip = from + along * (1.0 - (6.0 / along.length()).min(0.5));
            dashed(&[from, tip], 2.6, 8.0, 4.0);
            let dir = along.normalized();
            let side = egui::vec2(-dir.y, dir.x);
            let head = 11.0;
            shapes.push(egui::Shape::convex_polygon(vec![tip, tip - dir * head + side * head * 0.5, tip - dir * head - side * head * 0.5], colour, egui::Stroke::new(1.0, shadow)));
        }
    }
    painter.extend(shapes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::action::Action;
    use crate::table::movement::MoveStep;
    use crate::ui::session::SessionCommand;

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<crate::ui::table_view::Selection>()
            .init_resource::<View>()
            .insert_resource(crate::ui::session::Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .add_plugins(crate::ui::session::plugin)
            .init_resource::<Trail>()
            .add_systems(PostUpdate, record);
        app.update();
        app.world_mut().resource_mut::<Session>().autosave = None;
        app.update();
        app
    }

    /// Send an order in the common words, as the window does; true if carried out.
    fn order(app: &mut App, a: Action) -> bool {
        let o = crate::ui::session::Order(a);
        app.world_mut().write_message(o);
        app.update();
        app.world().resource::<Session>().last_refusal.is_none()
    }

    // OTP 6.1: a unit's move leaves a trail from where it stood; undo takes the trail back.
    #[test]
    fn a_move_leaves_a_trail_and_undo_takes_it_back() {
        let mut app = app();
        // Start (4.2), then draw a chit (4.3).
        assert!(order(&mut app, Action::Next) && order(&mut app, Action::Next));
        assert!(app.world().resource::<Trail>().moves.is_empty(), "nothing has moved");
        // Units of the phasing brigade with no guns attached (7.5: they would move too).
        let names: Vec<String> = {
            let e = app.world().resource::<Session>().engine();
            let acting: Vec<(Entity, &Unit)> = e.sequence().acting.iter().filter_map(|&u| e.world().get::<Unit>(u).map(|x| (u, x))).collect();
            let hosts: Vec<Entity> = e.world().try_query::<&Unit>().unwrap().iter(e.world()).filter_map(|u| u.attached_to).collect();
            acting.iter().filter(|(x, u)| u.attached_to.is_none() && !hosts.contains(x)).map(|(_, u)| u.name.clone()).collect()
        };
        let moved = names.into_iter().find(|n| order(&mut app, Action::Move { unit: n.clone(), steps: vec![MoveStep::Forward(1.0)] })).expect("some unit of the phasing brigade may step forward 1\"");
        let trail = app.world().resource::<Trail>();
        assert_eq!(trail.moves.len(), 1, "only the unit that moved: {:?}", trail.moves.keys().collect::<Vec<_>>());
        let m = &trail.moves[&moved];
        let walked = m.from[0].centre.distance(m.to[0].centre);
        assert!((walked - 1.0).abs() < 0.05, "from where it stood to where it is: {walked}");
        app.world_mut().write_message(SessionCommand::Undo);
        app.update();
        assert!(app.world().resource::<Trail>().moves.is_empty(), "the undone move leaves no trail");
    }
}
