//! The wavefront's data-parallel kernels against CPU versions on random inputs of awkward
//! sizes: the counting sort by material, and the regeneration step (compaction of the active
//! paths to the first slots, new camera paths from the tiles after them).

use crate::common;

use glam::{UVec4, Vec3};
use wavetrace::gpu::{Buffer, BufferUsage, CommandBuffer, Context, Profiler, TextureSet};
use wavetrace::integrator::wavefront::kernel_graph::Kernel;
use wavetrace::integrator::wavefront::path_state::{PathState, Sorts};
use wavetrace::integrator::wavefront::{tiled_pixel, StepInputs, WavefrontKernels};
use wavetrace::integrator::Crop;
use wavetrace::integrator::KernelFeatures;
use wavetrace::interface::{KernelCounters, PassConstants, QueueState, REGENERATION_SHARE};
use wavetrace::primitives::{CountingSort, SortArrays, SortLaunch};

/// xorshift64*: reproducible inputs without a dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

fn upload<T: bytemuck::Pod>(context: &Context, name: &str, data: &[T]) -> Buffer {
    Buffer::from_slice(context, name, data, BufferUsage::STORAGE).unwrap()
}

/// Sorted by bucket, bucket runs where a CPU counting sort puts them, each run the same set
/// of values; run twice on one sorter, so the counts it leaves behind must be zero.
#[test]
fn the_counting_sort_groups_by_key_like_the_cpu() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut random = Random(0x5eed);
    for buckets in [1u32, 3, 17, 1024] {
        let sort = CountingSort::new(context, buckets).unwrap();
        for count in [1u32, 7, 255, 1023, 1024, 1025, 4099, 100_003, (1 << 20) + 3] {
            // Skewed keys: half the items in one bucket, as materials are in real scenes.
            let keys: Vec<u32> = (0..count)
                .map(|_| if random.below(2) == 0 { 0 } else { random.below(buckets) })
                .collect();
            let values: Vec<u32> = (0..count).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            let keys_buffer = upload(context, "keys", &keys);
            let values_buffer = upload(context, "values", &values);
            let count_buffer = upload(context, "count", &[count]);
            let sorted = upload(context, "sorted", &vec![u32::MAX; count as usize]);
            let copy = upload(context, "copy", &vec![u32::MAX; count as usize]);
            let mut cpu_runs = vec![Vec::new(); buckets as usize];
            for (&key, &value) in keys.iter().zip(&values) {
                cpu_runs[key as usize].push(value);
            }
            // The second round also asks for the values copied in their own order.
            for round in 0..2 {
                let copied = round == 1;
                let arrays = SortArrays {
                    keys: keys_buffer.address(),
                    values: values_buffer.address(),
                    sorted: sorted.address(),
                    count: count_buffer.address(),
                    unsorted_copy: if copied { copy.address() } else { 0 },
                };
                context
                    .run_once("counting sort", |commands| {
                        sort.record(
                            commands,
                            &arrays,
                            SortLaunch::Direct(count),
                            &mut |commands, _, record| {
                                record(commands);
                                Ok(())
                            },
                        )
                    })
                    .unwrap();
                let result: Vec<u32> = sorted.read_back(context, count as usize).unwrap();
                let mut start = 0;
                for (bucket, run) in cpu_runs.iter().enumerate() {
                    let mut got = result[start..start + run.len()].to_vec();
                    let mut want = run.clone();
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(
                        got, want,
                        "{count} items, {buckets} buckets, bucket {bucket}, round {round}"
                    );
                    start += run.len();
                }
                let copy_now: Vec<u32> = copy.read_back(context, count as usize).unwrap();
                if copied {
                    assert_eq!(copy_now, values, "{count} items: the copy");
                } else {
                    assert!(copy_now.iter().all(|&v| v == u32::MAX), "nothing copied unless asked");
                }
            }
        }
    }
    gpu.finish();
}

/// A path's state as the regeneration sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Path {
    pixel: u32,
    sample: u32,
    origin: [u32; 3],
    direction: [u32; 3],
    throughput: [u32; 4],
}

fn read_paths(context: &Context, state: &PathState, slots: usize) -> Vec<Path> {
    let pixels: Vec<u32> = state.buffer("path pixels").unwrap().read_back(context, slots).unwrap();
    let samples: Vec<u32> = state.buffer("path samples").unwrap().read_back(context, slots).unwrap();
    let origins: Vec<[u32; 3]> = state.buffer("ray origins").unwrap().read_back(context, slots).unwrap();
    let directions: Vec<[u32; 3]> = state
        .buffer("ray directions")
        .unwrap()
        .read_back(context, slots)
        .unwrap();
    let throughputs: Vec<[u32; 4]> = state.buffer("throughputs").unwrap().read_back(context, slots).unwrap();
    (0..slots)
        .map(|i| Path {
            pixel: pixels[i],
            sample: samples[i],
            origin: origins[i],
            direction: directions[i],
            throughput: throughputs[i],
        })
        .collect()
}

