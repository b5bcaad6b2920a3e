//! `wavetrace info`: which Vulkan devices there are, which trace backends each supports,
//! and the limits that matter to wavetrace, as text or JSON.

use serde::Serialize;

use crate::gpu::{enumerate_adapters, Adapter, GpuResult, Instance, TraceBackend, Validation};

#[derive(Debug, Serialize)]
pub struct SystemReport {
    pub loader_version: String,
    pub devices: Vec<DeviceReport>,
}

#[derive(Debug, Serialize)]
pub struct DeviceReport {
    #[serde(flatten)]
    pub adapter: Adapter,
    pub trace_backends: Vec<TraceBackend>,
    /// What `render --trace auto` takes on this device.
    pub auto_trace_backend: Option<TraceBackend>,
    pub usable: bool,
    pub missing: Vec<&'static str>,
}

pub fn system_report() -> GpuResult<SystemReport> {
    let instance = Instance::new(Validation::FromEnv)?;
    let devices = enumerate_adapters(&instance)?
        .into_iter()
        .map(|adapter| {
            let missing = adapter.capabilities.missing();
            DeviceReport {
                trace_backends: adapter.capabilities.trace_backends(),
                auto_trace_backend: adapter.auto_trace_backend(&adapter.capabilities.trace_backends()),
                usable: missing.is_empty(),
                missing,
                adapter,
            }
        })
        .collect();
    Ok(SystemReport {
        loader_version: instance.loader_version(),
        devices,
    })
}

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

impl std::fmt::Display for SystemReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Vulkan loader {}; {} device(s)",
            self.loader_version,
            self.devices.len()
        )?;
        for device in &self.devices {
            let a = &device.adapter;
            let c = &a.capabilities;
            writeln!(f)?;
            writeln!(
                f,
                "[{}] {} ({}, Vulkan {}, {})",
                a.index, a.name, a.device_type, c.api_version, a.driver
            )?;
            let backends = |backend| yes_no(device.trace_backends.contains(&backend));
            writeln!(
                f,
                "    trace backends: ray query {}, pipeline {}, software yes (our own traversal, any device); auto: {}",
                backends(TraceBackend::Query),
                backends(TraceBackend::Pipeline),
                match device.auto_trace_backend {
                    Some(TraceBackend::Software) => "software (no ray-tracing cores)",
                    Some(TraceBackend::Query) => "ray query",
                    Some(TraceBackend::Pipeline) => "pipeline",
                    None => "none",
                }
            )?;
            writeln!(
                f,
                "    subgroup size {} (arithmetic {}, ballot {}, shuffle {}); float64 {} (atomic adds {}); int64 {}",
                c.subgroup_size,
                yes_no(c.subgroup_arithmetic),
                yes_no(c.subgroup_ballot),
                yes_no(c.subgroup_shuffle),
                yes_no(c.shader_float64),
                yes_no(c.shader_float64_atomics),
                yes_no(c.shader_int64)
            )?;
            let [x, y, z] = c.max_compute_workgroup_size;
            writeln!(
                f,
                "    max workgroup size {x} x {y} x {z} ({} invocations); timestamp period {} ns ({} valid bits)",
                c.max_compute_workgroup_invocations, c.timestamp_period_ns, c.timestamp_valid_bits
            )?;
            if c.ray_tracing_pipeline {
                let reordering = match (c.invocation_reorder, c.invocation_reorder_regroups) {
                    (false, _) => "no",
                    (true, false) => "accepted, threads not regrouped",
                    (true, true) => "yes",
                };
                writeln!(
                    f,
                    "    shader group handle {} bytes; max ray recursion depth {}; shader execution reordering {}",
                    c.shader_group_handle_size, c.max_ray_recursion_depth, reordering
                )?;
            }
            if device.usable {
                writeln!(f, "    usable by wavetrace: yes")?;
            } else {
                writeln!(f, "    usable by wavetrace: no; lacks {}", device.missing.join(", "))?;
            }
        }
        Ok(())
    }
}
