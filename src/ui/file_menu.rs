//! Opening and saving files: the file browser (egui-file-dialog, drawn by egui itself: no desktop
//! portal, nothing to install) for Open (Ctrl+O) and Save as; the recent files (in the settings);
//! and the question before a game in progress is thrown away ("Save, then open" first). A file
//! that does not load leaves the table as it was and shows every problem
//! (`file:line:col: message`) in a red window.
//!
//! The dialogs are drawn above everything, and the dice overlay stands aside while one is up
//! ([`dialog_open`]), so nothing covers their text.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};
use egui_file_dialog::FileDialog;

use super::UiSet;
use super::camera::View;
use super::log::GameLog;
use super::ruler::Ruler;
use super::session::{self, Opening, Session};
use super::settings::Settings;
use super::table_view::Selection;
use super::toolbar::ConfirmNew;
use crate::scenario::spawn::Battlefield;

/// "Open…": set `open` to bring up the file browser; `error` is the last file that would not load.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct OpenDialog {
    pub open: bool,
    /// The last failure: which file, and its problems.
    pub error: Option<(String, String)>,
}

/// "Save as…": set by [`SaveDialog::show`]; the browser opens on `path`.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct SaveDialog {
    pub open: bool,
    pub path: String,
}

impl SaveDialog {
    /// Ask where to save: on the game's file, or `otp-save-<scenario>.ron` in the working folder.
    pub fn show(&mut self, session: &Session) {
        self.path = match &session.save_path {
            Some(p) => p.display().to_string(),
            None => {
                let log = super::log::export_path(None, &session.engine().scenario().name);
                log.display().to_string().replacen("otp-log-", "otp-save-", 1).replace(".txt", ".ron")
            }
        };
        self.open = true;
    }
}

/// A file to open once the player has said what becomes of the game in progress.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct ConfirmOpen(pub Option<PathBuf>);

/// What the browser's pick is for.
#[derive(Clone, Debug, PartialEq)]
enum Purpose {
    Open,
    Save,
    /// Save the game here, then open that file.
    SaveThenOpen(PathBuf),
}

/// The file browser while it is up.
#[derive(Resource, Default)]
pub(crate) struct Browser {
    dialog: Option<(FileDialog, Purpose)>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<OpenDialog>()
        .init_resource::<SaveDialog>()
        .init_resource::<ConfirmOpen>()
        .init_resource::<Browser>()
        .add_systems(EguiPrimaryContextPass, (start_browsing, browse, confirm_open_window, error_window).chain().in_set(UiSet::Windows));
}

/// A dialog is up: the dice overlay and other floating panels stand aside.
pub(crate) fn dialog_open(open: Option<Res<OpenDialog>>, save: Option<Res<SaveDialog>>, confirm: Option<Res<ConfirmOpen>>, browser: Option<Res<Browser>>, new: Option<Res<ConfirmNew>>) -> bool {
    open.is_some_and(|o| o.open || o.error.is_some())
        || save.is_some_and(|s| s.open)
        || confirm.is_some_and(|c| c.0.is_some())
        || browser.is_some_and(|b| b.dialog.is_some())
        || new.is_some_and(|n| n.0)
}

/// The folder to browse first: the current file's, else `scenarios/` if there is one.
fn start_folder(current: Option<&Path>) -> PathBuf {
    let here = current.and_then(|p| p.parent()).filter(|p| !p.as_os_str().is_empty() && p.is_dir());
    let folder = here.map(Path::to_path_buf).unwrap_or_else(|| if Path::new("scenarios").is_dir() { "scenarios".into() } else { ".".into() });
    std::path::absolute(&folder).unwrap_or(folder)
}

const RON: &str = "Scenarios and saved games (.ron)";

fn browser(title: &str, folder: PathBuf) -> FileDialog {
    FileDialog::new().title(title).initial_directory(folder).as_modal(true).default_size([720.0, 440.0]).anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0]).add_file_filter_extensions(RON, vec!["ron"]).default_file_filter(RON)
}

/// The browser for picking a file to open.
fn open_browser(current: Option<&Path>) -> FileDialog {
    let mut d = browser("Open a scenario or a saved game", start_folder(current));
    d.pick_file();
    d
}

/// The browser for a file to save to, suggesting `suggested`.
fn save_browser(title: &str, suggested: &Path) -> FileDialog {
    let folder = start_folder(Some(suggested).filter(|p| p.parent().is_some_and(|d| !d.as_os_str().is_empty())).or(Some(Path::new("./x"))));
    let name = suggested.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "game.ron".into());
    let mut d = browser(title, folder).add_save_extension("Saved game", "ron").default_save_extension("Saved game").default_file_name(&name);
    d.save_file();
    d
}

