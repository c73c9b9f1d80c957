//! Judging a shot before any die is rolled: may the unit fire, at this target, with this
//! ammunition (8.1, 8.4, 8.12, 8.13, 3.2); which stands fire; whether woods visibility must be
//! rolled (8.7); and, for a given visibility, the modifiers and the column (8.3–8.15, 5.3, 5.4,
//! 6.13, 7.1, 7.3).

use bevy::math::Vec2;

use super::cover::{CoverFound, deployed_in, fire_formation, resting_stands, unit_cover};
use super::report::{ColumnInfo, GeometrySummary, Modifier, ShotHead};
use super::{FireContext, FireOccasion, Refusal};
use crate::rules::otp::charts::fire::Visibility;
use crate::rules::otp::charts::{Ammo, ArtilleryBand, Charts, FireColumn, FireKind, FireModifierId as Id};
use crate::scenario::model::{Arm, Cover, Formation, GunSize, UnitType, WoodsDensity};
use super::range::{FIRE, canister_masked_by};
use crate::table::fire::{FireGeometry, FireOptions, StandFire, fire_geometry, split_fire, targets};
use crate::table::geom::EPS;
use crate::table::situation::{Situation, UnitInfo};

/// A shot that may be fired: everything but the dice.
pub(crate) struct Plan<'a> {
    pub ctx: FireContext<'a>,
    pub charts: &'a Charts,
    pub kind: FireKind,
    pub ammo: Option<Ammo>,
    pub gun: Option<GunSize>,
    pub geometry: FireGeometry,
    /// The stands that fire on this target (8.1), before woods visibility.
    pub stands: Vec<usize>,
    pub elevated: bool,
    pub target_deployed: Option<String>,
    /// 8.7: the woods the unit must roll visibility for, when some firing stand's sight line
    /// crosses 1" or more of them.
    pub woods: Option<&'a Visibility>,
}

/// The fire for one visibility: the stands that see, modifiers and column.
#[derive(Clone, Debug)]
pub(crate) struct Volley {
    pub stands: Vec<usize>,
    pub figures: u32,
    pub range: f32,
    pub band: Option<ArtilleryBand>,
    pub close_range: bool,
    pub enfilade: bool,
    pub cover: Option<CoverFound>,
    pub figures_resting: u32,
    pub modifiers: Vec<Modifier>,
    pub total: i32,
    pub column: ColumnInfo,
}

/// What the rules decide before the geometry is asked, the one place for both: 7.3, guns on
/// higher ground than the target add the chart's elevation bonus to their long range; 8.9,
/// artillery firing `ball` fires over lower units. For the shot, its previews and the views.
pub fn fire_options(s: &Situation, charts: &Charts, firer: usize, target: usize, ball: bool) -> FireOptions {
    let gun = s.unit(firer).gun().is_some();
    let elevated = gun && s.unit_elevation(firer) > s.unit_elevation(target);
    FireOptions { rules: &FIRE, extra_range: if elevated { charts.fire.elevation_bonus.value } else { 0.0 }, ball: gun && ball }
}

fn quoted(u: &UnitInfo) -> String {
    format!("\"{}\"", u.name)
}

