//! Records the git commit and the compiler version for `env.json` reports, and marks the
//! tests this machine cannot run so that `cargo test` lists them as ignored, with why.
use std::path::Path;
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=PUZZLEBENCH_GIT_COMMIT={commit}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=PUZZLEBENCH_RUSTC={version}");
    println!("cargo:rerun-if-changed=build.rs");
    mark_skips();
    let head = Path::new(".git/HEAD");
    if head.exists() {
        println!("cargo:rerun-if-changed=.git/HEAD");
        if let Ok(text) = std::fs::read_to_string(head) {
            if let Some(reference) = text.trim().strip_prefix("ref: ") {
                println!("cargo:rerun-if-changed=.git/{reference}");
            }
        }
    }
}

/// Sets `spark_missing` when Java cannot run or `scripts/spark/setup.sh` has not made the
/// PySpark environment (and `PUZZLEBENCH_REQUIRE_SPARK=1` does not require the Spark test,
/// which then makes the environment itself). `setup.sh` touches this file so that the check
/// runs again once the environment is there.
fn mark_spark() {
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_REQUIRE_SPARK");
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_SPARK_VENV");
    if std::env::var("PUZZLEBENCH_REQUIRE_SPARK").is_ok_and(|v| v == "1") {
        return;
    }
    let venv = std::env::var_os("PUZZLEBENCH_SPARK_VENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("target/spark-venv").to_path_buf());
    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !java || !venv.join("bin/python").exists() {
        println!("cargo:rustc-cfg=spark_missing");
    }
}

/// Sets `corpora_missing` when the public corpora are absent (and not required), and
/// `cpu_lacks_avx2`, `cpu_lacks_bmi2` on an x86-64 build machine without them: the tests
/// that need them carry `#[cfg_attr(flag, ignore = "why")]`. The tests run where they are
/// built, so the build machine's CPU is theirs.
fn mark_skips() {
    for flag in [
        "corpora_missing",
        "spark_missing",
        "extra_corpora_missing",
        "cpu_lacks_avx2",
        "cpu_lacks_bmi2",
        "chromium_missing",
    ] {
        println!("cargo::rustc-check-cfg=cfg({flag})");
    }
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_CORPORA");
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_REQUIRE_CORPORA");
    let corpora = std::env::var_os("PUZZLEBENCH_CORPORA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("../shared/datasets").to_path_buf());
    let required = std::env::var("PUZZLEBENCH_REQUIRE_CORPORA").is_ok_and(|v| v == "1");
    if corpora.is_dir() {
        println!("cargo:rerun-if-changed={}", corpora.display());
    } else if !required {
        // Under PUZZLEBENCH_REQUIRE_CORPORA=1 the tests run, and fail on the missing files.
        println!("cargo:rustc-cfg=corpora_missing");
    }
    mark_spark();
    // Public sets that may not be redistributed in the shared corpora either (docs/corpora.md:
    // Gecode's 16×16 and 25×25 Sudokus): never required, CI has no network to fetch them.
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_EXTRA_CORPORA");
    let extra = std::env::var_os("PUZZLEBENCH_EXTRA_CORPORA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("../corpora-extra").to_path_buf());
    if extra.is_dir() {
        println!("cargo:rerun-if-changed={}", extra.display());
    } else {
        println!("cargo:rustc-cfg=extra_corpora_missing");
    }
    mark_chromium();
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        #[cfg(target_arch = "x86_64")]
        {
            if !std::arch::is_x86_feature_detected!("avx2") {
                println!("cargo:rustc-cfg=cpu_lacks_avx2");
            }
            if !std::arch::is_x86_feature_detected!("bmi2") {
                println!("cargo:rustc-cfg=cpu_lacks_bmi2");
            }
        }
    }
}

/// Sets `chromium_missing` when no Chromium is on the PATH (and it is not required): the
/// browser test of the HTML reports then shows as ignored, with why. The PATH's folders
/// are watched, so that installing it marks the test to run at the next build.
fn mark_chromium() {
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rerun-if-env-changed=PUZZLEBENCH_REQUIRE_CHROMIUM");
    let required = std::env::var("PUZZLEBENCH_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
    let folders: Vec<std::path::PathBuf> = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    let found = folders.iter().any(|dir| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .any(|name| dir.join(name).is_file())
    });
    for dir in folders.iter().filter(|dir| dir.is_dir()) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    if !found && !required {
        println!("cargo:rustc-cfg=chromium_missing");
    }
}
