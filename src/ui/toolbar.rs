//! The top bar: the scenario's name, Open…, Fit, the ruler toggle, the teaching overlays' toggles
//! and help; and the F1 help window.

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::RichText;

use super::camera::View;
use super::file_menu::OpenDialog;
use super::overlays::{self, Overlays};
use super::ruler::Ruler;
use super::{FreeRect, UiSet, root_ui};
use crate::scenario::spawn::Battlefield;

#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct Help {
    pub open: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Help>()
        .add_systems(EguiPrimaryContextPass, (toolbar.in_set(UiSet::Toolbar), help_window.in_set(UiSet::Windows)))
        .add_systems(Update, keyboard.run_if(not(egui_wants_any_keyboard_input)));
}

fn keyboard(keys: Res<ButtonInput<KeyCode>>, mut help: ResMut<Help>) {
    if keys.just_pressed(KeyCode::F1) {
        help.open = !help.open;
    }
}

fn toolbar(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeRect>,
    battlefield: Option<Res<Battlefield>>,
    mut view: ResMut<View>,
    mut ruler: ResMut<Ruler>,
    mut help: ResMut<Help>,
    mut open: ResMut<OpenDialog>,
    mut teach: ResMut<Overlays>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "toolbar_root", free.0);
    let response = egui::Panel::top("toolbar").show(&mut root, |ui| {
        ui.add_space(3.0);
        ui.horizontal(|ui| {
            if let Some(b) = &battlefield {
                ui.label(RichText::new(&b.scenario.name).strong().size(16.0).color(egui::Color32::from_rgb(236, 228, 200)));
                ui.label(RichText::new(&b.source).weak().small()).on_hover_text(&b.scenario.description);
            }
            ui.separator();
            if ui.button("📂 Open…").on_hover_text("Open another scenario file").clicked() {
                open.open = !open.open;
            }
            if ui.button("⛶ Fit").on_hover_text("Show the whole table (F)").clicked() {
                view.fit_pending = true;
            }
            let was = ruler.enabled;
            if ui.selectable_label(was, "📏 Ruler").on_hover_text("Drag to measure; ends on stands measure edge to edge (R)").clicked() {
                ruler.toggle();
            }
            ui.separator();
            ui.label(RichText::new("Teach:").weak()).on_hover_text("Teaching overlays for the selected unit: what the rules' geometry says");
            let teach = &mut *teach;
            let toggles: [(&mut bool, &str, &str); 4] = [
                (&mut teach.arcs, "Arcs", "Firing arcs out to the weapon's range; guns in short, medium and long bands (8.1, 8.3, 8.4) — A"),
                (&mut teach.enfilade, "Enfilade", "The line straight out from the front; flank and rear zones (8.11, 9.1) — E"),
                (&mut teach.sight, "Sight", "Lines of sight to the enemy under the pointer, with range, arc and enfilade (8.7–8.11) — L"),
                (&mut teach.movement, "Move", "Where the unit can move; drag it to try a move (6.1–6.7) — M"),
            ];
            for (on, name, tip) in toggles {
                if ui.selectable_label(*on, name).on_hover_text(tip).clicked() {
                    *on = !*on;
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.selectable_label(help.open, "❓ Help").on_hover_text("Shortcuts (F1)").clicked() {
                    help.open = !help.open;
                }
                ui.label(RichText::new("wheel: zoom · right-drag: pan · click: unit sheet").weak().small());
            });
        });
        ui.add_space(2.0);
    });
    free.0.min.y = free.0.min.y.max(response.response.rect.max.y);
    Ok(())
}

/// The shortcuts, as the help window lists them.
pub(crate) const SHORTCUTS: &[(&str, &str)] = &[
    ("Mouse wheel", "zoom in and out at the cursor"),
    ("Right or middle drag", "pan the table"),
    ("Left drag", "pan (or measure, with the ruler on; or move the selected unit, with M on)"),
    ("Arrows", "pan (Shift: faster)"),
    ("+ / −", "zoom about the centre"),
    ("F or Home", "fit the whole table"),
    ("Hover a unit", "its name, type and strength"),
    ("Click a unit", "its unit sheet (OTP 4.2)"),
    ("R", "ruler on or off"),
    ("Esc", "clear the measurement and a move's ghost, then close the unit sheet"),
    ("F1", "this help"),
];

fn help_window(mut contexts: EguiContexts, mut help: ResMut<Help>) -> Result {
    if !help.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut open = help.open;
    egui::Window::new("Help — shortcuts").open(&mut open).collapsible(false).resizable(false).default_pos(ctx.content_rect().center() - egui::vec2(200.0, 160.0)).show(ctx, |ui| {
        egui::Grid::new("shortcuts").num_columns(2).spacing([18.0, 6.0]).striped(true).show(ui, |ui| {
            for (key, what) in SHORTCUTS.iter().chain(overlays::SHORTCUTS) {
                ui.label(RichText::new(*key).strong().monospace());
                ui.label(*what);
                ui.end_row();
            }
        });
        ui.add_space(6.0);
        ui.label(RichText::new("Distances are in inches on the table; the grid is 1\", with heavier lines every 6\" and 12\".").weak());
    });
    help.open = open;
    Ok(())
}
