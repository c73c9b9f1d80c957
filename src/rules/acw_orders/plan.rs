//! What a unit's written order lets it do this turn, step by step (OR2), and the charges named
//! in step 3 drawn ahead of step 6: each path to contact with the point where the charger falls
//! into disorder (OR16) and where the defender's volley meets it (OR17). Both read the rules'
//! own numbers (`Game::bonus_range`, `disorder_point`, `volley_terms`), the ones step 6 throws
//! against, and neither shows an order before step 3 to anyone but the side writing it.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{Game, Morale, OR, Order, Phase};
use super::moves::MOVES;
use crate::rules::engine::{PathMark, PlanItem, PlanState, PlannedPath, Tone, UnitPlan, cited};
use crate::rules::report::Refusal;
use crate::table::contact;
use crate::table::geom::EPS;
use crate::table::words::inches;

fn cite(rule: &str) -> String {
    cited(OR, rule)
}

/// The steps of the ten an order acts in, with what it does there (OR2).
fn order_steps(order: Order) -> &'static [(usize, &'static str)] {
    match order {
        Order::H => &[(4, "fire once in steps 4-8, or refuse a flank")],
        Order::FM => &[(7, "form (half or the whole move), then move what is left")],
        Order::FR => &[(4, "first fire")],
        Order::C => &[(3, "name the charge target (primary zone first)"), (6, "charge")],
        Order::CH => &[(7, "hold; half-move if an enemy is within 6\"")],
        Order::M => &[(7, "move"), (8, "fire (moving fire)")],
        Order::D => &[(5, "retire by the bonus dice, facing away, disordered")],
    }
}

impl Game {
    /// OR1-OR2: in step 1 the seven orders for the side writing (the one written going); from
    /// step 3 the order's steps, done, open now, to come or missed. Before step 3 another side's
    /// unit shows only that its order is written, sealed.
    pub(super) fn unit_plan_now(&self, e: Entity) -> Option<UnitPlan> {
        let unit = self.unit(e)?;
        let o = self.or(e)?;
        let step = self.phase.step() + 1;
        if o.morale == Morale::Routed {
            let r = Refusal::by(OR.cite("11"), format!("{} is routed: it takes no order and moves only in step 2a", unit.name));
            return Some(UnitPlan { title: format!("Order ({})", cite("11")), items: vec![PlanItem { label: "no order".into(), note: String::new(), cite: cite("11"), state: PlanState::Barred(r) }], done: None, notes: Vec::new() });
        }
        if matches!(self.phase, Phase::Orders(_)) && self.order_visible(e) {
            let items = Order::ALL
                .iter()
                .map(|&order| {
                    let verdict = self.check_write(&unit.name, order);
                    let written = o.order == Some(order);
                    PlanItem {
                        label: format!("{} {}", order.code(), order.name()),
                        note: if written { " · written, sealed".into() } else { format!(" · {}", order.permits()) },
                        cite: cite("2"),
                        state: match verdict {
                            Err(r) => PlanState::Barred(r),
                            Ok(_) if written => PlanState::Going,
                            Ok(_) => PlanState::Open,
                        },
                    }
                })
                .collect();
            return Some(UnitPlan { title: format!("Orders: write one, sealed until step 3 ({})", cite("1")), items, done: None, notes: Vec::new() });
        }
        let Some(order) = self.shown_order(e) else {
            let note = if o.order.is_some() { "written, sealed until step 3" } else { "not written yet" };
            return Some(UnitPlan { title: format!("Order ({})", cite("1")), items: Vec::new(), done: None, notes: vec![format!("{}'s order: {note}", unit.name)] });
        };
        let items = order_steps(order)
            .iter()
            .map(|&(at, what)| {
                let done = match (order, at) {
                    (Order::C, 3) => o.target.is_some(),
                    (Order::C, 6) | (Order::D, 5) => step > at,
                    (Order::FM, _) => o.formed,
                    (Order::CH, _) | (Order::M, 7) => o.moved,
                    (Order::H | Order::FR, _) | (Order::M, 8) => o.fired || self.declared.iter().any(|d| d.firer == unit.name),
                    _ => false,
                };
                let last = if order == Order::H { 8 } else { at };
                let state = if done {
                    PlanState::Done
                } else if step > last {
                    PlanState::Barred(Refusal::by(OR.cite("2"), format!("step {at} is over")))
                } else {
                    PlanState::Open
                };
                let when = if order == Order::H { "steps 4-8".to_string() } else { format!("step {at}") };
                PlanItem { label: format!("{when}: {what}"), note: if step < at { " · to come".into() } else { String::new() }, cite: cite("2"), state }
            })
            .collect();
        let mut notes = Vec::new();
        if let Some(target) = &o.target {
            notes.push(format!("charges {target} in step 6 ({})", cite("4")));
        }
        if o.disordered {
            notes.push(format!("disordered: FM re-forms it ({})", cite("12")));
        }
        Some(UnitPlan { title: format!("Order {}: {} ({})", order.code(), order.name(), cite("2")), items, done: None, notes })
    }

