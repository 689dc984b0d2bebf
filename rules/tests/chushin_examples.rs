//! Chushin Shogi: every worked example of the dossier (chushin-shogi.md §11.1-§11.19) as a test.
//!
//! The examples are copied as printed into `tests/data/chushin/examples.txt` (format in its
//! header). Each example test builds the position (the listed pieces on an empty board, the
//! moving side to move, no pass before), generates the legal moves, keeps those that start on
//! the moving square (its passes and igui included) and compares them with the dossier's list
//! both ways, by the identifying key of §9.2 `(from, to, victims, promote)`. A failure lists
//! the missing and the extra moves in the dossier's notation.
//!
//! `examples_file_matches_the_dossier` checks the transcription alone (counts, order, victims,
//! arrival squares), so that a failing example test points at the engine, not at the data.

mod support;

use fairyzero_rules::{Move, MoveList, Position};
use support::chushin::{compare_with_dossier, example, examples, Example, MoveKey, DIMS};

/// Compares §`section`'s list with the generator; fails with the differences.
fn check(section: &str) {
    let example = example(section);
    let problems = example.transcription_problems();
    assert!(problems.is_empty(), "§{section}: transcription problems: {problems:#?}");
    let report = compare_with_dossier(&example);
    assert!(report.is_empty(), "{report}");
}

#[test]
fn examples_file_matches_the_dossier() {
    let all = examples();
    let sections: Vec<&str> = all.iter().map(|e| e.section.as_str()).collect();
    let expected: Vec<String> = (1..=19).map(|i| format!("11.{i}")).collect();
    assert_eq!(sections, expected, "examples.txt must hold §11.1-§11.19 in order");
    let mut report = String::new();
    for e in &all {
        for p in e.transcription_problems() {
            report += &format!("§{} {} (examples.txt:{}): {p}\n", e.section, e.title, e.line);
        }
    }
    assert!(report.is_empty(), "{report}");
    // The dossier's 19 lists hold 324 moves (32+30+43+30+15+6+20+8+6+11+4+8+6+35+11+7+18+11+23).
    assert_eq!(all.iter().map(|e| e.moves.len()).sum::<usize>(), 324);
}

#[test]
fn dossier_notation_reads_every_form_of_9_3() {
    let sq = |name: &str| DIMS.parse_square(name).unwrap();
    let key = |text: &str| MoveKey::parse_dossier(text).unwrap_or_else(|e| panic!("{e}"));
    let step = key("h9-h10");
    assert_eq!((step.from, step.to, step.victims.clone(), step.promote), (sq("h9"), sq("h10"), vec![], false));
    assert_eq!(key("h9xh10-i11").victims, vec![sq("h10")]);
    assert_eq!(key("h9xh10xh11-h12").victims, vec![sq("h10"), sq("h11")]);
    assert!(key("h9xh10-h9").is_igui() && !key("h9xh10-h9").is_pass());
    assert!(key("h9-h9").is_pass());
    let burn = key("b2xc3-c2");
    assert_eq!((burn.to, burn.victims.clone()), (sq("c2"), vec![sq("c3")]));
    let promoting = key("b14xb15-a14+");
    assert_eq!((promoting.to, promoting.victims.clone(), promoting.promote), (sq("a14"), vec![sq("b15")], true));
    for text in ["h9-h10", "h9xh10-i11", "h9xh10xh11-h12", "h9xh10-h9", "h9-h9", "b14xb15-a14+", "r18-a1"] {
        assert_eq!(key(text).dossier_text(), text);
    }
    assert_eq!(key("h9xh10xh11-h12").fairyzero_text(), "h9h12xh10xh11");
    assert_eq!(key("b14xb15-a14+").fairyzero_text(), "b14a14xb15+");
    for (bad, why) in [
        ("h9", "character 3"),
        ("h9h10", "character 3"),
        ("h9xh11xh10-h12", "ascending"),
        ("h9-s1", "character 4"),
        ("h9-h10++", "character 8"),
        ("h9xh10-h10", "victim square"),
        ("h9-h9+", "pass never promotes"),
    ] {
        let error = MoveKey::parse_dossier(bad).expect_err(bad);
        assert!(error.contains(why), "{bad}: {error}");
    }
}

/// The move `text` names among `moves` (the moves of `pos`), which must be the dossier move
/// `key` as fairyzero's parser reads it; otherwise what is wrong.
///
/// The candidates are the pseudo-legal moves (Chushin filters none, §8.3), not
/// [`Position::parse_move`]'s legal ones, so that this test is about the text alone: whether a
/// royal-less §11 position is played at all is the example tests' concern (§14).
fn reading(pos: &Position, moves: &[Move], text: &str, key: &MoveKey) -> Result<Move, String> {
    let m = match pos.find_move(text, moves) {
        Ok(Some(m)) => m,
        Ok(None) => return Err(format!("{text} names none of the position's moves")),
        Err(error) => return Err(format!("{text}: {error}")),
    };
    match MoveKey::of_move(pos, &m) {
        Ok(parsed) if parsed == *key => Ok(m),
        Ok(parsed) => Err(format!("{text} parses as {}", parsed.dossier_text())),
        Err(error) => Err(format!("{text}: {error}")),
    }
}

/// The example's position and its pseudo-legal moves.
fn position_and_moves(e: &Example) -> (Position, MoveList) {
    let pos = e.position();
    let mut moves = MoveList::new();
    pos.pseudo_legal_moves(&mut moves);
    (pos, moves)
}

