//! The GPU random numbers equal their CPU twin bit for bit, and are uniform and independent
//! enough for sampling: the path tracer's hash and Metropolis' Squares32.

use crate::common;

use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, ComputePipeline};
use wavetrace::interface::{RngProbePush, SquaresProbePush};
use wavetrace::rng;

#[test]
fn gpu_and_cpu_give_the_same_bits() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (count, dimensions) = (1025u32, 7u32);
    let values = Buffer::gpu_storage(context, "rng values", u64::from(count * dimensions) * 4).unwrap();
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

/// Chi-square of `counts` against an even spread of their total.
fn chi_square(counts: &[u32]) -> f64 {
    let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    let expected = total / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (f64::from(c) - expected).powi(2) / expected)
        .sum()
}

#[test]
fn squares32_is_the_published_algorithm() {
    // (counter, key, output) from the paper's C code (arXiv:2004.06278, squares32) compiled
    // with gcc; counters at 0, 1, across 2^32 and next to 2^64.
    let known: [(u64, u64, u32); 12] = [
        (0x0000000000000000, 0xc58efd154ce32f6d, 0x8352d815),
        (0x0000000000000001, 0xc58efd154ce32f6d, 0x4d645c71),
        (0x00000000ffffffff, 0xc58efd154ce32f6d, 0x830ed5b9),
        (0xfffffffffffffffe, 0xc58efd154ce32f6d, 0x63090ee9),
        (0x0000000000000000, 0x836cdc3a1af658b7, 0x70a7b681),
        (0x0000000000000001, 0x836cdc3a1af658b7, 0xbb3121d4),
        (0x00000000ffffffff, 0x836cdc3a1af658b7, 0x17c06d30),
        (0xfffffffffffffffe, 0x836cdc3a1af658b7, 0x5bac0505),
        (0x0000000000000000, 0x1234567f9abcdef1, 0x786d4907),
        (0x0000000000000001, 0x1234567f9abcdef1, 0x8f5ddf49),
        (0x00000000ffffffff, 0x1234567f9abcdef1, 0x87c6ee7a),
        (0xfffffffffffffffe, 0x1234567f9abcdef1, 0xfa2700a5),
    ];
    for (counter, key, output) in known {
        assert_eq!(
            rng::squares32(counter, key),
            output,
            "counter {counter:#x} key {key:#x}"
        );
    }
}

#[test]
fn squares_keys_follow_the_papers_rules_and_differ() {
    let mut keys = std::collections::HashSet::new();
    for seed in [0u32, 1, u32::MAX] {
        for chain in 0..10_000u32 {
            let key = rng::squares_key(seed, chain);
            let digits: Vec<u64> = (0..16).map(|d| (key >> (4 * d)) & 0xf).collect();
            assert!(digits[0] % 2 == 1, "{key:#x}: lowest digit even");
            assert!(digits.iter().all(|&d| d != 0), "{key:#x}: a zero digit");
            for (i, d) in digits[..8].iter().enumerate() {
                assert!(!digits[..i].contains(d), "{key:#x}: low digits repeat");
            }
            for i in 8..16 {
                assert_ne!(digits[i], digits[i - 1], "{key:#x}: neighbouring upper digits equal");
            }
            assert!(keys.insert(key), "{key:#x} twice");
        }
    }
}

#[test]
fn squares_numbers_are_uniform_and_chains_uncorrelated() {
    let n = 1u32 << 20;
    let mut counts = vec![0u32; 64];
    let mut consecutive = vec![0u32; 16];
    let mut across_chains = vec![0u32; 16];
    let key = rng::squares_key(7, 0);
    let neighbour = rng::squares_key(7, 1);
    for counter in 0..u64::from(n) {
        let a = rng::squares_uniform(counter, key);
        let b = rng::squares_uniform(counter + 1, key);
        let c = rng::squares_uniform(counter, neighbour);
        assert!((0.0..1.0).contains(&a));
        counts[(a * 64.0) as usize] += 1;
        consecutive[(a * 4.0) as usize * 4 + (b * 4.0) as usize] += 1;
        across_chains[(a * 4.0) as usize * 4 + (c * 4.0) as usize] += 1;
    }
    // Degrees of freedom 63 and 15; five standard deviations above the mean.
    let bound = |dof: f64| dof + 5.0 * (2.0 * dof).sqrt();
    assert!(chi_square(&counts) < bound(63.0), "{}", chi_square(&counts));
    assert!(chi_square(&consecutive) < bound(15.0), "{}", chi_square(&consecutive));
    assert!(
        chi_square(&across_chains) < bound(15.0),
        "{}",
        chi_square(&across_chains)
    );
}

#[test]
fn squares_on_the_gpu_gives_the_cpus_bits() {
    let gpu = common::gpu();
    let context = &gpu.context;
    // An awkward count: not a multiple of any workgroup.
    let count = 1025u32;
    let values = Buffer::gpu_storage(context, "squares values", u64::from(count) * 8).unwrap();
    let pipeline = ComputePipeline::<SquaresProbePush>::new(context, ids::DIAGNOSTICS_SQUARES_PROBE, &[]).unwrap();
    // Counters from 0, across 2^32 (the 64-bit arithmetic's carries) and wrapping past 2^64.
    let starts = [0u64, (1 << 32) - 500, u64::MAX - 600];
    for (chain, &first_counter) in starts.iter().enumerate() {
        let key = rng::squares_key(3, chain as u32);
        let push = SquaresProbePush {
            values: values.address(),
            key,
            first_counter,
            count,
            pad0: 0,
        };
        common::run_probe(context, &pipeline, &push, count);
        let got: Vec<u32> = values.read_back(context, 2 * count as usize).unwrap();
        for i in 0..count as usize {
            let counter = first_counter.wrapping_add(i as u64);
            assert_eq!(
                got[i],
                rng::squares32(counter, key),
                "counter {counter:#x} key {key:#x}"
            );
            assert_eq!(
                got[count as usize + i],
                rng::squares_uniform(counter, key).to_bits(),
                "uniform at counter {counter:#x}"
            );
        }
    }
    drop((pipeline, values));
    gpu.finish();
}
