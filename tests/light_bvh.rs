//! The light BVH: the radix sort under it against a stable CPU sort, the GPU build against
//! its CPU twin on random emitter sets of awkward sizes, the sampler against the probabilities
//! the tree reports (chi-square), hit probabilities against sampling probabilities, which
//! lights can and cannot be chosen, and the tree's quality against a CPU SAOH build.

use crate::common;

use glam::{Mat4, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, Context, DispatchSize};
use wavetrace::interface::RADIX_TILE;
use wavetrace::interface::{GpuLightBvhNode, GpuLightBvhProbePoint, LightBvhProbePush};
use wavetrace::lights::bvh::importance::{probabilities, structure_problem, LightContext};
use wavetrace::lights::bvh::reference;
use wavetrace::lights::bvh::{saoh, LightBvh};
use wavetrace::lights::{LightSampler, LightSelection};
use wavetrace::primitives::radix_sort::DIRECT_TILES;
use wavetrace::primitives::{RadixArrays, RadixSort, SortedPairs};
use wavetrace::scene::{GpuScene, Instance, Material, Mesh, PunctualKind, PunctualLight, Scene};

const AWKWARD_SIZES: [usize; 6] = [1, 2, 31, 33, 1000, 100_007];

#[test]
fn radix_sort_is_a_stable_sort() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(3);
    // Up to 64 tiles of 2048 keys the scatter sums the count table itself; past it (200,001
    // keys: 98 tiles) a scan pass gives it each tile's offsets.
    let longest = 200_001;
    assert!(longest > (DIRECT_TILES * RADIX_TILE) as usize);
    let sort = RadixSort::new(context, longest as u32).unwrap();
    for count in [1usize, 2, 31, 33, 1000, 2047, 2049, 100_007, 131_072, longest] {
        // Keys of four digits end in the caller's arrays, keys of three in the sort's own
        // (`sorted_buffers` says which).
        for (key_range, key_bits) in [(4u32, 30), (1 << 30, 30), (4, 24), (1 << 24, 24)] {
            let keys: Vec<u32> = (0..count).map(|_| rng.random_range(0..key_range)).collect();
            let values: Vec<u32> = (0..count as u32).collect();
            let key_buffer = Buffer::from_slice(context, "keys", &keys, BufferUsage::STORAGE).unwrap();
            let value_buffer = Buffer::from_slice(context, "values", &values, BufferUsage::STORAGE).unwrap();
            context
                .run_once("radix sort", |commands| {
                    sort.record(
                        commands,
                        &RadixArrays {
                            keys: key_buffer.address(),
                            values: value_buffer.address(),
                            count: count as u32,
                            key_bits,
                        },
                    )?;
                    commands.compute_barrier();
                    Ok(())
                })
                .unwrap();
            let mut expected: Vec<(u32, u32)> = keys.iter().copied().zip(values).collect();
            expected.sort_by_key(|&(key, _)| key);
            let lands = if key_bits == 24 {
                SortedPairs::InOwn
            } else {
                SortedPairs::InCallers
            };
            assert_eq!(RadixSort::sorted_pairs(key_bits), lands);
            let (key_result, value_result) = sort.sorted_buffers(key_bits, &key_buffer, &value_buffer);
            let sorted_keys: Vec<u32> = key_result.read_back(context, count).unwrap();
            let sorted_values: Vec<u32> = value_result.read_back(context, count).unwrap();
            let got: Vec<(u32, u32)> = sorted_keys.into_iter().zip(sorted_values).collect();
            assert_eq!(got, expected, "{count} keys of {key_bits} bits below {key_range}");
        }
    }
    gpu.finish();
}

/// A scene of `count` lights: random triangles of mixed power, size and orientation (some
/// mirrored by their instance, a few degenerate or dark), then point, spot and directional
/// lights when there is room.
fn random_emitters(count: usize, seed: u64) -> Scene {
    random_emitters_at(count, seed, 0)
}

