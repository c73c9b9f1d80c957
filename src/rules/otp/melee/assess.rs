//! Melee values (9.8–9.14): figures in combat × modified CV × multipliers, unit by unit.

use serde::Serialize;

use bevy::math::Vec2;

use super::{MeleeTable, Modifier, Multiplier};
use crate::picture::inside;
use crate::rules::otp::charts::Charts;
use crate::rules::otp::charts::melee::{MeleeCvModifierId, MultiplierId};
use crate::rules::otp::fire::cover::stand_cover;
use crate::scenario::model::{Arm, Cover, Formation, Terrain};
use crate::table::aspect::AttackZone;
use crate::table::contact::{ChargePath, stands_in_contact, units_in_contact};
use crate::table::situation::{Outline, Situation, UnitInfo};

/// What an attacker's charge did that melee counts (9.1, 9.12). `Default`: a unit in the melee
/// that did not charge (an overlap, 9.8), from the front, over nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ChargeFacts {
    /// The unit it charged (the path's target); None: not charging.
    pub target: Option<usize>,
    pub zone: Option<AttackZone>,
    pub climbed_slope: bool,
    pub descended_slope: bool,
    pub crossed_ford: bool,
    pub in_the_open: bool,
    pub original_distance: f32,
}

impl From<&ChargePath> for ChargeFacts {
    fn from(p: &ChargePath) -> Self {
        ChargeFacts {
            target: Some(p.target),
            zone: Some(p.zone),
            climbed_slope: p.climbed_slope,
            descended_slope: p.descended_slope,
            crossed_ford: p.crossed_ford,
            in_the_open: p.in_the_open,
            original_distance: p.original_distance,
        }
    }
}

/// One unit's melee value (9.8) and how it was reached.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitValue {
    pub unit: usize,
    pub name: String,
    /// The units it fights (9.8: every defender has at least one attacker).
    pub opponents: Vec<String>,
    /// Figures in combat (9.9) and why that many.
    pub figures: u32,
    pub figures_rule: String,
    pub figures_note: String,
    pub cv: i32,
    pub modifiers: Vec<Modifier>,
    /// CV after modifiers (9.10–9.13), never below 0 in the value.
    pub modified_cv: i32,
    pub multipliers: Vec<Multiplier>,
    /// figures × modified CV × multipliers, rounded up (9.8, 5.3).
    pub value: u32,
}

/// One side of a melee.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeleeSide {
    pub units: Vec<UnitValue>,
    pub total: u32,
}

/// 9.11: a commander attached to a unit in the melee, and his chance of becoming a casualty.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommanderRisk {
    pub unit: String,
    pub name: String,
    /// D10 (0–9) at or under the chart's number (0 through 3: 0.4).
    pub casualty: f64,
}

/// Both sides' melee values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Melee {
    pub attacker: MeleeSide,
    pub defender: MeleeSide,
    /// 9.11: every commander involved, each rolling once.
    pub commanders: Vec<CommanderRisk>,
}

/// 9.13, 10.1, 9.8 note: why the unit fights disordered, if it does: a skirmish line always
/// (a marker adds nothing), otherwise a Morale Marker.
pub(crate) fn disorder(table: &MeleeTable, unit: usize) -> Option<String> {
    if table.situation.unit(unit).formation == Formation::Skirmish {
        Some("skirmish line (always counts disordered, 9.13, 5.3)".into())
    } else if table.state(unit).morale_marker {
        Some("Morale Marker (10.1; not removed before the melee, 9.8)".into())
    } else {
        None
    }
}

/// 9.6: no stand of the unit stands in disordering terrain, woods, a town or a building.
pub(crate) fn in_the_open(s: &Situation, unit: usize) -> bool {
    !s.features().iter().any(|f| {
        let t = &s.terrain()[f.index];
        let rough = t.disorder().is_some() || matches!(t, Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Building { .. });
        matches!(&f.outline, Outline::Area(poly) if rough && s.unit(unit).stands.iter().any(|st| inside(poly, st.footprint.centre)))
    })
}

