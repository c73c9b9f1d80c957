//! What the window remembers between evenings: which panels are folded, the text size and the
//! recent files. One small RON file in the data folder (`settings.ron` beside the autosave),
//! written atomically whenever a setting changes; a bad file is reported once, plainly, with
//! its `file:line:col`, and the defaults are used (the file is left as it is until a setting
//! changes).
//!
//! Preset: `OTP_WINDOW=1024x640` sizes the window (screenshots of a small screen).
//!
//! Also here: the egui style every panel reads (the text-size zoom, no text under 11 px, text
//! light enough to read on the dark panels) and the thin strips that unfold a folded panel.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use serde::{Deserialize, Serialize};

use super::session::Session;
use super::{FreeRect, UiSet, root_ui};

/// The smallest text the window draws, in screen pixels at the smallest text size.
pub(crate) const MIN_TEXT_PX: f32 = 11.0;
/// The text-size setting's range (egui's zoom factor): never smaller than egui's own sizes.
pub(crate) const TEXT_SIZES: std::ops::RangeInclusive<f32> = 1.0..=1.75;
/// How many recent files are remembered.
const RECENT: usize = 8;

/// A panel that folds away to give the table room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    /// The turn panel and the roster (left).
    Turn,
    /// The unit sheet (right).
    Sheet,
    /// The game log (bottom).
    Log,
}

/// What the left panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum LeftTab {
    #[default]
    Turn,
    Roster,
}

/// The remembered settings.
#[derive(Resource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Settings {
    /// The turn panel (and roster) is unfolded.
    pub turn_panel: bool,
    /// The unit sheet is unfolded.
    pub unit_sheet: bool,
    /// The log is unfolded.
    pub log: bool,
    /// The left panel's tab.
    pub left_tab: LeftTab,
    /// Each unit's last move drawn on the table.
    pub trail: bool,
    /// egui's zoom factor: every text and control larger.
    pub text_size: f32,
    /// Files opened or saved, newest first.
    pub recent: Vec<PathBuf>,
    /// Lessons completed, by name.
    pub lessons_done: Vec<String>,
    /// Lessons begun and not finished: the step reached (0-based), to resume there.
    pub lessons_at: Vec<(String, usize)>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { turn_panel: true, unit_sheet: true, log: true, left_tab: LeftTab::Turn, trail: true, text_size: 1.0, recent: Vec::new(), lessons_done: Vec::new(), lessons_at: Vec::new() }
    }
}

impl Settings {
    pub fn shown(&self, fold: Fold) -> bool {
        match fold {
            Fold::Turn => self.turn_panel,
            Fold::Sheet => self.unit_sheet,
            Fold::Log => self.log,
        }
    }

    pub fn toggle(&mut self, fold: Fold) {
        let on = match fold {
            Fold::Turn => &mut self.turn_panel,
            Fold::Sheet => &mut self.unit_sheet,
            Fold::Log => &mut self.log,
        };
        *on = !*on;
    }

    /// Put a file at the head of the recent files (once), keeping the newest few.
    pub fn remember(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT);
    }

    /// Read settings: a missing file is the defaults; a bad one is the defaults and the problem
    /// as `file:line:col: message`.
    pub fn read(path: &Path) -> (Settings, Option<String>) {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Settings::default(), None),
            Err(e) => return (Settings::default(), Some(format!("{}: {e}; using the default settings", path.display()))),
        };
        match ron::from_str::<Settings>(&text) {
            Ok(mut s) => {
                s.text_size = if s.text_size.is_finite() { s.text_size.clamp(*TEXT_SIZES.start(), *TEXT_SIZES.end()) } else { 1.0 };
                s.recent.truncate(RECENT);
                (s, None)
            }
            Err(e) => {
                let at = e.span.start;
                (Settings::default(), Some(format!("{}:{}:{}: {}; using the default settings", path.display(), at.line, at.col, e.code)))
            }
        }
    }

    /// Write settings atomically, creating the data folder.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let config = ron::ser::PrettyConfig::new().struct_names(false);
        let text = ron::ser::to_string_pretty(self, config).map_err(std::io::Error::other)?;
        crate::scenario::write_atomically(path, &text)
    }
}

