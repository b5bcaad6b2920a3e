//! Every command the README and docs/ tell a user to run still exists: each `--example NAME`
//! is an example target, each repository path they name is there, each script under tools/
//! parses (`bash -n`), and each `--option` the README lists is one `wavetrace render` accepts.
//! (The examples themselves are compiled by `cargo test --all-targets` and clippy in CI.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md")];
    paths.extend(common::files_under(&root().join("docs"), &["md"]));
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, text)
        })
        .collect()
}

/// The words that follow `marker` in `text` (up to the next character that cannot be part
/// of a name or path).
fn words_after<'a>(text: &'a str, marker: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    text.match_indices(marker).map(move |(at, _)| {
        let rest = &text[at + marker.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
            .unwrap_or(rest.len());
        rest[..end].trim_end_matches('.')
    })
}

#[test]
fn every_documented_example_is_a_target() {
    let mut named = BTreeSet::new();
    for (path, text) in documents() {
        for name in words_after(&text, "--example ") {
            named.insert((name.to_string(), path.clone()));
        }
    }
    assert!(
        named.iter().any(|(name, _)| name == "bench_lights"),
        "the README names bench_lights"
    );
    for (name, document) in named {
        let source = root().join("examples").join(format!("{name}.rs"));
        assert!(
            source.is_file(),
            "{} names `--example {name}`, but {} does not exist",
            document.display(),
            source.display()
        );
    }
}

/// Paths in backticks that start with a top-level folder of the repository.
#[test]
fn every_documented_repository_path_exists() {
    let folders = [
        "src/",
        "tools/",
        "examples/",
        "tests/",
        "shaders-glsl/",
        "assets/",
        "docs/",
        ".ci/",
    ];
    let mut missing = Vec::new();
    let mut checked = 0;
    for (document, text) in documents() {
        for quoted in text.split('`').skip(1).step_by(2) {
            let Some(first) = quoted.split_whitespace().next() else {
                continue;
            };
            // `tools/bench/h100-lights.sh` or `cargo run ... examples/x.rs`: each word that is a path.
            for word in std::iter::once(first).chain(quoted.split_whitespace().skip(1)) {
                let word = word.trim_end_matches([',', ';', ':', ')']);
                // Placeholders (`shaders-glsl/AREA/NAME.comp`) and patterns name no one file.
                let placeholder = word
                    .split(['/', '.', '_'])
                    .any(|part| ["AREA", "NAME", "EXT", "VARIANT"].contains(&part));
                if !folders.iter().any(|f| word.starts_with(f)) || word.contains(['*', '<', '{', '$']) || placeholder {
                    continue;
                }
                // A path with a `:line` or `~line` suffix names the file.
                let file = word.split([':', '~']).next().unwrap_or(word);
                checked += 1;
                if !root().join(file).exists() {
                    missing.push(format!("{}: `{word}`", document.display()));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} paths found: the scan is broken");
    assert!(
        missing.is_empty(),
        "documented paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_tool_script_parses() {
    let mut found = common::files_under(&root().join("tools"), &["sh"]);
    found.push(root().join(".ci/run"));
    assert!(found.len() >= 5, "{found:?}");
    for script in found {
        let output = Command::new("bash").arg("-n").arg(&script).output().unwrap();
        assert!(
            output.status.success(),
            "{}: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Long options of `wavetrace render`, as its `--help` lists them.
fn render_options() -> BTreeSet<String> {
    options_of("render")
}

/// Long options of a subcommand, as its `--help` lists them.
fn options_of(command: &str) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_wavetrace"))
        .args([command, "--help"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let help = String::from_utf8(output.stdout).unwrap();
    words_after(&help, "--").map(|o| format!("--{o}")).collect()
}

#[test]
fn every_option_the_readme_lists_is_accepted() {
    let accepted: BTreeSet<String> = render_options().union(&options_of("view")).cloned().collect();
    assert!(
        accepted.contains("--spp") && accepted.contains("--max-depth"),
        "{accepted:?}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    // Options as the README writes them: `--name` in the usage line and in prose. Cargo's own
    // (`--release`, `--example`, `--all-targets`) are not wavetrace's.
    let cargo = [
        "--release",
        "--example",
        "--examples",
        "--all-targets",
        "--json",
        "--help",
    ];
    let listed: BTreeSet<String> = words_after(&readme, "--")
        .filter(|o| o.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .map(|o| format!("--{o}"))
        .filter(|o| !cargo.contains(&o.as_str()))
        .collect();
    assert!(listed.len() >= 15, "the README's options were not found: {listed:?}");
    let unknown: Vec<_> = listed.difference(&accepted).collect();
    assert!(
        unknown.is_empty(),
        "the README lists options neither `render --help` nor `view --help` does: {unknown:?}"
    );
}

/// `--json` is the README's option of both `info` and `render`; it is excluded above only
/// because cargo has one too.
#[test]
fn json_is_an_option_of_render_and_info() {
    assert!(render_options().contains("--json"));
    let output = Command::new(env!("CARGO_BIN_EXE_wavetrace"))
        .args(["info", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("--json"));
}
