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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::charts::Charts;
    use crate::scenario::model::UnitType;

    fn game(seed: u64) -> Game {
        Game::new(crate::scenario::default_scenario(), seed, Charts::embedded().clone())
    }

    // OTP 10.2, 10.3: the odds of a roll to remove the marker are the engine's own, every result
    // the 2D10 can bring, summing to 1; a re-roll bought with a pass is on the same table.
    #[test]
    fn a_morale_roll_previews_the_engines_odds() {
        let mut g = game(4);
        g.apply(OtpAction::StartGame).unwrap();
        g.apply(OtpAction::DrawChit).unwrap();
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        let roll = OtpAction::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::Roll };
        let p = g.morale_preview(&roll).expect("a roll has odds");
        let odds: Vec<(String, f64)> = p.blocks[0].odds.iter().map(|o| (o.outcome.clone(), o.chance)).collect();
        let engine: Vec<(String, f64)> = g.morale_odds(militia).into_iter().filter(|(_, c)| *c > 0.0).map(|(r, c)| (r.to_string(), c)).collect();
        assert_eq!(odds, engine);
        assert!((odds.iter().map(|(_, c)| c).sum::<f64>() - 1.0).abs() < 1e-9);
        let reroll = OtpAction::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::RerollWithPass { commander: "Lt. Col. Tarleton".into() } };
        assert_eq!(g.morale_preview(&reroll), Some(p));
        // 10.4: a pass throws no dice.
        assert_eq!(g.morale_preview(&OtpAction::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::Pass { commander: "Lt. Col. Tarleton".into() } }), None);
    }

    // OTP 11.0: a rebuild succeeds with the chart's chance for the unit's type, State Line at -1.
    #[test]
    fn a_rebuild_previews_the_charts_chance() {
        let g = game(1);
        let chart = &g.charts().rebuild;
        let p = g.morale_preview(&OtpAction::AttemptRebuild { unit: "Virginia State Regiment".into() }).expect("a rebuild has odds");
        let b = &p.blocks[0];
        assert_eq!(b.odds[0].chance, chart.chance(UnitType::StateLine));
        assert!((b.odds.iter().map(|o| o.chance).sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(b.factors.iter().map(|f| f.value.as_str()).collect::<Vec<_>>(), vec!["-1"]);
        let line = g.morale_preview(&OtpAction::AttemptRebuild { unit: "23rd Foot".into() }).unwrap();
        assert!(line.blocks[0].factors.is_empty() && line.blocks[0].odds[0].chance > b.odds[0].chance, "no modifier for Line");
    }
}
