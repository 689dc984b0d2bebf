//! Ratings: Bradley–Terry maximum likelihood on the Elo scale, with confidence intervals.
//!
//! # Model
//!
//! Player `i` has strength `r_i`; it scores against `j` with expectation
//! `1 / (1 + exp(-(r_i - r_j)))`. A draw counts as half a win and half a loss (the likelihood
//! of a game with score `s` is `p^s (1-p)^(1-s)`), as in Ordo. Elo is `r * 400 / ln 10`.
//! Every pair of players that met also gets `prior_draws` virtual draws (BayesElo's prior,
//! default 1), so that a perfect score gives a large but finite rating difference.
//!
//! The maximum is found by Newton's method with step halving (the log-likelihood is concave).
//! Ratings are anchored: the anchor player (by default `random`, when it played) is 0 Elo;
//! without an anchor the mean rating is 0. Players that are not connected to the anchor by
//! games get ratings relative to the mean of their own group and `connected = false`.
//! Games of a player against itself (same name) carry no information and are ignored.
//!
//! # Confidence intervals
//!
//! - `Bootstrap(n)` (default, 1000 samples): resample the games with replacement `n` times
//!   (seeded), refit, and take the percentiles of each player's rating. An interval is
//!   relative to the anchor (the anchor's own is `[0, 0]`).
//! - `Likelihood`: normal approximation from the inverse of the observed information (the
//!   negated Hessian of the log-likelihood at the maximum).
//!
//! For a two-player match score, [`wilson_interval`] gives the Wilson score interval with
//! draws counted as half a win: never empty or degenerate at 0% or 100%, and conservative
//! when there are draws (a draw has less variance than the Bernoulli model assumes).

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::matches::MatchGame;

/// Elo points per natural-log unit of strength.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// How confidence intervals are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CiMethod {
    /// Percentiles over this many bootstrap resamples of the games.
    Bootstrap(usize),
    /// Normal approximation from the observed information.
    Likelihood,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RatingOptions {
    /// The player rated 0 (default: `random` if it played, otherwise the mean is 0).
    pub anchor: Option<String>,
    /// Virtual draws added to each pair of players that met.
    pub prior_draws: f64,
    pub ci: CiMethod,
    /// Two-sided confidence level, e.g. 0.95.
    pub confidence: f64,
    pub seed: u64,
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions { anchor: None, prior_draws: 1.0, ci: CiMethod::Bootstrap(1000), confidence: 0.95, seed: 0 }
    }
}

/// One game between players `first` and `second` (indices into the name list).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    pub first: usize,
    pub second: usize,
    /// Points of `first`: 1, 1/2 or 0.
    pub score: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRating {
    pub name: String,
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Games against other players.
    pub games: usize,
    pub points: f64,
    /// Connected to the anchor (or to the largest group) by games.
    pub connected: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// In input order.
    pub players: Vec<PlayerRating>,
    /// The player rated 0, if any (otherwise the mean is 0).
    pub anchor: Option<String>,
    pub method: String,
}

impl Ratings {
    pub fn get(&self, name: &str) -> Option<&PlayerRating> {
        self.players.iter().find(|p| p.name == name)
    }
}

/// Rates the players of `records` (anchor `random` by default).
pub fn rate_records(records: &[MatchGame], options: &RatingOptions) -> Ratings {
    let mut names: Vec<String> = Vec::new();
    let mut index = BTreeMap::new();
    let mut id = |n: &str, names: &mut Vec<String>| -> usize {
        *index.entry(n.to_string()).or_insert_with(|| {
            names.push(n.to_string());
            names.len() - 1
        })
    };
    let mut games = Vec::with_capacity(records.len());
    for r in records.iter().filter(|r| r.is_finished()) {
        let first = id(&r.blue, &mut names);
        let second = id(&r.tan, &mut names);
        games.push(Game { first, second, score: r.result.blue_score() });
    }
    let mut options = options.clone();
    if options.anchor.is_none() && names.iter().any(|n| n == "random") {
        options.anchor = Some("random".into());
    }
    rate(&names, &games, &options)
}

