//! Search behaviour with the mock evaluator: tactics, convergence to minimax, Gumbel with tiny
//! budgets, visit accounting, tree reuse, and strength growing with simulations.

mod common;

use common::*;
use fairyzero_model::backend::{Backend, BackendInfo, EvalOutput, EvalRequest, MockBackend};
use fairyzero_rules::{Color, MoveList, Position};
use fairyzero_selfplay::{
    config::{CapResult, SearchKind},
    search::{Adjudicator, SearchOptions, SearchParams},
    tree::Tree,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn both() -> [SearchParams; 2] {
    [SearchParams::puct(), SearchParams::gumbel()]
}

fn best(pos: &Position, params: SearchParams, sims: u32) -> String {
    let s = searched(pos, params, uncapped(), sims, &MockBackend::uniform());
    pos.move_to_string(&s.best_move().unwrap())
}

#[test]
fn finds_mate_in_one() {
    // Back-rank mate: only Ra8 mates; the uniform mock knows nothing.
    let pos = position("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert_eq!(best(&pos, SearchParams::puct(), 200), "a1a8");
    let gumbel = SearchParams {
        gumbel: fairyzero_selfplay::config::GumbelConfig { considered_actions: 32, ..Default::default() },
        ..SearchParams::gumbel()
    };
    assert_eq!(best(&pos, gumbel, 64), "a1a8");
}

#[test]
fn finds_royal_capture_in_scirocco() {
    // Scirocco has no check rule: capturing the King wins. Blue's Rook takes it along the file.
    let pos = position("scirocco", "4k5/10/10/p9/10/10/10/10/P9/4R4K w");
    for params in both() {
        assert_eq!(best(&pos, params, 200), "e1e10");
    }
}

#[test]
fn parries_a_mate_threat() {
    // Tan to move must stop Ra8 mate (by making luft or moving the king).
    let pos = position("chess", "6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1");
    for params in both() {
        let kind = params.kind;
        let s = searched(&pos, params, uncapped(), 2000, &MockBackend::uniform());
        let mut after = pos.clone();
        after.make(s.best_move().unwrap());
        let blue_mates = minimax(&mut after.clone(), &capped(&after, 1));
        assert_eq!(blue_mates, 0.0, "{kind:?}: {} allows mate", pos.move_to_string(&s.best_move().unwrap()));
        assert!(s.root_value().0 > -0.5, "{kind:?}: Tan is not lost");
    }
}

/// Root values approach the exact minimax value as simulations grow, for PUCT and Gumbel, on
/// small positions whose game tree is made finite by a move cap.
#[test]
fn root_values_converge_to_minimax() {
    let cases = [
        // Mate in 2 needing a quiet first move (Kc7): minimax +1.
        ("chess", "k7/8/2K5/8/8/8/8/1R6 w - - 0 1", 3),
        // Tan to move is mated within 4 plies whatever it does: minimax -1.
        ("gardner", "4k/5/2K2/5/Q4 b - - 0 1", 4),
    ];
    let mock = MockBackend::uniform();
    for (variant, fen, plies) in cases {
        let mut pos = position(variant, fen);
        let adj = capped(&pos, plies);
        let exact = minimax(&mut pos, &adj);
        assert!(exact.abs() == 1.0, "{fen}: test positions are decisive");
        for params in both() {
            let kind = params.kind;
            let errors: Vec<f32> = [64, 1024, 16384]
                .iter()
                .map(|&sims| (searched(&pos, params.clone(), adj, sims, &mock).root_value().0 - exact).abs())
                .collect();
            assert!(errors[1] < errors[0] && errors[2] < errors[1], "{kind:?} {fen}: errors {errors:?} do not shrink");
            assert!(errors[2] < 0.05, "{kind:?} {fen}: error {} after 16384 simulations", errors[2]);
        }
    }
}

/// Sampled positions of a variant: random games from the start (or the setup phase).
fn sample_positions(variant: &str, setup_phase: bool, n: usize, seed: u64) -> Vec<Position> {
    let v = fairyzero_rules::Variant::load(variant).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut legal = MoveList::new();
    while out.len() < n {
        let mut pos = if setup_phase { Position::setup_start(v.clone()).unwrap() } else { Position::start(v.clone()) };
        let plies = rng.gen_range(0..40);
        for _ in 0..plies {
            pos.legal_moves(&mut legal);
            if pos.outcome_with(&legal).is_some() {
                break;
            }
            pos.make(legal[rng.gen_range(0..legal.len())]);
        }
        pos.legal_moves(&mut legal);
        if pos.outcome_with(&legal).is_none() {
            out.push(pos);
        }
    }
    out
}

#[test]
fn gumbel_with_tiny_budgets_is_sound() {
    let mut positions = sample_positions("chess", false, 12, 1);
    positions.extend(sample_positions("scirocco", true, 12, 2));
    positions.extend(sample_positions("scirocco", false, 6, 3));
    let mock = MockBackend::material();
    for (i, pos) in positions.iter().enumerate() {
        let mut legal = MoveList::new();
        pos.clone().legal_moves(&mut legal);
        for sims in 2..=8 {
            let mut s = search(pos.clone(), SearchParams::gumbel(), uncapped(), i as u64 * 100 + sims as u64);
            s.begin(SearchOptions { simulations: sims, dirichlet: None, gumbel_noise: true });
            s.run(&mock);
            let chosen = s.best_move().unwrap();
            assert!(legal.contains(&chosen), "{pos:?}: illegal choice with {sims} simulations");
            let pi = s.policy_weights();
            assert_eq!(pi.len(), legal.len());
            let total: f32 = pi.iter().sum();
            assert!((total - 1.0).abs() < 1e-5, "{pos:?}: improved policy sums to {total}");
            assert!(pi.iter().all(|p| p.is_finite() && *p >= 0.0));
            assert_eq!(s.visit_counts().iter().sum::<u32>(), sims);
        }
    }
}

#[test]
fn visit_counts_equal_simulations() {
    let positions = sample_positions("chess", false, 4, 7);
    let mock = MockBackend::material();
    for pos in &positions {
        for params in both() {
            for leaves in [1, 4] {
                for sims in [1, 7, 50, 300] {
                    let params = SearchParams { leaves_per_round: leaves, ..params.clone() };
                    let s = searched(pos, params.clone(), uncapped(), sims, &mock);
                    let kind = params.kind;
                    assert_eq!(s.visit_counts().iter().sum::<u32>(), sims, "{kind:?} leaves {leaves}");
                    assert_eq!(s.simulations(), sims);
                    assert_eq!(s.tree().root().n, sims + 1, "the root eval plus one visit per simulation");
                    assert!(s.evaluations() <= sims + 1);
                    assert_eq!(s.tree().root().vl, 0, "no virtual loss left");
                }
            }
        }
    }
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let pos = Position::start(variant("chess"));
    let mock = MockBackend::material();
    for params in both() {
        let mut s = search(pos.clone(), params, uncapped(), 5);
        s.begin(SearchOptions::exact(400));
        s.run(&mock);
        let mv = s.best_move().unwrap();
        let edge = s.tree().edges(Tree::ROOT).find(|&e| s.tree().moves[e] == mv).unwrap();
        let kept = s.tree().child_visits(edge);
        assert!(kept > 1);
        s.play(mv, true);
        assert_eq!(s.tree().root().n, kept);
        assert_eq!(s.position().ply(), 1);
        s.begin(SearchOptions::exact(100));
        s.run(&mock);
        assert_eq!(s.simulations(), 100);
        assert_eq!(s.tree().root().n, kept + 100);
        // Without reuse the tree starts over.
        let mv = s.best_move().unwrap();
        s.play(mv, false);
        assert_eq!(s.tree().root().n, 0);
    }
}

#[test]
fn dirichlet_noise_changes_priors_only_at_the_root_and_only_for_one_search() {
    let pos = Position::start(variant("chess"));
    let mock = MockBackend::uniform();
    let mut s = search(pos, SearchParams::puct(), uncapped(), 3);
    s.begin(SearchOptions { simulations: 50, dirichlet: Some((0.3, 0.25)), gumbel_noise: false });
    s.run(&mock);
    let r = s.tree().edges(Tree::ROOT);
    let noised: Vec<f32> = s.tree().priors[r.clone()].to_vec();
    assert!(noised.iter().any(|&p| (p - 0.05).abs() > 1e-3), "noise applied");
    assert!((noised.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    // The reported priors are the network's.
    assert!(s.root_moves().iter().all(|m| (m.prior - 0.05).abs() < 1e-6));
    s.begin(SearchOptions::exact(10));
    assert!(s.tree().priors[r].iter().all(|&p| (p - 0.05).abs() < 1e-6), "restored for the next search");
}

/// Prefers to keep its material: makes the match test's games meaningful.
fn material() -> MockBackend {
    MockBackend::material()
}

/// Plays one game between two search budgets; returns the score of `strong` (1, 0.5, 0).
fn match_game(strong: u32, weak: u32, strong_color: Color, kind: SearchKind, seed: u64) -> f32 {
    let v = variant("gardner");
    let pos = Position::start(v);
    let adj = Adjudicator { cap_ply: 80, cap_result: CapResult::Material };
    let params = match kind {
        SearchKind::Puct => SearchParams::puct(),
        SearchKind::Gumbel => SearchParams::gumbel(),
    };
    let mut players = [search(pos.clone(), params.clone(), adj, seed), search(pos.clone(), params, adj, seed + 1)];
    let eval = material();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let (legal, outcome) = players[0].root_status();
        let legal = legal.to_vec();
        if let Some(o) = outcome {
            return match o.winner() {
                None => 0.5,
                Some(w) if w == strong_color => 1.0,
                Some(_) => 0.0,
            };
        }
        let to_move = players[0].position().side_to_move();
        let ply = players[0].position().ply();
        let mv = if ply < 2 {
            // Two random opening plies so that the games differ.
            legal[rng.gen_range(0..legal.len())]
        } else {
            let i = usize::from(to_move != strong_color);
            let sims = if i == 0 { strong } else { weak };
            let p = &mut players[i];
            p.begin(SearchOptions::exact(sims));
            p.run(&eval);
            p.best_move().unwrap()
        };
        for p in &mut players {
            p.play(mv, true);
        }
    }
}

#[test]
fn more_simulations_win_a_match() {
    for kind in [SearchKind::Puct, SearchKind::Gumbel] {
        let games = 12;
        let mut score = 0.0;
        for g in 0..games {
            let color = if g % 2 == 0 { Color::Blue } else { Color::Tan };
            score += match_game(200, 4, color, kind, 1000 + g as u64);
        }
        let rate = score / games as f32;
        assert!(rate >= 0.75, "{kind:?}: 200 simulations scored only {rate} against 4");
    }
}

/// Counts the batches it is given.
struct Counting {
    inner: MockBackend,
    calls: std::sync::Mutex<Vec<usize>>,
}

impl Backend for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        self.calls.lock().unwrap().push(batch.len());
        self.inner.evaluate(batch, out)
    }

    fn info(&self) -> BackendInfo {
        self.inner.info()
    }
}

#[test]
fn virtual_loss_gathers_several_leaves_per_batch() {
    let pos = Position::start(variant("chess"));
    let counting = Counting { inner: MockBackend::material(), calls: Default::default() };
    let params = SearchParams { leaves_per_round: 8, ..SearchParams::puct() };
    let s = searched(&pos, params, uncapped(), 200, &counting);
    let calls = counting.calls.lock().unwrap();
    assert_eq!(calls[0], 1, "the root first");
    assert!(calls.iter().all(|&n| n <= 8));
    let mean = calls.iter().sum::<usize>() as f32 / calls.len() as f32;
    assert!(mean > 4.0, "mean batch {mean}");
    assert_eq!(s.visit_counts().iter().sum::<u32>(), 200);
}

/// Scirocco's canonical array with a Blue Knight added on f7, attacking Tan's King on g9: the
/// King capture `f7g9` wins at once (docs/plans/scirocco-learning.md §1.1, F1).
const SCIROCCO_KING_EN_PRISE: &str = "(wa)d(go)(der)cn1(st)a(ch)/1(ma)(sc)(co)fwk(sc)(pr)1/pp(gu)pppp(gu)pp/5N4/10/10/10/PP(GU)PPPP(GU)PP/1(PR)(SC)KWF(CO)(SC)(MA)1/(CH)A(ST)1NC(DER)(GO)D(WA) w";
/// The same array with a Tan Knight added on e4, attacking Blue's King on d2: Blue must not
/// leave it there (F2).
const SCIROCCO_KING_ATTACKED: &str = "(wa)d(go)(der)cn1(st)a(ch)/1(ma)(sc)(co)fwk(sc)(pr)1/pp(gu)pppp(gu)pp/10/10/10/4n5/PP(GU)PPPP(GU)PP/1(PR)(SC)KWF(CO)(SC)(MA)1/(CH)A(ST)1NC(DER)(GO)D(WA) w";

/// A net that knows nothing but is sure of it: draw values, and priors from a seeded hash of
/// each move, so that a result does not hold only for the move-generation order (a uniform
/// prior's ties are broken by that order).
struct HashedPriors {
    seed: u64,
}

impl Backend for HashedPriors {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        out.clear();
        for r in batch {
            let n = r.moves.len();
            out.push_with(n, [0.0, 1.0, 0.0], |policy| {
                for (p, m) in policy.iter_mut().zip(r.moves) {
                    let text = r.position.move_to_string(m);
                    let h = text.bytes().fold(self.seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    });
                    // Logits spread over 6 nats: the favourite is ~400 times the least liked.
                    *p = ((h % 1000) as f32 / 1000.0 * 6.0).exp();
                }
                let total: f32 = policy.iter().sum();
                policy.iter_mut().for_each(|p| *p /= total);
            });
        }
    }

    fn info(&self) -> BackendInfo {
        BackendInfo { name: format!("hashed priors {}", self.seed), preferred_batch: 64 }
    }
}

