//! The OTP charts and dice: what the rules text fixes holds exactly, the reconstructed charts are
//! sane (monotone fire chart, distributions that sum to 1), broken chart files get located
//! messages, and docs/otp-charts.md is generated from the data.

use std::path::Path;

use otp::rules::otp::charts::fire::FireChart;
use otp::rules::otp::charts::melee::{ClosureModifierId, CvRollModifierId, MeleeCvModifierId, MultiplierId};
use otp::rules::otp::charts::{Ammo, ArmClass, ArtilleryBand, Charts, FireModifierId, FireResult, MoveCostKind, Severity, embedded_text};
use otp::rules::dice::{self, AD_FACES, Dice, DiceKind};
use otp::scenario::model::{DisorderType, Formation, GunSize, Rating, UnitType, Weapon, WoodsDensity};
use proptest::prelude::*;

fn charts() -> &'static Charts {
    Charts::embedded()
}

// ---------------------------------------------------------------------------------------------
// Dice

// OTP Introduction: "Each D10 is read from 0 to 9."
#[test]
fn d10_mean_over_many_seeded_rolls() {
    let mut d = Dice::new(20_250_101);
    let n = 200_000;
    let sum: i64 = (0..n).map(|_| d.d10().total as i64).sum();
    let mean = sum as f64 / n as f64;
    assert!((mean - 4.5).abs() < 0.02, "mean {mean}");
}

// The averaging die: faces 2, 3, 3, 4, 4, 5.
#[test]
fn ad_face_frequencies() {
    assert_eq!(AD_FACES, [2, 3, 3, 4, 4, 5]);
    let mut d = Dice::new(7);
    let n = 120_000;
    let mut counts = [0u32; 6];
    for _ in 0..n {
        counts[d.ad(1).total as usize] += 1;
    }
    let share = |f: usize| counts[f] as f64 / n as f64;
    assert_eq!(counts[0] + counts[1], 0);
    assert!((share(2) - 1.0 / 6.0).abs() < 0.006);
    assert!((share(3) - 2.0 / 6.0).abs() < 0.006);
    assert!((share(4) - 2.0 / 6.0).abs() < 0.006);
    assert!((share(5) - 1.0 / 6.0).abs() < 0.006);
}

#[test]
fn exact_distributions_sum_to_one() {
    for kind in [DiceKind::D10, DiceKind::TwoD10, DiceKind::Ad(1), DiceKind::Ad(2), DiceKind::Ad(3), DiceKind::Ad(4)] {
        let dist = dice::distribution(kind);
        let total: f64 = dist.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12, "{kind}: {total}");
    }
    // 1AD: 1/6, 2/6, 2/6, 1/6; mean 3.5 a die.
    assert_eq!(dice::distribution(DiceKind::Ad(1)), vec![(2, 1.0 / 6.0), (3, 2.0 / 6.0), (4, 2.0 / 6.0), (5, 1.0 / 6.0)]);
    assert!((DiceKind::Ad(3).mean() - 10.5).abs() < 1e-12);
    assert!((DiceKind::TwoD10.mean() - 49.5).abs() < 1e-12);
}

#[test]
fn same_seed_same_rolls() {
    let rolls = |seed: u64| {
        let mut d = Dice::new(seed);
        (0..200).map(|i| d.roll([DiceKind::D10, DiceKind::TwoD10, DiceKind::Ad(1), DiceKind::Ad(2)][i % 4])).collect::<Vec<_>>()
    };
    assert_eq!(rolls(1777), rolls(1777));
    assert_ne!(rolls(1777), rolls(1778));
}

// ---------------------------------------------------------------------------------------------
// Fire

// OTP 8.1: "a 28 figure unit fires at a target and rolls a modified result of "5". The total of the
// 5 result in the 20 column (2 losses) plus the 5 result in the "8" column (1 loss) is applied to
// the target (2 + 1 = 3 losses total)."
#[test]
fn the_8_1_example() {
    let f = &charts().fire;
    assert_eq!(f.small_arms(20, 5), FireResult::Kills(2));
    assert_eq!(f.small_arms(8, 5), FireResult::Kills(1));
    assert_eq!(f.small_arms(28, 5), FireResult::Kills(3));
    assert_eq!(f.small_arms(28, 5), f.small_arms(20, 5).plus(f.small_arms(8, 5)));
}

