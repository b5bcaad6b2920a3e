//! One render over several devices in one process: each device gets its own context, scene
//! upload, acceleration structures and renderer, and takes chunks of the sample range from a
//! shared counter as it finishes the last one, so that a faster device renders more (no fixed
//! split). Each chunk is a progressive pass (`Renderer::render_samples`), which adds to the
//! device's fixed-point film exactly what the same samples add in a one-device render; the
//! films' integer sums then add up to that render's film bit for bit, whatever the number of
//! devices and the order the chunks finish in.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use crate::gpu::{Context, GpuError, GpuResult};
use crate::integrator::{RenderSettings, Renderer};
use crate::scene::Scene;

/// About this many camera paths a chunk: enough that a pass's start and drain cost little
/// (16-spp passes of 1024 x 1024 ran as fast as one render on the H100: docs/BENCHMARKS.md).
const CHUNK_CAMERA_PATHS: u64 = 1 << 24;
/// Chunks per device at least, where the samples allow, so that the last ones balance.
const MIN_CHUNKS_PER_DEVICE: u32 = 4;

/// The sample range `first_sample .. first_sample + samples`, cut into chunks of `chunk`
/// samples (the last may be shorter) handed out in `order` (indices of chunks).
#[derive(Clone, Debug)]
pub struct Chunks {
    pub first_sample: u32,
    pub samples: u32,
    pub chunk: u32,
    pub order: Vec<u32>,
}

impl Chunks {
    /// Chunks in sample order, of `chunk` samples or, for `None`, of about
    /// `CHUNK_CAMERA_PATHS` camera paths and at least `MIN_CHUNKS_PER_DEVICE` per device.
    pub fn new(first_sample: u32, samples: u32, pixels: u64, devices: usize, chunk: Option<u32>) -> Self {
        let chunk = chunk.unwrap_or_else(|| {
            let by_paths = CHUNK_CAMERA_PATHS.div_ceil(pixels.max(1)).min(u64::from(u32::MAX)) as u32;
            let by_devices = samples.div_ceil(MIN_CHUNKS_PER_DEVICE * devices.max(1) as u32);
            by_paths.min(by_devices)
        });
        let chunk = chunk.clamp(1, samples.max(1));
        Self {
            first_sample,
            samples,
            chunk,
            order: (0..samples.div_ceil(chunk)).collect(),
        }
    }

    /// Chunk `index`'s first sample and length.
    fn range(&self, index: u32) -> (u32, u32) {
        let start = index * self.chunk;
        (self.first_sample + start, self.chunk.min(self.samples - start))
    }
}

/// What one device did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceShare {
    pub device: String,
    pub chunks: u32,
    /// Camera paths (pixels x samples) it rendered.
    pub camera_paths: u64,
    /// Opening the renderer: scene upload, acceleration structures, pipelines.
    pub setup_seconds: f64,
    /// Wall time inside its chunks, and the GPU's part of it.
    pub busy_seconds: f64,
    pub gpu_seconds: f64,
    /// From the start of rendering to the last device's end, the time it had no chunk.
    pub idle_seconds: f64,
}

impl DeviceShare {
    pub fn samples_per_second(&self) -> f64 {
        self.camera_paths as f64 / self.busy_seconds.max(1e-9)
    }
}

/// The devices' films added up, and what each did.
pub struct SplitRender {
    /// Three fixed-point sums a pixel, as `Film::read_sums`.
    pub sums: Vec<u64>,
    pub devices: Vec<DeviceShare>,
    /// From the start of rendering (every renderer open) to the last chunk's end.
    pub render_seconds: f64,
}

struct DeviceRun {
    share: DeviceShare,
    finished: Instant,
    sums: Vec<u64>,
}

