//! The quick ACW game as the window, the CLI and the automatic player see it: the player-turn's
//! steps (QK1–QK5) with QK3's question, the choices open now, a unit's movement, sheet, badges
//! and fire bands, and the exact odds of every fire, charge and melee. Every choice is judged by
//! the game's own check.

use bevy::ecs::entity::Entity;

use super::charts::FireArm;
use super::game::{Game, QKS, ROUT_ANSWERS, Shot, Step, formation_words};
use super::melee::{fight, odds as melee_odds};
use super::moves;
use crate::rules::action::Action;
use crate::rules::cite::Source;
use crate::rules::engine::{Badge, Choice, CommandRadius, Fact, Factor, MoveKind, Movement, Odds, Preview, PreviewBlock, Prompt, RangeBand, SequenceStep, SequenceView, SheetRow, Tone, TrackItem, TrackState, UnitStatus, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::{Arm, Formation};
use crate::table::words::{formation as formation_name, inches};

fn cite(rule: &str) -> String {
    cited(QKS, rule)
}

/// The exact chances of a 2d6 score + `modifier` reaching `needs` over the 36 throws.
pub fn chance_2d6(modifier: i32, needs: i32) -> f64 {
    let mut n = 0;
    for a in 1..=6 {
        for b in 1..=6 {
            if a + b + modifier >= needs {
                n += 1;
            }
        }
    }
    n as f64 / 36.0
}

/// QK13: the chances of a shot: (miss, one stand, two stands).
pub fn shot_odds(shot: &Shot, over: i32) -> (f64, f64, f64) {
    let hit = chance_2d6(shot.modifier(), shot.needs);
    let two = chance_2d6(shot.modifier(), shot.needs + over);
    (1.0 - hit, hit - two, two)
}

impl Game {
    pub(super) fn sequence_view(&self) -> SequenceView {
        let phasing = self.phasing();
        let steps: Vec<SequenceStep> = Step::ALL
            .iter()
            .map(|s| {
                let who = if *s == Step::DefensiveFire { self.side_name(self.order[1 - self.phase.min(1)]) } else { self.side_name(phasing) };
                SequenceStep { label: format!("{} ({who})", s.words()), cite: cite(s.rule()) }
            })
            .collect();
        let current = Step::ALL.iter().position(|s| *s == self.step);
        let track = self
            .order
            .iter()
            .enumerate()
            .map(|(i, &side)| {
                let state = if self.over || i < self.phase {
                    TrackState::Done
                } else if i == self.phase {
                    TrackState::Current
                } else {
                    TrackState::Waiting
                };
                let units = self.live_units().filter(|(_, u)| u.side == side).count();
                TrackItem { label: self.side_name(side).to_string(), detail: format!("{}'s player-turn ({:?}): {units} units on the table", self.side_name(side), self.nation(side)), state }
            })
            .collect();
        let limit = self.scenario.turn_limit;
        let of = limit.map_or(String::new(), |l| format!(" of {l}"));
        let prompt = self.question.map(|q| Prompt {
            id: q.id,
            question: format!("{} has a Morale Marker: stay (turning about at most) or rout {}?", self.name(q.unit), inches(self.unit(q.unit).map_or(12.0, |u| self.charts.moves(Game::mover(u)).rout))),
            options: ROUT_ANSWERS.iter().map(|a| a.to_string()).collect(),
            cite: cite("3"),
        });
        let (headline, deciding, acting) = if self.over {
            ("The game is over (QK1)".to_string(), None, Vec::new())
        } else if let Some(q) = self.question {
            let owner = self.unit(q.unit).map_or(0, |u| u.side);
            (format!("Turn {}{of}: {} must say whether {} stays or routs (QK3)", self.turn, self.side_name(owner), self.name(q.unit)), Some(owner), vec![q.unit])
        } else {
            let side = self.acting_side();
            let acting = self.live_units().filter(|(e, u)| u.side == side && self.may_act(*e)).map(|(e, _)| e).collect();
            let what = match self.step {
                Step::Command => "leaders ride and join units",
                Step::Move => "move, form, charge",
                Step::Rally => "unmoved units have rallied",
                Step::DefensiveFire => "the other side fires",
                Step::OffensiveFire => "fire",
                Step::Melee => "units in contact fight",
            };
            (format!("Turn {}{of}: {}'s player-turn, {} step: {what} (QK{})", self.turn, self.side_name(self.phasing()), self.step.words().to_lowercase(), self.step.rule()), Some(side), acting)
        };
        SequenceView { turn: self.turn, limit, steps, current: (!self.over).then_some(current).flatten(), headline, track, deciding, acting, prompt, started: true, over: self.over }
    }

    /// Whether a unit has anything left to do in this step.
    fn may_act(&self, e: Entity) -> bool {
        let st = self.state(e);
        match self.step {
            Step::Move => !st.routed && (st.spent < self.allowance(e) || st.stayed),
            Step::DefensiveFire | Step::OffensiveFire => !st.fired && self.unit(e).is_some_and(|u| moves::fire_arm(u.arm, u.formation).is_some()),
            Step::Melee => self.next_melee().is_some_and(|(a, d)| a == e || d == e),
            _ => false,
        }
    }

    /// Going on (QK5; in the melee step, fighting the next melee), the open question's answers
    /// (QK3), and the leaders' choices in the command step (QK2).
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        if self.over {
            return Vec::new();
        }
        let mut choices = Vec::new();
        if let Some(q) = self.question {
            let name = self.name(q.unit);
            for (option, label) in ROUT_ANSWERS.iter().enumerate() {
                choices.push(Choice::judged(self, capitalised(label), Action::Answer { prompt: q.id, option: option as u32 }, false).about(name.clone()));
            }
        }
        let next = match (self.next_melee(), self.step_after()) {
            (Some((a, d)), _) => (format!("Fight the melee: {} against {}", self.name(a), self.name(d)), true),
            (None, Some(step)) => (format!("On to the {} step", step.words().to_lowercase()), false),
            (None, None) => (format!("End {}'s player-turn", self.side_name(self.phasing())), false),
        };
        choices.push(Choice::judged(self, next.0, Action::Next, next.1));
        choices
    }

    /// QK6: the changes of formation open to the unit, each with its price.
    pub(super) fn unit_choices_now(&self, e: Entity) -> Vec<Choice> {
        let Some(unit) = self.unit(e) else {
            // A leader: the units he may join (QK10).
            let Some(l) = self.leader_of_entity(e) else { return Vec::new() };
            return self
                .live_units()
                .filter(|(_, u)| u.side == l.side)
                .map(|(_, u)| Choice::judged(self, format!("Join {}", u.name), Action::JoinUnit { leader: l.name.clone(), unit: u.name.clone() }, false).about(l.name.clone()))
                .filter(Choice::allowed)
                .collect();
        };
        let options: &[Formation] = match unit.arm {
            Arm::Infantry => &[Formation::Line, Formation::Column],
            Arm::Cavalry => &[Formation::Line, Formation::Column, Formation::Dismounted],
            Arm::Artillery { .. } => &[Formation::Limbered, Formation::Unlimbered],
        };
        let info = self.situation();
        let Ok(i) = info.find(&unit.name) else { return Vec::new() };
        options
            .iter()
            .filter(|&&f| f != unit.formation)
            .map(|&formation| {
                let price = moves::form(info.unit(i), formation).map_or("—", |p| p.words);
                Choice::judged(self, format!("Form {} ({price} move)", formation_name(formation)), Action::ChangeFormation { unit: unit.name.clone(), formation }, false).about(unit.name.clone()).detail("QK6: changing formation costs half a move; mounting or dismounting a quarter")
            })
            .collect()
    }

    /// QK9, QK11: fire at or charge an enemy unit.
    pub(super) fn target_choices_now(&self, e: Entity, target: Entity) -> Vec<Choice> {
        let (Some(unit), Some(other)) = (self.unit(e), self.unit(target)) else { return Vec::new() };
        if unit.side == other.side {
            return Vec::new();
        }
        let (a, t) = (unit.name.clone(), other.name.clone());
        vec![
            Choice::judged(self, "Fire (2d6, QK11)", Action::Fire { unit: a.clone(), target: t.clone() }, true).about(t.clone()),
            Choice::judged(self, "Charge (2d6 morale, QK9)", Action::Charge { unit: a, target: t.clone() }, true).about(t),
        ]
    }

    /// QK6, QK2: the allowance while the unit may still move.
    pub(super) fn movement_now(&self, e: Entity) -> Option<Movement> {
        let unit = self.unit(e)?;
        self.may_move(&unit.name).ok()?;
        let (factor, why) = self.command(e);
        let detail = format!("{}: {} {}", formation_words(unit), inches(self.allowance(e) / factor), if factor < 1.0 { format!("× {factor} ({why})") } else { why });
        Some(Movement { allowance: self.allowance(e), spent: self.state(e).spent, road: None, kinds: vec![MoveKind { label: "move".into(), cite: cite("6"), detail, extra: 0.0, dice: None, verdict: Ok(()) }] })
    }

    /// QK2, QK21: each leader on the table with his radius: inside it every stand of his units
    /// moves full; a brigadier commands his brigade, the army commander every unit of his side.
    pub(super) fn radii(&self) -> Vec<CommandRadius> {
        self.leaders
            .iter()
            .filter(|l| !l.lost)
            .map(|l| {
                let units: Vec<Entity> = self.live_units().filter(|(_, u)| l.commands(u)).map(|(e, _)| e).collect();
                let whose = if l.brigade.is_some() { "his brigade's" } else { "his side's" };
                CommandRadius {
                    leader: l.entity,
                    side: l.side,
                    centre: self.leader_at(l),
                    radius: l.radius,
                    label: format!("{} {}", l.name.rsplit(' ').next().unwrap_or(&l.name), inches(l.radius)),
                    detail: format!("{}'s command radius, {}: a unit of {whose} with every stand inside moves full, outside half (QK2)", l.name, inches(l.radius)),
                    units,
                }
            })
            .collect()
    }

    /// A morale roll's modifiers in words ("Longstreet with it (QK21) +3; a Morale Marker −1").
    fn morale_words(&self, e: Entity) -> Option<String> {
        let f = self.morale_factors(e);
        (!f.is_empty()).then(|| f.iter().map(|(why, v)| format!("{why} {v:+}")).collect::<Vec<_>>().join("; "))
    }

    pub(super) fn sheet_rows(&self, e: Entity) -> Vec<SheetRow> {
        let Some(unit) = self.unit(e) else {
            let Some(l) = self.leader_of_entity(e) else { return Vec::new() };
            let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone: None };
            return vec![row("Bonus", format!("+{}", l.bonus), "21"), row("Radius", inches(l.radius), "21"), row("With", l.attached.map_or("no unit".into(), |u| self.name(u)), "10")];
        };
        let st = self.state(e);
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone: None };
        let (needs, bonus) = self.morale(e);
        let mut rows = vec![
            row("Nation", format!("{:?}", self.nation(unit.side)), "1"),
            row("Stands", format!("{} of {} (removed below half)", st.stands, st.stands_start), "19"),
            row("Formation", formation_words(unit), "6"),
            row("Move", format!("{} ({} spent)", inches(self.allowance(e)), inches(st.spent)), "6"),
            row("Command", self.command(e).1, "2"),
            row("Morale", format!("{needs}+ on 2d6, {bonus:+}"), "10"),
            row("Fire", moves::fire_arm(unit.arm, unit.formation).map_or("cannot fire".into(), |a: FireArm| {
                let r = self.charts.fire_row(a);
                r.needs.iter().zip(&self.charts.bands).map(|(n, b)| format!("{}: {}", inches(b.value), n.map_or("—".into(), |n| format!("{n}+")))).collect::<Vec<_>>().join(", ")
            }), "11"),
            row("Moved this player-turn", yes(st.moved), "4"),
            row("Fired this step", yes(st.fired), "5"),
        ];
        rows.push(SheetRow { label: "Morale Marker".into(), value: yes(st.marker), cite: Some(cite("13")), tone: st.marker.then_some(Tone::Bad) });
        if let Some(l) = self.attached_leader(e) {
            rows.push(SheetRow { label: "Leader".into(), value: format!("{} (+{})", l.name, l.bonus), cite: Some(cite("10")), tone: Some(Tone::Info) });
        }
        rows
    }

    pub(super) fn unit_badges(&self, e: Entity) -> Vec<Badge> {
        let st = self.state(e);
        let mut badges = Vec::new();
        if st.marker {
            badges.push(Badge { text: "MM".into(), meaning: "Morale Marker: stays or routs; -1 to fire and morale, -2 in melee".into(), cite: Some(cite("13")), tone: Tone::Bad });
        }
        if st.stands < st.stands_start {
            badges.push(Badge { text: format!("{}/{}", st.stands, st.stands_start), meaning: "stands left of those it started with (removed below half)".into(), cite: Some(cite("19")), tone: Tone::Bad });
        }
        if let Some(l) = self.attached_leader(e) {
            badges.push(Badge { text: format!("+{}", l.bonus), meaning: format!("{} is with the unit", l.name), cite: Some(cite("10")), tone: Tone::Info });
        }
        badges
    }

    pub(super) fn unit_fire_bands(&self, e: Entity) -> Vec<RangeBand> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        let Some(arm) = moves::fire_arm(unit.arm, unit.formation) else { return Vec::new() };
        let row = self.charts.fire_row(arm);
        row.needs.iter().zip(&self.charts.bands).filter_map(|(n, b)| n.map(|n| RangeBand { label: format!("{n}+"), reach: b.value, cite: cite("11") })).collect()
    }

    pub(super) fn status(&self, e: Entity) -> UnitStatus {
        let Some(_) = self.unit(e) else { return UnitStatus { parts: vec!["removed".into()], marked: false, gone: true } };
        let st = self.state(e);
        let mut parts = Vec::new();
        if st.marker {
            parts.push("Morale Marker (QK3)".into());
        }
        if st.routed {
            parts.push("routed".into());
        } else if st.moved {
            parts.push("moved".into());
        }
        if st.fired {
            parts.push("fired".into());
        }
        UnitStatus { parts, marked: st.marker, gone: false }
    }

    /// The exact odds of a shot (QK11–QK13), a charge (QK9, QK10) or the next melee (QK15–QK18);
    /// refused as `apply` would refuse it.
    pub(super) fn preview_of(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        match action {
            Action::Fire { unit, target } => {
                let shot = self.check_fire(unit, target)?;
                Ok(Some(self.fire_preview(unit, target, &shot)))
            }
            Action::Charge { unit, target } => {
                let plan = self.check_charge(unit, target)?;
                let p1 = chance_2d6(plan.charger_bonus, plan.charger_needs);
                let p2 = chance_2d6(plan.target_bonus, plan.target_needs);
                let mut block = PreviewBlock { heading: format!("{unit} charges {target}"), ..PreviewBlock::default() };
                block.facts.push(Fact { text: format!("{} by the charge path, into its {}", inches(plan.path.distance), Game::charge_zone_words(plan.zone)), rule: cite("9") });
                block.factors.push(Factor { name: format!("{unit}'s charge"), value: format!("2d6 {:+} ≥ {}", plan.charger_bonus, plan.charger_needs), rule: cite("10"), detail: self.morale_words(plan.unit), source: Some(self.charts.morale(self.nation(self.unit(plan.unit).map_or(0, |u| u.side))).source.clone()) });
                block.factors.push(Factor { name: format!("{target} stands"), value: format!("2d6 {:+} ≥ {}", plan.target_bonus, plan.target_needs), rule: cite("10"), detail: self.morale_words(plan.target), source: Some(self.charts.morale(self.nation(self.unit(plan.target).map_or(0, |u| u.side))).source.clone()) });
                block.odds = vec![
                    Odds { outcome: format!("{unit} fails: half way and a Morale Marker"), chance: 1.0 - p1 },
                    Odds { outcome: format!("{target} runs 2d6\" and takes a Morale Marker"), chance: p1 * (1.0 - p2) },
                    Odds { outcome: format!("{target} stands: melee this player-turn"), chance: p1 * p2 },
                ];
                Ok(Some(Preview { title: format!("{unit} charges {target} (QK9)"), blocks: vec![block] }))
            }
            Action::Next => {
                self.check_next()?;
                let Some((a, d)) = self.next_melee() else { return Ok(None) };
                Ok(Some(self.melee_preview(a, d)))
            }
            other => self.check(other).map(|()| None),
        }
    }

    fn fire_preview(&self, unit: &str, target: &str, shot: &Shot) -> Preview {
        let over = self.charts.two_stands_over.value;
        let (miss, one, two) = shot_odds(shot, over);
        let row = self.charts.fire_row(shot.arm);
        let mut block = PreviewBlock { heading: format!("{unit} fires at {target}"), ..PreviewBlock::default() };
        block.facts.push(Fact { text: format!("{} edge to edge: the {} band", inches(shot.range), self.charts.band_label(shot.band)), rule: cite("11") });
        block.factors.push(Factor { name: format!("{} at {}", shot.arm.words(), self.charts.band_label(shot.band)), value: format!("{}+", shot.needs), rule: cite("11"), detail: None, source: Some(row.source.clone()) });
        for (m, v) in &shot.modifiers {
            block.factors.push(Factor { name: m.words().into(), value: format!("{v:+}"), rule: cite("12"), detail: None, source: Some(self.charts.fire_modifier(*m).source.clone()) });
        }
        block.odds = vec![
            Odds { outcome: "miss".into(), chance: miss },
            Odds { outcome: format!("{target} loses 1 stand and takes a Morale Marker"), chance: one },
            Odds { outcome: format!("{target} loses 2 stands ({over}+ over) and takes a Morale Marker"), chance: two },
        ];
        Preview { title: format!("{unit} fires at {target} (QK11)"), blocks: vec![block] }
    }

    fn melee_preview(&self, a: Entity, d: Entity) -> Preview {
        let f = fight(self, a, d);
        let (an, dn) = (self.name(a), self.name(d));
        let side_block = |who: &str, s: &super::melee::MeleeSide, heading: &str| {
            let mut b = PreviewBlock { heading: format!("{who} ({heading}): 2d6 {:+}", s.total()), ..PreviewBlock::default() };
            b.factors.push(Factor { name: "stands fighting".into(), value: format!("+{}", s.stands), rule: cite("18"), detail: None, source: None });
            if s.doubled {
                b.factors.push(Factor { name: "flank or rear: stands count double".into(), value: format!("+{}", s.stands), rule: cite("17"), detail: None, source: None });
            }
            for (m, v) in &s.modifiers {
                b.factors.push(Factor { name: m.words().into(), value: format!("{v:+}"), rule: cite("16"), detail: None, source: Some(self.charts.melee_modifier(*m).source.clone()) });
            }
            if s.leader != 0 {
                b.factors.push(Factor { name: "attached leader".into(), value: format!("{:+}", s.leader), rule: cite("16"), detail: None, source: Some(Source::Text { section: "16".into() }) });
            }
            b
        };
        let outcomes = PreviewBlock { heading: "Outcomes (winner / loser stands; # retreats 2d6\" and takes a Morale Marker)".into(), odds: melee_odds(&f, &self.charts.melee_results).into_iter().map(|(outcome, chance)| Odds { outcome, chance }).collect(), ..PreviewBlock::default() };
        Preview { title: format!("Melee: {an} against {dn} (QK15)"), blocks: vec![side_block(&an, &f.attacker, "attacking"), side_block(&dn, &f.defender, "defending"), outcomes] }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}
