//! The arithmetic of Gumbel AlphaZero (Danihelka, Guez, Schrittwieser, Silver: "Policy
//! improvement by planning with Gumbel", ICLR 2022), following DeepMind's `mctx`
//! (`qtransforms.py`, `seq_halving.py`, `action_selection.py`).

/// The root visit schedule of sequential halving: [`VisitSchedule::target`]`(i)` is how many
/// visits an action must already have (in this search) to be eligible for simulation `i`. `m`
/// actions are considered; each phase gives every remaining action
/// `max(1, n / (ceil(log2 m) * remaining))` visits, then halves the remaining actions (never
/// below 2). The values are those of mctx's `get_sequence_of_considered_visits`, computed per
/// phase so that a budget of millions of simulations costs no memory.
#[derive(Clone, Debug, Default)]
pub struct VisitSchedule {
    /// `(first simulation index, actions considered, visits at the phase start)`.
    phases: Vec<(usize, usize, u32)>,
}

impl VisitSchedule {
    pub fn new(m: usize, n: usize) -> VisitSchedule {
        let mut schedule = VisitSchedule::default();
        schedule.reset(m, n);
        schedule
    }

    /// The schedule of `m` actions and `n` simulations, in this one's memory.
    pub fn reset(&mut self, m: usize, n: usize) {
        let phases = &mut self.phases;
        phases.clear();
        if m <= 1 {
            phases.push((0, 1, 0));
            return;
        }
        let log2max = (m as f64).log2().ceil() as usize;
        let mut start = 0;
        let mut visits = 0u32;
        let mut considered = m;
        loop {
            let extra = (n / (log2max * considered)).max(1);
            phases.push((start, considered, visits));
            start += extra * considered;
            visits += extra as u32;
            if start >= n {
                break;
            }
            considered = (considered / 2).max(2);
        }
    }

    /// The visit count an action needs to be chosen by simulation `i`.
    pub fn target(&self, i: usize) -> u32 {
        let k = self.phases.partition_point(|&(start, _, _)| start <= i) - 1;
        let (start, considered, base) = self.phases[k];
        base + ((i - start) / considered) as u32
    }
}

/// The schedule as a sequence (for tests and inspection).
pub fn considered_visit_sequence(m: usize, n: usize) -> Vec<u32> {
    let s = VisitSchedule::new(m, n);
    (0..n).map(|i| s.target(i)).collect()
}

/// mctx's `_compute_mixed_value`: the network value mixed with the prior-weighted mean of the
/// visited children's values, weighted by visit count. `q[i]` is ignored where `n[i] == 0`.
pub fn mixed_value(raw_value: f32, priors: &[f32], q: &[f32], n: &[u32]) -> f32 {
    let total: u32 = n.iter().sum();
    if total == 0 {
        return raw_value;
    }
    let mut sum_p = 0.0f64;
    let mut sum_pq = 0.0f64;
    for i in 0..q.len() {
        if n[i] > 0 {
            let p = (priors[i] as f64).max(f64::MIN_POSITIVE);
            sum_p += p;
            sum_pq += p * q[i] as f64;
        }
    }
    let weighted = if sum_p > 0.0 { sum_pq / sum_p } else { 0.0 };
    ((raw_value as f64 + total as f64 * weighted) / (total as f64 + 1.0)) as f32
}

/// Completed Q values into `out`: `q` where visited, the mixed value elsewhere.
pub fn completed_q(raw_value: f32, priors: &[f32], q: &[f32], n: &[u32], out: &mut Vec<f32>) {
    let mixed = mixed_value(raw_value, priors, q, n);
    out.clear();
    out.extend(q.iter().zip(n).map(|(&q, &n)| if n > 0 { q } else { mixed }));
}

/// sigma(completed Q) of mctx's `qtransform_completed_by_mix_value` into `out`: min-max
/// rescaled to [0, 1], then scaled by `(c_visit + max visits) * c_scale`.
pub fn sigma(completed: &[f32], n: &[u32], c_visit: f32, c_scale: f32, out: &mut Vec<f32>) {
    let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let range = (hi - lo).max(1e-8);
    let max_n = n.iter().copied().max().unwrap_or(0) as f32;
    let scale = (c_visit + max_n) * c_scale;
    out.clear();
    out.extend(completed.iter().map(|&q| scale * (q - lo) / range));
}

/// Log of a prior, floored so that a zero prior stays finite.
#[inline]
pub fn logit(p: f32) -> f32 {
    p.max(1e-30).ln()
}

/// softmax(x), in place.
pub fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0f64;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v as f64;
    }
    for v in x.iter_mut() {
        *v = (*v as f64 / sum) as f32;
    }
}

/// The improved policy softmax(logits + sigma(completed Q)) into `out`.
pub fn improved_policy(logits: &[f32], sigma: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend(logits.iter().zip(sigma).map(|(l, s)| l + s));
    softmax(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mctx's `get_sequence_of_considered_visits`, transcribed.
    fn mctx_sequence(m: usize, n: usize) -> Vec<u32> {
        if m <= 1 {
            return (0..n as u32).collect();
        }
        let log2max = (m as f64).log2().ceil() as usize;
        let mut sequence = Vec::new();
        let mut visits = vec![0u32; m];
        let mut considered = m;
        while sequence.len() < n {
            let extra = (n / (log2max * considered)).max(1);
            for _ in 0..extra {
                sequence.extend_from_slice(&visits[..considered]);
                for v in &mut visits[..considered] {
                    *v += 1;
                }
            }
            considered = (considered / 2).max(2);
        }
        sequence.truncate(n);
        sequence
    }

    #[test]
    fn sequence_matches_mctx() {
        // 4 actions, 8 simulations: one visit each, then 2 rounds of the best 2.
        assert_eq!(considered_visit_sequence(4, 8), vec![0, 0, 0, 0, 1, 1, 2, 2]);
        assert_eq!(considered_visit_sequence(2, 5), vec![0, 0, 1, 1, 2]);
        assert_eq!(considered_visit_sequence(1, 3), vec![0, 1, 2]);
        for m in 1..=40 {
            for n in (1..=300).step_by(7) {
                assert_eq!(considered_visit_sequence(m, n), mctx_sequence(m, n), "m {m} n {n}");
            }
        }
        // A huge budget costs a few phases, not a table.
        let mut s = VisitSchedule::new(16, 1 << 30);
        assert!(s.phases.len() < 10);
        assert_eq!(s.target(0), 0);
        // A schedule reset in place is the new one, whatever it held before.
        s.reset(4, 8);
        assert_eq!((0..8).map(|i| s.target(i)).collect::<Vec<_>>(), considered_visit_sequence(4, 8));
    }

    #[test]
    fn improved_policy_is_a_distribution() {
        let priors = [0.5, 0.3, 0.2];
        let q = [0.2, -0.4, 0.0];
        let n = [3, 1, 0];
        let mut c = Vec::new();
        completed_q(0.1, &priors, &q, &n, &mut c);
        assert_eq!(c[..2], q[..2]);
        assert_eq!(c[2], mixed_value(0.1, &priors, &q, &n));
        let mut s = vec![7.0; 5];
        sigma(&c, &n, 50.0, 0.1, &mut s);
        assert_eq!(s.len(), 3, "the output is overwritten, not appended to");
        let logits: Vec<f32> = priors.iter().map(|&p| logit(p)).collect();
        let mut pi = Vec::new();
        improved_policy(&logits, &s, &mut pi);
        assert!((pi.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(pi[0] > pi[1]);
    }
}
