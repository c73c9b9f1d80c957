//! The unit sheet of the selected unit (OTP 4.2), in a side panel: what the paper sheet records,
//! and the brigade commander's line of it.

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::orders::{MoveCommand, OrdersState, commander_ui as orders_ui_commander, orders_ui};
use super::overlays::{MoveDrag, OverlayCache, Overlays, legend_ui};
use super::session::{Order, Session};
use super::paint;
use super::camera::View;
use super::table_view::{Selection, Troops};
use super::{FreeRect, PanelOrder, root_ui};
use crate::rules::action::Action;
use crate::rules::engine::{SheetRow, Tone};
use crate::scenario::spawn::{Battlefield, Brigade, Commander, SIDE_COLOURS, SideInfo, Unit};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(EguiPrimaryContextPass, sheet.in_set(PanelOrder::Right).run_if(super::settings::shown(super::settings::Fold::Sheet)))
        .add_systems(Update, keyboard.run_if(not(egui_wants_any_keyboard_input)));
}

/// Esc closes the sheet, unless it is clearing a move's ghost first.
pub(super) fn keyboard(keys: Res<ButtonInput<KeyCode>>, mut selection: ResMut<Selection>, drag: Res<MoveDrag>, mut state: ResMut<OrdersState>) {
    if keys.just_pressed(KeyCode::Escape) && !drag.has_ghost() {
        selection.unit = None;
        state.commander = None;
        state.kind = 0;
    }
}

/// A formation as the rules name it.
pub(crate) use crate::table::words::formation as formation_name;



/// The screen shift that brings `unit` (its bounds on screen) inside `free` with `margin` to
/// spare (the left and top edges first when it cannot fit); zero when it is inside already.
pub(crate) fn reveal(unit: egui::Rect, free: egui::Rect, margin: f32) -> egui::Vec2 {
    let room = free.shrink(margin);
    if !unit.is_positive() || !room.is_positive() {
        return egui::Vec2::ZERO;
    }
    let axis = |lo: f32, hi: f32, min: f32, max: f32| {
        if lo < min {
            min - lo
        } else if hi > max {
            (max - hi).max(min - lo)
        } else {
            0.0
        }
    };
    egui::vec2(axis(unit.left(), unit.right(), room.left(), room.right()), axis(unit.top(), unit.bottom(), room.top(), room.bottom()))
}

/// Where a tooltip about a unit hangs from (it opens below and right of this point): under the
/// pointer, but no higher than the unit's lowest edge on screen, so it never covers the unit.
pub(crate) fn below(pointer: egui::Pos2, unit: egui::Rect) -> egui::Pos2 {
    if unit.is_positive() { egui::pos2(pointer.x, pointer.y.max(unit.bottom())) } else { pointer }
}

fn row(ui: &mut egui::Ui, key: &str, value: impl Into<egui::WidgetText>) {
    ui.label(RichText::new(key).weak());
    ui.label(value);
    ui.end_row();
}

/// One row of the engine's sheet: its value in the row's tone, its rule in the tooltip, and a
/// line naming a unit on the table as a link to that unit's sheet.
fn sheet_row(ui: &mut egui::Ui, r: &SheetRow, units: &Query<(Entity, &Unit)>, select: &mut Option<Option<Entity>>) {
    let key = ui.label(RichText::new(&r.label).weak());
    if let Some(c) = &r.cite {
        key.on_hover_text(c);
    }
    let unit_named = |line: &str| units.iter().find(|(_, u)| line == u.name || line.starts_with(&format!("{} — ", u.name))).map(|(e, _)| e);
    let lines: Vec<&str> = r.value.lines().collect();
    if lines.iter().any(|l| unit_named(l).is_some()) {
        ui.vertical(|ui| {
            for l in &lines {
                match unit_named(l) {
                    Some(e) if ui.link(*l).clicked() => *select = Some(Some(e)),
                    Some(_) => {}
                    None => {
                        ui.label(*l);
                    }
                }
            }
        });
    } else {
        let text = RichText::new(&r.value);
        ui.label(match r.tone {
            Some(Tone::Info) => text.strong(),
            Some(Tone::Bad) => text.color(Color32::from_rgb(240, 150, 120)).strong(),
            None => text,
        });
    }
    ui.end_row();
}