/// Run condition: the panel is unfolded.
pub(crate) fn shown(fold: Fold) -> impl FnMut(Option<Res<Settings>>) -> bool + Clone {
    move |s: Option<Res<Settings>>| s.is_none_or(|s| s.shown(fold))
}

/// The folder the window keeps its files in (autosave, settings): `~/.local/share/otp` on Linux.
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "otp").map(|d| d.data_dir().to_path_buf())
}

/// The settings file: `OTP_SETTINGS` if set (empty: none), else `settings.ron` in the data folder.
pub fn settings_path() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("OTP_SETTINGS") {
        return (!p.is_empty()).then(|| PathBuf::from(p));
    }
    data_dir().map(|d| d.join("settings.ron"))
}

/// Where the settings live and what was last written (or read) there.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct SettingsFile {
    /// `None`: not remembered (screenshots, tests).
    pub path: Option<PathBuf>,
    written: Option<Settings>,
    /// A problem already reported: not again.
    reported: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Settings>()
        .init_resource::<SettingsFile>()
        .add_systems(PreStartup, load)
        .add_systems(Update, (report_problem, store).chain())
        .add_systems(EguiPrimaryContextPass, (style.in_set(UiSet::Begin), fold_strips.in_set(UiSet::Panels)));
}

/// A problem with the settings file, waiting to be told once.
#[derive(Resource, Clone, Debug)]
struct Problem(String);

/// Read the settings before anything is drawn. Screenshots and tests neither read nor write the
/// player's settings unless `OTP_SETTINGS` names a file.
fn load(world: &mut World) {
    window_size_preset(world);
    let shooting = world.get_resource::<super::RunOptions>().is_some_and(|o| o.screenshot.is_some());
    let path = if shooting && std::env::var_os("OTP_SETTINGS").is_none() { None } else { settings_path() };
    let Some(path) = path else { return };
    let (settings, problem) = Settings::read(&path);
    world.insert_resource(SettingsFile { path: Some(path), written: Some(settings.clone()), reported: false });
    world.insert_resource(settings);
    if let Some(p) = problem {
        world.insert_resource(Problem(p));
    }
}

/// `OTP_WINDOW=1024x640`: the window's size in logical pixels (screenshots of small screens).
fn window_size_preset(world: &mut World) {
    let Ok(text) = std::env::var("OTP_WINDOW") else { return };
    let size = text.split_once('x').and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    let Some((w, h)) = size.filter(|&(w, h)| (320..=8192).contains(&w) && (240..=8192).contains(&h)) else {
        eprintln!("OTP_WINDOW={text:?}: expected WIDTHxHEIGHT, e.g. 1024x640; ignored");
        return;
    };
    let mut q = world.query_filtered::<&mut Window, With<bevy::window::PrimaryWindow>>();
    for mut window in q.iter_mut(world) {
        window.resolution.set(w as f32, h as f32);
    }
}

/// Say once, on the status line, what was wrong with the settings file.
fn report_problem(mut commands: Commands, problem: Option<Res<Problem>>, session: Option<ResMut<Session>>) {
    let (Some(problem), Some(mut session)) = (problem, session) else { return };
    warn!("{}", problem.0);
    session.status = Some((problem.0.clone(), true));
    commands.remove_resource::<Problem>();
}

/// Write the settings when they change; a failure is told once and play goes on.
fn store(settings: Res<Settings>, mut file: ResMut<SettingsFile>, session: Option<ResMut<Session>>) {
    if !settings.is_changed() || file.written.as_ref() == Some(&*settings) {
        return;
    }
    let Some(path) = file.path.clone() else { return };
    file.written = Some(settings.clone());
    if let Err(e) = settings.write(&path) {
        if !file.reported {
            file.reported = true;
            let text = format!("settings not remembered: cannot write {}: {e}", path.display());
            warn!("{text}");
            if let Some(mut s) = session {
                s.status = Some((text, true));
            }
        }
    } else {
        file.reported = false;
    }
}

