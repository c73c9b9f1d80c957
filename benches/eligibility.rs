//! The full eligibility matrix (OTP 8.1: range, arc, line of sight through terrain) for two
//! armies of 200 units each, drawn up close on a 12' x 8' table with a dozen terrain features.
//!
//! `cargo bench --no-default-features --bench eligibility`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use otp::rules::otp::fire::battle::{battle, export, matrix};
use otp::table::situation::Situation;

/// `OTP_ELIGIBILITY_EXPORT=FILE`: the battle, the matrix and the mean Rust time of 200 matrices as
/// JSON, for the independent shapely implementation (`tools/eligibility_shapely.py`).
fn write_export(path: &str, s: &Situation, m: &[otp::table::fire::Eligible]) {
    let runs = 200;
    let started = std::time::Instant::now();
    for _ in 0..runs {
        black_box(matrix(black_box(s)));
    }
    let seconds = started.elapsed().as_secs_f64() / runs as f64;
    std::fs::write(path, export(s, m, seconds, runs).to_string()).unwrap_or_else(|e| panic!("{path}: {e}"));
    println!("wrote {path}: the battle, the Rust matrix and its time ({:.3} ms a matrix, mean of {runs})", seconds * 1e3);
}

fn bench(c: &mut Criterion) {
    let s = battle();
    let m = matrix(&s);
    let firing = m.iter().filter(|e| e.figures_firing > 0).count();
    println!("{} units, {} pairs in range, {firing} with figures able to fire", s.units().len(), m.len());
    if let Ok(path) = std::env::var("OTP_ELIGIBILITY_EXPORT") {
        write_export(&path, &s, &m);
        return;
    }
    c.bench_function("eligibility matrix, 200 v 200 units, 12 terrain features", |b| b.iter(|| matrix(black_box(&s))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
