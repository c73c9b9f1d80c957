//! `otp play --screenshot PATH`: once the table has been painted a few times, save the window to
//! PATH, print `first frame after N ms`, and exit.
//!
//! Presets for screenshots and manual checks, read from the environment at start:
//! - `OTP_SELECT="23rd Foot"`: select that unit (its sheet shows).
//! - `OTP_RULER="x1,y1,x2,y2"`: the ruler on, from (x1, y1) to (x2, y2) in table inches.
//! - `OTP_VIEW="cx,cy,ppi"`: centre the view on (cx, cy) inches at ppi screen points an inch.
//! - `OTP_HELP=1`: the help window open (`OTP_HELP=legend`: on its legend, shortcuts folded).
//! - `OTP_OPEN=path`: open that file as from the Open window (a bad file shows its errors).
//! - `OTP_HOVER="x,y"`: show the tooltip of whatever is at (x, y) inches (screenshots only).
//! - `OTP_OVERLAYS="arcs,enfilade,sight,movement"`: turn teaching overlays on (also `all`, `ball`).
//! - `OTP_CURSOR="x,y"`: the pointer at (x, y) inches, as `OTP_HOVER`: the sight overlay's target.
//! - `OTP_DRAG="x1,y1,x2,y2[,x3,y3…][,shift]"`: drag the selected unit from the first point
//!   through the others and release (Movement overlay); `shift` for a side step.
//! - `OTP_ORDERS="[StartGame, DrawChit, Fire(unit: \"A\", target: \"B\")]"`: actions in the common
//!   words or the rule set's own (RON, as in a save) sent one a frame as `Order` messages, the path the mouse and panels use: a refused one
//!   is shown refused, in the log.
//! - `OTP_COMMANDS="undo,save:PATH,export:PATH,restart,load:PATH,ask:save"`: after the orders, one a
//!   frame: session commands (`export` writes the log as text; `ask:save|new|open` opens the
//!   toolbar's Save as…, New game or Open window; `watch`, `replay:N` and `playon` drive a replay; `whatif` starts what-if).
//! - `OTP_MOUSE_DRAG="x1,y1,x2,y2,frames"`: press the left button at (x1, y1) inches, move to
//!   (x2, y2) over `frames` frames and release, as window pointer events (so egui, the table and
//!   the overlays see a real drag); prints the frame times while dragging (mean, p95, max).
//!
//! - `OTP_AUTO_ORDERS=N`: with `OTP_AUTO` (solo.rs), wait until the automatic player has sent N
//!   orders (its reasons then fill the log and the solo panel).
//!
//! With any of the last four the screenshot waits until they are done.
//! - `OTP_IDLE=SECONDS` (without `--screenshot`): the window as a player has it (drawn only on
//!   input); once the presets and the script are done and two seconds have passed, count the
//!   frames drawn over SECONDS with nothing happening, print `idle: N frames in S s, CPU P% of a
//!   core` and exit.
//! - `OTP_BACKDROP=vector`: the terrain painted as shapes every frame rather than as one cached
//!   image (a frame-cost comparison, docs/performance.md).
//! - `OTP_MSAA=on`: the camera with bevy's default 4x multisampling (a frame-time comparison, docs/performance.md).
//! - `OTP_LOG=collapsed` or `brief`: the log panel folded, or without dice and modifiers (log.rs).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::diagnostic::FrameCount;
use bevy::window::{CursorMoved, PrimaryWindow, RequestRedraw, WindowEvent};
use bevy::winit::{EventLoopProxyWrapper, WinitUserEvent};

use super::camera::View;
use super::fire_orders;
use super::file_menu::{self, OpenDialog, SaveDialog};
use super::log::{self, GameLog};
use super::session::{Order, Session, SessionCommand};
use super::solo::SoloState;
use super::overlays::{MoveDrag, Overlays};
use super::ruler::Ruler;
use super::table_view::{HoverPreset, Selection, TableFrames};
use super::toolbar::{ConfirmNew, Help};
use super::{RunOptions, StartTime};
use crate::rules::action::Action;
use crate::scenario::spawn::Unit;

/// Frames of the table to wait for before the shot: egui's fonts and the first layout settle.
const FRAMES_BEFORE_SHOT: u32 = 4;
/// Give up if the capture has not come back after this many frames.
const MAX_FRAMES_WAITING: u32 = 600;

