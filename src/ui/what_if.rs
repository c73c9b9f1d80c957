//! Teaching, "what if he stood here": the table becomes a copy of the game on which any unit, of
//! either side, is dragged without dice or turn (Shift turns it about its middle); every overlay,
//! the odds and the side-by-side judgement follow it live, since each step of the drag is placed
//! in the copy ([`Session::place`], [`crate::rules::engine::Engine::place`]). A banner says it
//! is not the game; "Put everything back" returns to the game played, which was kept aside
//! untouched.
//!
//! W or the toolbar's "What if" turns it on and off; `OTP_COMMANDS=whatif` for screenshots.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::RichText;

use super::keys::{Shortcut, key};
use super::session::{Session, SessionCommand};
use super::{FreeRect, UiSet, root_ui};
use crate::table::footprint::Footprint;

/// A what-if drag under way: the unit and the guns attached to it (OTP 7.5: they go where it
/// goes), their stands when the drag began, and where it began.
#[derive(Resource, Default)]
pub(crate) struct WhatIfDrag {
    held: Option<(Vec<(String, Vec<Footprint>)>, Vec2)>,
}

impl WhatIfDrag {
    /// Take hold of `units` (the one dragged first, then those attached to it) at `at`.
    pub fn start(&mut self, units: Vec<(String, Vec<Footprint>)>, at: Vec2) {
        self.held = (!units.is_empty()).then_some((units, at));
    }
    pub fn dragging(&self) -> bool {
        self.held.is_some()
    }
    /// The orders placing the held units for the pointer at `to` (`turn`: turned about the
    /// dragged unit's middle, not carried).
    pub fn to(&self, to: Vec2, turn: bool) -> Vec<SessionCommand> {
        let Some((units, from)) = self.held.as_ref() else { return Vec::new() };
        let middle = middle(&units[0].1);
        units.iter().map(|(unit, stands)| SessionCommand::Place { unit: unit.clone(), stands: moved(stands, middle, *from, to, turn) }).collect()
    }
    pub fn end(&mut self) {
        self.held = None;
    }
}

/// The middle of some stands.
fn middle(stands: &[Footprint]) -> Vec2 {
    stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len().max(1) as f32
}

/// `stands` moved as the pointer went from `from` to `to`: carried along, or (`turn`) turned
/// about `middle` by the angle the pointer swept.
pub(crate) fn moved(stands: &[Footprint], middle: Vec2, from: Vec2, to: Vec2, turn: bool) -> Vec<Footprint> {
    if !turn {
        return stands.iter().map(|f| Footprint { centre: f.centre + (to - from), ..*f }).collect();
    }
    let (a, b) = (from - middle, to - middle);
    if a.length() < 1e-3 || b.length() < 1e-3 {
        return stands.to_vec();
    }
    // Counter-clockwise in the table's frame (y up); a compass bearing turns the other way.
    let swept = a.angle_to(b);
    let rotate = Vec2::from_angle(swept);
    stands.iter().map(|f| Footprint { centre: middle + rotate.rotate(f.centre - middle), facing: (f.facing - swept.to_degrees()).rem_euclid(360.0), ..*f }).collect()
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<WhatIfDrag>().add_message::<SessionCommand>().add_systems(EguiPrimaryContextPass, banner.in_set(UiSet::ReplayBar));
}

const AMBER: egui::Color32 = egui::Color32::from_rgb(255, 196, 90);

/// The banner under the toolbar while what-if is on.
fn banner(mut contexts: EguiContexts, mut free: ResMut<FreeRect>, session: Option<Res<Session>>, mut commands: MessageWriter<SessionCommand>) -> Result {
    if !session.is_some_and(|s| s.in_what_if()) {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "what_if_root", free.0);
    let response = egui::Panel::top("what_if_banner").frame(egui::Frame::new().fill(egui::Color32::from_rgb(70, 48, 14)).inner_margin(egui::Margin::symmetric(8, 5))).show(&mut root, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("✋ WHAT IF — not the game").strong().color(AMBER));
            ui.label(RichText::new("Drag any unit of either side; Shift+drag turns it. The overlays, the odds and Compare follow. No dice, no turn: the game is kept aside as it was.").color(egui::Color32::from_rgb(240, 228, 200)));
            if ui.button(RichText::new("↺ Put everything back").strong()).on_hover_text(format!("Leave what-if: every unit where the game has it ({})", key(Shortcut::WhatIf))).clicked() {
                commands.write(SessionCommand::EndWhatIf);
            }
        });
    });
    free.0.min.y = free.0.min.y.max(response.response.rect.max.y);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> Vec<Footprint> {
        (0..3).map(|i| Footprint { centre: Vec2::new(i as f32, 0.0), facing: 0.0, frontage: 1.0, depth: 0.5 }).collect()
    }

    #[test]
    fn a_drag_carries_the_stands_and_a_shift_drag_turns_them_about_their_middle() {
        let carried = moved(&line(), middle(&line()), Vec2::new(1.0, 0.0), Vec2::new(4.0, 2.0), false);
        assert_eq!(carried.iter().map(|f| f.centre).collect::<Vec<_>>(), vec![Vec2::new(3.0, 2.0), Vec2::new(4.0, 2.0), Vec2::new(5.0, 2.0)]);
        assert!(carried.iter().all(|f| f.facing == 0.0));
        // The pointer swept a quarter turn clockwise about the middle (1, 0): from north of it
        // to east of it. The line faces east (90°) and runs north–south, its middle in place.
        let turned = moved(&line(), middle(&line()), Vec2::new(1.0, 3.0), Vec2::new(4.0, 0.0), true);
        assert!(turned.iter().all(|f| (f.facing - 90.0).abs() < 1e-3), "{turned:?}");
        assert!((turned[1].centre - Vec2::new(1.0, 0.0)).length() < 1e-4);
        assert!((turned[0].centre - Vec2::new(1.0, 1.0)).length() < 1e-4, "{:?}", turned[0].centre);
    }

    #[test]
    fn a_drag_sends_the_unit_placed_with_its_attached_gun() {
        let mut d = WhatIfDrag::default();
        assert!(d.to(Vec2::ZERO, false).is_empty());
        let gun = vec![Footprint { centre: Vec2::new(1.0, -1.0), facing: 0.0, frontage: 1.0, depth: 1.0 }];
        d.start(vec![("7th Foot".into(), line()), ("Battalion gun".into(), gun)], Vec2::ZERO);
        match &d.to(Vec2::new(0.0, 2.0), false)[..] {
            [SessionCommand::Place { unit, stands }, SessionCommand::Place { unit: g, stands: gs }] => {
                assert!(unit == "7th Foot" && stands[0].centre == Vec2::new(0.0, 2.0));
                assert!(g == "Battalion gun" && gs[0].centre == Vec2::new(1.0, 1.0));
            }
            other => panic!("{other:?}"),
        }
        // Turned, the gun turns with its unit about the unit's middle (1, 0).
        match &d.to(Vec2::new(3.0, 0.0), true)[..] {
            [_, SessionCommand::Place { stands: gs, .. }] => assert!((gs[0].centre - Vec2::new(1.0, -1.0)).length() > 0.5, "{gs:?}"),
            other => panic!("{other:?}"),
        }
        d.end();
        assert!(!d.dragging());
    }
}
