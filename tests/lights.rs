//! Light selection: the CPU reference (order, mirroring, sampling), the GPU flattening and
//! one-dispatch tree against it, and the shaders' sampler against the weights.

use crate::common;

use glam::{Mat4, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, Context};
use wavetrace::interface::{GpuLightEntry, LightProbePush};
use wavetrace::lights::emissive::{luminance, EmissiveTriangle, EmissiveTriangles};
use wavetrace::lights::flatten::NOT_A_LIGHT;
use wavetrace::lights::tree::{reference_tree, tree_probabilities};
use wavetrace::lights::{Leaves, LightSampler, LightSelection, LightTree, TreeLayout, TreeShape};
use wavetrace::scene::{GpuScene, Instance, Scene};

fn load(name: &str) -> Scene {
    common::load_scene(name)
}

fn assert_chi_square(counts: &[u64], probabilities: &[f64], draws: u64, what: &str) {
    let (chi2, bins) = common::chi_square(counts, probabilities, draws);
    let dof = (bins - 1) as f64;
    assert!(
        chi2 < dof + 5.0 * (2.0 * dof).sqrt(),
        "{what}: chi2 {chi2:.1} over {bins} bins"
    );
    assert!(bins > 50, "{what}: the test needs many bins to mean something: {bins}");
}

#[test]
fn cpu_reference_samples_by_power() {
    // 2,048 emitters over four decades of radiance: a chi-square test of 10^6 draws.
    let lights = EmissiveTriangles::build(&load("cornell-many-lights"));
    assert_eq!(lights.triangles.len(), 2048);
    let draws = 1_000_000u64;
    let mut counts = vec![0u64; lights.triangles.len()];
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..draws {
        counts[lights.sample(rng.random::<f64>()).unwrap()] += 1;
    }
    let probabilities: Vec<f64> = (0..counts.len()).map(|i| lights.probability(i)).collect();
    assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_chi_square(&counts, &probabilities, draws, "cpu cdf");
}

