//! The roster: every unit of both sides, by side and brigade (chit order), with its strength,
//! formation, markers and what it has done this turn (`Engine::unit_status`); a click selects it
//! and brings it into view. Drawn in the left panel's Roster tab (F5); N and Shift+N step
//! through the acting units (`SequenceView::acting`) in the same order.
//! A click sends the camera's `CentreOn`.

use bevy::prelude::*;
use bevy_egui::egui;
use egui::{Color32, RichText};

use super::paint;
use super::session::Session;
use crate::rules::engine::{Engine, UnitStatus};
use crate::scenario::spawn::{Brigade, Unit, side_colour};
use crate::table::words::formation;

const MARKER: Color32 = Color32::from_rgb(250, 210, 40);
const OFF: Color32 = Color32::from_gray(160);

/// The game's units in roster order: side, brigade chit, then the order they were set up in.
pub(crate) fn roster_order(engine: &dyn Engine) -> Vec<Entity> {
    let world = engine.world();
    let Some(mut q) = world.try_query::<(Entity, &Unit)>() else { return Vec::new() };
    let chit = |u: &Unit| world.get::<Brigade>(u.brigade).map_or(u32::MAX, |b| b.chit);
    let mut units: Vec<(usize, u32, u32, Entity)> = q.iter(world).map(|(e, u)| (u.side, chit(u), e.index_u32(), e)).collect();
    units.sort();
    units.into_iter().map(|(.., e)| e).collect()
}

/// The unit `step` places after (or before) the selected one, among the acting units (every
/// unit when none is acting), as an app entity; never one that has left the table.
pub(crate) fn next_unit(session: &Session, selected: Option<Entity>, step: i32) -> Option<Entity> {
    let engine = session.engine();
    let acting = engine.sequence().acting;
    let units: Vec<Entity> = roster_order(engine).into_iter().filter(|e| acting.is_empty() || acting.contains(e)).filter(|&e| !engine.unit_status(e).gone).collect();
    if units.is_empty() {
        return None;
    }
    let here = selected.and_then(|a| session.game_entity(a)).and_then(|g| units.iter().position(|&e| e == g));
    let n = units.len() as i32;
    let i = match here {
        Some(i) => (i as i32 + step).rem_euclid(n),
        None if step >= 0 => 0,
        None => n - 1,
    };
    session.app_entity(units[i as usize])
}

/// A unit's status in a line, and a colour when it needs attention (marked) or is gone.
pub(crate) fn status_line(status: &UnitStatus) -> (String, Option<Color32>) {
    let colour = if status.gone {
        Some(OFF)
    } else {
        status.marked.then_some(MARKER)
    };
    (status.parts.join(" · "), colour)
}

