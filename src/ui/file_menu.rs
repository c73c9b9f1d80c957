//! Open another scenario or a saved game: a path field and a Load button; and "Save as…". A file that does not load leaves the
//! table as it was and shows every problem (`file:line:col: message`) in a red window.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::UiSet;
use super::camera::View;
use super::log::GameLog;
use super::ruler::Ruler;
use super::table_view::Selection;
use super::session::{self, Opening};
use crate::scenario::spawn::Battlefield;

#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct OpenDialog {
    pub open: bool,
    pub path: String,
    /// The last failure: which file, and its problems.
    pub error: Option<(String, String)>,
}

/// "Save as…": where to write the game (Ctrl+S asks here when the game has no file yet).
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct SaveDialog {
    pub open: bool,
    pub path: String,
    /// Put the keyboard in the path field on the next frame.
    focus: bool,
}

impl SaveDialog {
    /// Open it on the game's file, or `otp-save-<scenario>.ron` in the working folder.
    pub fn show(&mut self, session: &session::Session) {
        self.path = match &session.save_path {
            Some(p) => p.display().to_string(),
            None => {
                let log = super::log::export_path(None, &session.game.scenario().name);
                log.display().to_string().replacen("otp-log-", "otp-save-", 1).replace(".txt", ".ron")
            }
        };
        self.open = true;
        self.focus = true;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<OpenDialog>().init_resource::<SaveDialog>().add_systems(EguiPrimaryContextPass, (open_window, save_window, error_window).in_set(UiSet::Windows));
}

fn save_window(mut contexts: EguiContexts, mut dialog: ResMut<SaveDialog>, mut commands: MessageWriter<session::SessionCommand>) -> Result {
    if !dialog.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut open = true;
    let mut save: Option<PathBuf> = None;
    egui::Window::new("Save the game as").open(&mut open).collapsible(false).resizable(false).default_pos(ctx.content_rect().left_top() + egui::vec2(300.0, 50.0)).show(ctx, |ui| {
        ui.label("Saved game file (.ron): the scenario, the seed and every action; `otp play FILE` goes on with it.");
        ui.horizontal(|ui| {
            let field = ui.add(egui::TextEdit::singleline(&mut dialog.path).desired_width(340.0).hint_text("games/my-game.ron"));
            if dialog.focus {
                field.request_focus();
                dialog.focus = false;
            }
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let ok = !dialog.path.trim().is_empty();
            if (ui.add_enabled(ok, egui::Button::new("Save")).clicked() || enter) && ok {
                save = Some(PathBuf::from(dialog.path.trim()));
            }
        });
    });
    if let Some(path) = save {
        commands.write(session::SessionCommand::Save(path));
        open = false;
    }
    if !open {
        dialog.open = false;
    }
    Ok(())
}

/// Load a scenario file in place of the current one. On any problem the world is untouched and
/// the problems come back as text, one `file:line:col: message` a line.
pub(crate) fn open_in_world(world: &mut World, path: &Path) -> Result<(), String> {
    let opening = Opening::read(path)?;
    session::open_in_world(world, opening);
    if let Some(mut view) = world.get_resource_mut::<View>() {
        view.fit_pending = true;
    }
    if let Some(mut s) = world.get_resource_mut::<Selection>() {
        *s = Selection::default();
    }
    if let Some(mut r) = world.get_resource_mut::<Ruler>() {
        r.clear();
    }
    if let Some(mut log) = world.get_resource_mut::<GameLog>() {
        log.clear();
    }
    Ok(())
}

/// Queue an open; its outcome lands in `OpenDialog`.
pub(crate) fn request_open(commands: &mut Commands, path: PathBuf) {
    commands.queue(move |world: &mut World| {
        let result = open_in_world(world, &path);
        if let Some(mut d) = world.get_resource_mut::<OpenDialog>() {
            match result {
                Ok(()) => {
                    d.open = false;
                    d.error = None;
                }
                Err(e) => d.error = Some((path.display().to_string(), e)),
            }
        }
    });
}

/// Scenarios and saved games near at hand: `scenarios/` and the working folder, and the current
/// file's folder.
fn nearby_scenarios(current: &str) -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from("scenarios"), PathBuf::from(".")];
    if let Some(parent) = Path::new(current).parent().filter(|p| !p.as_os_str().is_empty()) {
        dirs.push(parent.to_path_buf());
    }
    let mut found: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    found.sort();
    found.dedup();
    found.truncate(30);
    found
}

