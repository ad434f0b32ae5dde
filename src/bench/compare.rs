//! `bench compare`: two reports side by side — each measurement's speed ratio with its 95%
//! interval from the timed runs, called faster, slower or unchanged by a stated rule — and
//! what differs between the two runs' machines and settings.

use serde::{Deserialize, Serialize};

use crate::report::export::{markdown_code, markdown_text, to_json, Column, Table};
use crate::report::EnvInfo;

use super::charts::RatioBar;
use super::format::{thousands, threads_text};
use super::report::BenchSummary;
use super::spread::ratio_interval;
use super::stats::SummaryRow;

/// Changes smaller than this share of the old speed are noise by default.
pub const DEFAULT_NOISE: f64 = 0.05;

/// What a measurement's change comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Faster beyond noise.
    Faster,
    /// Slower beyond noise.
    Slower,
    /// Neither.
    Unchanged,
}

impl Verdict {
    /// The verdict on a ratio (new speed over old) with its 95% interval, for changes of
    /// at least `threshold` (a share of the old speed): slower when the whole interval is
    /// below 1 and the ratio below 1 − threshold, faster when the whole interval is above
    /// 1 and the ratio above 1 + threshold, unchanged otherwise.
    pub fn of(low: f64, ratio: f64, high: f64, threshold: f64) -> Self {
        if high < 1.0 && ratio < 1.0 - threshold {
            Verdict::Slower
        } else if low > 1.0 && ratio > 1.0 + threshold {
            Verdict::Faster
        } else {
            Verdict::Unchanged
        }
    }

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Unchanged => "unchanged",
        }
    }
}

/// One measurement in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    /// Puzzle kind.
    pub kind: String,
    /// Dataset.
    pub dataset: String,
    /// Algorithm or external program.
    pub algorithm: String,
    /// Thread count (none for an external program).
    pub threads: Option<usize>,
    /// The old run's median records/s…
    pub old_records_per_s: f64,
    /// …over this many timed runs.
    pub old_runs: usize,
    /// The new run's median records/s…
    pub new_records_per_s: f64,
    /// …over this many timed runs.
    pub new_runs: usize,
    /// New speed over old: the median of the ratios of every new run to every old one.
    pub ratio: f64,
    /// Its 95% interval's lower end…
    pub ratio_low: f64,
    /// …and upper end.
    pub ratio_high: f64,
    /// The verdict at the comparison's noise threshold.
    pub verdict: Verdict,
}

impl Compared {
    /// `dataset · algorithm · N threads`.
    pub fn name(&self) -> String {
        format!(
            "{} · {} · {}",
            self.dataset,
            self.algorithm,
            threads_text(self.threads)
        )
    }

    /// The change as a signed percentage of the old speed.
    pub fn change_percent(&self) -> f64 {
        (self.ratio - 1.0) * 100.0
    }
}

/// A setting or fact that differs between the two runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// What differs.
    pub what: String,
    /// In the old run.
    pub old: String,
    /// In the new run.
    pub new: String,
}

/// Two benchmark reports compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The old report (its folder).
    pub old: String,
    /// The new report.
    pub new: String,
    /// Changes below this share of the old speed count as noise.
    pub noise: f64,
    /// The rule, in words.
    pub rule: String,
    /// The measurements both runs have, in the new run's order.
    pub measurements: Vec<Compared>,
    /// Measurements only the old run has.
    pub only_old: Vec<String>,
    /// Measurements only the new run has.
    pub only_new: Vec<String>,
    /// Measurements both runs have but without a speed in one of them (no record timed,
    /// as of an empty dataset): nothing to compare, so no verdict.
    #[serde(default)]
    pub without_speed: Vec<String>,
    /// For each run a signal cut short, the sentence that says so: its measurements not
    /// run are among those only in the other run.
    #[serde(default)]
    pub interrupted: Vec<String>,
    /// Machines, builds or settings that differ: figures then compare more than the code.
    pub differences: Vec<Difference>,
}

/// One side of a comparison: a report's summary, its environment and its name.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The report's name (its folder).
    pub name: &'a str,
    /// Its summary.
    pub summary: &'a BenchSummary,
    /// Its environment.
    pub env: &'a EnvInfo,
}

