//! A *Revolution* game as the window, the CLI and the automatic player see it: the player-turn
//! and its steps (SG9, SG10, SG21) with the re-roll question (SG35), the choices open now, a
//! unit's movement, sheet (with the morale ladder, SG27–SG30), badges and fire band, and the
//! exact odds of every toss and combat roll. Every choice is judged by the game's own check.

use bevy::ecs::entity::Entity;

use super::game::{ACCEPT, Attack, Category, Done, Game, SG, SgAction, Step};
use crate::rules::action::Action;
use crate::rules::cite::Source;
use crate::rules::engine::{Badge, Choice, Fact, Factor, MoveKind, Movement, Odds, Preview, PreviewBlock, Prompt, RangeBand, Reach, SequenceStep, SequenceView, SheetRow, Tone, TrackItem, TrackState, UnitStatus, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::{Formation, RevolutionKind};
use crate::scenario::spawn::Commander;
use crate::table::movement::Allowance;
use crate::table::words::{formation as formation_name, inches};

fn cite(rule: &str) -> String {
    cited(SG, rule)
}

/// The rungs of the morale ladder (SG27–SG30), top first, as the sheet shows them.
pub fn ladder(kind: RevolutionKind) -> &'static [&'static str] {
    match kind {
        RevolutionKind::Elite => &["wedge / reinforced line (3 stands)", "close column / formed line (2 stands)", "disordered column / line", "routing"],
        RevolutionKind::Militia => &["disordered column / line (always, SG5)", "routing"],
        RevolutionKind::Artillery => &["manned", "crew fallen back 8\" (fire) · gun lost (melee)"],
        _ => &["close column / formed line", "disordered column / line", "routing"],
    }
}

impl Game {
    /// The unit's rung on the ladder (an index of [`ladder`]).
    pub fn rung(&self, e: Entity) -> Option<usize> {
        let (u, sg) = (self.unit(e)?, self.sg(e)?);
        Some(match sg.kind {
            RevolutionKind::Artillery => usize::from(sg.crew_off),
            RevolutionKind::Militia => usize::from(sg.routing),
            kind => {
                let top = usize::from(kind == RevolutionKind::Elite && matches!(u.formation, Formation::Wedge | Formation::ReinforcedLine));
                let base = usize::from(kind == RevolutionKind::Elite);
                if sg.routing {
                    base + 2
                } else if sg.disordered {
                    base + 1
                } else {
                    base - top
                }
            }
        })
    }