// OTP 8.4: light 0-8/9-16/17-21, medium 0-9/10-18/19-24, heavy 0-10/11-24/25-30; partial inches
// round up ("9 1/4" rounds up to 10"").
#[test]
fn artillery_bands_at_their_boundaries() {
    use ArtilleryBand::*;
    let f = &charts().fire;
    type Cases<'a> = [(GunSize, &'a [(f32, Option<ArtilleryBand>)]); 3];
    let cases: Cases = [
        (
            GunSize::Light,
            &[(0.0, Some(Short)), (8.0, Some(Short)), (8.01, Some(Medium)), (9.0, Some(Medium)), (9.25, Some(Medium)), (16.0, Some(Medium)), (16.5, Some(Long)), (17.0, Some(Long)), (21.0, Some(Long)), (21.1, None), (24.0, None)],
        ),
        (
            GunSize::Medium,
            &[(8.0, Some(Short)), (9.0, Some(Short)), (9.25, Some(Medium)), (10.0, Some(Medium)), (18.0, Some(Medium)), (18.2, Some(Long)), (19.0, Some(Long)), (24.0, Some(Long)), (24.5, None)],
        ),
        (
            GunSize::Heavy,
            &[(9.25, Some(Short)), (10.0, Some(Short)), (10.5, Some(Medium)), (11.0, Some(Medium)), (16.0, Some(Medium)), (17.0, Some(Medium)), (21.0, Some(Medium)), (24.0, Some(Medium)), (24.9, Some(Long)), (25.0, Some(Long)), (30.0, Some(Long)), (30.01, None)],
        ),
    ];
    for (gun, bands) in cases {
        for &(inches, band) in bands {
            assert_eq!(f.band(gun, inches), band, "{gun:?} at {inches}\"");
        }
    }
    // OTP 7.3: guns on higher ground reach further (the bonus itself is reconstructed).
    let bonus = f.elevation_bonus.value;
    assert_eq!(f.band_from(GunSize::Light, 21.0 + bonus, true), Some(Long));
    assert_eq!(f.band_from(GunSize::Light, 21.1 + bonus, true), None);
    assert_eq!(f.band_from(GunSize::Light, 8.0, true), Some(Short), "only the maximum range grows");
    // OTP 8.4: canister only at short range.
    assert!(f.canister_allowed(Short) && !f.canister_allowed(Medium) && !f.canister_allowed(Long));
}

fn fire_monotone(f: &FireChart, n: u32, r: i32) -> Result<(), TestCaseError> {
    prop_assert!(f.small_arms(n, r) >= f.small_arms(n, r + 1), "{n} figures: roll {r} vs {}", r + 1);
    prop_assert!(f.small_arms(n + 1, r) >= f.small_arms(n, r), "roll {r}: {} vs {n} figures", n + 1);
    for ammo in [Ammo::Ball, Ammo::Canister] {
        for gun in [GunSize::Light, GunSize::Medium, GunSize::Heavy] {
            let g = n % 25;
            prop_assert!(f.artillery(g, ammo, gun, r) >= f.artillery(g, ammo, gun, r + 1));
            prop_assert!(f.artillery(g + 1, ammo, gun, r) >= f.artillery(g, ammo, gun, r));
        }
        prop_assert!(f.artillery(n % 25, Ammo::Canister, GunSize::Heavy, r) >= f.artillery(n % 25, Ammo::Canister, GunSize::Light, r));
    }
    Ok(())
}

proptest! {
    // OTP 8.1/8.2 with the reconstruction's rule: a lower modified roll and more figures (or guns)
    // never give fewer losses, including beyond 20 figures.
    #[test]
    fn the_fire_chart_is_monotone(n in 0u32..90, r in -15i32..20) {
        fire_monotone(&charts().fire, n, r)?;
    }
}

