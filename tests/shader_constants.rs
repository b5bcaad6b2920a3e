//! Constants shared by Rust and GLSL are declared once, in `src/shader_interface.rs`, and the
//! GLSL side is generated (`interface.glsl`). This fails if a shader defines one of them by
//! hand, or if a shader and the Rust sources each define a constant of the same name (a
//! mirror written by hand that belongs in the generator).

use std::collections::BTreeSet;
use std::path::Path;

use wavetrace::interface::SHARED_CONSTANTS;

use crate::common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// (name, file:line) of every `const TYPE NAME = ...;` and `#define NAME VALUE` in GLSL.
fn glsl_constants() -> Vec<(String, String)> {
    let shaders = common::files_under(
        &root().join("shaders-glsl"),
        &["glsl", "comp", "rgen", "rmiss", "rchit", "rahit", "rint", "rcall"],
    );
    assert!(shaders.len() > 30, "{shaders:?}");
    let mut found = Vec::new();
    for shader in shaders {
        let text = std::fs::read_to_string(&shader).unwrap();
        for (number, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let name = match words.as_slice() {
                ["const", _type, name, "=", ..] => Some(*name),
                // A define with a value; include guards and feature switches have none.
                ["#define", name, _value, ..] => Some(*name),
                _ => None,
            };
            if let Some(name) = name {
                let place = format!("{}:{}", shader.strip_prefix(root()).unwrap().display(), number + 1);
                found.push((name.trim_end_matches('(').to_string(), place));
            }
        }
    }
    found
}

/// Names of every `const NAME: ...` in the library's Rust sources, the generated ones aside.
fn rust_constants() -> BTreeSet<String> {
    let sources = common::files_under(&root().join("src"), &["rs"]);
    let mut names = BTreeSet::new();
    for source in sources {
        if source.ends_with("shader_interface.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&source).unwrap();
        for line in text.lines() {
            let line = line
                .trim_start()
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(rest) = line.strip_prefix("const ") {
                if let Some((name, _)) = rest.split_once(':') {
                    names.insert(name.trim().to_string());
                }
            }
        }
    }
    names
}

#[test]
fn no_shader_defines_a_shared_constant_by_hand() {
    assert!(SHARED_CONSTANTS.len() >= 30, "{SHARED_CONSTANTS:?}");
    let shared: BTreeSet<&str> = SHARED_CONSTANTS.iter().copied().collect();
    let by_hand: Vec<String> = glsl_constants()
        .into_iter()
        .filter(|(name, _)| shared.contains(name.as_str()))
        .map(|(name, place)| format!("{place}: {name} (generated from src/shader_interface.rs)"))
        .collect();
    assert!(by_hand.is_empty(), "{}", by_hand.join("\n"));
}

#[test]
fn no_constant_is_mirrored_by_hand_between_rust_and_glsl() {
    let rust = rust_constants();
    assert!(rust.contains("MAX_SLOTS"), "the scan of src/ is broken: {rust:?}");
    let mirrored: Vec<String> = glsl_constants()
        .into_iter()
        .filter(|(name, _)| rust.contains(name))
        .map(|(name, place)| format!("{place}: {name} is also a Rust constant; declare it in src/shader_interface.rs"))
        .collect();
    assert!(mirrored.is_empty(), "{}", mirrored.join("\n"));
}

/// build.rs wrote each shared constant, once, into the GLSL every shader includes.
#[test]
fn the_generated_glsl_declares_each_shared_constant_once() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/generated/interface.glsl")).unwrap();
    for name in SHARED_CONSTANTS {
        let declarations = generated
            .lines()
            .filter(|line| line.starts_with("const ") && line.split_whitespace().nth(2) == Some(name))
            .count();
        assert_eq!(declarations, 1, "{name} in interface.glsl:\n{generated}");
    }
    // Values arrive evaluated: `(1 << SAMPLE_BITS) - 1` as a number.
    let mask = format!("const uint SAMPLE_MASK = {}u;", wavetrace::interface::SAMPLE_MASK);
    assert!(generated.contains(&mask), "{generated}");
    assert!(
        generated.contains("const float FILM_SCALE = 16777216.0;"),
        "{generated}"
    );
}
