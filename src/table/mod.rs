//! Table geometry in inches: stand footprints and the questions of range, arc and sight.
//!
//! Pure geometry, no dice: a `Situation` (units, stands, terrain) answers range (8.3, 8.4),
//! arcs and who bears (8.1), line of sight and woods (8.7–8.9), enfilade (8.11), attack zones
//! (9.1), the canister restriction (8.4) and whether a move is legal and what it costs (6.x).

pub mod arc;
pub mod aspect;
pub mod fire;
pub mod footprint;
pub mod geom;
pub mod movement;
pub mod range;
pub mod shot;
pub mod sight;
pub mod situation;
#[cfg(test)]
mod testing;
