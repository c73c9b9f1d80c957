//! Rule sets behind one engine interface. On to Philadelphia first; the others follow.
//!
//! Common to every rule set: where a rule comes from ([`cite`]), the dice ([`dice`]), the orders
//! ([`action`]) and what an order did ([`report`]), and the interface the window, the CLI and
//! the automatic players speak to ([`engine`]). Each rule set lives in its own folder.

pub mod acw_quick;
pub mod acw_orders;
pub mod action;
pub mod automatic;
pub mod cite;
pub mod dice;
pub mod engine;
pub mod otp;
pub mod purky;
pub mod refusal;
pub mod registry;
pub mod report;
pub mod revolution;
pub mod simulate;
pub mod tiny;
