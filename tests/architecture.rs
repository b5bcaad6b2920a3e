//! The shape of `src/` that docs/ARCHITECTURE.md promises: no file depends on itself through
//! others (a `crate::`/`super::` path from one file to an item of another is an edge; an
//! item re-exported by a `mod.rs` counts as its defining file's), only `gpu/` calls ash, and
//! no function is longer than 100 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common;

fn sources() -> Vec<PathBuf> {
    common::files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["rs"])
}

/// The module path of a library file: `src/gpu/buffer.rs` -> ["gpu", "buffer"].
fn module_of(file: &Path) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut parts: Vec<String> = file
        .strip_prefix(&src)
        .unwrap()
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text before the first `#[cfg(test)]`: unit tests may reach anywhere.
fn code(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    text.split("#[cfg(test)]").next().unwrap().to_string()
}

/// Every path that starts with `crate::`, `super::` or `self::`, with `{a, b::c}` groups
/// expanded (one level deep is all the tree uses).
fn paths_in(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let bytes = text.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in text.match_indices(start) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let rest = &text[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let head: Vec<String> = rest[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            if rest[end..].starts_with('{') {
                let group = &rest[end + 1..rest[end..].find('}').map_or(rest.len(), |i| end + i)];
                for item in group.split(',') {
                    let item = item.split(" as ").next().unwrap().trim();
                    let mut path = head.clone();
                    if item != "self" && !item.is_empty() {
                        path.extend(item.split("::").map(|s| s.trim().to_string()));
                    }
                    paths.push(path);
                }
            } else {
                paths.push(head);
            }
        }
    }
    paths
}

struct Tree {
    files: BTreeMap<Vec<String>, PathBuf>,
    /// (module, name) -> the child module that defines what a `pub use child::name` re-exports.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Tree {
    fn new() -> Self {
        let mut files = BTreeMap::new();
        let mut reexports = BTreeMap::new();
        for file in sources() {
            if file.ends_with("main.rs") || file.ends_with("shader_interface.rs") {
                continue;
            }
            let module = module_of(&file);
            let name = file.file_name().unwrap();
            if name == "mod.rs" || name == "lib.rs" {
                for line in code(&file).lines() {
                    let Some(rest) = line.trim().strip_prefix("pub use ") else {
                        continue;
                    };
                    let rest = rest.trim_start_matches("self::");
                    let Some((child, items)) = rest.split_once("::") else {
                        continue;
                    };
                    let items = items.trim_end_matches(';').trim_matches(|c| c == '{' || c == '}');
                    for item in items.split(',') {
                        let item = item.split(" as ").last().unwrap().trim();
                        let mut target = module.clone();
                        target.push(child.to_string());
                        reexports.insert((module.clone(), item.to_string()), target);
                    }
                }
            }
            files.insert(module, file);
        }
        Self { files, reexports }
    }

    /// The file a path from `module` names (the deepest module on it, through re-exports).
    fn resolve(&self, module: &[String], path: &[String]) -> Option<&PathBuf> {
        let mut base: Vec<String> = match path.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("self") => module.to_vec(),
            Some("super") => {
                // In `a/b.rs` (module a::b) `super` is `a`; in `a/mod.rs` (module a) the root.
                let mut base = module.to_vec();
                for _ in path.iter().take_while(|s| *s == "super") {
                    base.pop();
                }
                base
            }
            _ => return None,
        };
        let rest: Vec<&String> = path
            .iter()
            .skip_while(|s| ["crate", "self", "super"].contains(&s.as_str()))
            .collect();
        let mut found = self.files.contains_key(&base).then(|| base.clone());
        let mut after = 0;
        for (i, segment) in rest.iter().enumerate() {
            base.push((*segment).clone());
            if self.files.contains_key(&base) {
                found = Some(base.clone());
                after = i + 1;
            }
        }
        let mut found = found?;
        if let Some(name) = rest.get(after) {
            if let Some(target) = self.reexports.get(&(found.clone(), (*name).clone())) {
                found = target.clone();
            }
        }
        self.files.get(&found)
    }

    fn edges(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (module, file) in &self.files {
            for path in paths_in(&code(file)) {
                if let Some(target) = self.resolve(module, &path) {
                    let target_is_hub = matches!(target.file_name().unwrap().to_str(), Some("mod.rs" | "lib.rs"));
                    // A hub (mod.rs) declaring and re-exporting its children is not a dependency.
                    if target != file && !target_is_hub {
                        edges.entry(file.clone()).or_default().insert(target.clone());
                    }
                }
            }
        }
        edges
    }
}

/// Files on a cycle, by depth-first search.
fn cycle(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Option<Vec<PathBuf>> {
    fn visit(
        node: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        stack: &mut Vec<PathBuf>,
        done: &mut BTreeSet<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.clone());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.clone());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_file_depends_on_itself_through_others() {
    let tree = Tree::new();
    let edges = tree.edges();
    let count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(count > 100, "only {count} dependencies found: the scan is broken");
    if let Some(cycle) = cycle(&edges) {
        let names: Vec<_> = cycle
            .iter()
            .map(|p| {
                p.strip_prefix(env!("CARGO_MANIFEST_DIR"))
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        panic!("dependency circle: {}", names.join(" -> "));
    }
}

#[test]
fn the_scan_sees_a_circle_where_there_is_one() {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges.entry(from.into()).or_default().insert(to.into());
    }
    assert_eq!(cycle(&edges).map(|c| c.len()), Some(4));
    edges.get_mut(Path::new("c")).unwrap().remove(Path::new("a"));
    assert_eq!(cycle(&edges), None);
}

#[test]
fn only_the_gpu_layer_calls_ash() {
    for file in sources() {
        let module = module_of(&file);
        if module.first().map(String::as_str) == Some("gpu") {
            continue;
        }
        let text = code(&file);
        assert!(
            !text.contains("ash::") && !text.contains("use ash"),
            "{} calls ash outside src/gpu/",
            file.display()
        );
    }
}

#[test]
fn no_function_is_longer_than_100_lines() {
    let mut long = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            let signature = trimmed
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ")
                .trim_start_matches("const ")
                .trim_start_matches("unsafe ");
            if !signature.starts_with("fn ") || line.trim_end().ends_with(';') {
                continue;
            }
            let end = lines[i + 1..]
                .iter()
                .position(|l| l.starts_with(&format!("{indent}}}")))
                .map(|j| j + 1);
            if let Some(length) = end.filter(|&length| length > 100) {
                long.push(format!("{}:{} ({length} lines)", file.display(), i + 1));
            }
        }
    }
    assert!(long.is_empty(), "functions over 100 lines:\n{}", long.join("\n"));
}