#[test]
fn the_fire_chart_is_monotone_everywhere_on_the_chart() {
    let f = &charts().fire;
    let (lo, hi) = f.roll_range();
    for n in 0..=45 {
        for r in lo - 2..=hi + 2 {
            fire_monotone(f, n, r).unwrap();
        }
    }
}

// OTP 8.3–8.15, 5.3, 5.4: the modifiers the text fixes.
#[test]
fn fire_modifiers_fixed_by_the_text() {
    use FireModifierId::*;
    let f = &charts().fire;
    for (id, value, section) in [
        (CloseRange, -1, "8.3"),
        (InitialVolley, -1, "8.5"),
        (BallLongRange, 2, "8.4"),
        (HeavyGun, -1, "8.4"),
        (LightGun, 1, "8.4"),
        (LightCover, 1, "8.6"),
        (MediumCover, 2, "8.6"),
        (HeavyCover, 3, "8.6"),
        (Rest, -1, "8.10"),
        (Enfilade, -2, "8.11"),
        (DisorderedTarget, -1, "8.12"),
        (ColumnTarget, -1, "8.13"),
        (ColumnTargetBall, -2, "8.13"),
        (SkirmishFirer, 1, "8.13"),
        (SkirmishTarget, 2, "8.13"),
        (MountedTarget, -1, "8.14"),
        (EliteFirer, -1, "8.15"),
        (MilitiaFirer, 1, "8.15"),
        (IndianFirer, 1, "8.15"),
        (LooseOrderTarget, 1, "5.4"),
    ] {
        let m = f.modifier_entry(id);
        assert_eq!(m.value, value, "{id:?}");
        assert!(matches!(&m.source, otp::rules::otp::charts::Source::Text { section: s } if s.contains(section)), "{id:?}: {:?}", m.source);
    }
    // The digits the scan lost are reconstructions, and say so.
    for id in [BallShortRange, EnfiladeBall, DisorderedFirer] {
        assert!(f.modifier_entry(id).source.is_reconstructed(), "{id:?}");
    }
    assert!(f.elevation_bonus.source.is_reconstructed());
    // Directions the text does fix: the disordered firer is worse off, short-range ball better.
    assert!(f.modifier(DisorderedFirer) > 0);
    assert!(f.modifier(BallShortRange) < 0);
    assert!(f.modifier(EnfiladeBall) < 0);
}

// OTP 8.3, 8.7, 7.1.
#[test]
fn ranges_visibility_and_crews() {
    let f = &charts().fire;
    assert_eq!(f.small_arms_range(Weapon::Carbine), 4.0);
    assert_eq!(f.small_arms_range(Weapon::Fusil), 4.0);
    assert_eq!(f.small_arms_range(Weapon::Musket), 6.0);
    assert_eq!(f.small_arms_range(Weapon::Bow), 6.0);
    assert_eq!(f.small_arms_range(Weapon::Rifle), 9.0);
    assert_eq!(f.close_range(), 2.0);
    let vis = |w| {
        let v = f.visibility(w);
        (v.dice, v.plus)
    };
    assert_eq!(vis(WoodsDensity::Light), (2, 2));
    assert_eq!(vis(WoodsDensity::Regular), (2, -2));
    assert_eq!(vis(WoodsDensity::Dense), (1, -1));
    assert_eq!(f.free_woods.value, 1.0);
    assert_eq!(f.crew_lost(2), 1);
    assert_eq!(f.crew_lost(3), 1);
}

// ---------------------------------------------------------------------------------------------
// Loss severity

