//! Parallel Metropolis light transport (`--integrator pmlt`) on lavapipe, validation on: the
//! primary sample reproduced from a state's ids on the GPU as on the CPU, and equal to a chain
//! that stores its samples; the generalized Metropolis-Hastings step's distribution (chi-square
//! over many chains on the GPU) and its weights summing to 1; the chains' start on the GPU
//! against its host twin; convergence to Mitsuba's references as iterations grow; and no
//! start-up bias.

use crate::common;

use glam::Vec3;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::film::metrics;
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, DispatchSize, MemoryLocation};
use wavetrace::integrator::pmlt::sample::{self, Ids};
use wavetrace::integrator::pmlt::start::{self, ChainStarter, StartSetup};
use wavetrace::integrator::pmlt::Pmlt;
use wavetrace::integrator::{IntegratorKind, MltSettings, MltStart, RenderSettings, Renderer};
use wavetrace::interface::{
    MltChain, MltControl, MltProbePush, MltRecord, MltScale, PassConstants, WavefrontPush, MLT_ACCEPT_GROUP,
    MLT_KEEP_CHAIN, MLT_STATS_RUN,
};
use wavetrace::lights::LightSelection;
use wavetrace::rng::{squares_key, squares_uniform};

#[test]
fn primary_samples_on_the_gpu_are_the_cpus() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let max_depth = 8;
    let dimensions = sample::dimensions(max_depth);
    let values = Buffer::gpu_storage(context, "mlt values", u64::from(dimensions) * 4).unwrap();
    let pipeline = ComputePipeline::<MltProbePush>::new(context, ids::DIAGNOSTICS_MLT_PROBE, &[]).unwrap();
    let states = [
        Ids {
            base_key: squares_key(1, 0),
            base_index: 1,
            offset_key: squares_key(1, 0),
            offset_index: 1,
        },
        // A small step from a bootstrap sample, at indices past 2^32.
        Ids {
            base_key: squares_key(1, u32::MAX),
            base_index: 77,
            offset_key: squares_key(1, 5),
            offset_index: (1 << 33) + 12_345,
        },
    ];
    for ids in states {
        for sigma in [1.0 / 64.0, 0.3] {
            let push = MltProbePush {
                values: values.address(),
                base_key: ids.base_key,
                base_index: ids.base_index,
                offset_key: ids.offset_key,
                offset_index: ids.offset_index,
                dimensions,
                count: dimensions,
                sigma,
                pad0: 0,
            };
            common::run_probe(context, &pipeline, &push, dimensions);
            let got: Vec<f32> = values.read_back(context, dimensions as usize).unwrap();
            for (d, &value) in got.iter().enumerate() {
                let expected = sample::number(ids, dimensions, sigma, d as u32);
                assert!((0.0..1.0).contains(&value), "dimension {d}: {value}");
                // The same formula; the GPU's log and sqrt may differ from the CPU's by an ulp.
                let difference = (value - expected).abs();
                assert!(
                    difference.min(1.0 - difference) < 1e-5,
                    "dimension {d} of {ids:?}, sigma {sigma}: GPU {value}, CPU {expected}"
                );
            }
        }
    }
    gpu.finish();
}

/// A chain as a conventional primary-sample-space implementation keeps it: its base and offset
/// numbers stored, replaced from the same Squares32 counters as a step draws them.
struct StoredChain {
    base: Vec<f32>,
    offset_normals: Vec<f32>,
}

impl StoredChain {
    fn sample(&self, sigma: f32) -> Vec<f32> {
        self.base
            .iter()
            .zip(&self.offset_normals)
            .map(|(&b, &n)| {
                let x = b + sigma * n;
                (x - x.floor()).min(0.999_999_94)
            })
            .collect()
    }
}

#[test]
fn proposals_recomputed_from_ids_equal_a_chain_that_stores_its_samples() {
    let dimensions = sample::dimensions(3);
    let (proposals, sigma, large_step) = (5u32, 0.05f32, 0.3f32);
    let key = squares_key(9, 4);
    let stride = 2 * u64::from(dimensions);
    let numbers_of = |key: u64, index: u64, from: u32| -> Vec<f32> {
        (0..dimensions)
            .map(|d| squares_uniform(index * stride + u64::from(from + d), key))
            .collect()
    };
    // A made-up Y*: what matters is that both chains see the same values.
    let target = |x: &[f32]| -> f32 { (x[0] * 7.0).sin().abs() * x[3] + if x[5] < 0.2 { 0.0 } else { x[7] } };

    let mut ids = Ids {
        base_key: key,
        base_index: 1,
        offset_key: key,
        offset_index: 1,
    };
    let mut stored = StoredChain {
        base: numbers_of(key, 1, 0),
        offset_normals: numbers_of(key, 1, dimensions)
            .into_iter()
            .map(sample::standard_normal)
            .collect(),
    };
    let mut moves = 0;
    for iteration in 0..400u32 {
        let current: Vec<f32> = (0..dimensions)
            .map(|d| sample::number(ids, dimensions, sigma, d))
            .collect();
        assert_eq!(
            current,
            stored.sample(sigma),
            "iteration {iteration}: the current state"
        );
        let large = sample::chain_number(key, proposals, dimensions, iteration, sample::STEP_NUMBER) < large_step;
        let mut values = Vec::new();
        let mut stored_proposals = Vec::new();
        for j in 0..proposals {
            let proposal = sample::proposal_ids(key, ids, proposals, iteration, j, large);
            let recomputed: Vec<f32> = (0..dimensions)
                .map(|d| sample::number(proposal, dimensions, sigma, d))
                .collect();
            let index = sample::index(proposals, iteration, j + 1);
            let candidate = StoredChain {
                base: if large {
                    numbers_of(key, index, 0)
                } else {
                    stored.base.clone()
                },
                offset_normals: numbers_of(key, index, dimensions)
                    .into_iter()
                    .map(sample::standard_normal)
                    .collect(),
            };
            assert_eq!(
                recomputed,
                candidate.sample(sigma),
                "iteration {iteration}, proposal {j}"
            );
            values.push(target(&recomputed));
            stored_proposals.push((proposal, candidate));
        }
        let (transition, _) = sample::transition(target(&current), &values);
        let u = sample::chain_number(key, proposals, dimensions, iteration, sample::DRAW_NUMBER);
        if let Some(j) = sample::draw(&transition, u) {
            let (proposal, candidate) = stored_proposals.swap_remove(j);
            ids = proposal;
            stored = candidate;
            moves += 1;
        }
    }
    assert!(moves > 50, "the chain moved only {moves} times");
}

