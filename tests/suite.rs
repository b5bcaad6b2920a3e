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
mod layout;
mod light_bvh;
mod light_culling;
mod light_selection;
mod lights;
mod mirror;
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
mod textures;
mod trace_floor;
mod vertex_colors;
mod viewer;
mod wavefront;
mod wavefront_kernels;
