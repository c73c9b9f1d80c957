//! The exact odds of an action before its dice are thrown, as the interface's preview blocks:
//! a shot (8.x) from the fire module's preview, a charge (9.x) from the melee module's.

use super::super::engine::{Action as OtpAction, Game};
use crate::rules::engine::Preview;
use crate::rules::report::Refusal;

impl Game {
    pub(super) fn preview_of(&self, action: &OtpAction) -> Result<Option<Preview>, Refusal> {
        self.check(action)?;
        Ok(self.morale_preview(action))
    }
}
