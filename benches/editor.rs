//! The set-up editor's cost a change: what the window does each frame of a drag on the largest
//! scenario (Cowpens) — the edit, `otp check`'s problems, and the set-up opened as a game to show
//! its stands — and a save spliced into the file.
//!
//! `cargo bench --no-default-features --bench editor`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use otp::editor::{Edit, Editor, Item, UnitRef};

fn editor(c: &mut Criterion) {
    let text = include_str!("../scenarios/cowpens.ron");
    let mut ed = Editor::open(text, "cowpens.ron").unwrap();
    let r = UnitRef { side: 0, brigade: 0, unit: 0 };
    let mut group = c.benchmark_group("editor");
    let mut x = 0.0f32;
    group.bench_function("cowpens: a drag step (edit, problems, game opened)", |b| {
        b.iter(|| {
            x = (x + 0.1) % 2.0;
            ed.apply_continuing(&Edit::Move(Item::Unit(r), [if x < 1.0 { 0.1 } else { -0.1 }, 0.0])).unwrap();
            black_box(ed.problems());
            let s = ed.scenario.clone();
            black_box(otp::rules::registry::open(s.rules, s, 1).unwrap());
        })
    });
    group.bench_function("cowpens: save text spliced after a change", |b| b.iter(|| black_box(ed.text())));
    group.finish();
}

criterion_group!(benches, editor);
criterion_main!(benches);