/// The roster, for the left panel. Returns the unit clicked (an app entity).
pub(crate) fn roster_ui(ui: &mut egui::Ui, session: &Session, selected: Option<Entity>) -> Option<Entity> {
    let engine = session.engine();
    let world = engine.world();
    let acting = engine.sequence().acting;
    let selected = selected.and_then(|a| session.game_entity(a));
    let mut clicked = None;
    let mut last: Option<(usize, u32)> = None;
    for e in roster_order(engine) {
        let Some(u) = world.get::<Unit>(e) else { continue };
        let brigade = world.get::<Brigade>(u.brigade);
        let chit = brigade.map_or(0, |b| b.chit);
        if last.is_none_or(|(s, _)| s != u.side) {
            let side = &engine.scenario().sides[u.side];
            ui.add_space(6.0);
            ui.horizontal(|ui| {
                let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                ui.painter().rect_filled(r, 2.0, paint::rgb(side_colour(side, u.side)));
                ui.label(RichText::new(&side.name).strong().size(14.0));
            });
        }
        if last != Some((u.side, chit)) {
            let phasing = acting.iter().any(|&a| world.get::<Unit>(a).is_some_and(|x| x.brigade == u.brigade));
            let name = brigade.map_or("", |b| b.name.as_str());
            let title = match engine.brigade_tag(u.brigade) {
                Some(tag) => format!("{name} ({tag})"),
                None => name.to_string(),
            };
            let text = RichText::new(format!("{title}{}", if phasing { " — acting now" } else { "" })).color(Color32::from_rgb(226, 214, 170));
            ui.label(if phasing { text.strong() } else { text });
        }
        last = Some((u.side, chit));
        let status = engine.unit_status(e);
        let (state, tint) = status_line(&status);
        ui.horizontal(|ui| {
            ui.add_space(6.0);
            if status.marked {
                let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                ui.painter().circle(r.center(), 5.0, MARKER, egui::Stroke::new(1.0, Color32::from_gray(20)));
            }
            let r = ui.selectable_label(selected == Some(e), RichText::new(&u.name).strong()).on_hover_text("Select it and bring it into view");
            if r.clicked() {
                clicked = session.app_entity(e);
            }
        });
        // Strength and formation under the name: a long name never runs into them.
        ui.horizontal(|ui| {
            ui.add_space(18.0);
            let text = RichText::new(format!("{}/{} figs · {} · {state}", u.figures, u.initial_figures, formation(u.formation))).small();
            ui.add(egui::Label::new(match tint {
                Some(c) => text.color(c),
                None => text.weak(),
            }).wrap());
        });
    }
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::action::Action;
    use crate::rules::cite::RuleSetId;

    /// A headless app with the game mirrored, as the window has it.
    fn session(actions: &[Action]) -> App {
        let mut game = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 4).unwrap();
        for a in actions {
            game.apply(a.clone()).unwrap();
        }
        let mut app = App::new();
        app.add_plugins(MinimalPlugins).insert_resource(Session::from_engine(&*game));
        crate::ui::session::sync_world(app.world_mut());
        app
    }

    fn unit(engine: &dyn Engine, e: Entity) -> &Unit {
        engine.world().get::<Unit>(e).expect("a unit")
    }

    #[test]
    fn the_roster_lists_every_unit_by_side_and_chit() {
        let app = session(&[]);
        let engine = app.world().resource::<Session>().engine();
        let order = roster_order(engine);
        assert_eq!(order.len(), engine.scenario().sides.iter().flat_map(|s| &s.brigades).map(|b| b.units.len()).sum::<usize>(), "every unit once");
        let keys: Vec<(usize, u32)> = order.iter().map(|&e| (unit(engine, e).side, engine.world().get::<Brigade>(unit(engine, e).brigade).unwrap().chit)).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
    }

    // OTP 4.3: N steps through the phasing brigade's units only, and wraps round.
    #[test]
    fn next_unit_cycles_the_phasing_brigade() {
        let app = session(&[Action::Next, Action::Next]);
        let s = app.world().resource::<Session>();
        let engine = s.engine();
        let acting = engine.sequence().acting;
        assert!(!acting.is_empty(), "a chit is drawn");
        let mut seen = Vec::new();
        let mut at = None;
        for _ in 0..20 {
            at = next_unit(s, at, 1);
            let g = s.game_entity(at.expect("a unit")).unwrap();
            assert!(acting.contains(&g), "{} is not acting", unit(engine, g).name);
            if seen.contains(&g) {
                break;
            }
            seen.push(g);
        }
        assert_eq!(seen.len(), acting.len(), "every acting unit, then round again");
        let back = next_unit(s, next_unit(s, at, 1), -1);
        assert_eq!(back, at, "Shift+N goes back");
    }

    // OTP 10.2: each unit's line is the engine's status of it, a marked unit in the marker's
    // colour with its marker drawn.
    #[test]
    fn the_roster_shows_the_engines_status_of_each_unit() {
        let app = session(&[Action::Next, Action::Next]);
        let s = app.world().resource::<Session>();
        let engine = s.engine();
        let ctx = egui::Context::default();
        let input = egui::RawInput { screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(400.0, 4000.0))), ..Default::default() };
        let mut texts: Vec<(String, Color32)> = Vec::new();
        let mut markers = 0;
        for _ in 0..2 {
            let out = ctx.run_ui(input.clone(), |ui| {
                egui::CentralPanel::default().show(ui, |ui| {
                    roster_ui(ui, s, None);
                });
            });
            texts.clear();
            markers = 0;
            for c in &out.shapes {
                match &c.shape {
                    egui::Shape::Text(t) => texts.push((t.galley.text().to_string(), t.galley.job.sections.first().map_or(Color32::TRANSPARENT, |x| x.format.color))),
                    egui::Shape::Circle(c) if c.fill == MARKER => markers += 1,
                    _ => {}
                }
            }
        }
        let mut marked = 0;
        for e in roster_order(engine) {
            let status = engine.unit_status(e);
            let u = unit(engine, e);
            let line = format!("{}/{} figs · {} · {}", u.figures, u.initial_figures, formation(u.formation), status.parts.join(" · "));
            let (_, colour) = texts.iter().find(|(t, _)| *t == line).unwrap_or_else(|| panic!("{line:?} in {texts:?}"));
            if status.marked {
                marked += 1;
                assert_eq!(*colour, MARKER, "{line}");
            }
        }
        assert!(marked > 0, "seed 4: Tarleton's militia starts with a marker");
        assert_eq!(markers, marked, "a marker drawn for each marked unit");
    }
}
