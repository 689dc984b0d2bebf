//! The search's steady state allocates (next to) nothing: Typhoon games searched with the mock
//! backend, Gumbel and PUCT, one leaf or several per round, under a counting global allocator.
//! The buffers grow during the first moves; after them a move's whole loop must cost at most one
//! allocation per simulation (the bound; it costs about 0.1), and the simulations
//! themselves allocate only when a buffer grows past its largest size so far (a bigger tree,
//! a deeper walk): a few times in hundreds of simulations.
//!
//! Its own test binary, so that the allocator counts this file's tests only; counts are per
//! thread, so that tests running side by side do not see each other's allocations.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
};

use fairyzero_model::backend::MockBackend;
use fairyzero_rules::{Position, Variant};
use fairyzero_selfplay::{
    config::{CapResult, SearchKind},
    search::{Adjudicator, Search, SearchOptions, SearchParams},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The system allocator, counting the calls that obtain memory on the calling thread.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread's counter may already be gone while the thread shuts down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// The one unsafe item of the test: the allocator contract, delegated unchanged to `System`.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// What the measured moves cost.
#[derive(Debug, Default)]
struct Measured {
    simulations: u64,
    /// Allocations of the whole move loop: root status, search, the move's choice, the root's
    /// statistics that a game record is made of, and the move itself.
    per_move_loop: u64,
    /// Allocations inside the gather / evaluate / apply rounds only (buffers growing).
    in_simulations: u64,
}

/// Plays a Typhoon game as self-play does (noise, tree reuse) and counts the allocations of
/// `measured` moves after `warm_up` uncounted ones.
fn measure(kind: SearchKind, leaves_per_round: u32, warm_up: usize, measured: usize) -> Measured {
    let variant = Variant::load("typhoon").expect("typhoon is built in");
    let start = Position::start(variant);
    let adjudicator = Adjudicator::new(&start, None, CapResult::Draw);
    let params = SearchParams {
        leaves_per_round,
        ..match kind {
            SearchKind::Puct => SearchParams::puct(),
            SearchKind::Gumbel => SearchParams::gumbel(),
        }
    };
    let mut search = Search::new(start, params, adjudicator, ChaCha8Rng::seed_from_u64(11));
    let backend = MockBackend::material();
    let options = SearchOptions {
        simulations: 32,
        dirichlet: (kind == SearchKind::Puct).then_some((0.3, 0.25)),
        gumbel_noise: true,
    };
    let mut result = Measured::default();
    for ply in 0..warm_up + measured {
        let counted = ply >= warm_up;
        let before_move = allocations();
        let (legal, outcome) = search.root_status();
        assert!(outcome.is_none() && !legal.is_empty(), "the game ended at ply {ply}: measure fewer moves");
        search.begin(options);
        let before_simulations = allocations();
        search.run(&backend);
        let in_simulations = allocations() - before_simulations;
        let mv = match kind {
            SearchKind::Puct => search.sample_move(1.0),
            SearchKind::Gumbel => search.best_move(),
        }
        .expect("a searched position has moves");
        let root = search.root_moves();
        let value = search.root_value();
        assert!(!root.is_empty() && value.0.is_finite());
        drop(root);
        let simulations = search.simulations();
        search.play(mv, true);
        if counted {
            result.simulations += simulations as u64;
            result.in_simulations += in_simulations;
            result.per_move_loop += allocations() - before_move;
        }
    }
    result
}

fn check(kind: SearchKind, leaves_per_round: u32) {
    let m = measure(kind, leaves_per_round, 12, 24);
    let per_simulation = m.per_move_loop as f64 / m.simulations as f64;
    println!(
        "{kind:?}, {leaves_per_round} leaves per round: {} simulations, {} allocations in the simulations, \
         {} in the whole move loop ({per_simulation:.3} per simulation)",
        m.simulations, m.in_simulations, m.per_move_loop
    );
    assert!(m.simulations >= 24 * 16, "{m:?}");
    assert!(per_simulation <= 1.0, "{kind:?}: {per_simulation:.3} allocations per simulation: {m:?}");
    // Per-simulation work that allocated (a path, a position clone, the Gumbel arithmetic, a
    // policy vector per leaf) would count one or more per simulation.
    assert!(m.in_simulations * 25 <= m.simulations, "{kind:?}: the simulations allocated: {m:?}");
}

#[test]
fn gumbel_search_allocates_at_most_once_per_simulation() {
    check(SearchKind::Gumbel, 1);
}

#[test]
fn puct_search_allocates_at_most_once_per_simulation() {
    check(SearchKind::Puct, 1);
}

#[test]
fn several_leaves_per_round_walk_kept_positions_instead_of_clones() {
    check(SearchKind::Gumbel, 4);
    check(SearchKind::Puct, 4);
}
