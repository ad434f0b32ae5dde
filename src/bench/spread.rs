//! The spread of timed runs, without assuming any distribution: a 95% interval for the
//! median, outlying runs (Tukey's fences), and the ratio of two sets of runs with its 95%
//! interval (Hodges–Lehmann with the Mann–Whitney interval).

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// A 95% confidence interval for the median of `samples`: the order statistics whose ranks
/// come from the binomial distribution with p = 1/2, as many samples below the lower one
/// as above the upper one. `None` below 6 samples, where no pair of them covers 95%.
pub fn median_interval(samples: &[f64]) -> Option<(f64, f64)> {
    let n = samples.len();
    let sorted = sorted(samples);
    // The largest k with P(Bin(n, 1/2) < k) ≤ 2.5%, in logarithms so that large n do not
    // underflow: then [x(k), x(n+1-k)] (1-based) covers the median with ≥ 95%.
    let mut log_p = -(n as f64) * std::f64::consts::LN_2;
    let mut below = 0.0;
    let mut k = 0;
    for i in 0..n {
        let p = log_p.exp();
        if below + p > 0.025 {
            break;
        }
        below += p;
        k = i + 1;
        log_p += ((n - i) as f64 / (i + 1) as f64).ln();
    }
    (k >= 1).then(|| (sorted[k - 1], sorted[n - k]))
}

/// How many of `samples` lie outside Tukey's fences: more than 1.5 interquartile ranges
/// below the first quartile or above the third (0 below 4 samples).
pub fn outliers(samples: &[f64]) -> usize {
    if samples.len() < 4 {
        return 0;
    }
    let sorted = sorted(samples);
    let (q1, q3) = (quantile(&sorted, 0.25), quantile(&sorted, 0.75));
    let fence = 1.5 * (q3 - q1);
    sorted
        .iter()
        .filter(|&&x| x < q1 - fence || x > q3 + fence)
        .count()
}

/// The ratio of `new` to `old` with its 95% interval, as (low, estimate, high): the
/// median of the ratios of every new sample to every old one (Hodges–Lehmann, on
/// logarithms), and the order statistics of those ratios that the Mann–Whitney test puts
/// at 2.5% and 97.5% (normal approximation; the extreme ratios when there are too few
/// samples for it). `None` when either side has no positive sample.
pub fn ratio_interval(old: &[f64], new: &[f64]) -> Option<(f64, f64, f64)> {
    let old: Vec<f64> = old.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect();
    let new: Vec<f64> = new.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect();
    if old.is_empty() || new.is_empty() {
        return None;
    }
    let mut differences: Vec<f64> = new
        .iter()
        .flat_map(|n| old.iter().map(move |o| n - o))
        .collect();
    differences.sort_by(f64::total_cmp);
    let (n, m) = (new.len() as f64, old.len() as f64);
    let count = differences.len();
    let spread = Z95 * (n * m * (n + m + 1.0) / 12.0).sqrt();
    let k = ((n * m / 2.0 - spread).floor() as usize).clamp(1, count.div_ceil(2));
    let estimate = quantile(&differences, 0.5);
    Some((
        differences[k - 1].exp(),
        estimate.exp(),
        differences[count - k].exp(),
    ))
}

fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// The `q` quantile of `sorted`, interpolated between neighbours.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let (below, above) = (position.floor() as usize, position.ceil() as usize);
    let weight = position - below as f64;
    sorted[below] * (1.0 - weight) + sorted[above] * weight
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_interval_widens_to_the_extremes_at_six_samples() {
        assert_eq!(median_interval(&[5.0, 1.0, 3.0, 2.0, 4.0]), None);
        assert_eq!(
            median_interval(&[6.0, 1.0, 3.0, 2.0, 4.0, 5.0]),
            Some((1.0, 6.0))
        );
        // n = 100: ranks 40 and 61 (the textbook values).
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(median_interval(&samples), Some((40.0, 61.0)));
        // Large counts do not underflow.
        let many: Vec<f64> = (1..=5000).map(f64::from).collect();
        let (low, high) = median_interval(&many).unwrap();
        assert!(low > 2400.0 && high < 2600.0, "{low} {high}");
    }

    #[test]
    fn tukey_fences_flag_the_stray_run() {
        assert_eq!(outliers(&[10.0, 11.0, 10.5, 10.2, 10.8, 3.0]), 1);
        assert_eq!(outliers(&[10.0, 11.0, 10.5, 10.2, 10.8]), 0);
        assert_eq!(outliers(&[1.0, 100.0, 1000.0]), 0);
    }

    #[test]
    fn the_ratio_of_scaled_samples_is_the_scale() {
        let old = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5];
        let same = ratio_interval(&old, &old).unwrap();
        assert!((same.1 - 1.0).abs() < 1e-12, "{same:?}");
        assert!(same.0 < 1.0 && same.2 > 1.0, "{same:?}");
        let slower: Vec<f64> = old.iter().map(|x| x * 0.8).collect();
        let (low, estimate, high) = ratio_interval(&old, &slower).unwrap();
        assert!((estimate - 0.8).abs() < 1e-9, "{estimate}");
        assert!(low < 0.8 && high > 0.8 && high < 0.85, "{low} {high}");
        assert_eq!(ratio_interval(&[], &old), None);
        // One sample on each side: the interval is the one ratio.
        assert_eq!(ratio_interval(&[2.0], &[1.0]), Some((0.5, 0.5, 0.5)));
    }
}
