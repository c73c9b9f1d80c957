//! `docs/otp-charts.md`, generated from the chart data so the two cannot drift apart.

use std::fmt::Write;

use super::commanders::{KINDS, RATINGS};
use super::fire::{Cells, FireColumn, FireRow};
use super::melee::{AdLosses, Modifier};
use super::morale::MoraleResult;
use super::movement::ObstacleMover;
use super::{Charts, Source, FILES};
use crate::rules::dice::AD_FACES;
use crate::scenario::model::GunSize;

/// The reconstructions met so far, numbered in order of first appearance.
#[derive(Default)]
struct Notes {
    reasons: Vec<String>,
}

impl Notes {
    fn number(&mut self, why: &str) -> usize {
        match self.reasons.iter().position(|r| r == why) {
            Some(i) => i + 1,
            None => {
                self.reasons.push(why.to_string());
                self.reasons.len()
            }
        }
    }
    /// For a "Source" column: the section, or †n.
    fn src(&mut self, s: &Source) -> String {
        match s {
            Source::Text { section } => section.clone(),
            Source::Reconstructed { why } => format!("†{}", self.number(why)),
        }
    }
    /// Appended to a value: nothing for text, " †n" for a reconstruction.
    fn mark(&mut self, s: &Source) -> String {
        match s {
            Source::Text { .. } => String::new(),
            Source::Reconstructed { why } => format!(" †{}", self.number(why)),
        }
    }
}

