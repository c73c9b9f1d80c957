//! On to Philadelphia: dice, charts as data, and (to come) the engine.

pub mod charts;
pub mod dice;
pub mod engine;
pub mod fire;
