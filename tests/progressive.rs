//! Progressive rendering (`Renderer::render_pass`, which the viewer drives): passes of k
//! samples continue one sample sequence, so that they add up to one render of their total
//! bit for bit, with every integrator; and a camera moved between passes renders what a
//! render made from that camera does, light culling's screen tiles included.

use crate::common;

use wavetrace::film::RgbImage;
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::lights::{CullingFormat, CullingSettings};
use wavetrace::scene::{Camera, RenderCamera};

fn settings(scene_backend: wavetrace::gpu::TraceBackend, integrator: IntegratorKind, spp: u32) -> RenderSettings {
    RenderSettings {
        integrator,
        ..RenderSettings::new(24, 20, spp, 5, scene_backend)
    }
}

fn assert_same_bits(a: &RgbImage, b: &RgbImage, what: &str) {
    let differing = a.pixels.iter().zip(&b.pixels).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{what}: {differing} pixels differ");
}

#[test]
fn passes_add_up_to_one_render_bit_for_bit() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-box");
    for &backend in context.trace_backends() {
        for integrator in [
            IntegratorKind::Wavefront,
            IntegratorKind::Megakernel,
            IntegratorKind::Bdpt,
        ] {
            let whole = Renderer::new(context, &scene, &settings(backend, integrator, 6))
                .unwrap()
                .render()
                .unwrap();
            // Passes of 2 samples and of 3, in a different order than the sample sequence's.
            for (pass_spp, firsts) in [(2, vec![0, 2, 4]), (3, vec![3, 0])] {
                let mut renderer = Renderer::new(context, &scene, &settings(backend, integrator, pass_spp)).unwrap();
                for first in firsts {
                    renderer.render_pass(first).unwrap();
                }
                let progressive = renderer.film().read_mean(context, 6).unwrap();
                assert_same_bits(
                    &progressive,
                    &whole,
                    &format!("{integrator:?} on {backend:?}, passes of {pass_spp}"),
                );
            }
            // A short last chunk, as a split render's: a renderer sized for 4 samples (the
            // megakernel launches all 4 at once) renders 4, then 2.
            let mut renderer = Renderer::new(context, &scene, &settings(backend, integrator, 4)).unwrap();
            renderer.render_samples(0, 4).unwrap();
            renderer.render_samples(4, 2).unwrap();
            assert_same_bits(
                &renderer.film().read_mean(context, 6).unwrap(),
                &whole,
                &format!("{integrator:?} on {backend:?}, 4 samples then a short chunk of 2"),
            );
            // A cleared film starts again: one pass of the first two samples is a 2-spp render.
            let mut renderer = Renderer::new(context, &scene, &settings(backend, integrator, 2)).unwrap();
            renderer.render_pass(2).unwrap();
            renderer.clear_film().unwrap();
            renderer.render_pass(0).unwrap();
            let two = Renderer::new(context, &scene, &settings(backend, integrator, 2))
                .unwrap()
                .render()
                .unwrap();
            assert_same_bits(
                &renderer.film().read_mean(context, 2).unwrap(),
                &two,
                "after clear_film",
            );
        }
    }
    gpu.finish();
}

#[test]
fn a_second_render_gives_the_first_image_again() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-box");
    for integrator in [
        IntegratorKind::Wavefront,
        IntegratorKind::Megakernel,
        IntegratorKind::Bdpt,
    ] {
        let backend = context.trace_backends()[0];
        let mut renderer = Renderer::new(context, &scene, &settings(backend, integrator, 2)).unwrap();
        let first = renderer.render().unwrap();
        renderer.render_pass(2).unwrap();
        let second = renderer.render().unwrap();
        assert_same_bits(&second, &first, &format!("{integrator:?}: render after render"));
    }
    gpu.finish();
}

#[test]
fn a_pass_past_the_sample_sequence_is_refused() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let backend = gpu.context.trace_backends()[0];
    let mut renderer = Renderer::new(&gpu.context, &scene, &settings(backend, IntegratorKind::Wavefront, 2)).unwrap();
    let error = renderer.render_pass(Renderer::MAX_SAMPLES - 1).unwrap_err().to_string();
    assert!(error.contains("at most"), "{error}");
    drop(renderer);
    gpu.finish();
}

#[test]
fn a_moved_camera_renders_what_a_render_from_it_does_light_culling_included() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("street-300");
    let base = scene.camera.clone().expect("the street has a camera");
    let turned = Camera {
        world_from_camera: base.world_from_camera
            * glam::Mat4::from_rotation_y(0.35)
            * glam::Mat4::from_translation(glam::Vec3::new(1.5, 0.5, -2.0)),
        ..base
    };
    let mut moved_scene = scene.clone();
    moved_scene.camera = Some(turned);
    for &backend in context.trace_backends() {
        let settings = RenderSettings {
            light_culling: CullingSettings {
                format: CullingFormat::Lists,
                ..CullingSettings::default()
            },
            max_depth: 3,
            ..settings(backend, IntegratorKind::Wavefront, 2)
        };
        let expected = Renderer::new(context, &moved_scene, &settings)
            .unwrap()
            .render()
            .unwrap();
        let mut renderer = Renderer::new(context, &scene, &settings).unwrap();
        let original = renderer.render().unwrap();
        let (camera, _) = RenderCamera::for_scene(&moved_scene, settings.width, settings.height);
        renderer.set_camera(&camera).unwrap();
        renderer.clear_film().unwrap();
        renderer.render_pass(0).unwrap();
        let moved = renderer.film().read_mean(context, 2).unwrap();
        assert!(
            original.pixels != expected.pixels,
            "the camera's move must change the image"
        );
        assert_same_bits(&moved, &expected, &format!("moved camera on {backend:?}"));
    }
    gpu.finish();
}
