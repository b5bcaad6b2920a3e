//! The Vulkan layer: the only module that calls `ash`. Everything above it uses the safe
//! wrappers exported here, which own their Vulkan objects and free them on drop.
//!
//! Split as kajiya splits its backend: one file per Vulkan concern.

mod acceleration;
mod adapter;
mod buffer;
mod commands;
mod context;
mod error;
mod image;
mod instance;
mod loaded_libraries;
mod pipeline;
mod pipeline_statistics;
mod present;
mod profiler;
mod renderdoc;
mod rt_pipeline;
pub mod shaders;
mod textures;

pub use acceleration::{
    build_bottom_levels, build_top_level, AccelerationStructure, BottomLevel, TlasInstance, TriangleGeometry,
};
pub use adapter::{enumerate_adapters, Adapter, Capabilities, TraceBackend};
pub use buffer::{Buffer, BufferUsage, MemoryLocation};
pub use commands::{CommandBuffer, DispatchSize};
pub use context::{Context, ContextDesc, SubmitTicket, MAX_TEXTURES};
pub use error::{GpuError, GpuResult};
pub use image::{Image, ImageFormat};
pub use instance::{Instance, MessageCounts, Validation};
pub use loaded_libraries::held as libraries_held;
pub use pipeline::{ComputePipeline, SpecializationConstant};
pub use present::{fit_rectangle, Presenter};
pub use profiler::{Profiler, Scope, ScopeTiming};
pub use renderdoc::RenderDoc;
pub use rt_pipeline::{RayTracingPipeline, RayTracingShaders};
pub use textures::{MipFilter, SamplerDesc, TextureData, TextureSet, Wrap};