    pub(super) fn sequence_view(&self) -> SequenceView {
        let mut steps = vec![SequenceStep { label: "Rally routers".into(), cite: cite("36") }, SequenceStep { label: "Activation: move, form, charge, withdraw".into(), cite: cite("10") }];
        steps.extend(Category::ALL.iter().map(|c| SequenceStep { label: format!("Combat: {}", c.name()), cite: cite("21") }));
        let current = match self.step {
            Step::Activation => 1,
            Step::Combat(c) => 2 + Category::ALL.iter().position(|&x| x == c).unwrap_or(0),
        };
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
                TrackItem { label: self.side_name(side).to_string(), detail: format!("{}'s player-turn: {units} units on the table (SG9)", self.side_name(side)), state }
            })
            .collect();
        let limit = self.turn_limit();
        let prompt = self.pending.as_ref().map(|p| {
            let mut options = vec!["take the failure".to_string()];
            options.extend(p.leaders.iter().map(|&l| format!("re-roll with {} (lost if it fails)", self.name(l))));
            Prompt { id: p.id, question: format!("{} fails its morale toss: {}. Re-roll with a leader within 8\"?", self.name(p.target), self.failure_words(p.target, p.category)), options, cite: cite("35") }
        });
        let (headline, deciding, acting) = if self.over {
            ("The game is over (SG37)".to_string(), None, Vec::new())
        } else if let Some(p) = &self.pending {
            let owner = self.unit(p.target).map_or(0, |u| u.side);
            (format!("Turn {} of {limit}: {} answers for {} (SG35)", self.turn, self.side_name(owner), self.name(p.target)), Some(owner), vec![p.target])
        } else {
            let side = self.phasing();
            let acting = self
                .live_units()
                .filter(|(e, u)| u.side == side && self.sg(*e).is_some_and(|s| !s.routing && self.may_act(*e, s.done, s.attacked)))
                .map(|(e, _)| e)
                .collect();
            (format!("Turn {} of {limit}: {}'s {} (SG10)", self.turn, self.side_name(side), self.step_name()), Some(side), acting)
        };
        SequenceView { turn: self.turn, limit: Some(limit), steps, current: (!self.over).then_some(current), headline, track, deciding, acting, prompt, started: true, over: self.over }
    }

    fn may_act(&self, e: Entity, done: Done, attacked: bool) -> bool {
        match self.step {
            Step::Activation => matches!(done, Done::Nothing | Done::Formed),
            Step::Combat(Category::Melee) => false,
            Step::Combat(c) => !attacked && self.sg(e).and_then(|s| Game::category(s.kind)) == Some(c),
        }
    }

    /// Going on (SG10, SG21) and the open question's answers (SG35).
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        if self.over {
            return Vec::new();
        }
        let mut choices = Vec::new();
        if let Some(p) = &self.pending {
            let name = self.name(p.target);
            choices.push(Choice::judged(self, "Take the failure", Action::Answer { prompt: p.id, option: ACCEPT }, false).about(name.clone()));
            for (k, &l) in p.leaders.iter().enumerate() {
                let action = Action::Answer { prompt: p.id, option: k as u32 + 1 };
                choices.push(Choice::judged(self, format!("Re-roll with {}", self.name(l)), action, true).about(name.clone()).detail("a failed re-roll loses the leader as well (SG35)"));
            }
        }
        let label = match self.step {
            Step::Activation => "End the activation: to combat".to_string(),
            Step::Combat(c) => format!("Resolve the {} combat", c.name()),
        };
        choices.push(Choice::judged(self, label, Action::Next, matches!(self.step, Step::Combat(_))));
        choices
    }

    /// SG17: formation changes (and re-manning, SG26) and the withdrawal (SG13, SG20).
    pub(super) fn unit_choices_now(&self, e: Entity) -> Vec<Choice> {
        let Some(unit) = self.unit(e) else {
            // A leader: the units he may join.
            let Some(c) = self.world.get::<Commander>(e) else { return Vec::new() };
            return self
                .live_units()
                .filter(|(_, u)| u.side == c.side)
                .map(|(_, u)| Choice::judged(self, format!("Join {}", u.name), Action::JoinUnit { leader: c.name.clone(), unit: u.name.clone() }, false))
                .filter(Choice::allowed)
                .collect();
        };
        let mut out: Vec<Choice> = self
            .formations_open(e)
            .into_iter()
            .map(|formation| {
                let label = if formation == unit.formation { "Re-man the gun (toss, SG26)".to_string() } else { format!("Form {} (toss, SG17)", formation_name(formation)) };
                Choice::judged(self, label, Action::ChangeFormation { unit: unit.name.clone(), formation }, true).about(unit.name.clone())
            })
            .collect();
        if let Some(d) = self.withdrawal(e) {
            let action = Action::Revolution(SgAction::Withdraw { unit: unit.name.clone(), inches: d });
            out.push(Choice::judged(self, format!("Withdraw {} straight back (SG13)", inches(d)), action, true).about(unit.name.clone()).detail("out of a melee only after a toss (SG17, SG20)"));
        }
        out
    }

    /// SG21: fire in the unit's category; SG17: charge.
    pub(super) fn target_choices_now(&self, e: Entity, target: Entity) -> Vec<Choice> {
        let (Some(unit), Some(other)) = (self.unit(e), self.unit(target)) else { return Vec::new() };
        if unit.side == other.side {
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Some(c) = self.sg(e).and_then(|s| Game::category(s.kind)) {
            out.push(Choice::judged(self, format!("Attack by {} (SG21)", c.name()), Action::Fire { unit: unit.name.clone(), target: other.name.clone() }, true).about(other.name.clone()));
        }
        if self.sg(e).is_some_and(|s| s.kind != RevolutionKind::Artillery) {
            out.push(Choice::judged(self, "Charge (toss, SG17)", Action::Charge { unit: unit.name.clone(), target: other.name.clone() }, true).about(other.name.clone()));
        }
        out
    }

    /// SG16: the allowance while the unit may still move.
    pub(super) fn movement_now(&self, e: Entity) -> Option<Movement> {
        if let Some(c) = self.world.get::<Commander>(e) {
            let moved = self.world.get::<super::game::Ride>(e).is_some_and(|r| r.moved);
            return (!moved && c.side == self.phasing() && self.step == Step::Activation).then(|| Movement { allowance: self.rates.moves.leader.get(), spent: 0.0, road: None, kinds: vec![kind("ride", "16", "")] });
        }
        let unit = self.unit(e)?;
        let sg = self.sg(e)?;
        if unit.side != self.phasing() || sg.routing || self.step != Step::Activation || !matches!(sg.done, Done::Nothing | Done::Formed) || self.pending.is_some() || self.over {
            return None;
        }
        let (full, _) = self.allowance(e)?;
        let what = if Game::in_column(unit.formation) { "a column manoeuvres freely (SG11)" } else { "a line pivots on a flank, then straight ahead or to a flank (SG12)" };
        Some(Movement { allowance: full, spent: 0.0, road: None, kinds: vec![kind("move", "16", what)] })
    }

    pub(super) fn reach_of(&self, e: Entity) -> Option<Reach> {
        let (full, source) = self.allowance(e)?;
        let u = self.unit(e)?;
        let src = if source.starts_with("reconstructed") { Source::Reconstructed { why: source.trim_start_matches("reconstructed: ").to_string() } } else { Source::Text { section: "16".into() } };
        Some(Reach { allowance: Allowance::new(full), what: format!("{} in {}: {}", u.name, formation_name(u.formation), inches(full)), source: src })
    }

    pub(super) fn sheet_rows(&self, e: Entity) -> Vec<SheetRow> {
        if let Some(c) = self.world.get::<Commander>(e) {
            let moved = self.world.get::<super::game::Ride>(e).is_some_and(|r| r.moved);
            return vec![
                row("Side", self.side_name(c.side).to_string(), "8", None),
                row("Ride", format!("{} ({})", inches(self.rates.moves.leader.get()), self.rates.moves.leader.cited()), "16", None),
                row("Ridden this player-turn", yes(moved), "16", None),
                row("Re-roll", format!("a unit failing morale within {}; he is lost if it fails", inches(self.rates.ranges.leader_reroll.get())), "35", None),
            ];
        }
        let (Some(unit), Some(sg)) = (self.unit(e), self.sg(e)) else { return Vec::new() };
        let (full, source) = self.allowance(e).unwrap_or((0.0, String::new()));
        let rung = self.rung(e).unwrap_or(0);
        let steps = ladder(sg.kind);
        // The rung it stands on in brackets (the window's font has no arrows).
        let ladder_text: Vec<String> = steps.iter().enumerate().map(|(i, s)| if i == rung { format!("[{s}]") } else { s.to_string() }).collect();
        let bad = (sg.disordered || sg.routing || sg.crew_off).then_some(Tone::Bad);
        let mut rows = vec![
            row("Side", self.side_name(unit.side).to_string(), "9", None),
            row("Kind", format!("{:?}", sg.kind), "1", Some(Tone::Info)),
            row("Stands", format!("{} of {} (2 figures each)", unit.stands.len(), if sg.kind == RevolutionKind::Artillery { 1 } else { 3 }), "1", None),
            row("Formation", format!("{}{}", formation_name(unit.formation), if sg.disordered { ", disordered" } else { "" }), "3", bad),
            row("Morale ladder", ladder_text.join(" · then "), "28", bad),
            row("Move", format!("{} ({source})", inches(full)), "16", None),
        ];
        if let Some(c) = Game::category(sg.kind) {
            rows.push(row("Combat", format!("{} at {}", c.name(), inches(c.range(self.rates).unwrap_or(0.0))), "21", None));
        }
        rows.push(row("This player-turn", format!("{:?}{}", sg.done, if sg.attacked { ", attacking" } else { "" }), "10", None));
        if sg.routing {
            // SG36: the exact chance of its rally at the start of its next player-turn.
            let (alone, led) = (self.rates.tosses.rally.get(), self.rates.tosses.rally_with_leader.get());
            let chance = |at_least| 100.0 * crate::rules::dice::chance_at_least(crate::rules::dice::DiceKind::D6, 0, at_least);
            rows.push(row("Rally", format!("{:.2}% ({alone}+), {:.2}% with a leader within {} ({led}+)", chance(alone), chance(led), inches(self.rates.ranges.leader_with_unit.get())), "36", Some(Tone::Bad)));
        }
        if sg.crew_off {
            rows.push(row("Crew", "fallen back: re-man by a formation-change toss".into(), "26", Some(Tone::Bad)));
        }
        rows
    }

    pub(super) fn unit_badges(&self, e: Entity) -> Vec<Badge> {
        let Some(sg) = self.sg(e) else { return Vec::new() };
        let mut out = Vec::new();
        let badge = |text: &str, meaning: &str, rule: &str, tone| Badge { text: text.into(), meaning: meaning.into(), cite: Some(cite(rule)), tone };
        if sg.routing {
            out.push(badge("ROUT", "routing: rallies at its player-turn's start; attacked, it is removed", "32", Tone::Bad));
        } else if sg.disordered {
            out.push(badge("D", "disordered: acts normally, never reforms", "31", Tone::Bad));
        }
        if sg.crew_off {
            out.push(badge("no crew", "the crew fell back 8\": re-man with a formation-change toss", "26", Tone::Bad));
        }
        if sg.attacked {
            out.push(badge("attacks", "declared an attack this player-turn", "22", Tone::Info));
        }
        out
    }

    pub(super) fn unit_fire_bands(&self, e: Entity) -> Vec<RangeBand> {
        let Some(c) = self.sg(e).and_then(|s| Game::category(s.kind)) else { return Vec::new() };
        vec![RangeBand { label: c.name().into(), reach: c.range(self.rates).unwrap_or(0.0), cite: cite("21") }]
    }

    pub(super) fn status(&self, e: Entity) -> UnitStatus {
        let Some(sg) = self.sg(e) else { return UnitStatus { parts: vec!["gone".into()], marked: false, gone: true } };
        let mut parts = Vec::new();
        if sg.routing {
            parts.push("routing (SG28)".into());
        }
        if sg.done != Done::Nothing {
            parts.push(format!("{:?}", sg.done).to_lowercase());
        }
        if sg.attacked {
            parts.push("attacking".into());
        }
        UnitStatus { parts, marked: sg.routing, gone: false }
    }

    // ---- the exact odds ----

    /// The exact odds of every toss (SG14, SG17, SG26) and combat roll (SG22, SG23, SG35);
    /// refused as `apply` would refuse it; `None` for actions without dice.
    pub(super) fn preview_of(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        let at_most = self.rates.tosses.fails_at_most.get();
        match action {
            Action::Fire { unit, target } => {
                let category = self.check_fire(unit, target)?;
                let (a, t) = (self.find(unit)?, self.find(target)?);
                Ok(Some(self.combat_preview(&format!("{unit} attacks {target} ({})", category.name()), Attack { attacker: a, target: t, category, first_round: false, uphill: false })))
            }
            Action::Charge { unit, target } => {
                let c = self.check_charge(unit, target)?;
                let mut p = toss_preview(&format!("{unit} charges {target} (SG17)"), &c.toss.modifiers, at_most, "contact: it attacks in the melee combat", "no movement");
                let attack = Attack { attacker: c.attacker, target: c.target, category: Category::Melee, first_round: c.path.is_some(), uphill: c.path.as_ref().is_some_and(|p| p.climbed_slope) };
                let melee = self.combat_preview(&format!("if it goes in, {target}'s toss"), attack);
                p.blocks.extend(melee.blocks);
                Ok(Some(p))
            }
            Action::ChangeFormation { unit, formation } => {
                let t = self.check_formation(unit, *formation)?;
                Ok(Some(toss_preview(&format!("{unit}: {} (SG17)", formation_name(*formation)), &t.modifiers, at_most, "it forms, and may still move", "no change, no movement")))
            }
            Action::Move { unit, steps } => {
                let t = self.check_move(unit, steps)?;
                let placed = t.placed.expect("a move places");
                if placed.obstacles.is_empty() {
                    return Ok(None);
                }
                let mut p = toss_preview(&format!("{unit} crosses: {} (SG14)", placed.obstacles.join(", ")), &[], at_most, "it moves at normal speed", "no movement");
                p.blocks[0].facts.push(Fact { text: format!("obstacles and terrain on the way: {}", placed.obstacles.join(", ")), rule: cite("15") });
                Ok(Some(p))
            }
            Action::Revolution(SgAction::Withdraw { unit, inches: d }) => {
                let (t, melee) = self.check_withdraw(unit, *d)?;
                Ok(melee.then(|| toss_preview(&format!("{unit} withdraws from the melee (SG17, SG20)"), &t.modifiers, at_most, "it withdraws", "no movement")))
            }
            Action::Answer { prompt, option } => {
                let leader = self.check_answer(*prompt, *option)?;
                let Some(l) = leader else { return Ok(None) };
                let p = self.pending.as_ref().expect("checked");
                let fail = Game::fail_chance(self.rates.tosses.morale_fails_at_most.get(), p.modifier);
                let block = PreviewBlock {
                    heading: format!("{} re-rolls {}'s toss", self.name(l), self.name(p.target)),
                    facts: vec![],
                    factors: factors(&[("35".into(), "the same modifiers".into(), p.modifier)]),
                    odds: vec![Odds { outcome: "it holds".into(), chance: 1.0 - fail }, Odds { outcome: format!("it fails and {} is lost", self.name(l)), chance: fail }],
                };
                Ok(Some(Preview { title: "A leader's re-roll (SG35)".into(), blocks: vec![block] }))
            }
            other => self.check(other).map(|()| None),
        }
    }

    /// The target's toss against the attacks declared and `attack`, with the leader's re-roll.
    fn combat_preview(&self, title: &str, attack: Attack) -> Preview {
        let toss = self.morale_toss(attack.target, attack.category, Some(attack));
        let name = self.name(attack.target);
        let at_most = self.rates.tosses.morale_fails_at_most.get();
        let mut facts = vec![Fact { text: format!("{} attacker(s) on {name} in the {} combat", toss.attackers.len(), attack.category.name()), rule: cite("22") }];
        if toss.router {
            facts.push(Fact { text: format!("{name} is routing: attacked, it is removed"), rule: cite("32") });
            let block = PreviewBlock { heading: format!("{name}'s morale"), facts, factors: vec![], odds: vec![Odds { outcome: "removed".into(), chance: 1.0 }] };
            return Preview { title: title.into(), blocks: vec![block] };
        }
        let fail = Game::fail_chance(at_most, toss.total());
        let side = self.unit(attack.target).map_or(0, |u| u.side);
        let leaders = self.leaders_near(attack.target, side, self.rates.ranges.leader_reroll.get());
        let words = self.failure_words(attack.target, attack.category);
        let mut odds = vec![Odds { outcome: "holds".into(), chance: 1.0 - fail }];
        if leaders.is_empty() {
            odds.push(Odds { outcome: format!("fails: {words}"), chance: fail });
        } else {
            // SG35: with a re-roll taken, the first toss fails and the second holds, or both fail.
            facts.push(Fact { text: format!("{} within 8\" may re-roll a failure (the odds below assume he does)", self.name(leaders[0])), rule: cite("35") });
            odds.push(Odds { outcome: "fails, and holds on the leader's re-roll".into(), chance: fail * (1.0 - fail) });
            odds.push(Odds { outcome: format!("fails twice: {words}, and the leader is lost"), chance: fail * fail });
        }
        let block = PreviewBlock { heading: format!("{name} tosses a d6 ({at_most} or less fails)"), facts, factors: factors(&toss.modifiers), odds };
        Preview { title: title.into(), blocks: vec![block] }
    }
}

