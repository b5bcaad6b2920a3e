//! Kernels specialised to a scene's features (include/features.glsl, `KernelFeatures`): a
//! scene gets exactly the features it uses, and the specialised kernels make the general
//! kernels' image.

use crate::common;

use glam::Vec3;
use wavetrace::environment::Environment;
use wavetrace::film::metrics;
use wavetrace::integrator::{IntegratorKind, KernelFeatures, RenderSettings, Sampler};
use wavetrace::interface::{
    FEATURES_ALL, FEATURE_ALPHA, FEATURE_CLEARCOAT, FEATURE_ENVIRONMENT, FEATURE_LIGHT_BVH, FEATURE_LIGHT_BY_POWER,
    FEATURE_METAL, FEATURE_NORMAL_MAPS, FEATURE_PUNCTUAL_LIGHTS, FEATURE_SPECULAR_LAYER, FEATURE_TEXTURES,
    FEATURE_TRANSMISSION, FEATURE_VERTEX_COLORS, FEATURE_VOLUMES, LIGHT_SELECTION_BVH, LIGHT_SELECTION_CDF,
    LIGHT_SELECTION_TREE, LIGHT_SELECTION_UNIFORM,
};
use wavetrace::lights::LightSelection;
use wavetrace::scene::{Material, TextureRef};

#[test]
fn each_scene_gets_the_features_it_uses() {
    let cases = [
        ("cornell-box", false, 0),
        ("ajar", false, 0),
        ("cornell-glass", false, FEATURE_METAL | FEATURE_TRANSMISSION),
        ("furnace-box", true, FEATURE_ENVIRONMENT),
        (
            "all-features",
            false,
            FEATURE_TEXTURES
                | FEATURE_NORMAL_MAPS
                | FEATURE_ALPHA
                | FEATURE_VOLUMES
                | FEATURE_PUNCTUAL_LIGHTS
                | FEATURE_METAL
                | FEATURE_SPECULAR_LAYER
                | FEATURE_TRANSMISSION
                | FEATURE_VERTEX_COLORS
                | FEATURE_CLEARCOAT,
        ),
    ];
    for (name, environment, expected) in cases {
        let features = KernelFeatures::of(&common::load_scene(name), environment, LIGHT_SELECTION_BVH);
        assert_eq!(features.bits(), expected | FEATURE_LIGHT_BVH, "{name}: {features}");
    }
    let cornell_box = common::load_scene("cornell-box");
    for selection in [LIGHT_SELECTION_TREE, LIGHT_SELECTION_CDF, LIGHT_SELECTION_UNIFORM] {
        let features = KernelFeatures::of(&cornell_box, false, selection);
        assert_eq!(
            features.bits(),
            FEATURE_LIGHT_BY_POWER,
            "selection {selection}: {features}"
        );
    }
    assert_eq!(
        KernelFeatures::of(&cornell_box, false, LIGHT_SELECTION_BVH).to_string(),
        "light bvh"
    );
    assert_eq!(KernelFeatures::ALL.bits(), FEATURES_ALL);
}

/// The material features of a scene whose one material is `material`.
fn features_of(material: Material) -> u32 {
    KernelFeatures::of(&common::sphere_scene(material), false, LIGHT_SELECTION_BVH).bits() & !FEATURE_LIGHT_BVH
}

#[test]
fn a_lobe_is_left_out_only_where_its_weight_is_exactly_zero() {
    let lambert = Material {
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    };
    assert_eq!(features_of(lambert.clone()), 0);
    // glTF's default material is a metal, and a dielectric's layer is on unless specular is 0.
    assert_eq!(features_of(Material::default()), FEATURE_METAL);
    assert_eq!(
        features_of(Material {
            metallic: 0.0,
            ..Material::default()
        }),
        FEATURE_SPECULAR_LAYER
    );
    // A metallic texture can lower a metallic factor of 1 and open the dielectric's layer.
    let texture = TextureRef::plain(0);
    assert_eq!(
        features_of(Material {
            metallic_roughness_texture: Some(texture),
            ..Material::default()
        }),
        FEATURE_METAL | FEATURE_SPECULAR_LAYER | FEATURE_TEXTURES
    );
    // Full transmission leaves no opaque dielectric for the layer; glass reflects on its own.
    assert_eq!(
        features_of(Material {
            transmission: 1.0,
            ..lambert.clone()
        }),
        FEATURE_TRANSMISSION
    );
    assert_eq!(
        features_of(Material {
            transmission: 0.5,
            specular: 1.0,
            ..lambert.clone()
        }),
        FEATURE_TRANSMISSION | FEATURE_SPECULAR_LAYER
    );
    assert_eq!(
        features_of(Material {
            absorption: Vec3::new(0.0, 0.1, 0.0),
            ..lambert.clone()
        }),
        FEATURE_VOLUMES
    );
    assert_eq!(
        features_of(Material {
            normal_texture: Some(texture),
            ..lambert.clone()
        }),
        FEATURE_NORMAL_MAPS
    );
    // A coat of roughness 0 is a lobe too (a delta one); of weight 0 there is none.
    assert_eq!(
        features_of(Material {
            clearcoat: 0.3,
            ..lambert.clone()
        }),
        FEATURE_CLEARCOAT
    );
    assert_eq!(
        features_of(Material {
            clearcoat_roughness: 0.5,
            ..lambert
        }),
        0
    );
}