impl Comparison {
    /// Compares `new` with `old`, changes below `noise` (a share) counting as noise.
    pub fn new(old: Side<'_>, new: Side<'_>, noise: f64) -> Self {
        let key = |r: &SummaryRow| {
            (
                r.kind.clone(),
                r.dataset.clone(),
                r.algorithm.clone(),
                r.threads,
            )
        };
        let mut measurements = Vec::new();
        let mut only_new = Vec::new();
        let mut without_speed = Vec::new();
        for row in new.summary.runs.iter().filter(|r| r.failure.is_empty()) {
            let Some(before) = old
                .summary
                .runs
                .iter()
                .find(|o| key(o) == key(row) && o.failure.is_empty())
            else {
                only_new.push(row.name());
                continue;
            };
            let (old_samples, new_samples) =
                (samples(old.summary, before), samples(new.summary, row));
            let Some((low, ratio, high)) = ratio_interval(&old_samples, &new_samples) else {
                without_speed.push(row.name());
                continue;
            };
            measurements.push(Compared {
                kind: row.kind.clone(),
                dataset: row.dataset.clone(),
                algorithm: row.algorithm.clone(),
                threads: row.threads,
                old_records_per_s: before.records_per_s,
                old_runs: old_samples.len(),
                new_records_per_s: row.records_per_s,
                new_runs: new_samples.len(),
                ratio,
                ratio_low: low,
                ratio_high: high,
                verdict: Verdict::of(low, ratio, high, noise),
            });
        }
        let only_old = old
            .summary
            .runs
            .iter()
            .filter(|o| !new.summary.runs.iter().any(|r| key(r) == key(o)))
            .map(SummaryRow::name)
            .collect();
        Comparison {
            old: old.name.to_string(),
            new: new.name.to_string(),
            noise,
            rule: rule_text(noise),
            measurements,
            only_old,
            only_new,
            without_speed,
            interrupted: [("old", old), ("new", new)]
                .into_iter()
                .filter_map(|(which, side)| {
                    let text = side.summary.interruption_text()?;
                    Some(format!(
                        "the {which} run ({}) was cut short. {text}",
                        side.name
                    ))
                })
                .collect(),
            differences: differences(old, new),
        }
    }

    /// The measurements slower by more than `threshold` (a share of the old speed) by the
    /// same rule as the verdicts.
    pub fn slower_than(&self, threshold: f64) -> Vec<&Compared> {
        self.measurements
            .iter()
            .filter(|m| {
                Verdict::of(m.ratio_low, m.ratio, m.ratio_high, threshold) == Verdict::Slower
            })
            .collect()
    }

    /// How many measurements are faster, slower and unchanged.
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |v: Verdict| self.measurements.iter().filter(|m| m.verdict == v).count();
        (
            count(Verdict::Faster),
            count(Verdict::Slower),
            count(Verdict::Unchanged),
        )
    }

    /// One line: the counts, and whether the runs differ in more than the code.
    pub fn headline(&self) -> String {
        let (faster, slower, unchanged) = self.counts();
        format!(
            "{} compared: {faster} faster, {slower} slower, {unchanged} unchanged",
            crate::batch::counted(self.measurements.len(), "measurement")
        )
    }

    /// The table: one row per measurement.
    pub fn table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::left("dataset").padded(36),
            Column::left("algorithm").padded(10),
            Column::right("threads").padded(7),
            Column::right("old records/s").padded(13),
            Column::right("new records/s").padded(13),
            Column::right("runs").padded(7),
            Column::right("change").padded(7),
            Column::right("95% interval").padded(15),
            Column::left("verdict"),
        ]);
        for m in &self.measurements {
            table.push(vec![
                m.dataset.clone(),
                m.algorithm.clone(),
                threads_text(m.threads),
                thousands(m.old_records_per_s),
                thousands(m.new_records_per_s),
                format!("{}/{}", m.old_runs, m.new_runs),
                format!("{:+.1}%", m.change_percent()),
                format!(
                    "{:+.1}…{:+.1}%",
                    (m.ratio_low - 1.0) * 100.0,
                    (m.ratio_high - 1.0) * 100.0
                ),
                m.verdict.name().to_string(),
            ]);
        }
        table
    }

    /// Notes on what is not compared and on what differs between the runs.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = self.interrupted.clone();
        for d in &self.differences {
            notes.push(format!(
                "{} differs: {} (old) vs {} (new)",
                d.what, d.old, d.new
            ));
        }
        if !self.only_old.is_empty() {
            notes.push(format!("only in the old run: {}", self.only_old.join("; ")));
        }
        if !self.only_new.is_empty() {
            notes.push(format!("only in the new run: {}", self.only_new.join("; ")));
        }
        if !self.without_speed.is_empty() {
            notes.push(format!(
                "not compared, no record timed in one run or both: {}",
                self.without_speed.join("; ")
            ));
        }
        notes
    }

    /// For the terminal: the table, the notes, the rule and the counts.
    pub fn to_text(&self) -> String {
        let mut text = self.table().to_text();
        for note in self.notes() {
            text.push_str(&format!("note: {note}\n"));
        }
        text.push_str(&format!("{}\n{}\n", self.rule, self.headline()));
        text
    }

    /// `compare.md`.
    pub fn to_markdown(&self) -> String {
        let mut md = format!(
            "# puzzlebench bench compare\n\nold: {}\n\nnew: {}\n\n{}\n\n",
            markdown_code(&self.old),
            markdown_code(&self.new),
            self.headline()
        );
        // Notes name datasets and programs: shown as text, on one line each.
        for note in self.notes() {
            let note = markdown_text(&note).replace(['\n', '\r'], " ");
            md.push_str(&format!("- **{note}**\n"));
        }
        md.push_str(&format!(
            "\n![comparison](comparison.svg)\n\n{}\n\n",
            self.rule
        ));
        md.push_str(&self.table().to_markdown());
        md
    }

    /// `compare.json`.
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// The bars of the comparison chart.
    pub fn bars(&self) -> Vec<RatioBar> {
        self.measurements
            .iter()
            .map(|m| RatioBar {
                label: m.name(),
                low: m.ratio_low,
                ratio: m.ratio,
                high: m.ratio_high,
                verdict: match m.verdict {
                    Verdict::Slower => -1,
                    Verdict::Unchanged => 0,
                    Verdict::Faster => 1,
                },
            })
            .collect()
    }
}

