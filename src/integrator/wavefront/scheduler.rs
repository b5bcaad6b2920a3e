//! The two wavefront schedulers (`--schedule gpu|cycles`), over the steps `WavefrontKernels`
//! records.
//!
//! * **GPU-driven**: one recording holds `ITERATIONS_PER_SUBMISSION` iterations, each a step
//!   of every kernel in `kernel_graph::flow_order()` (regenerate, extend, sort + shade,
//!   connect), every launch indirect from GPU-written counts; an empty queue costs a
//!   zero-size launch. The CPU never reads a count to choose what runs; it replays the
//!   recording until the render is done, which it learns from the queue state the recording
//!   copies to host-visible memory at its end (read after the fence it waits on anyway for the
//!   profiler), so at most one recording's worth of empty iterations is wasted.
//! * **Cycles-style**: one recording per kernel step; after each, the CPU reads the queue counts
//!   (a 256-byte copy to host-visible memory, read after the step's fence) and runs next the
//!   kernel with the most queued paths, as Cycles does, regenerating when fewer than a quarter
//!   of the slots are active (`REGENERATION_SHARE`, as the GPU-driven schedule does) and the
//!   shade queue is empty, and running connect first when shading could overflow the
//!   shadow-path space. Each step therefore costs a submit and a wait: the read-back's price,
//!   which `RenderStats::host_wait_seconds` measures.

use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult, MemoryLocation, Profiler, ScopeTiming,
};
use crate::integrator::contract::SUBMISSION_SCOPE;
use crate::integrator::Schedule;
use crate::interface::{QueueState, REGENERATION_SHARE};
use crate::trace::{barrier, TraceBackend};

use super::kernel_graph::{self, Kernel, Queue};
use super::kernels::{StepInputs, WavefrontKernels};

/// Iterations per GPU-driven recording: long enough that a submit is rare, short enough that
/// the empty iterations after the last path (at most this many) cost little.
pub const ITERATIONS_PER_SUBMISSION: u32 = 16;

/// What a scheduled render did.
pub struct ScheduleRun {
    pub timings: Vec<ScopeTiming>,
    pub submissions: u64,
    /// Kernel steps run (iterations x kernels for the GPU-driven schedule).
    pub steps: u64,
}

/// What a render asks of the scheduler.
#[derive(Clone, Copy, Debug)]
pub struct Work {
    pub schedule: Schedule,
    pub backend: TraceBackend,
    pub slots: u32,
    /// Pixels x samples.
    pub camera_paths: u64,
    pub max_depth: u32,
}

/// Work recorded at the start of each GPU-driven submission and each Cycles-style regenerate
/// step (the light tree rebuild of `--rebuild-lights`), with the profiler scopes it opens.
pub struct Prelude<'a> {
    pub record: &'a dyn Fn(&mut CommandBuffer, &mut Profiler) -> GpuResult<()>,
    pub scopes: u32,
}

struct Recording {
    kernel: Option<Kernel>,
    commands: CommandBuffer,
    profiler: Profiler,
}

pub struct Scheduler {
    schedule: Schedule,
    recordings: Vec<Recording>,
    status: Buffer,
    slots: u32,
    max_depth: u32,
}