#[derive(Default)]
struct ShotState {
    requested_at: Option<u32>,
    captured: Arc<AtomicBool>,
    /// The capture came back all black (the software renderer now and then hands over a frame
    /// not yet drawn): take it again.
    blank: Arc<AtomicBool>,
    retries: u32,
    frames_since_capture: u32,
}

/// Shots taken again at most, when they come back black.
const MAX_RETRIES: u32 = 3;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Script>().add_systems(PostStartup, (presets, script_presets)).add_systems(First, |mut s: ResMut<FrameStart>| s.0 = Some(Instant::now()))
        .init_resource::<FrameStart>()
        .add_systems(Update, run_script).add_systems(Last, (mouse_drag, shoot, idle_check).chain());
}

/// When this frame's update began.
#[derive(Resource, Default)]
struct FrameStart(Option<Instant>);

/// What to do at start, a step a frame: orders, then session commands, then a mouse drag.
#[derive(Resource, Default, Debug)]
pub(crate) struct Script {
    orders: VecDeque<Action>,
    commands: VecDeque<Step>,
    drag: Option<MouseDrag>,
    /// The automatic player's orders to wait for (`OTP_AUTO_ORDERS`).
    automatic: usize,
    /// Frames since the last step was taken.
    idle: u32,
}

#[derive(Clone, Debug)]
enum Step {
    Session(SessionCommand),
    /// Write the log as text here.
    Export(PathBuf),
    /// Open one of the toolbar's windows: `save` (Save as…), `new` (the new-game question), `open`.
    Ask(String),
}

impl Script {
    fn busy(&self) -> bool {
        !self.orders.is_empty() || !self.commands.is_empty() || self.drag.is_some()
    }
}

/// A left-button drag in table inches over so many frames, and the frame times seen.
#[derive(Debug)]
struct MouseDrag {
    from: Vec2,
    to: Vec2,
    frames: u32,
    done: u32,
    last: Option<Instant>,
    times: Vec<Duration>,
    /// From `First` to `Last` of each frame: the app's own update (input, egui, the table, the
    /// panels), without the render, which bevy runs beside the next update.
    updates: Vec<Duration>,
    /// The pointer sent last frame (table inches), and the frames whose move ghost (the Movement
    /// overlay's drag) had not caught up with it by the end of the next update.
    sent: Option<Vec2>,
    ghost_behind: u32,
    ghost_checked: u32,
    /// The process's CPU seconds when the drag began: CPU time a frame, whatever else the
    /// machine is doing.
    cpu_at_start: Option<f64>,
    /// Each thread's CPU seconds when the drag began, by thread name.
    threads_at_start: Vec<(String, f64)>,
}

/// `undo,save:PATH,export:PATH,restart,load:PATH,resume,watch,replay:N,playon`.
fn parse_commands(text: &str) -> Result<Vec<Step>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (verb, arg) = t.split_once(':').map_or((t, None), |(v, a)| (v, Some(PathBuf::from(a.trim()))));
            match (verb.trim().to_ascii_lowercase().as_str(), arg) {
                ("undo", None) => Ok(Step::Session(SessionCommand::Undo)),
                ("restart", None) => Ok(Step::Session(SessionCommand::Restart)),
                ("resume", None) => Ok(Step::Session(SessionCommand::Resume)),
                ("watch", None) => Ok(Step::Session(SessionCommand::Watch)),
                ("playon", None) => Ok(Step::Session(SessionCommand::PlayOn)),
                ("whatif", None) => Ok(Step::Session(SessionCommand::WhatIf)),
                ("replay", Some(n)) if n.to_str().and_then(|n| n.parse::<usize>().ok()).is_some() => Ok(Step::Session(SessionCommand::ReplayTo(n.to_str().and_then(|n| n.parse().ok()).unwrap_or(0)))),
                ("save", Some(p)) => Ok(Step::Session(SessionCommand::Save(p))),
                ("load", Some(p)) => Ok(Step::Session(SessionCommand::Load(p))),
                ("export", Some(p)) => Ok(Step::Export(p)),
                ("ask", Some(p)) if ["save", "new", "open"].contains(&p.to_str().unwrap_or_default()) => Ok(Step::Ask(p.display().to_string())),
                _ => Err(format!("{t:?}: expected undo, restart, resume, save:PATH, load:PATH, export:PATH, ask:save|new|open, watch, replay:N, playon or whatif")),
            }
        })
        .collect()
}