/// Rates `names` from `games`.
pub fn rate(names: &[String], games: &[Game], options: &RatingOptions) -> Ratings {
    let k = names.len();
    let anchor = options.anchor.as_ref().and_then(|a| names.iter().position(|n| n == a));
    let games: Vec<Game> = games.iter().copied().filter(|g| g.first != g.second).collect();
    let fit = fit_elo(k, &games, anchor, options.prior_draws);
    let mut counts = vec![0usize; k];
    let mut points = vec![0.0; k];
    for g in &games {
        counts[g.first] += 1;
        counts[g.second] += 1;
        points[g.first] += g.score;
        points[g.second] += 1.0 - g.score;
    }
    let z = normal_quantile(0.5 + options.confidence / 2.0);
    let (low, high, method) = match options.ci {
        CiMethod::Likelihood => {
            let se = fit.standard_errors(&games, anchor, options.prior_draws);
            let low = (0..k).map(|i| fit.elo[i] - z * se[i]).collect::<Vec<_>>();
            let high = (0..k).map(|i| fit.elo[i] + z * se[i]).collect::<Vec<_>>();
            (low, high, format!("likelihood (normal approximation), {:.0}%", 100.0 * options.confidence))
        }
        CiMethod::Bootstrap(n) => {
            let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(n); k];
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x626f_6f74);
            let mut resample = Vec::with_capacity(games.len());
            for _ in 0..n {
                resample.clear();
                for _ in 0..games.len() {
                    resample.push(games[rng.gen_range(0..games.len())]);
                }
                let f = fit_elo(k, &resample, anchor, options.prior_draws);
                for i in 0..k {
                    // Only players still connected to the reference the same way count.
                    if f.present[i] && f.connected[i] == fit.connected[i] {
                        samples[i].push(f.elo[i]);
                    }
                }
            }
            let tail = (1.0 - options.confidence) / 2.0;
            let mut low = vec![0.0; k];
            let mut high = vec![0.0; k];
            for i in 0..k {
                let s = &mut samples[i];
                s.sort_by(f64::total_cmp);
                if s.is_empty() {
                    low[i] = f64::NEG_INFINITY;
                    high[i] = f64::INFINITY;
                } else {
                    low[i] = percentile(s, tail);
                    high[i] = percentile(s, 1.0 - tail);
                }
            }
            (
                low,
                high,
                format!("bootstrap over games ({n} resamples), {:.0}% percentile interval", 100.0 * options.confidence),
            )
        }
    };
    let players = (0..k)
        .map(|i| PlayerRating {
            name: names[i].clone(),
            elo: fit.elo[i],
            ci_low: low[i],
            ci_high: high[i],
            games: counts[i],
            points: points[i],
            connected: fit.connected[i],
        })
        .collect();
    Ratings { players, anchor: anchor.map(|a| names[a].clone()), method }
}

struct Fit {
    elo: Vec<f64>,
    /// Has games.
    present: Vec<bool>,
    /// In the anchor's group (or the largest group, without an anchor).
    connected: Vec<bool>,
    /// Group id per player.
    group: Vec<usize>,
}

