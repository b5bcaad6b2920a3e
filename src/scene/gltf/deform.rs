//! Morph targets and skins, applied on the host at import: a node whose mesh it morphs (non-zero
//! weights) or skins gets meshes of its own with the deformed vertices, as glTF 2.0 defines
//! them (targets' displacements first, then the weighted sum of joint matrices). A renderer of
//! still frames deforms each mesh once a frame, so nothing of this reaches the GPU.

use glam::{Mat3, Mat4, Vec3, Vec4, Vec4Swizzles};

use super::super::Mesh;
use super::accessor;

/// One morph target's displacements, each as long as its primitive's positions.
#[derive(Default)]
pub(super) struct MorphTarget {
    pub positions: Option<Vec<Vec3>>,
    pub normals: Option<Vec<Vec3>>,
    pub tangents: Option<Vec<Vec3>>,
}

/// Each vertex's joints and weights from every JOINTS_n / WEIGHTS_n pair: `per_vertex` of each
/// a vertex, the joints as indices into the skin's `joints`.
pub(super) struct Influences {
    pub joints: Vec<u32>,
    pub weights: Vec<f32>,
    pub per_vertex: usize,
}

/// A primitive that morph targets or a skin can deform: its mesh as converted, before tangents
/// are generated (they are made again from the deformed shape), and what deforms it.
pub(super) struct Deformable {
    pub base: Mesh,
    pub targets: Vec<MorphTarget>,
    pub influences: Option<Influences>,
}

impl Deformable {
    /// Whether `weights` (of a node's morph targets) and a skin on the node change this
    /// primitive.
    pub fn deformed_by(&self, weights: &[f32], skinned: bool) -> bool {
        (skinned && self.influences.is_some()) || (!self.targets.is_empty() && weights.iter().any(|&w| w != 0.0))
    }
}

/// Adds each target's displacements times its weight. Weights past the targets, or targets
/// past the weights, count as zero.
pub(super) fn morph(mesh: &mut Mesh, targets: &[MorphTarget], weights: &[f32]) {
    for (target, &weight) in targets.iter().zip(weights).filter(|(_, &w)| w != 0.0) {
        if let Some(offsets) = &target.positions {
            add_scaled(&mut mesh.positions, offsets, weight);
        }
        if let (Some(normals), Some(offsets)) = (&mut mesh.normals, &target.normals) {
            add_scaled(normals, offsets, weight);
        }
        if let (Some(tangents), Some(offsets)) = (&mut mesh.tangents, &target.tangents) {
            for (tangent, &offset) in tangents.iter_mut().zip(offsets) {
                *tangent += (weight * offset).extend(0.0);
            }
        }
    }
}

fn add_scaled(values: &mut [Vec3], offsets: &[Vec3], weight: f32) {
    for (value, &offset) in values.iter_mut().zip(offsets) {
        *value += weight * offset;
    }
}

/// Each joint's matrix: the joint's world transform times its inverse bind matrix (identity
/// where the skin has none), finite or not (the caller skips the mesh with a warning).
/// `world`: every node's world transform, by node index.
pub(super) fn joint_matrices(
    skin: &gltf::Skin,
    buffers: &[Option<Vec<u8>>],
    world: &[Mat4],
) -> Result<Vec<Mat4>, String> {
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let inverse_binds = match skin.inverse_bind_matrices() {
        Some(accessor) => {
            let matrices = accessor::read_floats::<16>(&accessor, buffers)?;
            if matrices.len() < joints.len() {
                return Err(format!(
                    "its inverseBindMatrices (accessor {}) hold {} matrices for {} joints",
                    accessor.index(),
                    matrices.len(),
                    joints.len()
                ));
            }
            matrices.iter().map(Mat4::from_cols_array).collect()
        }
        None => vec![Mat4::IDENTITY; joints.len()],
    };
    Ok(joints
        .iter()
        .zip(inverse_binds)
        .map(|(&joint, inverse_bind)| world[joint] * inverse_bind)
        .collect())
}

/// Moves every vertex to world space by its weighted joint matrices (weights that do not sum
/// to one are scaled to). Returns the vertices that no joint weighs, which stay where they were;
/// an error names a vertex weighted to a joint the skin lacks.
pub(super) fn skin(mesh: &mut Mesh, influences: &Influences, joints: &[Mat4]) -> Result<usize, String> {
    let per_vertex = influences.per_vertex;
    let mut unweighted = 0;
    // Per vertex, whether its matrix mirrors: a triangle whose corners mostly mirror is wound
    // the other way in world space, and is turned back so that its front stays its front.
    let mut mirrors = vec![false; mesh.positions.len()];
    for vertex in 0..mesh.positions.len() {
        let range = vertex * per_vertex..(vertex + 1) * per_vertex;
        let mut blended = Mat4::ZERO;
        let mut total = 0.0;
        for (&joint, &weight) in influences.joints[range.clone()].iter().zip(&influences.weights[range]) {
            if weight == 0.0 {
                continue;
            }
            let Some(&matrix) = joints.get(joint as usize) else {
                return Err(format!(
                    "vertex {vertex} is weighted to joint {joint}, but the skin has {} joints",
                    joints.len()
                ));
            };
            blended += matrix * weight;
            total += weight;
        }
        if !(total > 0.0 && total.is_finite()) {
            unweighted += 1;
            continue;
        }
        let blended = blended * total.recip();
        mesh.positions[vertex] = blended.transform_point3(mesh.positions[vertex]);
        let linear = Mat3::from_mat4(blended);
        let determinant = linear.determinant();
        mirrors[vertex] = determinant < 0.0;
        if let Some(normals) = &mut mesh.normals {
            normals[vertex] = determinant.signum() * cofactor(linear) * normals[vertex];
        }
        if let Some(tangents) = &mut mesh.tangents {
            let tangent = tangents[vertex];
            tangents[vertex] = (linear * tangent.xyz()).extend(tangent.w * determinant.signum());
        }
    }
    for triangle in mesh.indices.chunks_exact_mut(3) {
        if triangle.iter().filter(|&&v| mirrors[v as usize]).count() >= 2 {
            triangle.swap(1, 2);
        }
    }
    Ok(unweighted)
}

