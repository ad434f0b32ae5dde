//! The HTML reports in a real browser: headless Chromium opens a bench report (with a
//! comparison) and a batch report, and an in-page check (tests/browser/selfcheck.js)
//! reports that every chart is drawn, every table sorts by every column, nothing is
//! fetched and no script error happened; screenshots are saved for a person to look at.
//!
//! Needs Debian's `chromium`: `.ci/install-chromium.sh` installs it, and the build marks
//! this test ignored where it is missing (unless PUZZLEBENCH_REQUIRE_CHROMIUM=1).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{repo_datasets, run};

/// Catches script errors and `console.error` calls from the very start of the page.
const ERROR_HOOK: &str = "<script>window.__selfcheckErrors = [];\
window.addEventListener('error', function (e) { window.__selfcheckErrors.push(String(e.message)); });\
window.addEventListener('unhandledrejection', function (e) { window.__selfcheckErrors.push(String(e.reason)); });\
(function () { var error = console.error; console.error = function () {\
window.__selfcheckErrors.push(Array.prototype.join.call(arguments, ' ')); error.apply(console, arguments); }; })();\
</script>";

fn chromium() -> PathBuf {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(name))
                    .find(|path| path.is_file())
            })
        });
    found.unwrap_or_else(|| {
        panic!("report_pages_work_in_chromium: chromium is not installed (.ci/install-chromium.sh)")
    })
}

fn chromium_command(browser: &Path) -> Command {
    let mut command = Command::new(browser);
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    command
}

/// Opens a copy of `page` with the self-check injected; returns its verdict (JSON).
fn self_check(browser: &Path, page: &Path) -> serde_json::Value {
    let html = fs::read_to_string(page).unwrap();
    let check = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/selfcheck.js"),
    )
    .unwrap();
    let injected = html
        .replacen("<head>", &format!("<head>\n{ERROR_HOOK}"), 1)
        .replacen("</body>", &format!("<script>{check}</script>\n</body>"), 1);
    let copy = page.with_file_name("selfcheck.html");
    fs::write(&copy, injected).unwrap();
    let output = chromium_command(browser)
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", copy.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Console messages of the page itself, as Chromium logs them.
    let console_errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") && l.contains("selfcheck.html"))
        .collect();
    assert!(
        console_errors.is_empty(),
        "{}: console: {console_errors:?}",
        page.display()
    );
    let start = dom
        .rfind("<pre id=\"selfcheck\">")
        .unwrap_or_else(|| panic!("{}: no verdict in the DOM\n{stderr}", page.display()));
    let verdict = &dom[start + "<pre id=\"selfcheck\">".len()..];
    let verdict = &verdict[..verdict.find("</pre>").unwrap()];
    let verdict = verdict.replace("&quot;", "\"").replace("&amp;", "&");
    serde_json::from_str(&verdict).unwrap_or_else(|e| panic!("{e}: {verdict}"))
}

/// Saves a screenshot of `page` as `name` in the test's output folder.
fn screenshot(browser: &Path, page: &Path, name: &str, height: u32) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots");
    fs::create_dir_all(&dir).unwrap();
    let png = dir.join(name);
    let _ = fs::remove_file(&png);
    let status = chromium_command(browser)
        .arg(format!("--window-size=1400,{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(status.status.success(), "{status:?}");
    let bytes = fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "{}",
        png.display()
    );
    png
}

fn assert_clean(page: &Path, verdict: &serde_json::Value, charts: u64, columns: u64) {
    assert_eq!(
        verdict["problems"],
        serde_json::json!([]),
        "{}",
        page.display()
    );
    assert_eq!(
        verdict["errors"],
        serde_json::json!([]),
        "{}",
        page.display()
    );
    assert_eq!(verdict["charts"], charts, "{}: {verdict}", page.display());
    assert!(
        verdict["sortedColumns"].as_u64().unwrap() >= columns,
        "{}: {verdict}",
        page.display()
    );
}

#[test]
#[cfg_attr(
    chromium_missing,
    ignore = "chromium is not installed: run .ci/install-chromium.sh (PUZZLEBENCH_REQUIRE_CHROMIUM=1 makes this a failure)"
)]
fn report_pages_work_in_chromium() {
    let browser = chromium();
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("page.toml");
    fs::write(
        &suite,
        format!(
            "name = \"page\"\nmin_time = 0.02\nthreads = [1, 2]\n\n[[set]]\nkind = \"sudoku\"\n\
             generate = {{ file = \"page-300.txt\", count = 300, seed = 7 }}\n\
             algorithms = [\"fast\", \"dlx\"]\n\n[[set]]\nkind = \"connect4\"\n\
             datasets = [\"{}\"]\nalgorithms = [\"bitboard\"]\n",
            repo_datasets().join("connect4/games-1k.txt").display()
        ),
    )
    .unwrap();
    let reports = tmp.path().join("reports");
    let bench = |baseline: &str| {
        let output = common::puzzlebench()
            .env("CARGO_TARGET_DIR", tmp.path().join("cache"))
            .args(["bench", "-q", "--suite", suite.to_str().unwrap()])
            .args([
                "--reports",
                reports.to_str().unwrap(),
                "--baseline",
                baseline,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    bench("first");
    bench("first");
    let page = fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-page-2"))
        .unwrap()
        .join("report.html");
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Compared with an earlier run"),
        "no comparison"
    );
    // Three charts and the comparison's; the comparison, results and environment tables.
    let verdict = self_check(&browser, &page);
    assert_clean(&page, &verdict, 4, 9 + 16);
    screenshot(&browser, &page, "bench-report.png", 3400);

    let run_report = tmp.path().join("run");
    let output = run(&[
        "sudoku",
        "solve",
        repo_datasets()
            .join("sudoku/generated-hard-200.txt")
            .to_str()
            .unwrap(),
        "--report",
        run_report.to_str().unwrap(),
        "-o",
        tmp.path().join("rows.csv").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let page = run_report.join("report.html");
    let verdict = self_check(&browser, &page);
    assert_clean(&page, &verdict, 1, 3 + 5);
    screenshot(&browser, &page, "run-report.png", 2000);
}
