//! Fire resolutions per second (preview + resolve of a fixed small-arms shot on the teaching
//! table, OTP 8.1–8.16) and a whole automatic game of the largest scenario (Cowpens).
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

fn game(c: &mut Criterion) {
    let scenario = otp::scenario::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/cowpens.ron"))).expect("cowpens loads");
    let mut group = c.benchmark_group("automatic game");
    group.sample_size(10);
    let mut seed = 0;
    group.bench_function("cowpens, whole game", |b| {
        b.iter(|| {
            seed += 1;
            black_box(simulate(&scenario, seed, None, None))
        })
    });
    group.finish();
}

criterion_group!(benches, fire, game);
criterion_main!(benches);
