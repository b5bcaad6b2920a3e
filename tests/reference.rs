//! Renders against Mitsuba 3's references (tests/scenes/*/ref). With BSDF sampling alone
//! the noise is far above the relMSE targets, which need next-event estimation; what
//! is held here is the energy: every mean ratio within 2% and the block-8 error (which
//! shows bias, not noise) small, on both trace backends, which must agree exactly.

mod common;

use wavetrace::film::{metrics, read_exr};
use wavetrace::integrator::wavefront::WavefrontRenderer;
use wavetrace::integrator::RenderSettings;

fn check(scene_name: &str, resolution: u32, depth: u32, spp: u32, block8_limit: f64) {
    let gpu = common::gpu();
    let scene = common::load_scene(scene_name);
    let reference = read_exr(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/scenes/{scene_name}/ref/{scene_name}-{resolution}-d{depth}.exr"
    )))
    .unwrap();
    let mut images = Vec::new();
    for backend in gpu.context.trace_backends().to_vec() {
        let settings = RenderSettings {
            width: resolution,
            height: resolution,
            spp,
            max_depth: depth,
            seed: 1,
            backend,
        };
        let image = WavefrontRenderer::new(&gpu.context, &scene, &settings)
            .unwrap()
            .render()
            .unwrap();
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!("{scene_name} {resolution} d{depth} {spp} spp {backend:?}: {c:?}");
        assert_eq!(c.non_finite_pixels, 0);
        for ratio in c.mean_ratio {
            assert!((ratio - 1.0).abs() < 0.02, "{backend:?}: mean ratio {ratio}: {c:?}");
        }
        assert!(c.block8_rel_mse < block8_limit, "{backend:?}: {c:?}");
        images.push(image);
    }
    if let [a, b] = &images[..] {
        assert_eq!(a, b, "the two trace backends must give the same image");
    }
    gpu.finish();
}

// Block-8 limits: about twice what these settings gave on lavapipe (0.0149, 0.0132, 0.0044).
#[test]
fn cornell_box_direct_light() {
    check("cornell-box", 128, 2, 64, 0.03);
}

#[test]
fn cornell_box_depth_eight() {
    check("cornell-box", 128, 8, 64, 0.03);
}

#[test]
fn cornell_glass_depth_eight() {
    // Caustics through the sphere and the mirror: at 256 spp the mean ratio was 0.992 (seed 1,
    // fixed, so the test is deterministic); fewer samples leave too little margin to 2%.
    check("cornell-glass", 64, 8, 256, 0.01);
}
