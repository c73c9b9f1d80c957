//! The window: a view of the table. It reads the core's components and never decides a rule.
//!
//! Everything on the table is painted with egui from the same `picture` shapes that `otp render`
//! draws, so the window and the rendered set-up look alike. One plugin a file:
//!
//! - `camera`: the view transform (centre in inches, pixels an inch), keyboard pan and zoom, and
//!   `CentreOn(entity)`: a unit picked from a list (roster, log) brought into view.
//! - `toolbar`: the top bar (scenario name, Open…, Fit, Ruler, Help) and the F1 help window.
//! - `file_menu`: the Open window; a bad file shows its errors in red and changes nothing.
//! - `unit_sheet`: the side panel with the selected unit's sheet (OTP 4.2).
//! - `table_view`: the table itself, the troops, labels, hover, selection, scale bar.
//! - `ruler`: click-drag measuring, snapping edge to edge between stands.
//! - `overlays`: the teaching overlays (arcs, enfilade and flanks, line of sight, movement), their
//!   keys and legend; `table_view` paints their drawings.
//! - `screenshot`: `--screenshot` (save the first drawn frame, time it, exit) and the
//!   `OTP_SELECT` / `OTP_RULER` / `OTP_VIEW` / `OTP_HELP` / `OTP_OPEN` / `OTP_OVERLAYS` /
//!   `OTP_CURSOR` / `OTP_DRAG` presets for screenshots, and `OTP_IDLE` (frames drawn while idle).
//!
//! - `editor`: the set-up editor (`otp edit`): terrain and troops by mouse, forms, undo, live
//!   checks, save and play; the model is `crate::editor`.
//! - `session`: the game being played: `Order` (an engine action) and `SessionCommand` (undo,
//!   save, load) messages in, `Applied` / `Refused` out, autosave, and the mirror of the game's
//!   world that every view draws.
//!
//! `paint` is not a plugin: it turns picture shapes into egui shapes and places labels;
//! `backdrop` rasterises the unchanging terrain into one texture per zoom.

mod backdrop;
mod camera;
mod compare;
mod dice_overlay;
mod editor;
mod file_menu;
mod fire_orders;
mod keys;
pub mod lesson;
mod log;
mod orders;
mod overlays;
mod paint;
mod replay;
mod roster;
mod ruler;
mod screenshot;
mod settings;
pub mod session;
mod solo;
mod table_view;
mod toolbar;
mod turn_panel;
mod unit_sheet;
mod what_if;

use std::path::PathBuf;
use std::time::Instant;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy::winit::WinitSettings;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};

use crate::scenario::spawn::Battlefield;

/// How `otp play` runs the window.
#[derive(Resource, Clone, Debug, Default)]
pub struct RunOptions {
    /// Save a screenshot of the first drawn table here, then exit.
    pub screenshot: Option<PathBuf>,
    /// Open the saved game as a replay (`otp play SAVE --replay`).
    pub replay: bool,
    /// Take this lesson (`otp play --lesson NAME`): its name and text; the opening is its game.
    pub lesson: Option<(String, crate::lessons::Lesson)>,
    /// Open in the set-up editor (`otp edit [FILE]`): the scenario and its file.
    pub edit: Option<(crate::editor::Editor, Option<PathBuf>)>,
}

/// When `run` was called: the clock for "first frame after N ms".
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct StartTime(pub Instant);

/// The order of the egui pass: panels take their space first, then the table fills the rest,
/// then tools paint over the table, then floating windows.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UiSet {
    Begin,
    Toolbar,
    /// The replay bar, under the toolbar while a replay is shown.
    ReplayBar,
    Panels,
    Table,
    Tools,
    Windows,
}

/// The order of the side panels within [`UiSet::Panels`]: each takes its edge of what the one
/// before it left, so the order is the layout. Left in bevy's hands it changed whenever a system
/// was added anywhere in the pass (the log then ran under the unit sheet instead of beside it).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PanelOrder {
    /// The turn panel and roster: the whole height on the left.
    Left,
    /// The log: across the bottom, right of the turn panel.
    Bottom,
    /// The unit sheet: on the right, above the log.
    Right,
}

/// The part of the window not yet taken by a panel this frame; the table gets what is left.
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct FreeRect(pub egui::Rect);

impl Default for FreeRect {
    fn default() -> Self {
        FreeRect(egui::Rect::NOTHING)
    }
}

/// True once egui has the table's fonts (they take effect the pass after they are set).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct FontsReady(pub bool);

pub(crate) fn fonts_ready(r: Res<FontsReady>) -> bool {
    r.0
}

