//! A Purky game as the window, the command line and the automatic player see it: the turn's
//! steps (PK1) with the open question, the choices open now, a unit's movement, sheet, badges
//! and ranges, and the exact odds of every pool before it is rolled. Every choice is judged by
//! the game's own check.

use bevy::ecs::entity::Entity;

use super::card::{self, CHARTS};
use super::combat::Pool;
use super::game::{Game, PK, Question, STEPS, Status, Step, question_rule, step_name};
use super::odds::{self, Test};
use crate::rules::action::Action;
use crate::rules::engine::{Badge, Choice, Fact, Factor, MoveKind, Movement, Odds, Preview, PreviewBlock, Prompt, RangeBand, Reach, SequenceStep, SequenceView, SheetRow, Tone, TrackItem, TrackState, UnitStatus, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::Formation;
use crate::table::movement::Allowance;
use crate::table::words::{formation as formation_name, inches};

fn cite(rule: &str) -> String {
    cited(PK, rule)
}

/// The formations a unit may be ordered into, in the card's columns' order.
const FORMS: [Formation; 7] = [Formation::Column, Formation::AttackColumn, Formation::Line, Formation::Skirmish, Formation::Square, Formation::Limbered, Formation::Unlimbered];

impl Game {
    pub(super) fn sequence_view(&self) -> SequenceView {
        let limit = self.scenario.turn_limit;
        let of = limit.map_or(String::new(), |l| format!(" of {l}"));
        let prompt = self.asked.map(|a| {
            let options = a.question.answers();
            Prompt { id: a.id, question: self.question_text(&a.question), options: options.iter().map(|o| o.to_string()).collect(), cite: cite(question_rule(&a.question)) }
        });
        let step = self.current();
        let (headline, deciding, acting) = if self.over {
            ("The game is over (PK25)".to_string(), None, Vec::new())
        } else if let Some(a) = self.asked {
            let (side, unit) = match a.question {
                Question::Initiative { winner } => (winner, None),
                Question::Rally { unit } | Question::Evade { unit, .. } => (self.unit(unit).map_or(0, |u| u.side), Some(unit)),
            };
            (format!("Turn {}{of}: {} must answer: {}", self.turn, self.side_name(side), self.question_text(&a.question)), Some(side), unit.into_iter().collect())
        } else {
            let side = self.acting_side();
            let acting = match side {
                Some(side) => self.live_units().filter(|(e, u)| u.side == side && self.acts_now(*e)).map(|(e, _)| e).collect(),
                None => Vec::new(),
            };
            let whose = side.map_or(String::new(), |s| format!(": {}", self.side_name(s)));
            (format!("Turn {}{of}: the {} step{whose} (PK{})", self.turn, step_name(step), step.rule()), side, acting)
        };
        let track = STEPS
            .iter()
            .enumerate()
            .map(|(i, &st)| {
                let state = if self.over || i < self.step {
                    TrackState::Done
                } else if i == self.step {
                    TrackState::Current
                } else {
                    TrackState::Waiting
                };
                let who = st.team().map_or(String::new(), |t| format!(" — {}", self.side_name(self.side_of(t))));
                TrackItem { label: step_name(st), detail: format!("{}{who}", step_name(st)), state }
            })
            .collect();
        SequenceView {
            turn: self.turn,
            limit,
            steps: STEPS.iter().map(|&st| SequenceStep { label: step_name(st), cite: cite(st.rule()) }).collect(),
            current: (!self.over).then_some(self.step),
            headline,
            track,
            deciding,
            acting,
            prompt,
            started: true,
            over: self.over,
        }
    }

    /// May the unit do anything in this step?
    fn acts_now(&self, e: Entity) -> bool {
        let Some(u) = self.unit(e) else { return false };
        match self.current() {
            Step::Move(_) | Step::Reserve(_) => self.may_move(&u.name).is_ok(),
            Step::Fire(_) => self.pk(e).is_some_and(|p| !p.fired && p.status != Status::Routed) && !self.engaged(e),
            _ => false,
        }
    }

    /// Going on (PK1), and the open question's answers.
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        if self.over {
            return Vec::new();
        }
        let mut choices = Vec::new();
        if let Some(p) = self.sequence_view().prompt {
            for (option, label) in p.options.iter().enumerate() {
                let action = Action::Answer { prompt: p.id, option: option as u32 };
                let rolls = match self.asked.map(|a| a.question) {
                    Some(Question::Rally { .. }) => option == 0,
                    Some(Question::Evade { .. }) => option != 1,
                    _ => false,
                };
                choices.push(Choice::judged(self, label.clone(), action, rolls).detail(p.question.clone()));
            }
        }
        let label = match self.current() {
            Step::Initiative => "Roll for the initiative".to_string(),
            Step::Fire(super::game::Team::A) => "End the fire: morale tests".to_string(),
            Step::Melee => "Fight the melees".to_string(),
            st => format!("End the {} step", step_name(st)),
        };
        choices.push(Choice::judged(self, label, Action::Next, matches!(self.current(), Step::Initiative | Step::Melee | Step::Fire(super::game::Team::A))));
        choices
    }

    pub(super) fn status_of(&self, e: Entity) -> UnitStatus {
        let Some(pk) = self.pk(e) else { return UnitStatus { parts: vec!["removed (PK24)".into()], marked: false, gone: true } };
        let mut parts = Vec::new();
        match pk.status {
            Status::Shaken => parts.push("shaken (PK20)".to_string()),
            Status::Routed => parts.push("routing (PK8)".to_string()),
            Status::Steady => {}
        }
        if pk.hits > 0 {
            parts.push(format!("{} hits (PK21)", pk.hits));
        }
        for (done, words) in [(pk.moved, "moved"), (pk.fired, "fired"), (pk.meleed, "fought"), (pk.reserve_moved, "reserve move")] {
            if done {
                parts.push(words.to_string());
            }
        }
        if self.engaged(e) {
            parts.push("in melee (PK19)".into());
        }
        if let Some(sq) = self.shelter_of(e) {
            parts.push(format!("crews in {}'s square (PK4)", self.name(sq)));
        }
        UnitStatus { parts, marked: pk.status != Status::Steady, gone: false }
    }

    /// PK6, PK7, PK4: changes of formation the card gives a rate for.
    pub(super) fn unit_choices_now(&self, e: Entity) -> Vec<Choice> {
        let (Some(u), Some(pk)) = (self.unit(e), self.pk(e)) else { return Vec::new() };
        if !matches!(self.current(), Step::Move(_)) {
            return Vec::new();
        }
        let shelter = |f: Formation| f == Formation::Square && pk.row().square_shelter;
        FORMS
            .into_iter()
            .filter(|&f| f != u.formation && (card::rate(pk.class, f).is_some() || shelter(f)))
            .map(|formation| {
                let action = Action::ChangeFormation { unit: u.name.clone(), formation };
                if shelter(formation) {
                    return Choice::judged(self, "Shelter the crews in a square (a gun's function)", action, false).about(u.name.clone()).detail("PK4: the card's \"•\": light guns and amusettes shelter in a friendly square within 1\"".to_string());
                }
                if u.formation == Formation::Square && formation == Formation::Unlimbered {
                    return Choice::judged(self, "Bring the crews out of the square (a gun's function)", action, false).about(u.name.clone()).detail("PK4: the crews come back to their unlimbered guns".to_string());
                }
                let rate = card::rate(pk.class, formation).unwrap_or(0);
                let cost = if pk.row().is_gun() { "a gun's function".to_string() } else { format!("half the {}\" rate", rate) };
                Choice::judged(self, format!("Form {} ({cost})", formation_name(formation)), action, false).about(u.name.clone()).detail(format!("PK7: forming costs half the new formation's rate; {} moves {}\" in it", pk.row().row, rate))
            })
            .collect()
    }

    /// PK12: fire at an enemy in the fire step; PK18: charge it in the move step.
    pub(super) fn target_choices_now(&self, e: Entity, target: Entity) -> Vec<Choice> {
        let (Some(unit), Some(other)) = (self.unit(e), self.unit(target)) else { return Vec::new() };
        if unit.side == other.side {
            return Vec::new();
        }
        let fire = Action::Fire { unit: unit.name.clone(), target: other.name.clone() };
        let charge = Action::Charge { unit: unit.name.clone(), target: other.name.clone() };
        vec![
            Choice::judged(self, "Fire (a d10 a 4 figures)", fire, true).about(other.name.clone()),
            Choice::judged(self, "Charge (melee in the melee step)", charge, true).about(other.name.clone()),
        ]
    }

    pub(super) fn movement_now(&self, e: Entity) -> Option<Movement> {
        let unit = self.unit(e)?;
        let (_, rate) = self.may_move(&unit.name).ok()?;
        let spent = self.pk(e).map_or(0.0, |p| p.spent);
        let detail = rate.why.iter().map(|(w, r)| format!("{w} ({})", cite(r))).collect::<Vec<_>>().join("; ");
        Some(Movement { allowance: rate.full, spent, road: rate.road.map(|r| (r - rate.full).max(0.0)), kinds: vec![MoveKind { label: "move".into(), cite: cite("6"), detail, extra: 0.0, dice: None, verdict: Ok(()) }] })
    }

    pub(super) fn reach_of(&self, e: Entity) -> Option<Reach> {
        let rate = self.rate(e)?;
        let pk = self.pk(e)?;
        Some(Reach { allowance: Allowance { full: rate.full, road: rate.road }, what: rate.why.first().map_or_else(String::new, |w| w.0.clone()), source: pk.row().source.clone() })
    }

    pub(super) fn sheet_rows(&self, e: Entity) -> Vec<SheetRow> {
        let (Some(u), Some(pk)) = (self.unit(e), self.pk(e)) else { return Vec::new() };
        let row = pk.row();
        let r = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone: None };
        let opt = |v: Option<u32>| v.map_or("–".to_string(), |n| format!("{n}\""));
        let charts = |v: &[u8]| v.iter().zip(CHARTS).map(|(n, c)| format!("{c} {n}")).collect::<Vec<_>>().join(" ");
        let fire: Vec<u8> = row.fire.iter().map(|n| n.unwrap_or(0)).collect();
        let mut rows = vec![
            r("Class", row.row.clone(), "25"),
            r("Figures", format!("{} of {} ({} stands)", u.figures, u.initial_figures, u.stands.len()), "25"),
            r("Formation", formation_name(u.formation).to_string(), "6"),
            r("Rates", format!("road {}\", skirmish {}, column {}, line {}, square {}", row.road, opt(row.skirmish), opt(row.column), opt(row.line), opt(row.square)), "6"),
            r("Range", match row.long_range { Some(l) => format!("{}\" / {l}\"", row.range), None => format!("{}\"", row.range) }, "12"),
            if self.skirmish_fire(e) {
                r("Fire", format!("optional skirmisher fire: a d10 a figure, {} or less, {}", super::combat::SKIRMISH_FIRE_HIT, inches(super::combat::SKIRMISH_FIRE_RANGE)), "16")
            } else {
                r("Fire", charts(&fire).replace(" 0", " ~"), "14")
            },
            r("Melee", charts(&row.melee), "18"),
            r("Morale", charts(&row.morale), "21"),
            SheetRow { label: "Cumulative hits".into(), value: format!("{} (morale chart {})", pk.hits, CHARTS[super::combat::chart_by_hits(pk.hits)]), cite: Some(cite("21")), tone: (pk.hits > 0).then_some(Tone::Bad) },
            SheetRow {
                label: "Status".into(),
                value: match pk.status {
                    Status::Steady => "steady".into(),
                    Status::Shaken => "shaken: fires a chart down, cannot charge".into(),
                    Status::Routed => "routing".into(),
                },
                cite: Some(cite("20")),
                tone: (pk.status != Status::Steady).then_some(Tone::Bad),
            },
        ];
        if let Some(d) = self.leader_distance(e) {
            rows.push(r("Leader", format!("{} away{}", inches(d), if d > super::game::COMMAND_RADIUS { ": half rate" } else { "" }), "5"));
        }
        rows
    }

    pub(super) fn unit_badges(&self, e: Entity) -> Vec<Badge> {
        let Some(pk) = self.pk(e) else { return Vec::new() };
        let mut badges = Vec::new();
        if pk.hits > 0 {
            badges.push(Badge { text: format!("{}h", pk.hits), meaning: format!("{} cumulative hits: morale chart {}", pk.hits, CHARTS[super::combat::chart_by_hits(pk.hits)]), cite: Some(cite("21")), tone: Tone::Info });
        }
        match pk.status {
            Status::Shaken => badges.push(Badge { text: "shaken".into(), meaning: "failed one morale die: fires a chart down, cannot charge".into(), cite: Some(cite("20")), tone: Tone::Bad }),
            Status::Routed => badges.push(Badge { text: "rout".into(), meaning: "failed two morale dice: routs 16\" (cavalry 24\") each move".into(), cite: Some(cite("8")), tone: Tone::Bad }),
            Status::Steady => {}
        }
        if self.engaged(e) {
            badges.push(Badge { text: "melee".into(), meaning: "in contact: fights in the melee step".into(), cite: Some(cite("19")), tone: Tone::Info });
        }
        if let Some(sq) = self.shelter_of(e) {
            badges.push(Badge { text: "in square".into(), meaning: format!("its crews shelter in {}'s square: no fire, no move, not a target", self.name(sq)), cite: Some(cite("4")), tone: Tone::Info });
        }
        if pk.fired {
            badges.push(Badge { text: "fired".into(), meaning: "has fired this turn".into(), cite: Some(cite("12")), tone: Tone::Info });
        }
        badges
    }

    pub(super) fn unit_fire_bands(&self, e: Entity) -> Vec<RangeBand> {
        let Some(pk) = self.pk(e) else { return Vec::new() };
        let row = pk.row();
        if self.skirmish_fire(e) {
            return vec![RangeBand { label: "skirmish fire".into(), reach: self.fire_reach(e), cite: cite("16") }];
        }
        let mut bands = vec![RangeBand { label: if row.is_gun() { "short".into() } else { "fire".into() }, reach: row.range as f32, cite: cite(if row.is_gun() { "13" } else { "12" }) }];
        if let Some(l) = row.long_range {
            bands.push(RangeBand { label: "long".into(), reach: l as f32, cite: cite("13") });
        }
        bands
    }

    /// The exact odds of a shot (PK12–PK17), a charge's first round (PK18) and a rally (PK23);
    /// refused as `apply` would refuse it.
    pub(super) fn preview_of(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        match action {
            Action::Fire { unit, target } => {
                let shot = self.check_fire(unit, target)?;
                let rule = if shot.pool.skirmish { "16" } else { "12" };
                Ok(Some(Preview { title: format!("{unit} fires at {target} (PK{rule})"), blocks: self.shot_blocks(&format!("{unit} fires at {target}"), &shot) }))
            }
            Action::Charge { unit, target } => {
                let plan = self.check_charge(unit, target)?;
                let s = self.situation();
                let i = s.find(unit).map_err(|why| Refusal::unruled(PK, why))?;
                let there = s.with_stands(i, &plan.placed.stands, plan.placed.formation);
                let mut blocks = vec![PreviewBlock { heading: format!("{unit} charges {target}"), facts: plan.placed.notes.iter().map(|(w, r)| Fact { text: w.clone(), rule: cite(r) }).collect(), factors: Vec::new(), odds: Vec::new() }];
                let mut risks = Vec::new();
                for (me, foe) in [(plan.placed.unit, plan.target), (plan.target, plan.placed.unit)] {
                    if let Some(pool) = self.melee_pool(&there, me, foe, &plan.engagement) {
                        blocks.push(pool_block(&format!("round 1: {} against {}", self.name(me), self.name(foe)), &pool, &self.row_of(me).row, "hit", "18"));
                        risks.extend(self.leader_block(foe, &odds::pool_hits(pool.dice, pool.value)));
                    }
                }
                blocks.extend(risks);
                Ok(Some(Preview { title: format!("{unit} charges {target} (PK18)"), blocks }))
            }
            Action::Answer { prompt, option: 2 } => {
                let q = self.check_answer(*prompt, 2)?;
                let Question::Evade { unit, charger } = q else { return Ok(None) };
                let shot = self.evade_fire(unit, charger)?;
                let (name, at) = (self.name(unit), self.name(charger));
                Ok(Some(Preview { title: format!("{name} fires at {at}, then evades half a move (PK11)"), blocks: self.shot_blocks(&format!("{name} fires at {at}"), &shot) }))
            }
            Action::Answer { prompt, option: 0 } => {
                let q = self.check_answer(*prompt, 0)?;
                let Question::Rally { unit } = q else { return Ok(None) };
                let Some(pool) = self.morale_pool(unit, true, None) else { return Ok(None) };
                let routed = self.pk(unit).is_some_and(|p| p.status == Status::Routed);
                Ok(Some(Preview { title: format!("{} rallies (PK23)", self.name(unit)), blocks: vec![morale_block(&self.name(unit), &pool, routed)] }))
            }
            other => self.check(other).map(|()| None),
        }
    }

    /// A shot's pool as preview blocks: the hits, and any leader with the target at risk (PK25).
    fn shot_blocks(&self, heading: &str, shot: &super::combat::Shot) -> Vec<PreviewBlock> {
        let rule = if shot.pool.skirmish { "16" } else { "12" };
        let mut block = pool_block(heading, &shot.pool, &self.row_of(shot.firer).row, "hit", rule);
        block.facts.insert(0, Fact { text: format!("{} edge to edge", inches(shot.range)), rule: cite("12") });
        let mut blocks = vec![block];
        blocks.extend(self.leader_block(shot.target, &odds::pool_hits(shot.pool.dice, shot.pool.value)));
        blocks
    }

    /// PK25: the exact chance that each leader with `unit` is lost to a pool with these odds.
    fn leader_block(&self, unit: Entity, hits: &[f64]) -> Option<PreviewBlock> {
        let risks = self.leader_risk(unit, hits);
        if risks.is_empty() {
            return None;
        }
        Some(PreviewBlock {
            heading: format!("leaders with {}", self.name(unit)),
            facts: vec![Fact { text: format!("a leader with a unit that is hit is lost on a d10 of {}", super::game::LEADER_LOST_ON), rule: cite("25") }],
            factors: Vec::new(),
            odds: risks.into_iter().map(|(name, p)| Odds { outcome: format!("{name} lost"), chance: p }).collect(),
        })
    }

    /// The exact odds of a unit's morale test now (PK20), for the sheet and the bot.
    pub fn morale_preview(&self, e: Entity) -> Option<PreviewBlock> {
        let pool = self.morale_pool(e, false, None)?;
        Some(morale_block(&self.name(e), &pool, false))
    }
}