fn write(context: &Context, target: &Buffer, data: &[u32]) {
    let staging = upload(context, "staging", data);
    context
        .run_once("fill", |commands| {
            commands.copy_buffer(&staging, 0, target, 0, std::mem::size_of_val(data) as u64);
            Ok(())
        })
        .unwrap();
}

/// The image camera paths come from, in the regeneration tests, and the pixels of it they
/// cover.
#[derive(Clone, Copy)]
struct Image {
    width: u32,
    height: u32,
    tile: u32,
    crop: Crop,
}

/// Runs one regeneration step over `state` from `queue_state`; returns the queue state buffer.
fn regenerate(
    context: &Context,
    kernels: &WavefrontKernels,
    state: &PathState,
    queue_state: QueueState,
    image: Image,
) -> Buffer {
    let queues = Buffer::from_slice(
        context,
        "queues",
        &[queue_state],
        BufferUsage {
            indirect: true,
            ..BufferUsage::STORAGE
        },
    )
    .unwrap();
    let counters = upload(context, "counters", &[KernelCounters::default(); 4]);
    let mut constants = PassConstants {
        queues: queues.address(),
        kernel_counters: counters.address(),
        width: image.width,
        height: image.height,
        tile_size: image.tile,
        crop_x: image.crop.x,
        crop_y: image.crop.y,
        crop_width: image.crop.width,
        crop_height: image.crop.height,
        max_depth: 8,
        camera_origin: Vec3::new(0.5, 1.0, 4.0),
        camera_forward: Vec3::NEG_Z,
        camera_right: Vec3::X,
        camera_up: Vec3::Y,
        camera_half_height: 0.4,
        aspect: image.width as f32 / image.height as f32,
        ..PassConstants::default()
    };
    state.fill(&mut constants);
    let constants_buffer = upload(context, "constants", &[constants]);
    let textures = TextureSet::new(context, &[]).unwrap();
    let inputs = StepInputs::new(constants_buffer.address(), &queues, &constants, &textures);
    let mut profiler = Profiler::new(context, "regeneration", 4).unwrap();
    let mut commands = CommandBuffer::new(context, "regeneration").unwrap();
    commands.begin(context).unwrap();
    profiler.reset(&mut commands);
    kernels
        .record_step(Kernel::Generate, &mut commands, &mut profiler, &inputs)
        .unwrap();
    commands.end().unwrap();
    commands.submit_and_wait(context).unwrap();
    queues
}

