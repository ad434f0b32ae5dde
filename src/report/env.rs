//! The environment a run was measured in, for `env.json`.

use serde::{Deserialize, Serialize};

/// Facts about the machine and the tool that ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnvInfo {
    /// Always `puzzlebench`.
    pub tool: String,
    /// The crate version.
    pub version: String,
    /// The git commit the binary was built from, when known.
    pub git_commit: Option<String>,
    /// The compiler that built it.
    pub rustc: String,
    /// The machine's host name (`unknown` in reports written before it was kept).
    #[serde(default = "unknown")]
    pub host: String,
    /// CPU model name.
    pub cpu_model: String,
    /// Logical cores available.
    pub cores: usize,
    /// Worker threads of the run.
    pub threads: usize,
    /// Operating system and kernel.
    pub os: String,
    /// When the report was written (UTC, RFC 3339).
    pub date: String,
    /// The command line.
    pub command: Vec<String>,
}

impl EnvInfo {
    /// Collects the facts of this machine now, for a run with `threads` workers.
    pub fn collect(threads: usize, command: Vec<String>) -> Self {
        let commit = env!("PUZZLEBENCH_GIT_COMMIT");
        EnvInfo {
            tool: "puzzlebench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_commit: (!commit.is_empty()).then(|| commit.to_string()),
            rustc: env!("PUZZLEBENCH_RUSTC").into(),
            host: host_name().unwrap_or_else(unknown),
            cpu_model: cpu_model().unwrap_or_else(unknown),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads,
            os: os_description(),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            command,
        }
    }

    /// The facts as (name, value) pairs, for a page.
    pub fn facts(&self) -> Vec<(String, String)> {
        let pairs = [
            ("tool", format!("{} {}", self.tool, self.version)),
            ("git commit", self.git_commit.clone().unwrap_or_default()),
            ("compiler", self.rustc.clone()),
            ("host", self.host.clone()),
            ("CPU", self.cpu_model.clone()),
            ("cores", self.cores.to_string()),
            ("threads", self.threads.to_string()),
            ("OS", self.os.clone()),
            ("date", self.date.clone()),
            ("command", self.command.join(" ")),
        ];
        pairs
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect()
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        super::export::to_json(self)
    }
}

fn unknown() -> String {
    "unknown".into()
}

fn host_name() -> Option<String> {
    let mut buffer = [0u8; 256];
    // SAFETY: gethostname writes at most `len` bytes into the buffer we own.
    let result = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if result != 0 {
        return None;
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    Some(String::from_utf8_lossy(&buffer[..end]).into_owned()).filter(|h| !h.is_empty())
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.trim().to_string())
}

fn os_description() -> String {
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("PRETTY_NAME="))
                .map(|name| name.trim_matches('"').to_string())
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|k| k.trim().to_string());
    let mut os = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    if let Some(pretty) = pretty {
        os.push_str(&format!(", {pretty}"));
    }
    if let Some(kernel) = kernel {
        os.push_str(&format!(", kernel {kernel}"));
    }
    os
}