impl Scheduler {
    pub fn new(
        context: &Context,
        work: &Work,
        kernels: &WavefrontKernels,
        inputs: &StepInputs<'_>,
        prelude: &Prelude<'_>,
    ) -> GpuResult<Self> {
        let Work {
            schedule,
            backend,
            slots,
            camera_paths,
            max_depth,
        } = *work;
        let bytes = std::mem::size_of::<QueueState>() as u64;
        let mut status = Buffer::new(
            context,
            "queue status (host)",
            bytes,
            BufferUsage::STORAGE,
            MemoryLocation::GpuToCpu,
        )?;
        status.write(
            0,
            &[QueueState {
                camera_paths,
                ..QueueState::default()
            }],
        )?;
        let record = |kernels_in_order: &[Kernel], repeat: u32, name: &str| -> GpuResult<Recording> {
            let scopes: u32 =
                kernels_in_order.iter().map(|&k| kernels.scopes(k)).sum::<u32>() * repeat + 1 + prelude.scopes;
            let mut commands = CommandBuffer::new(context, name)?;
            let mut profiler = Profiler::new(context, name, scopes)?;
            commands.begin(context)?;
            commands.use_textures(inputs.textures);
            profiler.reset(&mut commands);
            let whole = profiler.begin(&mut commands, SUBMISSION_SCOPE)?;
            if kernels_in_order.first() == Some(&Kernel::Generate) {
                (prelude.record)(&mut commands, &mut profiler)?;
                barrier(backend, &mut commands);
            }
            for _ in 0..repeat {
                for &kernel in kernels_in_order {
                    kernels.record_step(kernel, &mut commands, &mut profiler, inputs)?;
                }
            }
            profiler.end(&mut commands, whole)?;
            barrier(backend, &mut commands);
            commands.copy_buffer(inputs.queues, 0, &status, 0, bytes);
            commands.host_read_barrier();
            commands.end()?;
            Ok(Recording {
                kernel: kernels_in_order
                    .first()
                    .copied()
                    .filter(|_| kernels_in_order.len() == 1),
                commands,
                profiler,
            })
        };
        let recordings = match schedule {
            Schedule::Gpu => vec![record(
                &kernel_graph::flow_order(),
                ITERATIONS_PER_SUBMISSION,
                "wavefront iterations",
            )?],
            Schedule::Cycles => kernel_graph::flow_order()
                .into_iter()
                .map(|kernel| record(&[kernel], 1, kernel_graph::node(kernel).name))
                .collect::<GpuResult<_>>()?,
        };
        Ok(Self {
            schedule,
            recordings,
            status,
            slots,
            max_depth,
        })
    }

    /// Every iteration that starts with camera paths left moves at least 1 / REGENERATION_SHARE
    /// of the slots one segment on, and the last paths need at most max_depth more: a bound
    /// that only a bug can pass.
    fn max_iterations(&self, camera_paths: u64) -> u64 {
        let segments = camera_paths.saturating_mul(u64::from(self.max_depth));
        u64::from(REGENERATION_SHARE) * segments.div_ceil(u64::from(self.slots)) + u64::from(self.max_depth) + 2
    }

    /// Sets the host's copy of the queue state to a render's start, as the renderer sets the
    /// queues themselves before a progressive render's next pass: `run` reads it first.
    pub fn record_restart(&self, commands: &mut CommandBuffer, start: &QueueState) {
        commands.update_buffer(&self.status, 0, std::slice::from_ref(start));
        commands.host_read_barrier();
    }

    fn read_status(&self) -> GpuResult<QueueState> {
        Ok(self.status.read::<QueueState>(0, 1)?[0])
    }

    /// Runs the pass's `camera_paths` to their end; `progress` gets the share started.
    pub fn run(
        &mut self,
        context: &Context,
        camera_paths: u64,
        progress: &mut dyn FnMut(f64),
    ) -> GpuResult<ScheduleRun> {
        let max_iterations = self.max_iterations(camera_paths);
        let mut run = ScheduleRun {
            timings: Vec::new(),
            submissions: 0,
            steps: 0,
        };
        let mut status = self.read_status()?;
        let mut iterations = 0u64;
        loop {
            let done =
                status.next_camera_path >= camera_paths && status.queued.x + status.queued.y + status.queued.z == 0;
            if done {
                return Ok(run);
            }
            let index = match self.schedule {
                Schedule::Gpu => 0,
                Schedule::Cycles => {
                    let kernel = most_waited_for(&status, self.slots, camera_paths);
                    self.recordings
                        .iter()
                        .position(|r| r.kernel == Some(kernel))
                        .expect("a recording per kernel")
                }
            };
            let recording = &mut self.recordings[index];
            recording.commands.submit_and_wait(context)?;
            run.timings.extend(recording.profiler.resolve()?);
            run.submissions += 1;
            match self.schedule {
                Schedule::Gpu => {
                    iterations += u64::from(ITERATIONS_PER_SUBMISSION);
                    run.steps += u64::from(ITERATIONS_PER_SUBMISSION) * kernel_graph::GRAPH.len() as u64;
                }
                Schedule::Cycles => {
                    run.steps += 1;
                    if recording.kernel == Some(Kernel::Generate) {
                        iterations += 1;
                    }
                }
            }
            status = self.read_status()?;
            progress(status.next_camera_path as f64 / camera_paths as f64);
            let over = match self.schedule {
                Schedule::Gpu => iterations > max_iterations + u64::from(ITERATIONS_PER_SUBMISSION),
                Schedule::Cycles => run.steps > 4 * max_iterations + 8,
            };
            if over {
                return Err(GpuError::InvalidUse {
                    name: "wavefront scheduler".into(),
                    problem: format!(
                        "not finished after {} steps ({} of {} camera paths started, queues {:?}): a scheduling bug",
                        run.steps, status.next_camera_path, camera_paths, status.queued
                    ),
                });
            }
        }
    }
}