/// egui's style from the settings: the text size (zoom), no text under 11 px, light text.
fn style(mut contexts: EguiContexts, mut settings: ResMut<Settings>, mut applied: Local<Option<f32>>, mut styled: Local<bool>, ready: Res<super::FontsReady>) -> Result {
    let ctx = contexts.ctx_mut()?;
    if let Some(size) = zoomed_by_keys(*applied, ctx.zoom_factor()) {
        // egui's own Ctrl+= / Ctrl+− changed the zoom: it is the text size, saved like the menu's.
        settings.text_size = size;
    }
    if *applied != Some(settings.text_size) {
        ctx.set_zoom_factor(settings.text_size);
        *applied = Some(settings.text_size);
    }
    // After the window's own set-up (which sets the dark visuals on the first pass).
    if ready.0 && !*styled {
        *styled = true;
        ctx.all_styles_mut(readable);
    }
    Ok(())
}

/// The text size egui's keyboard zoom chose, when it changed the zoom we last applied
/// (`applied`); within [`TEXT_SIZES`].
fn zoomed_by_keys(applied: Option<f32>, zoom: f32) -> Option<f32> {
    let applied = applied?;
    ((zoom - applied).abs() > 1e-3 && zoom.is_finite()).then(|| zoom.clamp(*TEXT_SIZES.start(), *TEXT_SIZES.end()))
}

/// No text under [`MIN_TEXT_PX`]; labels and weak text light enough on the dark panels
/// (egui's dark defaults are grey 140 and a dim grey on grey 27).
pub(crate) fn readable(style: &mut egui::Style) {
    for font in style.text_styles.values_mut() {
        font.size = font.size.max(MIN_TEXT_PX);
    }
    style.visuals.widgets.noninteractive.fg_stroke.color = egui::Color32::from_gray(205);
    style.visuals.weak_text_color = Some(egui::Color32::from_gray(165));
}