/// The acceptance kernel over many chains with the same fixed Y* of their current state and
/// proposals: the next states drawn follow A (chi-square), the chains that took a large step
/// took its base, and each chain's splats carry weights summing to 1; with large steps weighed
/// as uniform samples too, the weights Kelemen's balance gives them.
#[test]
fn the_acceptance_step_draws_from_its_distribution_and_its_weights_sum_to_one() {
    let gpu = common::gpu();
    // One proposal (a chain a lane, 64 to a workgroup); an awkward seven (eight lanes a chain,
    // one idle); 100, more than the workgroup's lanes (runs of two on some lanes, of one or none
    // on others).
    let hundred: Vec<f32> = (0..100u32)
        .map(|j| if j % 9 == 4 { 0.0 } else { 0.05 * (j % 37) as f32 })
        .collect();
    for proposed in [&[0.6f32][..], &[0.5, 2.0, 0.0, 1.0, 3.0, 0.25, 1.5], &hundred] {
        for uniform_luminance in [0.0, 0.7] {
            acceptance_step_check(&gpu, proposed, uniform_luminance);
        }
    }
    gpu.finish();
}

/// The acceptance kernel on 20,001 chains, each at Y* 1.2 with the proposals `proposed`, and
/// `uniform_luminance` the scale's (0: Metropolis weights alone).
fn acceptance_step_check(gpu: &common::TestGpu, proposed: &[f32], uniform_luminance: f32) {
    const FILM_PIXELS: u32 = 256;
    let context = &gpu.context;
    let chains = 20_001u32;
    let proposals = proposed.len() as u32;
    let current = 1.2f32;
    let dimensions = sample::dimensions(4);
    let large_step = 0.4f32;
    let unmoved = 999_999u64;
    let states: Vec<MltChain> = (0..chains)
        .map(|chain| MltChain {
            key: squares_key(2, chain),
            base_key: 5,
            base_index: unmoved,
            offset_key: 5,
            offset_index: unmoved,
            // Grey, so that luminance equals each channel and a splat adds its weight.
            contribution: glam::Vec3::splat(current),
            luminance: current,
            pixel: chain % FILM_PIXELS,
            path_length: 1,
            ..MltChain::default()
        })
        .collect();
    let records: Vec<MltRecord> = (0..chains)
        .flat_map(|chain| {
            proposed.iter().map(move |&y| MltRecord {
                contribution: glam::Vec3::splat(y),
                pixel: chain % FILM_PIXELS,
            })
        })
        .collect();
    let storage =
        |name: &str, bytes: u64, location| Buffer::new(context, name, bytes, BufferUsage::STORAGE, location).unwrap();
    let chain_buffer = Buffer::from_slice(context, "chains", &states, BufferUsage::STORAGE).unwrap();
    let record_buffer = Buffer::from_slice(context, "records", &records, BufferUsage::STORAGE).unwrap();
    let scale = 1.0 / chains as f32;
    let scales = Buffer::from_slice(
        context,
        "scales",
        &[MltScale {
            image: scale,
            uniform_luminance,
        }],
        BufferUsage::STORAGE,
    )
    .unwrap();
    let control = Buffer::from_slice(
        context,
        "control",
        &[MltControl {
            proposals: chains * proposals,
            ..MltControl::default()
        }],
        BufferUsage::STORAGE,
    )
    .unwrap();
    let film_bytes = u64::from(FILM_PIXELS) * 24;
    let film = storage("splat film", film_bytes, MemoryLocation::GpuOnly);
    context
        .run_once("clear", |commands| {
            commands.fill_buffer(&film, 0, film_bytes, 0);
            Ok(())
        })
        .unwrap();
    let constants = PassConstants {
        width: FILM_PIXELS,
        height: 1,
        splat_film: film.address(),
        mlt_chains: chain_buffer.address(),
        mlt_records: record_buffer.address(),
        mlt_scales: scales.address(),
        mlt_control: control.address(),
        mlt_chain_count: chains,
        mlt_proposals: proposals,
        mlt_dimensions: dimensions,
        mlt_large_step: large_step,
        mlt_sigma: 0.01,
        ..PassConstants::default()
    };
    let constant_buffer = Buffer::from_slice(context, "constants", &[constants], BufferUsage::STORAGE).unwrap();
    let kernel = if context.adapter().capabilities.shader_float64_atomics {
        ids::PMLT_ACCEPT_FLOAT_ATOMIC
    } else {
        ids::PMLT_ACCEPT_FLOAT_CAS
    };
    let pipeline = ComputePipeline::<WavefrontPush>::new(context, kernel, &[]).unwrap();
    let push = WavefrontPush {
        constants: constant_buffer.address(),
        argument: 0,
        pad0: 0,
    };
    context
        .run_once("accept", |commands| {
            let groups = sample::accept_workgroups(chains, proposals);
            commands.dispatch(&pipeline, &push, DispatchSize { x: groups, y: 1 });
            Ok(())
        })
        .unwrap();
    assert_eq!(
        MLT_ACCEPT_GROUP, 64,
        "the lanes this test's proposal counts are chosen for"
    );

    let after: Vec<MltChain> = chain_buffer.read_back(context, chains as usize).unwrap();
    let (moves, stay) = sample::transition(current, proposed);
    let mut counts = vec![0u64; proposed.len() + 1];
    // What the film's pixels add up to, a channel: each chain's splats F w / (Y* + u) of grey
    // records (F = Y*), w the point's transition probability, plus 1 for a large step's
    // proposals where u > 0, over the chains.
    let balance = |y: f32, weight: f32| match y > 0.0 {
        true => f64::from(weight) * f64::from(y) / f64::from(y + uniform_luminance),
        false => 0.0,
    };
    let mut expected_total = 0.0f64;
    for (chain, state) in after.iter().enumerate() {
        assert_eq!(state.iterations, 1);
        let large = sample::chain_number(state.key, proposals, dimensions, 0, sample::STEP_NUMBER) < large_step;
        let uniform_sample = if large && uniform_luminance > 0.0 { 1.0 } else { 0.0 };
        let chain_total = proposed
            .iter()
            .zip(&moves)
            .map(|(&y, &a)| balance(y, a + uniform_sample))
            .sum::<f64>()
            + balance(current, stay);
        expected_total += chain_total / f64::from(chains);
        let outcome = if state.offset_index == unmoved {
            assert_eq!(state.moves, 0);
            proposed.len()
        } else {
            let j = (state.offset_index - 1) as usize;
            assert_eq!(state.offset_index, sample::index(proposals, 0, j as u32 + 1));
            // The GPU's luminance of a grey record may round in its last bit.
            assert!(
                (state.luminance - proposed[j]).abs() <= 1e-6 * proposed[j],
                "chain {chain} took proposal {j}'s Y*"
            );
            let base_moved = state.base_index != unmoved;
            assert_eq!(
                base_moved, large,
                "chain {chain}: a large step moves the base, a small one not"
            );
            j
        };
        counts[outcome] += 1;
        assert!((state.acceptance - (1.0 - stay)).abs() < 1e-6);
    }
    let mut probabilities: Vec<f64> = moves.iter().map(|&a| f64::from(a)).collect();
    probabilities.push(f64::from(stay));
    assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    let (chi2, bins) = common::chi_square(&counts, &probabilities, u64::from(chains));
    let dof = (bins - 1) as f64;
    eprintln!("{proposals} proposals: chi2 {chi2:.1} over {bins} bins");
    assert!(chi2 < dof + 5.0 * (2.0 * dof).sqrt(), "chi2 {chi2} over {bins} bins");

    // Without the balance every chain splats its current state and proposals with weights
    // summing to 1, times the scale 1 / chains: the film's pixels add up to 1 in each channel.
    // The film's sums are f64, so they hold each f32 splat to its own rounding.
    if uniform_luminance == 0.0 {
        assert!((expected_total - 1.0).abs() < 1e-6);
    }
    let splatted: Vec<f64> = film.read_back(context, FILM_PIXELS as usize * 3).unwrap();
    for channel in 0..3 {
        let channel: f64 = splatted.iter().skip(channel).step_by(3).sum();
        assert!(
            (channel - expected_total).abs() < 1e-5 * expected_total,
            "{proposals} proposals, uniform Y* {uniform_luminance}: splats sum to {channel} a chain, \
             {expected_total} expected"
        );
    }
}