    /// OR16-OR17: every charge named in step 3 and not yet made, as its path to contact with
    /// the stretch where the charger may fall into disorder and where the defender's volley
    /// may meet it, as the rolls of step 6 will place them.
    pub(super) fn planned_charges(&self) -> Vec<PlannedPath> {
        if self.over || !matches!(self.phase, Phase::Reveal(_) | Phase::FirstFire(_) | Phase::Disengage | Phase::Charges) {
            return Vec::new();
        }
        let s = self.situation();
        let mut out = Vec::new();
        for (e, unit) in self.live_units() {
            let Some(target) = self.or(e).and_then(|o| o.target.clone()) else { continue };
            let (Ok(t), Ok(a)) = (self.find(&target), s.find(&unit.name)) else { continue };
            let Ok(b) = s.find(&target) else { continue };
            let path = contact::charge_path(&s, a, b, &MOVES);
            if !path.clear() || path.stands.is_empty() || path.start.is_empty() {
                continue;
            }
            let front = |fs: &[crate::table::footprint::Footprint]| fs.iter().map(|f| f.front_centre()).sum::<Vec2>() / fs.len() as f32;
            let (from, to) = (front(&path.start), front(&path.stands));
            let length = path.distance.max(EPS);
            let along = |d: f32| from + (to - from) * (d / length).clamp(0.0, 1.0);
            let (rate, _) = self.allowance(e).unwrap_or((0.0, String::new()));
            let (least, most) = self.bonus_range(e);
            let mut marks = Vec::new();
            if rate + EPS < path.distance {
                let short = rate + least + EPS < path.distance;
                marks.push(PathMark {
                    at: along(rate),
                    until: None,
                    label: "move".into(),
                    detail: format!("its move ends {} along; the bonus roll ({}–{}) carries it on{} ({})", inches(rate), inches(least), inches(most), if short { ", and a low roll leaves it short" } else { "" }, cite("16")),
                    tone: Tone::Info,
                });
            }
            let (first, last) = (self.disorder_point(e, rate, least), self.disorder_point(e, rate, most));
            if last <= EPS {
                marks.push(PathMark { at: from, until: None, label: "disorder".into(), detail: format!("green and militia are in disorder throughout the charge ({})", cite("16")), tone: Tone::Bad });
            } else if first + EPS < path.distance {
                marks.push(PathMark {
                    at: along(first),
                    until: Some(along(last.min(path.distance))),
                    label: "disorder".into(),
                    detail: format!("elite and veterans fall into disorder after the move and half the bonus roll: {} to {} along ({})", inches(first), inches(last), cite("16")),
                    tone: Tone::Bad,
                });
            }
            match self.no_volley(t, &unit.name) {
                Some(why) => marks.push(PathMark { at: to, until: None, label: "no volley".into(), detail: format!("{target} has no defensive volley{why} ({})", cite("17")), tone: Tone::Info }),
                None => {
                    let (pip, adjust) = self.volley_terms(t);
                    let (near, far) = ((pip + adjust).max(0.0), (6.0 * pip + adjust).max(0.0));
                    marks.push(PathMark {
                        at: along((path.distance - far).max(0.0)),
                        until: Some(along((path.distance - near).max(0.0))),
                        label: "volley".into(),
                        detail: format!("{target} volleys when the charge is {} to {} from it: 1D6 × {} {:+}\" ({})", inches(near), inches(far), inches(pip), adjust, cite("17")),
                        tone: Tone::Bad,
                    });
                }
            }
            out.push(PlannedPath { label: format!("{} charges {target}: {} to contact", unit.name, inches(path.distance)), cite: cite("16"), side: unit.side, points: vec![from, to], marks });
        }
        out
    }
}
