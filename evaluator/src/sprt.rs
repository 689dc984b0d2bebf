//! SPRT for gating a new checkpoint against the current best, as fishtest does for trinomial
//! results (the generalised SPRT with a normal approximation).
//!
//! H0: the new player is `elo0` Elo better than the old; H1: `elo1` better (logistic Elo:
//! expected score `1 / (1 + 10^(-elo/400))`). With `N` games, mean score `x̄` and per-game
//! score variance `σ²`,
//!
//! ```text
//! LLR = N (s1 - s0) (2 x̄ - s0 - s1) / (2 σ²)
//! ```
//!
//! where `s0`, `s1` are the expected scores under H0 and H1. The test accepts H1 when
//! `LLR >= ln((1 - β) / α)` and H0 when `LLR <= ln(β / (1 - α))`; otherwise more games are
//! needed. `α` bounds the chance of accepting H1 when H0 holds, `β` of accepting H0 when H1
//! holds (overshoot makes both a little smaller in practice).
//!
//! The variance is computed with half a virtual win, draw and loss added, so that a run of
//! identical results (zero sample variance) does not decide after one game; the effect
//! vanishes as games accumulate.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Default for SprtParams {
    /// fishtest's usual gate for small changes: [0, 10] Elo at 5% / 5%.
    fn default() -> Self {
        SprtParams { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// Not better by `elo1`: keep the current best.
    AcceptH0,
    /// Better: promote the new player.
    AcceptH1,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub games: usize,
    pub decision: Option<SprtDecision>,
}

/// An SPRT that is not well defined ([`SprtParams::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("ELO0 and ELO1 must be finite numbers from -{MAX_ELO} to {MAX_ELO} (got {elo0}, {elo1})")]
    EloRange { elo0: f64, elo1: f64 },
    #[error("ELO0 must be less than ELO1 (got {elo0}, {elo1})")]
    EloOrder { elo0: f64, elo1: f64 },
    #[error("ALPHA and BETA must be more than 0 and less than 0.5 (got {alpha}, {beta})")]
    Rates { alpha: f64, beta: f64 },
}

/// The largest Elo difference a hypothesis may name: beyond it the expected scores of both
/// hypotheses round to the same value and the test would never decide.
pub const MAX_ELO: f64 = 1000.0;