fn open_window(mut contexts: EguiContexts, mut dialog: ResMut<OpenDialog>, battlefield: Option<Res<Battlefield>>, mut commands: Commands, mut listed: Local<Option<(String, Vec<PathBuf>)>>) -> Result {
    if !dialog.open {
        *listed = None;
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let current = battlefield.map(|b| b.source.clone()).unwrap_or_default();
    let just_opened = listed.is_none();
    if listed.as_ref().is_none_or(|(c, _)| *c != current) {
        *listed = Some((current.clone(), nearby_scenarios(&current)));
    }
    let mut open = true;
    let mut load: Option<PathBuf> = None;
    egui::Window::new("Open a scenario or a saved game").open(&mut open).collapsible(false).resizable(false).default_pos(ctx.content_rect().left_top() + egui::vec2(260.0, 50.0)).show(ctx, |ui| {
        ui.label("Scenario or saved game (.ron):");
        ui.horizontal(|ui| {
            let field = ui.add(egui::TextEdit::singleline(&mut dialog.path).desired_width(340.0).hint_text("scenarios/my-battle.ron or a saved game"));
            // Typing goes to the path as soon as the window opens, not to the table's shortcuts.
            if just_opened {
                field.request_focus();
            }
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.add_enabled(!dialog.path.trim().is_empty(), egui::Button::new("Load")).clicked() || enter) && !dialog.path.trim().is_empty() {
                load = Some(PathBuf::from(dialog.path.trim()));
            }
        });
        if let Some((_, files)) = listed.as_ref().filter(|(_, f)| !f.is_empty()) {
            ui.add_space(4.0);
            ui.label(RichText::new("Nearby:").weak());
            for f in files {
                if ui.link(f.display().to_string()).clicked() {
                    dialog.path = f.display().to_string();
                    load = Some(f.clone());
                }
            }
        }
    });
    if !open {
        dialog.open = false;
    }
    if let Some(path) = load {
        request_open(&mut commands, path);
    }
    Ok(())
}

fn error_window(mut contexts: EguiContexts, mut dialog: ResMut<OpenDialog>) -> Result {
    let Some((file, text)) = dialog.error.clone() else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let red = Color32::from_rgb(150, 28, 28);
    let frame = egui::Frame::window(&ctx.global_style()).fill(Color32::from_rgb(58, 16, 16)).stroke(egui::Stroke::new(2.0, Color32::from_rgb(220, 70, 60)));
    let mut open = true;
    let mut close = false;
    egui::Window::new(RichText::new("Could not open the scenario").color(Color32::from_rgb(255, 200, 190)).strong())
        .id(egui::Id::new("scenario_error"))
        .frame(frame)
        .open(&mut open)
        .collapsible(false)
        .default_pos(ctx.content_rect().center() - egui::vec2(260.0, 120.0))
        .default_width(560.0)
        .show(ctx, |ui| {
            ui.label(RichText::new(format!("{file} was not loaded; the table is unchanged.")).color(Color32::from_rgb(255, 220, 210)));
            ui.add_space(4.0);
            egui::ScrollArea::vertical().max_height(260.0).show(ui, |ui| {
                egui::Frame::NONE.fill(red.gamma_multiply(0.35)).inner_margin(6.0).corner_radius(3.0).show(ui, |ui| {
                    ui.label(RichText::new(&text).monospace().color(Color32::from_rgb(255, 120, 110)));
                });
            });
            ui.add_space(4.0);
            if ui.button("Close").clicked() {
                close = true;
            }
        });
    if !open || close {
        dialog.error = None;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::spawn::spawn_scenario;

    /// The table's entities (resources are entities too, and opening a game adds the session's).
    fn table_entities(world: &mut World) -> usize {
        use crate::scenario::spawn::{Brigade, Commander, SideInfo, Stand, Unit};
        world.query_filtered::<Entity, Or<(With<SideInfo>, With<Brigade>, With<Commander>, With<Unit>, With<Stand>)>>().iter(world).count()
    }

    #[test]
    fn a_bad_file_changes_nothing_and_says_why() {
        let mut world = World::new();
        let scenario = crate::scenario::default_scenario();
        spawn_scenario(&mut world, &scenario, "teaching");
        let before = table_entities(&mut world);
        let dir = std::env::temp_dir().join(format!("otp-ui-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.ron");
        std::fs::write(&bad, "(name: \"Broken\", table: (width: 72.0, depth: 48.0), sides: [ (name: 1) ])").unwrap();
        let err = open_in_world(&mut world, &bad).unwrap_err();
        assert!(err.contains("bad.ron:"), "{err}");
        let err = open_in_world(&mut world, &dir.join("missing.ron")).unwrap_err();
        assert!(err.contains("missing.ron"), "{err}");
        assert_eq!(table_entities(&mut world), before);
        assert_eq!(world.resource::<Battlefield>().source, "teaching");
        // A good file replaces the scenario.
        let good = dir.join("good.ron");
        std::fs::write(&good, crate::scenario::DEFAULT_SCENARIO).unwrap();
        open_in_world(&mut world, &good).unwrap();
        assert_eq!(world.resource::<Battlefield>().source, good.display().to_string());
        assert_eq!(table_entities(&mut world), before, "the old table is gone, the new one in its place");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
