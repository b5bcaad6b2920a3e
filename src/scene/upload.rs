//! The scene in GPU buffers: every mesh's positions and indices concatenated into one buffer
//! each (normals beside positions), and the instance, mesh and material tables that kernels index (`scene.glsl`).

use crate::gpu::{Buffer, BufferUsage, Context, GpuResult, TextureData, TextureSet, TriangleGeometry};
use crate::interface::{
    GpuInstance, GpuMaterial, GpuMesh, GpuTextureBinding, ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, NO_TEXTURE,
    SECOND_UV_BASE_COLOR, SECOND_UV_EMISSIVE, SECOND_UV_LAYERS, SECOND_UV_METALLIC_ROUGHNESS, SECOND_UV_NORMAL,
};

use glam::{UVec4, Vec2, Vec4};

use super::{AlphaMode, Scene};

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
    /// Each mesh's `uvs` per position; zero for a mesh without.
    pub uvs: Buffer,
    /// Each mesh's `second_uvs` per position, zero for a mesh without, where any mesh has them.
    pub second_uvs: Option<Buffer>,
    /// Tangent and bitangent sign per position; zero for a mesh without.
    pub tangents: Buffer,
    /// COLOR_0 per position, 1 for a mesh without, where any mesh has colours.
    pub colors: Option<Buffer>,
    pub indices: Buffer,
    pub ranges: Vec<MeshRange>,
}

impl GpuMeshes {
    pub fn upload(context: &Context, scene: &Scene) -> GpuResult<Self> {
        let mut positions = Vec::new();
        let mut normals = Vec::new();
        let mut uvs = Vec::new();
        let mut second_uvs = Vec::new();
        let any_second_uvs = scene.meshes.iter().any(|mesh| mesh.second_uvs.is_some());
        let mut tangents = Vec::new();
        let mut colors = Vec::new();
        let any_colors = scene.meshes.iter().any(|mesh| mesh.colors.is_some());
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
            match &mesh.uvs {
                Some(t) => uvs.extend(t.iter().map(|t| t.to_array())),
                None => uvs.resize(positions.len(), [0.0f32; 2]),
            }
            match &mesh.second_uvs {
                Some(t) => second_uvs.extend(t.iter().map(|t| t.to_array())),
                None if any_second_uvs => second_uvs.resize(positions.len(), [0.0f32; 2]),
                None => {}
            }
            match &mesh.tangents {
                Some(t) => tangents.extend(t.iter().map(|t| t.to_array())),
                None => tangents.resize(positions.len(), [0.0f32; 4]),
            }
            match &mesh.colors {
                Some(c) => colors.extend(c.iter().map(|c| c.to_array())),
                None if any_colors => colors.resize(positions.len(), [1.0f32; 4]),
                None => {}
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
            uvs: Buffer::from_slice(context, "scene uvs", &uvs, BufferUsage::STORAGE)?,
            second_uvs: match any_second_uvs {
                true => Some(Buffer::from_slice(
                    context,
                    "scene second uvs",
                    &second_uvs,
                    BufferUsage::STORAGE,
                )?),
                false => None,
            },
            tangents: Buffer::from_slice(context, "scene tangents", &tangents, BufferUsage::STORAGE)?,
            colors: match any_colors {
                true => Some(Buffer::from_slice(
                    context,
                    "scene vertex colours",
                    &colors,
                    BufferUsage::STORAGE,
                )?),
                false => None,
            },
            indices: Buffer::from_slice(context, "scene indices", &indices, usage)?,
            ranges,
        })
    }

    /// The bottom-level input of mesh `index`; `opaque` unless its material has holes.
    pub fn geometry(&self, index: usize, opaque: bool) -> TriangleGeometry {
        let range = self.ranges[index];
        TriangleGeometry {
            vertex_address: self.positions.address() + u64::from(range.first_vertex) * 12,
            vertex_count: range.vertex_count,
            index_address: self.indices.address() + u64::from(range.first_index) * 4,
            triangle_count: range.triangle_count,
            opaque,
            transform_address: 0,
        }
    }
}