/// Cycles' choice: regenerate when under 1 / REGENERATION_SHARE of the slots are busy, as
/// `prepare_regenerate` decides (and nothing waits for shading, which compaction requires),
/// else the kernel with the most queued paths, but connect before a shade whose shadow paths
/// might not fit.
pub fn most_waited_for(status: &QueueState, slots: u32, camera_paths: u64) -> Kernel {
    let queued = |queue: Queue| status.queued.to_array()[queue.index()];
    let active = queued(Queue::Extend) + queued(Queue::Shade);
    if queued(Queue::Shade) == 0
        && u64::from(active) * u64::from(REGENERATION_SHARE) < u64::from(slots)
        && status.next_camera_path < camera_paths
    {
        return Kernel::Generate;
    }
    // Ties go to the queue earlier in the graph's flow (`Queue::ALL`), whatever the counters' order.
    let (_, busiest) = Queue::ALL
        .into_iter()
        .enumerate()
        .max_by_key(|&(order, queue)| (queued(queue), std::cmp::Reverse(order)))
        .expect("queues exist");
    let kernel = kernel_graph::consumer(busiest).kernel;
    let shadow_room = slots - queued(Queue::Connect);
    if kernel_graph::creates_shadow_paths(kernel) && queued(Queue::Shade) > shadow_room {
        return kernel_graph::consumer(Queue::Connect).kernel;
    }
    kernel
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::UVec4;

    fn status(extend: u32, shade: u32, connect: u32, next: u64) -> QueueState {
        let mut queued = [0; 4];
        for (queue, count) in [
            (Queue::Extend, extend),
            (Queue::Shade, shade),
            (Queue::Connect, connect),
        ] {
            queued[queue.index()] = count;
        }
        QueueState {
            queued: UVec4::from_array(queued),
            next_camera_path: next,
            ..QueueState::default()
        }
    }

    #[test]
    fn the_cycles_scheduler_runs_what_most_paths_wait_for_with_room_for_shadows() {
        let (slots, paths) = (1000, 10_000);
        // Under a quarter busy, nothing waiting for shading, camera paths left: regenerate.
        assert_eq!(most_waited_for(&status(249, 0, 0, 0), slots, paths), Kernel::Generate);
        assert_eq!(most_waited_for(&status(250, 0, 0, 0), slots, paths), Kernel::Extend);
        // Compaction needs every path in the extend queue: shade first.
        assert_eq!(
            most_waited_for(&status(0, 10, 0, 0), slots, paths),
            Kernel::ShadeSurface
        );
        // No camera paths left: the busiest queue, however few paths remain.
        assert_eq!(most_waited_for(&status(3, 0, 2, paths), slots, paths), Kernel::Extend);
        assert_eq!(most_waited_for(&status(600, 0, 700, 0), slots, paths), Kernel::Connect);
        assert_eq!(
            most_waited_for(&status(0, 600, 300, 0), slots, paths),
            Kernel::ShadeSurface
        );
        // 600 shades could make 600 shadow paths; 500 fit after the 500 queued: connect first.
        assert_eq!(most_waited_for(&status(0, 600, 500, 0), slots, paths), Kernel::Connect);
        // Ties go to the earlier queue in the graph.
        assert_eq!(most_waited_for(&status(500, 0, 500, 0), slots, paths), Kernel::Extend);
        assert_eq!(
            most_waited_for(&status(0, 400, 400, 0), slots, paths),
            Kernel::ShadeSurface
        );
    }
}