/// A two-column grid of the sheet, its text wrapped inside the panel: a long line (a rule's
/// reconstruction, a morale ladder) would otherwise widen the panel past where the table was
/// laid out, and the table would show through it.
fn sheet_grid(id: &str, ui: &egui::Ui) -> egui::Grid {
    egui::Grid::new(id).num_columns(2).spacing([14.0, 5.0]).striped(true).max_col_width(sheet_column(ui.available_width()))
}

/// The widest a column of the sheet's grid may be in a panel `width` wide: both fit.
fn sheet_column(width: f32) -> f32 {
    ((width - 14.0) / 2.0).max(80.0)
}

fn section(ui: &mut egui::Ui, title: &str) {
    ui.add_space(6.0);
    ui.label(RichText::new(title).strong().size(13.5).color(Color32::from_rgb(226, 214, 170)));
    ui.separator();
}

#[allow(clippy::too_many_arguments)]
fn sheet(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeRect>,
    mut selection: ResMut<Selection>,
    units: Query<(Entity, &Unit)>,
    brigades: Query<&Brigade>,
    commanders: Query<&Commander>,
    sides: Query<&SideInfo>,
    battlefield: Option<Res<Battlefield>>,
    (mut overlays, cache, drag): (ResMut<Overlays>, Res<OverlayCache>, Res<MoveDrag>),
    (session, mut state, mut orders, mut move_commands): (Option<Res<Session>>, ResMut<OrdersState>, MessageWriter<Order>, MessageWriter<MoveCommand>),
    (mut view, troops, mut revealed): (ResMut<View>, Res<Troops>, Local<Option<Entity>>),
) -> Result {
    let mut sent: Vec<Action> = Vec::new();
    let mut moves: Vec<MoveCommand> = Vec::new();
    let Some((entity, unit)) = selection.unit.and_then(|e| units.get(e).ok()) else {
        // No unit: the picked commander's sheet, if any (6.12).
        if let (Some(session), Some((ce, c))) = (&session, state.commander.and_then(|e| commanders.get(e).ok().map(|c| (e, c)))) {
            let ctx = contexts.ctx_mut()?.clone();
            let mut root = root_ui(&ctx, "sheet_root", free.0);
            let colour = sides.iter().find(|s| s.index == c.side).map(|s| s.colour).unwrap_or(SIDE_COLOURS[c.side % SIDE_COLOURS.len()]);
            let mut close = false;
            let response = egui::Panel::right("unit_sheet").resizable(true).default_size(320.0).size_range(260.0..=520.0).show(&mut root, |ui| {
                ui.add_space(6.0);
                ui.horizontal(|ui| {
                    let (r, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
                    ui.painter().circle(r.center(), 7.0, paint::rgb(colour), egui::Stroke::new(1.0, Color32::from_gray(15)));
                    ui.label(RichText::new(&c.name).heading().strong());
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        if ui.button(RichText::new("×").size(16.0)).on_hover_text("Put the commander down (Esc)").clicked() {
                            close = true;
                        }
                    });
                });
                let role = match c.brigade.and_then(|b| brigades.get(b).ok().map(|x| (b, x))) {
                    Some((e, b)) => format!("Commands {}", session.brigade_title(e, &b.name)),
                    None => format!("Commands the {} army", sides.iter().find(|s| s.index == c.side).map(|s| s.name.clone()).unwrap_or_default()),
                };
                ui.label(RichText::new(role).weak().italics());
                // The engine's record of the leader, every line with its rule.
                let leader_rows = session.game_entity(ce).map(|g| session.engine().sheet(g)).unwrap_or_default();
                sheet_grid("commander_sheet_grid", ui).show(ui, |ui| {
                    for r in &leader_rows {
                        sheet_row(ui, r, &units, &mut None);
                    }
                });
                orders_ui_commander(ui, session, ce, &c.name, &mut state, &mut sent);
            });
            free.0.max.x = free.0.max.x.min(response.response.rect.min.x);
            if close {
                state.commander = None;
            }
            orders.write_batch(sent.into_iter().map(Order));
        }
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "sheet_root", free.0);
    let side = sides.iter().find(|s| s.index == unit.side);
    let colour = side.map(|s| s.colour).unwrap_or(SIDE_COLOURS[unit.side % SIDE_COLOURS.len()]);
    let brigade = brigades.get(unit.brigade).ok();
    let brigade_title = |b: &Brigade| session.as_ref().map_or_else(|| b.name.clone(), |s| s.brigade_title(unit.brigade, &b.name));
    let mut select: Option<Option<Entity>> = None;
    // The engine's sheet of the unit, every number with its rule (OTP 4.2).
    let rows = session.as_ref().and_then(|s| s.game_entity(entity).map(|g| s.engine().sheet(g))).unwrap_or_default();
    let response = egui::Panel::right("unit_sheet").resizable(true).default_size(320.0).size_range(260.0..=520.0).show(&mut root, |ui| {
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
            ui.painter().rect(r, 3.0, paint::rgb(colour), egui::Stroke::new(1.0, Color32::from_gray(15)), egui::StrokeKind::Inside);
            ui.label(RichText::new(&unit.name).heading().strong());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button(RichText::new("×").size(16.0)).on_hover_text("Close the sheet (Esc)").clicked() {
                    select = Some(None);
                }
            });
        });
        let rule = rows.first().and_then(|r| r.cite.as_ref()).map(|c| format!(" ({c})")).unwrap_or_default();
        ui.label(RichText::new(format!("Unit sheet{rule}")).weak().italics());
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            if overlays.any() {
                egui::CollapsingHeader::new(RichText::new("Teaching overlays").strong().size(13.5).color(Color32::from_rgb(226, 214, 170)))
                    .id_salt("teaching_overlays")
                    .default_open(true)
                    .show(ui, |ui| {
                        let words = |t| session.as_ref().map_or_else(|| crate::rules::engine::plain_words(t), |s| s.engine().words(t));
                        legend_ui(ui, &mut overlays, unit, &cache, &drag, &words)
                    });
            }
            if let Some(session) = &session {
                orders_ui(ui, session, entity, &mut state, &drag, &cache, &mut sent, &mut moves);
            }
            section(ui, "Unit");
            sheet_grid("unit_sheet_grid", ui).show(ui, |ui| {
                row(ui, "Side", side.map(|s| s.name.clone()).unwrap_or_default());
                row(ui, "Brigade", brigade.map(brigade_title).unwrap_or_default());
                for r in &rows {
                    sheet_row(ui, r, &units, &mut select);
                }
            });

            if let Some(b) = brigade {
                section(ui, "Brigade commander");
                let c = commanders.get(b.commander).ok();
                let leader_rows = session.as_ref().and_then(|s| s.game_entity(b.commander).map(|g| s.engine().sheet(g))).unwrap_or_default();
                sheet_grid("commander_grid", ui).show(ui, |ui| {
                    row(ui, "Name", RichText::new(c.map(|c| c.name.clone()).unwrap_or_default()).strong());
                    for r in &leader_rows {
                        sheet_row(ui, r, &units, &mut select);
                    }
                });

                section(ui, &brigade_title(b));
                // Each mate's markers, as the engine's badges ("M": a Morale Marker).
                let marks = |e: Entity| -> String {
                    let badges = session.as_ref().and_then(|s| s.game_entity(e).map(|g| s.engine().badges(g))).unwrap_or_default();
                    badges.iter().map(|b| format!(" · {}", b.text)).collect()
                };
                let mut mates: Vec<(Entity, &Unit)> = units.iter().filter(|(_, u)| u.brigade == unit.brigade).collect();
                // In the scenario's order, as on the paper sheet.
                let listed: Vec<&str> = battlefield
                    .as_ref()
                    .and_then(|bf| bf.scenario.sides.get(unit.side))
                    .and_then(|s| s.brigades.iter().find(|x| x.name == b.name))
                    .map(|x| x.units.iter().map(|u| u.name.as_str()).collect())
                    .unwrap_or_default();
                mates.sort_by_key(|(e, u)| (listed.iter().position(|n| *n == u.name).unwrap_or(usize::MAX), *e));
                for (e, u) in mates {
                    ui.horizontal(|ui| {
                        let text = format!("{} — {} figs{}", u.name, u.figures, marks(e));
                        if ui.selectable_label(e == entity, text).clicked() {
                            select = Some(Some(e));
                        }
                    });
                }
            }
        });
    });
    free.0.max.x = free.0.max.x.min(response.response.rect.min.x);
    // A unit just selected is brought out from under the sheet (and any panel): the sheet never
    // covers the unit it describes. Once per selection, so the player may pan it away again.
    if *revealed != Some(entity)
        && let Some(g) = troops.0.iter().find(|g| g.entity == entity)
        && !g.stands.is_empty()
    {
        *revealed = Some(entity);
        let corners: Vec<bevy::math::Vec2> = g.stands.iter().flat_map(|f| f.corners()).collect();
        let delta = reveal(paint::screen_bounds(&view, &corners), free.0, 24.0);
        if delta != egui::Vec2::ZERO {
            view.pan_by_screen(delta);
        }
    }
    if session.is_some() {
        orders.write_batch(sent.into_iter().map(Order));
    }
    for c in moves {
        move_commands.write(c);
    }
    if let Some(s) = select {
        selection.unit = s;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 16: a long line (Revolution's reconstructed rates, its morale ladder) wraps inside
    // the sheet; it once widened the panel past where the table had been laid out, and the table
    // showed through the sheet.
    #[test]
    fn a_long_line_wraps_inside_the_sheet_instead_of_widening_it() {
        let ctx = egui::Context::default();
        let input = egui::RawInput { screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 800.0))), ..Default::default() };
        let long = "Reconstructed: SG16: lost; three times the 8\" line move, as the sheet's other rates stand to one another, and half again for a column on a road";
        for (rows, most) in [(1, 330.0), (0, 330.0)] {
            let mut width = 0.0;
            for _ in 0..3 {
                let _ = ctx.run_ui(input.clone(), |ui| {
                    let r = egui::Panel::right("unit_sheet").resizable(true).default_size(320.0).size_range(260.0..=520.0).show(ui, |ui| {
                        sheet_grid("g", ui).show(ui, |ui| {
                            for _ in 0..rows {
                                ui.label("Move");
                                ui.label(long);
                                ui.end_row();
                            }
                            ui.label("Side");
                            ui.label("British");
                            ui.end_row();
                        });
                    });
                    width = r.response.rect.width();
                });
            }
            assert!(width <= most, "{rows} long rows: the sheet is {width} wide");
        }
        assert!(2.0 * sheet_column(306.0) + 14.0 <= 306.0);
    }

    // Issue 13, 16: the sheet and the tooltips do not cover the unit they describe.
    #[test]
    fn the_sheet_and_tooltips_leave_their_unit_in_view() {
        let free = egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(960.0, 620.0));
        // A unit at x 1000–1060 is under a sheet whose left edge is at 960: pan it left, clear.
        let unit = egui::Rect::from_min_max(egui::pos2(1000.0, 300.0), egui::pos2(1060.0, 320.0));
        let d = reveal(unit, free, 24.0);
        assert!(free.shrink(24.0).contains_rect(unit.translate(d)), "{d:?}");
        assert_eq!(reveal(unit.translate(egui::vec2(-400.0, 0.0)), free, 24.0), egui::Vec2::ZERO, "already in view: no pan");
        // Under the log at the bottom: up.
        let low = egui::Rect::from_min_max(egui::pos2(500.0, 640.0), egui::pos2(560.0, 660.0));
        assert!(reveal(low, free, 24.0).y < 0.0);
        // A tooltip from a pointer on the unit hangs below the unit's stands.
        let p = below(egui::pos2(530.0, 305.0), egui::Rect::from_min_max(egui::pos2(500.0, 300.0), egui::pos2(560.0, 320.0)));
        assert!(p.y >= 320.0 && p.x == 530.0, "{p:?}");
    }

    // Issue 13, 13: dragoons are cavalry: the sheet's Type, the engine's (OTP 1.2, 1.3, 4.2),
    // every row with its rule, the CV with 4.2.
    #[test]
    fn the_sheet_is_the_engines() {
        use crate::rules::cite::RuleSetId;
        let g = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let w = g.world();
        let of = |n: &str| {
            let e = w.try_query::<(Entity, &Unit)>().unwrap().iter(w).find(|(_, u)| u.name == n).map(|(e, _)| e).unwrap();
            g.sheet(e)
        };
        let dragoons = of("British Legion Dragoons");
        assert_eq!(dragoons.iter().find(|r| r.label == "Type").map(|r| r.value.as_str()), Some("Line dragoons (cavalry)"));
        let foot = of("33rd Foot");
        assert!(foot.iter().all(|r| r.cite.is_some()), "{foot:?}");
        let cv = foot.iter().find(|r| r.label == "CV").unwrap();
        assert_eq!((cv.cite.as_deref(), cv.tone), (Some("OTP 4.2"), Some(Tone::Info)));
    }
}
