//! wavetrace: a Vulkan-native wavefront GPU path tracer with hardware ray tracing.
//!
//! Layers, bottom up: `gpu` (the only module that calls ash), `primitives` (GPU building
//! blocks such as the prefix sum), and the renderer above them. `interface` holds every
//! struct shared with shaders, declared once in `shader_interface.rs`.
//!
//! `unsafe` is for calls into Vulkan, so only `gpu` may use it; the compiler holds every other
//! module to that.
#![deny(unsafe_code)]

pub mod accel;
pub mod bsdf;
pub mod environment;
pub mod film;
#[allow(unsafe_code)]
pub mod gpu;
pub mod info;
pub mod input;
pub mod integrator;
pub mod interface;
pub mod lights;
pub mod primitives;
pub mod rng;
pub mod sampler;
pub mod scale;
pub mod scene;
pub mod trace;
pub mod viewer;
