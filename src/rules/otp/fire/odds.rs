//! The odds of a shot before it is fired: the exact chance of every result over the D10's faces,
//! and over the averaging dice of a woods visibility roll where one is needed (8.7).

use std::fmt;

use serde::Serialize;

use super::plan::Plan;
use super::report::{ColumnInfo, GeometrySummary, Modifier, ShotHead, describe, write_modifiers};
use super::{FireContext, Refusal};
use crate::rules::otp::charts::{Charts, FireResult};
use crate::rules::dice::{DiceKind, distribution};
use crate::scenario::model::WoodsDensity;

/// One possible result and its exact probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub result: FireResult,
    /// `2 kills`, `morale hit`, `no effect`.
    pub label: String,
    pub kills: u32,
    /// Any kill or morale hit gives the target a Morale Marker (8.2).
    pub morale_marker: bool,
    pub probability: f64,
    /// The probability as a fraction: `ways` of `out_of` equally likely throws of the dice.
    pub ways: u64,
    pub out_of: u64,
}

/// The woods visibility roll a shot needs (8.7).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VisibilityOdds {
    /// The densest woods on a firing stand's line: its VISIBILITY IN WOODS row (8.7).
    pub woods: WoodsDensity,
    /// The woods on the sight line, feature by feature with its own name and kind.
    pub woods_on_line: Vec<crate::table::sight::WoodsOnLine>,
    /// Averaging dice rolled, and inches added.
    pub dice: u8,
    pub plus: i32,
    pub provenance: String,
    /// The chance no firing stand sees the target (then nothing is fired).
    pub not_visible: f64,
    /// The averaging dice's totals, of 6^dice, that leave the target unseen.
    pub not_visible_ways: u64,
}

impl VisibilityOdds {
    /// "Wheat Field — tall crops, seen as light woods, 5.40\"" for each feature on the line.
    pub fn on_line_text(&self) -> String {
        let named: Vec<String> = self.woods_on_line.iter().map(|w| w.to_string()).collect();
        if named.is_empty() { format!("{:?} woods", self.woods) } else { named.join("; ") }
    }
}

/// A commander's chance of becoming a casualty of this shot (8.16).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CasualtyOdds {
    pub commander: String,
    pub unit: String,
    pub probability: f64,
}

/// Everything a player sees before deciding to fire.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirePreview {
    #[serde(flatten)]
    pub shot: ShotHead,
    /// As if every firing stand sees the target (the woods roll, if any, may take some away).
    pub geometry: GeometrySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<VisibilityOdds>,
    pub modifiers: Vec<Modifier>,
    pub total_modifier: i32,
    pub column: ColumnInfo,
    /// Every result that can happen, least harm first; the probabilities sum to 1.
    pub outcomes: Vec<Outcome>,
    pub commander_casualties: Vec<CasualtyOdds>,
    /// Firing uses the initial volley (8.5).
    pub uses_initial_volley: bool,
}

/// The exact distribution of results, counted in equally likely ways: every face of the
/// visibility dice (when rolled) with every face of the D10. Returns the results least harm
/// first with their ways and the number of ways in all; and the throws of the visibility dice
/// that leave the target unseen, of how many.
pub(crate) fn result_ways(plan: &Plan) -> (Vec<(FireResult, u64)>, u64, (u64, u64)) {
    // Ways for each total of the averaging dice: 6^n in all (the faces 2,3,3,4,4,5).
    let cases: Vec<(Option<f32>, u64)> = match plan.woods {
        Some(v) => {
            let all = 6u64.pow(v.dice as u32);
            distribution(DiceKind::Ad(v.dice)).into_iter().map(|(t, p)| (Some((t + v.plus) as f32), (p * all as f64).round() as u64)).collect()
        }
        None => vec![(None, 1)],
    };
    let faces = distribution(DiceKind::D10);
    let throws = cases.iter().map(|c| c.1).sum::<u64>();
    let all = throws * faces.len() as u64;
    let mut ways: Vec<(FireResult, u64)> = Vec::new();
    let mut add = |r: FireResult, w: u64| match ways.iter_mut().find(|(x, _)| *x == r) {
        Some(e) => e.1 += w,
        None => ways.push((r, w)),
    };
    let mut not_visible = 0;
    for (visibility, w) in cases {
        match plan.volley(visibility) {
            None => {
                not_visible += w;
                add(FireResult::NoEffect, w * faces.len() as u64);
            }
            Some(v) => {
                for &(face, _) in &faces {
                    add(plan.charts.fire.column(v.column.column, face + v.total), w);
                }
            }
        }
    }
    ways.sort_by_key(|&(r, _)| r);
    (ways, all, (not_visible, throws))
}

