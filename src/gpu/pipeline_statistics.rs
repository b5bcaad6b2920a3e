//! What the driver compiled each kernel to (registers, spills, instructions: whatever it
//! reports through VK_KHR_pipeline_executable_properties), logged at `info` as pipelines are
//! created, when `WAVETRACE_PIPELINE_STATS` is set. Occupancy follows from the registers,
//! which no timing shows; NVIDIA's driver reports them, as Nsight would.

use ash::vk;

use super::context::Shared;

/// The creation flag that makes the driver keep statistics, where they were asked for.
pub(crate) fn capture_flags(shared: &Shared) -> vk::PipelineCreateFlags {
    if shared.pipeline_statistics.is_some() {
        vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
    } else {
        vk::PipelineCreateFlags::empty()
    }
}

/// Logs every executable of `pipeline` (one per shader stage, or more) with its statistics.
/// A failed query is logged and otherwise ignored: statistics never stop a render.
pub(crate) fn log_statistics(shared: &Shared, pipeline: vk::Pipeline, name: &str) {
    let Some(loader) = &shared.pipeline_statistics else {
        return;
    };
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    // SAFETY: the pipeline was created on this device with CAPTURE_STATISTICS_KHR.
    let executables = match unsafe { loader.get_pipeline_executable_properties(&info) } {
        Ok(executables) => executables,
        Err(result) => {
            log::warn!("pipeline statistics of {name}: vkGetPipelineExecutablePropertiesKHR: {result}");
            return;
        }
    };
    if executables.is_empty() {
        // Said rather than left silent, so that a missing line is not mistaken for no pipeline.
        log::info!("pipeline statistics of {name}: the driver reports no executables");
    }
    for (index, executable) in executables.iter().enumerate() {
        let stage = executable
            .name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let executable_info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index as u32);
        // SAFETY: as above; the index is one the driver listed.
        let statistics = match unsafe { loader.get_pipeline_executable_statistics(&executable_info) } {
            Ok(statistics) => statistics,
            Err(result) => {
                log::warn!("pipeline statistics of {name} ({stage}): {result}");
                continue;
            }
        };
        let values: Vec<String> = statistics
            .iter()
            .map(|s| {
                let label = s
                    .name_as_c_str()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // SAFETY: the format says which member of the union the driver wrote.
                let value = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 == vk::TRUE).to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        _ => format!("{}", s.value.f64),
                    }
                };
                format!("{label} {value}")
            })
            .collect();
        log::info!("pipeline statistics of {name} ({stage}): {}", values.join(", "));
    }
}

/// Logs the stack each shader group of a ray-tracing pipeline needs, which the driver does
/// report where executables are not listed: a raygen shader's stack holds what it keeps live
/// across `traceRayEXT`, the state a megakernel pays to save and restore around every ray.
pub(crate) fn log_ray_tracing_stacks(
    shared: &Shared,
    loader: &ash::khr::ray_tracing_pipeline::Device,
    pipeline: vk::Pipeline,
    name: &str,
    groups: &[vk::RayTracingShaderGroupCreateInfoKHR<'_>],
) {
    if shared.pipeline_statistics.is_none() {
        return;
    }
    let sizes: Vec<String> = groups
        .iter()
        .enumerate()
        .flat_map(|(index, group)| {
            // Only shaders the group has may be asked about.
            let shaders = [
                ("general", vk::ShaderGroupShaderKHR::GENERAL, group.general_shader),
                (
                    "closest hit",
                    vk::ShaderGroupShaderKHR::CLOSEST_HIT,
                    group.closest_hit_shader,
                ),
                ("any hit", vk::ShaderGroupShaderKHR::ANY_HIT, group.any_hit_shader),
            ]
            .into_iter()
            .filter(|&(_, _, stage)| stage != vk::SHADER_UNUSED_KHR);
            shaders.map(move |(label, shader, _)| {
                // SAFETY: the pipeline is alive and `index` is one of its groups.
                let bytes = unsafe { loader.get_ray_tracing_shader_group_stack_size(pipeline, index as u32, shader) };
                format!("group {index} {label} {bytes}")
            })
        })
        .collect();
    log::info!("ray-tracing stack of {name} (bytes): {}", sizes.join(", "));
}