fn gumbel_with_immediate_wins(on: bool) -> SearchParams {
    SearchParams { immediate_wins: on, ..SearchParams::gumbel() }
}

/// At 32 simulations, with 16 of ~33 moves considered, Gumbel takes a hanging King whatever
/// the prior thinks of the capture; without `immediate_wins` it misses it for some priors.
#[test]
fn a_hanging_royal_is_taken_at_a_few_dozen_simulations() {
    let pos = position("scirocco", SCIROCCO_KING_EN_PRISE);
    // `f7g9` or `f7g9+` (the Knight may promote on the way).
    let wins = |s: &fairyzero_selfplay::search::Search| {
        let mut after = pos.clone();
        after.make(s.best_move().unwrap());
        after.immediate_outcome().is_some_and(|o| o.winner() == Some(Color::Blue))
    };
    let mut missed_without = 0;
    for seed in 0..8 {
        let eval = HashedPriors { seed };
        let s = searched(&pos, gumbel_with_immediate_wins(true), uncapped(), 32, &eval);
        assert!(wins(&s), "seed {seed}: {} does not take the King", pos.move_to_string(&s.best_move().unwrap()));
        let s = searched(&pos, gumbel_with_immediate_wins(false), uncapped(), 32, &eval);
        missed_without += usize::from(!wins(&s));
    }
    assert!(missed_without > 0, "every prior found the capture anyway: the test shows nothing");
}