/// The 8x8-block relMSE one iteration of 4096 chains may have (64 x 64 Cornell box). Measured
/// on lavapipe (2026-11-29, a bootstrap of 2^17 samples a length): 0.014 and 0.013 from the
/// bootstrap (seeds 1, 2), 1.25 and 2.01 from a fixed state (relMSE 9.6 and 27.0).
const START_UP_BLOCK_BOUND: f64 = 0.2;

/// How far a normalised render's mean may be from the reference's: the bootstrap's estimate of
/// the mean luminance, within 2% (a standard error) where its rounds end, and its colour.
const MEAN_WITHIN_NORMALISED: f64 = 0.03;

fn pmlt_settings(
    gpu: &common::TestGpu,
    resolution: u32,
    chains: u32,
    iterations: u32,
    bootstrap: u32,
) -> RenderSettings {
    let backend = gpu.context.trace_backends()[0];
    RenderSettings {
        integrator: IntegratorKind::Pmlt,
        light_selection: LightSelection::Tree,
        mlt: MltSettings {
            chains,
            proposals: 16,
            bootstrap,
            iterations: Some(iterations),
            // The chains' target is plain luminance here: with a thousand chains, the pixels'
            // importance (which `pixel_importance_lowers_relative_error_and_keeps_the_means`
            // tests) moves the image's mean by several percent from seed to seed.
            pixel_importance: false,
            ..MltSettings::default()
        },
        ..RenderSettings::new(resolution, resolution, 1, 8, backend)
    }
}

/// relMSE against the reference at three budgets, falling; every mean within `mean_within` at
/// the largest.
fn converges(scene_name: &str, resolution: u32, chains: u32, budgets: [u32; 3], bootstrap: u32, mean_within: f64) {
    let gpu = common::gpu();
    let scene = common::load_scene(scene_name);
    let reference = common::reference(scene_name, resolution, 8);
    let mut errors = Vec::new();
    for iterations in budgets {
        let settings = pmlt_settings(&gpu, resolution, chains, iterations, bootstrap);
        let image = common::render(&gpu.context, &scene, &settings);
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!("{scene_name} {resolution} d8 pmlt {chains} chains x 16, {iterations} iterations: {c:?}");
        assert_eq!(c.non_finite_pixels, 0);
        errors.push((c.rel_mse, c.mean_ratio));
    }
    assert!(
        errors[0].0 > errors[1].0 && errors[1].0 > errors[2].0,
        "relMSE must fall as iterations grow: {errors:?}"
    );
    for ratio in errors[2].1 {
        assert!(
            (ratio - 1.0).abs() < mean_within,
            "mean ratio {ratio} at the largest budget"
        );
    }
    gpu.finish();
}

#[test]
fn cornell_box_converges_to_the_reference() {
    // The light seen directly is half the image's light from 0.5% of uniform samples: b_1
    // needs many of them, which the bootstrap's rounds of that length alone bring (four
    // rounds of 2^17 where the other lengths need one).
    converges("cornell-box", 64, 1024, [8, 32, 128], 1 << 17, 0.02);
}

#[test]
fn ajar_converges_to_the_reference() {
    converges("ajar", 128, 1024, [8, 32, 128], 1 << 17, 0.02);
}

/// With each pixel's importance in the target (the default), chains spend their effort evenly
/// over the pixels' relative error: on ajar's dark corridor, relMSE falls with the budget and
/// stays below the plain target's at the largest, on the same seed, and the means keep the
/// reference's. 16,384 chains of one proposal (the shape the defaults have, smaller), since a
/// thousand chains let the mean wander by several percent.
#[test]
fn pixel_importance_lowers_relative_error_and_keeps_the_means() {
    let gpu = common::gpu();
    let scene = common::load_scene("ajar");
    let reference = common::reference("ajar", 128, 8);
    let render = |pixel_importance: bool, iterations: u32| {
        let mut settings = pmlt_settings(&gpu, 128, 16384, iterations, 1 << 17);
        settings.mlt.proposals = 1;
        settings.mlt.pixel_importance = pixel_importance;
        let c = metrics::compare(&common::render(&gpu.context, &scene, &settings), &reference).unwrap();
        eprintln!("ajar 128 d8 pmlt, pixel importance {pixel_importance}, {iterations} iterations: {c:?}");
        c
    };
    let budgets = [8, 32, 128];
    let with: Vec<_> = budgets.iter().map(|&n| render(true, n)).collect();
    assert!(
        with[0].rel_mse > with[1].rel_mse && with[1].rel_mse > with[2].rel_mse,
        "relMSE must fall as iterations grow: {with:?}"
    );
    common::assert_means_within(&with[2], 0.03, "ajar, pixel importance, largest budget");
    let without = render(false, budgets[2]);
    assert!(
        with[2].rel_mse < without.rel_mse,
        "with the pixels' importance {} against {} without",
        with[2].rel_mse,
        without.rel_mse
    );
    gpu.finish();
}