fn table(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", headers.join(" | "));
    let _ = writeln!(out, "|{}|", headers.iter().map(|_| "---").collect::<Vec<_>>().join("|"));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

fn inches(v: f32) -> String {
    if v.fract() == 0.0 { format!("{}\"", v as i64) } else { format!("{v}\"") }
}

fn fraction(v: f32) -> String {
    match v {
        0.0 => "0".into(),
        0.25 => "1/4".into(),
        0.5 => "1/2".into(),
        0.75 => "3/4".into(),
        1.0 => "1".into(),
        _ => format!("{v}"),
    }
}

fn signed(v: i32) -> String {
    if v > 0 { format!("+{v}") } else { v.to_string() }
}

fn ad(l: AdLosses) -> String {
    match (l.dice, l.modifier) {
        (0, m) => m.max(0).to_string(),
        (d, 0) => format!("{d}AD"),
        (d, m) => format!("{d}AD{}", signed(m)),
    }
}

/// The die readings that give `want`, as "00–34, 80–99" ("–" when none): bands read upward from 0.
fn readings<R: PartialEq>(bands: impl IntoIterator<Item = (i32, R)>, want: &R, digits: usize) -> String {
    let mut from = 0;
    let mut spans = Vec::new();
    for (to, r) in bands {
        if r == *want {
            spans.push(range(from, to, digits));
        }
        from = to + 1;
    }
    if spans.is_empty() { "–".into() } else { spans.join(", ") }
}

fn range(from: i32, to: i32, width: usize) -> String {
    if from == to { format!("{from:0width$}") } else { format!("{from:0width$}–{to:0width$}") }
}

/// Rows of a family of fire-chart columns, text-fixed (anchor) cells in bold.
fn fire_rows(c: &Charts, notes: &mut Notes, cells: impl Fn(&FireRow) -> Vec<(&Cells, Box<dyn Fn(u32) -> FireColumn>)>) -> Vec<Vec<String>> {
    let f = &c.fire;
    let (lo, hi) = f.roll_range();
    f.rows
        .iter()
        .map(|row| {
            let label = match row.roll {
                r if r == lo => format!("{r} or less"),
                r if r == hi => format!("{r} or more"),
                r => r.to_string(),
            };
            let mut out = vec![format!("{label}{}", notes.mark(&row.source))];
            for (family, key) in cells(row) {
                for (i, cell) in family.0.iter().enumerate() {
                    let col = key(i as u32 + 1);
                    let fixed = f.anchors.iter().any(|a| a.roll == row.roll && a.column == col);
                    out.push(if fixed { format!("**{cell}**") } else { cell.to_string() });
                }
            }
            out
        })
        .collect()
}

fn modifiers<Id: std::fmt::Debug>(out: &mut String, notes: &mut Notes, list: &[Modifier<Id>]) {
    let rows: Vec<Vec<String>> = list.iter().map(|m| vec![m.label.clone(), signed(m.value), notes.src(&m.source)]).collect();
    table(out, &["Situation", "Modifier", "Source"], &rows);
}

pub(super) fn render(c: &Charts) -> String {
    let mut notes = Notes::default();
    let mut o = String::new();
    let files = FILES.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
    let _ = write!(
        o,
        r#"# On to Philadelphia: the game charts

<!-- Generated from assets/rules/otp/*.ron by `Charts::markdown()`; a test checks this file matches.
     To regenerate: OTP_WRITE_DOCS=1 cargo test --release --no-default-features --test charts -->

*On to Philadelphia* (OTP, Tom Barkalow and Rick Stoffel, after Paul Koch's *On To Richmond*) cites
game charts that were printed separately: MOVEMENT, FIRE COMBAT, MORALE RESULTS TABLE, COMMANDER
VALUES, MELEE COMBAT, the Closing Die Roll Modifiers and the UNIT REBUILDING TABLE. No public copy
of them could be found. The rules text fixes many of their numbers; the rest this project has had to
**reconstruct**.

- A number with a section (`8.3`) or no mark is fixed by the rules text.
- A number marked **†n** is reconstructed; reason *n* is listed under
  [Reconstructions](#reconstructions) at the end.
- In the fire chart, cells in **bold** are fixed by the text (8.1's example).

## Using your own charts

The charts are data: {files} in `assets/rules/otp/`, in [RON](https://github.com/ron-rs/ron). The
same files are built into the program, so it runs from any folder. If you own the printed charts,
copy the files you want to change into a folder of your own, edit the numbers, and have the program
read that folder (the engine loads it with `Charts::load_dir`); any chart you leave out keeps the
built-in one, and any other `.ron` file there is refused, so a misspelt name cannot be ignored. Every entry carries its source:
write `source: Text(section: "…")` for a number from the printed chart, or
`Reconstructed(why: "…")` for one you chose. The files are checked when read: a syntax or type error
is reported as `file:line:col: message`; a chart that reads but breaks a rule (a missing row, a fire
chart where more figures or a lower roll would do less, a count out of range, a cell that contradicts
the text) as `file: in <field>: message`. Nothing is used until every file is right.

## Dice

- **D10**: one ten-sided die read 0–9.
- **2D10**: two D10, one the tens, read 00–99.
- **AD**: the averaging die, faces {faces}; *n*AD is the sum of *n* of them.

"#,
        faces = AD_FACES.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "),
    );

    // Movement.
    let m = &c.movement;
    o.push_str("## Movement (6.0)\n\n### Normal moves\n\nBy the formation the unit is in at the start of its move (6.1).\n\n");
    let rows: Vec<Vec<String>> = m
        .allowances
        .iter()
        .map(|a| {
            let types = if a.types.is_empty() { "all".into() } else { a.types.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", ") };
            vec![format!("{:?}", a.arm), format!("{:?}", a.formation), types, inches(a.inches), notes.src(&a.source)]
        })
        .collect();
    table(&mut o, &["Arm", "Formation", "Unit types", "Move", "Source"], &rows);

    o.push_str(
        "### Disordering terrain (6.6)\n\nRoll a D10 on entering disordering terrain: at or under the number the unit moves normally, \
         otherwise its move is halved. A is the mildest type (moderate slopes, tall crops, rough ground), B large streams, \
         fords and light woods, C medium woods and swamp, D thick woods, wooded and steep slopes. -1 always fails.\n\n",
    );
    let rows: Vec<Vec<String>> = m
        .disorder
        .iter()
        .map(|d| {
            let types = if d.types.is_empty() { "all".into() } else { d.types.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", ") };
            let mark = notes.mark(&d.source);
            vec![
                format!("{:?}", d.arm),
                format!("{:?}", d.formation),
                types,
                d.a.to_string(),
                d.b.to_string(),
                d.c.to_string(),
                d.d.to_string(),
                mark.trim().to_string(),
            ]
        })
        .collect();
    table(&mut o, &["Arm", "Formation", "Unit types", "A", "B", "C", "D", "Source"], &rows);
    let _ = writeln!(
        o,
        "Infantry of these types treat all woods as type A: {} ({}). A failed roll leaves {} of the move ({}).\n",
        m.woods_as_type_a.types.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", "),
        notes.src(&m.woods_as_type_a.source),
        fraction(m.failed_disorder.value),
        notes.src(&m.failed_disorder.source),
    );

    o.push_str("### Other movement numbers\n\n");
    let mut rows: Vec<Vec<String>> = vec![
        vec!["Commander move, ignoring terrain (6.12)".into(), inches(m.commander.value), notes.src(&m.commander.source)],
        vec!["Cavalry charge in line, open terrain (3.2, 6.9)".into(), inches(m.cavalry_charge.value), notes.src(&m.cavalry_charge.source)],
        vec!["Road bonus for a march column (5.1)".into(), format!("+{}", inches(m.road_bonus.value)), notes.src(&m.road_bonus.source)],
        vec!["Galloper guns unlimbered, not firing (7.6)".into(), inches(m.galloper.move_only), notes.src(&m.galloper.source)],
        vec!["Galloper guns unlimbered, and fire (7.6)".into(), inches(m.galloper.move_and_fire), notes.src(&m.galloper.source)],
    ];
    for s in &m.special_move {
        rows.push(vec![format!("Special move, {:?} (6.8)", s.arm), format!("+{}AD", s.dice), notes.src(&s.source)]);
    }
    for mover in ObstacleMover::ALL {
        if let Some(ob) = m.obstacles.iter().find(|x| x.mover == mover) {
            rows.push(vec![format!("Linear obstruction, {mover:?} (6.7)"), format!("{} per rank", inches(ob.per_rank)), notes.src(&ob.source)]);
        }
    }
    table(&mut o, &["Item", "Value", "Source"], &rows);
    o.push_str("### Costs, as a fraction of the normal move\n\n");
    let rows: Vec<Vec<String>> = m.costs.iter().map(|k| vec![format!("{:?}", k.action), fraction(k.fraction), notes.src(&k.source)]).collect();
    table(&mut o, &["Manoeuvre", "Fraction", "Source"], &rows);

    // Fire.
    let f = &c.fire;
    let _ = write!(
        o,
        "## Fire combat (8.0)\n\nRoll a D10 and add the modifiers: low rolls are good for the firer. `-` no effect, `M` a morale hit \
         (Morale Marker), a number: figures killed (each kill also gives a Morale Marker) (8.2). Rolls below the first row read \
         the first row, rolls above the last read the last.\n\n### Small arms, by figures firing\n\nMore than {n} figures: read \
         the {n} column and the (figures − {n}) column and add (8.1): 28 figures at a modified 5 are 2 + 1 = 3 kills.\n\n",
        n = f.small_arms_columns.value
    );
    let mut headers: Vec<String> = vec!["Roll".into()];
    headers.extend((1..=f.small_arms_columns.value).map(|n| n.to_string()));
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows = fire_rows(c, &mut notes, |r| vec![(&r.small_arms, Box::new(|n| FireColumn::SmallArms { figures: n }))]);
    table(&mut o, &h, &rows);

    let _ = write!(
        o,
        "### Artillery, by guns firing\n\nA gun is a crew figure able to fire (7.1). Columns run from 1 to {g} guns{gmark}. Ball has \
         one column per number of guns; its gun size is a modifier (8.4). Canister has columns by gun size (8.1) and is fired only at short range (8.4). More than {g} \
         guns: {more}{mark}.\n\n**Ball**\n\n",
        g = f.gun_columns.value,
        gmark = notes.mark(&f.gun_columns.source),
        more = if f.more_guns.value { format!("read the {} column and the remainder and add", f.gun_columns.value) } else { format!("read the {} column", f.gun_columns.value) },
        mark = notes.mark(&f.more_guns.source),
    );
    let mut headers: Vec<String> = vec!["Roll".into()];
    headers.extend((1..=f.gun_columns.value).map(|n| n.to_string()));
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows = fire_rows(c, &mut notes, |r| vec![(&r.ball, Box::new(|n| FireColumn::Ball { guns: n }))]);
    table(&mut o, &h, &rows);
    o.push_str("**Canister** (L = light, M = medium, H = heavy guns; the number is guns firing)\n\n");
    let mut headers: Vec<String> = vec!["Roll".into()];
    for s in ["L", "M", "H"] {
        headers.extend((1..=f.gun_columns.value).map(|n| format!("{s}{n}")));
    }
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows = fire_rows(c, &mut notes, |r| {
        vec![
            (&r.canister_light, Box::new(|n| FireColumn::Canister { gun: GunSize::Light, guns: n })),
            (&r.canister_medium, Box::new(|n| FireColumn::Canister { gun: GunSize::Medium, guns: n })),
            (&r.canister_heavy, Box::new(|n| FireColumn::Canister { gun: GunSize::Heavy, guns: n })),
        ]
    });
    table(&mut o, &h, &rows);

    o.push_str("### Ranges\n\n");
    let mut rows: Vec<Vec<String>> =
        f.small_arms_ranges.iter().map(|w| vec![format!("{:?}", w.weapon), inches(w.inches), notes.src(&w.source)]).collect();
    rows.push(vec!["Small-arms close range (or woods visibility, if less)".into(), inches(f.close_range.value), notes.src(&f.close_range.source)]);
    table(&mut o, &["Small arms", "Range", "Source"], &rows);
    o.push_str("Artillery: partial inches round up (8.4: 9 1/4\" is 10\").\n\n");
    let rows: Vec<Vec<String>> = f
        .artillery_ranges
        .iter()
        .map(|g| vec![format!("{:?}", g.gun), format!("0–{}\"", g.short), format!("{}–{}\"", g.short + 1, g.medium), format!("{}–{}\"", g.medium + 1, g.long), notes.src(&g.source)])
        .collect();
    table(&mut o, &["Guns", "Short", "Medium", "Long", "Source"], &rows);
    let rows = vec![
        vec!["Guns on higher ground than the target add to their maximum range (7.3)".into(), format!("+{}", inches(f.elevation_bonus.value)), notes.src(&f.elevation_bonus.source)],
        vec!["Figure losses per crew figure lost from fire (7.1)".into(), f.crew_loss_per.value.to_string(), notes.src(&f.crew_loss_per.source)],
        vec!["Woods crossed by a sight line without a visibility roll: less than (8.7)".into(), inches(f.free_woods.value), notes.src(&f.free_woods.source)],
    ];
    table(&mut o, &["Item", "Value", "Source"], &rows);
    o.push_str("### Visibility in woods (8.7)\n\n");
    let rows: Vec<Vec<String>> = f
        .visibility
        .iter()
        .map(|v| {
            let plus = if v.plus == 0 { String::new() } else { format!("{}\"", signed(v.plus)) };
            vec![format!("{:?}", v.woods), format!("{}AD{plus}", v.dice), notes.src(&v.source)]
        })
        .collect();
    table(&mut o, &["Woods", "Visibility", "Source"], &rows);
    o.push_str("### Fire modifiers\n\n");
    let rows: Vec<Vec<String>> = f
        .modifiers
        .iter()
        .map(|x| {
            let kinds = x.applies_to.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", ");
            vec![x.label.clone(), signed(x.value), kinds, notes.src(&x.source)]
        })
        .collect();
    table(&mut o, &["Situation", "Modifier", "Applies to", "Source"], &rows);

    // Morale.
    let mo = &c.morale;
    o.push_str(
        "## Morale results table (10.0)\n\nA unit with a Morale Marker rolls 2D10 (00–99) before it may act, adds the modifiers \
         and reads its column (10.2). High rolls are good; modified rolls below 00 read the first band, above 99 the last.\n\n",
    );
    let mut results: Vec<MoraleResult> = Vec::new();
    for col in &mo.columns {
        for b in &col.bands {
            if !results.contains(&b.result) {
                results.push(b.result);
            }
        }
    }
    let order = |r: &MoraleResult| match r {
        MoraleResult::Retreat { moves } => -(*moves as i32),
        MoraleResult::Stand => 1,
        MoraleResult::Deploy => 2,
        MoraleResult::HalfMove => 3,
        MoraleResult::NE => 4,
        MoraleResult::Forward => 5,
    };
    results.sort_by_key(order);
    let mut headers: Vec<String> = vec!["Class".into()];
    headers.extend(results.iter().map(|r| r.to_string()));
    headers.push("Source".into());
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = mo
        .columns
        .iter()
        .map(|col| {
            let mut row = vec![format!("{:?}", col.class)];
            for r in &results {
                row.push(readings(col.bands.iter().map(|b| (b.to, b.result)), r, 2));
            }
            row.push(notes.src(&col.source));
            row
        })
        .collect();
    table(&mut o, &h, &rows);
    o.push_str(
        "Militia of every arm read the Militia column; Light, Indian and Elite units their own; Line and State Line \
         cavalry read Cavalry and their artillery Artillery (2.0). Loyalists are State Line (2.0).\n\n**Results**\n\n",
    );
    let rows: Vec<Vec<String>> = mo
        .results
        .iter()
        .map(|e| vec![format!("{:?}", e.kind), if e.removes_marker { "yes".into() } else { "no".into() }, e.text.clone(), notes.src(&e.source)])
        .collect();
    table(&mut o, &["Result", "Marker removed", "Effect", "Source"], &rows);
    o.push_str("**Modifiers** (10.3)\n\n");
    let mut rows: Vec<Vec<String>> =
        mo.losses.iter().map(|s| vec![format!("{:?} losses (see Figure loss severity)", s.severity), signed(s.value), notes.src(&s.source)]).collect();
    rows.push(vec!["All stands and figures in or behind works".into(), signed(mo.works.value), notes.src(&mo.works.source)]);
    table(&mut o, &["Situation", "Modifier", "Source"], &rows);

    // Commanders.
    let co = &c.commanders;
    o.push_str("## Commander values (2.0)\n\nRoll 1D10 (0–9) for each commander before the game.\n\n");
    let order = [RATINGS[4], RATINGS[3], RATINGS[2], RATINGS[1], RATINGS[0]];
    let mut headers: Vec<String> = vec!["Commander".into()];
    headers.extend(order.iter().map(|r| format!("{r:?}")));
    headers.push("Source".into());
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = KINDS
        .iter()
        .map(|&k| {
            let col = co.column(k);
            let mut row = vec![format!("{k:?}")];
            for r in order {
                row.push(readings(col.bands.iter().map(|b| (b.to, b.rating)), &r, 1));
            }
            row.push(notes.src(&col.source));
            row
        })
        .collect();
    table(&mut o, &h, &rows);
    let rows: Vec<Vec<String>> = RATINGS.iter().map(|&r| vec![format!("{r:?}"), co.passes(r).to_string(), notes.src(&co.ratings.iter().find(|x| x.rating == r).unwrap().source)]).collect();
    table(&mut o, &["Rating", "Morale passes (10.4)", "Source"], &rows);
    let rows = vec![
        vec!["Attached commander, unit takes a kill or morale hit from fire (8.16)".into(), range(0, co.casualty_fire.value, 1), notes.src(&co.casualty_fire.source)],
        vec!["Commander in a melee (9.11)".into(), range(0, co.casualty_melee.value, 1), notes.src(&co.casualty_melee.source)],
    ];
    table(&mut o, &["Commander casualty on a D10 of", "Roll", "Source"], &rows);

    // Melee.
    let me = &c.melee;
    o.push_str(
        "## Melee (9.0)\n\n### Closing die-roll modifiers (9.1)\n\nRoll a D10, add these, and close if the result is at or under \
         the CV. Flank and rear attacks close without a roll; a column may roll only with a leader attached (9.1).\n\n",
    );
    modifiers(&mut o, &mut notes, &me.closure);
    let _ = writeln!(
        o,
        "An attached leader's CV-roll modifier (below) {} applies to closing rolls{}.\n",
        if me.closure_leader.value { "also" } else { "no longer" },
        notes.mark(&me.closure_leader.source)
    );
    o.push_str("### CV die-roll modifiers for firefights and reactions to closure (9.6)\n\nRoll a D10, add these; over the CV fails.\n\n");
    modifiers(&mut o, &mut notes, &me.cv_roll);
    o.push_str("### Attached leaders (9.6, 9.10)\n\n");
    let rows: Vec<Vec<String>> = me
        .leaders
        .iter()
        .map(|l| vec![format!("{:?}", l.rating), signed(l.cv_roll), signed(l.melee_attacking), signed(l.melee_defending), notes.src(&l.source)])
        .collect();
    table(&mut o, &["Rating", "CV die roll", "Melee CV attacking", "Melee CV defending", "Source"], &rows);
    o.push_str(
        "### Melee CV modifiers (9.12, 9.13, 5.4)\n\nMelee value = figures in combat × modified CV × multipliers; each side adds its \
         units' values and a D10; ties are re-rolled (9.8).\n\n",
    );
    modifiers(&mut o, &mut notes, &me.cv);
    o.push_str("### Multipliers (9.14)\n\n");
    let rows: Vec<Vec<String>> = me.multipliers.iter().map(|x| vec![x.label.clone(), format!("×{}", fraction(x.factor)), notes.src(&x.source)]).collect();
    table(&mut o, &["Situation", "Multiplier", "Source"], &rows);
    o.push_str(
        "### Melee combat results (9.8)\n\nThe ratio of the winner's total to the loser's: the last row it reaches. Losses are \
         averaging dice plus the modifier, never below 0; every figure lost gives a Morale Marker. Artillery that loses a melee \
         is removed instead (7.2).\n\n",
    );
    let rows: Vec<Vec<String>> = me
        .ratios
        .iter()
        .map(|r| {
            let mark = notes.mark(&r.losses_source);
            vec![
                r.label(),
                format!("{}{mark}", ad(r.loser())),
                format!("{} full move{}", r.retreat_moves, if r.retreat_moves == 1 { "" } else { "s" }),
                format!("{}{mark}", ad(r.winner())),
                if r.bonus_move { "yes".into() } else { "no".into() },
                notes.src(&r.source),
            ]
        })
        .collect();
    table(&mut o, &["Ratio", "Loser loses", "Loser retreats", "Winner loses", "Winner's bonus move", "Source"], &rows);
    let rows = vec![
        vec!["An artillery stand counts as this many figures in melee (9.9)".into(), me.artillery_figures.value.to_string(), notes.src(&me.artillery_figures.source)],
        vec!["Firefight: a unit failing its CV roll withdraws full line moves (9.3)".into(), me.firefight_withdraw.value.to_string(), notes.src(&me.firefight_withdraw.source)],
        vec!["Reaction to closure: a unit failing its CV roll withdraws full line moves (9.4)".into(), me.reaction_withdraw.value.to_string(), notes.src(&me.reaction_withdraw.source)],
        vec!["Fire at chargers and in reaction is as at this range or less (9.4, 9.7)".into(), inches(me.defensive_fire_range.value), notes.src(&me.defensive_fire_range.source)],
    ];
    table(&mut o, &["Item", "Value", "Source"], &rows);

    // Rebuilding.
    let rb = &c.rebuild;
    o.push_str(
        "## Unit rebuilding table (11.0)\n\nAt the end of a turn a unit in reserve status (not moved, out of small-arms range, not \
         fired on by artillery) may roll a D10 and add its type's modifier; never above its starting strength.\n\n",
    );
    let mut rows: Vec<Vec<String>> = Vec::new();
    let first = rb.results.first().map_or(10, |r| r.at_least);
    rows.push(vec![format!("{} or less", first - 1), "no figures regained".into(), String::new()]);
    for (i, r) in rb.results.iter().enumerate() {
        let to = rb.results.get(i + 1).map(|n| n.at_least - 1);
        let label = match to {
            Some(t) => range(r.at_least, t, 1),
            None => format!("{} or more", r.at_least),
        };
        let gain = format!("{}, at least {}", ad(AdLosses { dice: r.dice, modifier: r.modifier }), rb.minimum_gain.value);
        rows.push(vec![label, gain, format!("{}{}", notes.src(&r.source), notes.mark(&rb.minimum_gain.source))]);
    }
    table(&mut o, &["Modified D10", "Figures regained", "Source"], &rows);
    let mut rows: Vec<Vec<String>> =
        rb.type_modifiers.iter().map(|t| vec![format!("{:?} die-roll modifier", t.unit_type), signed(t.value), notes.src(&t.source)]).collect();
    rows.push(vec![
        "Never rebuild".into(),
        rb.never.types.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", "),
        notes.src(&rb.never.source),
    ]);
    rows.push(vec!["Attempts a unit may make in a game".into(), rb.max_attempts.value.to_string(), notes.src(&rb.max_attempts.source)]);
    table(&mut o, &["Item", "Value", "Source"], &rows);

    // Losses.
    let l = &c.losses;
    o.push_str("## Figure loss severity (10.3)\n\nThe Expanded Table of Figure Losses, in figures lost.\n\n");
    let span = |from: u32, to: u32| if to < from { "-".to_string() } else if from == to { from.to_string() } else { format!("{from}-{to}") };
    let rows: Vec<Vec<String>> = l
        .rows
        .iter()
        .map(|r| {
            vec![
                span(r.sizes.0, r.sizes.1),
                span(1, r.light),
                span(r.light + 1, r.moderate),
                span(r.moderate + 1, r.substantial),
                format!("{}+", r.substantial + 1),
                notes.src(&r.source),
            ]
        })
        .collect();
    table(&mut o, &["Original figures", "Light", "Moderate", "Substantial", "Severe", "Source"], &rows);
    let p = &l.percentages;
    let _ = writeln!(
        o,
        "Beyond the table: Light up to {}% of the original figures, Moderate under {}%, Substantial up to {}%, Severe over {}% ({}).\n",
        p.light,
        p.moderate_below,
        p.substantial,
        p.substantial,
        notes.src(&p.source)
    );

    // Reconstructions.
    o.push_str("## Reconstructions\n\nThe numbers marked † were chosen by this project, for these reasons:\n\n");
    for (i, why) in notes.reasons.iter().enumerate() {
        let _ = writeln!(o, "{}. {}", i + 1, why);
    }
    o
}
