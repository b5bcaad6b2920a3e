//! The glTF BSDF (bsdf.glsl) against its CPU twin (src/bsdf), and the math of both: sampled
//! directions follow the density that evaluation reports (chi-square, on CPU and GPU
//! samples), densities integrate to the chance that sampling gives a direction, f is
//! reciprocal, and sample weights equal f / pdf.

use crate::common;

use std::f64::consts::TAU;

use glam::Vec3;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::bsdf::{Bsdf, BsdfSample};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, Context};
use wavetrace::interface::{BsdfProbeCase, BsdfProbePush, BsdfProbeResult};

fn material(metallic: f32, roughness: f32, transmission: f32) -> Bsdf {
    Bsdf {
        base_color: Vec3::new(0.9, 0.6, 0.3),
        metallic,
        specular_color: Vec3::ONE,
        specular: 1.0,
        alpha: roughness * roughness,
        transmission,
        ior: 1.5,
        clearcoat: 0.0,
        coat_alpha: 0.0,
        coat_normal: Vec3::Z,
    }
}

/// `material` under a coat of weight `clearcoat` and roughness `coat_roughness`, whose normal
/// the base's normal map has tilted away from by `tilt` radians.
fn coated(base: Bsdf, clearcoat: f32, coat_roughness: f32, tilt: f32) -> Bsdf {
    Bsdf {
        clearcoat,
        coat_alpha: coat_roughness * coat_roughness,
        coat_normal: Vec3::new(tilt.sin(), 0.0, tilt.cos()),
        ..base
    }
}

/// The grid the issue asks for: roughness x metalness (x transmission) at several angles.
fn grid() -> Vec<(Bsdf, Vec3, bool)> {
    let mut cases = Vec::new();
    for roughness in [0.3, 0.6, 1.0] {
        for (metallic, transmission) in [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (0.0, 1.0), (0.3, 0.5)] {
            for degrees in [10.0f32, 50.0, 80.0] {
                let theta = degrees.to_radians();
                let wo = Vec3::new(theta.sin(), 0.0, theta.cos());
                for entering in [true, false] {
                    if transmission == 0.0 && !entering {
                        continue;
                    }
                    cases.push((material(metallic, roughness, transmission), wo, entering));
                }
            }
        }
    }
    // Coats over plastic, metal and glass, rough and smooth, on their base's normal and tilted.
    for (base, clearcoat, coat_roughness, tilt) in [
        (material(0.0, 0.6, 0.0), 1.0, 0.3, 0.0),
        (material(0.0, 1.0, 0.0), 0.7, 0.0, 0.0),
        (material(1.0, 0.5, 0.0), 1.0, 0.2, 0.3),
        (material(0.0, 0.0, 0.0), 0.5, 0.4, 0.2),
        (material(0.0, 0.4, 1.0), 1.0, 0.25, 0.0),
    ] {
        for degrees in [20.0f32, 70.0] {
            let theta = degrees.to_radians();
            let wo = Vec3::new(theta.sin(), 0.0, theta.cos());
            cases.push((coated(base, clearcoat, coat_roughness, tilt), wo, true));
        }
    }
    // Glass whose KHR_materials_specular factor leaves part of the Fresnel reflection out,
    // seen from inside past the critical angle, where nothing refracts either.
    for degrees in [50.0f32, 80.0] {
        let theta = degrees.to_radians();
        let wo = Vec3::new(theta.sin(), 0.0, theta.cos());
        cases.push((
            Bsdf {
                specular: 0.5,
                ..material(0.0, 0.5, 1.0)
            },
            wo,
            false,
        ));
    }
    cases
}

fn direction(cos_theta: f64, phi: f64) -> Vec3 {
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    Vec3::new(
        (sin_theta * phi.cos()) as f32,
        (sin_theta * phi.sin()) as f32,
        cos_theta as f32,
    )
}