/// 9.12 (cover as 8.6 finds it, `fire::cover`): the cover class every stand of `defender` has
/// in or behind terrain against `attackers`, and its names; None if some stand lacks it or an
/// attacker stands in the same woods, town or building. Each stand is judged from the nearest
/// attacking stand: at arm's length, a wall shelters the stands it runs in front of, and sight
/// lines from far along the attacking line would cross it beside them, not in front.
pub(crate) fn cover_bonus(table: &MeleeTable, defender: usize, attackers: &[usize]) -> Option<(Cover, String)> {
    let s = &table.situation;
    let theirs: Vec<Vec2> = attackers.iter().flat_map(|&a| s.unit(a).stands.iter().map(|st| st.footprint.centre)).collect();
    let mut class: Option<Cover> = None;
    let mut used: Vec<usize> = Vec::new();
    for st in &s.unit(defender).stands {
        let f = &st.footprint;
        let near = theirs.iter().copied().min_by(|a, b| a.distance(f.centre).total_cmp(&b.distance(f.centre)))?;
        let (c, features) = stand_cover(s, f, &[near])?;
        class = Some(class.map_or(c, |k| k.min(c)));
        used.extend(features);
    }
    used.sort_unstable();
    used.dedup();
    let same = used.iter().any(|&i| {
        s.features().iter().any(|f| {
            matches!(&f.outline, Outline::Area(poly) if f.index == i
                && attackers.iter().any(|&a| s.unit(a).stands.iter().any(|st| inside(poly, st.footprint.centre))))
        })
    });
    let names: Vec<&str> = used.iter().map(|&i| s.terrain()[i].name()).collect();
    if same { None } else { Some((class?, names.join(", "))) }
}

/// A formed unit, for 9.14: in line or column (loose order moves and fights as a line, 5.4).
fn formed(u: &UnitInfo) -> bool {
    matches!(u.formation, Formation::Line | Formation::Column | Formation::LooseOrder)
}

/// Infantry with small arms (9.12's bayonet question is asked of these).
fn small_arms_infantry(u: &UnitInfo) -> bool {
    u.arm == Arm::Infantry && u.weapon.is_some()
}

/// 9.8: who fights whom. Each attacker fights the defender it charged, or those it touches, or
/// the first; a defender left without one takes those touching it, or the first attacker.
fn assign(s: &Situation, attackers: &[usize], defenders: &[usize], facts: &[ChargeFacts]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, &a) in attackers.iter().enumerate() {
        let charged = facts.get(i).and_then(|f| f.target).filter(|t| defenders.contains(t));
        let touching: Vec<usize> = units_in_contact(s, a).into_iter().filter(|d| defenders.contains(d)).collect();
        match (charged, touching.is_empty(), defenders.first()) {
            (Some(t), _, _) => pairs.push((a, t)),
            (None, false, _) => pairs.extend(touching.iter().map(|&d| (a, d))),
            (None, true, Some(&d)) => pairs.push((a, d)),
            _ => {}
        }
    }
    for &d in defenders {
        if pairs.iter().any(|p| p.1 == d) {
            continue;
        }
        let touching: Vec<usize> = units_in_contact(s, d).into_iter().filter(|a| attackers.contains(a)).collect();
        match (touching.is_empty(), attackers.first()) {
            (false, _) => pairs.extend(touching.iter().map(|&a| (a, d))),
            (true, Some(&a)) => pairs.push((a, d)),
            _ => {}
        }
    }
    pairs
}

/// 9.9: figures in combat, the rule and why.
fn figures_in_combat(table: &MeleeTable, charts: &Charts, unit: usize, opponents: &[usize]) -> (u32, String, String) {
    let u = table.situation.unit(unit);
    if u.gun().is_some() {
        let per = charts.melee.artillery_figures.value;
        let n = u.stands.len() as u32;
        return (n * per, "9.9".into(), format!("{n} artillery stand(s), each counting {per} figure whatever its crew"));
    }
    match u.formation {
        Formation::Column => {
            let f = u.stands.first().map_or(0, |s| s.figures);
            (f, "9.9, 5.1".into(), format!("march column: only the front stand's {f} figures fight"))
        }
        Formation::Skirmish => {
            let touching = stands_in_contact(&table.situation, unit, opponents);
            let f = touching.iter().map(|&i| u.stands[i].figures).sum();
            (f, "9.9".into(), format!("skirmish line: {} of {} stands in contact with enemy stands, {f} figures", touching.len(), u.stands.len()))
        }
        _ => {
            let f = u.figures();
            (f, "9.9".into(), format!("all {} stands fight ({f} figures)", u.stands.len()))
        }
    }
}

struct Fighter {
    unit: usize,
    attacking: bool,
    facts: ChargeFacts,
    opponents: Vec<usize>,
}

