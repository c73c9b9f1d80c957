//! On to Philadelphia: dice, charts as data, and (to come) the engine.
