//! The scene in GPU buffers: every mesh's positions and indices concatenated into one buffer
//! each (normals beside positions), and the instance, mesh and material tables that kernels index (`scene.glsl`).

use crate::gpu::{Buffer, BufferUsage, Context, GpuResult, TriangleGeometry};
use crate::interface::{GpuInstance, GpuMaterial, GpuMesh};

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
    /// One per position; zero for every vertex of a mesh without normals.
    pub normals: Buffer,
    pub indices: Buffer,
    pub ranges: Vec<MeshRange>,
}

impl GpuMeshes {
    pub fn upload(context: &Context, scene: &Scene) -> GpuResult<Self> {
        let mut positions = Vec::new();
        let mut normals = Vec::new();
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
            match &mesh.normals {
                Some(n) => normals.extend(n.iter().map(|n| n.to_array())),
                None => normals.resize(positions.len(), [0.0f32; 3]),
            }
            // Indices stay local to their mesh: each bottom level sees its own vertices only.
            indices.extend_from_slice(&mesh.indices);
        }
        let usage = BufferUsage {
            acceleration_structure_input: true,
            ..BufferUsage::STORAGE
        };
        Ok(Self {
            positions: Buffer::from_slice(context, "scene positions", &positions, usage)?,
            normals: Buffer::from_slice(context, "scene normals", &normals, BufferUsage::STORAGE)?,
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

/// Geometry and the tables that kernels read it through.
pub struct GpuScene {
    pub meshes: GpuMeshes,
    pub instances: Buffer,
    pub mesh_table: Buffer,
    pub materials: Buffer,
}

impl GpuScene {
    pub fn upload(context: &Context, scene: &Scene) -> GpuResult<Self> {
        let meshes = GpuMeshes::upload(context, scene)?;
        let instances: Vec<GpuInstance> = scene
            .instances
            .iter()
            .map(|i| {
                let rows = i.world_from_object.transpose();
                GpuInstance {
                    row0: rows.x_axis,
                    row1: rows.y_axis,
                    row2: rows.z_axis,
                    mesh: i.mesh,
                    flips_winding: u32::from(i.flips_winding()),
                    pad0: 0,
                    pad1: 0,
                }
            })
            .collect();
        let mesh_table: Vec<GpuMesh> = meshes
            .ranges
            .iter()
            .zip(&scene.meshes)
            .map(|(r, m)| GpuMesh {
                first_vertex: r.first_vertex,
                first_index: r.first_index,
                material: m.material,
                triangle_count: r.triangle_count,
            })
            .collect();
        let materials: Vec<GpuMaterial> = scene.materials.iter().map(gpu_material).collect();
        Ok(Self {
            instances: Buffer::from_slice(context, "scene instances", &instances, BufferUsage::STORAGE)?,
            mesh_table: Buffer::from_slice(context, "scene meshes", &mesh_table, BufferUsage::STORAGE)?,
            materials: Buffer::from_slice(context, "scene materials", &materials, BufferUsage::STORAGE)?,
            meshes,
        })
    }
}

/// A material as the kernels read it.
pub fn gpu_material(material: &super::Material) -> GpuMaterial {
    GpuMaterial {
        base_color: material.base_color,
        emission: material.emission,
        metallic: material.metallic,
        specular_color: material.specular_color,
        roughness: material.roughness,
        specular: material.specular,
        transmission: material.transmission,
        ior: material.ior,
        absorption: material.absorption,
        pad0: 0,
        pad1: 0,
    }
}
