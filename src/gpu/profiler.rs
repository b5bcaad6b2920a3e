//! GPU timings: named scopes recorded as timestamp pairs around command-buffer regions, each
//! also a debug label of the same name, so RenderDoc and Nsight show our kernel names.
//!
//! Usage: `reset` at the start of a recording, `begin`/`end` around each region, submit and
//! wait, then `resolve` into milliseconds per scope, in recording order.

use std::sync::Arc;

use ash::vk;
use serde::Serialize;

use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScopeTiming {
    pub name: String,
    pub milliseconds: f64,
}

pub struct Profiler {
    shared: Arc<Shared>,
    pool: vk::QueryPool,
    capacity: u32,
    scopes: Vec<String>,
    open: Vec<usize>,
    period_ns: f64,
    valid_mask: u64,
}

/// Returned by `begin`; hand it back to `end`.
#[must_use = "a scope must be ended"]
pub struct Scope(usize);

impl Profiler {
    /// A profiler that can time up to `capacity` scopes per recording.
    pub fn new(context: &Context, name: &str, capacity: u32) -> GpuResult<Self> {
        let shared = &context.shared;
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(capacity * 2);
        // SAFETY: plain object creation on the live device.
        let pool = unsafe { shared.device.create_query_pool(&info, None) }.vk("vkCreateQueryPool")?;
        shared.set_name(pool, name);
        let caps = &shared.adapter.capabilities;
        let bits = caps.timestamp_valid_bits;
        Ok(Self {
            shared: Arc::clone(shared),
            pool,
            capacity,
            scopes: Vec::new(),
            open: Vec::new(),
            period_ns: f64::from(caps.timestamp_period_ns),
            valid_mask: if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 },
        })
    }

    /// Forgets earlier scopes and records the reset of their queries into `commands`.
    pub fn reset(&mut self, commands: &mut CommandBuffer) {
        self.scopes.clear();
        self.open.clear();
        // SAFETY: recording state is upheld by the caller; the pool is alive.
        unsafe {
            self.shared
                .device
                .cmd_reset_query_pool(commands.raw, self.pool, 0, self.capacity * 2)
        };
    }

    pub fn begin(&mut self, commands: &mut CommandBuffer, name: &str) -> GpuResult<Scope> {
        let index = self.scopes.len();
        if index as u32 >= self.capacity {
            return Err(GpuError::InvalidUse {
                name: name.to_string(),
                problem: format!("more than the profiler's {} scopes in one recording", self.capacity),
            });
        }
        self.scopes.push(name.to_string());
        self.open.push(index);
        commands.begin_label(name);
        self.write(commands, index as u32 * 2);
        Ok(Scope(index))
    }

    pub fn end(&mut self, commands: &mut CommandBuffer, scope: Scope) -> GpuResult<()> {
        if self.open.last() != Some(&scope.0) {
            return Err(GpuError::InvalidUse {
                name: self.scopes[scope.0].clone(),
                problem: "profiler scopes must nest: ended while an inner scope is open".into(),
            });
        }
        self.open.pop();
        self.write(commands, scope.0 as u32 * 2 + 1);
        commands.end_label();
        Ok(())
    }

    fn write(&self, commands: &mut CommandBuffer, query: u32) {
        // ALL_COMMANDS: the timestamp is taken once all earlier work has finished, so a pair
        // brackets exactly the commands recorded between them.
        // SAFETY: the query was reset in this recording and is written once.
        unsafe {
            self.shared.device.cmd_write_timestamp2(
                commands.raw,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                self.pool,
                query,
            )
        };
    }

    /// Per-scope milliseconds of the last submitted recording; call after waiting for it.
    pub fn resolve(&self) -> GpuResult<Vec<ScopeTiming>> {
        if let Some(&open) = self.open.last() {
            return Err(GpuError::InvalidUse {
                name: self.scopes[open].clone(),
                problem: "profiler scope never ended".into(),
            });
        }
        if self.scopes.is_empty() {
            return Ok(Vec::new());
        }
        let mut stamps = vec![0u64; self.scopes.len() * 2];
        // SAFETY: the queries were written by a submission the caller has waited for.
        unsafe {
            self.shared.device.get_query_pool_results(
                self.pool,
                0,
                &mut stamps,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .vk("vkGetQueryPoolResults")?;
        Ok(self
            .scopes
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let ticks = (stamps[2 * i + 1] & self.valid_mask).wrapping_sub(stamps[2 * i] & self.valid_mask)
                    & self.valid_mask;
                ScopeTiming {
                    name: name.clone(),
                    milliseconds: ticks as f64 * self.period_ns * 1e-6,
                }
            })
            .collect())
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the recordings that use the pool before dropping it.
        unsafe { self.shared.device.destroy_query_pool(self.pool, None) };
    }
}