fn value(table: &MeleeTable, charts: &Charts, f: &Fighter, all_facts: &[(usize, ChargeFacts)]) -> UnitValue {
    let m = &charts.melee;
    let s = &table.situation;
    let u = s.unit(f.unit);
    let sheet = table.sheet(f.unit);
    let entry = |id: MeleeCvModifierId, rule: &str, name: &str, detail: Option<String>| {
        let e = m.cv_entry(id);
        Modifier { rule: rule.into(), name: name.into(), value: e.value, label: e.label.clone(), detail, provenance: e.source.clone() }
    };
    let mut modifiers = Vec::new();
    if let Some((leader, rating)) = table.best_leader(f.unit, |r| m.leader_melee(r, f.attacking))
        && m.leader_melee(rating, f.attacking) != 0
    {
        modifiers.push(Modifier {
            rule: "9.10".into(),
            name: "leader".into(),
            value: m.leader_melee(rating, f.attacking),
            label: format!("attached leader, {}", if f.attacking { "attacking" } else { "defending" }),
            detail: Some(format!("{rating:?} leader {}", leader.name)),
            provenance: m.leader(rating).source.clone(),
        });
    }
    let disordered = disorder(table, f.unit);
    if f.attacking {
        if f.facts.descended_slope {
            modifiers.push(entry(MeleeCvModifierId::Downhill, "9.12", "downhill", Some("came down a hill slope on the way".into())));
        }
        let charge = u.arm == Arm::Cavalry && f.facts.zone.is_some() && f.facts.in_the_open && f.facts.original_distance > 12.0;
        if charge && disordered.is_none() {
            let d = format!("charged {:.1}\" in the open", f.facts.original_distance);
            modifiers.push(entry(MeleeCvModifierId::CavalryCharge, "9.12, 9.13", "cavalry_charge", Some(d)));
        }
    } else {
        let theirs: Vec<ChargeFacts> = all_facts.iter().filter(|(a, _)| f.opponents.contains(a)).map(|(_, x)| *x).collect();
        let (up, ford) = (theirs.iter().any(|x| x.climbed_slope), theirs.iter().any(|x| x.crossed_ford));
        if up || ford {
            let d = match (up, ford) {
                (true, true) => "uphill and across a ford",
                (true, false) => "uphill: the attacker climbed a slope",
                _ => "across a ford the attacker crossed",
            };
            modifiers.push(entry(MeleeCvModifierId::UphillOrFord, "9.12", "uphill_or_ford", Some(d.into())));
        }
        if let Some((class, at)) = cover_bonus(table, f.unit, &f.opponents) {
            let (id, name) = match class {
                Cover::Light => (MeleeCvModifierId::LightCover, "light_cover"),
                Cover::Medium => (MeleeCvModifierId::MediumCover, "medium_cover"),
                Cover::Heavy => (MeleeCvModifierId::HeavyCover, "heavy_cover"),
            };
            modifiers.push(entry(id, "9.12", name, Some(at)));
        }
    }
    let opponents: Vec<&UnitInfo> = f.opponents.iter().map(|&o| s.unit(o)).collect();
    let armed = (small_arms_infantry(u) && sheet.bayonets) || u.arm == Arm::Cavalry;
    if armed && !opponents.is_empty() && f.opponents.iter().all(|&o| small_arms_infantry(s.unit(o)) && !table.sheet(o).bayonets) {
        let d = if u.arm == Arm::Cavalry { "mounted cavalry against infantry without bayonets" } else { "bayonets against infantry without" };
        modifiers.push(entry(MeleeCvModifierId::Bayonets, "9.12", "bayonets", Some(d.into())));
    }
    if let Some(why) = disordered {
        modifiers.push(entry(MeleeCvModifierId::Disordered, "9.13", "disordered", Some(why)));
    }
    if u.formation == Formation::LooseOrder {
        modifiers.push(entry(MeleeCvModifierId::LooseOrder, "5.4", "loose_order", None));
    }
    let cv = sheet.cv as i32;
    let modified_cv = cv + modifiers.iter().map(|m| m.value).sum::<i32>();

    let mut multipliers = Vec::new();
    let times = |id: MultiplierId, rule: &str, name: &str, detail: Option<String>| {
        let e = m.multiplier_entry(id);
        Multiplier { rule: rule.into(), name: name.into(), factor: e.factor, label: e.label.clone(), detail, provenance: e.source.clone() }
    };
    let target_name = f.facts.target.map(|t| s.unit(t).name.clone()).unwrap_or_default();
    match (f.attacking, f.facts.zone) {
        (true, Some(AttackZone::Flank)) => multipliers.push((MultiplierId::Flank, times(MultiplierId::Flank, "9.14, 9.1", "flank", Some(format!("started behind the line of {target_name}'s front"))))),
        (true, Some(AttackZone::Rear)) => multipliers.push((MultiplierId::Rear, times(MultiplierId::Rear, "9.14, 9.1", "rear", Some(format!("started directly behind {target_name}"))))),
        _ => {}
    }
    if u.formation == Formation::Skirmish && opponents.iter().any(|o| formed(o)) {
        multipliers.push((MultiplierId::SkirmishVsFormed, times(MultiplierId::SkirmishVsFormed, "9.14", "skirmish_vs_formed", None)));
    }
    if u.arm == Arm::Cavalry && !opponents.is_empty() && opponents.iter().all(|o| matches!(o.arm, Arm::Infantry | Arm::Artillery { .. })) {
        multipliers.push((MultiplierId::MountedVsFoot, times(MultiplierId::MountedVsFoot, "9.14", "mounted_vs_foot", None)));
    }
    let (figures, figures_rule, figures_note) = figures_in_combat(table, charts, f.unit, &f.opponents);
    let ids: Vec<MultiplierId> = multipliers.iter().map(|(id, _)| *id).collect();
    UnitValue {
        unit: f.unit,
        name: u.name.clone(),
        opponents: f.opponents.iter().map(|&o| s.unit(o).name.clone()).collect(),
        figures,
        figures_rule,
        figures_note,
        cv,
        modifiers,
        modified_cv,
        multipliers: multipliers.into_iter().map(|(_, m)| m).collect(),
        value: m.melee_value(figures, modified_cv, &ids),
    }
}

