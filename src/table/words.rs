//! Table words for everything a player reads: inches as measured, formations as the rules
//! name them, a move's steps ("forward 2.2\"", "wheel 17° on the right flank"). The window, the
//! log and the CLI print through these, never through `{:?}`.

use std::fmt;

use crate::scenario::model::Formation;
use crate::table::movement::{End, MoveStep};

/// Inches as a player measures them: one decimal, "2.2\"", "3\"".
pub fn inches(x: f32) -> String {
    let s = format!("{x:.1}");
    let s = if s == "-0.0" { "0.0" } else { &s };
    format!("{}\"", s.strip_suffix(".0").unwrap_or(s))
}

/// A formation as the rules name it.
pub fn formation(f: Formation) -> &'static str {
    match f {
        Formation::Column => "march column",
        Formation::Line => "line",
        Formation::Skirmish => "skirmish line",
        Formation::LooseOrder => "loose order",
        Formation::Limbered => "limbered",
        Formation::Unlimbered => "unlimbered",
        Formation::Wedge => "wedge",
        Formation::ReinforcedLine => "reinforced line",
        Formation::DoubleLine => "double line",
        Formation::ExtendedLine => "extended line",
        Formation::AttackColumn => "attack column",
        Formation::Square => "square",
        Formation::Dismounted => "dismounted",
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