const THETA_BINS: usize = 16;
const PHI_BINS: usize = 32;
const THETA_SUB: usize = 48;
const PHI_SUB: usize = 12;

/// The density integrated over each (theta, phi) bin of the sphere, midpoint rule on a
/// THETA_SUB x PHI_SUB grid per bin: the expected share of samples in each. Uniform in theta rather
/// than cos theta, so that lobes near the poles (refraction near normal incidence) are
/// resolved.
fn bin_probabilities(b: &Bsdf, wo: Vec3, entering: bool) -> Vec<f64> {
    let mut bins = vec![0.0f64; THETA_BINS * PHI_BINS];
    let dt = std::f64::consts::PI / (THETA_BINS * THETA_SUB) as f64;
    let dp = 2.0 * std::f64::consts::PI / (PHI_BINS * PHI_SUB) as f64;
    for i in 0..THETA_BINS * THETA_SUB {
        let theta = (i as f64 + 0.5) * dt;
        for j in 0..PHI_BINS * PHI_SUB {
            let phi = (j as f64 + 0.5) * dp;
            let (_, pdf) = b.eval(wo, direction(theta.cos(), phi), entering);
            bins[(i / THETA_SUB) * PHI_BINS + j / PHI_SUB] += f64::from(pdf) * theta.sin() * dt * dp;
        }
    }
    bins
}

fn bin_of(wi: Vec3) -> usize {
    let theta = f64::from(wi.z).clamp(-1.0, 1.0).acos();
    let c = (theta / std::f64::consts::PI * THETA_BINS as f64).min(THETA_BINS as f64 - 1.0) as usize;
    let mut phi = f64::from(wi.y).atan2(f64::from(wi.x));
    if phi < 0.0 {
        phi += 2.0 * std::f64::consts::PI;
    }
    let p = (phi / (2.0 * std::f64::consts::PI) * PHI_BINS as f64).min(PHI_BINS as f64 - 1.0) as usize;
    c * PHI_BINS + p
}

/// Pearson's chi-square of observed counts against expected shares, bins with fewer than 5
/// expected merged; returns (statistic, degrees of freedom).
fn chi_square(observed: &[u64], shares: &[f64], n: u64) -> (f64, usize) {
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| shares[a].partial_cmp(&shares[b]).unwrap());
    let (mut statistic, mut dof) = (0.0, 0usize);
    let (mut pooled_expected, mut pooled_observed) = (0.0, 0.0);
    for index in order {
        let expected = shares[index] * n as f64;
        let observed = observed[index] as f64;
        if expected < 5.0 {
            pooled_expected += expected;
            pooled_observed += observed;
            continue;
        }
        statistic += (observed - expected).powi(2) / expected;
        dof += 1;
    }
    if pooled_expected > 0.0 {
        statistic += (pooled_observed - pooled_expected).powi(2) / pooled_expected.max(5.0);
        dof += 1;
    }
    (statistic, dof.saturating_sub(1).max(1))
}