/// The comparison rule in words, for threshold `noise`.
pub fn rule_text(noise: f64) -> String {
    format!(
        "Ratio: new records/s over old, the median of the ratios of every new timed run to \
         every old one; 95% interval: the Mann–Whitney interval of those ratios. Slower: the \
         whole interval below 1 and the ratio more than {pct}% below 1; faster: the whole \
         interval above 1 and the ratio more than {pct}% above; else unchanged.",
        pct = noise * 100.0
    )
}

/// A measurement's timed-run rates (its median alone in reports made before samples were
/// kept).
fn samples(summary: &BenchSummary, row: &SummaryRow) -> Vec<f64> {
    summary
        .samples
        .iter()
        .find(|s| {
            s.dataset == row.dataset && s.algorithm == row.algorithm && s.threads == row.threads
        })
        .map(|s| s.records_per_s.clone())
        .filter(|rates| !rates.is_empty())
        .unwrap_or_else(|| vec![row.records_per_s])
}

/// Options that change where a report goes or how it is compared, not what it measures.
const NEUTRAL_OPTIONS: [&str; 7] = [
    "--label",
    "--reports",
    "--baseline",
    "--save-baseline",
    "--fail-if-slower",
    "--noise",
    "--external-timeout",
];

/// What differs between the runs' builds, machines and settings.
fn differences(old: Side<'_>, new: Side<'_>) -> Vec<Difference> {
    let (a, b) = (old.env, new.env);
    let commit = |env: &EnvInfo| env.git_commit.clone().unwrap_or_else(|| "unknown".into());
    let host = |env: &EnvInfo| env.host.clone();
    let facts = [
        (
            "suite",
            old.summary.suite.clone(),
            new.summary.suite.clone(),
        ),
        ("puzzlebench version", a.version.clone(), b.version.clone()),
        ("git commit", commit(a), commit(b)),
        ("compiler", a.rustc.clone(), b.rustc.clone()),
        ("host", host(a), host(b)),
        ("CPU", a.cpu_model.clone(), b.cpu_model.clone()),
        ("cores", a.cores.to_string(), b.cores.to_string()),
        ("OS", a.os.clone(), b.os.clone()),
        (
            "bench command line",
            options(&a.command),
            options(&b.command),
        ),
    ];
    facts
        .into_iter()
        .filter(|(_, x, y)| x != y)
        .map(|(what, old, new)| Difference {
            what: what.to_string(),
            old,
            new,
        })
        .collect()
}

/// The options of a `bench` command line that change what it measures.
fn options(command: &[String]) -> String {
    let mut kept = Vec::new();
    let mut args = command.iter().skip(1);
    while let Some(arg) = args.next() {
        let name = arg.split('=').next().unwrap_or(arg);
        if NEUTRAL_OPTIONS.contains(&name) || arg == "-q" || arg == "--quiet" {
            if !arg.contains('=') && NEUTRAL_OPTIONS.contains(&name) {
                args.next();
            }
            continue;
        }
        kept.push(arg.clone());
    }
    if kept.is_empty() {
        "(none)".into()
    } else {
        kept.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_stated_rule() {
        assert_eq!(Verdict::of(0.85, 0.9, 0.95, 0.05), Verdict::Slower);
        // Beyond noise, but the interval reaches 1.
        assert_eq!(Verdict::of(0.8, 0.9, 1.01, 0.05), Verdict::Unchanged);
        // Certain, but within noise.
        assert_eq!(Verdict::of(0.96, 0.97, 0.98, 0.05), Verdict::Unchanged);
        assert_eq!(Verdict::of(1.1, 1.2, 1.3, 0.05), Verdict::Faster);
    }

    #[test]
    fn options_leave_out_where_the_report_goes() {
        let command: Vec<String> = [
            "puzzlebench",
            "bench",
            "--label",
            "x",
            "--threads",
            "1,2",
            "--reports=r",
            "-q",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(options(&command), "bench --threads 1,2");
    }
}
