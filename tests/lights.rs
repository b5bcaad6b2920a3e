//! The emissive-triangle table and its power CDF: what sampling picks, and the densities MIS needs.

mod common;

use glam::{Mat4, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::lights::emissive::{luminance, EmissiveTriangles};
use wavetrace::scene::{Instance, Scene};

fn load(name: &str) -> Scene {
    common::load_scene(name)
}

#[test]
fn sampling_frequencies_follow_power() {
    // 2,048 emitters over four decades of radiance: a chi-square test of 10^6 draws.
    let lights = EmissiveTriangles::build(&load("cornell-many-lights"));
    assert_eq!(lights.triangles.len(), 2048);
    let draws = 1_000_000usize;
    let mut counts = vec![0u32; lights.triangles.len()];
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..draws {
        counts[lights.sample(rng.random::<f32>()).unwrap()] += 1;
    }
    // Pool the lights into bins of expected count >= 20 (the dim ones are individually rare).
    let (mut chi2, mut bins, mut expected_bin, mut observed_bin) = (0.0, 0usize, 0.0, 0.0);
    for (i, &count) in counts.iter().enumerate() {
        expected_bin += lights.probability(i) * draws as f64;
        observed_bin += f64::from(count);
        if expected_bin >= 20.0 || i + 1 == counts.len() {
            chi2 += (observed_bin - expected_bin).powi(2) / expected_bin;
            bins += 1;
            (expected_bin, observed_bin) = (0.0, 0.0);
        }
    }
    // For k degrees of freedom the statistic is about k +- sqrt(2k); allow 5 sigma.
    let dof = (bins - 1) as f64;
    assert!(chi2 < dof + 5.0 * (2.0 * dof).sqrt(), "chi2 {chi2:.1} over {bins} bins");
    assert!(bins > 100, "the test needs many bins to mean something: {bins}");
}

#[test]
fn every_positive_light_can_be_chosen_and_densities_integrate_to_one() {
    let lights = EmissiveTriangles::build(&load("cornell-many-lights"));
    let mut total = 0.0;
    for (i, t) in lights.triangles.iter().enumerate() {
        total += lights.area_density(t.radiance) * f64::from(t.area);
        let low = if i == 0 { 0.0 } else { lights.cdf[i - 1] };
        assert!(lights.cdf[i] > low, "light {i} has an empty CDF interval");
        assert_eq!(lights.sample(low), Some(i));
    }
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    assert!(
        (lights.probability(0)
            - lights.area_density(lights.triangles[0].radiance) * f64::from(lights.triangles[0].area))
        .abs()
            < 1e-12
    );
}

#[test]
fn front_faces_follow_mirrored_instances() {
    let mut scene = load("cornell-box");
    let before = EmissiveTriangles::build(&scene);
    let normal = |t: &wavetrace::interface::EmissiveTriangle| (t.p1 - t.p0).cross(t.p2 - t.p0).normalize();
    // The ceiling light emits downwards.
    assert!(
        before.triangles.iter().all(|t| normal(t).y < -0.99),
        "{:?}",
        before.triangles.iter().map(normal).collect::<Vec<_>>()
    );
    assert!((luminance(before.triangles[0].radiance) - luminance(Vec3::new(18.387, 13.9873, 6.75357))).abs() < 1e-3);
    // Mirrored through the floor plane, the same light must emit upwards.
    for instance in scene.instances.iter_mut().filter(|i| i.node == "light") {
        *instance = Instance {
            world_from_object: Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0)) * instance.world_from_object,
            ..instance.clone()
        };
    }
    let after = EmissiveTriangles::build(&scene);
    assert!(after.triangles.iter().all(|t| normal(t).y > 0.99));
}

#[test]
fn scenes_without_lights_sample_nothing() {
    let mut scene = load("cornell-box");
    for material in &mut scene.materials {
        material.emission = Vec3::ZERO;
    }
    let lights = EmissiveTriangles::build(&scene);
    assert!(lights.triangles.is_empty() && lights.sample(0.5).is_none());
}
