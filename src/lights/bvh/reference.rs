//! The light BVH on the CPU, step for step as the GPU builds it (leaves, Morton keys, a stable
//! sort, Karras's linking, bounds from the leaves up), and the importance and probabilities
//! the shaders compute: the twin the GPU build and sampler are tested against.

use glam::Vec3;

use crate::interface::{
    GpuLightBvhNode, LIGHT_BVH_KEY_BITS, LIGHT_BVH_LEAF, LIGHT_BVH_MAX_COS_SPREAD, LIGHT_BVH_NO_PARENT,
};
use crate::scene::{PunctualKind, PunctualLight, Scene};

use super::super::emissive::{luminance, EmissiveTriangles};
use super::BvhKeys;

/// A tree in the GPU's layout: nodes (root at 0), each node's parent, each light's node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BvhTree {
    pub nodes: Vec<GpuLightBvhNode>,
    pub parents: Vec<u32>,
    pub leaf_of: Vec<u32>,
}

impl BvhTree {
    /// Room for a tree over `lights` (at least one): 2 lights - 1 nodes, no parents yet.
    pub fn with_lights(lights: usize) -> Self {
        assert!(lights > 0, "a light BVH needs a light");
        Self {
            nodes: vec![GpuLightBvhNode::default(); 2 * lights - 1],
            parents: vec![LIGHT_BVH_NO_PARENT; 2 * lights - 1],
            leaf_of: vec![0; lights],
        }
    }
}

fn finite(v: Vec3) -> bool {
    v.is_finite()
}

/// A dark leaf: what the GPU writes for a light without usable power or geometry.
pub fn dark_leaf(light: u32, at: Vec3) -> GpuLightBvhNode {
    GpuLightBvhNode {
        lower: at,
        upper: at,
        power: 0.0,
        axis: Vec3::Z,
        cos_theta_o: 1.0,
        cos_theta_e: 0.0,
        children: glam::UVec2::new(light, LIGHT_BVH_LEAF),
        behind: f32::NEG_INFINITY,
        ..GpuLightBvhNode::default()
    }
}

/// A node's `behind` from its bounds and cones, as `light_bvh_behind` (light_bvh_words.glsl)
/// computes it: the lowest height of its box along the cone axis, less the margin the cone's
/// spread needs over the farthest a point inside the bounding sphere can be from the box.
pub fn behind_plane(node: &GpuLightBvhNode) -> f32 {
    if node.power.is_nan() || node.power <= 0.0 || node.cos_theta_o + node.cos_theta_e <= 0.0 {
        return f32::NEG_INFINITY;
    }
    let sin = |cos: f32| (1.0 - cos * cos).max(0.0).sqrt();
    let margin = (sin(node.cos_theta_o) * sin(node.cos_theta_e) - node.cos_theta_o * node.cos_theta_e).max(0.0);
    let half_extent = 0.5 * (node.upper - node.lower);
    node.axis.dot(0.5 * (node.lower + node.upper))
        - node.axis.abs().dot(half_extent)
        - 2.0 * margin * half_extent.length()
}

/// The leaves of a scene's lights: its emissive triangles in flattening order, then `lights`
/// (the scene's punctual lights, some darkened; directional ones dark: they are chosen beside
/// the tree).
pub fn scene_leaves(scene: &Scene, lights: &[PunctualLight], keys: &BvhKeys) -> Vec<GpuLightBvhNode> {
    let triangles = EmissiveTriangles::build(scene);
    let mut leaves = Vec::new();
    for t in &triangles.triangles {
        let front = (t.p1 - t.p0).cross(t.p2 - t.p0);
        let twice_area = front.length();
        let mut leaf = dark_leaf(leaves.len() as u32, keys.lower);
        leaf.lower = t.p0.min(t.p1.min(t.p2));
        leaf.upper = t.p0.max(t.p1.max(t.p2));
        leaf.axis = front / twice_area;
        leaf.power = luminance(t.radiance) * 0.5 * twice_area;
        leaves.push(usable_or_dark(leaf, keys.lower));
    }
    for light in lights {
        let mut leaf = dark_leaf(leaves.len() as u32, keys.lower);
        leaf.lower = light.position;
        leaf.upper = light.position;
        leaf.power = luminance(light.intensity);
        match light.kind {
            PunctualKind::Directional => leaf.power = 0.0,
            PunctualKind::Point => leaf.cos_theta_o = -1.0,
            PunctualKind::Spot { inner, outer } => {
                leaf.axis = light.direction;
                leaf.cos_theta_o = inner.cos();
                leaf.cos_theta_e = (outer - inner).max(0.0).cos().min(LIGHT_BVH_MAX_COS_SPREAD);
            }
        }
        leaves.push(usable_or_dark(leaf, keys.lower));
    }
    leaves
}

