//! Hostile input on the GPU (lavapipe, validation on): a corpus of generated hostile scenes
//! rendered at 32 x 32, none of which may crash, hang, produce a validation error or a
//! non-finite pixel; textures larger than the device takes; images too large to allocate.

use crate::common;
use crate::hostile;

use std::time::{Duration, Instant};

use serde_json::json;
use wavetrace::gpu::{GpuError, TraceBackend};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::scene::{ImportOptions, Scene};

fn backend(gpu: &common::TestGpu) -> TraceBackend {
    gpu.context.trace_backends()[0]
}

fn settings(gpu: &common::TestGpu, size: u32, spp: u32) -> RenderSettings {
    RenderSettings::new(size, size, spp, 4, backend(gpu))
}

/// How many generated scenes the corpus renders (`WAVETRACE_HOSTILE_SCENES`, default 240).
fn corpus_size() -> usize {
    std::env::var("WAVETRACE_HOSTILE_SCENES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240)
}

/// The corpus is rendered in shards, one test each, which the test harness runs side by side:
/// a 32 x 32 render is driver and validation-layer work on one thread (perf on lavapipe:
/// the driver 47%, the layer 23%, the shaders themselves under 1%).
const SHARDS: usize = 2;

#[test]
fn a_corpus_of_hostile_scenes_renders_or_is_refused_cleanly_shard_0() {
    render_corpus_shard(0);
}

#[test]
fn a_corpus_of_hostile_scenes_renders_or_is_refused_cleanly_shard_1() {
    render_corpus_shard(1);
}

/// Renders shard `shard` of the corpus: its own mutator seed, its share of the scenes.
fn render_corpus_shard(shard: usize) {
    let gpu = common::gpu();
    let shard_size = corpus_size().div_ceil(SHARDS);
    let mut mutator = hostile::Mutator::new(16 + shard as u64);
    let folder = std::env::temp_dir().join(format!("wavetrace-{}-hostile-render-{shard}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let (mut refused_on_import, mut refused_by_renderer, mut rendered) = (0, Vec::new(), 0);
    let integrators = [
        IntegratorKind::Wavefront,
        IntegratorKind::Megakernel,
        IntegratorKind::Bdpt,
    ];
    let started = Instant::now();
    let mut attempts = 0;
    let mut index = 0;
    // Generated until `shard_size` scenes import (most mutations of a small scene are
    // refused by the importer, which the fuzzer covers): these are the ones the GPU must take.
    while index < shard_size {
        attempts += 1;
        assert!(
            attempts < 100 * shard_size,
            "the mutator makes too few importable scenes"
        );
        let mut document = hostile::base_scene();
        mutator.mutate_json(&mut document);
        if attempts % 5 == 0 {
            hostile::mutate_buffer(&mut document, |bytes| mutator.mutate_bytes(bytes, 0));
        }
        let bytes = serde_json::to_vec(&document).unwrap();
        let path = folder.join(format!("hostile-{index}.gltf"));
        let scene = match wavetrace::scene::gltf::import_bytes(&path, &bytes, &ImportOptions::default()) {
            Ok(scene) => scene,
            Err(_) => {
                refused_on_import += 1;
                continue;
            }
        };
        index += 1;
        let mut settings = settings(&gpu, 32, 1);
        // The megakernel compiles slowly on lavapipe: every fourth scene, BDPT every fourth.
        settings.integrator = integrators[[0, 0, 1, 2][index % 4]];
        let one = Instant::now();
        let outcome = Renderer::new(&gpu.context, &scene, &settings).and_then(|mut renderer| renderer.render());
        assert!(
            one.elapsed() < Duration::from_secs(120),
            "scene {index} took {:?}",
            one.elapsed()
        );
        match outcome {
            Ok(image) => {
                let bad = image.pixels.iter().filter(|p| !p.iter().all(|c| c.is_finite())).count();
                if bad > 0 {
                    std::fs::write(folder.join(format!("non-finite-{index}.gltf")), &bytes).unwrap();
                }
                assert_eq!(
                    bad,
                    0,
                    "scene {index} ({}) rendered {bad} non-finite pixels",
                    path.display()
                );
                rendered += 1;
            }
            Err(error) => refused_by_renderer.push(format!("scene {index}: {error}")),
        }
    }
    println!(
        "hostile corpus, shard {shard}: {} scenes imported of {attempts} generated ({refused_on_import} refused on import) in {:.0} s: {rendered} rendered, {} refused by the renderer: {:?}",
        shard_size,
        started.elapsed().as_secs_f64(),
        refused_by_renderer.len(),
        refused_by_renderer
    );
    // The corpus must exercise the kernels, not only the renderer's refusals.
    assert!(
        rendered >= shard_size / 2,
        "only {rendered} of {} scenes rendered",
        shard_size
    );
    gpu.finish();
}

#[test]
fn textures_larger_than_the_device_takes_are_downscaled() {
    let gpu = common::gpu();
    let limit = gpu.context.adapter().capabilities.max_image_dimension_2d;
    let folder = std::env::temp_dir().join(format!("wavetrace-{}-hostile-wide", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let wide = limit + 3616;
    std::fs::write(folder.join("wide.png"), hostile::png(wide, 1)).unwrap();
    let mut document = hostile::base_scene();
    document["images"] = json!([{"uri": "wide.png"}]);
    let path = folder.join("wide.gltf");
    std::fs::write(&path, serde_json::to_vec(&document).unwrap()).unwrap();
    let scene = Scene::load(&path).unwrap();
    assert_eq!(scene.textures[0].width, wide);
    let image = Renderer::new(&gpu.context, &scene, &settings(&gpu, 16, 2))
        .and_then(|mut renderer| renderer.render())
        .unwrap();
    assert!(image.pixels.iter().flatten().all(|c| c.is_finite()));
    gpu.finish();
}

#[test]
fn an_image_too_large_to_allocate_is_an_error_naming_the_buffer() {
    let gpu = common::gpu();
    let limit = gpu.context.adapter().capabilities.max_allocation_bytes;
    let scene = common::load_scene("cornell-box");
    // A film of 16-byte pixels just over the device's largest allocation.
    let height = u32::try_from(limit / 16 / 1024 + 1).unwrap_or(u32::MAX);
    let mut settings = settings(&gpu, 1024, 1);
    settings.height = height;
    let error = Renderer::new(&gpu.context, &scene, &settings)
        .err()
        .expect("must be refused");
    assert!(
        matches!(error, GpuError::TooLarge { .. } | GpuError::InvalidUse { .. }),
        "{error}"
    );
    gpu.finish();
}
