//! The GPU prefix sum against a CPU scan, on random inputs of awkward lengths.

use crate::common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::{Buffer, BufferUsage, CommandBuffer, Context};
use wavetrace::primitives::scan::{PrefixSum, ScanElement, BLOCK};

/// Around subgroup, block and level edges: 1, 31/32/33 (NVIDIA subgroup), 1023/1024/1025
/// (one block), 10^6+7 (two levels) and BLOCK^2+1 (three levels).
const LENGTHS: [u64; 9] = [1, 31, 32, 33, 1023, 1024, 1025, 1_000_007, BLOCK * BLOCK + 1];

fn cpu_scan_u32(values: &[u32]) -> Vec<u32> {
    values
        .iter()
        .scan(0u32, |sum, &v| {
            *sum = sum.wrapping_add(v);
            Some(*sum)
        })
        .collect()
}

fn cpu_scan_f64(values: &[f32]) -> Vec<f64> {
    values
        .iter()
        .scan(0f64, |sum, &v| {
            *sum += f64::from(v);
            Some(*sum)
        })
        .collect()
}

fn gpu_scan<T: bytemuck::Pod>(context: &Context, scan: &PrefixSum, values: &[T]) -> Vec<T> {
    let input = Buffer::from_slice(context, "scan input", values, BufferUsage::STORAGE).unwrap();
    let output = Buffer::new(
        context,
        "scan output",
        std::mem::size_of_val(values) as u64,
        BufferUsage::STORAGE,
        wavetrace::gpu::MemoryLocation::GpuOnly,
    )
    .unwrap();
    scan.run(context, &input, &output, values.len() as u64).unwrap();
    output.read_back(context, values.len()).unwrap()
}

#[test]
fn u32_scan_matches_cpu_exactly() {
    let gpu = common::gpu();
    let scan = PrefixSum::new(&gpu.context, ScanElement::U32).unwrap();
    let mut rng = SmallRng::seed_from_u64(0x5ca1);
    for &n in &LENGTHS {
        // Full-range values: the sums wrap, and wrapping must match too.
        let values: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let got = gpu_scan(&gpu.context, &scan, &values);
        let want = cpu_scan_u32(&values);
        if let Some(i) = (0..values.len()).find(|&i| got[i] != want[i]) {
            panic!("length {n}: element {i} is {} but should be {}", got[i], want[i]);
        }
    }
    gpu.finish();
}

#[test]
fn f32_scan_matches_float64_within_rounding() {
    let gpu = common::gpu();
    let scan = PrefixSum::new(&gpu.context, ScanElement::F32).unwrap();
    let mut rng = SmallRng::seed_from_u64(0xf10a7);
    for &n in &LENGTHS {
        let values: Vec<f32> = (0..n).map(|_| rng.random::<f32>()).collect();
        let got = gpu_scan(&gpu.context, &scan, &values);
        let want = cpu_scan_f64(&values);
        // Rounding grows with the depth of the summation tree, about log2(n) additions.
        let tolerance = 4.0 * f64::from(f32::EPSILON) * (n as f64).log2().max(1.0);
        let worst = (0..values.len())
            .map(|i| ((f64::from(got[i]) - want[i]).abs() / want[i].max(1e-30), i))
            .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(
            worst.0 <= tolerance,
            "length {n}: element {} has relative error {:.3e} (tolerance {tolerance:.3e})",
            worst.1,
            worst.0
        );
    }
    gpu.finish();
}

#[test]
fn scan_works_in_place_and_replays_one_recording() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scan = PrefixSum::new(context, ScanElement::U32).unwrap();
    let n = 70_001u64;
    let ones = vec![1u32; n as usize];
    let source = Buffer::from_slice(context, "ones", &ones, BufferUsage::STORAGE).unwrap();
    let values = Buffer::from_slice(context, "values", &ones, BufferUsage::STORAGE).unwrap();
    let scratch = PrefixSum::new_scratch(context, n).unwrap();

    // Recorded once: reset `values` from `source`, then scan it in place.
    let mut commands = CommandBuffer::new(context, "replayed scan").unwrap();
    commands.begin(context).unwrap();
    commands.copy_buffer(&source, 0, &values, 0, n * 4);
    commands.compute_barrier();
    scan.record(&mut commands, &values, &values, n, &scratch).unwrap();
    commands.end().unwrap();

    for replay in 0..3 {
        commands.submit_and_wait(context).unwrap();
        let got: Vec<u32> = values.read_back(context, n as usize).unwrap();
        assert!(
            got.iter().enumerate().all(|(i, &v)| v == i as u32 + 1),
            "replay {replay} differs"
        );
    }
    drop(commands);
    gpu.finish();
}

#[test]
fn scan_rejects_buffers_that_are_too_small() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scan = PrefixSum::new(context, ScanElement::F32).unwrap();
    let small = Buffer::from_slice(context, "small", &[1.0f32; 10], BufferUsage::STORAGE).unwrap();
    let error = scan.run(context, &small, &small, 11).unwrap_err().to_string();
    assert!(error.contains("small") && error.contains("too small"), "{error}");
    gpu.finish();
}