impl Fit {
    /// Standard errors (Elo) from the inverse observed information of each group, relative to
    /// the anchor (or to the group mean).
    fn standard_errors(&self, games: &[Game], anchor: Option<usize>, prior: f64) -> Vec<f64> {
        let k = self.elo.len();
        let mut se = vec![f64::INFINITY; k];
        let pairs = aggregate(k, games, prior);
        let groups: BTreeMap<usize, Vec<usize>> =
            (0..k).filter(|&i| self.present[i]).fold(BTreeMap::new(), |mut m, i| {
                m.entry(self.group[i]).or_insert_with(Vec::new).push(i);
                m
            });
        for members in groups.values() {
            let m = members.len();
            if m == 1 {
                se[members[0]] = 0.0;
                continue;
            }
            let local: BTreeMap<usize, usize> = members.iter().enumerate().map(|(l, &i)| (i, l)).collect();
            let reference = anchor.filter(|a| local.contains_key(a)).unwrap_or(members[0]);
            // Information matrix (negated Hessian) over the group, reference removed.
            let mut info = vec![vec![0.0; m]; m];
            for p in &pairs {
                let (Some(&a), Some(&b)) = (local.get(&p.i), local.get(&p.j)) else { continue };
                let d = (self.elo[p.i] - self.elo[p.j]) / ELO_PER_NAT;
                let q = logistic(d);
                let w = p.n * q * (1.0 - q);
                info[a][a] += w;
                info[b][b] += w;
                info[a][b] -= w;
                info[b][a] -= w;
            }
            let r = local[&reference];
            let keep: Vec<usize> = (0..m).filter(|&l| l != r).collect();
            let reduced: Vec<Vec<f64>> = keep.iter().map(|&a| keep.iter().map(|&b| info[a][b]).collect()).collect();
            let Some(inv) = invert(&reduced) else { continue };
            // Full covariance with the reference fixed at 0.
            let mut cov = vec![vec![0.0; m]; m];
            for (x, &a) in keep.iter().enumerate() {
                for (y, &b) in keep.iter().enumerate() {
                    cov[a][b] = inv[x][y];
                }
            }
            let centered = anchor.is_none_or(|a| !local.contains_key(&a));
            for l in 0..m {
                let var = if centered {
                    // Var(r_l - mean(r)).
                    let mf = m as f64;
                    let row: f64 = (0..m).map(|b| cov[l][b]).sum::<f64>() / mf;
                    let all: f64 = cov.iter().flatten().sum::<f64>() / (mf * mf);
                    cov[l][l] - 2.0 * row + all
                } else {
                    cov[l][l]
                };
                se[members[l]] = var.max(0.0).sqrt() * ELO_PER_NAT;
            }
        }
        se
    }
}

/// A pair of players with their games (virtual draws included) and `i`'s points.
struct Pair {
    i: usize,
    j: usize,
    n: f64,
    score_i: f64,
}

fn aggregate(k: usize, games: &[Game], prior: f64) -> Vec<Pair> {
    let mut map: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for g in games {
        let (i, j, s) =
            if g.first < g.second { (g.first, g.second, g.score) } else { (g.second, g.first, 1.0 - g.score) };
        let e = map.entry((i, j)).or_insert((prior, prior / 2.0));
        e.0 += 1.0;
        e.1 += s;
    }
    debug_assert!(map.keys().all(|&(i, j)| i < k && j < k));
    map.into_iter().map(|((i, j), (n, s))| Pair { i, j, n, score_i: s }).collect()
}

fn fit_elo(k: usize, games: &[Game], anchor: Option<usize>, prior: f64) -> Fit {
    let pairs = aggregate(k, games, prior);
    // Groups of players connected by games (union-find).
    let mut parent: Vec<usize> = (0..k).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        let mut y = x;
        while p[y] != r {
            let next = p[y];
            p[y] = r;
            y = next;
        }
        r
    }
    let mut present = vec![false; k];
    for p in &pairs {
        present[p.i] = true;
        present[p.j] = true;
        let (a, b) = (find(&mut parent, p.i), find(&mut parent, p.j));
        parent[a] = b;
    }
    let group: Vec<usize> = (0..k).map(|i| find(&mut parent, i)).collect();
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in (0..k).filter(|&i| present[i]) {
        members.entry(group[i]).or_default().push(i);
    }
    let main_group = match anchor.filter(|&a| present[a]) {
        Some(a) => Some(group[a]),
        None => members.iter().max_by_key(|(_, m)| m.len()).map(|(&g, _)| g),
    };
    let mut r = vec![0.0; k];
    for (g, m) in &members {
        let anchored = anchor.filter(|&a| present[a] && group[a] == *g);
        let reference = anchored.unwrap_or(m[0]);
        newton(&pairs, m, reference, &mut r);
        let shift = match anchored {
            Some(a) => r[a],
            None => m.iter().map(|&i| r[i]).sum::<f64>() / m.len() as f64,
        };
        for &i in m {
            r[i] -= shift;
        }
    }
    Fit {
        elo: r.iter().map(|x| x * ELO_PER_NAT).collect(),
        connected: (0..k).map(|i| present[i] && Some(group[i]) == main_group).collect(),
        present,
        group,
    }
}