impl<'a> Plan<'a> {
    pub fn new(ctx: FireContext<'a>, charts: &'a Charts) -> Result<Plan<'a>, Refusal> {
        let s = ctx.situation();
        let n = s.units().len();
        if ctx.firer >= n || ctx.target >= n {
            return Err(Refusal::new("8.1", format!("no unit {} on the table", ctx.firer.max(ctx.target))));
        }
        let (fu, tu) = (s.unit(ctx.firer), s.unit(ctx.target));
        let fs = ctx.table.state(ctx.firer);
        if ctx.firer == ctx.target {
            return Err(Refusal::new("8.1", format!("{} cannot fire on itself", quoted(fu))));
        }
        if fu.side == tu.side {
            return Err(Refusal::new("8.1", format!("{} and {} are on the same side: units fire on enemy units", quoted(fu), quoted(tu))));
        }
        if fu.in_column() {
            let what = if fu.formation == Formation::Limbered { "is limbered artillery, which counts as a column" } else { "is in column" };
            return Err(Refusal::new("8.13", format!("{} {what}: units in column cannot fire", quoted(fu))));
        }
        if fs.morale_marker && ctx.occasion == FireOccasion::Normal {
            return Err(Refusal::new(
                "8.12",
                format!("{} has a Morale Marker: a disordered unit may only fire in a firefight or at a charging unit (10.1)", quoted(fu)),
            ));
        }
        if fu.arm == Arm::Cavalry && ctx.occasion == FireOccasion::Normal {
            return Err(Refusal::new("3.2", format!("{} is cavalry: its operations are to move, charge and change formation, not to fire", quoted(fu))));
        }
        let gun = fu.gun();
        let (kind, ammo) = match (gun, fu.weapon) {
            (Some(_), _) => (FireKind::from(ctx.ammo), Some(ctx.ammo)),
            (None, Some(_)) => (FireKind::SmallArms, None),
            (None, None) => return Err(Refusal::new("8.3", format!("{} has no small arms", quoted(fu)))),
        };
        let opts = fire_options(s, charts, ctx.firer, ctx.target, ammo == Some(Ammo::Ball));
        let elevated = opts.extra_range > 0.0;
        let geometry = fire_geometry(s, ctx.firer, ctx.target, opts);
        let stands = choose_stands(&ctx, &geometry, opts)?;
        let mut plan = Plan { ctx, charts, kind, ammo, gun, geometry, stands, elevated, target_deployed: deployed_in(s, ctx.target), woods: None };
        if let (Some(gun), Some(ammo)) = (gun, ammo) {
            plan.check_artillery(gun, ammo)?;
        }
        plan.woods = plan.woods_to_roll();
        Ok(plan)
    }

    fn stand(&self, i: usize) -> &StandFire {
        &self.geometry.stands[i]
    }

    fn range_of(&self, stands: &[usize]) -> f32 {
        stands.iter().map(|&i| self.stand(i).range).fold(f32::INFINITY, f32::min)
    }

    fn band(&self, range: f32) -> Option<ArtilleryBand> {
        self.gun.and_then(|gun| self.charts.fire.band_from(gun, range, self.elevated))
    }

    /// 8.4: ball out to long range; canister only at short range and with no friendly unit in
    /// the gun's arc and short range.
    fn check_artillery(&self, gun: GunSize, ammo: Ammo) -> Result<(), Refusal> {
        let s = self.ctx.situation();
        let fu = s.unit(self.ctx.firer);
        let range = self.range_of(&self.stands);
        let Some(band) = self.band(range) else {
            let long = self.charts.fire.max_range(gun, self.elevated);
            return Err(Refusal::new("8.4", format!("{} is {range:.2}\" away, beyond the guns' long range of {long}\"", quoted(s.unit(self.ctx.target)))));
        };
        if ammo == Ammo::Canister {
            if !self.charts.fire.canister_allowed(band) {
                let band = format!("{band:?}").to_lowercase();
                return Err(Refusal::new("8.4", format!("canister can only be fired at short range; {} is at {band} range ({range:.2}\")", quoted(s.unit(self.ctx.target)))));
            }
            let masked = canister_masked_by(s, self.ctx.firer);
            if let Some(friend) = masked.first() {
                return Err(Refusal::new(
                    "8.4",
                    format!("{} cannot fire canister: friendly \"{friend}\" is within its firing arc and short range", quoted(fu)),
                ));
            }
        }
        Ok(())
    }

    /// 8.7: the visibility to roll, when a firing stand's best sight line crosses 1" or more of
    /// woods: the densest woods on any such line.
    fn woods_to_roll(&self) -> Option<&'a Visibility> {
        if self.ctx.visibility.is_some() {
            return None;
        }
        let dense = |d: WoodsDensity| match d {
            WoodsDensity::Light => 0,
            WoodsDensity::Regular => 1,
            WoodsDensity::Dense => 2,
        };
        let worst = self
            .stands
            .iter()
            .filter_map(|&i| self.stand(i).sight.as_ref())
            .filter(|v| v.woods.total() >= self.charts.fire.free_woods.value - EPS)
            .flat_map(|v| [(WoodsDensity::Light, v.woods.light), (WoodsDensity::Regular, v.woods.regular), (WoodsDensity::Dense, v.woods.dense)])
            .filter(|&(_, inches)| inches > EPS)
            .map(|(d, _)| d)
            .max_by_key(|&d| dense(d))?;
        Some(self.charts.fire.visibility(worst))
    }

    /// 8.7: the woods on the firing stands' sight line that crosses the most, by name
    /// (`table::sight::woodiest`: the same line the geometry and the sight overlay report).
    pub fn woods_on_line(&self) -> Vec<crate::table::sight::WoodsOnLine> {
        crate::table::sight::woodiest(self.stands.iter().filter_map(|&i| self.stand(i).sight.as_ref())).map(|v| v.woods_on_line.clone()).unwrap_or_default()
    }

    /// Whether a stand must see through woods (8.7).
    fn needs_visibility(&self, i: usize) -> bool {
        self.stand(i).sight.as_ref().is_some_and(|v| v.woods.total() >= self.charts.fire.free_woods.value - EPS)
    }

    /// The stands that see the target when visibility in woods is `visibility` inches (None:
    /// unlimited): those whose sight line crosses under 1" of woods, and those within it.
    pub fn seeing(&self, visibility: Option<f32>) -> Vec<usize> {
        let visibility = visibility.or(self.ctx.visibility);
        self.stands.iter().copied().filter(|&i| !self.needs_visibility(i) || visibility.is_none_or(|v| self.stand(i).range <= v + EPS)).collect()
    }

    /// The fire of the stands that see the target at this visibility; None when none does.
    pub fn volley(&self, visibility: Option<f32>) -> Option<Volley> {
        let stands = self.seeing(visibility);
        if stands.is_empty() {
            return None;
        }
        let s = self.ctx.situation();
        let chart = &self.charts.fire;
        let (firer, target) = (self.ctx.firer, self.ctx.target);
        let (fu, tu) = (s.unit(firer), s.unit(target));
        let (fs, ts) = (self.ctx.table.state(firer), self.ctx.table.state(target));
        let figures: u32 = stands.iter().map(|&i| self.stand(i).figures).sum();
        let range = self.range_of(&stands);
        let band = self.band(range);
        let from: Vec<Vec2> = stands.iter().map(|&i| fu.stands[i].footprint.centre).collect();
        let mut candidates: Vec<(Id, Option<String>)> = Vec::new();
        let mut add = |id: Id, detail: Option<String>| candidates.push((id, detail));

        // The firer.
        let close_range = self.kind == FireKind::SmallArms && (self.ctx.occasion == FireOccasion::AtChargingUnit || range <= chart.close_range() + EPS);
        if close_range {
            let why = if self.ctx.occasion == FireOccasion::AtChargingUnit { "at a unit that closed to contact, as if at 2\" or less (9.7)".to_string() } else { format!("range {range:.2}\"") };
            add(Id::CloseRange, Some(why));
        }
        if fu.arm == Arm::Infantry && !fs.initial_volley_used && fire_formation(s, firer) != Formation::Skirmish {
            add(Id::InitialVolley, None);
        }
        let resting = resting_stands(s, firer, &stands, target);
        let figures_resting: u32 = resting.iter().map(|(i, _)| self.stand(*i).figures).sum();
        if self.kind == FireKind::SmallArms && 2 * figures_resting >= figures {
            add(Id::Rest, Some(format!("{figures_resting} of {figures} figures rest on {}", resting[0].1)));
        }
        if let Some(band) = band {
            match band {
                ArtilleryBand::Short => add(Id::BallShortRange, Some(format!("{range:.2}\""))),
                ArtilleryBand::Medium => {}
                ArtilleryBand::Long => add(Id::BallLongRange, Some(format!("{range:.2}\""))),
            }
        }
        match self.gun {
            Some(GunSize::Heavy) => add(Id::HeavyGun, None),
            Some(GunSize::Light) => add(Id::LightGun, None),
            _ => {}
        }
        if fs.morale_marker || self.ctx.counts_disordered {
            add(Id::DisorderedFirer, Some(if fs.morale_marker { "Morale Marker".into() } else { "fired before its closure roll (9.3)".into() }));
        }
        if fire_formation(s, firer) == Formation::Skirmish {
            add(Id::SkirmishFirer, None);
        }
        match fu.unit_type {
            UnitType::Elite => add(Id::EliteFirer, None),
            UnitType::Militia => add(Id::MilitiaFirer, None),
            UnitType::Indian => add(Id::IndianFirer, None),
            _ => {}
        }

        // The target.
        let enfilade = self.target_deployed.is_none() && crate::table::aspect::unit_enfilades(s, firer, stands.iter().copied(), target);
        if enfilade {
            add(Id::Enfilade, None);
            add(Id::EnfiladeBall, None);
        }
        if ts.morale_marker {
            add(Id::DisorderedTarget, Some("Morale Marker".into()));
        }
        let target_formation = fire_formation(s, target);
        if tu.in_column() {
            let what = if tu.formation == Formation::Limbered { "limbered artillery" } else { "column" };
            add(Id::ColumnTarget, Some(what.into()));
            add(Id::ColumnTargetBall, Some(what.into()));
        }
        if tu.mounted() {
            add(Id::MountedTarget, Some(if tu.arm == Arm::Cavalry { "cavalry" } else { "limbered artillery" }.into()));
        }
        if target_formation == Formation::Skirmish || (tu.gun().is_some() && tu.formation == Formation::Unlimbered && self.target_deployed.is_none()) {
            add(Id::SkirmishTarget, Some(if tu.gun().is_some() { "unlimbered artillery" } else { "skirmish line" }.into()));
        }
        if self.ctx.table.optional.loose_order && self.target_deployed.is_none() && loose_order(tu, target_formation) {
            add(Id::LooseOrderTarget, None);
        }
        let cover = unit_cover(s, target, &from);
        if let Some(c) = &cover {
            let id = match c.class {
                Cover::Light => Id::LightCover,
                Cover::Medium => Id::MediumCover,
                Cover::Heavy => Id::HeavyCover,
            };
            add(id, Some(c.features.join(", ")));
        }

        let modifiers: Vec<Modifier> = candidates.into_iter().filter(|(id, _)| chart.applies(*id, self.kind)).map(|(id, d)| Modifier::from_chart(chart, id, d)).collect();
        let total = modifiers.iter().map(|m| m.value).sum();
        let column = match (self.gun, self.ammo) {
            (Some(gun), Some(Ammo::Canister)) => FireColumn::Canister { gun, guns: figures },
            (Some(_), _) => FireColumn::Ball { guns: figures },
            _ => FireColumn::SmallArms { figures },
        };
        Some(Volley {
            stands,
            figures,
            range,
            band,
            close_range,
            enfilade,
            cover,
            figures_resting,
            modifiers,
            total,
            column: ColumnInfo::new(chart, column),
        })
    }

    /// Who fires on whom, with what, and why.
    pub fn head(&self) -> ShotHead {
        let s = self.ctx.situation();
        ShotHead {
            firer: s.unit(self.ctx.firer).name.clone(),
            target: s.unit(self.ctx.target).name.clone(),
            firer_index: self.ctx.firer,
            target_index: self.ctx.target,
            occasion: self.ctx.occasion,
            kind: self.kind,
            ammo: self.ammo,
        }
    }

    /// The volley a preview shows: at the scenario's visibility, or as if every firing stand saw
    /// the target (before a woods roll takes some away).
    pub fn shown_volley(&self) -> Volley {
        self.volley(None).or_else(|| self.volley(Some(f32::INFINITY))).expect("a shot that may be fired has stands that bear and see")
    }

    /// The geometry as this volley used it.
    pub fn summary(&self, v: Option<&Volley>) -> GeometrySummary {
        let woods = |stands: &[usize]| stands.iter().filter_map(|&i| self.stand(i).sight.as_ref()).map(|s| s.woods.total()).fold(0.0, f32::max);
        match v {
            Some(v) => GeometrySummary {
                range: v.range,
                stands: v.stands.clone(),
                figures: v.figures,
                band: v.band,
                elevated: self.elevated,
                close_range: v.close_range,
                enfilade: v.enfilade,
                woods_in: woods(&v.stands),
                cover: v.cover.clone(),
                figures_resting: v.figures_resting,
                target_deployed_in: self.target_deployed.clone(),
            },
            None => GeometrySummary {
                range: self.range_of(&self.stands),
                stands: Vec::new(),
                figures: 0,
                band: self.band(self.range_of(&self.stands)),
                elevated: self.elevated,
                close_range: false,
                enfilade: false,
                woods_in: woods(&self.stands),
                cover: None,
                figures_resting: 0,
                target_deployed_in: self.target_deployed.clone(),
            },
        }
    }
}