/// As `random_emitters`, with the triangles' centres drawn from `spots` random points when it
/// is not zero: long runs of equal keys, which the build orders by position.
fn random_emitters_at(count: usize, seed: u64, spots: usize) -> Scene {
    let mut rng = SmallRng::seed_from_u64(seed);
    let spot_centres: Vec<Vec3> = (0..spots)
        .map(|_| Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0)
        .collect();
    let punctual = if count >= 31 { 5 } else { 0 };
    let triangles = count - punctual;
    let powers = [1e-3f32, 1.0, 30.0, 1000.0, 0.0];
    let materials: Vec<Material> = powers
        .iter()
        .map(|&p| Material {
            name: format!("emits {p}"),
            emission: Vec3::new(p, 0.8 * p, 0.5 * p),
            ..Material::default()
        })
        .collect();
    let mut meshes: Vec<Mesh> = (0..powers.len())
        .map(|m| Mesh {
            name: format!("lights {m}"),
            positions: Vec::new(),
            normals: None,
            uvs: None,
            second_uvs: None,
            tangents: None,
            colors: None,
            indices: Vec::new(),
            material: m as u32,
        })
        .collect();
    for t in 0..triangles {
        let mesh = &mut meshes[if t % 97 == 96 { 4 } else { rng.random_range(0..4) }];
        let (centre, size) = if spots == 0 {
            let centre = Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0;
            (centre, 10f32.powf(rng.random_range(-3.0..-0.5)))
        } else {
            (spot_centres[rng.random_range(0..spots)], 1e-5)
        };
        let first = mesh.positions.len() as u32;
        for _ in 0..3 {
            let offset = Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5;
            mesh.positions.push(centre + offset * size);
        }
        // Now and then a degenerate triangle: a light of no area.
        if t % 89 == 7 {
            mesh.positions[first as usize + 2] = mesh.positions[first as usize];
        }
        mesh.indices.extend_from_slice(&[first, first + 1, first + 2]);
    }
    let instances = vec![
        Instance {
            mesh: 0,
            world_from_object: Mat4::IDENTITY,
            node: "0".into(),
        },
        Instance {
            mesh: 1,
            world_from_object: Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0)),
            node: "mirrored".into(),
        },
        Instance {
            mesh: 2,
            world_from_object: Mat4::from_translation(Vec3::new(0.1, 0.2, 0.0)),
            node: "moved".into(),
        },
        Instance {
            mesh: 3,
            world_from_object: Mat4::IDENTITY,
            node: "3".into(),
        },
        Instance {
            mesh: 4,
            world_from_object: Mat4::IDENTITY,
            node: "dark".into(),
        },
    ];
    let kinds = [
        PunctualKind::Point,
        PunctualKind::Spot { inner: 0.3, outer: 0.6 },
        PunctualKind::Directional,
        PunctualKind::Spot { inner: 0.0, outer: 1.2 },
        PunctualKind::Point,
    ];
    let lights = kinds[..punctual]
        .iter()
        .map(|&kind| PunctualLight {
            name: format!("{kind:?}"),
            kind,
            position: Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0,
            direction: Vec3::new(rng.random(), rng.random(), rng.random()).normalize_or(Vec3::NEG_Y) * -1.0,
            intensity: Vec3::splat(rng.random_range(1.0..50.0)),
            range: None,
        })
        .collect();
    Scene {
        source: format!("{count} random emitters").into(),
        meshes,
        instances,
        materials,
        textures: Vec::new(),
        lights,
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The scene's light sampler with its GPU-built BVH, after a build and a rebuild (as every
/// pass of `--rebuild-lights` does): the second must find the sort's count tables as empty as
/// the first, which the build's own kernels see to.
fn built(context: &Context, scene: &Scene) -> (GpuScene, LightSampler) {
    let gpu_scene = GpuScene::upload(context, scene).unwrap();
    let sampler = LightSampler::new(context, scene, &gpu_scene, LightSelection::Bvh, false).unwrap();
    for _ in 0..2 {
        context
            .run_once("light bvh", |commands| {
                sampler.record_flatten(commands, None)?;
                sampler.record_build(commands, &gpu_scene, None)
            })
            .unwrap();
    }
    (gpu_scene, sampler)
}

fn close(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
}

/// Children, power and bounds as the CPU has them (bounds only where there is power: a dark
/// node's bounds are whatever its lit sibling's were).
fn assert_power_and_bounds_match(gpu: &GpuLightBvhNode, cpu: &GpuLightBvhNode, what: &str) {
    assert_eq!(gpu.children, cpu.children, "{what}");
    assert!(
        close(gpu.power, cpu.power, 1e-4),
        "{what}: power {} vs {}",
        gpu.power,
        cpu.power
    );
    if cpu.power > 0.0 {
        for (g, c) in [(gpu.lower, cpu.lower), (gpu.upper, cpu.upper)] {
            assert!(
                (g - c).abs().max_element() <= 1e-5 * c.abs().max_element().max(1.0),
                "{what}: {g} vs {c}"
            );
        }
    }
}

/// `behind` from bounds and cones that agree to their tolerances: the cone's margin moves it
/// by up to the cone's angle difference times the box's size.
fn assert_behind_matches(gpu: &GpuLightBvhNode, cpu: &GpuLightBvhNode, what: &str) {
    let scale = (0.5 * (cpu.upper - cpu.lower)).length() + cpu.lower.abs().max(cpu.upper.abs()).max_element();
    assert!(
        gpu.behind == cpu.behind || (gpu.behind - cpu.behind).abs() <= 5e-3 * scale + 1e-5,
        "{what}: behind {} vs {}",
        gpu.behind,
        cpu.behind
    );
}

fn assert_leaf_matches(gpu: &GpuLightBvhNode, cpu: &GpuLightBvhNode, what: &str) {
    assert_power_and_bounds_match(gpu, cpu, what);
    assert_behind_matches(gpu, cpu, what);
    if cpu.power > 0.0 {
        assert!(
            gpu.axis.dot(cpu.axis) > 1.0 - 1e-5,
            "{what}: axis {} vs {}",
            gpu.axis,
            cpu.axis
        );
        assert_eq!(gpu.cos_theta_o, cpu.cos_theta_o, "{what}");
        // acos and cos of the spot cone on the GPU: its own rounding.
        assert!(
            close(gpu.cos_theta_e, cpu.cos_theta_e, 1e-3),
            "{what}: {} vs {}",
            gpu.cos_theta_e,
            cpu.cos_theta_e
        );
    }
}

fn assert_node_matches(gpu: &GpuLightBvhNode, cpu: &GpuLightBvhNode, what: &str) {
    assert_power_and_bounds_match(gpu, cpu, what);
    assert_behind_matches(gpu, cpu, what);
    assert_eq!(gpu.split, cpu.split, "{what}: split");
    if cpu.power > 0.0 {
        // Cone merges take acos and cos: float rounding on the GPU's versions of both.
        let angle = |c: f32| c.clamp(-1.0, 1.0).acos();
        assert!(
            (angle(gpu.cos_theta_o) - angle(cpu.cos_theta_o)).abs() < 2e-3,
            "{what}: cone {} vs {}",
            gpu.cos_theta_o,
            cpu.cos_theta_o
        );
        // The axis of a wide cone is a rotation by a difference of such angles: looser.
        if cpu.cos_theta_o > -1.0 {
            assert!(
                gpu.axis.dot(cpu.axis) > (1e-2f32).cos(),
                "{what}: axis {} vs {}",
                gpu.axis,
                cpu.axis
            );
        }
        assert_eq!(gpu.cos_theta_e, cpu.cos_theta_e, "{what}");
    }
}

#[test]
fn gpu_build_matches_its_cpu_twin_on_awkward_sizes() {
    let gpu = common::gpu();
    let context = &gpu.context;
    // Then lights gathered at a few spots: runs of equal keys (a run a spot and direction
    // bucket) longer than the climb's workgroups, split by their places in the sorted order.
    let scenes = AWKWARD_SIZES
        .iter()
        .enumerate()
        .map(|(seed, &count)| random_emitters(count, seed as u64))
        .chain([random_emitters_at(3000, 7, 1), random_emitters_at(20_011, 8, 4)]);
    for scene in scenes {
        let (_gpu_scene, sampler) = built(context, &scene);
        let bvh = sampler.bvh().expect("a GPU-built BVH");
        // Leaves: each light's bounds, cone and power from the scene's geometry (the
        // triangles of the material that emits nothing are no lights at all).
        let cpu_leaves = reference::scene_leaves(&scene, &scene.lights, bvh.keys());
        let count = cpu_leaves.len();
        assert_eq!(bvh.count() as usize, count);
        let gpu_leaves: Vec<GpuLightBvhNode> = bvh.leaves().read_back(context, count).unwrap();
        for (light, (g, c)) in gpu_leaves.iter().zip(&cpu_leaves).enumerate() {
            assert_leaf_matches(g, c, &format!("{count} lights, leaf {light}"));
        }
        // Keys: sorted, stably, each the CPU's key of the GPU's leaf but where the leaf's centre
        // lies on a cell boundary within the rounding of the two sides' arithmetic.
        let sorted_keys: Vec<u32> = bvh.sorted_keys().read_back(context, count).unwrap();
        let order: Vec<u32> = bvh.order().read_back(context, count).unwrap();
        let mut seen = vec![false; count];
        for (k, &light) in order.iter().enumerate() {
            assert!(
                !std::mem::replace(&mut seen[light as usize], true),
                "{count} lights: {light} twice"
            );
            if k > 0 {
                let earlier = (sorted_keys[k - 1], order[k - 1]);
                assert!(
                    earlier < (sorted_keys[k], light),
                    "{count} lights: not a stable sort at {k}"
                );
            }
        }
        let other_cell = order
            .iter()
            .zip(&sorted_keys)
            .filter(|&(&light, &key)| reference::sort_key(&gpu_leaves[light as usize], bvh.keys()) != key)
            .count();
        assert!(
            other_cell * 1000 <= count,
            "{count} lights: {other_cell} keys differ from the CPU's"
        );
        // Shape and bounds: the CPU's linking and merging of the same sorted leaves.
        let expected = reference::link(&gpu_leaves, &sorted_keys, &order);
        let tree = bvh.read_back(context).unwrap();
        assert_eq!(tree.parents, expected.parents, "{count} lights: parents");
        assert_eq!(tree.leaf_of, expected.leaf_of, "{count} lights: leaves");
        for (node, (g, c)) in tree.nodes.iter().zip(&expected.nodes).enumerate() {
            assert_node_matches(g, c, &format!("{count} lights, node {node}"));
        }
        assert_eq!(structure_problem(&tree), None, "{count} lights");
        // The whole pipeline on the CPU gives the same tree up to leaves whose centre lies on
        // a Morton cell boundary within float rounding.
        let cpu_tree = reference::build(&cpu_leaves, bvh.keys());
        let same_leaf = tree
            .leaf_of
            .iter()
            .zip(&cpu_tree.leaf_of)
            .filter(|(a, b)| a == b)
            .count();
        assert!(
            same_leaf as f64 >= 0.999 * count as f64,
            "{count} lights: {same_leaf} leaves in place"
        );
    }
    gpu.finish();
}

/// Shading points around the emitters: random positions with random normals, one without a
/// normal, and one by power alone.
fn shading_points(rng: &mut SmallRng) -> Vec<LightContext> {
    let mut points: Vec<LightContext> = (0..3)
        .map(|_| LightContext {
            point: Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0,
            normal: (Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5).normalize(),
            spatial: true,
        })
        .collect();
    points.push(LightContext {
        point: Vec3::new(0.3, -0.2, 0.1),
        normal: Vec3::ZERO,
        spatial: true,
    });
    points.push(LightContext {
        point: Vec3::ZERO,
        normal: Vec3::ZERO,
        spatial: false,
    });
    points
}

struct Probe {
    /// Per point: (light or !0, the probability the sampler reported), per draw.
    choices: Vec<Vec<(u32, f32)>>,
    /// Per point: every light's probability from light_bvh_probability.
    probabilities: Vec<Vec<f32>>,
}

fn probe(context: &Context, bvh: &LightBvh, points: &[LightContext], draws: u32) -> Probe {
    let lights = bvh.count();
    let records: Vec<GpuLightBvhProbePoint> = points
        .iter()
        .map(|p| GpuLightBvhProbePoint {
            position: p.point,
            normal: p.normal,
            ..GpuLightBvhProbePoint::default()
        })
        .collect();
    let n = points.len() as u64;
    let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes).unwrap();
    let point_buffer = Buffer::from_slice(context, "points", &records, BufferUsage::STORAGE).unwrap();
    let choices = storage("choices", n * u64::from(draws) * 8);
    let probability_buffer = storage("probabilities", n * u64::from(lights) * 4);
    let pipeline = ComputePipeline::<LightBvhProbePush>::new(context, ids::DIAGNOSTICS_LIGHT_BVH_PROBE, &[]).unwrap();
    // One dispatch per kind of context: `spatial` is per dispatch.
    let mut result = Probe {
        choices: Vec::new(),
        probabilities: Vec::new(),
    };
    for (index, point) in points.iter().enumerate() {
        let push = LightBvhProbePush {
            nodes: bvh.nodes().address(),
            leaf_of: bvh.leaf_of().address(),
            points: point_buffer.address() + index as u64 * std::mem::size_of::<GpuLightBvhProbePoint>() as u64,
            choices: choices.address(),
            probabilities: probability_buffer.address(),
            lights,
            draws,
            seed: 17 + index as u32,
            spatial: u32::from(point.spatial),
            points_count: 1,
            pad0: 0,
        };
        let threads = u64::from(draws.max(lights));
        let groups = threads.div_ceil(u64::from(wavetrace::interface::PROBE_GROUP));
        let grid = DispatchSize::covering(groups, 65535).unwrap();
        context
            .run_once("light bvh probe", |commands| {
                commands.dispatch(&pipeline, &push, grid);
                Ok(())
            })
            .unwrap();
        let raw: Vec<[u32; 2]> = choices.read_back(context, draws as usize).unwrap();
        result
            .choices
            .push(raw.iter().map(|&[l, p]| (l, f32::from_bits(p))).collect());
        result
            .probabilities
            .push(probability_buffer.read_back(context, lights as usize).unwrap());
    }
    result
}