#[test]
fn front_faces_follow_mirrored_instances() {
    let mut scene = load("cornell-box");
    let before = EmissiveTriangles::build(&scene);
    let normal = |t: &EmissiveTriangle| (t.p1 - t.p0).cross(t.p2 - t.p0).normalize();
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

fn layout(block_levels: Option<u32>) -> TreeLayout {
    TreeLayout {
        block_levels,
        ..TreeLayout::default()
    }
}

/// Builds the tree and flat CDF of `weights` on the GPU; returns the shape, tree and CDF.
fn gpu_tree(context: &Context, weights: &[f32], layout: TreeLayout) -> (TreeShape, Vec<f32>, Vec<f32>) {
    let tree = LightTree::with_layout(context, weights.len() as u32, true, layout).unwrap();
    let buffer = Buffer::from_slice(context, "test weights", weights, BufferUsage::STORAGE).unwrap();
    context
        .run_once("light tree", |commands| {
            tree.record_build(commands, &Leaves::Weights(&buffer))?;
            tree.record_cdf(commands)
        })
        .unwrap();
    let shape = tree.shape().clone();
    let nodes = tree.tree().read_back::<f32>(context, shape.nodes() as usize).unwrap();
    let cdf = tree.cdf().unwrap().read_back::<f32>(context, weights.len()).unwrap();
    (shape, nodes, cdf)
}

/// Largest relative error of `gpu` against `exact`, failing beyond `tolerance` (so an exact 0
/// must be 0).
fn check_relative(gpu: &[f32], exact: &[f64], tolerance: f64, what: &str) -> f64 {
    assert_eq!(gpu.len(), exact.len(), "{what}");
    let mut worst = 0.0f64;
    for (i, (&g, &e)) in gpu.iter().zip(exact).enumerate() {
        let error = (f64::from(g) - e).abs();
        assert!(
            error <= tolerance * e,
            "{what}: entry {i} is {g}, float64 gives {e} (relative error {:e}, tolerance {tolerance:e})",
            error / e
        );
        if e > 0.0 {
            worst = worst.max(error / e);
        }
    }
    worst
}

/// Rounding bound for sums of non-negative floats in groups of `arity` over `levels` levels:
/// each level adds at most arity roundings of the partial sums it combines.
fn tolerance(shape: &TreeShape) -> f64 {
    (shape.level_sizes.len() as f64 + 1.0) * (f64::from(shape.arity) + 1.0) * f64::from(f32::EPSILON)
}

fn check_weights(context: &Context, weights: &[f32], layout: TreeLayout, what: &str) {
    let (shape, nodes, cdf) = gpu_tree(context, weights, layout);
    let exact: Vec<f64> = weights.iter().map(|&w| f64::from(w)).collect();
    let exact_tree = reference_tree(&exact, shape.arity);
    let tree_error = check_relative(&nodes, &exact_tree, tolerance(&shape), &format!("{what}: tree"));
    let mut running = 0.0;
    let exact_cdf: Vec<f64> = exact
        .iter()
        .map(|&w| {
            running += if w > 0.0 && w.is_finite() { w } else { 0.0 };
            running
        })
        .collect();
    let cdf_error = check_relative(&cdf, &exact_cdf, 2.0 * tolerance(&shape), &format!("{what}: cdf"));
    if weights.len() > 30_000 {
        eprintln!(
            "{what}: {} levels of arity {}, largest relative error: tree {tree_error:.2e}, flat cdf {cdf_error:.2e}",
            shape.level_sizes.len(),
            shape.arity
        );
    }
}

const AWKWARD_COUNTS: [u32; 18] = [
    1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 32767, 32768, 32769, 1_000_007,
];

/// Random weights; random weights with zeros and values the builder must treat as zero (NaN,
/// negative, infinite) among them; tiny weights with one huge one.
fn weight_patterns(count: u32, rng: &mut SmallRng) -> [(&'static str, Vec<f32>); 3] {
    let n = count as usize;
    let random: Vec<f32> = (0..n).map(|_| rng.random::<f32>()).collect();
    let invalid = [0.0, f32::NAN, -1.0, f32::INFINITY, 0.0, -0.0];
    let zeros: Vec<f32> = (0..n)
        .map(|i| {
            if i < 3 || i % 3 == 0 {
                invalid[i % invalid.len()]
            } else {
                rng.random::<f32>()
            }
        })
        .collect();
    let huge_at = rng.random_range(0..n);
    let huge: Vec<f32> = (0..n)
        .map(|i| {
            if i == huge_at {
                1e7
            } else {
                rng.random_range(1e-4f32..1e-3)
            }
        })
        .collect();
    [("random", random), ("zeros", zeros), ("one huge", huge)]
}

#[test]
fn tree_and_cdf_match_a_float64_scan_at_awkward_counts() {
    let gpu = common::gpu();
    let mut rng = SmallRng::seed_from_u64(11);
    for count in AWKWARD_COUNTS {
        for (pattern, weights) in weight_patterns(count, &mut rng) {
            check_weights(
                &gpu.context,
                &weights,
                TreeLayout::default(),
                &format!("{count} lights, {pattern}"),
            );
        }
    }
    gpu.finish();
}

#[test]
fn survivors_carry_the_tree_up_through_many_rounds() {
    // One and two levels per workgroup: up to seven rounds of hand-offs between workgroups
    // with a few thousand lights, where the default block needs millions for a third round.
    let gpu = common::gpu();
    let mut rng = SmallRng::seed_from_u64(12);
    // And threads holding 4 to 32 nodes each (workgroups of 1024 and 128 threads on lavapipe).
    let layouts = [(Some(1), None), (Some(2), None), (None, Some(1024)), (None, Some(128))];
    for (block_levels, workgroup) in layouts {
        for count in [1u32, 9, 65, 513, 4097, 32769, 100_003] {
            let layout = TreeLayout {
                block_levels,
                workgroup,
            };
            let weights: Vec<f32> = (0..count).map(|_| rng.random::<f32>()).collect();
            let what = format!("{count} lights, {layout:?}");
            check_weights(&gpu.context, &weights, layout, &what);
            // The counters reset themselves: a replay gives the same tree, bit for bit.
            let (_, first, _) = gpu_tree(&gpu.context, &weights, layout);
            let tree = LightTree::with_layout(&gpu.context, count, false, layout).unwrap();
            let buffer = Buffer::from_slice(&gpu.context, "test weights", &weights, BufferUsage::STORAGE).unwrap();
            for _ in 0..3 {
                gpu.context
                    .run_once("light tree", |commands| {
                        tree.record_build(commands, &Leaves::Weights(&buffer))
                    })
                    .unwrap();
                let again = tree.tree().read_back::<f32>(&gpu.context, first.len()).unwrap();
                assert!(
                    first.iter().zip(&again).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{what}: a rebuild changed the tree"
                );
            }
        }
    }
    gpu.finish();
}

#[test]
fn shapes_and_limits() {
    let shape = TreeShape::new(1_000_007, 32).unwrap();
    assert_eq!((shape.block_levels, shape.block, shape.workgroup), (2, 1024, 256));
    assert_eq!(shape.level_sizes, vec![1_000_007, 31_251, 977, 31, 1]);
    // Round 0 covers levels 0-1 and hands 977 block sums to round 1 (one block).
    assert_eq!(shape.counters, 1);
    let lavapipe = TreeShape::new(1_000_007, 8).unwrap();
    assert_eq!(
        (lavapipe.block_levels, lavapipe.block, lavapipe.workgroup),
        (4, 4096, 256)
    );
    let single = TreeShape::new(1, 32).unwrap();
    assert_eq!(
        (single.level_sizes.clone(), single.counters, single.nodes()),
        (vec![1], 0, 1)
    );
    let deep = TreeShape::with_layout(4097, 8, layout(Some(1))).unwrap();
    assert_eq!(deep.level_sizes, vec![4097, 513, 65, 9, 2, 1]);
    assert_eq!(deep.counters, 65 + 9 + 2 + 1);
    assert!(TreeShape::new(0, 32).is_err());
    assert!(TreeShape::new(5, 24).unwrap_err().contains("power of two"));
    assert!(TreeShape::with_layout(5, 32, layout(Some(9))).is_err());
    let narrow = TreeLayout {
        workgroup: Some(16),
        ..TreeLayout::default()
    };
    assert!(TreeShape::with_layout(5, 32, narrow)
        .unwrap_err()
        .contains("multiple of the subgroup size"));
}

/// `draws` choices by the shaders' sampler: (light, probability) each.
fn probe(context: &Context, selection: LightSelection, tree: &LightTree, count: u32, draws: u32) -> Vec<(u32, f32)> {
    let results = Buffer::gpu_storage(context, "probe results", u64::from(draws) * 8).unwrap();
    let pipeline = ComputePipeline::<LightProbePush>::new(context, ids::DIAGNOSTICS_LIGHT_SAMPLE_PROBE, &[]).unwrap();
    let push = LightProbePush {
        tree: tree.tree().address(),
        cdf: tree.cdf().map_or(0, Buffer::address),
        results: results.address(),
        count,
        selection: selection.code(),
        arity: tree.shape().arity,
        draws,
        seed: 5,
        pad0: 0,
    };
    common::run_probe(context, &pipeline, &push, draws);
    let raw: Vec<[u32; 2]> = results.read_back(context, draws as usize).unwrap();
    raw.iter().map(|&[light, bits]| (light, f32::from_bits(bits))).collect()
}

/// Relative error bound of a light's probability from float32 prefix sums: a node's share is
/// the difference of two prefixes of its sibling group, so its rounding is relative to the
/// group's total, not to the share: dim lights next to bright siblings lose digits. Summed
/// over the ancestors' groups (from the float64 tree `exact`), times the roundings per sum.
fn share_error_bound(exact: &[f64], shape: &TreeShape, leaf: usize) -> f64 {
    let arity = shape.arity as usize;
    let mut node = leaf;
    let mut condition = 0.0;
    for level in 0..shape.level_sizes.len() - 1 {
        let offset = shape.level_offset(level) as usize;
        let size = shape.level_sizes[level] as usize;
        let first = node - node % arity;
        let last = (first + arity).min(size) - 1;
        let before = if node > first { exact[offset + node - 1] } else { 0.0 };
        condition += exact[offset + last] / (exact[offset + node] - before);
        node /= arity;
    }
    4.0 * (f64::from(shape.arity) + 1.0) * f64::from(f32::EPSILON) * condition.max(1.0)
}

#[test]
fn shader_sampling_follows_the_weights() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(13);
    // Four decades, a tenth of them zero, one light far brighter than the rest.
    let count = 3001u32;
    let mut weights: Vec<f32> = (0..count)
        .map(|i| {
            if i % 10 == 3 {
                0.0
            } else {
                10f32.powf(rng.random_range(-2.0..2.0))
            }
        })
        .collect();
    weights[1234] = 1e4;
    let exact: Vec<f64> = weights.iter().map(|&w| f64::from(w)).collect();
    let total: f64 = exact.iter().sum();
    let expected: Vec<f64> = exact.iter().map(|w| w / total).collect();
    let tree = LightTree::new(context, count, true).unwrap();
    let buffer = Buffer::from_slice(context, "test weights", &weights, BufferUsage::STORAGE).unwrap();
    context
        .run_once("light tree", |commands| {
            tree.record_build(commands, &Leaves::Weights(&buffer))?;
            tree.record_cdf(commands)
        })
        .unwrap();
    let stored: Vec<f32> = tree.tree().read_back(context, tree.shape().nodes() as usize).unwrap();
    let from_tree = tree_probabilities(&stored, tree.shape());

    let exact_tree = reference_tree(&exact, tree.shape().arity);
    let exact_cdf: Vec<f64> = exact
        .iter()
        .scan(0.0, |running, w| {
            *running += w;
            Some(*running)
        })
        .collect();
    let draws = 1_000_000u32;
    for selection in [LightSelection::Tree, LightSelection::Cdf, LightSelection::Uniform] {
        let uniform = selection == LightSelection::Uniform;
        let probabilities = if uniform {
            vec![1.0 / f64::from(count); count as usize]
        } else {
            expected.clone()
        };
        let mut counts = vec![0u64; count as usize];
        for (light, probability) in probe(context, selection, &tree, count, draws) {
            let light = light as usize;
            assert!(light < count as usize, "{selection:?}: drew {light}");
            counts[light] += 1;
            let p = f64::from(probability);
            let bound = match selection {
                LightSelection::Uniform => f64::from(f32::EPSILON),
                LightSelection::Tree => share_error_bound(&exact_tree, tree.shape(), light),
                // A difference of two flat CDF entries: rounding relative to the running sum.
                _ => 4.0 * tolerance(tree.shape()) * exact_cdf[light] / exact[light],
            };
            assert!(
                (p - probabilities[light]).abs() <= bound * probabilities[light],
                "{selection:?}: light {light} drawn with probability {p}, its weight gives {}",
                probabilities[light]
            );
            if selection == LightSelection::Tree {
                // The shader's product of shares equals the stored tree's, up to float32.
                assert!((p - from_tree[light]).abs() <= 1e-6 * from_tree[light]);
            }
        }
        if !uniform {
            for (i, &w) in weights.iter().enumerate() {
                assert!(w > 0.0 || counts[i] == 0, "{selection:?}: zero-weight light {i} drawn");
            }
        }
        assert_chi_square(&counts, &probabilities, u64::from(draws), &format!("{selection:?}"));
    }
    gpu.finish();
}

/// The Cornell box with many lights, made harder: two lights also placed again through a
/// mirroring and a scaling transform, and a wall that starts to glow.
fn awkward_light_scene() -> Scene {
    let mut scene = load("cornell-many-lights");
    let lights: Vec<Instance> = scene
        .instances
        .iter()
        .filter(|i| luminance(scene.materials[scene.meshes[i.mesh as usize].material as usize].emission) > 0.0)
        .take(2)
        .cloned()
        .collect();
    scene.instances.push(Instance {
        world_from_object: Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0)) * lights[0].world_from_object,
        node: "mirrored light".into(),
        ..lights[0].clone()
    });
    scene.instances.insert(
        1,
        Instance {
            world_from_object: Mat4::from_translation(Vec3::new(0.1, -0.3, 0.2))
                * Mat4::from_scale(Vec3::new(2.0, 1.0, 0.5))
                * lights[1].world_from_object,
            node: "scaled light".into(),
            ..lights[1].clone()
        },
    );
    let wall = scene.meshes[scene.instances[0].mesh as usize].material as usize;
    scene.materials[wall].emission = Vec3::new(0.01, 0.02, 0.005);
    scene
}