/// The chi-square value that a correct sampler exceeds with probability about 1e-5
/// (Wilson-Hilferty).
fn chi_square_limit(dof: usize) -> f64 {
    let k = dof as f64;
    let z = 4.265;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// Checks one case's samples (those with a density) against its density; `successes` are the
/// non-delta samples among `tries`.
fn check_distribution(label: &str, b: &Bsdf, wo: Vec3, entering: bool, samples: &[BsdfSample], tries: u64) {
    let shares = bin_probabilities(b, wo, entering);
    let integral: f64 = shares.iter().sum();
    let successes = samples.iter().filter(|s| !s.delta).count() as u64;
    let fraction = successes as f64 / tries as f64;
    // The density integrates to the chance of a (non-delta) sample: 1 less what falls below
    // the horizon of the microfacet reflection or is lost to total internal reflection.
    assert!(integral <= 1.0 + 2e-3, "{label}: density integrates to {integral}");
    assert!(
        (integral - fraction).abs() < 0.01,
        "{label}: density integrates to {integral}, samples come out {fraction} of the time"
    );
    let mut observed = vec![0u64; shares.len()];
    for s in samples.iter().filter(|s| !s.delta) {
        observed[bin_of(s.wi)] += 1;
    }
    let normalised: Vec<f64> = shares.iter().map(|s| s / integral).collect();
    let (statistic, dof) = chi_square(&observed, &normalised, successes);
    assert!(
        statistic < chi_square_limit(dof),
        "{label}: chi-square {statistic:.1} with {dof} degrees of freedom (limit {:.1})",
        chi_square_limit(dof)
    );
}

fn random_u(rng: &mut SmallRng) -> Vec3 {
    Vec3::new(rng.random(), rng.random(), rng.random())
}

const SAMPLES: u64 = 200_000;

#[test]
fn cpu_samples_follow_the_density_which_integrates_to_the_sample_chance() {
    let mut rng = SmallRng::seed_from_u64(6);
    for (b, wo, entering) in grid() {
        let samples: Vec<BsdfSample> = (0..SAMPLES)
            .filter_map(|_| b.sample(wo, entering, random_u(&mut rng)))
            .collect();
        let label = format!("cpu {b:?} wo {wo} entering {entering}");
        check_distribution(&label, &b, wo, entering, &samples, SAMPLES);
        // A delta lobe's sample (a smooth coat's, over a rough base) has no density to match.
        for s in samples.iter().filter(|s| !s.delta).take(2000) {
            let (f, pdf) = b.eval(wo, s.wi, entering);
            assert!(
                (pdf - s.pdf).abs() <= 1e-4 * pdf,
                "{label}: sample pdf {} vs eval {pdf}",
                s.pdf
            );
            let expected = f / pdf;
            assert!((s.weight - expected).abs().max_element() <= 1e-4 * expected.max_element().max(1.0));
        }
    }
}

#[test]
fn f_is_reciprocal() {
    let mut rng = SmallRng::seed_from_u64(7);
    for (b, _, entering) in grid() {
        for _ in 0..2000 {
            let wo = direction(rng.random_range(0.05..1.0), rng.random_range(0.0..TAU));
            let below = b.transmission > 0.0 && rng.random_bool(0.5);
            let z = rng.random_range(0.05..1.0);
            let wi = direction(if below { -z } else { z }, rng.random_range(0.0..TAU));
            let (forward, _) = b.eval(wo, wi, entering);
            // Seen from the other side (the frame turned over), for a refraction.
            let (swapped_wo, swapped_wi, swapped_entering) = if below {
                (Vec3::new(wi.x, wi.y, -wi.z), Vec3::new(wo.x, wo.y, -wo.z), !entering)
            } else {
                (wi, wo, entering)
            };
            let (backward, _) = b.eval(swapped_wo, swapped_wi, swapped_entering);
            // f(wo, wi) / |cos wi| = f(wi, wo) / |cos wo|; across a refraction radiance's
            // f carries 1/eta^2 one way and eta^2 the other (Veach 1997, 5.2).
            let eta = |entering: bool| if entering { b.ior } else { 1.0 / b.ior };
            let scale = if below { eta(entering) * eta(entering) } else { 1.0 };
            let a = forward / wi.z.abs() * scale;
            let c = backward / wo.z.abs();
            assert!(
                (a - c).abs().max_element() <= 2e-3 * a.max_element().max(1e-3),
                "{b:?} wo {wo} wi {wi} entering {entering}: {a} vs {c}"
            );
        }
    }
}

#[test]
/// REFERENCE.md's perfect mirror (metallic 1, roughness 0) reflects its base colour at every
/// angle, grazing ones too, as Mitsuba's conductor without a material does (not Schlick's rise
/// to white).
fn smooth_lobes_are_delta_and_a_mirror_reflects_its_base_colour_at_every_angle() {
    let mut rng = SmallRng::seed_from_u64(8);
    let mirror = material(1.0, 0.0, 0.0);
    let glass = material(0.0, 0.0, 1.0);
    for _ in 0..1000 {
        let wo = direction(rng.random_range(0.01..1.0), rng.random_range(0.0..TAU));
        let s = mirror.sample(wo, true, random_u(&mut rng)).unwrap();
        assert!(
            s.delta && (s.weight - mirror.base_color).abs().max_element() < 1e-5,
            "cos {}: {s:?}",
            wo.z
        );
        assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-5);
        assert_eq!(mirror.eval(wo, s.wi, true).0, Vec3::ZERO);
        // Smooth glass: reflection by Fresnel, refraction tinted and scaled by 1/eta^2.
        let s = glass.sample(wo, true, random_u(&mut rng)).unwrap();
        assert!(s.delta);
        let expected = if s.transmitted {
            glass.base_color / (1.5 * 1.5)
        } else {
            Vec3::ONE
        };
        assert!((s.weight - expected).abs().max_element() < 1e-5, "{s:?}");
    }
}

