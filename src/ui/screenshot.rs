//! `otp play --screenshot PATH`: once the table has been painted a few times, save the window to
//! PATH, print `first frame after N ms`, and exit.
//!
//! Presets for screenshots and manual checks, read from the environment at start:
//! - `OTP_SELECT="23rd Foot"`: select that unit (its sheet shows).
//! - `OTP_RULER="x1,y1,x2,y2"`: the ruler on, from (x1, y1) to (x2, y2) in table inches.
//! - `OTP_VIEW="cx,cy,ppi"`: centre the view on (cx, cy) inches at ppi screen points an inch.
//! - `OTP_HELP=1`: the help window open.
//! - `OTP_OPEN=path`: open that file as from the Open window (a bad file shows its errors).
//! - `OTP_HOVER="x,y"`: show the tooltip of whatever is at (x, y) inches (screenshots only).
//! - `OTP_OVERLAYS="arcs,enfilade,sight,movement"`: turn teaching overlays on (also `all`, `ball`).
//! - `OTP_CURSOR="x,y"`: the pointer at (x, y) inches, as `OTP_HOVER`: the sight overlay's target.
//! - `OTP_DRAG="x1,y1,x2,y2[,x3,y3…][,shift]"`: drag the selected unit from the first point
//!   through the others and release (Movement overlay); `shift` for a side step.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

use super::camera::View;
use super::file_menu;
use super::overlays::{MoveDrag, Overlays};
use super::ruler::Ruler;
use super::table_view::{HoverPreset, Selection, TableFrames};
use super::toolbar::Help;
use super::{RunOptions, StartTime};
use crate::scenario::spawn::Unit;

/// Frames of the table to wait for before the shot: egui's fonts and the first layout settle.
const FRAMES_BEFORE_SHOT: u32 = 4;
/// Give up if the capture has not come back after this many frames.
const MAX_FRAMES_WAITING: u32 = 600;

#[derive(Default)]
struct ShotState {
    requested_at: Option<u32>,
    captured: Arc<AtomicBool>,
    frames_since_capture: u32,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(PostStartup, presets).add_systems(Last, shoot);
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
    (v.len() >= 4 && v.len() % 2 == 0 && v.iter().all(|x| x.is_finite())).then(|| (v.chunks(2).map(|c| Vec2::new(c[0], c[1])).collect(), shift))
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
    }
    if let Ok(path) = std::env::var("OTP_OPEN") {
        file_menu::request_open(&mut commands, PathBuf::from(path));
    }
}

fn shoot(
    mut commands: Commands,
    options: Res<RunOptions>,
    start: Res<StartTime>,
    frames: Res<TableFrames>,
    mut state: Local<ShotState>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = &options.screenshot else { return };
    if frames.count < FRAMES_BEFORE_SHOT {
        return;
    }
    let Some(requested) = state.requested_at else {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::remove_file(path);
        let flag = state.captured.clone();
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()))
            .observe(move |_: On<ScreenshotCaptured>| flag.store(true, Ordering::SeqCst));
        state.requested_at = Some(frames.count);
        return;
    };
    if state.captured.load(Ordering::SeqCst) {
        // The file is written by the first observer; look one frame later.
        state.frames_since_capture += 1;
        if state.frames_since_capture < 2 {
            return;
        }
        let first = frames.first_at.map(|t| t.duration_since(start.0).as_millis()).unwrap_or(0);
        if path.is_file() {
            println!("first frame after {first} ms");
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
}