/// With its King attacked, Blue at 32 simulations plays a move after which Tan cannot capture
/// it, for every prior; without `immediate_wins` some priors leave it en prise.
#[test]
fn a_royal_is_not_left_en_prise_at_a_few_dozen_simulations() {
    let pos = position("scirocco", SCIROCCO_KING_ATTACKED);
    let hangs = |s: &fairyzero_selfplay::search::Search| {
        let mut after = pos.clone();
        after.make(s.best_move().unwrap());
        let mut legal = MoveList::new();
        after.legal_moves(&mut legal);
        after.immediate_win(&legal).is_some()
    };
    let mut hung_without = 0;
    for seed in 0..8 {
        let eval = HashedPriors { seed };
        let s = searched(&pos, gumbel_with_immediate_wins(true), uncapped(), 32, &eval);
        assert!(!hangs(&s), "seed {seed}: {} leaves the King en prise", pos.move_to_string(&s.best_move().unwrap()));
        let s = searched(&pos, gumbel_with_immediate_wins(false), uncapped(), 32, &eval);
        hung_without += usize::from(hangs(&s));
    }
    assert!(hung_without > 0, "no prior hung the King anyway: the test shows nothing");
}

/// A proven win (terminal in the tree, not in the game) is never kept as the next root: after a
/// move into one, the search starts afresh there and finds the winning move.
#[test]
fn a_proven_win_is_searched_again_when_played_into() {
    let pos = position("scirocco", SCIROCCO_KING_ATTACKED);
    let eval = HashedPriors { seed: 3 };
    let mut s = searched(&pos, gumbel_with_immediate_wins(true), uncapped(), 64, &eval);
    // A root move whose child the search proved lost: Tan captures the King after it.
    let losing = s
        .root_moves()
        .into_iter()
        .find(|r| r.q.is_some_and(|q| q < -0.99))
        .expect("some visited move hangs the King")
        .mv;
    s.play(losing, true);
    s.begin(SearchOptions::exact(16));
    s.run(&eval);
    let mut after = pos.clone();
    after.make(losing);
    let reply = s.best_move().unwrap();
    after.make(reply);
    assert!(after.immediate_outcome().is_some_and(|o| o.winner() == Some(Color::Tan)), "Tan did not take the King");
}