/// OTP's "Expanded Table of Figure Losses", as printed. The scan runs each row together (shown in
/// the comments); two rows are garbled there and are read as the rest of the table reads.
const EXPANDED_TABLE: [(&str, &str, &str, &str, &str); 16] = [
    ("2-3", "-", "-", "1", "2+"),           // 2-3--12+
    ("4-5", "-", "1", "2", "3+"),           // 4-5-123+
    ("6-7", "-", "1", "2-3", "4+"),         // 6-7-12-34+
    ("8-9", "-", "1-2", "3-4", "5+"),       // 8-9-1-23-45+
    ("10-11", "1", "2", "3-5", "6+"),       // 10-11123-56+
    ("12-13", "1", "2-3", "4-6", "7+"),     // 12-1312-34-67+
    ("14-15", "1", "2-3", "4-7", "8+"),     // 14-1512-34-78+
    ("16-17", "1", "2-4", "5-8", "9+"),     // 16-1712-45-89+
    ("18-19", "1", "2-4", "5-9", "10+"),    // 18-1912-45-910+
    ("20-21", "1-2", "3-5", "6-10", "11+"), // 20-211-23-54-1011+  ("3-54-10": 3-5, 6-10, as 10.3 gives for 21)
    ("22-23", "1-2", "3-5", "6-11", "12+"), // 22-231-23-56-1112   (the "+" of "12+" lost)
    ("24-25", "1-2", "3-6", "7-12", "13+"), // 24-251-23-67-1213+
    ("26-27", "1-2", "3-6", "7-13", "14+"), // 26-271-23-67-1314+
    ("28-29", "1-2", "3-7", "8-14", "15+"), // 28-291-23-78-1415+
    ("30-31", "1-3", "4-7", "8-15", "16+"), // 30-311-34-78-1516+
    ("32-33", "1-3", "4-8", "9-16", "17+"), // 32-331-34-89-1617+
];

/// Does a printed cell ("-", "3", "2-4", "11+") hold `n`?
fn cell_holds(cell: &str, n: u32) -> bool {
    if cell == "-" {
        false
    } else if let Some(from) = cell.strip_suffix('+') {
        n >= from.parse().unwrap()
    } else if let Some((a, b)) = cell.split_once('-') {
        (a.parse().unwrap()..=b.parse().unwrap()).contains(&n)
    } else {
        n == cell.parse::<u32>().unwrap()
    }
}

// OTP 10.3 and the Expanded Table of Figure Losses: every original size 2–33, every loss.
#[test]
fn loss_severity_matches_the_expanded_table() {
    let l = &charts().losses;
    let mut covered = Vec::new();
    for (sizes, light, moderate, substantial, severe) in EXPANDED_TABLE {
        let (a, b) = sizes.split_once('-').unwrap();
        for original in a.parse::<u32>().unwrap()..=b.parse().unwrap() {
            covered.push(original);
            assert_eq!(l.severity(original, 0), Severity::NoLoss);
            for lost in 1..=original + 2 {
                let printed: Vec<Severity> = [(light, Severity::Light), (moderate, Severity::Moderate), (substantial, Severity::Substantial), (severe, Severity::Severe)]
                    .into_iter()
                    .filter(|(cell, _)| cell_holds(cell, lost))
                    .map(|(_, s)| s)
                    .collect();
                assert_eq!(printed.len(), 1, "the printed row {sizes} puts {lost} in {printed:?}");
                assert_eq!(l.severity(original, lost), printed[0], "{original} figures, {lost} lost");
            }
        }
    }
    assert_eq!(covered, (2..=33).collect::<Vec<_>>());
}

// The table's pairs follow 10.3's percentages for the larger size of each pair; that is how the two
// garbled rows are read. Beyond 33 figures the percentages decide.
#[test]
fn the_table_is_the_percentages_of_its_larger_sizes() {
    let l = &charts().losses;
    for original in (3..=33).step_by(2) {
        for lost in 0..=original {
            assert_eq!(l.severity(original, lost), l.percentages.severity(original, lost), "{original} figures, {lost} lost");
        }
    }
    assert_eq!(l.severity(40, 4), Severity::Light);
    assert_eq!(l.severity(40, 10), Severity::Substantial);
    assert_eq!(l.severity(40, 21), Severity::Severe);
}

// ---------------------------------------------------------------------------------------------
// Movement, morale, commanders, melee, rebuilding: the numbers the text fixes