fn script_presets(mut script: ResMut<Script>, mut commands: Commands, cameras: Query<Entity, With<Camera>>) {
    // Diagnosis of frame time on a software renderer: bevy's default 4x multisampling back on.
    if std::env::var("OTP_MSAA").is_ok_and(|v| v == "on") {
        for c in &cameras {
            commands.entity(c).insert(bevy::render::view::Msaa::Sample4);
        }
    }
    if let Ok(text) = std::env::var("OTP_ORDERS") {
        match ron::Options::default().from_str::<Vec<Action>>(&text) {
            Ok(v) => script.orders = v.into(),
            Err(e) => eprintln!("OTP_ORDERS: {e}; ignored"),
        }
    }
    if let Ok(text) = std::env::var("OTP_AUTO_ORDERS") {
        match text.trim().parse() {
            Ok(n) => script.automatic = n,
            Err(e) => eprintln!("OTP_AUTO_ORDERS={text:?}: {e}; ignored"),
        }
    }
    if let Ok(text) = std::env::var("OTP_COMMANDS") {
        match parse_commands(&text) {
            Ok(v) => script.commands = v.into(),
            Err(e) => eprintln!("OTP_COMMANDS: {e}; ignored"),
        }
    }
    if let Ok(text) = std::env::var("OTP_MOUSE_DRAG") {
        let v: Vec<f32> = text.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        if v.len() == 5 && v.iter().all(|x| x.is_finite()) && v[4] >= 1.0 {
            script.drag = Some(MouseDrag { from: Vec2::new(v[0], v[1]), to: Vec2::new(v[2], v[3]), frames: v[4] as u32, done: 0, last: None, times: Vec::new(), updates: Vec::new(), sent: None, ghost_behind: 0, ghost_checked: 0, cpu_at_start: None, threads_at_start: Vec::new() });
        } else {
            eprintln!("OTP_MOUSE_DRAG={text:?}: expected x1,y1,x2,y2,frames; ignored");
        }
    }
}

/// One order or command a frame, once the table is up: the same messages the mouse sends.
#[allow(clippy::too_many_arguments)]
fn run_script(
    mut script: ResMut<Script>,
    frames: Res<TableFrames>,
    mut orders: MessageWriter<Order>,
    mut commands: MessageWriter<SessionCommand>,
    session: Option<ResMut<Session>>,
    log: Res<GameLog>,
    (mut save, mut open, mut confirm): (ResMut<SaveDialog>, ResMut<OpenDialog>, ResMut<ConfirmNew>),
    mut redraw: MessageWriter<RequestRedraw>,
) {
    // A window drawn only on input takes the script's steps as its input.
    if script.busy() || script.idle < 3 {
        redraw.write(RequestRedraw);
    }
    if frames.count < 2 {
        return;
    }
    script.idle += 1;
    if let Some(action) = script.orders.pop_front() {
        if session.is_some() {
            orders.write(Order(action));
        }
        script.idle = 0;
    } else if let Some(step) = script.commands.pop_front() {
        match step {
            Step::Session(c) => {
                commands.write(c);
            }
            Step::Export(path) => {
                if let Some(mut s) = session {
                    log::export(&mut s, &log, &path);
                }
            }
            Step::Ask(what) => match what.as_str() {
                "save" => {
                    if let Some(s) = &session {
                        save.show(s);
                    }
                }
                "new" => confirm.0 = true,
                _ => open.open = true,
            },
        }
        script.idle = 0;
    }
}