/// A folded panel leaves a thin strip at its edge: click it to unfold.
fn fold_strips(mut contexts: EguiContexts, mut free: ResMut<FreeRect>, mut settings: ResMut<Settings>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    for fold in [Fold::Turn, Fold::Sheet, Fold::Log] {
        if settings.shown(fold) {
            continue;
        }
        let mut root = root_ui(&ctx, "fold_strip_root", free.0);
        let (panel, label, what) = match fold {
            Fold::Turn => (egui::Panel::left("fold_turn"), "▶", "Unfold the turn panel and the roster (F2)"),
            Fold::Sheet => (egui::Panel::right("fold_sheet"), "◀", "Unfold the unit sheet (F3)"),
            Fold::Log => (egui::Panel::bottom("fold_log"), "Show the log (F4)", "Unfold the game log (F4)"),
        };
        let response = panel.resizable(false).exact_size(24.0).show(&mut root, |ui| {
            ui.add_space(2.0);
            if ui.add(egui::Button::new(label).frame(false)).on_hover_text(what).clicked() {
                settings.toggle(fold);
            }
        });
        let r = response.response.rect;
        match fold {
            Fold::Turn => free.0.min.x = free.0.min.x.max(r.max.x),
            Fold::Sheet => free.0.max.x = free.0.max.x.min(r.min.x),
            Fold::Log => free.0.max.y = free.0.max.y.min(r.min.y),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("otp-settings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn settings_round_trip_into_a_new_folder() {
        let d = dir("round");
        let path = d.join("deeper/settings.ron");
        let mut s = Settings { turn_panel: false, text_size: 1.3, ..Settings::default() };
        s.remember(Path::new("/tmp/a.ron"));
        s.remember(Path::new("/tmp/b.ron"));
        s.remember(Path::new("/tmp/a.ron"));
        assert_eq!(s.recent, vec![PathBuf::from("/tmp/a.ron"), PathBuf::from("/tmp/b.ron")], "newest first, once each");
        s.write(&path).expect("the folder is created");
        assert_eq!(Settings::read(&path), (s, None));
        let _ = std::fs::remove_dir_all(&d);
    }

    // Issue 13: egui's Ctrl+= / Ctrl+− zoom is the text-size setting, kept and saved; nothing
    // changes until a zoom was applied, or while the zoom is the one applied.
    #[test]
    fn keyboard_zoom_becomes_the_text_size() {
        assert_eq!(zoomed_by_keys(None, 1.3), None);
        assert_eq!(zoomed_by_keys(Some(1.0), 1.0), None);
        assert_eq!(zoomed_by_keys(Some(1.0), 1.1), Some(1.1));
        assert_eq!(zoomed_by_keys(Some(1.0), 9.0), Some(*TEXT_SIZES.end()));
        assert_eq!(zoomed_by_keys(Some(1.0), 0.2), Some(*TEXT_SIZES.start()));
        assert_eq!(zoomed_by_keys(Some(1.0), f32::NAN), None);
    }

    #[test]
    fn a_bad_settings_file_is_reported_with_its_place_and_ignored() {
        let d = dir("bad");
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("settings.ron");
        std::fs::write(&path, "(\n  turn_panel: false,\n  text_size: \"big\",\n)").unwrap();
        let (s, problem) = Settings::read(&path);
        assert_eq!(s, Settings::default());
        let problem = problem.expect("a problem");
        assert!(problem.starts_with(&format!("{}:3:", path.display())), "{problem}");
        // A missing file is no problem; an absurd size is brought into range.
        assert_eq!(Settings::read(&d.join("none.ron")), (Settings::default(), None));
        std::fs::write(&path, "(text_size: 40.0)").unwrap();
        assert_eq!(Settings::read(&path).0.text_size, *TEXT_SIZES.end());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The headless app: settings from a file, the session for the status line.
    fn app(path: &Path) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .insert_resource(SettingsFile { path: Some(path.to_path_buf()), written: None, reported: false })
            .init_resource::<Settings>()
            .insert_resource(Session::from_engine(&*crate::rules::registry::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap()))
            .add_systems(Update, (report_problem, store).chain());
        let (s, problem) = Settings::read(path);
        app.insert_resource(s);
        if let Some(p) = problem {
            app.insert_resource(Problem(p));
        }
        app
    }

    #[test]
    fn a_changed_setting_is_written_and_a_bad_file_is_told_once() {
        let d = dir("app");
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("settings.ron");
        std::fs::write(&path, "(log: maybe)").unwrap();
        let mut app = app(&path);
        app.update();
        let status = app.world().resource::<Session>().status.clone().expect("told");
        assert!(status.1 && status.0.contains("settings.ron:1:"), "{status:?}");
        app.world_mut().resource_mut::<Session>().status = None;
        app.update();
        assert!(app.world().resource::<Session>().status.is_none(), "told once");
        app.world_mut().resource_mut::<Settings>().log = false;
        app.update();
        assert!(!Settings::read(&path).0.log, "the fold is remembered");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn no_text_under_eleven_pixels() {
        let mut style = egui::Style::default();
        readable(&mut style);
        for (name, font) in &style.text_styles {
            assert!(font.size * TEXT_SIZES.start() >= MIN_TEXT_PX, "{name:?} is {} px", font.size);
        }
        // Weak text against the panel: at least 4.5:1 contrast (WCAG AA) in the dark style.
        let v = egui::Visuals::dark();
        let lum = |c: egui::Color32| {
            let f = |x: u8| {
                let x = x as f32 / 255.0;
                if x <= 0.03928 { x / 12.92 } else { ((x + 0.055) / 1.055).powf(2.4) }
            };
            0.2126 * f(c.r()) + 0.7152 * f(c.g()) + 0.0722 * f(c.b())
        };
        let contrast = |a: egui::Color32, b: egui::Color32| (lum(a).max(lum(b)) + 0.05) / (lum(a).min(lum(b)) + 0.05);
        let mut styled = egui::Style { visuals: v.clone(), ..egui::Style::default() };
        readable(&mut styled);
        assert!(contrast(v.weak_text_color(), v.panel_fill) < 4.5, "egui's own weak text is grey on grey");
        assert!(contrast(styled.visuals.weak_text_color(), styled.visuals.panel_fill) >= 4.5);
        assert!(contrast(styled.visuals.text_color(), styled.visuals.panel_fill) >= 7.0);
    }
}
