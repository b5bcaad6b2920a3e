//! The integration tests, one binary: each file under tests/ is a module here. As forty-odd
//! binaries, run one after another, each file's slowest test kept one of the two cores idle
//! while it finished; in one binary the harness keeps both busy to the end (CI's tests on
//! lavapipe: 682 s as binaries, 543 s as one), and the crate is linked once, not forty times.
//! `cargo test --test suite pmlt::` runs one file's tests. tests/soak.rs stays a binary of its
//! own: it measures its process's resident memory, which no other test may share.

mod common;
mod hostile;

mod accel;
mod all_features;
mod animation;
mod architecture;
mod bdpt;
mod bdpt_mis;
mod bsdf;
mod camera_projection;
mod cli;
mod coated_emission;
mod deform;
mod documented_commands;
mod emission;
mod environment;
mod farm;
mod film;
mod furnace;
mod gpu_layer;
mod hostile_input;
mod hostile_render;
mod kernel_features;
mod layer_textures;
mod layout;
mod light_bvh;
mod light_culling;
mod light_selection;
mod lights;
mod meshopt_compression;
mod mirror;
mod near_plane;
mod orthographic;
mod pmlt;
mod progressive;
mod punctual;
mod reference;
mod rng;
mod sampler;
mod scale;
mod scale_cli;
mod scan;
mod scene_import;
mod shader_constants;
mod software_trace;
mod textures;
mod trace_floor;
mod vertex_colors;
mod viewer;
mod wavefront;
mod wavefront_kernels;

/// With `autotests = false`, a test file that no `mod` line here names is never compiled, and
/// its tests would pass by not running: every file under tests/ but this one and the soak
/// test's must be a module of the suite.
#[test]
fn every_test_file_is_a_module_of_the_suite() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared: Vec<&str> = include_str!("suite.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let module = match (path.is_dir(), path.extension().and_then(|e| e.to_str())) {
            (true, _) if path.join("mod.rs").is_file() => path.file_name(),
            (false, Some("rs")) => path.file_stem(),
            _ => continue,
        };
        let module = module.and_then(|m| m.to_str()).unwrap().to_string();
        if !["suite", "soak"].contains(&module.as_str()) && !declared.contains(&module.as_str()) {
            missing.push(module);
        }
    }
    assert!(missing.is_empty(), "tests/suite.rs names no module {missing:?}");
    assert!(declared.len() >= 40, "{declared:?}");
}