/// Drive `OTP_MOUSE_DRAG` as window pointer events, a step a frame, timing the frames.
#[allow(clippy::too_many_arguments)]
fn mouse_drag(
    mut script: ResMut<Script>,
    start: Res<FrameStart>,
    view: Res<View>,
    window: Query<Entity, With<PrimaryWindow>>,
    mut events: MessageWriter<WindowEvent>,
    ghost: Res<MoveDrag>,
    backdrop: Res<super::backdrop::Backdrop>,
    mut redraw: MessageWriter<RequestRedraw>,
) {
    if script.busy_before_drag() {
        return;
    }
    let Some(d) = script.drag.as_mut() else { return };
    let Ok(window) = window.single() else { return };
    let now = Instant::now();
    if let Some(last) = d.last
        && d.done > 1
    {
        d.times.push(now - last);
        if let Some(s) = start.0 {
            d.updates.push(now - s);
        }
    }
    d.last = Some(now);
    redraw.write(RequestRedraw);
    // The pointer sent last frame went through this frame's input and table: is the ghost there?
    if let Some(sent) = d.sent.take()
        && ghost.active
    {
        d.ghost_checked += 1;
        if ghost.points.last().is_none_or(|p| p.distance(sent) > 0.01) {
            d.ghost_behind += 1;
        }
    }
    let at = |t: f32| {
        let p = view.to_screen(d.from.lerp(d.to, t));
        Vec2::new(p.x, p.y)
    };
    let mut moved = |p: Vec2| events.write(WindowEvent::CursorMoved(CursorMoved { window, position: p, delta: None }));
    let button = |state| WindowEvent::MouseButtonInput(MouseButtonInput { button: MouseButton::Left, state, window });
    match d.done {
        0 => {
            moved(at(0.0));
        }
        1 => {
            events.write(button(ButtonState::Pressed));
            d.cpu_at_start = cpu_seconds();
            d.threads_at_start = thread_cpu_seconds();
        }
        k if k < d.frames + 2 => {
            let t = (k - 1) as f32 / d.frames as f32;
            moved(at(t));
            d.sent = Some(d.from.lerp(d.to, t));
        }
        _ => {
            events.write(button(ButtonState::Released));
            let mut ms: Vec<f64> = d.times.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
            ms.sort_by(f64::total_cmp);
            if !ms.is_empty() {
                let mean = ms.iter().sum::<f64>() / ms.len() as f64;
                let p95 = ms[((ms.len() as f64 * 0.95).ceil() as usize).clamp(1, ms.len()) - 1];
                println!("drag frames: {}, mean {mean:.1} ms, median {:.1} ms, p95 {p95:.1} ms, max {:.1} ms, min {:.1} ms", ms.len(), ms[ms.len() / 2], ms[ms.len() - 1], ms[0]);
                let mut up: Vec<f64> = d.updates.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
                up.sort_by(f64::total_cmp);
                if !up.is_empty() {
                    let mean = up.iter().sum::<f64>() / up.len() as f64;
                    println!("  of which the app's update (First to Last): mean {mean:.1} ms, median {:.1} ms, max {:.1} ms", up[up.len() / 2], up[up.len() - 1]);
                }
                // The ghost is drawn in the update that takes the pointer's move, and shown by
                // the render that runs beside the next update: one frame from input to screen.
                if let (Some(a), Some(b)) = (d.cpu_at_start, cpu_seconds()) {
                    println!("  CPU (all threads, the software renderer's included): {:.1} ms a frame", (b - a) * 1000.0 / d.done.max(1) as f64);
                }
                // By thread (names with their numbers dropped: llvmpipe's rasteriser threads
                // together): on an idle machine a frame takes at least the busiest thread's share.
                let mut by: Vec<(String, f64)> = Vec::new();
                for (name, now) in thread_cpu_seconds() {
                    let before = d.threads_at_start.iter().find(|(n, _)| *n == name).map_or(0.0, |(_, c)| *c);
                    let kind = name.trim_end_matches(|c: char| c.is_ascii_digit() || "-() ".contains(c)).to_string();
                    let ms = (now - before) * 1000.0 / d.done.max(1) as f64;
                    match by.iter_mut().find(|(k, _)| *k == kind) {
                        Some((_, t)) => *t += ms,
                        None => by.push((kind, ms)),
                    }
                }
                by.retain(|(_, ms)| *ms >= 0.5);
                by.sort_by(|a, b| b.1.total_cmp(&a.1));
                println!("  CPU by thread, ms a frame: {}", by.iter().map(|(k, ms)| format!("{k} {ms:.1}")).collect::<Vec<_>>().join(", "));
                println!("ghost: caught up with the pointer within its update in {} of {} frames", d.ghost_checked - d.ghost_behind, d.ghost_checked);
                println!("backdrop: painted {} times, the last in {:.1} ms", backdrop.paintings, backdrop.last_paint.as_secs_f64() * 1000.0);
            }
            script.drag = None;
            script.idle = 0;
            return;
        }
    }
    d.done += 1;
    script.idle = 0;
}