impl SprtParams {
    /// `Ok` when the test is well defined: finite `elo0 < elo1` within ±[`MAX_ELO`], and
    /// `alpha`, `beta` strictly between 0 and 0.5. The error says what is allowed.
    pub fn validate(&self) -> Result<(), SprtError> {
        let elo_ok = |e: f64| e.is_finite() && e.abs() <= MAX_ELO;
        let rate_ok = |p: f64| p > 0.0 && p < 0.5;
        let (elo0, elo1, alpha, beta) = (self.elo0, self.elo1, self.alpha, self.beta);
        if !elo_ok(elo0) || !elo_ok(elo1) {
            return Err(SprtError::EloRange { elo0, elo1 });
        }
        if elo0 >= elo1 {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        if !rate_ok(alpha) || !rate_ok(beta) {
            return Err(SprtError::Rates { alpha, beta });
        }
        Ok(())
    }

    /// Lower and upper LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after `wins`, `draws`, `losses` of the new
    /// player.
    pub fn llr(&self, wins: usize, draws: usize, losses: usize) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let mean = (wins as f64 + 0.5 * draws as f64) / n;
        let (w, d, l) = (wins as f64 + 0.5, draws as f64 + 0.5, losses as f64 + 0.5);
        let nr = w + d + l;
        let mr = (w + 0.5 * d) / nr;
        let var = (w * (1.0 - mr).powi(2) + d * (0.5 - mr).powi(2) + l * mr.powi(2)) / nr;
        let s0 = crate::ratings::expected_score(self.elo0);
        let s1 = crate::ratings::expected_score(self.elo1);
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    pub fn status(&self, wins: usize, draws: usize, losses: usize) -> SprtStatus {
        let llr = self.llr(wins, draws, losses);
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            Some(SprtDecision::AcceptH1)
        } else if llr <= lower {
            Some(SprtDecision::AcceptH0)
        } else {
            None
        };
        SprtStatus { llr, lower, upper, games: wins + draws + losses, decision }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::expected_score;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Runs one SPRT on games drawn from a player `elo` Elo stronger with draw rate `draw`.
    fn run(params: &SprtParams, elo: f64, draw: f64, rng: &mut ChaCha8Rng) -> (SprtDecision, usize) {
        let s = expected_score(elo);
        let win = s - draw / 2.0;
        let (mut w, mut d, mut l) = (0, 0, 0);
        loop {
            let x: f64 = rng.gen();
            if x < win {
                w += 1;
            } else if x < win + draw {
                d += 1;
            } else {
                l += 1;
            }
            if let Some(decision) = params.status(w, d, l).decision {
                return (decision, w + d + l);
            }
            assert!(w + d + l < 1_000_000);
        }
    }

    #[test]
    fn bounds_and_llr_by_hand() {
        let p = SprtParams { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        let (lo, hi) = p.bounds();
        assert!((hi - 19f64.ln()).abs() < 1e-12 && (lo + 19f64.ln()).abs() < 1e-12);
        assert_eq!(p.llr(0, 0, 0), 0.0);
        // Even score: evidence for H0.
        assert!(p.llr(100, 100, 100) < 0.0);
        // Fishtest's formula on large counts (the regularisation is negligible there).
        let (w, d, l) = (3000usize, 4000usize, 2800usize);
        let n = 9800.0;
        let mean = (w as f64 + 0.5 * d as f64) / n;
        let var = (w as f64 * (1.0 - mean).powi(2) + d as f64 * (0.5 - mean).powi(2) + l as f64 * mean.powi(2)) / n;
        let (s0, s1) = (0.5, expected_score(10.0));
        let expected = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!((p.llr(w, d, l) - expected).abs() < 1e-3 * expected.abs(), "{} vs {expected}", p.llr(w, d, l));
        // All wins decide for H1, but not after a handful of games.
        assert_eq!(p.status(3, 0, 0).decision, None);
        assert_eq!(p.status(40, 0, 0).decision, Some(SprtDecision::AcceptH1));
        assert_eq!(p.status(0, 0, 40).decision, Some(SprtDecision::AcceptH0));
    }

    #[test]
    fn only_well_defined_tests_validate() {
        assert!(SprtParams::default().validate().is_ok());
        let with = |elo0, elo1, alpha, beta| SprtParams { elo0, elo1, alpha, beta }.validate();
        assert!(with(-5.0, 5.0, 0.01, 0.2).is_ok());
        for (e0, e1, a, b) in [
            (f64::NAN, 10.0, 0.05, 0.05),
            (0.0, f64::INFINITY, 0.05, 0.05),
            (0.0, 1e6, 0.05, 0.05),
            (10.0, 10.0, 0.05, 0.05),
            (0.0, 10.0, f64::NAN, 0.05),
            (0.0, 10.0, 0.05, 0.5),
            (0.0, 10.0, 0.0, 0.05),
        ] {
            assert!(with(e0, e1, a, b).is_err(), "{e0} {e1} {a} {b}");
        }
    }

    #[test]
    fn error_rates_match_alpha_and_beta() {
        let p = SprtParams { elo0: 0.0, elo1: 30.0, alpha: 0.05, beta: 0.1 };
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let runs = 400;
        let rate = |elo: f64, want: SprtDecision, rng: &mut ChaCha8Rng| {
            let mut hits = 0;
            let mut games = 0;
            for _ in 0..runs {
                let (d, n) = run(&p, elo, 0.3, rng);
                hits += usize::from(d == want);
                games += n;
            }
            (hits as f64 / runs as f64, games / runs)
        };
        // True Elo = elo0: H1 accepted with probability about alpha (at most, with overshoot).
        let (false_h1, n0) = rate(p.elo0, SprtDecision::AcceptH1, &mut rng);
        assert!(false_h1 <= p.alpha + 0.035, "false H1 rate {false_h1} (mean {n0} games)");
        // True Elo = elo1: H0 accepted with probability about beta.
        let (false_h0, n1) = rate(p.elo1, SprtDecision::AcceptH0, &mut rng);
        assert!(false_h0 <= p.beta + 0.045, "false H0 rate {false_h0} (mean {n1} games)");
        // Not vacuous: the rates are not far below the nominal ones either.
        assert!(false_h1 > 0.005 && false_h0 > 0.02, "{false_h1} {false_h0}");
        // Clearly better or worse players are recognised almost always.
        let (h1, _) = rate(p.elo1 + 60.0, SprtDecision::AcceptH1, &mut rng);
        let (h0, _) = rate(p.elo0 - 60.0, SprtDecision::AcceptH0, &mut rng);
        assert!(h1 > 0.99 && h0 > 0.99, "{h1} {h0}");
        // Halfway between the hypotheses both answers are common.
        let (mid, _) = rate((p.elo0 + p.elo1) / 2.0, SprtDecision::AcceptH1, &mut rng);
        assert!((0.25..0.75).contains(&mid), "{mid}");
    }
}