fn factors(modifiers: &[(String, String, i32)]) -> Vec<Factor> {
    modifiers.iter().map(|(rule, name, v)| Factor { name: name.clone(), value: format!("{v:+}"), rule: cite(rule), detail: None, source: Some(Source::Text { section: rule.clone() }) }).collect()
}

/// A d6 toss that fails at `at_most` or less after modifiers (SG14, SG17).
pub(super) fn toss_preview(title: &str, modifiers: &[(String, String, i32)], at_most: i32, success: &str, failure: &str) -> Preview {
    let total: i32 = modifiers.iter().map(|m| m.2).sum();
    let fail = Game::fail_chance(at_most, total);
    let block = PreviewBlock {
        heading: format!("a d6 toss: {at_most} or less fails"),
        facts: vec![],
        factors: factors(modifiers),
        odds: vec![Odds { outcome: success.into(), chance: 1.0 - fail }, Odds { outcome: failure.into(), chance: fail }],
    };
    Preview { title: title.into(), blocks: vec![block] }
}

fn kind(label: &str, rule: &str, detail: &str) -> MoveKind {
    MoveKind { label: label.into(), cite: cite(rule), detail: detail.into(), extra: 0.0, dice: None, verdict: Ok(()) }
}

fn row(label: &str, value: String, rule: &str, tone: Option<Tone>) -> SheetRow {
    SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone }
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}