fn probe_cases(cases: &[(Bsdf, Vec3, bool, Vec3, Vec3)]) -> Vec<BsdfProbeCase> {
    cases
        .iter()
        .map(|&(b, wo, entering, wi, u)| BsdfProbeCase {
            base_color: b.base_color,
            metallic: b.metallic,
            specular_color: b.specular_color,
            specular: b.specular,
            alpha: b.alpha,
            transmission: b.transmission,
            ior: b.ior,
            clearcoat: b.clearcoat,
            coat_alpha: b.coat_alpha,
            coat_normal: b.coat_normal,
            entering: u32::from(entering),
            wo,
            wi,
            u,
            ..BsdfProbeCase::default()
        })
        .collect()
}

fn run_probe(context: &Context, cases: &[BsdfProbeCase]) -> Vec<BsdfProbeResult> {
    let pipeline = ComputePipeline::<BsdfProbePush>::new(context, ids::DIAGNOSTICS_BSDF_PROBE, &[]).unwrap();
    let input = Buffer::from_slice(context, "bsdf cases", cases, BufferUsage::STORAGE).unwrap();
    let output = Buffer::gpu_storage(
        context,
        "bsdf results",
        (cases.len() * std::mem::size_of::<BsdfProbeResult>()) as u64,
    )
    .unwrap();
    let count = cases.len() as u32;
    let push = BsdfProbePush {
        cases: input.address(),
        results: output.address(),
        count,
        pad0: 0,
    };
    common::run_probe(context, &pipeline, &push, count);
    output.read_back(context, cases.len()).unwrap()
}

fn close(a: Vec3, b: Vec3, tolerance: f32) -> bool {
    (a - b).abs().max_element() <= tolerance * a.abs().max_element().max(b.abs().max_element()).max(1e-3)
}

