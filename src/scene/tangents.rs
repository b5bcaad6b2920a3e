//! MikkTSpace tangents for meshes with a normal texture and no TANGENT attribute, as glTF
//! asks: computed per triangle corner, then vertices whose corners disagree are split, so the
//! indexed mesh carries exactly the tangents MikkTSpace gives. A mesh without normals first
//! gets flat ones (glTF: "client implementations MUST calculate flat normals"), each corner its
//! triangle's, and vertices whose corners' normals disagree are split the same way.

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use super::Mesh;

struct Corners<'a> {
    mesh: &'a Mesh,
    /// Per corner (three a triangle), not per vertex.
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
        self.normals[face * 3 + vert].to_array()
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

/// Gives `mesh` MikkTSpace tangents (it needs UVs; flat normals are made where it has none);
/// false when it lacks UVs or MikkTSpace fails, and then the mesh is left as it was.
pub fn generate(mesh: &mut Mesh) -> bool {
    let Some(uvs) = mesh.uvs.clone() else {
        return false;
    };
    let corner_normals: Vec<Vec3> = match &mesh.normals {
        Some(normals) => mesh.indices.iter().map(|&i| normals[i as usize]).collect(),
        None => mesh
            .indices
            .chunks_exact(3)
            .flat_map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]);
                // A degenerate triangle has no normal; any unit vector serves, as its area is 0.
                let normal = (b - a).cross(c - a).try_normalize().unwrap_or(Vec3::Z);
                [normal; 3]
            })
            .collect(),
    };
    let mut corners = Corners {
        mesh,
        normals: &corner_normals,
        uvs: &uvs,
        tangents: vec![Vec4::new(1.0, 0.0, 0.0, 1.0); mesh.indices.len()],
    };
    if bevy_mikktspace::generate_tangents(&mut corners).is_err() {
        return false;
    }
    let corner_tangents = corners.tangents;
    let mut split: HashMap<(u32, [u32; 4], [u32; 3]), u32> = HashMap::new();
    let mut tangents = vec![Vec4::ZERO; mesh.positions.len()];
    let mut normals = vec![Vec3::ZERO; mesh.positions.len()];
    let mut claimed = vec![false; mesh.positions.len()];
    for (corner, (tangent, normal)) in corner_tangents.into_iter().zip(corner_normals).enumerate() {
        let vertex = mesh.indices[corner];
        let key = (
            vertex,
            tangent.to_array().map(f32::to_bits),
            normal.to_array().map(f32::to_bits),
        );
        if let Some(&index) = split.get(&key) {
            mesh.indices[corner] = index;
            continue;
        }
        let index = if !claimed[vertex as usize] {
            claimed[vertex as usize] = true;
            tangents[vertex as usize] = tangent;
            normals[vertex as usize] = normal;
            vertex
        } else {
            let index = mesh.positions.len() as u32;
            mesh.positions.push(mesh.positions[vertex as usize]);
            if let Some(t) = &mut mesh.uvs {
                t.push(t[vertex as usize]);
            }
            if let Some(c) = &mut mesh.colors {
                c.push(c[vertex as usize]);
            }
            tangents.push(tangent);
            normals.push(normal);
            index
        };
        split.insert(key, index);
        mesh.indices[corner] = index;
    }
    // Vertices no triangle uses keep a normal of their own (or +Z) so none is zero.
    let given = mesh.normals.take();
    for (vertex, normal) in normals.iter_mut().enumerate() {
        if !claimed.get(vertex).copied().unwrap_or(true) {
            *normal = given.as_ref().map_or(Vec3::Z, |n| n[vertex]);
        }
    }
    mesh.normals = Some(normals);
    mesh.tangents = Some(tangents);
    true
}