fn log_likelihood(pairs: &[Pair], r: &[f64]) -> f64 {
    pairs
        .iter()
        .map(|p| {
            let d = r[p.i] - r[p.j];
            // s ln σ(d) + (n - s) ln σ(-d), with ln σ(x) = -ln(1 + e^-x) computed stably.
            -p.score_i * softplus(-d) - (p.n - p.score_i) * softplus(d)
        })
        .sum()
}

/// Maximises the likelihood over the `members` of one group, `reference` fixed at 0.
fn newton(all_pairs: &[Pair], members: &[usize], reference: usize, r: &mut [f64]) {
    if members.len() < 2 {
        return;
    }
    let local: BTreeMap<usize, usize> =
        members.iter().filter(|&&i| i != reference).enumerate().map(|(l, &i)| (i, l)).collect();
    let pairs: Vec<&Pair> = all_pairs.iter().filter(|p| local.contains_key(&p.i) || local.contains_key(&p.j)).collect();
    let owned: Vec<Pair> = pairs.iter().map(|p| Pair { i: p.i, j: p.j, n: p.n, score_i: p.score_i }).collect();
    let m = local.len();
    for &i in members {
        r[i] = 0.0;
    }
    let mut ll = log_likelihood(&owned, r);
    for _ in 0..200 {
        let mut grad = vec![0.0; m];
        let mut hess = vec![vec![0.0; m]; m];
        for p in &owned {
            let q = logistic(r[p.i] - r[p.j]);
            let g = p.score_i - p.n * q;
            let w = p.n * q * (1.0 - q);
            let (a, b) = (local.get(&p.i).copied(), local.get(&p.j).copied());
            if let Some(a) = a {
                grad[a] += g;
                hess[a][a] += w;
            }
            if let Some(b) = b {
                grad[b] -= g;
                hess[b][b] += w;
            }
            if let (Some(a), Some(b)) = (a, b) {
                hess[a][b] -= w;
                hess[b][a] -= w;
            }
        }
        // Newton step: (information) * delta = gradient.
        let Some(delta) = solve(&hess, &grad) else { break };
        let mut step = 1.0;
        let old: Vec<f64> = r.to_vec();
        let mut improved = false;
        for _ in 0..40 {
            for (&i, &l) in &local {
                r[i] = old[i] + step * delta[l];
            }
            let new_ll = log_likelihood(&owned, r);
            if new_ll >= ll - 1e-12 {
                improved = true;
                ll = new_ll;
                break;
            }
            step /= 2.0;
        }
        if !improved {
            r.copy_from_slice(&old);
            break;
        }
        let max_step = delta.iter().map(|d| (d * step).abs()).fold(0.0, f64::max);
        if max_step < 1e-10 {
            break;
        }
    }
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Solves `a x = b` (Gaussian elimination with partial pivoting); `None` if singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a.iter().zip(b).map(|(row, &y)| row.iter().copied().chain([y]).collect()).collect();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-300 {
            return None;
        }
        m.swap(c, p);
        for row in c + 1..n {
            let f = m[row][c] / m[c][c];
            if f != 0.0 {
                for col in c..=n {
                    m[row][col] -= f * m[c][col];
                }
            }
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| m[c][k] * x[k]).sum();
        x[c] = (m[c][n] - s) / m[c][c];
    }
    Some(x)
}

fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for c in 0..n {
        let e: Vec<f64> = (0..n).map(|r| if r == c { 1.0 } else { 0.0 }).collect();
        cols.push(solve(a, &e)?);
    }
    Some((0..n).map(|r| (0..n).map(|c| cols[c][r]).collect()).collect())
}

/// Linear interpolation between order statistics of a sorted sample.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let x = q * (sorted.len() - 1) as f64;
    let lo = x.floor() as usize;
    let hi = x.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo as f64)
}

