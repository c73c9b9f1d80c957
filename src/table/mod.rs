//! Table geometry in inches: stand footprints and the questions of range, arc and sight.
//!
//! Pure geometry, no dice, for every rule set. A [`situation::Situation`] (units, stands,
//! terrain; from a scenario file or from the ECS world) answers, with the numbers a rule set
//! supplies (OTP's sections in brackets):
//! - edge-to-edge range (8.3, 8.4): [`range`]; arcs and who bears (8.1): [`arc`], [`fire`]
//!   with the rule set's [`fire::FireRules`];
//! - cover in and behind terrain (8.6, 8.10) with the rule set's [`cover::CoverRules`]: [`cover`];
//! - line of sight and woods (8.7–8.9): [`sight`]; enfilade (8.11) and attack zones (9.1): [`aspect`];
//! - friends in an arc (8.4 canister), nearest target and split fire (8.1): [`fire`];
//! - whether a move is legal, what it costs and where it meets terrain (6.x): [`movement`],
//!   with the rule set's [`movement::MoveRules`]; a charge's path (9.x): [`contact`].
//!
//! Every answer is unchanged when the whole table is turned or shifted (tests/geometry_props.rs).

pub mod arc;
pub mod aspect;
pub mod contact;
pub mod cover;
pub mod fire;
pub mod footprint;
pub mod geom;
pub mod movement;
pub mod range;
pub mod sight;
pub mod words;
pub mod situation;

#[cfg(test)]
pub(crate) mod testing;