#[test]
fn sampling_follows_the_probabilities_the_tree_reports() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(5);
    for (count, seed) in [(33usize, 1u64), (1000, 2)] {
        let scene = random_emitters(count, seed);
        let (_gpu_scene, sampler) = built(context, &scene);
        let bvh = sampler.bvh().unwrap();
        let count = bvh.count() as usize;
        let tree = bvh.read_back(context).unwrap();
        let points = shading_points(&mut rng);
        let draws = 1_000_000 / points.len() as u32;
        let probe = probe(context, bvh, &points, draws);
        for (p, point) in points.iter().enumerate() {
            let reported = &probe.probabilities[p];
            // The last bin: no light, where the descent reaches a node whose children's
            // tighter bounds both rule the point out (the parent's did not).
            let mut counts = vec![0u64; count + 1];
            for &(light, probability) in &probe.choices[p] {
                if light as usize >= count {
                    counts[count] += 1;
                    continue;
                }
                counts[light as usize] += 1;
                // The MIS weight of a hit on this light uses exactly the sampler's number.
                assert_eq!(
                    probability, reported[light as usize],
                    "{count} lights, point {p}, light {light}"
                );
            }
            let mut as_f64: Vec<f64> = reported.iter().map(|&x| f64::from(x)).collect();
            let total: f64 = as_f64.iter().sum();
            assert!(
                total <= 1.0 + 1e-5,
                "{count} lights, point {p}: probabilities sum to {total}"
            );
            if !point.spatial {
                assert!(
                    (total - 1.0).abs() < 1e-5,
                    "{count} lights, by power: probabilities sum to {total}"
                );
            }
            as_f64.push((1.0 - total).max(0.0));
            let (chi2, bins) = common::chi_square(&counts, &as_f64, u64::from(draws));
            let dof = bins.saturating_sub(1).max(1) as f64;
            assert!(
                chi2 < dof + 5.0 * (2.0 * dof).sqrt(),
                "{count} lights, point {p}: chi2 {chi2} over {bins} bins"
            );
            // The CPU twin of the importance agrees.
            let cpu = probabilities(&tree, point);
            for (light, (&g, &c)) in as_f64[..count].iter().zip(&cpu).enumerate() {
                assert!(
                    (g - c).abs() <= 1e-3 * c.max(1e-4),
                    "{count} lights, point {p}, light {light}: {g} vs {c}"
                );
            }
        }
    }
    gpu.finish();
}