/// The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383_577_518_672_69e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] =
        [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Wilson score interval for `points` out of `n` at normal quantile `z`.
pub fn wilson_interval(points: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = points / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The Elo difference of an expected score (logistic); ±infinity at 1 and 0.
pub fn elo_from_score(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a player `elo_diff` Elo above its opponent.
pub fn expected_score(elo_diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo_diff / 400.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    /// `w` wins, `d` draws, `l` losses of `a` against `b`.
    fn results(a: usize, b: usize, w: usize, d: usize, l: usize) -> Vec<Game> {
        let mut g = Vec::new();
        g.extend((0..w).map(|_| Game { first: a, second: b, score: 1.0 }));
        g.extend((0..d).map(|_| Game { first: a, second: b, score: 0.5 }));
        g.extend((0..l).map(|_| Game { first: b, second: a, score: 1.0 }));
        g
    }

    #[test]
    fn two_players_match_the_closed_form() {
        // 75% score: 400 log10(3) = 190.85 Elo (without the prior).
        let options = RatingOptions {
            prior_draws: 0.0,
            ci: CiMethod::Likelihood,
            anchor: Some("b".into()),
            ..Default::default()
        };
        let r = rate(&names(&["a", "b"]), &results(0, 1, 60, 30, 10), &options);
        let a = r.get("a").unwrap();
        assert!((a.elo - 400.0 * 3f64.log10()).abs() < 1e-6, "{a:?}");
        assert_eq!(r.get("b").unwrap().elo, 0.0);
        assert!(a.ci_low < a.elo && a.elo < a.ci_high && a.ci_low > 100.0, "{a:?}");
        assert_eq!(a.games, 100);
    }

    #[test]
    fn three_players_and_anchor() {
        let mut games = results(0, 1, 30, 0, 10);
        games.extend(results(1, 2, 30, 0, 10));
        games.extend(results(0, 2, 36, 0, 4));
        let options =
            RatingOptions { anchor: Some("random".into()), ci: CiMethod::Bootstrap(200), ..Default::default() };
        let r = rate(&names(&["top", "mid", "random"]), &games, &options);
        let (t, m, z) = (r.get("top").unwrap(), r.get("mid").unwrap(), r.get("random").unwrap());
        assert_eq!(z.elo, 0.0);
        assert!(t.elo > m.elo && m.elo > 0.0, "{r:?}");
        assert!(t.ci_low <= t.elo && t.elo <= t.ci_high);
        assert_eq!(r.anchor.as_deref(), Some("random"));
        assert_eq!((z.ci_low, z.ci_high), (0.0, 0.0));
        // Without an anchor the mean is 0.
        let r = rate(
            &names(&["top", "mid", "random"]),
            &games,
            &RatingOptions { ci: CiMethod::Likelihood, ..Default::default() },
        );
        let mean: f64 = r.players.iter().map(|p| p.elo).sum::<f64>() / 3.0;
        assert!(mean.abs() < 1e-9 && r.anchor.is_none());
        assert!(r.players.iter().all(|p| p.ci_high - p.ci_low > 10.0));
    }

    #[test]
    fn perfect_scores_stay_finite_and_groups_are_flagged() {
        let mut games = results(0, 1, 20, 0, 0);
        games.extend(results(2, 3, 5, 0, 5));
        let options = RatingOptions { anchor: Some("b".into()), ci: CiMethod::Likelihood, ..Default::default() };
        let r = rate(&names(&["a", "b", "c", "d"]), &games, &options);
        let a = r.get("a").unwrap();
        assert!(a.elo.is_finite() && a.elo > 400.0, "{a:?}");
        assert!(a.connected && !r.get("c").unwrap().connected);
        assert!((r.get("c").unwrap().elo).abs() < 1e-6);
    }

    #[test]
    fn helpers() {
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-5);
        assert!((normal_quantile(0.025) + 1.959964).abs() < 1e-5);
        let (lo, hi) = wilson_interval(10.0, 10.0, 1.96);
        assert!(hi == 1.0 && lo > 0.6 && lo < 0.8, "{lo}");
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert!((expected_score(190.85) - 0.75).abs() < 1e-4);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 0.5), 2.0);
    }
}