impl Script {
    fn busy_before_drag(&self) -> bool {
        !self.orders.is_empty() || !self.commands.is_empty() || self.idle < 2
    }
}

fn numbers(var: &str, n: usize) -> Option<Vec<f32>> {
    let text = std::env::var(var).ok()?;
    let v: Vec<f32> = text.split(',').filter_map(|x| x.trim().parse().ok()).collect();
    if v.len() == n && v.iter().all(|x| x.is_finite()) {
        Some(v)
    } else {
        eprintln!("{var}={text:?}: expected {n} numbers separated by commas; ignored");
        None
    }
}

/// `OTP_DRAG`: at least two points, and maybe `shift` at the end.
fn drag_points(text: &str) -> Option<(Vec<Vec2>, bool)> {
    let mut tokens: Vec<&str> = text.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
    let shift = tokens.last().is_some_and(|t| t.eq_ignore_ascii_case("shift"));
    if shift {
        tokens.pop();
    }
    let v: Vec<f32> = tokens.iter().map(|t| t.parse().ok()).collect::<Option<Vec<f32>>>()?;
    (v.len() >= 4 && v.len().is_multiple_of(2) && v.iter().all(|x| x.is_finite())).then(|| (v.chunks(2).map(|c| Vec2::new(c[0], c[1])).collect(), shift))
}

#[allow(clippy::too_many_arguments)]
fn presets(
    mut commands: Commands,
    units: Query<(Entity, &Unit)>,
    mut selection: ResMut<Selection>,
    mut ruler: ResMut<Ruler>,
    mut view: ResMut<View>,
    mut help: ResMut<Help>,
    mut hover: ResMut<HoverPreset>,
    mut overlays: ResMut<Overlays>,
    mut drag: ResMut<MoveDrag>,
) {
    if let Ok(name) = std::env::var("OTP_SELECT") {
        match units.iter().find(|(_, u)| u.name.eq_ignore_ascii_case(name.trim())) {
            Some((e, _)) => selection.unit = Some(e),
            None => eprintln!("OTP_SELECT: no unit named {name:?}"),
        }
    }
    if let Some(v) = numbers("OTP_RULER", 4) {
        ruler.enabled = true;
        ruler.from = Some(Vec2::new(v[0], v[1]));
        ruler.to = Some(Vec2::new(v[2], v[3]));
    }
    if let Some(v) = numbers("OTP_VIEW", 3) {
        view.preset = Some((Vec2::new(v[0], v[1]), v[2]));
    }
    if let Some(v) = numbers("OTP_HOVER", 2) {
        hover.0 = Some(Vec2::new(v[0], v[1]));
    }
    if let Some(v) = numbers("OTP_CURSOR", 2) {
        hover.0 = Some(Vec2::new(v[0], v[1]));
    }
    if let Ok(list) = std::env::var("OTP_OVERLAYS") {
        let unknown = overlays.set_from(&list);
        if !unknown.is_empty() {
            eprintln!("OTP_OVERLAYS: unknown overlay(s) {unknown:?}; known: arcs, enfilade, sight, movement, all, ball");
        }
    }
    if let Ok(text) = std::env::var("OTP_DRAG") {
        match drag_points(&text) {
            Some(d) => drag.pending = Some(d),
            None => eprintln!("OTP_DRAG={text:?}: expected x1,y1,x2,y2[,x3,y3…][,shift]; ignored"),
        }
    }
    if std::env::var("OTP_HELP").is_ok_and(|v| v != "0") {
        help.open = true;
        help.legend_first = std::env::var("OTP_HELP").is_ok_and(|v| v == "legend");
    }
    if let Ok(path) = std::env::var("OTP_OPEN") {
        file_menu::request_open(&mut commands, PathBuf::from(path));
    }
}

