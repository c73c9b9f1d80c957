//! One unit as the window asks about it: what it may do now, how it may move, its sheet (4.2),
//! its markers and its fire ranges. Every verdict here is the engine's own check (`permit`,
//! `check_formation`, `check_deploy`…): nothing is decided twice.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::super::charts::ArmClass;
use super::super::engine::operations::{Activity, operations, section};
use super::super::engine::{Action as OtpAction, CommandState, Game};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::DiceKind;
use crate::rules::engine::{Badge, Choice, MoveKind, Movement, PlanItem, PlanState, Reach, SheetRow, Tone, UnitPlan, cited};
use crate::rules::report::Refusal;
use crate::scenario::model::{Arm, Formation, GunSize, Terrain, UnitType};
use crate::scenario::spawn::{Brigade, Commander, Stand, Unit};
use crate::table::footprint::Footprint;
use crate::table::movement::{Allowance, MoveStep};
use crate::table::words::{formation, inches};

fn otp(section: &str) -> String {
    cited(RuleSetId::Otp, section)
}

/// The unit's type as the rules class it (1.3–1.5, 4.2): "Line infantry", "Line dragoons
/// (cavalry)", "Militia artillery".
fn type_line(u: &Unit) -> String {
    let arm = match u.arm {
        Arm::Infantry => "infantry",
        Arm::Cavalry => "dragoons (cavalry)",
        Arm::Artillery { .. } => "artillery",
    };
    format!("{} {arm}", type_name(u.unit_type))
}

fn type_name(t: UnitType) -> &'static str {
    match t {
        UnitType::Militia => "Militia",
        UnitType::StateLine => "State Line",
        UnitType::Line => "Line",
        UnitType::Light => "Light",
        UnitType::Indian => "Indian",
        UnitType::Elite => "Elite",
    }
}