#[test]
fn gpu_matches_the_cpu_twin_and_its_samples_follow_the_density() {
    let gpu = common::gpu();
    let mut rng = SmallRng::seed_from_u64(9);

    // Random materials, directions and numbers, an awkward count, smooth lobes included.
    let mut random_cases = Vec::new();
    for _ in 0..4099 {
        let b = Bsdf {
            base_color: Vec3::new(rng.random(), rng.random(), rng.random()),
            metallic: if rng.random_bool(0.3) {
                rng.random_range(0.0..=1.0)
            } else {
                0.0
            },
            specular_color: Vec3::new(rng.random_range(0.5..1.5), 1.0, rng.random_range(0.5..1.5)),
            specular: rng.random_range(0.0..=1.0),
            alpha: if rng.random_bool(0.2) {
                0.0
            } else {
                rng.random_range(0.05f32..=1.0).powi(2)
            },
            transmission: if rng.random_bool(0.4) {
                rng.random_range(0.0..=1.0)
            } else {
                0.0
            },
            ior: rng.random_range(1.0..2.5),
            clearcoat: 0.0,
            coat_alpha: 0.0,
            coat_normal: Vec3::Z,
        };
        let b = if rng.random_bool(0.3) {
            let roughness = if rng.random_bool(0.2) {
                0.0
            } else {
                rng.random_range(0.05..=1.0)
            };
            coated(b, rng.random_range(0.0..=1.0), roughness, rng.random_range(0.0..0.5))
        } else {
            b
        };
        let wo = direction(rng.random_range(0.02..1.0), rng.random_range(0.0..TAU));
        let wi = direction(rng.random_range(-1.0..1.0), rng.random_range(0.0..TAU));
        random_cases.push((b, wo, rng.random_bool(0.5), wi, random_u(&mut rng)));
    }
    let results = run_probe(&gpu.context, &probe_cases(&random_cases));
    let mut decisions_differ = 0;
    for (&(b, wo, entering, wi, u), r) in random_cases.iter().zip(&results) {
        let (f, pdf) = b.eval(wo, wi, entering);
        assert!(close(f, r.eval, 2e-3), "{b:?} {wo} {wi}: cpu f {f} gpu {}", r.eval);
        assert!(
            (pdf - r.eval_pdf).abs() <= 2e-3 * pdf.max(1e-2),
            "{b:?}: cpu pdf {pdf} gpu {}",
            r.eval_pdf
        );
        let cpu = b.sample(wo, entering, u);
        let flags = cpu.map_or(0, |s| 1 | (u32::from(s.transmitted) << 1) | (u32::from(s.delta) << 2));
        if flags != r.flags {
            // A number on the edge between two choices may fall either way in float.
            decisions_differ += 1;
            continue;
        }
        if let Some(s) = cpu {
            assert!(
                close(s.wi, r.sample_wi, 2e-3),
                "{b:?}: cpu wi {} gpu {}",
                s.wi,
                r.sample_wi
            );
            assert!(
                close(s.weight, r.sample_weight, 5e-3),
                "{b:?}: weight {} gpu {}",
                s.weight,
                r.sample_weight
            );
        }
    }
    assert!(
        decisions_differ <= 8,
        "{decisions_differ} sampling decisions differ between CPU and GPU"
    );

    // The GPU's own samples against the density, case by case.
    for (b, wo, entering) in grid().into_iter().step_by(3) {
        let count = 100_000;
        let cases: Vec<_> = (0..count)
            .map(|_| (b, wo, entering, Vec3::Z, random_u(&mut rng)))
            .collect();
        let samples: Vec<BsdfSample> = run_probe(&gpu.context, &probe_cases(&cases))
            .iter()
            .filter(|r| r.flags & 1 != 0)
            .map(|r| BsdfSample {
                wi: r.sample_wi,
                weight: r.sample_weight,
                pdf: r.sample_pdf,
                transmitted: r.flags & 2 != 0,
                delta: r.flags & 4 != 0,
            })
            .collect();
        check_distribution(
            &format!("gpu {b:?} wo {wo} entering {entering}"),
            &b,
            wo,
            entering,
            &samples,
            count,
        );
    }
    gpu.finish();
}

#[test]
fn ggx_albedo_is_one_for_smooth_and_falls_with_roughness() {
    let smooth = wavetrace::bsdf::ggx_directional_albedo(0.7, 1e-3, 64);
    assert!((smooth - 1.0).abs() < 1e-3, "{smooth}");
    let mut last = 1.0;
    for roughness in [0.25f32, 0.5, 0.75, 1.0] {
        let albedo = wavetrace::bsdf::ggx_directional_albedo(0.5, roughness * roughness, 128);
        assert!(albedo < last && albedo > 0.3, "roughness {roughness}: {albedo}");
        last = albedo;
    }
}