/// Whether any part of triangle `v` lies strictly above the receiver's plane while the
/// receiver lies strictly in front of the triangle: what it takes to send it light.
fn can_light(v: [Vec3; 3], point: Vec3, normal: Vec3) -> bool {
    let front = (v[1] - v[0]).cross(v[2] - v[0]);
    v.iter().any(|&c| (c - point).dot(normal) > 1e-4) && (point - v[0]).dot(front) > 1e-6 * front.length()
}

#[test]
fn lights_that_can_send_light_are_reachable_and_lights_behind_are_not() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(9);
    let scene = random_emitters(1000, 4);
    let (_gpu_scene, sampler) = built(context, &scene);
    let bvh = sampler.bvh().unwrap();
    let triangles = wavetrace::lights::emissive::EmissiveTriangles::build(&scene);
    let points: Vec<LightContext> = (0..6)
        .map(|_| LightContext {
            point: Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0,
            normal: (Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5).normalize(),
            spatial: true,
        })
        .collect();
    let probe = probe(context, bvh, &points, 1);
    let tree = bvh.read_back(context).unwrap();
    let cpu: Vec<Vec<f64>> = points.iter().map(|point| probabilities(&tree, point)).collect();
    let (mut reachable, mut behind) = (0, 0);
    for (p, point) in points.iter().enumerate() {
        for (light, t) in triangles.triangles.iter().enumerate() {
            let probability = probe.probabilities[p][light];
            let v = [t.p0, t.p1, t.p2];
            // A light whose share at some node is below float resolution next to its
            // sibling's cannot be drawn by a float32 number (nor does its MIS weight count
            // it): BSDF sampling alone carries it, unbiased.
            if t.weight() > 0.0 && can_light(v, point.point, point.normal) && cpu[p][light] > 1e-6 {
                assert!(
                    probability > 0.0,
                    "point {p}: light {light} can send light but is never chosen"
                );
                reachable += 1;
            }
            // The bound sees a light's box, not its triangle: a light is ruled out when its
            // whole box is behind (always so for an axis-aligned light).
            let (lower, upper) = (t.p0.min(t.p1.min(t.p2)), t.p0.max(t.p1.max(t.p2)));
            let reach = ((lower + upper) * 0.5 - point.point).dot(point.normal)
                + ((upper - lower) * 0.5).dot(point.normal.abs());
            if reach < -1e-5 {
                // What the GPU's leaf holds, for a failure's diagnosis: its box may differ from
                // the CPU's triangle box.
                let leaf = &tree.nodes[tree.leaf_of[light] as usize];
                let gpu_reach = ((leaf.lower + leaf.upper) * 0.5 - point.point).dot(point.normal)
                    + ((leaf.upper - leaf.lower) * 0.5).dot(point.normal.abs());
                assert_eq!(
                    probability, 0.0,
                    "point {p} ({point:?}): light {light} lies behind the surface (reach {reach}; the GPU leaf's \
                     {gpu_reach}: {leaf:?}; triangle {v:?}; CPU twin's probability {})",
                    cpu[p][light]
                );
                behind += 1;
            }
        }
    }
    assert!(
        reachable > 1000 && behind > 1000,
        "{reachable} reachable, {behind} behind"
    );
    gpu.finish();
}

