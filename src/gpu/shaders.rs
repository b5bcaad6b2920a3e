//! The embedded SPIR-V registry: every shader under `shaders-glsl/`, compiled by build.rs.

/// The pipeline stage a shader was compiled for (from its file extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderStage {
    Compute,
    RayGeneration,
    Miss,
    ClosestHit,
    AnyHit,
    Intersection,
    Callable,
}

pub struct EmbeddedShader {
    /// `<folder>/<kernel>`, e.g. `primitives/scan_block_u32`.
    pub name: &'static str,
    /// The kernel's name: the file stem plus the variant, and the profiler label.
    pub kernel: &'static str,
    pub stage: ShaderStage,
    pub spirv: &'static [u8],
}

/// A handle to one embedded shader; the constants in `ids` are the only way to make one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderId(usize);

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

impl ShaderId {
    pub fn get(self) -> &'static EmbeddedShader {
        &EMBEDDED_SHADERS[self.0]
    }
}

impl EmbeddedShader {
    /// The SPIR-V as words. `include_bytes!` gives no alignment, so this copies.
    pub fn words(&self) -> Vec<u32> {
        self.spirv
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }
}