/// 5.4 (optional): loose order, or militia mounted three to a stand, who "always utilize the
/// loose order modifiers".
fn loose_order(u: &UnitInfo, formation: Formation) -> bool {
    let three_a_stand = u.unit_type == UnitType::Militia && u.arm == Arm::Infantry && u.stands.iter().map(|s| s.figures).max() == Some(3);
    formation == Formation::LooseOrder || (three_a_stand && formation == Formation::Line)
}

/// 8.1: the stands that fire on the target. In a unit's own fire the closest target is fired on
/// in preference; stands that cannot fire on it may fire on their own nearest (split fire).
fn choose_stands(ctx: &FireContext, g: &FireGeometry, opts: FireOptions) -> Result<Vec<usize>, Refusal> {
    let s = ctx.situation();
    let (fu, tu) = (s.unit(ctx.firer), s.unit(ctx.target));
    let choices = targets(s, ctx.firer, opts);
    let Some(mine) = choices.iter().find(|c| c.target == ctx.target) else {
        return Err(why_not(ctx, g));
    };
    if !ctx.occasion.chooses_target() {
        return Ok(mine.stands.clone());
    }
    let split = split_fire(s, ctx.firer, opts);
    if let Some(c) = split.iter().find(|c| c.target == ctx.target) {
        return Ok(c.stands.clone());
    }
    // Equally near targets are the player's choice.
    if choices.first().is_some_and(|c| (c.range - mine.range).abs() <= EPS) {
        return Ok(mine.stands.clone());
    }
    let nearer = split.iter().find(|c| c.stands.iter().any(|st| mine.stands.contains(st))).or(split.first()).expect("the target is eligible, so some target is");
    Err(Refusal::new(
        "8.1",
        format!(
            "\"{}\" is nearer ({:.2}\" against {:.2}\" to {}): {} must fire on the closest target in preference to a further one",
            nearer.name,
            nearer.range,
            mine.range,
            quoted(tu),
            quoted(fu)
        ),
    ))
}

/// Why no stand can fire on the target: range, arc or sight.
fn why_not(ctx: &FireContext, g: &FireGeometry) -> Refusal {
    let s = ctx.situation();
    let (fu, tu) = (s.unit(ctx.firer), s.unit(ctx.target));
    let range_rule = if fu.gun().is_some() { "8.4" } else { "8.3" };
    if !g.in_range {
        return Refusal::new(range_rule, format!("{} is out of range ({:.2}\")", quoted(tu), g.range));
    }
    if !g.in_arc {
        return Refusal::new("8.1", format!("{} is not within {}'s firing arc", quoted(tu), quoted(fu)));
    }
    if g.bearing().next().is_none() {
        return Refusal::new(range_rule, format!("no stand of {} has {} both in its arc and in range", quoted(fu), quoted(tu)));
    }
    let blocked = g.blocked_by();
    let by = if blocked.is_empty() { String::new() } else { format!(" by {}", blocked.join(", ")) };
    Refusal::new("8.8", format!("the line of sight to {} is blocked{by}", quoted(tu)))
}