fn arm_name(a: Arm) -> String {
    match a {
        Arm::Infantry => "Infantry".into(),
        Arm::Cavalry => "Cavalry".into(),
        Arm::Artillery { gun, galloper } => {
            let gun = match gun {
                GunSize::Light => "light guns (under 6 lb)",
                GunSize::Medium => "medium guns (6–9 lb)",
                GunSize::Heavy => "heavy guns (12 lb and up)",
            };
            if galloper { format!("Artillery, {gun}, galloper (7.6)") } else { format!("Artillery, {gun}") }
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A town's or building's middle (None for other terrain).
fn anchor(t: &Terrain) -> Option<Vec2> {
    match t {
        Terrain::Town { outline, .. } => Some(outline.iter().map(|&p| Vec2::from(p)).sum::<Vec2>() / outline.len().max(1) as f32),
        Terrain::Building { at, .. } => Some(Vec2::from(*at)),
        _ => None,
    }
}

impl Game {
    /// Where a unit stands (its first stand's centre), for "nearest first".
    fn centre_of(&self, unit: Entity) -> Vec2 {
        self.unit(unit).stands.first().and_then(|&s| self.world().get::<Footprint>(s)).map(|f| f.centre).unwrap_or_default()
    }

    /// 6.10: a bonus move the engine would let the unit make now (owed, and not barred by a
    /// Morale Marker 10.1 or anything else `permit` checks).
    pub(crate) fn bonus_open(&self, unit: Entity) -> bool {
        self.bonus_pending(unit) && [Activity::Move, Activity::Charge].iter().any(|a| self.permit(unit, &[*a]).is_ok())
    }

    fn is_unit(&self, e: Entity) -> bool {
        self.world().get::<Unit>(e).is_some() && self.world().get::<Stand>(e).is_none()
    }

    fn choice(&self, label: impl Into<String>, detail: impl Into<String>, action: impl Into<Action>) -> Choice {
        Choice::judged(self, label, action.into(), false).detail(detail)
    }

    /// The buttons of a unit's orders panel (6.2, 3.3, 6.3, 6.13, 7.4, 7.5, 4.3), or of a
    /// commander's (6.12: the units of his command he may join), each judged by `check`.
    pub(super) fn unit_choices_now(&self, unit: Entity) -> Vec<Choice> {
        if let Some(c) = self.world().get::<Commander>(unit) {
            return self.join_choices(unit, c);
        }
        if !self.is_unit(unit) {
            return Vec::new();
        }
        let mut out = self.formation_choices(unit);
        out.extend(self.other_choices(unit));
        out.push(self.choice("End activation", "The phasing brigade has finished: its chit is set aside (4.3)", OtpAction::EndActivation));
        out
    }

    /// 6.12: the units of his command a commander may ride to join.
    fn join_choices(&self, commander: Entity, c: &Commander) -> Vec<Choice> {
        self.units()
            .filter(|(_, u)| u.side == c.side && c.brigade.is_none_or(|_| self.world().get::<Brigade>(u.brigade).is_some_and(|b| b.commander == commander)))
            .map(|(_, u)| self.choice(u.name.clone(), "Ride to join the unit (6.12)", Action::JoinUnit { leader: c.name.clone(), unit: u.name.clone() }))
            .collect()
    }

    /// The formations the unit's arm may take, each as a change of formation (6.2; limber and
    /// unlimber for guns, 3.3), the present one left out.
    fn formation_choices(&self, unit: Entity) -> Vec<Choice> {
        let u = self.unit(unit);
        let candidates: Vec<(Formation, &str)> = match u.arm {
            Arm::Artillery { .. } => vec![(Formation::Limbered, "Limber"), (Formation::Unlimbered, "Unlimber")],
            Arm::Cavalry => vec![(Formation::Line, "Line"), (Formation::Column, "Column")],
            Arm::Infantry => {
                let mut v = vec![(Formation::Line, "Line"), (Formation::Column, "Column"), (Formation::Skirmish, "Skirmish")];
                if self.scenario().optional_rules.loose_order {
                    v.push((Formation::LooseOrder, "Loose order"));
                }
                v
            }
        };
        candidates
            .into_iter()
            .filter(|(f, _)| *f != u.formation)
            .map(|(f, label)| {
                let tip = match f {
                    Formation::Limbered | Formation::Unlimbered => format!("{label} (3.3): half the limbered move"),
                    _ => format!("Form {} (6.2): half the normal move", formation(f)),
                };
                self.choice(label, tip, Action::ChangeFormation { unit: u.name.clone(), formation: f })
            })
            .collect()
    }

    /// About face, deploying into towns and buildings (6.13), attaching and detaching guns
    /// (7.5), remanning (7.4).
    fn other_choices(&self, unit: Entity) -> Vec<Choice> {
        let u = self.unit(unit);
        let name = u.name.clone();
        let mut out = vec![self.choice("About face", "Turn about (6.3): free in line, 1/4 move in column", Action::Move { unit: name.clone(), steps: vec![MoveStep::AboutFace] })];
        let here = self.centre_of(unit);
        if !matches!(u.arm, Arm::Artillery { .. }) {
            // Towns and buildings nearest first: those it may deploy into, else one greyed
            // button with the nearest one's refusal.
            let mut places: Vec<(f32, &Terrain)> = self.scenario().terrain.iter().filter_map(|t| anchor(t).map(|a| (a.distance(here), t))).collect();
            places.sort_by(|a, b| a.0.total_cmp(&b.0));
            let tip = "Deploy into a town or building (6.13): a change of formation; it then counts as Line in cover";
            let choices: Vec<Choice> = places.iter().map(|(_, t)| self.choice(format!("Deploy into {}", t.name()), tip, OtpAction::DeployInto { unit: name.clone(), place: t.name().to_string() })).collect();
            let open: Vec<Choice> = choices.iter().filter(|c| c.allowed()).cloned().collect();
            if open.is_empty() {
                out.extend(choices.into_iter().next().map(|c| Choice { label: "Deploy into a town".into(), ..c }));
            } else {
                out.extend(open);
            }
            return out;
        }
        if u.attached_to.is_some() || self.riding_with(unit).is_some() {
            out.push(self.choice("Detach", "Detach the guns from their infantry (7.5), in their own operational phase", OtpAction::Detach { gun: name.clone() }));
        } else {
            // Friendly infantry, nearest first: the first that will take the guns, else the
            // nearest's refusal.
            let mut hosts: Vec<(Entity, String)> = self.units().filter(|(e, h)| *e != unit && h.side == u.side && h.arm == Arm::Infantry).map(|(e, h)| (e, h.name.clone())).collect();
            hosts.sort_by(|a, b| self.centre_of(a.0).distance(here).total_cmp(&self.centre_of(b.0).distance(here)));
            let tip = "Attach the guns to friendly infantry in contact (7.5): they move with it within their own move";
            let choices: Vec<Choice> = hosts.iter().map(|(_, h)| self.choice(format!("Attach to {h}"), tip, OtpAction::Attach { gun: name.clone(), unit: h.clone() })).collect();
            match choices.iter().position(|c| c.allowed()) {
                Some(i) => out.push(choices[i].clone()),
                None => out.extend(choices.into_iter().next().map(|c| Choice { label: "Attach to infantry".into(), ..c })),
            }
        }
        if self.detached_crew(unit).is_some() {
            out.push(self.choice("Reman", "The crew in contact with its guns remans them (7.4)", OtpAction::Reman { unit: name }));
        }
        out
    }

    /// The arm's operations (3.1–3.3) and which of them the unit may still perform, as
    /// `permit` says: every one barred by its refusal (a Morale Marker 10.1, not phasing 4.3, a
    /// morale result 10.2…), or those its operation so far could still be.
    pub(super) fn unit_plan_now(&self, unit: Entity) -> Option<UnitPlan> {
        if !self.is_unit(unit) {
            return None;
        }
        let u = self.unit(unit);
        let arm = ArmClass::from(u.arm);
        let militia = u.unit_type == UnitType::Militia;
        let ops = operations(arm);
        let item = |o: &super::super::engine::operations::Operation, state: PlanState| PlanItem {
            label: format!("{}. {}", o.number, o.name),
            note: o.budget.map(|(f, _)| if f < 1.0 { " ·½ move" } else { "" }).unwrap_or("").to_string(),
            cite: otp(o.section),
            state,
        };
        let t = self.unit_turn(unit);
        let mut plan = UnitPlan { title: format!("Operations ({})", section(arm)), ..Default::default() };
        if !t.done.is_empty() || t.spent > 0.0 {
            let done: Vec<String> = t.done.iter().map(|a| a.to_string()).collect();
            plan.done = Some(format!("Done: {} · {} spent", done.join(", then "), inches(t.spent)));
        }
        if self.bonus_open(unit) {
            plan.notes.push("6.10: a bonus move is owed — move, special move or charge".into());
        }
        let all = |r: Refusal| ops.iter().map(|o| item(o, PlanState::Barred(r.clone()))).collect();
        let p = match self.permit(unit, &[]) {
            Ok(p) => p,
            Err(r) => return Some(UnitPlan { items: all(r), ..plan }),
        };
        // Nothing more may be added (a special move, remanned guns, a finished operation): the
        // engine's refusal of the first thing tried says why.
        let probes = [Activity::Move, Activity::Fire, Activity::Charge, Activity::Form(Formation::Line), Activity::Form(Formation::Column), Activity::Form(Formation::Limbered), Activity::Form(Formation::Unlimbered), Activity::Form(Formation::Skirmish)];
        let mut first_refusal = None;
        let mut any = false;
        for a in probes {
            match self.permit(unit, &[a]) {
                Ok(_) => any = true,
                Err(r) => {
                    first_refusal.get_or_insert(r);
                }
            }
        }
        let finished = if any { None } else { first_refusal };
        if p.done.is_empty()
            && let Some(r) = finished
        {
            return Some(UnitPlan { items: all(r), ..plan });
        }
        let name = &u.name;
        plan.items = ops
            .iter()
            .map(|o| {
                let state = if p.fitting.iter().any(|f| std::ptr::eq(*f, o)) {
                    match (&finished, p.done.is_empty()) {
                        (Some(_), _) => PlanState::Done,
                        (None, true) => PlanState::Open,
                        (None, false) => PlanState::Going,
                    }
                } else if let Some(r) = &finished {
                    PlanState::Barred(r.clone())
                } else if !o.fits(&[], p.start, militia) {
                    let from = [Formation::Limbered, Formation::Unlimbered].into_iter().find(|f| o.fits(&[], *f, militia));
                    PlanState::Barred(Refusal::otp(section(arm), match from {
                        Some(f) => format!("{name} began its operation {}: this one is for guns {}", formation(p.start), formation(f)),
                        None => format!("not an operation for {name} from {}", formation(p.start)),
                    }))
                } else {
                    let done: Vec<String> = p.done.iter().map(|a| a.to_string()).collect();
                    PlanState::Barred(Refusal::otp(section(arm), format!("{name} has already done: {}; that is not part of this operation (one operation a turn)", done.join(", then "))))
                };
                item(o, state)
            })
            .collect();
        Some(plan)
    }

    /// How the unit may move now: the operation's movement (3.x, 6.1) and what is spent, the
    /// road bonus of a column (5.1), and the move and the special move (6.8), each with the
    /// engine's verdict (a unit not phasing is refused by 4.3; one owed a 6.10 bonus move is
    /// not). A commander: his ride (6.12).
    pub(super) fn movement_now(&self, unit: Entity) -> Option<Movement> {
        if self.world().get::<Commander>(unit).is_some() {
            let most = self.charts().movement.commander();
            let ridden = self.world().get::<CommandState>(unit).map_or(0.0, |s| s.moved);
            let name = self.commander(unit).name.clone();
            let verdict = self.check_move_commander(&name, self.commander(unit).at);
            let ride = MoveKind { label: "ride".into(), cite: otp("6.12"), detail: "A commander rides up to 24\" a phase (6.12)".into(), extra: 0.0, dice: None, verdict };
            return Some(Movement { allowance: most, spent: ridden, road: None, kinds: vec![ride] });
        }
        if !self.is_unit(unit) {
            return None;
        }
        let u = self.unit(unit);
        let arm = ArmClass::from(u.arm);
        let verdict = self.permit(unit, &[Activity::Move]).map(|_| ());
        // The operation's movement; when it may not move, the chart's move (the engine then
        // says why not on every drag).
        let (spent, allowance) = match self.movement_budget(unit) {
            Some((spent, most)) => (spent, most),
            None => (self.unit_turn(unit).spent, self.normal_move(unit, u.formation)),
        };
        let column = matches!(u.formation, Formation::Column | Formation::Limbered);
        let mut kinds = vec![MoveKind { label: "move".into(), cite: otp("6.1"), detail: "A move of as many steps as it needs (6.1, 6.3)".into(), extra: 0.0, dice: None, verdict }];
        if let Some(n) = self.charts().movement.special_move_dice(arm) {
            let verdict = self.check_special_move(&u.name, &[MoveStep::Forward(0.05)]);
            kinds.push(MoveKind {
                label: "special move (6.8)".into(),
                cite: otp("6.8"),
                detail: format!("Special move (6.8): the full move + {n}AD, rolled when you let go of the drag; no fire, no change of formation, not through disordering terrain. The whole operation."),
                extra: DiceKind::Ad(n).range().1 as f32,
                dice: Some(format!("{n}AD")),
                verdict,
            });
        }
        Some(Movement { allowance, spent, road: column.then(|| self.charts().movement.road_bonus()), kinds })
    }

    /// Kind 0 is a move (6.1), kind 1 a special move (6.8).
    pub(super) fn move_action_of(&self, unit: Entity, kind: usize, steps: Vec<MoveStep>) -> Action {
        let unit = self.unit(unit).name.clone();
        match kind {
            1 => Action::Otp(OtpAction::SpecialMove { unit, steps }),
            _ => Action::Move { unit, steps },
        }
    }

    /// The unit's normal move by the MOVEMENT chart in the formation it is in (6.1; an
    /// unlimbered galloper's 7.6), and a march column's on a road (5.1).
    pub(super) fn reach_now(&self, unit: Entity) -> Option<Reach> {
        if !self.is_unit(unit) {
            return None;
        }
        let u = self.unit(unit);
        let m = &self.charts().movement;
        let arm = ArmClass::from(u.arm);
        let (full, source) = match u.arm {
            Arm::Artillery { galloper: true, .. } if u.formation == Formation::Unlimbered => (m.galloper().move_only, m.galloper().source.clone()),
            _ => {
                let e = m.allowance_entry(arm, u.unit_type, u.formation)?;
                (e.inches, e.source.clone())
            }
        };
        let in_column = matches!(u.formation, Formation::Column | Formation::Limbered);
        let arm_word = match arm {
            ArmClass::Infantry => "infantry",
            ArmClass::Cavalry => "cavalry",
            ArmClass::Artillery => "artillery",
        };
        Some(Reach { allowance: Allowance { full, road: in_column.then(|| full + m.road_bonus()) }, what: format!("{arm_word} in {}: {full}\"", formation(u.formation)), source })
    }

    /// The OTP 4.2 unit sheet: type, arm, CV, weapons, figures, stands, formation, initial
    /// volley (8.5), rebuild attempts (4.4), morale (10.1), attached guns (7.5).
    pub(super) fn sheet_rows(&self, unit: Entity) -> Vec<SheetRow> {
        if let Some(c) = self.world().get::<crate::scenario::spawn::Commander>(unit) {
            // A commander's record: his kind, his rating (rolled at the start, 2.0, 4.2) and the
            // morale passes it gives (10.4).
            let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(otp(rule)), tone: None };
            let rating = c.rating.map_or_else(|| "not yet rolled".to_string(), |r| format!("{r:?}"));
            return vec![
                row("Kind", format!("{:?}", c.kind), "4.2"),
                SheetRow { tone: c.rating.is_none().then_some(Tone::Info), ..row("Rating", rating, "2.0") },
                row("Morale passes used", c.morale_passes_used.to_string(), "10.4"),
                row("Morale passes left", self.passes_left(unit).to_string(), "10.4"),
            ];
        }
        if !self.is_unit(unit) {
            return Vec::new();
        }
        let u = self.unit(unit);
        let row = |label: &str, value: String, rule: &str| SheetRow { label: label.into(), value, cite: Some(otp(rule)), tone: None };
        let mut rows = vec![row("Type", type_line(u), "4.2"), row("Arm", arm_name(u.arm), "4.2"), SheetRow { tone: Some(Tone::Info), ..row("CV", u.cv.to_string(), "4.2") }];
        let weapons = match u.weapon {
            Some(w) => format!("{}, {}", capitalised(w.name()), if u.bayonets { "bayonets" } else { "no bayonets" }),
            None if matches!(u.arm, Arm::Artillery { .. }) => "Guns".into(),
            None => "None".into(),
        };
        rows.push(row("Weapons", weapons, "4.2"));
        rows.push(row("Initial figures", u.initial_figures.to_string(), "4.2"));
        let lost = u.initial_figures.saturating_sub(u.figures);
        rows.push(if lost > 0 { SheetRow { tone: Some(Tone::Bad), ..row("Current figures", format!("{} ({lost} lost)", u.figures), "4.2") } } else { SheetRow { tone: Some(Tone::Info), ..row("Current figures", u.figures.to_string(), "4.2") } });
        let per: Vec<String> = u.stands.iter().filter_map(|&s| self.world().get::<Stand>(s)).map(|s| s.figures.to_string()).collect();
        rows.push(row("Stands", format!("{} ({} figures)", per.len(), per.join(" + ")), "4.2"));
        rows.push(row("Formation", capitalised(formation(u.formation)), "6.2"));
        if u.can_skirmish && u.unit_type == UnitType::Militia {
            rows.push(row("Skirmish", "may form skirmish line (5.3)".into(), "5.3"));
        }
        let volley = match u.arm {
            Arm::Infantry if u.initial_volley_used => "Used",
            Arm::Infantry => "Not yet fired (−1 on the first, 8.5)",
            _ => "— (infantry only)",
        };
        rows.push(row("Initial volley", volley.into(), "8.5"));
        rows.push(row("Rebuild attempts", u.rebuild_attempts.to_string(), "4.4"));
        rows.push(if self.has_marker(unit) { SheetRow { tone: Some(Tone::Bad), ..row("Morale", "● Morale Marker".into(), "10.1") } } else { row("Morale", "None".into(), "10.1") });
        // Guns attached to this unit, or the unit these guns are attached to (7.5).
        if let Some(host) = u.attached_to.and_then(|h| self.world().get::<Unit>(h)) {
            rows.push(row("Attached to", host.name.clone(), "7.5"));
        } else if !matches!(u.arm, Arm::Artillery { .. }) {
            let guns: Vec<String> = self.units().filter(|(_, g)| g.attached_to == Some(unit)).map(|(_, g)| format!("{} — {}", g.name, arm_name(g.arm).to_lowercase())).collect();
            rows.push(row("Attached artillery", if guns.is_empty() { "None".into() } else { guns.join("\n") }, "7.5"));
        }
        rows
    }

    /// The Morale Marker (10.1).
    pub(super) fn unit_badges(&self, unit: Entity) -> Vec<Badge> {
        if !self.is_unit(unit) || !self.has_marker(unit) {
            return Vec::new();
        }
        vec![Badge { text: "M".into(), meaning: "Morale Marker".into(), cite: Some(otp("10.1")), tone: Tone::Bad }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::Engine;
    use crate::rules::otp::engine::UnitTurn;
    use crate::rules::otp::engine::testing::{activate, ok, teaching};

    fn row<'a>(rows: &'a [SheetRow], label: &str) -> &'a SheetRow {
        rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no {label} row in {rows:?}"))
    }

    // OTP 6.10, 10.1: a bonus move is open only when the engine would allow one: not to a unit
    // with a Morale Marker, which "may not perform any operation". (The bonus is set on the
    // engine's own record of it, as a charge won at 2:1 sets it.)
    #[test]
    fn a_bonus_move_is_offered_only_when_the_engine_allows_it() {
        let mut g = teaching(3);
        ok(&mut g, OtpAction::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let key = (g.turn(), g.sequence().phasing.expect("a chit is drawn"));
        let owe = |g: &mut Game, name: &str| {
            let e = g.unit_entity(name).unwrap();
            g.world_mut().get_mut::<UnitTurn>(e).unwrap().bonus_move = Some(key);
            e
        };
        // The Loyalist Militia carry a Morale Marker: owed, but barred (10.1).
        let marked = owe(&mut g, "Loyalist Militia");
        assert!(g.has_marker(marked) && g.bonus_pending(marked));
        assert!(!g.bonus_open(marked), "10.1 bars it");
        let plan = Engine::unit_plan(&g, marked).unwrap();
        assert!(plan.notes.is_empty(), "not offered: {:?}", plan.notes);
        assert!(g.check_move("Loyalist Militia", &[MoveStep::Forward(1.0)]).is_err_and(|r| r.rule == "10.1"));
        // The 1st Maryland (not phasing, no marker): the bonus is open, and a drag may use it.
        let free = owe(&mut g, "1st Maryland");
        assert!(g.bonus_open(free), "owed and free to take, whichever brigade is phasing");
        assert!(Engine::unit_plan(&g, free).unwrap().notes.iter().any(|n| n.starts_with("6.10")));
        assert!(Engine::movement(&g, free).is_some_and(|m| m.kinds[0].verdict.is_ok()), "a drag may move it");
        // Another of the 1st Maryland's brigade, owed nothing: its move is refused (4.3).
        let other = g.units().find(|(e, u)| *e != free && u.brigade == g.unit(free).brigade).map(|(e, _)| e).unwrap();
        let m = Engine::movement(&g, other).unwrap();
        assert_eq!(m.kinds[0].verdict.as_ref().err().map(|r| r.rule.as_str()), Some("4.3"));
        assert!(!Engine::sequence(&g).acting.contains(&other), "and the sequence does not let it act");
    }

    // OTP 4.2: the unit sheet is the engine's: every number with its rule; the CV with 4.2; a
    // Morale Marker (10.1) on the sheet and as a badge.
    #[test]
    fn the_sheet_lists_every_number_with_its_rule() {
        let g = teaching(3);
        let e = g.unit_entity("33rd Foot").unwrap();
        let u = g.unit(e).clone();
        let rows = Engine::sheet(&g, e);
        let cv = row(&rows, "CV");
        assert_eq!((cv.value.clone(), cv.cite.as_deref()), (u.cv.to_string(), Some("OTP 4.2")));
        assert_eq!(row(&rows, "Type").value, "Line infantry");
        assert_eq!(row(&rows, "Current figures").value, u.figures.to_string());
        assert_eq!(row(&rows, "Initial figures").value, u.initial_figures.to_string());
        assert_eq!(row(&rows, "Formation").value, "Line");
        assert_eq!(row(&rows, "Initial volley").cite.as_deref(), Some("OTP 8.5"));
        assert_eq!(row(&rows, "Morale").value, "None");
        assert!(Engine::badges(&g, e).is_empty());
        // Dragoons are cavalry (1.2, 1.3).
        assert_eq!(row(&Engine::sheet(&g, g.unit_entity("British Legion Dragoons").unwrap()), "Type").value, "Line dragoons (cavalry)");
        // The Loyalist Militia start with a Morale Marker.
        let m = g.unit_entity("Loyalist Militia").unwrap();
        assert_eq!(row(&Engine::sheet(&g, m), "Morale").tone, Some(Tone::Bad));
        let badges = Engine::badges(&g, m);
        assert_eq!(badges.len(), 1);
        assert_eq!((badges[0].meaning.as_str(), badges[0].cite.as_deref(), badges[0].tone), ("Morale Marker", Some("OTP 10.1"), Tone::Bad));
    }

    // OTP 2.0, 4.2, 10.4: a commander's record is the engine's too: his rating (rolled at the
    // start) and the morale passes it gives.
    #[test]
    fn a_commanders_sheet_has_his_rating_and_passes() {
        let mut g = teaching(3);
        let c = g.commanders().next().map(|(e, _)| e).unwrap();
        assert_eq!(row(&Engine::sheet(&g, c), "Rating").value, "not yet rolled");
        ok(&mut g, OtpAction::StartGame);
        let rows = Engine::sheet(&g, c);
        let rating = g.commander(c).rating.expect("rolled at the start");
        assert_eq!((row(&rows, "Rating").value.clone(), row(&rows, "Rating").cite.as_deref()), (format!("{rating:?}"), Some("OTP 2.0")));
        assert_eq!(row(&rows, "Morale passes left").value, g.passes_left(c).to_string());
    }

    // OTP 6.1, 5.1: a unit's reach is the MOVEMENT chart's line for its formation, with its
    // source; a march column also gets the road bonus.
    #[test]
    fn reach_is_the_movement_chart() {
        let mut g = teaching(3);
        let e = g.unit_entity("33rd Foot").unwrap();
        let r = Engine::reach(&g, e).unwrap();
        assert_eq!(r.allowance, Allowance { full: g.normal_move(e, Formation::Line), road: None });
        assert_eq!(r.allowance.full, 6.0);
        assert!(r.what.contains("line: 6\""), "{}", r.what);
        g.world_mut().get_mut::<Unit>(e).unwrap().formation = Formation::Column;
        let r = Engine::reach(&g, e).unwrap();
        assert_eq!(r.allowance.full, g.normal_move(e, Formation::Column));
        assert_eq!(r.allowance.road, Some(r.allowance.full + g.charts().movement.road_bonus()));
        assert!(r.source.is_reconstructed(), "the column's move is reconstructed");
    }
}
