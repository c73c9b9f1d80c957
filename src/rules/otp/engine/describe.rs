//! Orders in the rules' words, for everything a player reads: the window's ghosts and refusals,
//! the log and the CLI all print an [`Action`] through these, never through `{:?}`
//! ("forward 2.2\"", "wheel 17° on the right flank", "forms march column").

use crate::rules::otp::charts::Ammo;

pub use crate::table::words::{formation, inches, steps};
pub use crate::rules::dice::d10_at_or_under;

/// Artillery ammunition (8.4).
pub fn ammo(a: Ammo) -> &'static str {
    match a {
        Ammo::Ball => "ball",
        Ammo::Canister => "canister",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::engine::Action;
    use crate::scenario::model::Formation;
    use crate::table::movement::{End, MoveStep};

    // OTP 6.1, 6.3: an order reads as the rules say it, never as the program's debug text.
    #[test]
    fn moves_read_in_the_rules_words() {
        let a = Action::Move { unit: "North Carolina Militia".into(), steps: vec![MoveStep::Forward(2.158184)] };
        assert_eq!(a.to_string(), "move North Carolina Militia: forward 2.2\"");
        let w = MoveStep::Wheel { pivot: End::Right, angle: 17.29 };
        assert_eq!(w.to_string(), "wheel 17° on the right flank");
        assert_eq!(MoveStep::Wheel { pivot: End::Left, angle: -30.0 }.to_string(), "wheel 30° on the left flank");
        assert_eq!(MoveStep::Wheel { pivot: End::Left, angle: 10.0 }.to_string(), "wheel back 10° on the left flank");
        assert_eq!(MoveStep::SideStep(-1.5).to_string(), "side step 1.5\" to the left");
        assert_eq!(MoveStep::Oblique { angle: 30.0, distance: 3.0 }.to_string(), "oblique 30° to the right, 3\"");
        assert_eq!(steps(&[w, MoveStep::Forward(3.0)]), "wheel 17° on the right flank, then forward 3\"");
        let f = Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column };
        assert_eq!(f.to_string(), "33rd Foot forms march column");
        // No debug text in any of them.
        for text in [a.to_string(), f.to_string(), Action::SpecialMove { unit: "x".into(), steps: vec![MoveStep::AboutFace, MoveStep::ChangeFormation(Formation::Skirmish)] }.to_string()] {
            assert!(!text.contains('{') && !text.contains('[') && !text.contains("Forward") && !text.contains("Column"), "{text}");
        }
    }

    // OTP 1.0: the D10 reads 0–9.
    #[test]
    fn the_d10_is_read_0_to_9() {
        assert_eq!(d10_at_or_under(-2, "CV 5"), "D10 (read 0–9, OTP 1.0) -2 at or under CV 5");
        assert_eq!(d10_at_or_under(0, "CV 4"), "D10 (read 0–9, OTP 1.0) at or under CV 4");
    }

    // OTP 3.1, 6.3: a second move after a move is refused with words that do not contradict
    // themselves ("move" refused while "move fully" is listed as permitted).
    #[test]
    fn a_second_move_is_refused_without_contradiction() {
        use crate::rules::otp::engine::testing::{activate, ok, refused, teaching};
        let mut g = teaching(7);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        ok(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Wheel { pivot: End::Right, angle: 10.0 }] });
        let r = refused(&mut g, Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(1.0)] }, "3.1");
        assert!(!r.reason.contains("is not part of one"), "{r}");
        assert!(r.reason.contains("one order of as many steps as it needs"), "{r}");
        // Debug names of formations and arms stay out of refusals.
        let r = refused(&mut g, Action::ChangeFormation { unit: "33rd Foot".into(), formation: Formation::Column }, "3.1");
        assert!(!r.reason.contains("Column"), "{r}");
    }
}
