//! The window: a view of the table. It reads the core's components and never decides a rule.
//!
//! Everything on the table is painted with egui from the same `picture` shapes that `otp render`
//! draws, so the window and the rendered set-up look alike. One plugin a file:
//!
//! - `camera`: the view transform (centre in inches, pixels an inch), keyboard pan and zoom.
//! - `toolbar`: the top bar (scenario name, Open…, Fit, Ruler, Help) and the F1 help window.
//! - `file_menu`: the Open window; a bad file shows its errors in red and changes nothing.
//! - `unit_sheet`: the side panel with the selected unit's sheet (OTP 4.2).
//! - `table_view`: the table itself, the troops, labels, hover, selection, scale bar.
//! - `ruler`: click-drag measuring, snapping edge to edge between stands.
//! - `overlays`: the teaching overlays (arcs, enfilade and flanks, line of sight, movement), their
//!   keys and legend; `table_view` paints their drawings.
//! - `screenshot`: `--screenshot` (save the first drawn frame, time it, exit) and the
//!   `OTP_SELECT` / `OTP_RULER` / `OTP_VIEW` / `OTP_HELP` / `OTP_OPEN` / `OTP_OVERLAYS` /
//!   `OTP_CURSOR` / `OTP_DRAG` presets for screenshots.
//!
//! - `session`: the game being played: `Order` (an engine action) and `SessionCommand` (undo,
//!   save, load) messages in, `Applied` / `Refused` out, autosave, and the mirror of the game's
//!   world that every view draws.
//!
//! `paint` is not a plugin: it turns picture shapes into egui shapes and places labels.

mod camera;
mod dice_overlay;
mod file_menu;
mod fire_orders;
mod log;
mod orders;
mod overlays;
mod paint;
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
    Panels,
    Table,
    Tools,
    Windows,
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
    let winit = if options.screenshot.is_some() { WinitSettings::continuous() } else { WinitSettings::desktop_app() };
    let window = Window {
        title: title(match &opening {
            session::Opening::Scenario { scenario, .. } => &scenario.name,
            session::Opening::Saved { save, .. } => &save.scenario.name,
        }),
        resolution: WindowResolution::new(1280, 800),
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

/// Everything the window adds to an app that already has the scenario's entities.
pub(crate) fn plugin(app: &mut App) {
    let bg = crate::picture::palette::BACKGROUND;
    app.insert_resource(ClearColor(Color::srgb_u8(bg[0], bg[1], bg[2])))
        .init_resource::<FreeRect>()
        .init_resource::<FontsReady>()
        .configure_sets(EguiPrimaryContextPass, (UiSet::Begin, UiSet::Toolbar, UiSet::Panels, UiSet::Table, UiSet::Tools, UiSet::Windows).chain())
        .add_systems(Startup, spawn_camera)
        .add_systems(EguiPrimaryContextPass, (setup_egui, begin_frame).chain().in_set(UiSet::Begin))
        .add_systems(Update, retitle)
        .add_plugins((camera::plugin, toolbar::plugin, file_menu::plugin, unit_sheet::plugin, table_view::plugin, ruler::plugin, overlays::plugin, screenshot::plugin, session::plugin))
        .add_plugins((turn_panel::plugin, solo::plugin, orders::plugin, fire_orders::plugin, dice_overlay::plugin, log::plugin))
        .add_plugins((settings::plugin, roster::plugin, overlays::trail::plugin));
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

fn begin_frame(mut contexts: EguiContexts, mut free: ResMut<FreeRect>) -> Result {
    free.0 = contexts.ctx_mut()?.content_rect();
    Ok(())
}

/// A root `Ui` over the space the panels have left, on the background layer.
pub(crate) fn root_ui(ctx: &egui::Context, id: &'static str, rect: egui::Rect) -> egui::Ui {
    egui::Ui::new(ctx.clone(), id.into(), egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(rect))
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
