//! The GPU random numbers equal their CPU twin bit for bit, and are uniform and independent
//! enough for sampling.

mod common;

use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, MemoryLocation};
use wavetrace::interface::RngProbePush;
use wavetrace::rng;

#[test]
fn gpu_and_cpu_give_the_same_bits() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (count, dimensions) = (1025u32, 7u32);
    let values = Buffer::new(
        context,
        "rng values",
        u64::from(count * dimensions) * 4,
        BufferUsage::STORAGE,
        MemoryLocation::GpuOnly,
    )
    .unwrap();
    let pipeline = ComputePipeline::<RngProbePush>::new(context, ids::DIAGNOSTICS_RNG_PROBE, &[]).unwrap();
    for (seed, sample, bounce) in [(0u32, 0u32, 0u32), (42, 17, 3), (u32::MAX, 65_535, 7)] {
        let push = RngProbePush {
            values: values.address(),
            count,
            dimensions,
            seed,
            sample_index: sample,
            bounce,
            pad0: 0,
        };
        common::run_probe(context, &pipeline, &push, count);
        let got: Vec<f32> = values.read_back(context, (count * dimensions) as usize).unwrap();
        for path in 0..count {
            for dimension in 0..dimensions {
                let want = rng::random(seed, path, sample, bounce, dimension);
                let have = got[(path * dimensions + dimension) as usize];
                assert_eq!(
                    have.to_bits(),
                    want.to_bits(),
                    "seed {seed} path {path} sample {sample} bounce {bounce} dim {dimension}"
                );
            }
        }
    }
    drop((pipeline, values));
    gpu.finish();
}

#[test]
fn numbers_are_uniform_and_neighbours_uncorrelated() {
    let n = 1u32 << 20;
    let bins = 64usize;
    let mut counts = vec![0u32; bins];
    let mut pair_counts = vec![0u32; 16];
    for path in 0..n {
        let a = rng::random(7, path, 3, 1, 0);
        let b = rng::random(7, path, 3, 1, 1);
        assert!((0.0..1.0).contains(&a));
        counts[(a * bins as f32) as usize] += 1;
        // Consecutive dimensions of one path: a 4x4 grid of (a, b) must fill evenly.
        pair_counts[(a * 4.0) as usize * 4 + (b * 4.0) as usize] += 1;
    }
    let chi2 = |counts: &[u32]| {
        let expected = n as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (f64::from(c) - expected).powi(2) / expected)
            .sum::<f64>()
    };
    // Degrees of freedom 63 and 15; five standard deviations above the mean.
    assert!(chi2(&counts) < 63.0 + 5.0 * (2.0f64 * 63.0).sqrt(), "{}", chi2(&counts));
    assert!(
        chi2(&pair_counts) < 15.0 + 5.0 * (2.0f64 * 15.0).sqrt(),
        "{}",
        chi2(&pair_counts)
    );
    // Different samples of one path differ.
    assert_ne!(rng::random_bits(1, 2, 3, 4, 5), rng::random_bits(1, 2, 4, 4, 5));
}
