//! Setup phases as moves (Scirocco §2.4-2.6).

use std::collections::HashSet;

use fairyzero_rules::{MoveList, Position, Variant};

fn all_arrays(pos: &mut Position, seen: &mut HashSet<String>, sequences: &mut usize) {
    if !pos.in_setup() {
        *sequences += 1;
        seen.insert(pos.to_fen());
        return;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len(), 2, "each setup ply has exactly two options");
    for m in moves {
        let before = pos.hash();
        pos.make(m);
        assert_eq!(pos.hash(), pos.compute_hash());
        all_arrays(pos, seen, sequences);
        pos.unmake();
        assert_eq!(pos.hash(), before);
    }
}

#[test]
fn scirocco_setup_reaches_512_distinct_arrays() {
    let v = Variant::load("scirocco").unwrap();
    let mut pos = Position::setup_start(v).expect("scirocco has a setup phase");
    let mut seen = HashSet::new();
    let mut sequences = 0;
    all_arrays(&mut pos, &mut seen, &mut sequences);
    assert_eq!(sequences, 512);
    assert_eq!(seen.len(), 512, "the 2^9 ply sequences give 512 different arrays");
}

#[test]
fn scirocco_default_array_is_the_canonical_setup_sequence() {
    let v = Variant::load("scirocco").unwrap();
    let mut pos = Position::setup_start(v.clone()).unwrap();
    pos.play_moves("set:d2=K, set:d9=Co, set:a1=Ch, set:b1=A, set:c1=St, set:d1=-, set:e1=N, set:b2=Pr, set:e2=W")
        .unwrap();
    assert!(!pos.in_setup());
    assert_eq!(pos.to_fen(), Position::start(v).to_fen());
}

#[test]
fn scirocco_mirror_setup_example_e6() {
    let v = Variant::load("scirocco").unwrap();
    let mut pos = Position::setup_start(v).unwrap();
    pos.play_moves("set:d2=Co, set:d9=Co, set:a1=Wa, set:b1=A, set:c1=St, set:d1=DER, set:e1=N, set:b2=Pr, set:e2=W")
        .unwrap();
    // Blue K g2, Co d2; Tan K g9, Co d9: same file, mirror symmetry (dossier E6).
    assert_eq!(
        pos.to_fen(),
        "(wa)a(st)(der)nc1(go)d(ch)/1(pr)(sc)(co)wf(k)(sc)(ma)1/pp(gu)pppp(gu)pp/10/10/10/10/PP(GU)PPPP(GU)PP/1(PR)(SC)(CO)WFK(SC)(MA)1/(WA)A(ST)(DER)NC1(GO)D(CH) w"
            .replace("(k)", "k")
    );
}

#[test]
fn setup_moves_print_and_parse() {
    let v = Variant::load("scirocco").unwrap();
    let mut pos = Position::setup_start(v).unwrap();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert_eq!(texts, ["set:d2=K", "set:d2=CO"]);
    for (m, t) in moves.iter().zip(&texts) {
        assert_eq!(pos.parse_move(t).unwrap(), *m);
        assert_eq!(pos.parse_move(&t.to_lowercase()).unwrap(), *m, "tokens are case-insensitive");
    }
    assert!(pos.parse_move("set:d2=Q").is_err());
    assert!(pos.outcome().is_none(), "setup plies are never game-over positions");
}
