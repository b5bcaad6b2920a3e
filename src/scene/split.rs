//! Meshes larger than a device's bottom-level acceleration structure takes (maxPrimitiveCount;
//! 2^24 - 1 triangles on lavapipe) split into parts of at most that many triangles, each with
//! only the vertices it uses, and every instance of such a mesh placed once per part.

use super::{Instance, Mesh, Scene};

impl Scene {
    /// This scene with no mesh over `max_triangles` triangles, or `None` when none is.
    pub fn split_large_meshes(&self, max_triangles: usize) -> Option<Scene> {
        let max_triangles = max_triangles.max(1);
        if self.meshes.iter().all(|m| m.triangle_count() <= max_triangles) {
            return None;
        }
        let mut split = Scene {
            meshes: Vec::new(),
            instances: Vec::new(),
            ..self.clone_without_geometry()
        };
        // Per original mesh, the indices of its parts in `split.meshes`.
        let mut parts_of = Vec::with_capacity(self.meshes.len());
        for mesh in &self.meshes {
            let first = split.meshes.len() as u32;
            if mesh.triangle_count() <= max_triangles {
                split.meshes.push(mesh.clone());
            } else {
                let parts = mesh.indices.chunks(3 * max_triangles);
                let count = parts.len();
                for (part, indices) in parts.enumerate() {
                    let mut piece = part_of(mesh, indices);
                    piece.name = format!("{} (part {} of {count})", mesh.name, part + 1);
                    split.meshes.push(piece);
                }
                split.warnings.push(format!(
                    "mesh {}: {} triangles, more than the device's {max_triangles} per acceleration structure; split into {count} parts",
                    mesh.name,
                    mesh.triangle_count()
                ));
            }
            parts_of.push(first..split.meshes.len() as u32);
        }
        for instance in &self.instances {
            for part in parts_of[instance.mesh as usize].clone() {
                split.instances.push(Instance {
                    mesh: part,
                    ..instance.clone()
                });
            }
        }
        Some(split)
    }

    fn clone_without_geometry(&self) -> Scene {
        Scene {
            source: self.source.clone(),
            meshes: Vec::new(),
            instances: Vec::new(),
            materials: self.materials.clone(),
            textures: self.textures.clone(),
            lights: self.lights.clone(),
            camera: self.camera.clone(),
            more_cameras: self.more_cameras.clone(),
            warnings: self.warnings.clone(),
        }
    }
}

/// The triangles `indices` of `mesh` as a mesh of their own, holding only their vertices.
fn part_of(mesh: &Mesh, indices: &[u32]) -> Mesh {
    let mut renumbered = vec![u32::MAX; mesh.positions.len()];
    let mut used = Vec::new();
    let indices = indices
        .iter()
        .map(|&i| {
            let slot = &mut renumbered[i as usize];
            if *slot == u32::MAX {
                *slot = used.len() as u32;
                used.push(i as usize);
            }
            *slot
        })
        .collect();
    Mesh {
        name: mesh.name.clone(),
        positions: used.iter().map(|&i| mesh.positions[i]).collect(),
        normals: mesh.normals.as_ref().map(|v| used.iter().map(|&i| v[i]).collect()),
        uvs: mesh.uvs.as_ref().map(|v| used.iter().map(|&i| v[i]).collect()),
        second_uvs: mesh.second_uvs.as_ref().map(|v| used.iter().map(|&i| v[i]).collect()),
        tangents: mesh.tangents.as_ref().map(|v| used.iter().map(|&i| v[i]).collect()),
        colors: mesh.colors.as_ref().map(|v| used.iter().map(|&i| v[i]).collect()),
        indices,
        material: mesh.material,
    }
}