/// No start-up bias with each pixel's importance in the target: one iteration of the Cornell box
/// is already an estimate of the whole image, its relMSE about half the plain target's. The
/// chains then sample the bright light seen directly in proportion to its pixels, not its light,
/// so the splats' sum moves the image's mean by about 5% from seed to seed; normalised (the
/// default), the mean is the bootstrap's estimate of it on every seed, and the seeds' worst
/// mean is nearer the reference's than without (seeds 1 and 2: normalised by 1.10 and 0.97 on
/// lavapipe). Each seed renders once, some 80 s on lavapipe, most of it the bootstrap's four
/// rounds: the image without normalising is the normalised one over the factor the render
/// reports (the same bootstrap and chains, so a second render would give the same bits).
#[test]
fn one_iteration_with_pixel_importance_is_unbiased_and_normalised_to_the_bootstraps_mean() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let reference = common::reference("cornell-box", 64, 8);
    let (mut worst_normalised, mut worst_without) = (0.0f64, 0.0f64);
    for seed in 1..=2 {
        let mut settings = RenderSettings {
            seed,
            ..pmlt_settings(&gpu, 64, 4096, 1, 1 << 19)
        };
        settings.mlt.pixel_importance = true;
        settings.mlt.normalise = true;
        let (image, stats) = common::render_with_stats(&gpu.context, &scene, &settings);
        let normalisation = stats.pmlt.expect("a pmlt render reports its statistics").normalisation;
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!(
            "cornell box pmlt, pixel importance, one iteration, seed {seed}, normalised by {normalisation}: {c:?}"
        );
        assert!(c.block8_rel_mse < START_UP_BLOCK_BOUND, "{c:?}");
        assert!(
            normalisation.is_finite() && normalisation > 0.0,
            "normalised by {normalisation}"
        );
        common::assert_means_within(&c, MEAN_WITHIN_NORMALISED, "one normalised iteration");
        for ratio in c.mean_ratio {
            worst_normalised = worst_normalised.max((ratio - 1.0).abs());
            worst_without = worst_without.max((ratio / normalisation - 1.0).abs());
        }
    }
    assert!(
        worst_normalised < worst_without,
        "the worst mean is {worst_normalised} off normalised, {worst_without} off without"
    );
    gpu.finish();
}

/// Energy kept with either weighing of the large steps (Kelemen's balance, the default, and
/// the chains' samples alone), with the pixels' importance in the target, and without the
/// normalisation to the bootstrap's mean (the image then left as the splats sum, scaled by 1).
#[test]
fn furnace_box_matches_the_reference() {
    let gpu = common::gpu();
    let scene = common::load_scene("furnace-box");
    for (large_step_mis, pixel_importance, normalise) in
        [(true, false, true), (false, false, false), (true, true, true)]
    {
        let settings = pmlt_settings(&gpu, 64, 1024, 32, 1 << 16);
        let settings = RenderSettings {
            mlt: MltSettings {
                large_step_mis,
                pixel_importance,
                normalise,
                ..settings.mlt
            },
            ..settings
        };
        let (image, stats) = common::render_with_stats(&gpu.context, &scene, &settings);
        let c = metrics::compare(&image, &common::reference("furnace-box", 64, 8)).unwrap();
        let normalisation = stats.pmlt.expect("a pmlt render reports its statistics").normalisation;
        let what = format!(
            "furnace box pmlt, large steps as uniform samples: {large_step_mis}, pixel importance: {pixel_importance}, \
             normalised: {normalise} (by {normalisation})"
        );
        eprintln!("{what}: {c:?}");
        common::assert_means_within(&c, 0.01, &what);
        if !normalise {
            assert_eq!(normalisation, 1.0, "{what}");
        }
    }
    gpu.finish();
}

/// A split render (chunks of samples on several devices, `--samples` parts, progressive passes)
/// runs one Metropolis render a pass. Each pass has its own bootstrap and chains under keys of
/// its own, and weighs in by its samples. Two passes give different images, and the passes
/// together, a short last one included, keep the reference's means and fall in error. (Before
/// 2026-11-27 every pass repeated the first one's chains and counted as a full pass: a render
/// split 4 + 4 + 2 came out 1.2x too bright, with no less noise.) The second pass's own image
/// is the film after two passes, less the first's share: each pass costs a bootstrap, so the
/// test renders three, not five.
#[test]
fn the_passes_of_a_split_render_are_independent_estimates_weighted_by_their_samples() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let reference = common::reference("cornell-box", 64, 8);
    let settings = RenderSettings {
        spp: 4,
        ..pmlt_settings(&gpu, 64, 1024, 16, 1 << 17)
    };
    let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
    let film = |renderer: &Renderer, spp: u32| renderer.film().read_mean(&gpu.context, spp).unwrap();
    renderer.render_samples(0, 4).unwrap();
    let first = film(&renderer, 4);
    renderer.render_samples(4, 4).unwrap();
    let two = film(&renderer, 8);
    let second = wavetrace::film::RgbImage {
        width: first.width,
        height: first.height,
        pixels: two
            .pixels
            .iter()
            .zip(&first.pixels)
            .map(|(both, first)| std::array::from_fn(|c| 2.0 * both[c] - first[c]))
            .collect(),
    };
    let apart = metrics::compare(&first, &second).unwrap();
    eprintln!("pmlt passes 0..4 and 4..8 against each other: {apart:?}");
    assert!(apart.rel_mse > 1e-3, "two passes gave the same image: {apart:?}");

    renderer.render_samples(8, 2).unwrap();
    let split = metrics::compare(&film(&renderer, 10), &reference).unwrap();
    let one = metrics::compare(&first, &reference).unwrap();
    eprintln!("pmlt split 4 + 4 + 2: {split:?}; the first pass alone: {one:?}");
    common::assert_means_within(&split, 0.02, "pmlt split 4 + 4 + 2");
    assert!(
        split.rel_mse < 0.75 * one.rel_mse,
        "three independent passes, relMSE {} against one pass's {}",
        split.rel_mse,
        one.rel_mse
    );
    drop(renderer);
    gpu.finish();
}