fn usable_or_dark(leaf: GpuLightBvhNode, at: Vec3) -> GpuLightBvhNode {
    let usable =
        leaf.power > 0.0 && leaf.power.is_finite() && finite(leaf.lower) && finite(leaf.upper) && finite(leaf.axis);
    if usable {
        GpuLightBvhNode {
            behind: behind_plane(&leaf),
            ..leaf
        }
    } else {
        dark_leaf(leaf.children.x, at)
    }
}

fn spread_bits(x: u32) -> u32 {
    let mut x = x & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// The sort key of a leaf, as `bvh_leaves` computes it.
pub fn sort_key(leaf: &GpuLightBvhNode, keys: &BvhKeys) -> u32 {
    let cell = ((leaf.lower + leaf.upper) * 0.5 - keys.lower) * keys.scale();
    // As the shader's uvec3(clamp(...)): NaN clamps to 0 there, and `as` gives 0 here.
    let q = cell.clamp(Vec3::ZERO, Vec3::splat(1023.0));
    let morton = (spread_bits(q.x as u32) << 2) | (spread_bits(q.y as u32) << 1) | spread_bits(q.z as u32);
    let kept = |key: u32| key >> (30 - LIGHT_BVH_KEY_BITS);
    if !keys.direction_buckets {
        return kept(morton);
    }
    let bucket = if leaf.cos_theta_o < 1.0 {
        6
    } else {
        let a = leaf.axis.abs();
        let axis = if a.x >= a.y && a.x >= a.z {
            0
        } else if a.y >= a.z {
            1
        } else {
            2
        };
        2 * axis as u32 + u32::from(leaf.axis[axis] < 0.0)
    };
    kept((bucket << 27) | (morton >> 3))
}

/// The common prefix of sorted keys i and j, ties broken by position; -1 outside.
fn common_prefix(keys: &[u32], i: i64, j: i64) -> i64 {
    if j < 0 || j >= keys.len() as i64 {
        return -1;
    }
    let (a, b) = (keys[i as usize], keys[j as usize]);
    if a == b {
        32 + i64::from((i ^ j) as u32).leading_zeros() as i64
    } else {
        i64::from((a ^ b).leading_zeros())
    }
}

/// Karras's interior node `i` over `keys` (sorted): its two children as node indices, and the
/// position of the last leaf under the first.
fn karras_children(keys: &[u32], i: i64) -> (u32, u32, u32) {
    let n = keys.len() as i64;
    let leaf = |k: i64| (n - 1 + k) as u32;
    let direction = if common_prefix(keys, i, i + 1) > common_prefix(keys, i, i - 1) {
        1
    } else {
        -1
    };
    let shortest = common_prefix(keys, i, i - direction);
    let mut reach = 2;
    while common_prefix(keys, i, i + reach * direction) > shortest {
        reach *= 2;
    }
    let mut length = 0;
    let mut step = reach / 2;
    while step >= 1 {
        if common_prefix(keys, i, i + (length + step) * direction) > shortest {
            length += step;
        }
        step /= 2;
    }
    let j = i + length * direction;
    let node_prefix = common_prefix(keys, i, j);
    let mut split = 0;
    let mut step = (length + 1) / 2;
    loop {
        if split + step <= length && common_prefix(keys, i, i + (split + step) * direction) > node_prefix {
            split += step;
        }
        if step == 1 {
            break;
        }
        step = (step + 1) / 2;
    }
    let gamma = i + split * direction + direction.min(0);
    let left = if i.min(j) == gamma { leaf(gamma) } else { gamma as u32 };
    let right = if i.max(j) == gamma + 1 {
        leaf(gamma + 1)
    } else {
        (gamma + 1) as u32
    };
    (left, right, gamma as u32)
}

/// The tree `bvh_leaves`, the radix sort and `bvh_climb` build from `leaves`: Karras' tree,
/// found here top-down by Karras' own construction, which the GPU reaches bottom-up.
pub fn build(leaves: &[GpuLightBvhNode], keys: &BvhKeys) -> BvhTree {
    let all_keys: Vec<u32> = leaves.iter().map(|l| sort_key(l, keys)).collect();
    let mut order: Vec<u32> = (0..leaves.len() as u32).collect();
    // Stable, as the radix sort is.
    order.sort_by_key(|&light| all_keys[light as usize]);
    let sorted: Vec<u32> = order.iter().map(|&l| all_keys[l as usize]).collect();
    link(leaves, &sorted, &order)
}

/// The tree over `leaves` once sorted: `sorted_keys[k]` is the key of light `order[k]`.
pub fn link(leaves: &[GpuLightBvhNode], sorted_keys: &[u32], order: &[u32]) -> BvhTree {
    let n = leaves.len();
    let mut tree = BvhTree::with_lights(n);
    for (k, &light) in order.iter().enumerate() {
        tree.nodes[n - 1 + k] = GpuLightBvhNode {
            split: k as u32,
            ..leaves[light as usize]
        };
        tree.leaf_of[light as usize] = (n - 1 + k) as u32;
    }
    for i in 0..n.saturating_sub(1) {
        let (left, right, split) = karras_children(sorted_keys, i as i64);
        tree.nodes[i].children = glam::UVec2::new(left, right);
        tree.nodes[i].split = split;
        tree.parents[left as usize] = i as u32;
        tree.parents[right as usize] = i as u32;
    }
    if n > 1 {
        merge_up(&mut tree.nodes, 0);
    }
    tree
}

/// Fills interior node `node` and those below it from their children, keeping their children
/// and splits (iteratively: Karras trees over equal keys can be deep).
fn merge_up(nodes: &mut [GpuLightBvhNode], root: u32) {
    let mut stack = vec![(root, false)];
    while let Some((node, children_done)) = stack.pop() {
        let n = nodes[node as usize];
        if n.children.y == LIGHT_BVH_LEAF {
            continue;
        }
        if children_done {
            nodes[node as usize] = merged(
                &nodes[n.children.x as usize],
                &nodes[n.children.y as usize],
                n.children,
                n.split,
            );
        } else {
            stack.push((node, true));
            stack.push((n.children.x, false));
            stack.push((n.children.y, false));
        }
    }
}

fn angle_between(a: Vec3, b: Vec3) -> f32 {
    if a.dot(b) < 0.0 {
        std::f32::consts::PI - 2.0 * ((a + b).length() / 2.0).min(1.0).asin()
    } else {
        2.0 * ((b - a).length() / 2.0).min(1.0).asin()
    }
}

/// The cone holding cones (a, cos_a) and (b, cos_b), as `bvh_climb` computes it.
pub fn cone_union(a: Vec3, cos_a: f32, b: Vec3, cos_b: f32) -> (Vec3, f32) {
    use std::f32::consts::PI;
    let theta_a = cos_a.clamp(-1.0, 1.0).acos();
    let theta_b = cos_b.clamp(-1.0, 1.0).acos();
    let theta_d = angle_between(a, b);
    if (theta_d + theta_b).min(PI) <= theta_a {
        return (a, cos_a);
    }
    if (theta_d + theta_a).min(PI) <= theta_b {
        return (b, cos_b);
    }
    let theta_o = 0.5 * (theta_a + theta_d + theta_b);
    let turn = a.cross(b);
    if theta_o >= PI {
        return (a, -1.0);
    }
    if turn.length_squared() <= 0.0 {
        // Parallel axes (one direction but for the rounding of their lengths) or opposite
        // ones, as bvh_climb says.
        let cos_o = if a.dot(b) > 0.0 {
            theta_a.max(theta_b + theta_d).min(PI).cos()
        } else {
            -1.0
        };
        return (a, cos_o);
    }
    let theta_r = theta_o - theta_a;
    let k = turn.normalize();
    (
        (a * theta_r.cos() + k.cross(a) * theta_r.sin()).normalize(),
        theta_o.cos(),
    )
}

/// Two children merged into their parent, as `bvh_climb` merges them; `split` is the position
/// of the last leaf under `a`.
pub fn merged(a: &GpuLightBvhNode, b: &GpuLightBvhNode, children: glam::UVec2, split: u32) -> GpuLightBvhNode {
    let mut node = match (a.power > 0.0, b.power > 0.0) {
        (true, true) => {
            let (axis, cos_theta_o) = cone_union(a.axis, a.cos_theta_o, b.axis, b.cos_theta_o);
            GpuLightBvhNode {
                lower: a.lower.min(b.lower),
                upper: a.upper.max(b.upper),
                power: a.power + b.power,
                axis,
                cos_theta_o,
                cos_theta_e: a.cos_theta_e.min(b.cos_theta_e),
                ..GpuLightBvhNode::default()
            }
        }
        (false, true) => *b,
        _ => *a,
    };
    node.children = children;
    node.split = split;
    node.behind = behind_plane(&node);
    node
}