/// Window title for a scenario.
pub fn title(scenario_name: &str) -> String {
    format!("On to Philadelphia — {scenario_name}")
}

/// Open the window on a scenario and run until it is closed.
pub fn run(opening: session::Opening, options: RunOptions) {
    let start = Instant::now();
    // A screenshot is taken from frames drawn one after another; an idle count (`OTP_IDLE`), from
    // the window as a player has it: drawn only when something happens.
    let winit = if options.screenshot.is_some() && screenshot::idle_seconds().is_none() { WinitSettings::continuous() } else { WinitSettings::desktop_app() };
    let window = Window {
        title: title(&opening.scenario().name),
        resolution: WindowResolution::new(1280, 800),
        present_mode: present_mode(),
        ..default()
    };
    let exit = App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin { primary_window: Some(window), ..default() }))
        .add_plugins(EguiPlugin::default())
        .insert_resource(winit)
        .insert_resource(opening)
        .insert_resource(options)
        .insert_resource(StartTime(start))
        .add_plugins(plugin)
        .run();
    if let AppExit::Error(code) = exit {
        std::process::exit(code.get() as i32);
    }
}

/// `OTP_PRESENT=fifo|mailbox|immediate|novsync` (a frame-cost comparison, docs/performance.md);
/// bevy's default (fifo, with vsync) otherwise.
fn present_mode() -> bevy::window::PresentMode {
    use bevy::window::PresentMode;
    match std::env::var("OTP_PRESENT").unwrap_or_default().as_str() {
        "mailbox" => PresentMode::Mailbox,
        "immediate" => PresentMode::Immediate,
        "novsync" => PresentMode::AutoNoVsync,
        _ => PresentMode::Fifo,
    }
}

/// Everything the window adds to an app that already has the scenario's entities.
pub(crate) fn plugin(app: &mut App) {
    let bg = crate::picture::palette::BACKGROUND;
    app.insert_resource(ClearColor(Color::srgb_u8(bg[0], bg[1], bg[2])))
        .init_resource::<FreeRect>()
        .init_resource::<FontsReady>()
        .configure_sets(EguiPrimaryContextPass, (UiSet::Begin, UiSet::Toolbar, UiSet::ReplayBar, UiSet::Panels, UiSet::Table, UiSet::Tools, UiSet::Windows).chain())
        .configure_sets(EguiPrimaryContextPass, (PanelOrder::Left, PanelOrder::Bottom, PanelOrder::Right).chain().in_set(UiSet::Panels))
        // The set-up editor has its own panel: the game's are put away while it is open.
        .configure_sets(EguiPrimaryContextPass, UiSet::Panels.run_if(editor::not_editing))
        .add_systems(Startup, spawn_camera)
        .add_systems(EguiPrimaryContextPass, (setup_egui, begin_frame).chain().in_set(UiSet::Begin))
        .add_systems(Update, (retitle, size_to_screen))
        .add_systems(PreUpdate, only_changed_modifiers.after(bevy_egui::EguiPreUpdateSet::ProcessInput).before(bevy_egui::EguiPreUpdateSet::BeginPass))
        .add_plugins((camera::plugin, toolbar::plugin, file_menu::plugin, unit_sheet::plugin, table_view::plugin, ruler::plugin, overlays::plugin, screenshot::plugin, session::plugin))
        .add_plugins((turn_panel::plugin, solo::plugin, orders::plugin, fire_orders::plugin, dice_overlay::plugin, log::plugin))
        .add_plugins((settings::plugin, overlays::trail::plugin, overlays::planned::plugin, overlays::command::plugin, replay::plugin, compare::plugin, what_if::plugin, lesson::plugin, editor::plugin));
}

/// The camera only clears the background (egui draws everything, antialiased itself), so
/// multisampling buys nothing and costs a tenth of a software-rendered frame.
fn spawn_camera(mut commands: Commands) {
    commands.spawn((Camera2d, bevy::render::view::Msaa::Off));
}

