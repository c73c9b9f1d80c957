//! The game as the window, the command line and the automatic player see it: the ten steps, the
//! orders (sealed until step 3: a view never shows another side's order before then), the
//! choices open now, a unit's move, sheet, badges and ranges, and the exact odds of fire, a
//! charge's impact and its falls back. Every choice is judged by the game's own check.

use bevy::ecs::entity::Entity;

use super::combat::{Mod, Volley, sum};
use super::game::{Game, Morale, OR, OrAction, Order, Phase, STEPS};
use crate::rules::action::Action;
use crate::rules::engine::{Badge, Choice, Fact, Factor, MoveKind, Movement, Odds, Preview, PreviewBlock, RangeBand, SequenceStep, SequenceView, SheetRow, Tone, TrackItem, TrackState, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::Arm;
use crate::table::words::{formation as formation_name, inches};

fn cite(rule: &str) -> String {
    cited(OR, rule)
}

fn factor(x: &Mod) -> Factor {
    Factor { name: x.name.clone(), value: format!("{:+}", x.value), rule: cite(x.rule), detail: None, source: Some(x.source.clone()) }
}

impl Game {
    pub(super) fn sequence_view(&self) -> SequenceView {
        let step = self.phase.step();
        let track = STEPS
            .iter()
            .enumerate()
            .map(|(i, (label, rule))| {
                let state = if self.over || i < step {
                    TrackState::Done
                } else if i == step {
                    TrackState::Current
                } else {
                    TrackState::Waiting
                };
                TrackItem { label: label.to_string(), detail: format!("step {label} ({})", cite(rule)), state }
            })
            .collect();
        let limit = self.scenario.turn_limit;
        let of = limit.map_or(String::new(), |l| format!(" of {l}"));
        let (headline, deciding, acting) = if self.over {
            ("The game is over (OR23)".to_string(), None, Vec::new())
        } else if let Some(side) = self.acting_side() {
            let what = match self.phase {
                Phase::Orders(_) => "writes its orders, sealed (OR1)",
                Phase::Reveal(_) => "names its chargers' targets (OR4)",
                Phase::FirstFire(_) => "declares first fire: FR and H (OR5)",
                Phase::Movement(_) => "moves: M, CH, FM; leaders ride (OR12)",
                _ => "declares moving and hold fire: M and H (OR5)",
            };
            let acting = self.live_units().filter(|(e, u)| u.side == side && self.may_act(*e)).map(|(e, _)| e).collect();
            (format!("Turn {}{of}, step {}: {} {what}", self.turn, step + 1, self.side_name(side)), Some(side), acting)
        } else {
            (format!("Turn {}{of}, step {}: {} ({})", self.turn, STEPS[step].0, "go on to resolve it", cite(STEPS[step].1)), None, Vec::new())
        };
        SequenceView {
            turn: self.turn,
            limit,
            steps: STEPS.iter().map(|(l, r)| SequenceStep { label: l.to_string(), cite: cite(r) }).collect(),
            current: (!self.over).then_some(step),
            headline,
            track,
            deciding,
            acting,
            prompt: None,
            started: true,
            over: self.over,
        }
    }

    /// Whether the unit has something to do in the current step (the window lights it).
    fn may_act(&self, e: Entity) -> bool {
        let Some(o) = self.or(e) else { return false };
        let order = o.order.unwrap_or(Order::H);
        match self.phase {
            Phase::Orders(_) => o.morale != Morale::Routed,
            Phase::Reveal(_) => order == Order::C && o.target.is_none(),
            Phase::FirstFire(_) => matches!(order, Order::FR | Order::H) && !o.fired,
            Phase::Movement(_) => matches!(order, Order::M | Order::CH | Order::FM) && !o.moved || order == Order::H && !o.fired,
            Phase::MovingFire(_) => matches!(order, Order::M | Order::H) && !o.fired,
            _ => false,
        }
    }

    pub(super) fn sequence_choices(&self) -> Vec<Choice> {
        if self.over {
            return Vec::new();
        }
        let label = match (self.phase, self.acting_side()) {
            (Phase::Orders(_), Some(s)) => format!("Seal {}'s orders and hand over", self.side_name(s)),
            (_, Some(s)) => format!("End {}'s part of step {}", self.side_name(s), self.phase.step() + 1),
            (_, None) => format!("Resolve step {}", STEPS[self.phase.step()].0),
        };
        vec![Choice::judged(self, label, Action::Next, self.acting_side().is_none())]
    }

    /// Step 1: the seven orders (OR1), each with what it permits; step 7: formations (FM).
    pub(super) fn unit_choices_now(&self, e: Entity) -> Vec<Choice> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        match self.phase {
            Phase::Orders(_) => Order::ALL
                .iter()
                .map(|&order| {
                    let action = Action::AcwOrders(OrAction::WriteOrder { unit: unit.name.clone(), order });
                    Choice::judged(self, format!("{} {}", order.code(), order.name()), action, false).about(unit.name.clone()).detail(format!("{} (OR2)", order.permits()))
                })
                .collect(),
            Phase::Movement(_) => super::moves::formations(unit.arm)
                .iter()
                .map(|&f| {
                    let action = Action::ChangeFormation { unit: unit.name.clone(), formation: f };
                    let label = if f == unit.formation { "Re-form (clear disorder)".to_string() } else { format!("Form {}", formation_name(f)) };
                    Choice::judged(self, label, action, false).about(unit.name.clone())
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn target_choices_now(&self, e: Entity, t: Entity) -> Vec<Choice> {
        let (Some(unit), Some(other)) = (self.unit(e), self.unit(t)) else { return Vec::new() };
        if unit.side == other.side {
            return Vec::new();
        }
        let (a, b) = (unit.name.clone(), other.name.clone());
        let mut out = vec![Choice::judged(self, "Fire (thrown with the step's other fire)", Action::Fire { unit: a.clone(), target: b.clone() }, true).about(b.clone())];
        // OR15: breech-loaders and repeaters may fire rapidly.
        if let Some(from) = self.rapid_low_from(e) {
            let rapid = Action::AcwOrders(OrAction::RapidFire { unit: a.clone(), target: b.clone() });
            out.push(Choice::judged(self, "Rapid fire (a die more; low on ammunition on all dice at least a ".to_string() + &from.to_string() + ")", rapid, true).about(b.clone()).detail(format!("breech-loaders and repeaters may fire rapidly ({})", cite("15"))));
        }
        out.push(Choice::judged(self, "Name as charge target (charged in step 6)", Action::Charge { unit: a, target: b.clone() }, true).about(b));
        out
    }

    pub(super) fn movement_now(&self, e: Entity) -> Option<Movement> {
        let unit = self.unit(e)?;
        let o = self.or(e)?;
        if !matches!(self.phase, Phase::Movement(_)) || self.acting_side() != Some(unit.side) {
            return None;
        }
        let share = match o.order? {
            Order::M => 1.0,
            Order::CH => 0.5,
            Order::FM if o.formed => 1.0,
            _ => return None,
        };
        if o.moved && o.order != Some(Order::FM) {
            return None;
        }
        let (rate, what) = self.allowance(e)?;
        Some(Movement {
            allowance: rate * share,
            spent: o.spent,
            road: None,
            kinds: vec![MoveKind { label: "move".into(), cite: cite("12"), detail: what, extra: 0.0, dice: None, verdict: Ok(()) }],
        })
    }

    pub(super) fn sheet_rows(&self, e: Entity) -> Vec<SheetRow> {
        let (Some(unit), Some(o)) = (self.unit(e), self.or(e)) else { return Vec::new() };
        let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(cite(rule)), tone: None };
        let order = match (self.shown_order(e), o.order) {
            (Some(order), _) => format!("{} {}", order.code(), order.name()),
            (None, Some(_)) => "written, sealed until step 3".into(),
            (None, None) => "not written".into(),
        };
        let mut rows = vec![
            row("Quality (BMP)", format!("{:?} ({})", o.quality, self.charts.morale.bmp(o.quality).points), "7"),
            row("Strength", format!("{} figures, {} of {} stands", o.figures, o.stands(), o.initial_stands()), "13"),
            row("Formation", formation_name(unit.formation).to_string(), "12"),
            row("Order", order, "1"),
            row("Morale", format!("{:?}{}", o.morale, if o.disordered { ", disordered" } else { "" }), "10"),
        ];
        if let Some(w) = self.weapon_of(e).filter(|_| !matches!(unit.arm, Arm::Artillery { .. })) {
            rows.push(row("Weapon", format!("{w:?}"), "13"));
        }
        if let Some(g) = o.gun {
            rows.push(row("Guns", format!("{g:?}"), "13"));
        }
        if let Some((close, normal, long)) = self.ranges(e) {
            rows.push(row("Ranges", format!("{} / {} / {}", close.map_or("-".into(), inches), inches(normal), inches(long)), "13"));
        }
        if let Some((rate, what)) = self.allowance(e) {
            rows.push(row("Move", format!("{} ({what})", inches(rate)), "12"));
        }
        if o.low_ammo {
            let reach = inches(self.charts.movement.wagon_supply.value);
            let value = match self.supplying_wagon(e) {
                Ok(None) => "low: a step 2c roll replaces it".to_string(),
                Ok(Some((wagon, d))) => format!("low: {wagon} is {} away, a step 2c roll replaces it", inches(d)),
                Err(Some((wagon, d))) => format!("low: the nearest wagon, {wagon}, is {} away; no step 2c roll beyond {reach}", inches(d)),
                Err(None) => "low: no wagon of its side, no step 2c roll".to_string(),
            };
            rows.push(SheetRow { label: "Ammunition".into(), value, cite: Some(cite("15")), tone: Some(Tone::Bad) });
        }
        rows
    }

    pub(super) fn unit_badges(&self, e: Entity) -> Vec<Badge> {
        let Some(o) = self.or(e) else { return Vec::new() };
        let mut badges = Vec::new();
        if let Some(order) = self.shown_order(e) {
            badges.push(Badge { text: order.code().into(), meaning: format!("{}: {}", order.name(), order.permits()), cite: Some(cite("1")), tone: Tone::Info });
        }
        match o.morale {
            Morale::Shaken => badges.push(Badge { text: "shaken".into(), meaning: "yellow marker: −1 DRM, no charging, +2 MPM".into(), cite: Some(cite("11")), tone: Tone::Bad }),
            Morale::Routed => badges.push(Badge { text: "routed".into(), meaning: "red marker: no fire, moves in step 2a, +4 MPM".into(), cite: Some(cite("11")), tone: Tone::Bad }),
            Morale::Steady => {}
        }
        if o.disordered {
            badges.push(Badge { text: "disorder".into(), meaning: "disordered: +1 MPM, the disorder rows; re-form with FM".into(), cite: Some(cite("12")), tone: Tone::Bad });
        }
        if o.low_ammo {
            badges.push(Badge { text: "ammo".into(), meaning: "low on ammunition: a die less".into(), cite: Some(cite("15")), tone: Tone::Bad });
        }
        badges
    }

    pub(super) fn unit_fire_bands(&self, e: Entity) -> Vec<RangeBand> {
        let Some((close, normal, long)) = self.ranges(e) else { return Vec::new() };
        let guns = matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. }));
        let mut out = Vec::new();
        if let Some(c) = close {
            out.push(RangeBand { label: if guns { "canister" } else { "close" }.into(), reach: c, cite: cite("13") });
        }
        out.push(RangeBand { label: "normal".into(), reach: normal, cite: cite("13") });
        out.push(RangeBand { label: "long".into(), reach: long, cite: cite("13") });
        out
    }

    /// Fire: the dice, DRMs and exact odds of each result. A charge: the impact's exact odds
    /// (each side's 2D6 + modifiers, over 36 x 36) and the defender's falls back odds.
    pub(super) fn preview_of(&self, action: &Action) -> Result<Option<Preview>, Refusal> {
        match action {
            Action::Fire { unit, target } | Action::AcwOrders(OrAction::RapidFire { unit, target }) => {
                let rapid = matches!(action, Action::AcwOrders(_));
                let (e, t) = if rapid { self.check_rapid_fire(unit, target)? } else { self.check_fire(unit, target)? };
                let plan = self.shot_plan(e, t, if rapid { Volley::Rapid } else { Volley::Fire })?;
                let verb = if rapid { "fires rapidly at" } else { "fires at" };
                let (odds, low) = self.shot_odds(&plan);
                let mut facts = vec![Fact { text: format!("{} edge to edge: {} range", inches(plan.distance), plan.band.name(plan.by_guns)), rule: cite("13") }];
                facts.push(Fact { text: format!("{} dice ({} by stands{})", plan.dice(), plan.base_dice, plan.die_mods.iter().map(|m| format!(", {} {:+}", m.name, m.value)).collect::<String>()), rule: cite("14") });
                facts.push(Fact { text: format!("low on ammunition if every die shows {}+: {:.1}%", plan.low_from, 100.0 * low), rule: cite("15") });
                let block = PreviewBlock {
                    heading: format!("{unit} {verb} {target}"),
                    facts,
                    factors: plan.drms.iter().chain(plan.die_mods.iter()).map(factor).collect(),
                    odds: odds.into_iter().map(|(outcome, chance)| Odds { outcome, chance }).collect(),
                };
                Ok(Some(Preview { title: format!("{unit} {verb} {target} (OR13-OR15)"), blocks: vec![block] }))
            }
            Action::Charge { unit, target } => {
                let (e, t, path) = self.check_charge(unit, target)?;
                let q = self.or(e).map(|o| o.quality).expect("sheet");
                let disordered = !Game::steady(q);
                let (att, def) = self.impact_mods(e, t, &path, disordered);
                let mut blocks = vec![PreviewBlock {
                    heading: format!("{unit} (attacker): 2D6 + {}", sum(&att)),
                    facts: vec![Fact { text: format!("{} to contact by the charge path; reach at most {}", inches(path.distance), inches(self.charge_reach(e))), rule: cite("16") }],
                    factors: att.iter().map(factor).collect(),
                    odds: Vec::new(),
                }];
                let Some(def) = def else {
                    blocks.push(PreviewBlock { heading: format!("{target} is limbered: it surrenders when charged"), facts: Vec::new(), factors: Vec::new(), odds: vec![Odds { outcome: format!("{target} surrenders"), chance: 1.0 }] });
                    return Ok(Some(Preview { title: format!("{unit} charges {target} (OR16-OR21)"), blocks }));
                };
                let (a, d, tie) = Game::impact_odds(sum(&att), sum(&def));
                blocks.push(PreviewBlock { heading: format!("{target} (defender): 2D6 + {}", sum(&def)), facts: Vec::new(), factors: def.iter().map(factor).collect(), odds: Vec::new() });
                blocks.push(PreviewBlock {
                    heading: "Impact: the low total wins, a tie goes to melee (if it arrives unstopped by the volley)".into(),
                    facts: Vec::new(),
                    factors: Vec::new(),
                    odds: vec![Odds { outcome: format!("{unit} wins"), chance: a }, Odds { outcome: format!("{target} wins"), chance: d }, Odds { outcome: "tie: melee".into(), chance: tie }],
                });
                let fb = self.falls_back_mods(t);
                blocks.push(PreviewBlock {
                    heading: format!("If {unit} wins: {target} falls back 2D6 {:+}", sum(&fb)),
                    facts: Vec::new(),
                    factors: fb.iter().map(factor).collect(),
                    odds: self.falls_back_odds(sum(&fb)).into_iter().map(|(r, p)| Odds { outcome: format!("{r:?}"), chance: p }).collect(),
                });
                Ok(Some(Preview { title: format!("{unit} charges {target} (OR16-OR21)"), blocks }))
            }
            other => self.check(other).map(|()| None),
        }
    }
}
