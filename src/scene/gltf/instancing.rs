//! EXT_mesh_gpu_instancing: a node that draws its mesh many times (a forest's trees, a
//! crowd's props), each copy placed by its own TRANSLATION, ROTATION and SCALE in the node's
//! space, so that a copy's world transform is the node's times the copy's. The three are
//! accessors with one element per copy, read as vertex attributes are (`accessor`), so that
//! quantized rotations (normalized bytes or shorts) are read too.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};

use super::accessor;

pub(super) const EXTENSION: &str = "EXT_mesh_gpu_instancing";

/// Each instanced node's copies, in the node's space, by node index.
pub(super) type CopiesByNode = HashMap<usize, Vec<Mat4>>;

/// The file's instanced nodes. A copy whose transform is not finite (or whose rotation is
/// zero) is left out and counted in `skipped`.
#[derive(Default)]
pub(super) struct Copies {
    pub by_node: CopiesByNode,
    /// (node's name, copies left out), for one warning each.
    pub skipped: Vec<(String, usize)>,
}

/// The copies of every node that has the extension and a mesh; an error names the node and
/// what is wrong with its accessors (missing, of the wrong type, of different counts).
pub(super) fn node_copies(document: &gltf::Document, buffers: &[Option<Vec<u8>>]) -> Result<Copies, String> {
    let accessors: Vec<gltf::Accessor> = document.accessors().collect();
    let mut copies = Copies::default();
    for node in document.nodes() {
        let Some(extension) = node.extensions().and_then(|e| e.get(EXTENSION)) else {
            continue;
        };
        if node.mesh().is_none() {
            continue;
        }
        let name = super::node_name(&node);
        let accessor = |semantic: &str| -> Result<Option<&gltf::Accessor>, String> {
            let Some(index) = extension.get("attributes").and_then(|a| a.get(semantic)) else {
                return Ok(None);
            };
            index
                .as_u64()
                .and_then(|i| accessors.get(usize::try_from(i).ok()?))
                .map(Some)
                .ok_or_else(|| format!("{name}: {EXTENSION} {semantic} names no accessor ({index})"))
        };
        let problem = |semantic: &str, p: String| format!("{name}: {EXTENSION} {semantic}: {p}");
        let vectors = |semantic: &str| -> Result<Option<Vec<Vec3>>, String> {
            accessor(semantic)?
                .map(|a| accessor::read_floats::<3>(a, buffers).map_err(|p| problem(semantic, p)))
                .transpose()
                .map(|v| v.map(|v| v.into_iter().map(Vec3::from).collect()))
        };
        let translations = vectors("TRANSLATION")?;
        let scales = vectors("SCALE")?;
        let rotations: Option<Vec<Quat>> = accessor("ROTATION")?
            .map(|a| accessor::read_floats::<4>(a, buffers).map_err(|p| problem("ROTATION", p)))
            .transpose()?
            .map(|r| r.into_iter().map(Quat::from_array).collect());
        let counts: Vec<usize> = [
            translations.as_ref().map(Vec::len),
            rotations.as_ref().map(Vec::len),
            scales.as_ref().map(Vec::len),
        ]
        .into_iter()
        .flatten()
        .collect();
        let Some(&count) = counts.first() else {
            return Err(format!(
                "{name}: {EXTENSION} has none of TRANSLATION, ROTATION and SCALE"
            ));
        };
        if counts.iter().any(|&c| c != count) {
            return Err(format!(
                "{name}: {EXTENSION}'s accessors hold different numbers of copies ({counts:?})"
            ));
        }
        let at = |v: &Option<Vec<Vec3>>, i: usize, default: Vec3| v.as_ref().map_or(default, |v| v[i]);
        let mut placed = Vec::with_capacity(count);
        for i in 0..count {
            let rotation = rotations.as_ref().map_or(Quat::IDENTITY, |r| r[i]);
            let transform = Mat4::from_scale_rotation_translation(
                at(&scales, i, Vec3::ONE),
                rotation.normalize(),
                at(&translations, i, Vec3::ZERO),
            );
            if rotation.length_squared() > 0.0 && transform.is_finite() {
                placed.push(transform);
            }
        }
        if placed.len() < count {
            copies.skipped.push((name, count - placed.len()));
        }
        copies.by_node.insert(node.index(), placed);
    }
    Ok(copies)
}
