//! The tiny game as the window, the CLI and the automatic player see it: the sequence (TINY 1)
//! with its question (TINY 6), the choices open now, a unit's movement, sheet, badges and fire
//! band, and the exact odds of a shot. Every choice is judged by the game's own check.

use bevy::ecs::entity::Entity;

use super::game::{ANSWERS, FIGURES_A_HIT, FIRE_RANGE, Game, HITS_ON, TINY};
use crate::rules::action::Action;
use crate::rules::cite::Source;
use crate::rules::dice::{DiceKind, chance_at_least};
use crate::rules::engine::{Badge, Choice, Fact, Factor, MoveKind, Movement, Odds, Preview, PreviewBlock, Prompt, RangeBand, SequenceStep, SequenceView, SheetRow, Tone, TrackItem, TrackState, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::{Arm, Formation};
use crate::table::words::{formation as formation_name, inches};

fn cite(rule: &str) -> String {
    cited(TINY, rule)
}

impl Game {
    pub(super) fn sequence_view(&self) -> SequenceView {
        let sides = &self.scenario.sides;
        let track = sides
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let state = if self.over || i < self.side {
                    TrackState::Done
                } else if i == self.side {
                    TrackState::Current
                } else {
                    TrackState::Waiting
                };
                let units = self.live_units().filter(|(_, u)| u.side == i).count();
                TrackItem { label: s.name.clone(), detail: format!("{}'s player-turn: {units} units on the table", s.name), state }
            })
            .collect();
        let limit = self.scenario.turn_limit;
        let of = limit.map_or(String::new(), |l| format!(" of {l}"));
        let prompt = self.question.map(|q| {
            let unit = self.unit(q.unit).expect("a questioned unit is on the table");
            Prompt {
                id: q.id,
                question: format!("{} is down to {} of {} figures: stand or fall back 3\"?", unit.name, unit.figures, unit.initial_figures),
                options: ANSWERS.iter().map(|a| a.to_string()).collect(),
                cite: cite("6"),
            }
        });
        let (headline, deciding, acting) = if self.over {
            ("The game is over (TINY 1)".to_string(), None, Vec::new())
        } else if let Some(q) = self.question {
            let owner = self.unit(q.unit).map_or(0, |u| u.side);
            (format!("Turn {}{of}: {} must answer for {} (TINY 6)", self.turn, self.side_name(owner), self.unit(q.unit).map_or("?", |u| &u.name)), Some(owner), vec![q.unit])
        } else {
            let acting = self.live_units().filter(|(e, u)| u.side == self.side && (!self.marks(*e).moved || !self.marks(*e).fired)).map(|(e, _)| e).collect();
            (format!("Turn {}{of}: {}'s player-turn: move, form, fire, then go on (TINY 1)", self.turn, self.side_name(self.side)), Some(self.side), acting)
        };
        SequenceView {
            turn: self.turn,
            limit,
            steps: sides.iter().map(|s| SequenceStep { label: format!("{}'s player-turn", s.name), cite: cite("1") }).collect(),
            current: (!self.over).then_some(self.side),
            headline,
            track,
            deciding,
            acting,
            prompt,
            started: true,
            over: self.over,
        }
    }

    /// Ending the player-turn (TINY 1), and the open question's answers (TINY 6).
    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        if self.over {
            return Vec::new();
        }
        let mut choices = Vec::new();
        if let Some(q) = self.question {
            let name = self.unit(q.unit).map_or("?", |u| &u.name).to_string();
            for (option, label) in ANSWERS.iter().enumerate() {
                let action = Action::Answer { prompt: q.id, option: option as u32 };
                choices.push(Choice::judged(self, capitalised(label), action, false).about(name.clone()));
            }
        }
        choices.push(Choice::judged(self, format!("End {}'s player-turn", self.side_name(self.side)), Action::Next, false));
        choices
    }

    /// TINY 3: line to march column and back.
    pub(super) fn unit_choices_now(&self, e: Entity) -> Vec<Choice> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        if matches!(unit.arm, Arm::Artillery { .. }) {
            return Vec::new();
        }
        [Formation::Line, Formation::Column]
            .into_iter()
            .filter(|&f| f != unit.formation)
            .map(|formation| {
                let action = Action::ChangeFormation { unit: unit.name.clone(), formation };
                Choice::judged(self, format!("Form {} (the whole move)", formation_name(formation)), action, false).about(unit.name.clone())
            })
            .collect()
    }

    /// TINY 4: fire at an enemy unit.
    pub(super) fn target_choices_now(&self, e: Entity, target: Entity) -> Vec<Choice> {
        let (Some(unit), Some(other)) = (self.unit(e), self.unit(target)) else { return Vec::new() };
        if unit.side == other.side {
            return Vec::new();
        }
        let action = Action::Fire { unit: unit.name.clone(), target: other.name.clone() };
        vec![Choice::judged(self, format!("Fire ({HITS_ON}+ on a D6 hits)"), action, true).about(other.name.clone())]
    }

    /// TINY 2: the allowance, while the unit may still make its move.
    pub(super) fn movement_now(&self, e: Entity) -> Option<Movement> {
        let unit = self.unit(e)?;
        self.may_move(&unit.name).ok()?;
        Some(Movement { allowance: Game::allowance(unit), spent: 0.0, road: None, kinds: vec![MoveKind { label: "move".into(), cite: cite("2"), detail: String::new(), extra: 0.0, dice: None, verdict: Ok(()) }] })
    }

    pub(super) fn sheet_rows(&self, e: Entity) -> Vec<SheetRow> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        let marks = self.marks(e);
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone: None };
        vec![
            row("Side", self.side_name(unit.side).to_string(), "1"),
            row("Figures", format!("{} of {}", unit.figures, unit.initial_figures), "5"),
            row("Formation", formation_name(unit.formation).to_string(), "3"),
            row("Move", inches(Game::allowance(unit)), "2"),
            row("Moved this player-turn", if marks.formed { "yes (changed formation)".into() } else { yes(marks.moved) }, "2"),
            row("Fired this player-turn", yes(marks.fired), "4"),
            row("Shaken", yes(marks.shaken), "6"),
        ]
    }

    pub(super) fn unit_badges(&self, e: Entity) -> Vec<Badge> {
        let marks = self.marks(e);
        let mut badges = Vec::new();
        if marks.fired {
            badges.push(Badge { text: "fired".into(), meaning: "has fired this player-turn".into(), cite: Some(cite("4")), tone: Tone::Info });
        }
        if marks.shaken {
            badges.push(Badge { text: "shaken".into(), meaning: "was hit down to half its figures or fewer".into(), cite: Some(cite("6")), tone: Tone::Bad });
        }
        badges
    }

    pub(super) fn unit_fire_bands(&self, e: Entity) -> Vec<RangeBand> {
        if self.unit(e).is_none() {
            return Vec::new();
        }
        vec![RangeBand { label: "fire".into(), reach: FIRE_RANGE, cite: cite("4") }]
    }

    /// The exact odds of a shot (TINY 4) and what a hit brings (TINY 5, TINY 6); no other
    /// order throws dice. Refused as `apply` would refuse it.
    pub(super) fn preview_of(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        let Action::Fire { unit, target } = action else { return self.check(action).map(|()| None) };
        let shot = self.check_fire(unit, target)?;
        let t = self.unit(shot.target).expect("checked");
        let hit = chance_at_least(DiceKind::D6, 0, HITS_ON);
        let left = t.figures.saturating_sub(FIGURES_A_HIT);
        let then = if left == 0 {
            Fact { text: format!("a hit leaves {target} no figures: it is removed"), rule: cite("5") }
        } else if 2 * left <= t.initial_figures {
            Fact { text: format!("a hit leaves {target} {left} of {}: its owner must stand or fall back 3\"", t.initial_figures), rule: cite("6") }
        } else {
            Fact { text: format!("a hit leaves {target} {left} of {} figures", t.initial_figures), rule: cite("4") }
        };
        let block = PreviewBlock {
            heading: format!("{unit} fires at {target}"),
            facts: vec![
                Fact { text: format!("{} edge to edge (fire reaches {})", inches(shot.distance), inches(FIRE_RANGE)), rule: cite("4") },
                Fact { text: "in the front arc, 45° beyond each end of the front".into(), rule: cite("4") },
                then,
            ],
            factors: vec![Factor {
                name: "hits on".into(),
                value: format!("{HITS_ON}+ on a D6"),
                rule: cite("4"),
                detail: Some(format!("a hit takes {FIGURES_A_HIT} figures (a stand)")),
                source: Some(Source::Text { section: "4".into() }),
            }],
            odds: vec![Odds { outcome: format!("hit: {target} loses {FIGURES_A_HIT} figures"), chance: hit }, Odds { outcome: "miss".into(), chance: 1.0 - hit }],
        };
        Ok(Some(Preview { title: format!("{unit} fires at {target} (TINY 4)"), blocks: vec![block] }))
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}