/// fairyzero's suffix form (docs/notation.md: `h9xh10-i11` is `h9i11xh10`, a pass names its
/// piece, `h9h9`) reads every dossier move of §11 as the same move, and prints it so.
#[test]
fn fairyzero_text_of_every_dossier_move_parses_to_it() {
    let mut report = String::new();
    for e in examples() {
        let (pos, moves) = position_and_moves(&e);
        for key in e.keys() {
            let text = key.fairyzero_text();
            match reading(&pos, &moves, &text, &key) {
                Ok(m) if pos.move_to_string(&m) != text => {
                    let printed = pos.move_to_string(&m);
                    report += &format!("§{}: {} prints as {printed}, expected {text}\n", e.section, key.dossier_text());
                }
                Ok(_) => {}
                Err(problem) => report += &format!("§{}: {}: {problem}\n", e.section, key.dossier_text()),
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// fairyzero's parser also reads the dossier's own form (docs/notation.md, "The Chushin Shogi
/// dossier's form"): every §11 move as printed there names the same move.
#[test]
fn dossier_text_of_every_example_move_parses_to_it() {
    let mut report = String::new();
    for e in examples() {
        let (pos, moves) = position_and_moves(&e);
        for (text, key) in e.moves.iter().zip(e.keys()) {
            if let Err(problem) = reading(&pos, &moves, text, &key) {
                report += &format!("§{}: {problem}\n", e.section);
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// Every dossier move of §11, made on its position, does what §9.2's "applying a move" says of
/// its key: the mover leaves `from` (unless it stays: igui, pass) and stands on `to`, promoted
/// if the key says so, each victim square is emptied, nothing else changes, the other side is to
/// move and the pass flag is set exactly by a pass; the incremental hash agrees with a
/// recomputation, and unmaking restores the position.
#[test]
fn every_example_move_does_what_its_key_says() {
    let mut report = String::new();
    for e in examples() {
        let (mut pos, moves) = position_and_moves(&e);
        let variant = pos.variant().clone();
        let (board, hash, fen) = (pos.board().to_vec(), pos.hash(), pos.to_fen());
        for (text, key) in e.moves.iter().zip(e.keys()) {
            let m = match reading(&pos, &moves, text, &key) {
                Ok(m) => m,
                Err(problem) => {
                    report += &format!("§{}: {problem}\n", e.section);
                    continue;
                }
            };
            let mover = board[key.from.index()].expect("the example places the mover on from");
            let mut expected = board.clone();
            expected[key.from.index()] = None;
            for &v in &key.victims {
                expected[v.index()] = None;
            }
            let promoted = m.piece.map_or(mover, |t| mover.with_kind(t));
            expected[key.to.index()] = Some(if key.promote { promoted } else { mover });
            pos.make(m);
            let mut wrong = Vec::new();
            for (i, (got, want)) in pos.board().iter().zip(&expected).enumerate() {
                if got != want {
                    let name = |p: &Option<fairyzero_rules::Piece>| p.map_or(".".into(), |p| variant.piece_token(p));
                    let sq = DIMS.square_name(fairyzero_rules::Square(i as u16));
                    wrong.push(format!("{sq} holds {}, expected {}", name(got), name(want)));
                }
            }
            if pos.side_to_move() == e.side {
                wrong.push("the same side is still to move".into());
            }
            if pos.last_move_was_pass() != key.is_pass() {
                wrong.push(format!("last_move_was_pass is {}", pos.last_move_was_pass()));
            }
            if pos.hash() != pos.compute_hash() {
                wrong.push("the incremental hash differs from compute_hash".into());
            }
            pos.unmake();
            if pos.board() != &board[..] || pos.hash() != hash || pos.to_fen() != fen {
                wrong.push("unmake does not restore the position".into());
            }
            if !wrong.is_empty() {
                report += &format!("§{}: {text}: {}\n", e.section, wrong.join("; "));
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn example_11_01_lion() {
    check("11.1");
}

#[test]
fn example_11_02_lion_dog() {
    check("11.2");
}

#[test]
fn example_11_03_furious_fiend() {
    check("11.3");
}

#[test]
fn example_11_04_fire_demon() {
    check("11.4");
}

#[test]
fn example_11_05_vice_general() {
    check("11.5");
}

#[test]
fn example_11_06_great_general() {
    check("11.6");
}

#[test]
fn example_11_07_heavenly_tetrarch() {
    check("11.7");
}

#[test]
fn example_11_08_horned_falcon() {
    check("11.8");
}

#[test]
fn example_11_09_soaring_eagle_gote() {
    check("11.9");
}

#[test]
fn example_11_10_free_eagle() {
    check("11.10");
}

#[test]
fn example_11_11_golden_bird() {
    check("11.11");
}

#[test]
fn example_11_12_horse_master() {
    check("11.12");
}

#[test]
fn example_11_13_shogun() {
    check("11.13");
}

#[test]
fn example_11_14_lion_hawk_in_promotion_zone() {
    check("11.14");
}

#[test]
fn example_11_15_violent_dragon_gote() {
    check("11.15");
}

#[test]
fn example_11_16_left_general_gote() {
    check("11.16");
}

#[test]
fn example_11_17_lion_at_the_zone_border() {
    check("11.17");
}

#[test]
fn example_11_18_promoted_kirin() {
    check("11.18");
}

#[test]
fn example_11_19_fire_demon_burns() {
    check("11.19");
}