/// Random busy slots (under a quarter, so the step regenerates) with random state; after the
/// step, the busy paths' state fills the first slots unchanged (those already there stay put),
/// the freed slots after them hold the next camera paths in tile order (over the whole image,
/// or over a crop of it every other case), and the extend queue lists every slot in order.
#[test]
fn regeneration_compacts_busy_paths_and_fills_the_rest_from_the_tiles() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let backend = context.trace_backends()[0];
    let kernels = WavefrontKernels::new(context, backend, KernelFeatures::ALL, 0, false, false).unwrap();
    let mut random = Random(0xc0ffee);
    let (width, height, tile) = (37u32, 29u32, 16u32);
    let crops = [
        Crop::whole(width, height),
        Crop {
            x: 5,
            y: 3,
            width: 23,
            height: 19,
        },
    ];
    for (case, slots) in [1u32, 2, 63, 64, 65, 1000, 4097, 65_537].into_iter().enumerate() {
        let crop = crops[case % 2];
        let pixels = crop.width * crop.height;
        for busy_share in [0.0, 0.1, 0.24] {
            let busy_count = ((f64::from(slots) * busy_share) as u32).min((slots - 1) / REGENERATION_SHARE);
            let state = PathState::new(context, slots, Sorts::default()).unwrap();
            // Busy slots anywhere; each with distinct random state.
            let mut order: Vec<u32> = (0..slots).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, random.below(i as u32 + 1) as usize);
            }
            let busy: Vec<u32> = order[..busy_count as usize].to_vec();
            let mut pixel_words = vec![u32::MAX; slots as usize];
            let mut extend_queue = vec![0u32; slots as usize];
            for (i, &slot) in busy.iter().enumerate() {
                pixel_words[slot as usize] = random.below(width * height);
                extend_queue[i] = slot;
            }
            let words = |n: usize, random: &mut Random| -> Vec<u32> { (0..n).map(|_| random.next() as u32).collect() };
            write(context, state.buffer("path pixels").unwrap(), &pixel_words);
            write(
                context,
                state.buffer("path samples").unwrap(),
                &words(slots as usize, &mut random),
            );
            write(
                context,
                state.buffer("ray origins").unwrap(),
                &words(3 * slots as usize, &mut random),
            );
            write(
                context,
                state.buffer("ray directions").unwrap(),
                &words(3 * slots as usize, &mut random),
            );
            write(
                context,
                state.buffer("throughputs").unwrap(),
                &words(4 * slots as usize, &mut random),
            );
            write(context, state.buffer("extend queue").unwrap(), &extend_queue);
            let before = read_paths(context, &state, slots as usize);

            // Camera paths of sample 5 onwards, starting mid-sample, more than the free slots.
            let first = u64::from(pixels) * 5 + u64::from(random.below(pixels));
            let queue_state = QueueState {
                queued: UVec4::new(busy_count, 0, 0, 0),
                next_camera_path: first,
                camera_paths: first + u64::from(slots) * 3,
                ..QueueState::default()
            };
            let image = Image {
                width,
                height,
                tile,
                crop,
            };
            let queues = regenerate(context, &kernels, &state, queue_state, image);

            let after = read_paths(context, &state, slots as usize);
            let status: Vec<QueueState> = queues.read_back(context, 1).unwrap();
            let fresh = slots - busy_count;
            assert_eq!(status[0].queued.x, slots, "{slots} slots, {busy_count} busy");
            assert_eq!(status[0].next_camera_path, first + u64::from(fresh));
            // Busy paths below the kept count stayed; together the first slots hold them all.
            let mut kept: Vec<Path> = after[..busy_count as usize].to_vec();
            for &slot in &busy {
                if slot < busy_count {
                    assert_eq!(after[slot as usize], before[slot as usize], "slot {slot} moved");
                }
            }
            let mut wanted: Vec<Path> = busy.iter().map(|&s| before[s as usize]).collect();
            let key = |p: &Path| (p.pixel, p.sample, p.origin, p.direction, p.throughput);
            kept.sort_by_key(key);
            wanted.sort_by_key(key);
            assert_eq!(kept, wanted, "{slots} slots, {busy_count} busy");
            // New camera paths in tile order, one sample at a time, unit throughput, depth 0.
            for (i, path) in after[busy_count as usize..].iter().enumerate() {
                let camera_path = first + i as u64;
                let sample = (camera_path / u64::from(pixels)) as u32;
                let within = (camera_path % u64::from(pixels)) as u32;
                assert_eq!(path.pixel, tiled_pixel(width, crop, tile, within), "new path {i}");
                assert_eq!(path.sample, sample);
                let one = 1.0f32.to_bits();
                assert_eq!(path.throughput, [one, one, one, 0]);
                let direction = Vec3::from_array(path.direction.map(f32::from_bits));
                assert!((direction.length() - 1.0).abs() < 1e-5);
            }
            let queue: Vec<u32> = state
                .buffer("extend queue")
                .unwrap()
                .read_back(context, slots as usize)
                .unwrap();
            assert_eq!(queue, (0..slots).collect::<Vec<_>>());
        }
    }
    gpu.finish();
}

/// With a quarter of the slots or more busy, the step changes nothing: no compaction, no
/// camera paths.
#[test]
fn regeneration_waits_until_under_a_quarter_of_the_slots_are_busy() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let kernels = WavefrontKernels::new(
        context,
        context.trace_backends()[0],
        KernelFeatures::ALL,
        0,
        false,
        false,
    )
    .unwrap();
    let slots = 101u32;
    let state = PathState::new(context, slots, Sorts::default()).unwrap();
    // 26 busy slots of 101: the fewest that are not under a quarter.
    let busy: Vec<u32> = (0..slots)
        .map(|i| if i % 4 == 1 || i == 100 { i } else { u32::MAX })
        .collect();
    write(context, state.buffer("path pixels").unwrap(), &busy);
    let busy_count = busy.iter().filter(|&&p| p != u32::MAX).count() as u32;
    assert_eq!(REGENERATION_SHARE * busy_count, slots + 3);
    let queue_state = QueueState {
        queued: UVec4::new(busy_count, 0, 0, 0),
        camera_paths: 1000,
        ..QueueState::default()
    };
    let image = Image {
        width: 10,
        height: 10,
        tile: 16,
        crop: Crop::whole(10, 10),
    };
    let queues = regenerate(context, &kernels, &state, queue_state, image);
    let pixels: Vec<u32> = state
        .buffer("path pixels")
        .unwrap()
        .read_back(context, slots as usize)
        .unwrap();
    assert_eq!(pixels, busy);
    let status: Vec<QueueState> = queues.read_back(context, 1).unwrap();
    assert_eq!((status[0].queued.x, status[0].next_camera_path), (busy_count, 0));
    gpu.finish();
}
