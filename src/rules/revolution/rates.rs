//! Every number of *Revolution* as data (`assets/rules/revolution/rates.ron`, embedded), each
//! with its [`Source`]: the text (`Text { section }`, cited "SG14") or our reconstruction of a
//! number the scan lost (`Reconstructed { why }`, SG16 above all). Read once, validated with
//! located errors.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::rules::cite::{RuleSetId, Source};

/// A number and where it comes from.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T: Copy> Sourced<T> {
    pub fn get(&self) -> T {
        self.value
    }
    /// "SG16" or "reconstructed: <why>".
    pub fn cited(&self) -> String {
        self.source.cited(RuleSetId::Revolution)
    }
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Moves {
    pub foot_deployed: Sourced<f32>,
    pub foot_column: Sourced<f32>,
    pub dragoons_deployed: Sourced<f32>,
    pub dragoons_column: Sourced<f32>,
    pub guns_unlimbered: Sourced<f32>,
    pub guns_limbered: Sourced<f32>,
    pub leader: Sourced<f32>,
    /// SG13: a line withdraws straight back at 2/3 of its move.
    pub withdraw_share: Sourced<f32>,
    /// SG28, SG36: a rout's 16".
    pub rout: Sourced<f32>,
    /// SG26: a gun's crew falls back 8".
    pub crew_falls_back: Sourced<f32>,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ranges {
    pub artillery: Sourced<f32>,
    pub rifles: Sourced<f32>,
    pub musketry: Sourced<f32>,
    pub woods_seen_into: Sourced<f32>,
    pub leader_reroll: Sourced<f32>,
    pub leader_with_unit: Sourced<f32>,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tosses {
    /// SG14, SG17: a toss of this or less fails.
    pub fails_at_most: Sourced<i32>,
    /// SG22: a modified morale toss of this or less fails.
    pub morale_fails_at_most: Sourced<i32>,
    /// SG36: a router rallies on this or more; with a leader, on `rally_with_leader` or more.
    pub rally: Sourced<i32>,
    pub rally_with_leader: Sourced<i32>,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Modifiers {
    pub disordered: Sourced<i32>,
    pub column_or_reinforced: Sourced<i32>,
    pub wedge: Sourced<i32>,
    pub charged_first_round: Sourced<i32>,
    pub dragoons_against_foot: Sourced<i32>,
    pub each_attacker_over_one: Sourced<i32>,
    pub cover: Sourced<i32>,
    pub charged_uphill: Sourced<i32>,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Basing {
    pub foot_frontage: Sourced<f32>,
    pub horse_frontage: Sourced<f32>,
    pub gun_frontage: Sourced<f32>,
    /// SG5: a disordered unit's ½–1" between stands.
    pub disorder_gap: Sourced<f32>,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Turns {
    pub default_limit: Sourced<u32>,
}

/// The whole file.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    pub moves: Moves,
    pub ranges: Ranges,
    pub tosses: Tosses,
    pub modifiers: Modifiers,
    pub basing: Basing,
    pub turns: Turns,
}

pub const FILE: &str = "assets/rules/revolution/rates.ron";
const EMBEDDED: &str = include_str!("../../../assets/rules/revolution/rates.ron");

impl Rates {
    /// Rates text read and checked: a RON mistake at its `file:line:col`, and a number no table
    /// can use (not finite, not positive where it must be, a toss off the die) named.
    pub fn parse(text: &str, file: &str) -> Result<Rates, String> {
        let rates: Rates = crate::scenario::from_ron(crate::scenario::without_bom(text), file).map_err(|e| e.to_string())?;
        let mut problems = Vec::new();
        let inches = [
            ("moves.foot_deployed", &rates.moves.foot_deployed),
            ("moves.foot_column", &rates.moves.foot_column),
            ("moves.dragoons_deployed", &rates.moves.dragoons_deployed),
            ("moves.dragoons_column", &rates.moves.dragoons_column),
            ("moves.guns_unlimbered", &rates.moves.guns_unlimbered),
            ("moves.guns_limbered", &rates.moves.guns_limbered),
            ("moves.leader", &rates.moves.leader),
            ("moves.withdraw_share", &rates.moves.withdraw_share),
            ("moves.rout", &rates.moves.rout),
            ("moves.crew_falls_back", &rates.moves.crew_falls_back),
            ("ranges.artillery", &rates.ranges.artillery),
            ("ranges.rifles", &rates.ranges.rifles),
            ("ranges.musketry", &rates.ranges.musketry),
            ("ranges.woods_seen_into", &rates.ranges.woods_seen_into),
            ("ranges.leader_reroll", &rates.ranges.leader_reroll),
            ("ranges.leader_with_unit", &rates.ranges.leader_with_unit),
            ("basing.foot_frontage", &rates.basing.foot_frontage),
            ("basing.horse_frontage", &rates.basing.horse_frontage),
            ("basing.gun_frontage", &rates.basing.gun_frontage),
            ("basing.disorder_gap", &rates.basing.disorder_gap),
        ];
        for (name, n) in inches {
            if !n.value.is_finite() || n.value <= 0.0 || n.value > 200.0 {
                problems.push(format!("{name}: {} is not a distance a table can use (more than 0, at most 200 inches)", n.value));
            }
        }
        for (name, n) in [("tosses.fails_at_most", &rates.tosses.fails_at_most), ("tosses.morale_fails_at_most", &rates.tosses.morale_fails_at_most), ("tosses.rally", &rates.tosses.rally), ("tosses.rally_with_leader", &rates.tosses.rally_with_leader)] {
            if !(1..=6).contains(&n.value) {
                problems.push(format!("{name}: {} is not a face of a d6 (1 to 6)", n.value));
            }
        }
        if rates.moves.withdraw_share.value > 1.0 {
            problems.push(format!("moves.withdraw_share: {} is more than the whole move", rates.moves.withdraw_share.value));
        }
        if rates.turns.default_limit.value == 0 {
            problems.push("turns.default_limit: a game needs at least one turn".into());
        }
        match problems.is_empty() {
            true => Ok(rates),
            false => Err(problems.into_iter().map(|p| format!("{file}: {p}")).collect::<Vec<_>>().join("\n")),
        }
    }

    /// The rates shipped with the program.
    pub fn embedded() -> &'static Rates {
        static RATES: OnceLock<Rates> = OnceLock::new();
        RATES.get_or_init(|| Rates::parse(EMBEDDED, FILE).unwrap_or_else(|e| panic!("the embedded rates are checked by the tests: {e}")))
    }

    /// Every entry, its name and source, for the coverage doc and its test.
    pub fn sources(&self) -> Vec<(&'static str, String, &Source)> {
        fn f<'a>(name: &'static str, n: &'a Sourced<f32>) -> (&'static str, String, &'a Source) {
            (name, format!("{}", n.value), &n.source)
        }
        fn i<'a>(name: &'static str, n: &'a Sourced<i32>) -> (&'static str, String, &'a Source) {
            (name, format!("{:+}", n.value), &n.source)
        }
        let m = &self.moves;
        let r = &self.ranges;
        let t = &self.tosses;
        let x = &self.modifiers;
        let b = &self.basing;
        vec![
            f("foot deployed", &m.foot_deployed),
            f("foot in column", &m.foot_column),
            f("dragoons deployed", &m.dragoons_deployed),
            f("dragoons in column", &m.dragoons_column),
            f("guns unlimbered", &m.guns_unlimbered),
            f("guns limbered", &m.guns_limbered),
            f("leader", &m.leader),
            f("withdrawal share", &m.withdraw_share),
            f("rout", &m.rout),
            f("crew falls back", &m.crew_falls_back),
            f("artillery range", &r.artillery),
            f("rifle range", &r.rifles),
            f("musketry range", &r.musketry),
            f("seen into woods", &r.woods_seen_into),
            f("leader re-roll reach", &r.leader_reroll),
            f("leader with a unit", &r.leader_with_unit),
            i("toss fails at most", &t.fails_at_most),
            i("morale fails at most", &t.morale_fails_at_most),
            i("rally on", &t.rally),
            i("rally with a leader on", &t.rally_with_leader),
            i("disordered", &x.disordered),
            i("column or reinforced line", &x.column_or_reinforced),
            i("wedge", &x.wedge),
            i("charged (first round)", &x.charged_first_round),
            i("foot in melee with dragoons", &x.dragoons_against_foot),
            i("each attacker over one", &x.each_attacker_over_one),
            i("behind cover", &x.cover),
            i("charged uphill", &x.charged_uphill),
            f("foot stand frontage", &b.foot_frontage),
            f("horse stand frontage", &b.horse_frontage),
            f("gun stand frontage", &b.gun_frontage),
            f("disordered gap", &b.disorder_gap),
            (
                "default turn limit",
                format!("{}", self.turns.default_limit.value),
                &self.turns.default_limit.source,
            ),
        ]
    }
}
