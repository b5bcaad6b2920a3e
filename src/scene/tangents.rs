//! MikkTSpace tangents for meshes with a normal texture and no TANGENT attribute, as glTF
//! asks: computed per triangle corner, then vertices whose corners disagree are split, so the
//! indexed mesh carries exactly the tangents MikkTSpace gives.

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use super::Mesh;

struct Corners<'a> {
    mesh: &'a Mesh,
    normals: &'a [Vec3],
    uvs: &'a [Vec2],
    tangents: Vec<Vec4>,
}

impl bevy_mikktspace::Geometry for Corners<'_> {
    fn num_faces(&self) -> usize {
        self.mesh.triangle_count()
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.mesh.positions[self.mesh.indices[face * 3 + vert] as usize].to_array()
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.normals[self.mesh.indices[face * 3 + vert] as usize].to_array()
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        self.uvs[self.mesh.indices[face * 3 + vert] as usize].to_array()
    }
    fn set_tangent(&mut self, tangent: Option<bevy_mikktspace::TangentSpace>, face: usize, vert: usize) {
        if let Some(tangent) = tangent {
            self.tangents[face * 3 + vert] = Vec4::from_array(tangent.tangent_encoded());
        }
    }
}

/// Gives `mesh` MikkTSpace tangents (it needs normals and UVs); false when it lacks either
/// or MikkTSpace fails, and then the mesh is left as it was.
pub fn generate(mesh: &mut Mesh) -> bool {
    let (Some(normals), Some(uvs)) = (mesh.normals.clone(), mesh.uvs.clone()) else {
        return false;
    };
    let mut corners = Corners {
        mesh,
        normals: &normals,
        uvs: &uvs,
        tangents: vec![Vec4::new(1.0, 0.0, 0.0, 1.0); mesh.indices.len()],
    };
    if bevy_mikktspace::generate_tangents(&mut corners).is_err() {
        return false;
    }
    let corner_tangents = corners.tangents;
    let mut split: HashMap<(u32, [u32; 4]), u32> = HashMap::new();
    let mut tangents = vec![Vec4::ZERO; mesh.positions.len()];
    let mut claimed = vec![false; mesh.positions.len()];
    for (corner, tangent) in corner_tangents.into_iter().enumerate() {
        let vertex = mesh.indices[corner];
        let key = (vertex, tangent.to_array().map(f32::to_bits));
        if let Some(&index) = split.get(&key) {
            mesh.indices[corner] = index;
            continue;
        }
        let index = if !claimed[vertex as usize] {
            claimed[vertex as usize] = true;
            tangents[vertex as usize] = tangent;
            vertex
        } else {
            let index = mesh.positions.len() as u32;
            mesh.positions.push(mesh.positions[vertex as usize]);
            if let Some(n) = &mut mesh.normals {
                n.push(n[vertex as usize]);
            }
            if let Some(t) = &mut mesh.uvs {
                t.push(t[vertex as usize]);
            }
            if let Some(c) = &mut mesh.colors {
                c.push(c[vertex as usize]);
            }
            tangents.push(tangent);
            index
        };
        split.insert(key, index);
        mesh.indices[corner] = index;
    }
    mesh.tangents = Some(tangents);
    true
}