/// Renders `chunks` of `settings` (whose `spp` is ignored) on every context.
pub fn render_split(
    contexts: &[Context],
    scene: &Scene,
    settings: &RenderSettings,
    chunks: &Chunks,
) -> GpuResult<SplitRender> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    // Every renderer opens before the clock starts, so that idle time is rendering's only.
    let ready = Barrier::new(contexts.len());
    let started = Mutex::new(None);
    let runs: Vec<GpuResult<DeviceRun>> = std::thread::scope(|threads| {
        let handles: Vec<_> = contexts
            .iter()
            .map(|context| {
                let work = DeviceWork {
                    context,
                    scene,
                    settings,
                    chunks,
                    next: &next,
                    failed: &failed,
                    ready: &ready,
                    started: &started,
                };
                threads.spawn(move || work.run())
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or_else(|_| Err(panicked())))
            .collect()
    });
    let runs: Vec<DeviceRun> = runs.into_iter().collect::<GpuResult<_>>()?;
    let start = started.into_inner().ok().flatten().unwrap_or_else(Instant::now);
    let end = runs.iter().map(|r| r.finished).max().unwrap_or(start);
    let render_seconds = end.duration_since(start).as_secs_f64();
    let mut sums = vec![0u64; runs.first().map_or(0, |r| r.sums.len())];
    let mut devices = Vec::new();
    for mut run in runs {
        for (sum, add) in sums.iter_mut().zip(&run.sums) {
            *sum = sum.wrapping_add(*add);
        }
        run.share.idle_seconds = (render_seconds - run.share.busy_seconds).max(0.0);
        devices.push(run.share);
    }
    Ok(SplitRender {
        sums,
        devices,
        render_seconds,
    })
}

fn panicked() -> GpuError {
    GpuError::InvalidUse {
        name: "multi-device render".into(),
        problem: "a device's thread panicked".into(),
    }
}

/// One device's thread.
struct DeviceWork<'a> {
    context: &'a Context,
    scene: &'a Scene,
    settings: &'a RenderSettings,
    chunks: &'a Chunks,
    next: &'a AtomicUsize,
    failed: &'a AtomicBool,
    ready: &'a Barrier,
    started: &'a Mutex<Option<Instant>>,
}

impl DeviceWork<'_> {
    fn run(self) -> GpuResult<DeviceRun> {
        let adapter = self.context.adapter();
        let device = format!("[{}] {}", adapter.index, adapter.name);
        let opening = Instant::now();
        let settings = RenderSettings {
            spp: self.chunks.chunk,
            ..self.settings.clone()
        };
        let renderer = Renderer::new(self.context, self.scene, &settings);
        let setup_seconds = opening.elapsed().as_secs_f64();
        if renderer.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        // Reached by every thread, failed or not, so that none waits for ever.
        self.ready.wait();
        self.started
            .lock()
            .map(|mut started| *started.get_or_insert_with(Instant::now))
            .ok();
        let mut renderer = renderer.map_err(|e| named(&device, e))?;
        let mut share = DeviceShare {
            device: device.clone(),
            chunks: 0,
            camera_paths: 0,
            setup_seconds,
            busy_seconds: 0.0,
            gpu_seconds: 0.0,
            idle_seconds: 0.0,
        };
        let pixels = settings.covered().pixels();
        while !self.failed.load(Ordering::Relaxed) {
            let Some(&index) = self.chunks.order.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let (first, count) = self.chunks.range(index);
            let report = renderer.render_samples(first, count).inspect_err(|_| {
                self.failed.store(true, Ordering::Relaxed);
            });
            let report = report.map_err(|e| named(&device, e))?;
            share.chunks += 1;
            share.camera_paths += pixels * u64::from(count);
            share.busy_seconds += report.wall_seconds;
            share.gpu_seconds += report.gpu_seconds;
        }
        let finished = Instant::now();
        let sums = renderer.film().read_sums(self.context).map_err(|e| named(&device, e))?;
        Ok(DeviceRun { share, finished, sums })
    }
}

fn named(device: &str, error: GpuError) -> GpuError {
    GpuError::InvalidUse {
        name: format!("device {device}"),
        problem: error.to_string(),
    }
}