/// The table's fonts (DejaVu Sans, as `otp render` uses) and a tidy dark style, once.
fn setup_egui(mut contexts: EguiContexts, mut done: Local<bool>, mut ready: ResMut<FontsReady>, options: Option<Res<RunOptions>>) -> Result {
    if *done {
        if !ready.0 {
            ready.0 = true;
        }
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert("dejavu".into(), std::sync::Arc::new(egui::FontData::from_static(include_bytes!("../../assets/fonts/DejaVuSans.ttf"))));
    fonts.font_data.insert("dejavu-bold".into(), std::sync::Arc::new(egui::FontData::from_static(include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf"))));
    let fallback = fonts.families.get(&egui::FontFamily::Proportional).cloned().unwrap_or_default();
    let with = |first: &str| std::iter::once(first.to_string()).chain(fallback.iter().cloned()).collect::<Vec<_>>();
    fonts.families.insert(paint::table_font(), with("dejavu"));
    fonts.families.insert(paint::table_font_bold(), with("dejavu-bold"));
    ctx.set_fonts(fonts);
    ctx.set_visuals(egui::Visuals::dark());
    // A screenshot shows windows as they settle, never half faded in.
    let shooting = options.is_some_and(|o| o.screenshot.is_some());
    ctx.all_styles_mut(|style| {
        if shooting {
            style.animation_time = 0.0;
        }
        style.spacing.item_spacing = egui::vec2(8.0, 5.0);
        style.spacing.button_padding = egui::vec2(8.0, 3.0);
        style.interaction.tooltip_delay = 0.2;
    });
    *done = true;
    Ok(())
}

/// bevy_egui 0.42 tells egui "the modifier keys changed" on every update, pressed or not, and
/// egui repaints at once after any input event: the idle window redrew without end (issue 13,
/// defect 1). egui keeps the modifiers between passes, so only a real change is passed on.
fn only_changed_modifiers(mut inputs: Query<(Entity, &mut bevy_egui::EguiInput)>, mut last: Local<bevy::platform::collections::HashMap<Entity, egui::Modifiers>>) {
    for (e, mut input) in &mut inputs {
        let mut seen = last.get(&e).copied();
        input.0.events.retain(|ev| match ev {
            egui::Event::ModifiersChanged(m) if seen == Some(*m) => false,
            egui::Event::ModifiersChanged(m) => {
                seen = Some(*m);
                true
            }
            _ => true,
        });
        if let Some(m) = seen {
            last.insert(e, m);
        }
    }
}

fn begin_frame(mut contexts: EguiContexts, mut free: ResMut<FreeRect>, mut debug: Local<Option<bool>>) -> Result {
    free.0 = contexts.ctx_mut()?.content_rect();
    // `OTP_DEBUG_REPAINT=1`: why each pass was drawn (what asked egui to repaint, and the input
    // events it got), the way defect 1 of issue 13 was found.
    if *debug.get_or_insert_with(|| std::env::var("OTP_DEBUG_REPAINT").is_ok()) {
        let ctx = contexts.ctx_mut()?;
        eprintln!("pass {}: repaint asked by {:?}, events {:?}", ctx.cumulative_pass_nr(), ctx.repaint_causes(), ctx.input(|i| i.events.clone()));
    }
    Ok(())
}

/// A root `Ui` over the space the panels have left, on the background layer.
pub(crate) fn root_ui(ctx: &egui::Context, id: &'static str, rect: egui::Rect) -> egui::Ui {
    egui::Ui::new(ctx.clone(), id.into(), egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(rect))
}

/// The largest window opened on a big screen, logical points: a wider table gains little, and
/// the panels stay within reach.
const LARGEST_WINDOW: Vec2 = Vec2::new(1920.0, 1200.0);

/// Once the screen is known: the window takes the whole screen (at most `LARGEST_WINDOW`,
/// centred) and asks the window manager to maximise it, which keeps it to the work area (clear of
/// taskbars). The table is fitted again when the new size arrives (`table_view`).
fn size_to_screen(mut done: Local<bool>, monitors: Query<&bevy::window::Monitor, With<bevy::window::PrimaryMonitor>>, mut windows: Query<&mut Window, With<bevy::window::PrimaryWindow>>) {
    if *done {
        return;
    }
    // The `OTP_WINDOW` preset (settings.rs) asks for a size of its own: leave it.
    if std::env::var_os("OTP_WINDOW").is_some() {
        *done = true;
        return;
    }
    let (Ok(monitor), Ok(mut window)) = (monitors.single(), windows.single_mut()) else { return };
    *done = true;
    let screen = Vec2::new(monitor.physical_width as f32, monitor.physical_height as f32) / monitor.scale_factor.max(0.5) as f32;
    if screen.min_element() < 100.0 {
        return;
    }
    let size = screen.min(LARGEST_WINDOW);
    window.resolution.set(size.x, size.y);
    window.position = bevy::window::WindowPosition::Centered(bevy::window::MonitorSelection::Primary);
    if size == screen {
        window.set_maximized(true);
    }
}

fn retitle(battlefield: Option<Res<Battlefield>>, mut windows: Query<&mut Window, With<bevy::window::PrimaryWindow>>) {
    let Some(b) = battlefield else { return };
    if !b.is_changed() {
        return;
    }
    for mut w in &mut windows {
        let t = title(&b.scenario.name);
        if w.title != t {
            w.title = t;
        }
    }
}