#[allow(clippy::too_many_arguments)]
fn shoot(
    mut commands: Commands,
    options: Res<RunOptions>,
    start: Res<StartTime>,
    frames: Res<TableFrames>,
    mut state: Local<ShotState>,
    mut exit: MessageWriter<AppExit>,
    script: Res<Script>,
    view: Res<View>,
    solo: Option<Res<SoloState>>,
    mut egui: EguiContexts,
) {
    let Some(path) = &options.screenshot else { return };
    let automatic_done = solo.is_none_or(|s| s.sent >= script.automatic || s.trouble.is_some());
    // After a script, let the last step's outcome be drawn (the panels catch up a frame late).
    if frames.count < FRAMES_BEFORE_SHOT || (state.requested_at.is_none() && (script.busy() || script.idle < 3 || !automatic_done)) {
        return;
    }
    let Some(requested) = state.requested_at else {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::remove_file(path);
        let (flag, blank) = (state.captured.clone(), state.blank.clone());
        commands.spawn(Screenshot::primary_window()).observe(save_to_disk(path.clone())).observe(move |shot: On<ScreenshotCaptured>| {
            // The window's background is never black: a frame of nothing but black is not drawn yet.
            let black = shot.image.data.as_ref().is_none_or(|d| d.chunks(4).all(|p| p.iter().take(3).all(|&c| c == 0)));
            if black { blank.store(true, Ordering::SeqCst) } else { flag.store(true, Ordering::SeqCst) }
        });
        state.requested_at = Some(frames.count);
        return;
    };
    if state.blank.swap(false, Ordering::SeqCst) {
        state.retries += 1;
        if state.retries > MAX_RETRIES {
            eprintln!("the screenshot came back black {} times; giving up", state.retries);
            exit.write(AppExit::error());
        } else {
            eprintln!("the screenshot came back black; taking it again");
            state.requested_at = None;
        }
        return;
    }
    if state.captured.load(Ordering::SeqCst) {
        // The file is written by the first observer; look one frame later.
        state.frames_since_capture += 1;
        if state.frames_since_capture < 2 {
            return;
        }
        let first = frames.first_at.map(|t| t.duration_since(start.0).as_millis()).unwrap_or(0);
        if path.is_file() {
            println!("first frame after {first} ms");
            // Where the table was on screen, for tests that look at a unit's pixels.
            println!("view: centre {} {} ppi {} rect {} {} {} {}", view.centre.x, view.centre.y, view.ppi, view.rect.min.x, view.rect.min.y, view.rect.max.x, view.rect.max.y);
            // Where the hover preview was (tests check that it fits the window).
            if let Ok(ctx) = egui.ctx_mut() {
                let screen = ctx.content_rect();
                if let Some(r) = ctx.memory(|m| m.area_rect(egui::Id::new(fire_orders::PREVIEW_AREA))) {
                    println!("preview: rect {} {} {} {} screen {} {}", r.min.x, r.min.y, r.max.x, r.max.y, screen.width(), screen.height());
                }
            }
            println!("screenshot saved to {} after {} ms", path.display(), start.0.elapsed().as_millis());
            exit.write(AppExit::Success);
        } else {
            eprintln!("the screenshot was captured but {} was not written", path.display());
            exit.write(AppExit::error());
        }
    } else if frames.count - requested > MAX_FRAMES_WAITING {
        eprintln!("no screenshot after {MAX_FRAMES_WAITING} frames; giving up");
        exit.write(AppExit::error());
    }
}

/// `OTP_IDLE`: where the idle count stands. A timer thread moves it on and wakes the app, which
/// otherwise sleeps until input comes.
#[derive(Default)]
struct IdleCheck {
    /// 0: waiting for the script; 1: settled, start counting; 2: time is up.
    phase: Arc<AtomicU8>,
    timer: bool,
    /// Frame number, when, and the process's CPU seconds at the start of the count.
    start: Option<(u32, Instant, f64)>,
}

/// This process's CPU time (all threads, the renderer's included), seconds; Linux only.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Each thread's name and CPU seconds (Linux; `/proc/self/task`), the name with its thread id
/// appended so that threads of one name stay apart.
fn thread_cpu_seconds() -> Vec<(String, f64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    let mut out = Vec::new();
    for t in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else { continue };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let name = &stat[open + 1..close];
        let f: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let (Some(u), Some(s)) = (f.get(11).and_then(|v| v.parse::<f64>().ok()), f.get(12).and_then(|v| v.parse::<f64>().ok())) else { continue };
        out.push((format!("{name} {}", t.file_name().to_string_lossy()), (u + s) / 100.0));
    }
    out
}

