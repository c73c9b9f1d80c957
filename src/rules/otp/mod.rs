//! On to Philadelphia: dice, charts as data, fire combat, the engine and the automatic player.

pub mod balance;
pub mod charts;
pub mod cli;
pub use crate::rules::dice;
pub mod bot;
pub mod engine;
pub mod fire;
pub mod melee;
pub mod interface;