#[test]
fn flattening_and_leaf_weights_match_the_cpu() {
    let gpu = common::gpu();
    let context = &gpu.context;
    for scene in [load("cornell-many-lights"), awkward_light_scene()] {
        let cpu = EmissiveTriangles::build(&scene);
        let gpu_scene = GpuScene::upload(context, &scene).unwrap();
        let sampler = LightSampler::new(context, &scene, &gpu_scene, LightSelection::Cdf, false).unwrap();
        assert_eq!(sampler.light_count() as usize, cpu.triangles.len());
        context
            .run_once("lights", |commands| {
                sampler.record_flatten(commands, None)?;
                sampler.record_build(commands, &gpu_scene, None)
            })
            .unwrap();
        let map: Vec<GpuLightEntry> = sampler
            .flattening()
            .map
            .read_back(context, cpu.triangles.len())
            .unwrap();
        for (light, (entry, t)) in map.iter().zip(&cpu.triangles).enumerate() {
            let mesh = scene.instances[t.instance as usize].mesh as usize;
            let range = gpu_scene.meshes.ranges[mesh];
            let expected = GpuLightEntry {
                instance: t.instance,
                first_vertex: range.first_vertex,
                first_index: range.first_index + 3 * t.triangle,
                material: scene.meshes[mesh].material,
            };
            assert_eq!(*entry, expected, "light {light}");
        }
        let first_lights: Vec<u32> = sampler
            .flattening()
            .instance_light_offset
            .read_back(context, scene.instances.len())
            .unwrap();
        for (instance, &first) in first_lights.iter().enumerate() {
            let expected = cpu
                .triangles
                .iter()
                .position(|t| t.instance == instance as u32)
                .map_or(NOT_A_LIGHT, |p| p as u32);
            assert_eq!(first, expected, "first light of instance {instance}");
        }
        let tree = sampler.tree().unwrap();
        let cdf: Vec<f32> = tree.cdf().unwrap().read_back(context, cpu.triangles.len()).unwrap();
        // Leaf weights in float32 from transformed corners: a few ulps each on top of the sums.
        let worst = check_relative(&cdf, &cpu.cdf, 2.0 * tolerance(tree.shape()) + 1e-5, "scene cdf");
        eprintln!(
            "{} lights: flat cdf within {worst:.2e} of the CPU's float64",
            cpu.triangles.len()
        );
    }
    gpu.finish();
}