/// Chains start in proportion to Y* among uniform samples, so the image of a single iteration
/// is already an estimate of the whole image. Its luminance hardly shows start-up bias (each
/// path length's light is scaled by b_k, wherever the chains put it), so the test compares
/// 8x8-block means too, and shows that it can fail: chains started at one fixed state a length
/// put their light near that state's pixel, and the same comparison refuses them.
#[test]
fn a_single_iteration_has_no_start_up_bias() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let reference = common::reference("cornell-box", 64, 8);
    for seed in [1, 2] {
        let settings = RenderSettings {
            seed,
            ..pmlt_settings(&gpu, 64, 4096, 1, 1 << 17)
        };
        let image = common::render(&gpu.context, &scene, &settings);
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!("cornell box pmlt, one iteration, seed {seed}: {c:?}");
        common::assert_means_within(&c, 0.03, "after one iteration");
        assert!(
            c.block8_rel_mse < START_UP_BLOCK_BOUND,
            "block relMSE {} after one iteration",
            c.block8_rel_mse
        );
        let fixed = RenderSettings {
            mlt: MltSettings {
                start: MltStart::FixedState,
                ..settings.mlt
            },
            ..settings
        };
        let image = common::render(&gpu.context, &scene, &fixed);
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!("cornell box pmlt, one iteration from a fixed state, seed {seed}: {c:?}");
        assert!(
            c.block8_rel_mse > START_UP_BLOCK_BOUND,
            "chains from a fixed state pass the start-up test: block relMSE {}",
            c.block8_rel_mse
        );
    }
    gpu.finish();
}

/// Bootstrap records of every kind a render makes: most dark, some lit, some whose Y* is
/// negative, infinite or NaN (which no chain may start on), on random pixels.
fn random_records(count: usize, rng: &mut SmallRng) -> Vec<MltRecord> {
    (0..count)
        .map(|_| {
            let lit = Vec3::new(rng.random(), rng.random(), rng.random()) * 10f32.powf(rng.random_range(-3.0..3.0));
            let contribution = match rng.random_range(0..10) {
                0..=5 => Vec3::ZERO,
                6 => Vec3::new(-1.0, 0.1, 0.0),
                7 => [Vec3::new(f32::NAN, 1.0, 1.0), Vec3::new(f32::INFINITY, 0.0, 0.0)][rng.random_range(0..2)],
                _ => lit,
            };
            MltRecord {
                contribution,
                pixel: rng.random_range(0..4096),
            }
        })
        .collect()
}

/// The chains' start: the GPU lists the records that carry light, in order, with the host's Y*,
/// and every chain's first state is the one the host twin builds from the same draw
/// (its key from squares_key on the GPU, its record's ids, light, pixel and length), on
/// awkward sizes; the draws land on lit records of the chain's own length; a bootstrap without
/// light gives a dark plan (every b_k 0, no chain).
#[test]
fn chains_started_on_the_gpu_are_their_host_twins() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(14);
    // The second shape's Y* carries each pixel's importance (pixels 0 to 2999 of the records'
    // 4096; the rest have none).
    let pixels = 3000;
    let factors: Vec<f32> = (0..pixels).map(|_| 10f32.powf(rng.random_range(-1.0..1.0))).collect();
    let importance = Buffer::from_slice(context, "importance", &factors, BufferUsage::STORAGE).unwrap();
    let shapes = [
        (1000, 3, 777, MltStart::Bootstrap, false),
        (37, 8, 4099, MltStart::Bootstrap, true),
        (513, 5, 300, MltStart::FixedState, false),
        (1, 1, 1, MltStart::Bootstrap, false),
    ];
    for (bootstrap, depth, chains, how, with_importance) in shapes {
        let setup = StartSetup {
            seed: rng.random(),
            how,
            depth,
            bootstrap,
            chains,
            pixels,
            pixel_importance: if with_importance { importance.address() } else { 0 },
            ..StartSetup::default()
        };
        let mut records = random_records(setup.records(), &mut rng);
        records[0].contribution = Vec3::ONE;
        let what = format!("{bootstrap} samples x {depth} lengths, {chains} chains, {how:?}");
        let records_buffer = Buffer::from_slice(context, "records", &records, BufferUsage::STORAGE).unwrap();
        let chains_buffer = Buffer::gpu_storage(
            context,
            "chains",
            u64::from(chains) * std::mem::size_of::<MltChain>() as u64,
        )
        .unwrap();
        let mut starter = ChainStarter::new(context, setup.records(), chains).unwrap();
        let plan = starter.start(context, &records_buffer, &chains_buffer, &setup).unwrap();
        // The lit list: exactly the records whose Y* is a positive finite number, in order,
        // with the host's Y* but for rounding.
        let lit = starter.lit_records(context).unwrap();
        let expected: Vec<(u32, f32)> = records
            .iter()
            .enumerate()
            .map(|(i, record)| {
                let y = sample::luminance(record.contribution.to_array());
                let factor = match with_importance && record.pixel < pixels {
                    true => factors[record.pixel as usize],
                    false => 1.0,
                };
                (i as u32, y * factor)
            })
            .filter(|&(_, y)| y.is_finite() && y > 0.0)
            .collect();
        assert_eq!(lit.len(), expected.len(), "{what}: lit records");
        for (&[record, bits, pixel], &(i, host)) in lit.iter().zip(&expected) {
            assert_eq!(pixel, records[i as usize].pixel, "{what}: record {i}'s pixel");
            let y = f32::from_bits(bits);
            assert_eq!(record, i, "{what}: the lit list's order");
            assert!(
                (y - host).abs() <= 1e-6 * host,
                "{what}: record {i}: Y* {y} against {host}"
            );
        }
        // Each b_k and its standard error over b_k, from the lit records' Y* in f64.
        for k in 0..depth as usize {
            let ys: Vec<f64> = lit
                .iter()
                .filter(|&&[record, _, _]| record as usize % depth as usize == k)
                .map(|&[_, bits, _]| f64::from(f32::from_bits(bits)))
                .collect();
            let n = f64::from(bootstrap);
            let mean = ys.iter().sum::<f64>() / n;
            let spread = (ys.iter().map(|y| y * y).sum::<f64>() / n - mean * mean).max(0.0);
            let error = if mean > 0.0 { (spread / n).sqrt() / mean } else { 0.0 };
            let (b, errors) = (plan.tally.b(), plan.tally.relative_errors());
            assert!((b[k] - mean).abs() <= 1e-12 * mean.max(1e-30), "{what}: b_{k}");
            assert!(
                (errors[k] - error).abs() <= 1e-9 * error.max(1e-12),
                "{what}: b_{k}'s error {} against {error}",
                errors[k]
            );
        }
        assert_eq!(plan.chains_per_length.iter().sum::<u32>(), chains, "{what}");
        let started: Vec<MltChain> = chains_buffer.read_back(context, chains as usize).unwrap();
        let mut first_chain = 0;
        for (k, &count) in plan.chains_per_length.iter().enumerate() {
            for chain in first_chain..first_chain + count {
                let twin = start::host_chain(&records, &lit, &setup, &plan, chain);
                assert_eq!(started[chain as usize], twin, "{what}: chain {chain}");
                assert_eq!(twin.path_length, k as u32 + 1, "{what}: chain {chain}'s length");
                assert!(twin.luminance > 0.0, "{what}: chain {chain} starts on a dark record");
            }
            first_chain += count;
        }
        // A later round of the last length alone redraws some of that length's chains onto
        // its records, and start_chains moves exactly those, keeping their length.
        let lengths = [depth];
        let later = random_records(bootstrap as usize, &mut rng);
        let later_buffer = Buffer::from_slice(context, "later records", &later, BufferUsage::STORAGE).unwrap();
        let round_setup = StartSetup { round: 2, ..setup };
        let later_lit = starter.lit_of_round(context, &later_buffer, &round_setup, 1).unwrap();
        let chosen = start::redraw(&later_lit, &lengths, &plan.tally, &round_setup, &plan.chains_per_length);
        let placement = start::Placement::Redraw;
        starter
            .place_chains(context, &later_buffer, &chains_buffer, &round_setup, &chosen, placement)
            .unwrap();
        let redrawn: Vec<MltChain> = chains_buffer.read_back(context, chains as usize).unwrap();
        for chain in 0..chains {
            let twin = start::host_redrawn_chain(
                &later,
                &later_lit,
                &round_setup,
                &chosen,
                started[chain as usize],
                chain,
            );
            assert_eq!(
                redrawn[chain as usize], twin,
                "{what}: chain {chain} after a later round"
            );
            assert_eq!(
                twin.path_length, started[chain as usize].path_length,
                "{what}: chain {chain}"
            );
        }
        let moved = chosen.iter().filter(|&&entry| entry != MLT_KEEP_CHAIN).count();
        if how == MltStart::Bootstrap && chains > 1000 && !later_lit.is_empty() {
            let last = *plan.chains_per_length.last().unwrap() as usize;
            assert!(
                moved > 0 && moved < last,
                "{what}: {moved} of length {depth}'s {last} chains redrawn"
            );
        }
    }
    let dark = StartSetup {
        seed: 1,
        how: MltStart::Bootstrap,
        depth: 2,
        bootstrap: 100,
        chains: 10,
        ..StartSetup::default()
    };
    let plan = start::plan(&[], &dark).unwrap();
    assert!(plan.is_dark());
    assert_eq!(plan.tally.b(), vec![0.0; 2]);
    assert_eq!(plan.tally.relative_errors(), vec![0.0; 2]);
    assert_eq!(plan.chains_per_length, vec![0; 2]);
    gpu.finish();
}