/// The cofactor matrix, `determinant x inverse transpose`: it carries normals as the inverse
/// transpose does, but stays defined where a joint's matrix collapses a direction.
fn cofactor(m: Mat3) -> Mat3 {
    Mat3::from_cols(
        m.y_axis.cross(m.z_axis),
        m.z_axis.cross(m.x_axis),
        m.x_axis.cross(m.y_axis),
    )
}

/// What `settle` had to mend in a deformed mesh, for the warnings.
#[derive(Default)]
pub(super) struct Settled {
    pub dropped_triangles: usize,
    pub flat_normals: bool,
}

/// Makes a deformed mesh fit to render: triangles with corners that are no longer finite are
/// dropped, normals and tangents made unit length again (normals that cannot be give way to
/// flat ones, and tangents that cannot are made again where a normal texture needs them).
pub(super) fn settle(mesh: &mut Mesh) -> Settled {
    let before = mesh.triangle_count();
    let positions = &mesh.positions;
    mesh.indices = mesh
        .indices
        .chunks_exact(3)
        .filter(|t| t.iter().all(|&i| positions[i as usize].is_finite()))
        .flatten()
        .copied()
        .collect();
    let mut settled = Settled {
        dropped_triangles: before - mesh.triangle_count(),
        flat_normals: false,
    };
    if let Some(normals) = &mut mesh.normals {
        let unit: Option<Vec<Vec3>> = normals.iter().map(|n| n.try_normalize()).collect();
        match unit {
            Some(unit) => *normals = unit,
            None => {
                mesh.normals = None;
                settled.flat_normals = true;
            }
        }
    }
    if mesh.normals.is_none() {
        // glTF: without normals, provided tangents are ignored.
        mesh.tangents = None;
    }
    if let Some(tangents) = &mut mesh.tangents {
        let unit: Option<Vec<Vec4>> = tangents
            .iter()
            .map(|t| t.xyz().try_normalize().map(|xyz| xyz.extend(t.w)))
            .collect();
        mesh.tangents = unit;
    }
    settled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle() -> Mesh {
        Mesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            normals: Some(vec![Vec3::Z; 3]),
            tangents: Some(vec![Vec4::new(1.0, 0.0, 0.0, 1.0); 3]),
            indices: vec![0, 1, 2],
            ..Mesh::default()
        }
    }

    #[test]
    fn a_mirroring_joint_keeps_the_front_and_the_normals_outward() {
        let mut mesh = triangle();
        let influences = Influences {
            joints: vec![0; 3],
            weights: vec![1.0; 3],
            per_vertex: 1,
        };
        let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        assert_eq!(skin(&mut mesh, &influences, &[mirror]), Ok(0));
        // Mirrored in x, the corners run clockwise seen from +z; the winding is turned back.
        assert_eq!(mesh.indices, vec![0, 2, 1]);
        let [a, b, c] = [0, 1, 2].map(|i| mesh.positions[mesh.indices[i] as usize]);
        assert!((b - a).cross(c - a).z > 0.0);
        assert_eq!(mesh.normals.as_deref().map(|n| n[0]), Some(Vec3::Z));
        assert_eq!(
            mesh.tangents.as_deref().map(|t| t[0]),
            Some(Vec4::new(-1.0, 0.0, 0.0, -1.0))
        );
    }

    #[test]
    fn weights_are_normalised_and_unweighted_vertices_counted() {
        let mut mesh = triangle();
        let influences = Influences {
            joints: vec![0, 1, 0, 1, 0, 1],
            weights: vec![1.0, 1.0, 0.0, 2.0, 0.0, 0.0],
            per_vertex: 2,
        };
        let joints = [Mat4::IDENTITY, Mat4::from_translation(Vec3::new(0.0, 0.0, 2.0))];
        assert_eq!(skin(&mut mesh, &influences, &joints), Ok(1));
        assert_eq!(mesh.positions[0], Vec3::new(0.0, 0.0, 1.0));
        assert_eq!(mesh.positions[1], Vec3::new(1.0, 0.0, 2.0));
        assert_eq!(mesh.positions[2], Vec3::Y);
        let missing = Influences {
            joints: vec![5; 3],
            weights: vec![1.0; 3],
            per_vertex: 1,
        };
        assert!(skin(&mut triangle(), &missing, &joints).is_err());
    }

    #[test]
    fn morph_weights_scale_each_targets_displacements() {
        let mut mesh = triangle();
        let targets = [
            MorphTarget {
                positions: Some(vec![Vec3::Z; 3]),
                normals: Some(vec![Vec3::X; 3]),
                ..MorphTarget::default()
            },
            MorphTarget {
                positions: Some(vec![Vec3::X; 3]),
                ..MorphTarget::default()
            },
        ];
        morph(&mut mesh, &targets, &[0.5, -2.0, 7.0]);
        assert_eq!(mesh.positions[1], Vec3::new(-1.0, 0.0, 0.5));
        assert_eq!(settle(&mut mesh).dropped_triangles, 0);
        let normal = mesh.normals.as_deref().map_or(Vec3::ZERO, |n| n[0]);
        assert!((normal - Vec3::new(0.5, 0.0, 1.0).normalize()).length() < 1e-6);
    }
}
