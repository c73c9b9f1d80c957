//! Fire resolutions per second (preview + resolve of a fixed small-arms shot on the teaching
//! table, OTP 8.1–8.16), a whole automatic game of the largest scenario (Cowpens) with the novice
//! automatic player and with the standard and strong ones, and a whole automatic game under each
//! other rule set.
//!
//! `cargo bench --no-default-features --bench game` (needs `[[bench]] name = "game" harness = false`).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

use otp::rules::otp::bot::simulate;
use otp::rules::otp::charts::Charts;
use otp::rules::dice::Dice;
use otp::rules::otp::fire::{FireContext, FireTable, preview, resolve};
use otp::scenario::model::Formation;

/// The teaching table with the Delaware lights brought to 3" of the 71st Light Company.
fn fire_table() -> (FireTable, usize, usize) {
    let mut s = otp::scenario::default_scenario();
    for u in s.sides.iter_mut().flat_map(|s| &mut s.brigades).flat_map(|b| &mut b.units) {
        if u.name == "Delaware Light Infantry" {
            u.at[1] += 3.0;
            u.formation = Formation::Skirmish;
        }
    }
    let table = FireTable::from_scenario(&s);
    let find = |n: &str| table.situation.find(n).unwrap();
    let (f, t) = (find("Delaware Light Infantry"), find("71st Light Company"));
    (table, f, t)
}

fn fire(c: &mut Criterion) {
    let charts = Charts::embedded();
    let (table, firer, target) = fire_table();
    let ctx = FireContext::new(&table, firer, target);
    preview(&ctx, charts).expect("a legal shot");
    let mut dice = Dice::new(1);
    c.bench_function("fire preview + resolve", |b| {
        b.iter(|| {
            let p = preview(black_box(&ctx), charts).unwrap();
            let r = resolve(black_box(&ctx), charts, &mut dice).unwrap();
            black_box((p, r))
        })
    });
}

/// The pinned seeds of `tests/golden.rs::simulate_whole_games`, played in turn, so every sample
/// plays the same games (issue 20: "same seeds, same games").
const SEEDS: u64 = 8;

fn scenario(name: &str) -> otp::scenario::model::Scenario {
    let path = format!("{}/scenarios/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    otp::scenario::load(Path::new(&path)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn game(c: &mut Criterion) {
    let cowpens = scenario("cowpens");
    let mut group = c.benchmark_group("automatic game");
    group.sample_size(10);
    let mut seed = 0;
    group.bench_function("cowpens, whole game", |b| {
        b.iter(|| {
            seed = seed % SEEDS + 1;
            black_box(simulate(&cowpens, seed, None, None))
        })
    });
    group.finish();
}

/// Cowpens with both sides at the standard and at the strong level (issue 19: a standard game
/// within 2x of the novice's, above), the same seeds in turn.
fn levels(c: &mut Criterion) {
    use otp::rules::automatic::Level;
    let cowpens = scenario("cowpens");
    let mut group = c.benchmark_group("automatic game");
    group.sample_size(10);
    for level in [Level::Standard, Level::Strong] {
        let mut seed = 0;
        group.bench_function(format!("cowpens, whole game, both {level}"), |b| {
            b.iter(|| {
                seed = seed % SEEDS + 1;
                black_box(otp::rules::otp::balance::play_levels(&cowpens, &[level, level], seed, None))
            })
        });
    }
    group.finish();
}

/// The same whole-game bench for every other rule set, through the registry (issue 20: every rule
/// set that lands gets it): the AWI sets on Cowpens, the ACW sets on McPherson's Ridge.
fn every_rule_set(c: &mut Criterion) {
    use otp::rules::cite::RuleSetId;
    let cases = [
        (RuleSetId::Revolution, "cowpens"),
        (RuleSetId::Purky, "cowpens"),
        (RuleSetId::AcwQuick, "mcphersons_ridge"),
        (RuleSetId::AcwOrders, "mcphersons_ridge"),
    ];
    let mut group = c.benchmark_group("automatic game");
    group.sample_size(10);
    for (rules, name) in cases {
        let s = scenario(name);
        let mut seed = 0;
        group.bench_function(format!("{name} under {}, whole game", rules.key()), |b| {
            b.iter(|| {
                seed = seed % SEEDS + 1;
                black_box(otp::rules::registry::simulate(rules, &s, seed, None, None).expect("plays"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, fire, game, levels, every_rule_set);
criterion_main!(benches);