/// Where few uniform samples carry a length's light, its b_k is uncertain, and every pixel of
/// that length with it. The bootstrap then takes further rounds under keys of their own until
/// each b_k with chains is known within 2% (or the rounds run out): b_k moves (a round that
/// repeated the first one's samples would leave it where it was), its error falls, and the
/// samples counted are the rounds'. Those rounds sample only the lengths still uncertain.
#[test]
fn an_uncertain_b_k_takes_bootstrap_rounds_of_fresh_samples() {
    let gpu = common::gpu();
    let scene = common::load_scene("ajar");
    let bootstrap = 1 << 12;
    // With the pixels' importance, its round comes first and the rounds of b_k after it.
    for pixel_importance in [false, true] {
        let run = |rounds: u32| {
            let mut settings = pmlt_settings(&gpu, 32, 1024, 2, bootstrap);
            settings.mlt.bootstrap_rounds = rounds;
            settings.mlt.pixel_importance = pixel_importance;
            let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
            let (image, stats) = renderer.render_with_progress(|_| {}).unwrap();
            assert!(!image.has_non_finite());
            stats.pmlt.expect("pmlt stats")
        };
        let worst = |pmlt: &wavetrace::integrator::PmltStats| {
            pmlt.lengths
                .iter()
                .filter(|length| length.chains > 0)
                .map(|length| length.b_relative_error)
                .fold(0.0f64, f64::max)
        };
        let one = run(1);
        assert_eq!(one.bootstrap_rounds, 1);
        assert!(worst(&one) > 0.02, "the test needs an uncertain b_k: {:?}", one.lengths);
        let limit = 12;
        let many = run(limit);
        let what = format!(
            "pixel importance {pixel_importance}, {} rounds: {:?}",
            many.bootstrap_rounds, many.lengths
        );
        eprintln!("one round, worst b_k error {:.4}; {what}", worst(&one));
        assert!(many.bootstrap_rounds > 1, "{what}");
        assert!(worst(&many) <= 0.02 || many.bootstrap_rounds == limit, "{what}");
        assert!(worst(&many) < worst(&one), "{what}");
        // The rounds after the first sample only the lengths still uncertain.
        let counted: u64 = many.lengths.iter().map(|length| length.bootstrap_samples).sum();
        let importance_round = u64::from(pixel_importance) * u64::from(bootstrap) * 8;
        assert_eq!(many.bootstrap_samples, counted + importance_round, "{what}");
        let round_samples = u64::from(bootstrap);
        for (first, all) in one.lengths.iter().zip(&many.lengths) {
            // The first round is the same in both renders, and so is the chains' allotment.
            assert_eq!(first.chains, all.chains, "{what}");
            assert_eq!(first.bootstrap_samples, round_samples, "{what}");
            assert_eq!(all.bootstrap_samples % round_samples, 0, "{what}");
            assert!(
                (round_samples..=u64::from(many.bootstrap_rounds) * round_samples).contains(&all.bootstrap_samples),
                "{what}"
            );
            if first.chains > 0 && first.b_relative_error > 0.02 {
                assert!(all.bootstrap_samples > round_samples, "length {}: {what}", first.length);
            }
            // Without the pixels' importance b_k's error is the only test (with it, the
            // luminance's too, which the statistics do not report).
            if !pixel_importance && (first.chains == 0 || first.b_relative_error <= 0.02) {
                assert_eq!(all.bootstrap_samples, round_samples, "length {}: {what}", first.length);
            }
            if first.b > 0.0 && first.b_relative_error > 0.02 {
                assert_ne!(
                    first.b, all.b,
                    "length {}: later rounds repeated the first: {what}",
                    first.length
                );
            }
        }
    }
    gpu.finish();
}