/// Geometry and the tables that kernels read it through.
pub struct GpuScene {
    pub meshes: GpuMeshes,
    pub instances: Buffer,
    pub mesh_table: Buffer,
    pub materials: Buffer,
    /// The materials' layer textures (`GpuMaterial::first_layer_texture`), where any has one.
    pub layer_textures: Option<Buffer>,
    /// Every texture in the bindless array, slot 0 the magenta stand-in.
    pub textures: TextureSet,
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
                    emits: u32::from(scene.materials[scene.meshes[i.mesh as usize].material as usize].is_emissive()),
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
        let mut layer_textures = Vec::new();
        let materials: Vec<GpuMaterial> = scene
            .materials
            .iter()
            .map(|m| gpu_material(m, &mut layer_textures))
            .collect();
        let texture_data: Vec<TextureData> = scene
            .textures
            .iter()
            .map(|t| TextureData {
                name: &t.name,
                width: t.width,
                height: t.height,
                srgb: t.srgb,
                levels: &t.levels,
                sampler: t.sampler,
            })
            .collect();
        let textures = TextureSet::new(context, &texture_data)?;
        Ok(Self {
            instances: Buffer::from_slice(context, "scene instances", &instances, BufferUsage::STORAGE)?,
            mesh_table: Buffer::from_slice(context, "scene meshes", &mesh_table, BufferUsage::STORAGE)?,
            materials: Buffer::from_slice(context, "scene materials", &materials, BufferUsage::STORAGE)?,
            layer_textures: match layer_textures.is_empty() {
                true => None,
                false => Some(Buffer::from_slice(
                    context,
                    "scene layer textures",
                    &layer_textures,
                    BufferUsage::STORAGE,
                )?),
            },
            textures,
            meshes,
        })
    }
}

/// A texture reference's slot in the bindless array (scene texture i is slot i + 1) and its
/// transform as two vectors (x_axis.xy, y_axis.xy | offset).
fn texture_slot(reference: &Option<super::TextureRef>) -> (u32, Vec4, Vec2) {
    match reference {
        None => (NO_TEXTURE, Vec4::new(1.0, 0.0, 0.0, 1.0), Vec2::ZERO),
        Some(r) => (
            r.texture.map_or(0, |t| t + 1),
            Vec4::new(
                r.transform.matrix2.x_axis.x,
                r.transform.matrix2.x_axis.y,
                r.transform.matrix2.y_axis.x,
                r.transform.matrix2.y_axis.y,
            ),
            r.transform.translation,
        ),
    }
}

/// A material as the kernels read it; its layer textures are appended to `layer_textures`.
pub fn gpu_material(material: &super::Material, layer_textures: &mut Vec<GpuTextureBinding>) -> GpuMaterial {
    let (base, base_uv, base_offset) = texture_slot(&material.base_color_texture);
    let (mr, mr_uv, mr_offset) = texture_slot(&material.metallic_roughness_texture);
    let (normal, normal_uv, normal_offset) = texture_slot(&material.normal_texture);
    let (emissive, emissive_uv, emissive_offset) = texture_slot(&material.emissive_texture);
    let (alpha_mode, alpha_cutoff) = match material.alpha {
        AlphaMode::Opaque => (ALPHA_OPAQUE, 0.0),
        AlphaMode::Mask(cutoff) => (ALPHA_MASK, cutoff),
        AlphaMode::Blend => (ALPHA_BLEND, 0.0),
    };
    let first_layer_texture = layer_textures.len() as u32;
    let mut layer_texture_roles = 0;
    let mut layers_read_second_uvs = false;
    for (role, texture) in material.layers.by_role() {
        if let Some(reference) = texture {
            let (slot, transform, offset) = texture_slot(texture);
            layer_texture_roles |= 1 << role;
            layers_read_second_uvs |= material.reads_second_uvs(reference);
            layer_textures.push(GpuTextureBinding {
                transform,
                offset,
                scale: reference.scale,
                slot,
                second_uv: u32::from(material.reads_second_uvs(reference)),
                pad0: 0,
                pad1: 0,
                pad2: 0,
            });
        }
    }
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
        clearcoat: material.clearcoat,
        clearcoat_roughness: material.clearcoat_roughness,
        textures: UVec4::new(base, mr, normal, emissive),
        base_color_uv: base_uv,
        metallic_roughness_uv: mr_uv,
        normal_uv,
        emissive_uv,
        base_color_and_metallic_roughness_uv_offsets: base_offset.extend(mr_offset.x).extend(mr_offset.y),
        normal_and_emissive_uv_offsets: normal_offset.extend(emissive_offset.x).extend(emissive_offset.y),
        normal_scale: material.normal_texture.map_or(1.0, |t| t.scale),
        alpha_mode,
        alpha_cutoff,
        second_uv_textures: [
            (&material.base_color_texture, SECOND_UV_BASE_COLOR),
            (&material.metallic_roughness_texture, SECOND_UV_METALLIC_ROUGHNESS),
            (&material.normal_texture, SECOND_UV_NORMAL),
            (&material.emissive_texture, SECOND_UV_EMISSIVE),
        ]
        .iter()
        .filter(|(texture, _)| texture.is_some_and(|t| material.reads_second_uvs(&t)))
        .fold(0, |bits, (_, bit)| bits | bit)
            | if layers_read_second_uvs { SECOND_UV_LAYERS } else { 0 },
        first_layer_texture: if layer_texture_roles == 0 {
            NO_TEXTURE
        } else {
            first_layer_texture
        },
        layer_texture_roles,
        pad0: 0,
        pad1: 0,
    }
}