fn start_browsing(mut open: ResMut<OpenDialog>, mut save: ResMut<SaveDialog>, mut browser: ResMut<Browser>, battlefield: Option<Res<Battlefield>>) {
    if open.open {
        open.open = false;
        let current = battlefield.map(|b| PathBuf::from(&b.source));
        browser.dialog = Some((open_browser(current.as_deref()), Purpose::Open));
    }
    if save.open {
        save.open = false;
        browser.dialog = Some((save_browser("Save the game as", Path::new(&save.path)), Purpose::Save));
    }
}

fn browse(mut contexts: EguiContexts, mut browser: ResMut<Browser>, mut commands: Commands) -> Result {
    let Some((dialog, purpose)) = browser.dialog.as_mut() else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    dialog.update(ctx);
    let picked = dialog.take_picked();
    let closed = !matches!(dialog.state(), egui_file_dialog::DialogState::Open);
    let purpose = purpose.clone();
    if let Some(path) = picked {
        browser.dialog = None;
        match purpose {
            Purpose::Open => request_open(&mut commands, path),
            Purpose::Save => commands.queue(move |world: &mut World| {
                save_in_world(world, &path);
            }),
            Purpose::SaveThenOpen(then) => commands.queue(move |world: &mut World| {
                if save_in_world(world, &path).is_some() {
                    open_now(world, then);
                }
            }),
        }
    } else if closed {
        browser.dialog = None;
    }
    Ok(())
}

/// Save the game to `path` now (the session's status says how it went); `Some` if it was written.
fn save_in_world(world: &mut World, path: &Path) -> Option<()> {
    let saved = world.resource_mut::<Session>().save_to(path);
    if saved && let Some(mut s) = world.get_resource_mut::<Settings>() {
        s.remember(path);
    }
    saved.then_some(())
}

/// Load a scenario file in place of the current one. On any problem the world is untouched and
/// the problems come back as text, one `file:line:col: message` a line.
pub(crate) fn open_in_world(world: &mut World, path: &Path) -> Result<(), String> {
    let opening = Opening::read(path)?;
    // A save whose scenario was edited after the game would replay into a different game: the
    // window refuses it as `otp play` does without `--force`, saying what changed.
    if let Opening::Saved { source, changed, .. } = &opening
        && !changed.is_empty()
    {
        let message = crate::rules::engine::changed_message(source, changed);
        return Err(format!("{message}; `otp play {source} --force` plays it anyway"));
    }
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
    if let Some(mut s) = world.get_resource_mut::<Settings>() {
        s.remember(path);
    }
    Ok(())
}

/// Open `path`, unless that would throw away actions not yet saved: then ask first.
pub(crate) fn open_or_ask(world: &mut World, path: PathBuf) {
    if world.get_resource::<Session>().is_some_and(|s| s.unsaved()) {
        world.get_resource_or_init::<ConfirmOpen>().0 = Some(path);
        return;
    }
    open_now(world, path);
}

/// Open `path` now; a failure lands in `OpenDialog`.
fn open_now(world: &mut World, path: PathBuf) {
    let result = open_in_world(world, &path);
    if let Some(mut d) = world.get_resource_mut::<OpenDialog>() {
        match result {
            Ok(()) => d.error = None,
            Err(e) => d.error = Some((path.display().to_string(), e)),
        }
    }
}

/// Queue an open (asking first if the game in progress is unsaved).
pub(crate) fn request_open(commands: &mut Commands, path: PathBuf) {
    commands.queue(move |world: &mut World| open_or_ask(world, path));
}