/// b_k and its error pooled over rounds, some of every length and some of a few, are those
/// of each length's samples taken together.
#[test]
fn a_tally_of_rounds_is_the_tally_of_each_lengths_samples_together() {
    let mut rng = SmallRng::seed_from_u64(3);
    let depth = 5;
    let per_length = 200u32;
    let rounds: [Vec<u32>; 4] = [
        start::all_lengths(depth),
        vec![1, 4],
        vec![4],
        start::all_lengths(depth),
    ];
    let mut tally = start::BootstrapTally::new(depth);
    // Per length: its samples and the Y* of its lit ones, as a round's records assign them.
    let mut samples = vec![0u64; depth as usize];
    let mut lit: Vec<Vec<f64>> = vec![Vec::new(); depth as usize];
    for lengths in &rounds {
        let records = per_length * lengths.len() as u32;
        let round: Vec<start::LitRecord> = (0..records)
            .filter_map(|record| {
                let y = rng.random::<f32>() * 5.0;
                (rng.random::<f32>() < 0.3).then_some([record, y.to_bits(), record % 7])
            })
            .collect();
        tally.add(&round, per_length, lengths);
        for &length in lengths {
            samples[length as usize - 1] += u64::from(per_length);
        }
        for &[record, bits, _] in &round {
            let length = lengths[record as usize % lengths.len()];
            lit[length as usize - 1].push(f64::from(f32::from_bits(bits)));
        }
    }
    assert_eq!(tally.samples, samples);
    assert_eq!(tally.samples, [600, 400, 400, 800, 400]);
    assert_eq!(tally.total_samples(), 2600);
    for k in 0..depth as usize {
        assert_eq!(tally.lit[k], lit[k].len() as u64);
        let n = samples[k] as f64;
        let b = lit[k].iter().sum::<f64>() / n;
        let variance = lit[k].iter().map(|y| y * y).sum::<f64>() / n - b * b;
        let error = (variance / n).sqrt() / b;
        assert!(
            (tally.b()[k] - b).abs() <= 1e-12 * b,
            "length {}: {} {b}",
            k + 1,
            tally.b()[k]
        );
        let got = tally.relative_errors()[k];
        assert!((got - error).abs() <= 1e-9 * error, "length {}: {got} {error}", k + 1);
    }
}

/// Later bootstrap rounds redraw the chains, so that each starts from the samples of every round
/// so far of its length in proportion to Y*, the samples its b_k is the mean of: a rare sample
/// of large Y* gets its share of the chains whichever round it fell in (a chi-square over the
/// chains of each length, against every round's lit samples). A round leaves the chains of the
/// lengths it did not sample as they were, a redrawn chain lands on a record of its own length,
/// and fixed starts stay fixed. With the start drawn from its first round alone, the later
/// rounds' samples would have no chains (the chi-square fails).
#[test]
fn later_bootstrap_rounds_redraw_the_chains_in_proportion_to_every_rounds_samples() {
    let mut rng = SmallRng::seed_from_u64(28);
    let (depth, bootstrap, chains) = (3u32, 64u32, 300_000u32);
    let setup = StartSetup {
        seed: 5,
        round: 1,
        how: MltStart::Bootstrap,
        depth,
        bootstrap,
        chains,
        ..StartSetup::default()
    };
    // Lit records with Y* over a decade, one in fifty 300 times larger.
    let mut round = |lengths: &[u32]| -> Vec<start::LitRecord> {
        (0..bootstrap * lengths.len() as u32)
            .filter_map(|record| {
                let lit = rng.random::<f32>() < 0.4;
                let rare = if rng.random::<f32>() < 0.02 { 300.0 } else { 1.0 };
                let y = rng.random_range(0.5f32..5.0) * rare;
                lit.then_some([record, y.to_bits(), record % 7])
            })
            .collect()
    };
    let first = round(&start::all_lengths(depth));
    let plan = start::plan(&first, &setup).unwrap();
    let mut tally = plan.tally.clone();
    // Each chain's start as (round, record); each length's samples as (round, record, Y*).
    let mut starts: Vec<(u32, u32)> = plan.chosen.iter().map(|&entry| (1, first[entry as usize][0])).collect();
    let mut samples: Vec<Vec<(u32, u32, f64)>> = vec![Vec::new(); depth as usize];
    let mut note = |r: u32, lit: &[start::LitRecord], lengths: &[u32]| {
        for &[record, bits, _] in lit {
            let length = lengths[record as usize % lengths.len()];
            samples[length as usize - 1].push((r, record, f64::from(f32::from_bits(bits))));
        }
    };
    note(1, &first, &start::all_lengths(depth));
    let chain_length = |chain: u32| {
        let mut end = 0;
        plan.chains_per_length.iter().position(|&count| {
            end += count;
            chain < end
        })
    };
    for (r, lengths) in [(2u32, vec![1u32, 3]), (3, vec![3]), (4, start::all_lengths(depth))] {
        let lit = round(&lengths);
        let round_setup = StartSetup { round: r, ..setup };
        let fixed = StartSetup {
            how: MltStart::FixedState,
            ..round_setup
        };
        let kept = start::redraw(&lit, &lengths, &tally, &fixed, &plan.chains_per_length);
        assert!(
            kept.iter().all(|&entry| entry == MLT_KEEP_CHAIN),
            "round {r}: a fixed start moved"
        );
        let chosen = start::redraw(&lit, &lengths, &tally, &round_setup, &plan.chains_per_length);
        assert_eq!(chosen.len(), chains as usize);
        for (chain, &entry) in chosen.iter().enumerate() {
            let length = chain_length(chain as u32).unwrap() as u32 + 1;
            if entry == MLT_KEEP_CHAIN {
                continue;
            }
            assert!(
                lengths.contains(&length),
                "round {r}: chain {chain} of length {length} moved"
            );
            let record = lit[entry as usize][0];
            assert_eq!(
                lengths[record as usize % lengths.len()],
                length,
                "round {r}: chain {chain}"
            );
            starts[chain] = (r, record);
        }
        tally.add(&lit, bootstrap, &lengths);
        note(r, &lit, &lengths);
    }
    for (k, samples) in samples.iter().enumerate() {
        let total: f64 = samples.iter().map(|s| s.2).sum();
        let probabilities: Vec<f64> = samples.iter().map(|s| s.2 / total).collect();
        let mut counts = vec![0u64; samples.len()];
        let mut draws = 0;
        for (chain, &(r, record)) in starts.iter().enumerate() {
            if chain_length(chain as u32) == Some(k) {
                let at = samples.iter().position(|s| (s.0, s.1) == (r, record)).unwrap();
                counts[at] += 1;
                draws += 1;
            }
        }
        let (chi2, bins) = common::chi_square(&counts, &probabilities, draws);
        let dof = (bins - 1) as f64;
        let what = format!("length {}: {draws} chains over {} samples", k + 1, samples.len());
        assert!(bins > 30, "{what}: too few bins ({bins}) to mean something");
        assert!(
            chi2 < dof + 5.0 * (2.0 * dof).sqrt(),
            "{what}: chi2 {chi2:.1} over {bins} bins"
        );
    }
}

