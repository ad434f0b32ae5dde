//! Judging two bench reports against each other: the noise threshold, the slowdown gate
//! (`--noise`, `--fail-if-slower`) and the named baselines a run is compared with.

use std::fmt::Write;
use std::path::Path;

use super::compare::{Comparison, DEFAULT_NOISE};
use super::error::BenchError;
use super::folder::{baseline_folder, save_baseline, write_comparison, SavedReport, PAGE_FILE};

/// How a comparison judges changes.
#[derive(Debug, Clone, clap::Args)]
pub struct Gate {
    /// Changes below PCT% of the old speed count as noise.
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_NOISE * 100.0, value_parser = parse_percentage)]
    pub noise: f64,
    /// Exit code 1 when a measurement is slower than the old run by more than PCT%
    /// (beyond its 95% interval).
    #[arg(long, value_name = "PCT", value_parser = parse_percentage)]
    pub fail_if_slower: Option<f64>,
}

/// A `--noise` or `--fail-if-slower` value that is not a percentage from 0 to 100.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--noise and --fail-if-slower take a percentage from 0 to 100, not {text}")]
pub struct PercentageError {
    /// The value as given.
    pub text: String,
}

/// A `--noise` or `--fail-if-slower` value: a percentage from 0 to 100 (100 excluded).
pub fn parse_percentage(text: &str) -> Result<f64, PercentageError> {
    let pct = text.trim().parse().unwrap_or(f64::NAN);
    percentage(pct, || text.to_string())
}

/// `pct` if it is a percentage from 0 to 100 (100 excluded); else the error, quoting the
/// value as `text` gives it.
fn percentage(pct: f64, text: impl FnOnce() -> String) -> Result<f64, PercentageError> {
    if (0.0..100.0).contains(&pct) {
        Ok(pct)
    } else {
        Err(PercentageError { text: text() })
    }
}

/// A comparison made and written into the newer report's folder.
#[derive(Debug)]
pub struct Judged {
    /// The comparison as text, with the gate's verdict and where the page is.
    pub text: String,
    /// Measurements slower than the gate allows (0 without `--fail-if-slower`).
    pub failing: usize,
}

/// Named baselines a run is compared with or kept as (`--baseline`, `--save-baseline`).
#[derive(Debug, Clone, clap::Args)]
pub struct Baselines {
    /// Compare this run with baseline NAME (kept under REPORTS/baselines/), or keep this
    /// run as NAME when there is none yet.
    #[arg(long, value_name = "NAME", value_parser = parse_baseline_name)]
    pub baseline: Option<String>,
    /// Keep this run as baseline NAME, replacing an older one.
    #[arg(long, value_name = "NAME", value_parser = parse_baseline_name)]
    pub save_baseline: Option<String>,
    /// How the comparison with the baseline judges changes.
    #[command(flatten)]
    pub gate: Gate,
}

/// A baseline's name as given: one folder's name under `REPORTS/baselines/`. A name
/// that is empty or only dots would name `baselines/` itself or a folder above it, which
/// saving a baseline empties, so it is refused before anything runs.
fn parse_baseline_name(text: &str) -> Result<String, String> {
    if text.chars().all(|c| c == '.') {
        return Err(format!(
            "{text:?} names no folder of its own under REPORTS/baselines/: give a name \
             with a letter or digit, such as `main`"
        ));
    }
    Ok(text.to_string())
}

/// What the baselines did with a run.
#[derive(Debug, Default)]
pub struct BaselineOutcome {
    /// The comparison with `--baseline`, when that baseline existed.
    pub compared: Option<Judged>,
    /// What was kept where, a line each.
    pub notes: Vec<String>,
}

impl Baselines {
    /// Checks, before anything is measured, that the baseline to compare with is one: a
    /// folder without its `summary.json`, or with one that does not read, would be found
    /// only after every measurement (and the folder taken for no baseline at all).
    pub fn check(&self, reports: &Path) -> Result<(), BenchError> {
        let Some(name) = &self.baseline else {
            return Ok(());
        };
        let kept = baseline_folder(reports, name);
        if !kept.exists() {
            return Ok(());
        }
        if !kept.join("summary.json").is_file() {
            return Err(BenchError::Plan(format!(
                "baseline {name}: {} has no summary.json, so it is no report to compare \
                 with: delete the folder to keep this run as the baseline",
                kept.display()
            )));
        }
        SavedReport::load(&kept).map(|_| ())
    }

    /// Compares the report in `dir` with its baseline under `reports` (or keeps it as that
    /// baseline when there is none yet), and keeps it under `--save-baseline`'s name.
    pub fn apply(&self, dir: &Path, reports: &Path) -> Result<BaselineOutcome, BenchError> {
        let mut outcome = BaselineOutcome::default();
        if let Some(name) = &self.baseline {
            let kept = baseline_folder(reports, name);
            if kept.join("summary.json").is_file() {
                outcome.compared = Some(self.gate.compare(&kept, dir)?);
            } else {
                let kept = save_baseline(dir, reports, name)?;
                outcome.notes.push(format!(
                    "baseline {name}: none yet, this run is kept as it ({})",
                    kept.display()
                ));
            }
        }
        if let Some(name) = &self.save_baseline {
            let kept = save_baseline(dir, reports, name)?;
            outcome
                .notes
                .push(format!("kept as baseline {name}: {}", kept.display()));
        }
        Ok(outcome)
    }
}

impl Gate {
    /// Compares the reports in `old` and `new` and writes the comparison into `new`.
    pub fn compare(&self, old: &Path, new: &Path) -> Result<Judged, BenchError> {
        // The command line checks them as it reads them; a gate built in code is
        // checked here.
        for pct in [Some(self.noise), self.fail_if_slower]
            .into_iter()
            .flatten()
        {
            percentage(pct, || pct.to_string())?;
        }
        let (old, new) = (SavedReport::load(old)?, SavedReport::load(new)?);
        let comparison = Comparison::new(old.side(), new.side(), self.noise / 100.0);
        write_comparison(&new, &comparison)?;
        let failing = self
            .fail_if_slower
            .map_or(0, |pct| comparison.slower_than(pct / 100.0).len());
        let mut text = comparison.to_text();
        if let Some(pct) = self.fail_if_slower {
            let _ = writeln!(text, "{failing} measurements slower by more than {pct}%");
        }
        let _ = writeln!(text, "comparison: {}", new.dir.join(PAGE_FILE).display());
        Ok(Judged { text, failing })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_from_0_to_100() {
        assert_eq!(parse_percentage("2.5"), Ok(2.5));
        assert_eq!(parse_percentage("0"), Ok(0.0));
        for bad in ["1e30", "1e400", "100", "-1", "NaN", "inf", "ten", ""] {
            assert_eq!(
                parse_percentage(bad).unwrap_err().to_string(),
                format!("--noise and --fail-if-slower take a percentage from 0 to 100, not {bad}"),
            );
        }
        // A gate built in code is checked as the command line checks it.
        let gate = Gate {
            noise: 1e30,
            fail_if_slower: None,
        };
        let error = gate.compare(Path::new("/nonexistent"), Path::new("/nonexistent"));
        assert_eq!(
            error.unwrap_err().to_string(),
            "--noise and --fail-if-slower take a percentage from 0 to 100, not 1000000000000000000000000000000"
        );
    }
}