/// A fire or melee pool as a preview block: facts, and the exact chance of each number of hits.
fn pool_block(heading: &str, pool: &Pool, row: &str, what: &str, rule: &str) -> PreviewBlock {
    let odds = odds::pool_hits(pool.dice, pool.value).into_iter().enumerate().map(|(k, p)| Odds { outcome: format!("{k} {what}{}", if k == 1 { "" } else { "s" }), chance: p }).collect();
    PreviewBlock {
        heading: heading.to_string(),
        facts: pool.why.iter().map(|(w, r)| Fact { text: w.clone(), rule: cite(r) }).collect(),
        factors: vec![Factor {
            name: if pool.skirmish { format!("{row}, the optional skirmisher fire (no chart)") } else { format!("{row}, chart {}", CHARTS[pool.chart]) },
            value: if pool.value == 0 { "~ (no hit)".into() } else { format!("{} d10, {} or less", pool.dice, pool.value) },
            rule: cite(rule),
            detail: Some("a d10 read 1–10 hits at or under the chart's number".into()),
            source: None,
        }],
        odds,
    }
}

/// A morale test (or rally) as a preview block: keep the two lowest (PK20).
fn morale_block(name: &str, pool: &Pool, routed: bool) -> PreviewBlock {
    let odds = odds::morale(pool.dice, pool.value)
        .into_iter()
        .map(|(t, p)| {
            let outcome = match (routed, t) {
                (false, Test::Pass) => "pass",
                (false, Test::OneFails) => "one die fails: shaken",
                (false, Test::BothFail) => "two dice fail: rout",
                (true, Test::Pass) => "rallies: shaken",
                (true, _) => "fails to rally from rout: removed",
            };
            Odds { outcome: outcome.into(), chance: p }
        })
        .collect();
    PreviewBlock {
        heading: format!("{name}'s morale: {} d10, the two lowest kept", pool.dice),
        facts: pool.why.iter().map(|(w, r)| Fact { text: w.clone(), rule: cite(r) }).collect(),
        factors: vec![Factor { name: format!("chart {}", CHARTS[pool.chart]), value: format!("{} or less passes", pool.value), rule: cite("20"), detail: None, source: None }],
        odds,
    }
}