/// A small emitter of one colour seen in a few pixels: every splat on it is that colour times
/// a weight, so every lit pixel of a Metropolis render has the emitter's colour, however many
/// splats it sums. Millions of splats land on those pixels; in 32-bit sums each addition
/// rounded to the sum's precision and the sums stalled at powers of two, one channel at a time
/// (a wide random scene came out 2 : 1 : 1 where its emitter is 2.5 : 1 : 1.6, and 12% green).
#[test]
fn millions_of_splats_on_a_few_pixels_keep_their_colour() {
    let gpu = common::gpu();
    let emission = Vec3::new(0.884, 0.357, 0.566) * 18.9;
    // 0.04 across, off the image's centre, counter-clockwise seen from the camera on +Z.
    let (half, centre) = (0.02, Vec3::new(0.013, -0.007, 0.0));
    let corners =
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| centre + half * Vec3::new(x, y, 0.0));
    let camera = glam::Mat4::from_translation(Vec3::new(0.0, 0.0, 1.0));
    let scene = common::quad_emitter_scene("a small emitter", corners, emission, camera, 0.5);
    let mut settings = pmlt_settings(&gpu, 16, 65_536, 64, 1 << 16);
    settings.max_depth = 1;
    settings.mlt.proposals = 1;
    let image = common::render(&gpu.context, &scene, &settings);
    let lit: Vec<[f32; 3]> = image.pixels.iter().copied().filter(|p| p[1] > 0.0).collect();
    assert!((2..=9).contains(&lit.len()), "{} pixels lit", lit.len());
    for pixel in &lit {
        for (channel, &value) in pixel.iter().enumerate() {
            let ratio = f64::from(value) / f64::from(pixel[1]);
            let expected = f64::from(emission[channel]) / f64::from(emission[1]);
            assert!(
                (ratio - expected).abs() < 1e-3 * expected,
                "pixel {pixel:?}: channel {channel} over green {ratio}, the emitter's {expected}"
            );
        }
    }
    gpu.finish();
}

/// A point light's caustic, exactly known (`common::point_light_under_a_mirror_scene`): the
/// light's image in the mirror lights the floor too, which only paths traced from the light
/// reach, and the chains find it.
#[test]
fn a_point_light_seen_in_a_mirror_lights_the_floor_as_its_image_would() {
    let gpu = common::gpu();
    let scene = common::point_light_under_a_mirror_scene();
    // The chains' noise: the furthest block 4.7% off at 256 iterations, 4.1% at 512, 2.4% at 1024.
    let mut settings = pmlt_settings(&gpu, 32, 4096, 1024, 1 << 17);
    settings.max_depth = 3;
    let image = common::render(&gpu.context, &scene, &settings);
    let (mean, furthest_block) = common::mirrored_floor_ratios(&image, true);
    eprintln!("pmlt: mean ratio {mean:.4}, furthest 8 x 8 block {furthest_block:.4}");
    assert!(
        (mean - 1.0).abs() < MEAN_WITHIN_NORMALISED,
        "mean {mean} of the exact image's"
    );
    assert!((furthest_block - 1.0).abs() < 0.05, "a block at {furthest_block}");
    gpu.finish();
}

/// A scene without light is a black image, as every other integrator renders it, not an
/// error: the bootstrap finds nothing, no chain starts and no iteration runs.
#[test]
fn a_scene_without_light_renders_black() {
    let gpu = common::gpu();
    let scene = common::sphere_scene(wavetrace::scene::Material::default());
    let settings = pmlt_settings(&gpu, 16, 64, 4, 1 << 10);
    let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
    let (image, stats) = renderer.render_with_progress(|_| {}).unwrap();
    assert!(
        image.pixels.iter().flatten().all(|&v| v == 0.0),
        "a pixel of a dark scene carries light"
    );
    let pmlt = stats.pmlt.expect("pmlt stats");
    assert_eq!(pmlt.iterations, 0);
    assert!(pmlt.lengths.iter().all(|length| length.chains == 0 && length.b == 0.0));
    gpu.finish();
}

/// `--stats`' acceptance and moves per length, summed on the GPU in runs of chains of one
/// length, equal the host's sums over the chains read back, on a render where a length has
/// more chains than a run holds and others fewer.
#[test]
fn acceptance_statistics_sum_every_chain() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let chains = 9001;
    let mut settings = pmlt_settings(&gpu, 32, chains, 3, 1 << 12);
    settings.mlt.proposals = 1;
    let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
    let (_, stats) = renderer.render_with_progress(|_| {}).unwrap();
    let pmlt = renderer.integrator().as_any().downcast_ref::<Pmlt>().unwrap();
    let states: Vec<MltChain> = pmlt.chains().read_back(&gpu.context, chains as usize).unwrap();
    let lengths = stats.pmlt.unwrap().lengths;
    assert!(lengths.iter().any(|l| l.chains > MLT_STATS_RUN), "{lengths:?}");
    assert!(
        lengths.iter().any(|l| l.chains > 0 && l.chains < MLT_STATS_RUN),
        "{lengths:?}"
    );
    for length in &lengths {
        let of_length: Vec<&MltChain> = states.iter().filter(|c| c.path_length == length.length).collect();
        assert_eq!(of_length.len(), length.chains as usize, "length {}", length.length);
        let iterations: f64 = of_length.iter().map(|c| f64::from(c.iterations)).sum();
        if iterations == 0.0 {
            continue;
        }
        let acceptance = of_length.iter().map(|c| f64::from(c.acceptance)).sum::<f64>() / iterations;
        let moves = of_length.iter().map(|c| f64::from(c.moves)).sum::<f64>() / iterations;
        assert!(
            (length.acceptance - acceptance).abs() <= 1e-5 * acceptance.max(1e-3),
            "length {}: acceptance {} against {acceptance}",
            length.length,
            length.acceptance
        );
        assert!(
            (length.move_rate - moves).abs() <= 1e-5 * moves.max(1e-3),
            "length {}: moves {} against {moves}",
            length.length,
            length.move_rate
        );
    }
    gpu.finish();
}