/// 8.16: the chance each attached commander is a casualty: his unit must take a kill or morale
/// hit, then a D10 must fall at or under the chart's number.
fn casualty_odds(plan: &Plan, odds: &[Outcome]) -> Vec<CasualtyOdds> {
    let table = plan.ctx.table;
    let d10 = plan.charts.commanders.casualty_fire.value;
    let per = distribution(DiceKind::D10).iter().filter(|&&(face, _)| face <= d10).map(|&(_, p)| p).sum::<f64>();
    let hit: f64 = odds.iter().filter(|o| o.morale_marker).map(|o| o.probability).sum();
    let kill: f64 = odds.iter().filter(|o| o.kills > 0).map(|o| o.probability).sum();
    let target = plan.ctx.target;
    let mut units = vec![(target, hit)];
    let s = plan.ctx.situation();
    if s.unit(target).gun().is_some()
        && let Some(host) = table.state(target).attached_to
    {
        units.push((host, kill));
    }
    units
        .into_iter()
        .flat_map(|(u, p)| {
            table.state(u).commanders.iter().map(move |c| CasualtyOdds { commander: c.clone(), unit: s.unit(u).name.clone(), probability: p * per })
        })
        .collect()
}

/// Modifiers, column and the exact odds of a shot; refused as `resolve` would refuse it.
pub fn preview(ctx: &FireContext, charts: &Charts) -> Result<FirePreview, Refusal> {
    let plan = Plan::new(*ctx, charts)?;
    let full = plan.shown_volley();
    let (ways, all, (unseen, throws)) = result_ways(&plan);
    let outcomes: Vec<Outcome> = ways
        .into_iter()
        .map(|(result, w)| Outcome { result, label: describe(result), kills: result.kills(), morale_marker: result.gives_marker(), probability: w as f64 / all as f64, ways: w, out_of: all })
        .collect();
    let visibility = plan.woods.map(|v| VisibilityOdds {
        woods: v.woods,
        woods_on_line: plan.woods_on_line(),
        dice: v.dice,
        plus: v.plus,
        provenance: v.source.cited(crate::rules::cite::RuleSetId::Otp),
        not_visible: unseen as f64 / throws as f64,
        not_visible_ways: unseen,
    });
    let s = ctx.situation();
    let fu = s.unit(ctx.firer);
    let uses_initial_volley = fu.arm == crate::scenario::model::Arm::Infantry && !ctx.table.state(ctx.firer).initial_volley_used;
    Ok(FirePreview {
        shot: plan.head(),
        geometry: plan.summary(Some(&full)),
        visibility,
        commander_casualties: casualty_odds(&plan, &outcomes),
        modifiers: full.modifiers,
        total_modifier: full.total,
        column: full.column,
        outcomes,
        uses_initial_volley,
    })
}

impl fmt::Display for FirePreview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(v) = &self.visibility {
            writeln!(f, "visibility:     {}; {:?} woods' {}AD{:+}\" to roll; {:.1}% nothing seen (OTP 8.7)", v.on_line_text(), v.woods, v.dice, v.plus, 100.0 * v.not_visible)?;
        }
        write_modifiers(f, &self.modifiers, self.total_modifier, &self.column)?;
        write!(f, "outcomes:")?;
        for o in self.outcomes.iter().rev() {
            write!(f, "\n  {:>6.1}%  {}", 100.0 * o.probability, o.label)?;
        }
        for c in &self.commander_casualties {
            write!(f, "\n  {:>6.1}%  {} ({}) a casualty (OTP 8.16)", 100.0 * c.probability, c.commander, c.unit)?;
        }
        Ok(())
    }
}
