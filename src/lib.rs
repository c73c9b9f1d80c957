//! On to Philadelphia on a digital table.
//!
//! Layers, bottom up: `table` (geometry in inches), `scenario` (files, basing, stands as
//! entities), `picture` (what the table looks like, shared by the window and `otp render`),
//! `lessons` (guided lessons whose goals the engine checks), `editor` (the set-up editor's
//! model: edits, undo, live checks, saves that keep comments), `ui` (the window, behind the
//! `window` feature).

pub mod picture;
pub mod render;
pub mod rules;
pub mod scenario;
pub mod table;
#[cfg(feature = "window")]
pub mod ui;
pub mod lessons;
pub mod editor;