/// Scenarios and saved games near at hand: `scenarios/` and the working folder, and the current
/// file's folder.
pub(crate) fn nearby_scenarios(current: &str) -> Vec<PathBuf> {
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

/// "The game in progress has unsaved actions": Save, then open (first); open without saving;
/// cancel.
fn confirm_open_window(mut contexts: EguiContexts, mut confirm: ResMut<ConfirmOpen>, session: Option<Res<Session>>, mut browser: ResMut<Browser>, mut commands: Commands) -> Result {
    let (Some(path), Some(session)) = (confirm.0.clone(), session) else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let n = session.engine().action_count();
    let mut choice = None;
    egui::Window::new("Save the game in progress?")
        .order(egui::Order::Foreground)
        .collapsible(false)
        .resizable(false)
        .default_width(440.0)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(format!("{} has {n} action{} not saved to a file. Opening {} puts it away.", session.engine().scenario().name, if n == 1 { "" } else { "s" }, path.display()));
            ui.add_space(6.0);
            ui.horizontal(|ui| {
                let save_label = match &session.save_path {
                    Some(p) => format!("💾 Save to {}, then open", p.file_name().map_or(String::new(), |n| n.to_string_lossy().to_string())),
                    None => "💾 Save as…, then open".to_string(),
                };
                if ui.button(RichText::new(save_label).strong()).clicked() || ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    choice = Some(1);
                }
                if ui.button("Open without saving").clicked() {
                    choice = Some(2);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    choice = Some(3);
                }
            });
        });
    match choice {
        Some(1) => {
            confirm.0 = None;
            match session.save_path.clone() {
                Some(to) => commands.queue(move |world: &mut World| {
                    if save_in_world(world, &to).is_some() {
                        open_now(world, path);
                    }
                }),
                None => {
                    let mut asked = SaveDialog::default();
                    asked.show(&session);
                    browser.dialog = Some((save_browser("Save the game, then open the other", Path::new(&asked.path)), Purpose::SaveThenOpen(path)));
                }
            }
        }
        Some(2) => {
            confirm.0 = None;
            commands.queue(move |world: &mut World| open_now(world, path));
        }
        Some(_) => confirm.0 = None,
        None => {}
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
        .order(egui::Order::Foreground)
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

    // Issue 12: a save of a scenario edited after the game is refused by Open, naming what
    // changed, and the table stays as it was.
    #[test]
    fn a_save_of_an_edited_scenario_is_refused_by_open() {
        let dir = std::env::temp_dir().join(format!("otp-ui-digest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let game = started();
        // The first objective worth a point more in the save's scenario than when it was played.
        let objective = &game.scenario().objectives[0];
        let name = objective.name.clone();
        let text = game.save_text();
        let at = text.find("objectives:").expect("the objectives in the save");
        let points = format!("points: {}", objective.points);
        let from = at + text[at..].find(&points).expect("its points");
        let edited = format!("{}points: {}{}", &text[..from], objective.points + 1, &text[from + points.len()..]);
        let path = dir.join("edited.ron");
        std::fs::write(&path, edited).unwrap();
        let mut world = World::new();
        spawn_scenario(&mut world, &crate::scenario::default_scenario(), "teaching");
        let before = table_entities(&mut world);
        let err = open_in_world(&mut world, &path).unwrap_err();
        assert!(err.contains(&name) && err.contains("--force"), "{err}");
        assert_eq!(table_entities(&mut world), before);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The teaching battle, seed 5, started: one action.
    fn started() -> Box<dyn crate::rules::engine::Engine> {
        let mut game = crate::rules::registry::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 5).unwrap();
        game.apply(crate::rules::action::Action::Next).unwrap();
        game
    }

    /// A world with a session whose game has one action (not saved to a file).
    fn playing() -> World {
        let mut world = World::new();
        let game = started();
        world.insert_resource(Battlefield { scenario: game.scenario().clone(), source: "teaching".into() });
        world.insert_resource(Session::from_engine(&*game));
        world.init_resource::<OpenDialog>();
        world.init_resource::<ConfirmOpen>();
        world.init_resource::<Settings>();
        world
    }

    // Issue 13, defect 5: Open used to throw away a game in progress without asking.
    #[test]
    fn opening_over_an_unsaved_game_asks_first_and_saving_first_keeps_it() {
        let dir = std::env::temp_dir().join(format!("otp-confirm-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let other = dir.join("other.ron");
        std::fs::write(&other, crate::scenario::DEFAULT_SCENARIO).unwrap();
        let mut world = playing();
        open_or_ask(&mut world, other.clone());
        assert_eq!(world.resource::<Session>().engine().action_count(), 1, "nothing thrown away yet");
        assert_eq!(world.resource::<ConfirmOpen>().0.as_deref(), Some(other.as_path()), "asked");
        // Save first: the game is in its file, then the other is open, and both are recent.
        let kept = dir.join("kept.ron");
        assert!(save_in_world(&mut world, &kept).is_some());
        open_now(&mut world, other.clone());
        let text = std::fs::read_to_string(&kept).unwrap();
        assert_eq!(crate::rules::registry::load_save(&text, "kept.ron").unwrap().action_count(), 1);
        assert_eq!(world.resource::<Session>().engine().action_count(), 0);
        assert_eq!(world.resource::<Battlefield>().source, other.display().to_string());
        let recent = &world.resource::<Settings>().recent;
        assert_eq!(recent.len(), 2, "{recent:?}");
        assert!(recent[0].ends_with("other.ron") && recent[1].ends_with("kept.ron"), "{recent:?}");
        // A game with nothing unsaved opens at once.
        let mut world = playing();
        let saved = dir.join("saved.ron");
        assert!(save_in_world(&mut world, &saved).is_some());
        open_or_ask(&mut world, other.clone());
        assert!(world.resource::<ConfirmOpen>().0.is_none());
        assert_eq!(world.resource::<Session>().engine().action_count(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
