//! The odds of the sequence's rolls as preview blocks: a roll to remove a Morale Marker (or a
//! re-roll bought with a pass) on the MORALE RESULTS TABLE (10.2, 10.3), and a rebuild attempt
//! on the UNIT REBUILDING TABLE (11.0). The numbers are the engine's own (`morale_odds`, the
//! rebuild chart's `chance`); nothing is computed here twice.

use super::super::engine::{Action as OtpAction, Game, Removal};
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Fact, Factor, Odds, Preview, PreviewBlock, cited};

impl Game {
    /// The odds of a morale roll or a rebuild attempt; `None` for any other action (and for a
    /// unit not on the table). The caller checks the action first.
    pub(super) fn morale_preview(&self, action: &OtpAction) -> Option<Preview> {
        match action {
            OtpAction::RemoveMarker { unit, how: Removal::Roll | Removal::RerollWithPass { .. } } => self.morale_roll_preview(unit),
            OtpAction::AttemptRebuild { unit } => self.rebuild_preview(unit),
            _ => None,
        }
    }

    /// 10.2, 10.3: 2D10 on the MORALE RESULTS TABLE, modified for losses and works.
    fn morale_roll_preview(&self, name: &str) -> Option<Preview> {
        let e = self.unit_entity(name)?;
        let chart = &self.charts().morale;
        let m = self.morale_modifiers(e);
        let rule = cited(RuleSetId::Otp, "10.3");
        let mut factors = vec![Factor { name: format!("losses: {:?}", m.severity), value: format!("{:+}", chart.severity_modifier(m.severity)), rule: rule.clone(), detail: None, source: None }];
        if m.in_works {
            factors.push(Factor { name: "in or behind works".into(), value: format!("{:+}", chart.works.value), rule, detail: None, source: Some(chart.works.source.clone()) });
        }
        let odds = self.morale_odds(e);
        // What each result does, as the chart explains it.
        let facts = odds.iter().map(|(r, _)| Fact { text: format!("{r}: {}", chart.explain(r.kind()).text), rule: cited(RuleSetId::Otp, "10.2") }).collect();
        let block = PreviewBlock {
            heading: "Roll 2D10 on the MORALE RESULTS TABLE (10.2):".into(),
            facts,
            factors,
            odds: odds.iter().filter(|(_, p)| *p > 0.0).map(|(r, p)| Odds { outcome: r.to_string(), chance: *p }).collect(),
        };
        Some(Preview { title: format!("{name}: a roll to remove the Morale Marker (10.2)"), blocks: vec![block] })
    }

    /// 11.0: a D10 on the UNIT REBUILDING TABLE, State Line -1, Elite +1.
    fn rebuild_preview(&self, name: &str) -> Option<Preview> {
        let e = self.unit_entity(name)?;
        let ty = self.unit(e).unit_type;
        let chart = &self.charts().rebuild;
        let rule = cited(RuleSetId::Otp, "11.0");
        let factors = chart
            .type_modifiers
            .iter()
            .filter(|m| m.unit_type == ty)
            .map(|m| Factor { name: format!("{ty:?} unit"), value: format!("{:+}", m.value), rule: rule.clone(), detail: None, source: Some(m.source.clone()) })
            .collect();
        let chance = chart.chance(ty);
        let block = PreviewBlock {
            heading: "Roll a D10 on the UNIT REBUILDING TABLE (11.0):".into(),
            facts: Vec::new(),
            factors,
            odds: [("regains figures", chance), ("fails", 1.0 - chance)].into_iter().filter(|(_, p)| *p > 0.0).map(|(o, p)| Odds { outcome: o.into(), chance: p }).collect(),
        };
        Some(Preview { title: format!("{name} attempts to rebuild (4.4, 11.0)"), blocks: vec![block] })
    }
}