/// `OTP_IDLE`: how many idle seconds to count frames over.
pub(crate) fn idle_seconds() -> Option<f32> {
    std::env::var("OTP_IDLE").ok()?.trim().parse().ok().filter(|s: &f32| s.is_finite() && *s > 0.0)
}

/// Seconds of settling before the idle count starts.
const IDLE_SETTLE: Duration = Duration::from_secs(2);

fn idle_check(
    mut state: Local<IdleCheck>,
    mut seconds: Local<Option<Option<f32>>>,
    script: Res<Script>,
    frames: Res<TableFrames>,
    frame: Res<FrameCount>,
    proxy: Option<Res<EventLoopProxyWrapper>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(seconds) = *seconds.get_or_insert_with(idle_seconds) else { return };
    match state.phase.load(Ordering::SeqCst) {
        0 if !state.timer && frames.count >= FRAMES_BEFORE_SHOT && !script.busy() && script.idle >= 3 => {
            let Some(proxy) = proxy else {
                eprintln!("OTP_IDLE: no window event loop to wake");
                exit.write(AppExit::error());
                return;
            };
            state.timer = true;
            let (phase, proxy) = (state.phase.clone(), (**proxy).clone());
            std::thread::spawn(move || {
                std::thread::sleep(IDLE_SETTLE);
                phase.store(1, Ordering::SeqCst);
                let _ = proxy.send_event(WinitUserEvent::WakeUp);
                std::thread::sleep(Duration::from_secs_f32(seconds));
                phase.store(2, Ordering::SeqCst);
                let _ = proxy.send_event(WinitUserEvent::WakeUp);
            });
        }
        1 if state.start.is_none() => state.start = Some((frame.0, Instant::now(), cpu_seconds().unwrap_or(0.0))),
        2 => {
            let Some((first, at, cpu)) = state.start else { return };
            // Frames between the two wake-ups, neither counted.
            let drawn = frame.0.saturating_sub(first + 1);
            let wall = at.elapsed().as_secs_f64();
            let busy = cpu_seconds().map(|c| (c - cpu) / wall * 100.0).unwrap_or(f64::NAN);
            println!("idle: {drawn} frames in {wall:.1} s, CPU {busy:.0}% of a core");
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drag_presets_parse_points_and_shift() {
        let (p, shift) = drag_points("18,21.6, 18,27").unwrap();
        assert_eq!((p, shift), (vec![Vec2::new(18.0, 21.6), Vec2::new(18.0, 27.0)], false));
        let (p, shift) = drag_points("1,2,3,4,5,6,shift").unwrap();
        assert!(shift && p.len() == 3);
        assert!(drag_points("1,2").is_none() && drag_points("1,2,3").is_none() && drag_points("a,b,c,d").is_none());
    }

    #[test]
    fn command_presets_parse_and_a_bad_one_says_what_is_known() {
        let steps = parse_commands("undo, save:/tmp/a.ron,export:/tmp/log.txt,restart").unwrap();
        assert!(matches!(steps[0], Step::Session(SessionCommand::Undo)));
        assert!(matches!(&steps[1], Step::Session(SessionCommand::Save(p)) if p == &PathBuf::from("/tmp/a.ron")));
        assert!(matches!(&steps[2], Step::Export(p) if p == &PathBuf::from("/tmp/log.txt")));
        assert!(matches!(steps[3], Step::Session(SessionCommand::Restart)));
        assert!(parse_commands("save").unwrap_err().contains("save:PATH"));
        assert!(matches!(&parse_commands("ask:new").unwrap()[..], [Step::Ask(w)] if w == "new"));
        assert!(parse_commands("ask:everything").is_err());
        // The orders preset is a save's action list.
        let v: Vec<Action> = ron::Options::default().from_str(r#"[StartGame, DrawChit, Fire(unit: "A", target: "B")]"#).unwrap();
        assert_eq!(v[2], Action::Fire { unit: "A".into(), target: "B".into() });
        assert_eq!(v[0].to_string(), "start the game", "a rule set's own words read as in a save");
    }
}
