//! Orders in the rules' words, for everything a player reads: the window's ghosts and refusals,
//! the log and the CLI all print an [`Action`] through these, never through `{:?}`
//! ("forward 2.2\"", "wheel 17° on the right flank", "forms march column").

use std::fmt;

use crate::rules::otp::charts::Ammo;
use crate::scenario::model::Formation;
use crate::table::movement::{End, MoveStep};

/// Inches as a player measures them: one decimal, "2.2\"", "3\"".
pub fn inches(x: f32) -> String {
    let s = format!("{x:.1}");
    let s = if s == "-0.0" { "0.0" } else { &s };
    format!("{}\"", s.strip_suffix(".0").unwrap_or(s))
}

/// A formation as the rules name it (5.1–5.4, 3.3).
pub fn formation(f: Formation) -> &'static str {
    match f {
        Formation::Column => "march column",
        Formation::Line => "line",
        Formation::Skirmish => "skirmish line",
        Formation::LooseOrder => "loose order",
        Formation::Limbered => "limbered",
        Formation::Unlimbered => "unlimbered",
    }
}

/// Artillery ammunition (8.4).
pub fn ammo(a: Ammo) -> &'static str {
    match a {
        Ammo::Ball => "ball",
        Ammo::Canister => "canister",
    }
}

fn flank(end: End) -> &'static str {
    match end {
        End::Left => "left",
        End::Right => "right",
    }
}

fn side(x: f32) -> &'static str {
    if x < 0.0 { "left" } else { "right" }
}

fn degrees(a: f32) -> String {
    format!("{:.0}°", a.abs())
}

pub use crate::rules::otp::dice::d10_at_or_under;

/// One step of a move (6.1–6.5, 5.1, 5.3).
impl fmt::Display for MoveStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveStep::Forward(d) => write!(f, "forward {}", inches(*d)),
            MoveStep::Oblique { angle, distance } => write!(f, "oblique {} to the {}, {}", degrees(*angle), side(*angle), inches(*distance)),
            MoveStep::SideStep(d) => write!(f, "side step {} to the {}", inches(d.abs()), side(*d)),
            // The pivot end stays: turning about the right end swings the left forward when the
            // turn is clockwise (+), and back when it is not (and the other way about the left).
            MoveStep::Wheel { pivot, angle } => {
                let back = match pivot {
                    End::Right => *angle < 0.0,
                    End::Left => *angle > 0.0,
                };
                write!(f, "wheel{} {} on the {} flank", if back { " back" } else { "" }, degrees(*angle), flank(*pivot))
            }
            MoveStep::AboutFace => write!(f, "about face"),
            MoveStep::Path(points) => match points.last() {
                Some(p) => write!(f, "the column's head along a road or path to ({:.1}, {:.1})", p.x, p.y),
                None => write!(f, "the column's head along an empty path"),
            },
            MoveStep::ChangeFormation(to) => write!(f, "form {}", formation(*to)),
            MoveStep::Bend { end, stands, angle } => {
                let way = if *angle >= 0.0 { "forward" } else { "back" };
                write!(f, "bend the {stands} stand(s) at the {} end {} {way}", flank(*end), degrees(*angle))
            }
            MoveStep::Straighten => write!(f, "straighten the line"),
            MoveStep::DoubleUp { stand, behind } => write!(f, "stand {} doubles up behind stand {}", stand + 1, behind + 1),
            MoveStep::Undouble => write!(f, "the doubled stand back into line"),
            MoveStep::Stands(moves) => {
                let list: Vec<String> = moves.iter().map(|m| format!("stand {} to ({:.1}, {:.1})", m.stand + 1, m.to.x, m.to.y)).collect();
                write!(f, "{}", list.join(", "))
            }
        }
    }
}

/// A move's steps in order: "wheel 17° on the right flank, then forward 2.2\"".
pub fn steps(steps: &[MoveStep]) -> String {
    if steps.is_empty() {
        return "no steps".into();
    }
    steps.iter().map(MoveStep::to_string).collect::<Vec<_>>().join(", then ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::engine::Action;

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