#[test]
fn densities_integrate_to_one_where_no_sample_is_lost() {
    // A Lambertian (no specular layer) never loses a sample: its density integrates to 1.
    // GGX reflection loses only what its visible normals send below the horizon: at normal
    // incidence the share of microfacets tilted past 45 degrees, alpha^2 / (1 + alpha^2).
    let lambertian = Bsdf {
        specular: 0.0,
        ..material(0.0, 1.0, 0.0)
    };
    let metal = material(1.0, 0.4, 0.0);
    let lost = |b: &Bsdf| f64::from(b.alpha * b.alpha / (1.0 + b.alpha * b.alpha));
    for (b, degrees, expected) in [
        (lambertian, 40.0f32, 1.0),
        (lambertian, 80.0, 1.0),
        (metal, 0.0, 1.0 - lost(&metal)),
    ] {
        let theta = degrees.to_radians();
        let wo = Vec3::new(theta.sin(), 0.0, theta.cos());
        let integral: f64 = bin_probabilities(&b, wo, true).iter().sum();
        assert!(
            (integral - expected).abs() < 2e-3,
            "{b:?} at {degrees} degrees: the density integrates to {integral}, not {expected}"
        );
    }
}

#[test]
/// A smooth coat reflects its Fresnel share about its own normal as a delta, and what reaches
/// the base is what the coat lets through both ways: under a white furnace (every direction
/// lit alike) a coated white Lambertian gives back at most 1, and exactly the coat's share
/// plus the base's through it.
fn a_coat_reflects_its_fresnel_share_and_passes_the_rest_to_the_base() {
    let mut rng = SmallRng::seed_from_u64(10);
    let white = Bsdf {
        base_color: Vec3::ONE,
        specular: 0.0,
        ..material(0.0, 1.0, 0.0)
    };
    let tilt = 0.25f32;
    let varnish = coated(white, 1.0, 0.0, tilt);
    for degrees in [5.0f32, 45.0, 75.0] {
        let theta = degrees.to_radians();
        let wo = Vec3::new(theta.sin(), 0.0, theta.cos());
        let n = varnish.coat_normal;
        let mut coat = Vec3::ZERO;
        let mut base = Vec3::ZERO;
        let tries = 400_000;
        for _ in 0..tries {
            let Some(s) = varnish.sample(wo, true, random_u(&mut rng)) else {
                continue;
            };
            if s.delta {
                // The mirror direction about the coat's normal, not the shading normal.
                let mirrored = 2.0 * wo.dot(n) * n - wo;
                assert!((s.wi - mirrored).length() < 1e-5, "{s:?}");
                coat += s.weight;
            } else {
                base += s.weight;
            }
        }
        let (coat, base) = (coat / tries as f32, base / tries as f32);
        let fresnel = varnish.coat_fresnel(wo);
        assert!(
            (coat.x - fresnel).abs() < 5e-3,
            "{degrees} degrees: coat {coat} against F {fresnel}"
        );
        // The base: the cosine-weighted mean of what the coat lets through, (1 - F(wo)) times
        // the mean of 1 - F(wi) over the cosine lobe, by quadrature.
        let mut through = 0.0f64;
        let steps = 512;
        for i in 0..steps {
            for j in 0..steps / 4 {
                let u = glam::Vec2::new((i as f32 + 0.5) / steps as f32, (j as f32 + 0.5) / (steps / 4) as f32);
                let wi = wavetrace::bsdf::sample_cosine_local(u);
                through += f64::from(varnish.coat_transmittance(wo, wi));
            }
        }
        let through = through / f64::from(steps * steps / 4);
        assert!(
            (f64::from(base.x) - through).abs() < 5e-3,
            "{degrees} degrees: base {base} against {through}"
        );
        assert!(
            coat.x + base.x <= 1.0 + 5e-3,
            "{degrees} degrees: {coat} + {base} is more than 1"
        );
    }
}