/// On lavapipe the path tracers give the general kernels' bits. Bidirectional path tracing
/// gives them up to rounding: with the dead code gone, the compiler fuses some multiply-adds of
/// the MIS weights that it does not fuse in the general kernel (a product used once becomes an
/// FMA), so a few weights differ in their last bits (relMSE 3e-16 on the Cornell box). A GPU's
/// compiler makes such choices everywhere (the H100's megakernel differs in bits too), so
/// there every image is held to rounding.
#[test]
fn specialised_kernels_make_the_general_kernels_image() {
    let gpu = common::gpu();
    let backend = gpu.context.trace_backends()[0];
    let lavapipe = gpu.context.adapter().device_type == "cpu";
    // Lights are chosen by the light BVH unless said; the Cornell box and all-features also by
    // power (the specialisation to the way lights are chosen). Asked for the BVH, the two Cornell
    // boxes choose their alike lights uniformly (`LightSelection::for_scene`); the furnace box
    // and all-features keep the BVH.
    let scenes = [
        ("cornell-box", None, LightSelection::Bvh, Sampler::Sobol),
        // The sampler is a feature too: each specialised kernel holds one sampler's code.
        ("cornell-box", None, LightSelection::Bvh, Sampler::Independent),
        ("cornell-box", None, LightSelection::Tree, Sampler::Sobol),
        ("cornell-glass", None, LightSelection::Bvh, Sampler::Sobol),
        (
            "furnace-box",
            Some(Environment::constant(Vec3::splat(0.8))),
            LightSelection::Bvh,
            Sampler::Sobol,
        ),
        ("all-features", None, LightSelection::Bvh, Sampler::Sobol),
        ("all-features", None, LightSelection::Tree, Sampler::Independent),
    ];
    for (name, environment, lights, sampler) in scenes {
        let scene = common::load_scene(name);
        for integrator in [
            IntegratorKind::Wavefront,
            IntegratorKind::Megakernel,
            IntegratorKind::Bdpt,
        ] {
            let specialised = RenderSettings {
                integrator,
                environment: environment.clone(),
                light_selection: lights,
                sampler,
                ..RenderSettings::new(32, 32, 4, 6, backend)
            };
            let general = RenderSettings {
                general_kernels: true,
                ..specialised.clone()
            };
            let image = common::render(&gpu.context, &scene, &specialised);
            let reference = common::render(&gpu.context, &scene, &general);
            let name = format!("{name} ({lights:?}, {sampler:?})");
            assert!(image.mean().iter().all(|&m| m > 0.0), "{name} {integrator:?}: black");
            if lavapipe && integrator != IntegratorKind::Bdpt {
                assert!(
                    image.pixels == reference.pixels,
                    "{name} {integrator:?}: not the same bits"
                );
                continue;
            }
            let comparison = metrics::compare(&image, &reference).unwrap();
            // Rounding can flip a rare decision (a roulette draw, a shadow ray's hit), so a few
            // pixels of a GPU's render may differ by more than an ulp, never the image.
            let bound = if lavapipe { 1e-12 } else { 1e-6 };
            assert!(
                comparison.rel_mse < bound,
                "{name} {integrator:?}: relMSE {}",
                comparison.rel_mse
            );
            common::assert_means_within(&comparison, 1e-4, &format!("{name} {integrator:?}"));
        }
    }
    gpu.finish();
}