#[test]
fn movement_fixed_by_the_text() {
    let m = &charts().movement;
    // OTP 6.6: infantry line 6", halved to 3" by a failed roll.
    assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Line, Formation::Line), Some(6.0));
    assert_eq!(m.failed_disorder_factor(), 0.5);
    // OTP 3.2, 6.9, 6.12.
    assert_eq!(m.cavalry_charge(), 24.0);
    assert_eq!(m.commander(), 24.0);
    // OTP 6.2–6.5.
    assert_eq!(m.cost(MoveCostKind::ChangeFormation), 0.5);
    assert_eq!(m.cost(MoveCostKind::AboutFaceColumn), 0.25);
    assert_eq!(m.cost(MoveCostKind::BendLine), 0.25);
    assert_eq!(m.cost(MoveCostKind::DoubleUp), 0.25);
    // OTP 6.7.
    assert_eq!(m.obstacle_per_rank(ArmClass::Infantry, Formation::Line), 1.0);
    assert_eq!(m.obstacle_per_rank(ArmClass::Cavalry, Formation::Column), 2.0);
    assert_eq!(m.obstacle_per_rank(ArmClass::Artillery, Formation::Limbered), 2.0);
    // OTP 6.8.
    assert_eq!(m.special_move_dice(ArmClass::Infantry), Some(1));
    assert_eq!(m.special_move_dice(ArmClass::Cavalry), Some(2));
    // OTP 7.6.
    assert_eq!((m.galloper().move_only, m.galloper().move_and_fire), (6.0, 3.0));
    // OTP 6.6: infantry militia, lights and Indians treat all woods as type A.
    for t in [UnitType::Militia, UnitType::Light, UnitType::Indian] {
        assert_eq!(m.effective_disorder_type(ArmClass::Infantry, t, DisorderType::D, true), DisorderType::A);
    }
    assert_eq!(m.effective_disorder_type(ArmClass::Infantry, UnitType::Line, DisorderType::D, true), DisorderType::D);
    // Every arm and formation has a move and disorder numbers.
    for arm in ArmClass::ALL {
        for &f in arm.formations() {
            assert!(m.allowance(arm, UnitType::Line, f).is_some(), "{arm:?} {f:?}");
            assert!(m.disorder_number(arm, UnitType::Line, f, DisorderType::B).is_some(), "{arm:?} {f:?}");
        }
    }
}

#[test]
fn melee_fixed_by_the_text() {
    let me = &charts().melee;
    // OTP 9.8: 1/1, 3/2 → 1 AD, 1 move; 2/1, 3/1, 4/1 → 2 AD, 2 moves. 6.10: bonus move at 2:1.
    let rows: Vec<(String, u8, u8, bool)> = me.ratios.iter().map(|r| (r.label(), r.loser_dice, r.retreat_moves, r.bonus_move)).collect();
    assert_eq!(
        rows,
        [("1/1", 1, 1, false), ("3/2", 1, 1, false), ("2/1", 2, 2, true), ("3/1", 2, 2, true), ("4/1", 2, 2, true)]
            .map(|(l, d, m, b)| (l.to_string(), d, m, b))
    );
    // OTP 9.6.
    assert_eq!(me.cv_roll(CvRollModifierId::DefenderMediumCover), -1);
    assert_eq!(me.cv_roll(CvRollModifierId::DefenderHeavyCover), -2);
    assert_eq!(me.cv_roll(CvRollModifierId::Disordered), 2);
    assert_eq!(me.cv_roll(CvRollModifierId::CavalryInOpen), -2);
    // OTP 9.12, 9.13, 5.4.
    use MeleeCvModifierId::*;
    for (id, v) in [(UphillOrFord, 1), (LightCover, 1), (MediumCover, 2), (HeavyCover, 3), (Downhill, 1), (CavalryCharge, 2), (Bayonets, 1), (Disordered, -2), (LooseOrder, -1)] {
        assert_eq!(me.cv(id), v, "{id:?}");
    }
    // OTP 9.14.
    assert_eq!(me.multiplier(MultiplierId::Flank), 2.0);
    assert_eq!(me.multiplier(MultiplierId::Rear), 3.0);
    assert_eq!(me.multiplier(MultiplierId::SkirmishVsFormed), 0.5);
    assert_eq!(me.multiplier(MultiplierId::MountedVsFoot), 2.0);
    // OTP 9.10.
    assert_eq!(me.leader_melee(Rating::Poltroon, true), -1);
    assert_eq!(me.leader_melee(Rating::Cautious, false), 1);
    assert_eq!(me.leader_melee(Rating::Firebrand, true), 1);
    assert_eq!(me.leader_melee(Rating::Exceptional, true), 1);
    // OTP 9.9.
    assert_eq!(me.artillery_figures.value, 1);
    // The closing modifiers are reconstructed and say so.
    assert!(ClosureModifierId::ALL.iter().all(|&id| me.closure_entry(id).source.is_reconstructed()));
}

