//! The roster: every unit of both sides, by side and brigade (chit order), with its strength,
//! formation, Morale Marker and what it has done this turn; a click selects it and brings it
//! into view. Drawn in the left panel's Roster tab (F5); N and Shift+N step through the phasing
//! brigade's units in the same order.
//! A click sends the camera's `CentreOn`.

use bevy::prelude::*;
use bevy_egui::egui;
use egui::{Color32, RichText};

use super::paint;
use super::session::Session;
use super::unit_sheet::formation_name;
use crate::rules::otp::engine::{Game, UnitTurn};
use crate::scenario::spawn::{Brigade, Unit, side_colour};

const MARKER: Color32 = Color32::from_rgb(250, 210, 40);
const OFF: Color32 = Color32::from_gray(160);

/// The game's units in roster order: side, brigade chit, then scenario order.
pub(crate) fn roster_order(game: &Game) -> Vec<Entity> {
    let chit = |u: &Unit| game.world().get::<Brigade>(u.brigade).map_or(u32::MAX, |b| b.chit);
    let mut units: Vec<(usize, u32, usize, Entity)> = game.units().enumerate().map(|(i, (e, u))| (u.side, chit(u), i, e)).collect();
    units.sort();
    units.into_iter().map(|(.., e)| e).collect()
}

/// The unit `step` places after (or before) the selected one, among the phasing brigade's units
/// (every unit when no brigade is phasing), as an app entity.
pub(crate) fn next_unit(session: &Session, selected: Option<Entity>, step: i32) -> Option<Entity> {
    let game = &session.game;
    let phasing = game.sequence().phasing;
    let units: Vec<Entity> = roster_order(game)
        .into_iter()
        .filter(|&e| phasing.is_none_or(|c| game.world().get::<Brigade>(game.unit(e).brigade).is_some_and(|b| b.chit == c)))
        .filter(|&e| !game.unit_turn(e).off_table)
        .collect();
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

/// What a unit has done this turn, in the rules' words, and a colour when it needs attention.
pub(crate) fn unit_state(game: &Game, e: Entity) -> (String, Option<Color32>) {
    let t: &UnitTurn = game.unit_turn(e);
    if t.off_table {
        return ("off the table".into(), Some(OFF));
    }
    let mut parts: Vec<String> = Vec::new();
    if game.has_marker(e) {
        parts.push(match &t.morale {
            Some(r) => format!("Morale Marker kept ({})", r.result),
            None => "Morale Marker: remove it first (10.2)".into(),
        });
    } else if let Some(r) = &t.morale {
        parts.push(format!("rolled {}{}", r.result, if r.rerolled { " on a re-roll" } else { "" }));
    }
    if let Some(r) = t.restriction {
        parts.push(format!("limited: {r}"));
    }
    if t.special_move {
        parts.push("special move".into());
    }
    if !t.done.is_empty() {
        parts.push(t.done.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "));
    }
    if parts.is_empty() {
        parts.push("no operation yet".into());
    }
    let colour = game.has_marker(e).then_some(MARKER);
    (parts.join(" · "), colour)
}

/// The roster, for the left panel. Returns the unit clicked (an app entity).
pub(crate) fn roster_ui(ui: &mut egui::Ui, session: &Session, selected: Option<Entity>) -> Option<Entity> {
    let game = &session.game;
    let selected = selected.and_then(|a| session.game_entity(a));
    let mut clicked = None;
    let mut last: Option<(usize, u32)> = None;
    for e in roster_order(game) {
        let u = game.unit(e);
        let brigade = game.world().get::<Brigade>(u.brigade);
        let chit = brigade.map_or(0, |b| b.chit);
        if last.is_none_or(|(s, _)| s != u.side) {
            let side = &game.scenario().sides[u.side];
            ui.add_space(6.0);
            ui.horizontal(|ui| {
                let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                ui.painter().rect_filled(r, 2.0, paint::rgb(side_colour(side, u.side)));
                ui.label(RichText::new(&side.name).strong().size(14.0));
            });
        }
        if last != Some((u.side, chit)) {
            let phasing = game.sequence().phasing == Some(chit);
            let name = brigade.map_or("", |b| b.name.as_str());
            let text = RichText::new(format!("Chit {chit}: {name}{}", if phasing { " — phasing" } else { "" })).color(Color32::from_rgb(226, 214, 170));
            ui.label(if phasing { text.strong() } else { text });
        }
        last = Some((u.side, chit));
        let (state, tint) = unit_state(game, e);
        ui.horizontal(|ui| {
            ui.add_space(6.0);
            if game.has_marker(e) {
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
            let text = RichText::new(format!("{}/{} figs · {} · {state}", u.figures, u.initial_figures, formation_name(u.formation))).small();
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
    use crate::rules::otp::charts::Charts;
    use crate::rules::otp::engine::Action;

    /// A headless app with the game mirrored, as the window has it.
    fn session(actions: &[Action]) -> App {
        let mut game = Game::new(crate::scenario::default_scenario(), 4, Charts::embedded().clone());
        for a in actions {
            game.apply(a.clone()).unwrap();
        }
        let mut app = App::new();
        app.add_plugins(MinimalPlugins).insert_resource(Session::new(game));
        crate::ui::session::sync_world(app.world_mut());
        app
    }

    #[test]
    fn the_roster_lists_every_unit_by_side_and_chit() {
        let app = session(&[]);
        let s = app.world().resource::<Session>();
        let order = roster_order(&s.game);
        assert_eq!(order.len(), s.game.units().count(), "every unit once");
        let keys: Vec<(usize, u32)> = order.iter().map(|&e| {
            let u = s.game.unit(e);
            (u.side, s.game.world().get::<Brigade>(u.brigade).unwrap().chit)
        }).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
    }

    // OTP 4.3: N steps through the phasing brigade's units only, and wraps round.
    #[test]
    fn next_unit_cycles_the_phasing_brigade() {
        let app = session(&[Action::StartGame, Action::DrawChit]);
        let s = app.world().resource::<Session>();
        let brigade = s.game.phasing_brigade().expect("a chit is drawn");
        let mut seen = Vec::new();
        let mut at = None;
        for _ in 0..20 {
            at = next_unit(s, at, 1);
            let g = s.game_entity(at.expect("a unit")).unwrap();
            let u = s.game.unit(g);
            assert_eq!(s.game.world().get::<Brigade>(u.brigade).unwrap().name, brigade);
            if seen.contains(&u.name) {
                break;
            }
            seen.push(u.name.clone());
        }
        let n = s.game.units().filter(|(_, u)| s.game.world().get::<Brigade>(u.brigade).unwrap().name == brigade).count();
        assert_eq!(seen.len(), n, "every unit of the brigade, then round again");
        let back = next_unit(s, next_unit(s, at, 1), -1);
        assert_eq!(back, at, "Shift+N goes back");
    }
}
