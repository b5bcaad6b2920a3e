//! Where BDPT's light vertices live: planes of vec4s, [plane][vertex][slot] (bdpt.glsl's
//! `light_vertex_plane`), a plane holding a vec4 per shadow slot. One buffer for all planes
//! would pass the largest allocation a device allows (4 GiB on the H100) at about 5.6 M slots
//! at depth 8, and fewer, fuller batches are faster (docs/BENCHMARKS.md): so the planes lie in
//! two buffers, half in each (the first the larger half). Always two, so that every render
//! and test runs the shaders' two-buffer addressing.

use crate::gpu::{Buffer, Context, GpuResult};
use crate::interface::{
    PassConstants, LIGHT_VERTEX_GLOSSY_PLANES, LIGHT_VERTEX_LAMBERTIAN_PLANES, LIGHT_VERTEX_TEXTURED_PLANES,
};

use super::super::KernelFeatures;

const PLANE_ENTRY_BYTES: u64 = 16;

/// Which of bdpt.glsl's layouts a render's light vertices are stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LightVertexLayout {
    /// No glossy lobes: the base colour in the fourth components, the rest a Lambertian's.
    Lambertian,
    /// The material's constants found again from its index.
    Glossy,
    /// The layers' factors as the vertex's textures gave them, in two planes more.
    Textured,
}

impl LightVertexLayout {
    pub fn of(features: KernelFeatures) -> Self {
        if !features.has_glossy_lobes() {
            Self::Lambertian
        } else if features.has_layer_textures() {
            Self::Textured
        } else {
            Self::Glossy
        }
    }

    pub fn planes(self) -> u32 {
        match self {
            Self::Lambertian => LIGHT_VERTEX_LAMBERTIAN_PLANES,
            Self::Glossy => LIGHT_VERTEX_GLOSSY_PLANES,
            Self::Textured => LIGHT_VERTEX_TEXTURED_PLANES,
        }
    }

    /// Bytes a light vertex takes.
    pub fn bytes(self) -> u64 {
        u64::from(self.planes()) * PLANE_ENTRY_BYTES
    }

    /// Bytes of the larger of the two buffers per path slot at `max_depth` (a slot keeps
    /// `max_depth` entries a plane): what the device's largest allocation bounds the slots by.
    pub fn larger_buffer_bytes_per_slot(self, max_depth: u32) -> u64 {
        u64::from(max_depth) * u64::from(low_planes(self.planes())) * PLANE_ENTRY_BYTES
    }
}

/// Planes in the first buffer: the larger half.
const fn low_planes(planes: u32) -> u32 {
    planes.div_ceil(2)
}

pub(super) struct LightVertexPlanes {
    low: Buffer,
    high: Buffer,
    planes: u32,
    shadow_slots: u32,
}

impl LightVertexPlanes {
    /// `planes` planes (a layout's, bdpt.glsl) of `shadow_slots` entries each.
    pub fn new(context: &Context, shadow_slots: u32, planes: u32) -> GpuResult<Self> {
        let plane_bytes = u64::from(shadow_slots) * PLANE_ENTRY_BYTES;
        // Buffer::new refuses a half too large for one allocation, by name.
        let low_planes = low_planes(planes);
        let storage = |name: &str, count: u32| Buffer::gpu_storage(context, name, u64::from(count) * plane_bytes);
        let low = storage("light vertices", low_planes)?;
        let high = storage("light vertices (second half)", planes - low_planes)?;
        Ok(Self {
            low,
            high,
            planes,
            shadow_slots,
        })
    }

    pub fn fill(&self, constants: &mut PassConstants) {
        constants.light_vertices = self.low.address();
        constants.light_vertices_high = self.high.address();
        constants.light_vertex_low_planes = low_planes(self.planes);
    }

    /// Every plane of the largest layout, in order, those this store does not keep zero.
    pub fn read_back(&self, context: &Context) -> GpuResult<Vec<[f32; 4]>> {
        let entries = |planes: u32| planes as usize * self.shadow_slots as usize;
        let low = low_planes(self.planes);
        let mut all: Vec<[f32; 4]> = self.low.read_back(context, entries(low))?;
        all.extend(self.high.read_back::<[f32; 4]>(context, entries(self.planes - low))?);
        all.resize(entries(LIGHT_VERTEX_TEXTURED_PLANES), [0.0; 4]);
        Ok(all)
    }
}