#[test]
fn commanders_morale_and_rebuilding_fixed_by_the_text() {
    let c = charts();
    // OTP 10.4: an Aggressive commander has 3 passes.
    assert_eq!(c.commanders.passes(Rating::Aggressive), 3);
    // OTP 8.16, 9.11.
    assert!(c.commanders.casualty_from_fire(0) && !c.commanders.casualty_from_fire(1));
    assert!((0..=3).all(|d| c.commanders.casualty_in_melee(d)) && !c.commanders.casualty_in_melee(4));
    // OTP 10.3: losses reduce the roll, works add to it.
    let mut last = 0;
    for s in Severity::LOSSES {
        let v = c.morale.severity_modifier(s);
        assert!(v < 0 && v <= last, "{s:?}");
        last = v;
    }
    assert!(c.morale.works.value > 0);
    // OTP 11.0.
    assert_eq!(c.rebuild.modifier(UnitType::StateLine), -1);
    assert_eq!(c.rebuild.modifier(UnitType::Elite), 1);
    assert!(c.rebuild.may_attempt(UnitType::Militia, 0, 2).is_err());
    assert!(c.rebuild.may_attempt(UnitType::Indian, 0, 2).is_err());
    assert!(c.rebuild.may_attempt(UnitType::Line, 4, 2).is_err());
    assert!(c.rebuild.may_attempt(UnitType::Line, 3, 2).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Loading and validation

#[test]
fn the_embedded_charts_load_and_validate() {
    let c = Charts::parse_files(&[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&c, Charts::embedded());
    // The folder in the repository is the same as what is built in.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/rules/otp");
    assert_eq!(&Charts::load_dir(&dir).unwrap_or_else(|e| panic!("{e}")), Charts::embedded());
}

/// The embedded text of `file` with one edit (which must apply exactly once).
fn edited(file: &str, from: &str, to: &str) -> String {
    let src = embedded_text(file).unwrap();
    assert_eq!(src.matches(from).count(), 1, "{file}: {from:?} must occur exactly once");
    src.replacen(from, to, 1)
}

/// The 1-based line of the first occurrence of `needle`.
fn line_of(src: &str, needle: &str) -> usize {
    src[..src.find(needle).unwrap()].matches('\n').count() + 1
}

fn error_for(file: &str, src: &str) -> String {
    match Charts::parse_files(&[(file, src)]) {
        Ok(_) => panic!("{file} should not load"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_syntax_error_is_located() {
    let src = edited("fire.ron", "small_arms_columns: (value: 20, source", "small_arms_columns: (value: 20 source");
    let err = error_for("fire.ron", &src);
    let line = line_of(&src, "small_arms_columns: (value");
    assert!(err.starts_with(&format!("fire.ron:{line}:")), "{err}");
}

#[test]
fn an_unknown_type_is_located() {
    let src = edited("morale.ron", "(class: Indian,", "(class: Mohawk,");
    let err = error_for("morale.ron", &src);
    let line = line_of(&src, "Mohawk");
    assert!(err.starts_with(&format!("morale.ron:{line}:")), "{err}");
    assert!(err.contains("Mohawk"), "{err}");
}

#[test]
fn a_bad_fire_cell_is_located() {
    let src = edited("fire.ron", r#"ball: " M  M  M  1  1  1", canister_light: " M  M  1  1  2  2""#, r#"ball: " M  M  X  1  1  1", canister_light: " M  M  1  1  2  2""#);
    let err = error_for("fire.ron", &src);
    let line = line_of(&src, "M  X");
    assert!(err.starts_with(&format!("fire.ron:{line}:")), "{err}");
    assert!(err.contains("column 3: \"X\" is not a fire result"), "{err}");
}

#[test]
fn an_unknown_field_is_located() {
    let src = edited("rebuild.ron", "max_attempts: (value: 4,", "max_attempts: (value: 4, per_turn: 1,");
    let err = error_for("rebuild.ron", &src);
    let line = line_of(&src, "per_turn");
    assert!(err.starts_with(&format!("rebuild.ron:{line}:")), "{err}");
    assert!(err.contains("per_turn"), "{err}");
}

#[test]
fn a_non_monotone_fire_chart_is_refused() {
    // Roll 3 with 20 figures reading 4 kills: more than roll 2's 3.
    let src = edited(
        "fire.ron",
        r#"small_arms: " -  M  M  M  M  1  1  1  1  1  1  2  2  2  2  2  2  3  3  3""#,
        r#"small_arms: " -  M  M  M  M  1  1  1  1  1  1  2  2  2  2  2  2  3  3  4""#,
    );
    let err = error_for("fire.ron", &src);
    assert!(err.contains("fire.ron: in rows[roll 3].small_arms: column 20 reads 4, more than 3 at roll 2: a higher roll must never give more losses"), "{err}");
    // More figures doing less.
    let src = edited(
        "fire.ron",
        r#"small_arms: " -  M  M  M  M  1  1  1  1  1  1  2  2  2  2  2  2  3  3  3""#,
        r#"small_arms: " -  M  M  M  M  1  1  1  1  1  1  2  2  2  2  2  2  3  2  3""#,
    );
    let err = error_for("fire.ron", &src);
    assert!(err.contains("fire.ron: in rows[roll 3].small_arms: column 19 (2) gives less than column 18 (3): more firing must never give fewer losses"), "{err}");
}

#[test]
fn the_8_1_anchor_is_enforced() {
    let src = edited("fire.ron", r#"column: SmallArms(figures: 20), result: "2""#, r#"column: SmallArms(figures: 20), result: "3""#);
    let err = error_for("fire.ron", &src);
    assert!(err.contains("fire.ron: in rows[roll 5]: SmallArms { figures: 20 } reads 2, but OTP 8.1 fixes 3"), "{err}");
}

#[test]
fn missing_rows_are_named() {
    // The Indian column of the morale table.
    let src = embedded_text("morale.ron").unwrap();
    let start = src.find("        (class: Indian,").unwrap();
    let end = start + src[start..].find("        (class: Elite,").unwrap();
    let cut = format!("{}{}", &src[..start], &src[end..]);
    let err = error_for("morale.ron", &cut);
    assert!(err.contains("morale.ron: in columns: missing column for Indian"), "{err}");
    // A movement row.
    let src = edited("movement.ron", "(arm: Cavalry, formation: Column, inches: 18.0,", "(arm: Cavalry, formation: Line, inches: 18.0,");
    let err = error_for("movement.ron", &src);
    assert!(err.contains("movement.ron: in allowances: missing row for Cavalry in Column"), "{err}");
    assert!(err.contains("movement.ron: in allowances: 2 rows for Cavalry in Line"), "{err}");
    // A row of the loss table.
    let src = edited(
        "losses.ron",
        "        (sizes: (8, 9), light: 0, moderate: 2, substantial: 4, source: Text(section: \"Expanded Table of Figure Losses\")),\n",
        "",
    );
    let err = error_for("losses.ron", &src);
    assert!(err.contains("losses.ron: in rows[10-11]: follows sizes up to 7: rows must run on without gaps or overlaps"), "{err}");
}

#[test]
fn counts_out_of_range_are_named() {
    let src = edited("melee.ron", "(at_least: (4, 1), loser_dice: 2,", "(at_least: (4, 1), loser_dice: 9,");
    let err = error_for("melee.ron", &src);
    assert!(err.contains("melee.ron: in ratios (4/1): loser_dice is 9; it must be from 0 to 4"), "{err}");
    let src = edited("commanders.ron", "(to: 8, rating: Firebrand), (to: 9, rating: Exceptional)],\n            source: Reconstructed(why: \"2.0: Militia", "(to: 8, rating: Firebrand)],\n            source: Reconstructed(why: \"2.0: Militia");
    let err = error_for("commanders.ron", &src);
    assert!(err.contains("commanders.ron: in columns (Militia): the last band ends at 8; it must end at 9 (a D10 reads up to 9)"), "{err}");
    let src = edited("movement.ron", "(arm: Infantry, formation: Column, a: 7, b: 5, c: 3, d: 1,", "(arm: Infantry, formation: Column, a: 7, b: 5, c: 3, d: 12,");
    let err = error_for("movement.ron", &src);
    assert!(err.contains("movement.ron: in disorder[2] (Infantry Column): d is 12; it must be from -1 to 9"), "{err}");
}

#[test]
fn probabilities_that_cannot_be_are_refused() {
    // A morale column that stops short of 99 leaves rolls with no result.
    let src = edited("morale.ron", "(to: 39, result: Deploy), (to: 99, result: NE)],", "(to: 39, result: Deploy), (to: 90, result: NE)],");
    let err = error_for("morale.ron", &src);
    assert!(err.contains("morale.ron: in columns (Artillery): the last band ends at 90; it must end at 99 (2D10 read up to 99)"), "{err}");
    // Worse losses helping.
    let src = edited("morale.ron", "(severity: Severe, value: -30,", "(severity: Severe, value: -3,");
    let err = error_for("morale.ron", &src);
    assert!(err.contains("morale.ron: in losses (Severe): -3 is kinder than Substantial's -20: worse losses must never help"), "{err}");
}

#[test]
fn every_problem_is_reported_at_once() {
    let fire = edited("fire.ron", r#"column: SmallArms(figures: 20), result: "2""#, r#"column: SmallArms(figures: 20), result: "3""#);
    let melee = edited("melee.ron", "(at_least: (4, 1), loser_dice: 2,", "(at_least: (4, 1), loser_dice: 9,");
    let err = Charts::parse_files(&[("mine/fire.ron", &fire), ("mine/melee.ron", &melee)]).unwrap_err();
    let files: Vec<&str> = err.problems.iter().map(|p| p.file.as_str()).collect();
    assert!(files.contains(&"mine/fire.ron") && files.contains(&"mine/melee.ron"), "{err}");
}

#[test]
fn a_folder_of_charts_overrides_the_defaults() {
    let dir = std::env::temp_dir().join(format!("otp-charts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A player's printed chart: commanders roll differently.
    let mine = edited("commanders.ron", "casualty_melee: (value: 3, source: Text(section: \"9.11\")),", "casualty_melee: (value: 2, source: Reconstructed(why: \"house rule\")),");
    std::fs::write(dir.join("commanders.ron"), &mine).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a chart").unwrap();
    let c = Charts::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.commanders.casualty_melee.value, 2);
    assert_eq!(c.fire, Charts::embedded().fire, "the charts not given stay built in");
    // A misspelt file name is an error, not silently ignored.
    std::fs::write(dir.join("moral.ron"), "()").unwrap();
    let err = Charts::load_dir(&dir).unwrap_err().to_string();
    assert!(err.contains("moral.ron: not an OTP chart file"), "{err}");
    // A broken file in the folder is reported under its path.
    std::fs::remove_file(dir.join("moral.ron")).unwrap();
    std::fs::write(dir.join("fire.ron"), "(small_arms_columns: oops)").unwrap();
    let err = Charts::load_dir(&dir).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:1:", dir.join("fire.ron").display())), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The documentation is generated from the data

#[test]
fn docs_match_the_charts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/otp-charts.md");
    let generated = charts().markdown();
    if std::env::var_os("OTP_WRITE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/otp-charts.md is out of date with assets/rules/otp/*.ron; regenerate it with\n  OTP_WRITE_DOCS=1 cargo test --release --no-default-features --test charts docs_match_the_charts"
    );
    // Every reconstruction is listed with its reason.
    assert!(generated.contains("## Reconstructions"));
    assert!(generated.contains("†1"));
}