/// 9.8–9.14: the melee of `attackers` (each with its charge's `facts`, same order; missing
/// facts are `ChargeFacts::default()`) against `defenders`, on the table as it stands (the
/// attackers in contact). Artillery attached to a unit in the melee joins it (7.5).
pub fn assess(table: &MeleeTable, charts: &Charts, attackers: &[usize], defenders: &[usize], facts: &[ChargeFacts]) -> Melee {
    let s = &table.situation;
    let pairs = assign(s, attackers, defenders, facts);
    let mut fighters: Vec<Fighter> = Vec::new();
    for (i, &a) in attackers.iter().enumerate() {
        let opponents = pairs.iter().filter(|p| p.0 == a).map(|p| p.1).collect();
        fighters.push(Fighter { unit: a, attacking: true, facts: facts.get(i).copied().unwrap_or_default(), opponents });
    }
    for &d in defenders {
        let opponents = pairs.iter().filter(|p| p.1 == d).map(|p| p.0).collect();
        fighters.push(Fighter { unit: d, attacking: false, facts: ChargeFacts::default(), opponents });
    }
    // 7.5: attached guns fight beside their infantry, against the same opponents.
    let hosts: Vec<(usize, bool, ChargeFacts, Vec<usize>)> = fighters.iter().map(|f| (f.unit, f.attacking, f.facts, f.opponents.clone())).collect();
    for (host, attacking, facts, opponents) in hosts {
        for gun in table.attached_guns(host) {
            if !fighters.iter().any(|f| f.unit == gun) {
                fighters.push(Fighter { unit: gun, attacking, facts, opponents: opponents.clone() });
            }
        }
    }
    let all_facts: Vec<(usize, ChargeFacts)> = fighters.iter().filter(|f| f.attacking).map(|f| (f.unit, f.facts)).collect();
    let side = |attacking: bool| {
        let units: Vec<UnitValue> = fighters.iter().filter(|f| f.attacking == attacking).map(|f| value(table, charts, f, &all_facts)).collect();
        let total = units.iter().map(|u| u.value).sum();
        MeleeSide { units, total }
    };
    let chance = (0..10).filter(|&d| charts.commanders.casualty_in_melee(d)).count() as f64 / 10.0;
    let commanders = fighters
        .iter()
        .flat_map(|f| table.sheet(f.unit).leaders.iter().map(move |l| CommanderRisk { unit: s.unit(f.unit).name.clone(), name: l.name.clone(), casualty: chance }))
        .collect();
    Melee { attacker: side(true), defender: side(false), commanders }
}
