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

/// Gives `mesh` MikkTSpace tangents for the texture coordinates its normal texture reads (its
/// `second_uvs` where `second`, else its `uvs`; flat normals are made where it has none); false
/// when it lacks them or MikkTSpace fails, and then the mesh is left as it was.
pub fn generate(mesh: &mut Mesh, second: bool) -> bool {
    let Some(uvs) = (if second { &mesh.second_uvs } else { &mesh.uvs }).clone() else {
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
            for uvs in [&mut mesh.uvs, &mut mesh.second_uvs].into_iter().flatten() {
                uvs.push(uvs[vertex as usize]);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube of 8 shared vertices, counter-clockwise seen from outside, with UVs.
    fn cube_without_normals() -> Mesh {
        let positions: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new((i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2 & 1) as f32))
            .collect();
        let uvs = positions.iter().map(|p| Vec2::new(p.x + p.z, p.y + p.z)).collect();
        // Each face as two triangles (a, b, c), (a, c, d), its normal pointing out.
        let faces = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let indices = faces.iter().flat_map(|[a, b, c, d]| [*a, *b, *c, *a, *c, *d]).collect();
        Mesh {
            positions,
            uvs: Some(uvs),
            indices,
            ..Mesh::default()
        }
    }

    #[test]
    fn a_mesh_without_normals_gets_its_faces_normals_and_tangents_in_their_planes() {
        let mut mesh = cube_without_normals();
        let shape: Vec<[Vec3; 3]> = mesh
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]))
            .collect();
        assert!(generate(&mut mesh, false));
        let (Some(normals), Some(tangents)) = (&mesh.normals, &mesh.tangents) else {
            panic!("no flat normals or no tangents");
        };
        // Each corner of the 8 is split per face: 6 faces of 4 corners.
        assert_eq!(mesh.positions.len(), 24);
        for (triangle, corners) in mesh.indices.chunks_exact(3).zip(&shape) {
            let [a, b, c] = [triangle[0], triangle[1], triangle[2]].map(|i| mesh.positions[i as usize]);
            assert_eq!([a, b, c], *corners, "the split moved a corner");
            let face = (b - a).cross(c - a).normalize();
            assert!(face.dot(0.5 * Vec3::ONE - a) < 0.0, "face normal {face} points in");
            for &i in triangle {
                assert_eq!(normals[i as usize], face);
                assert!(tangents[i as usize].truncate().dot(face).abs() < 1e-5);
                assert!((tangents[i as usize].truncate().length() - 1.0).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn given_normals_are_kept() {
        let mut mesh = cube_without_normals();
        mesh.normals = Some(mesh.positions.iter().map(|p| (*p - 0.5).normalize()).collect());
        assert!(generate(&mut mesh, false));
        let Some(normals) = &mesh.normals else {
            panic!("the normals are gone");
        };
        // Each vertex keeps the normal given for its position (the corner of the cube it is).
        for (normal, position) in normals.iter().zip(&mesh.positions) {
            assert_eq!(*normal, (*position - 0.5).normalize(), "at {position}");
        }
    }
}