#[test]
fn morton_tree_quality_against_a_cpu_saoh_build() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-many-lights");
    let (_gpu_scene, sampler) = built(context, &scene);
    let bvh = sampler.bvh().unwrap();
    let gpu_tree = bvh.read_back(context).unwrap();
    let leaves = reference::scene_leaves(&scene, &scene.lights, bvh.keys());
    let saoh_tree = saoh::build(&leaves);
    assert_eq!(structure_problem(&saoh_tree), None);
    let (gpu_cost, saoh_cost) = (saoh::tree_cost(&gpu_tree), saoh::tree_cost(&saoh_tree));
    eprintln!(
        "cornell-many-lights: SAOH cost of the GPU (Morton) tree {gpu_cost:.3}, of the CPU SAOH tree {saoh_cost:.3}"
    );
    // The heuristic's own tree is at least as good by its own measure; the Morton tree is
    // within a small factor of it (docs/LIGHTS.md has the figures).
    assert!(saoh_cost <= gpu_cost * 1.01, "{saoh_cost} vs {gpu_cost}");
    assert!(gpu_cost <= 2.0 * saoh_cost, "{gpu_cost} vs {saoh_cost}");
    gpu.finish();
}

/// A scene of one emissive mesh of the given triangles (each emits to the side its winding
/// faces).
fn emitter_scene(triangles: &[[Vec3; 3]], what: &str) -> Scene {
    let mut mesh = Mesh {
        name: what.into(),
        positions: Vec::new(),
        normals: None,
        uvs: None,
        second_uvs: None,
        tangents: None,
        colors: None,
        indices: Vec::new(),
        material: 0,
    };
    for t in triangles {
        let first = mesh.positions.len() as u32;
        mesh.positions.extend_from_slice(t);
        mesh.indices.extend_from_slice(&[first, first + 1, first + 2]);
    }
    Scene {
        source: what.into(),
        meshes: vec![mesh],
        instances: vec![Instance {
            mesh: 0,
            world_from_object: Mat4::IDENTITY,
            node: "lights".into(),
        }],
        materials: vec![Material {
            name: "emits".into(),
            emission: Vec3::splat(5.0),
            ..Material::default()
        }],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A small triangle centred at `centre` in the plane spanned by `u` and `v`, facing u x v.
fn small_triangle(centre: Vec3, u: Vec3, v: Vec3, size: f32) -> [Vec3; 3] {
    [centre - (u + v) * size, centre + u * size, centre + v * size]
}

#[test]
fn lights_facing_one_way_keep_a_narrow_cone_up_the_tree() {
    // Triangles of one plane whose normal is no axis: their normals, normalised on the GPU,
    // are parallel but round to different lengths (0.70710677 or 0.7071068 a component), and
    // two parallel axes have no common perpendicular. A cone union that took them for the
    // whole sphere lost the cluster's orientation; on the H100 it did so for a third of the
    // nodes of a room lit from its walls (whose normals its reciprocal square root rounds).
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(21);
    let facing = Vec3::new(1.0, 1.0, 0.0).normalize();
    // Corners on a grid of 1/64 and edges of whole multiples of 2^-20, so that every edge is
    // exact and each normal is (m k, m k, 0): exactly parallel, its length rounded per light.
    let step = |range: std::ops::Range<u32>, rng: &mut SmallRng| rng.random_range(range) as f32 / (1 << 20) as f32;
    let triangles: Vec<[Vec3; 3]> = (0..2000)
        .map(|_| {
            let a = rng.random_range(-128..192) as f32 / 64.0;
            let corner = Vec3::new(a, 1.0 - a, rng.random_range(-128..128) as f32 / 64.0);
            let (m, k) = (step(10_000..40_000, &mut rng), step(10_000..40_000, &mut rng));
            [corner, corner + Vec3::new(0.0, 0.0, m), corner + Vec3::new(k, -k, 0.0)]
        })
        .collect();
    let scene = emitter_scene(&triangles, "lights in a plane facing (1, 1, 0)");
    let (_gpu_scene, sampler) = built(context, &scene);
    let tree = sampler.bvh().unwrap().read_back(context).unwrap();
    let widest = tree
        .nodes
        .iter()
        .map(|n| n.cos_theta_o.clamp(-1.0, 1.0).acos())
        .fold(0.0f32, f32::max);
    let leaf_axes = tree.nodes[tree.nodes.len() / 2..]
        .iter()
        .map(|n| n.axis.to_array().map(f32::to_bits))
        .collect::<std::collections::HashSet<_>>()
        .len();
    assert!(
        widest < 1e-3,
        "a cone of {widest} rad over lights that all face {facing} ({leaf_axes} distinct leaf axes)"
    );
    // The CPU twin merges the same way.
    let cpu = reference::build(
        &reference::scene_leaves(&scene, &scene.lights, sampler.bvh().unwrap().keys()),
        sampler.bvh().unwrap().keys(),
    );
    assert!(cpu.nodes.iter().all(|n| n.cos_theta_o > (1e-3f32).cos()));
    gpu.finish();
}

#[test]
fn a_point_behind_every_light_of_a_flat_cluster_gives_it_nothing() {
    // Lights a finger's width over a floor, facing up, and one on the ceiling: seen from the
    // floor, which lies inside the floor cluster's bounding sphere but behind every one of its
    // lights' planes, the ceiling light is the only choice. (Had the floor cluster a share,
    // the descent into it would find no light, and that share of the samples would be lost.)
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(22);
    let mut triangles: Vec<[Vec3; 3]> = (0..500)
        .map(|_| {
            let centre = Vec3::new(
                rng.random_range(-2.0..2.0),
                rng.random_range(0.005..0.03),
                rng.random_range(-3.0..3.0),
            );
            small_triangle(centre, Vec3::Z, Vec3::X, rng.random_range(0.005..0.02))
        })
        .collect();
    triangles.push(small_triangle(Vec3::new(0.3, 2.49, 0.2), Vec3::X, Vec3::Z, 0.05));
    let ceiling_light = triangles.len() - 1;
    let scene = emitter_scene(&triangles, "lights over a floor, one on the ceiling");
    let (_gpu_scene, sampler) = built(context, &scene);
    let bvh = sampler.bvh().unwrap();
    let tree = bvh.read_back(context).unwrap();
    let points: Vec<LightContext> = (0..8)
        .map(|_| LightContext {
            point: Vec3::new(rng.random_range(-1.9..1.9), 0.0, rng.random_range(-2.9..2.9)),
            normal: Vec3::Y,
            spatial: true,
        })
        .collect();
    let probe = probe(context, bvh, &points, 1);
    for (p, point) in points.iter().enumerate() {
        assert_eq!(
            probe.probabilities[p][ceiling_light], 1.0,
            "point {p} ({:?}): the ceiling light's probability",
            point.point
        );
        assert_eq!(probabilities(&tree, point)[ceiling_light], 1.0, "point {p}, CPU twin");
    }
    gpu.finish();
}

/// A spot whose falloff between its cones is narrower than a float32 cosine can tell from none
/// (glTF's inner cone equal to its outer, as Blender writes a spot of no blend; the importer
/// keeps the inner 1e-4 of the outer inside it) is chosen at points in its cone, and not
/// outside. Until 2026-11-28 its leaf's cos(theta_e) rounded to 1 and the importance test
/// turned away every point, so that `--lights bvh` rendered such spots black.
#[test]
fn a_hard_edged_spot_is_chosen_inside_its_cone_and_not_outside() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut scene = emitter_scene(
        &[small_triangle(Vec3::new(3.0, 2.0, 0.0), Vec3::X, Vec3::Z, 0.1)],
        "a spot and a triangle",
    );
    let outer = 0.5f32;
    scene.lights.push(PunctualLight {
        name: "hard spot".into(),
        kind: PunctualKind::Spot {
            inner: outer * 0.9999,
            outer,
        },
        position: Vec3::ZERO,
        direction: Vec3::NEG_Y,
        intensity: Vec3::splat(10.0),
        range: None,
    });
    let (_gpu_scene, sampler) = built(context, &scene);
    let bvh = sampler.bvh().unwrap();
    let tree = bvh.read_back(context).unwrap();
    let spot = bvh.count() as usize - 1;
    // On the axis, near the inner cone's edge (0.49 rad), and outside the outer one.
    let points: Vec<LightContext> = [
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(0.53, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
    ]
    .iter()
    .map(|&point| LightContext {
        point,
        normal: Vec3::Y,
        spatial: true,
    })
    .collect();
    let reported = probe(context, bvh, &points, 1024).probabilities;
    for (p, inside) in [(0, true), (1, true), (2, false)] {
        let cpu = probabilities(&tree, &points[p])[spot];
        let gpu_probability = reported[p][spot];
        assert_eq!(
            gpu_probability > 0.0,
            inside,
            "point {p}: the spot's probability {gpu_probability}"
        );
        assert!(
            (f64::from(gpu_probability) - cpu).abs() <= 1e-3 * cpu.max(1e-4),
            "point {p}: {gpu_probability} vs the CPU's {cpu}"
        );
    }
    gpu.finish();
}
