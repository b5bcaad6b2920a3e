//! Scene geometry in GPU buffers: every mesh's positions and indices concatenated into one
//! buffer each, with a table of where each mesh starts.

use crate::gpu::{Buffer, BufferUsage, Context, GpuResult, TriangleGeometry};

use super::Scene;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshRange {
    pub first_vertex: u32,
    pub vertex_count: u32,
    pub first_index: u32,
    pub triangle_count: u32,
}

pub struct GpuMeshes {
    pub positions: Buffer,
    pub indices: Buffer,
    pub ranges: Vec<MeshRange>,
}

impl GpuMeshes {
    pub fn upload(context: &Context, scene: &Scene) -> GpuResult<Self> {
        let mut positions = Vec::new();
        let mut indices = Vec::new();
        let mut ranges = Vec::new();
        for mesh in &scene.meshes {
            ranges.push(MeshRange {
                first_vertex: positions.len() as u32,
                vertex_count: mesh.positions.len() as u32,
                first_index: indices.len() as u32,
                triangle_count: mesh.triangle_count() as u32,
            });
            positions.extend(mesh.positions.iter().map(|p| p.to_array()));
            // Indices stay local to their mesh: each bottom level sees its own vertices only.
            indices.extend_from_slice(&mesh.indices);
        }
        let usage = BufferUsage {
            acceleration_structure_input: true,
            ..BufferUsage::STORAGE
        };
        Ok(Self {
            positions: Buffer::from_slice(context, "scene positions", &positions, usage)?,
            indices: Buffer::from_slice(context, "scene indices", &indices, usage)?,
            ranges,
        })
    }

    /// The bottom-level input of mesh `index`.
    pub fn geometry(&self, index: usize) -> TriangleGeometry {
        let range = self.ranges[index];
        TriangleGeometry {
            vertex_address: self.positions.address() + u64::from(range.first_vertex) * 12,
            vertex_count: range.vertex_count,
            index_address: self.indices.address() + u64::from(range.first_index) * 4,
            triangle_count: range.triangle_count,
        }
    }
}
