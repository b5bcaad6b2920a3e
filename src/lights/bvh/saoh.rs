//! A light BVH built on the CPU by the surface-area-orientation heuristic (Conty Estevez and
//! Kulla 2018; pbrt-v4's `BVHLightSampler` builds this way): top-down, each node split where
//! the summed cost (power x the orientation cone's measure x surface area) of the two halves
//! is lowest among 12 buckets along each axis. Slow and serial, it is the quality the GPU's
//! Morton-ordered tree is measured against, by `tree_cost` and by rendering with it
//! (`--lights cpu-bvh`).

use glam::{UVec2, Vec3};

use crate::interface::{GpuLightBvhNode, LIGHT_BVH_LEAF};

use super::reference::{merged, BvhTree};

const BUCKETS: usize = 12;

/// The orientation cone's measure M_omega (the solid angle its normals and emission cover,
/// cosine-weighted beyond theta_o).
fn orientation_measure(cos_theta_o: f32, cos_theta_e: f32) -> f32 {
    use std::f32::consts::PI;
    let theta_o = cos_theta_o.clamp(-1.0, 1.0).acos();
    let theta_e = cos_theta_e.clamp(-1.0, 1.0).acos();
    let theta_w = (theta_o + theta_e).min(PI);
    let sin_theta_o = theta_o.sin();
    2.0 * PI * (1.0 - cos_theta_o)
        + PI / 2.0
            * (2.0 * theta_w * sin_theta_o - (theta_o - 2.0 * theta_w).cos() - 2.0 * theta_o * sin_theta_o
                + cos_theta_o)
}

fn surface_area(node: &GpuLightBvhNode) -> f32 {
    let d = (node.upper - node.lower).max(Vec3::ZERO);
    2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
}

/// The heuristic's cost of a node: 0 for one without power.
pub fn node_cost(node: &GpuLightBvhNode) -> f64 {
    if node.power.is_nan() || node.power <= 0.0 {
        return 0.0;
    }
    f64::from(node.power)
        * f64::from(orientation_measure(node.cos_theta_o, node.cos_theta_e))
        * f64::from(surface_area(node).max(1e-12))
}

/// A tree's quality: the summed cost of its interior nodes over the root's (lower is better;
/// comparable between trees over the same lights).
pub fn tree_cost(tree: &BvhTree) -> f64 {
    let root = node_cost(&tree.nodes[0]);
    if root <= 0.0 {
        return 0.0;
    }
    let total: f64 = tree
        .nodes
        .iter()
        .filter(|n| n.children.y != LIGHT_BVH_LEAF)
        .map(node_cost)
        .sum();
    total / root
}

fn union_of(leaves: &[GpuLightBvhNode], members: &[u32]) -> GpuLightBvhNode {
    let mut node = leaves[members[0] as usize];
    for &m in &members[1..] {
        node = merged(&node, &leaves[m as usize], UVec2::ZERO, 0);
    }
    node
}

/// The lowest-cost split of `members` (at least two): the members of the first half,
/// moved to the front, and how many there are.
fn split(leaves: &[GpuLightBvhNode], members: &mut [u32]) -> usize {
    let centre = |m: u32| 0.5 * (leaves[m as usize].lower + leaves[m as usize].upper);
    let (lo, hi) = members
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &m| {
            (lo.min(centre(m)), hi.max(centre(m)))
        });
    let mut best: Option<(f64, usize, f32)> = None;
    for axis in 0..3 {
        let extent = hi[axis] - lo[axis];
        if extent.is_nan() || extent <= 0.0 {
            continue;
        }
        let bucket_of = |m: u32| (((centre(m)[axis] - lo[axis]) / extent * BUCKETS as f32) as usize).min(BUCKETS - 1);
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); BUCKETS];
        for &m in members.iter() {
            buckets[bucket_of(m)].push(m);
        }
        for cut in 1..BUCKETS {
            let below: Vec<u32> = buckets[..cut].concat();
            let above: Vec<u32> = buckets[cut..].concat();
            if below.is_empty() || above.is_empty() {
                continue;
            }
            let cost = node_cost(&union_of(leaves, &below)) + node_cost(&union_of(leaves, &above));
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, axis, lo[axis] + extent * cut as f32 / BUCKETS as f32));
            }
        }
    }
    match best {
        Some((_, axis, plane)) => {
            let mut first = 0;
            for i in 0..members.len() {
                let m = members[i];
                if centre(m)[axis] < plane {
                    members.swap(first, i);
                    first += 1;
                }
            }
            first.clamp(1, members.len() - 1)
        }
        // Every centre in one place: halves by count.
        None => members.len() / 2,
    }
}

/// The SAOH tree over `leaves` (light i is leaf i), in the GPU's layout (root at 0).
pub fn build(leaves: &[GpuLightBvhNode]) -> BvhTree {
    let n = leaves.len();
    let mut tree = BvhTree::with_lights(n);
    let mut members: Vec<u32> = (0..n as u32).collect();
    let mut next = 1u32;
    // (node index, range of `members`), then merged bottom-up in reverse creation order.
    let mut stack = vec![(0u32, 0usize, n)];
    let mut interior = Vec::new();
    while let Some((node, start, end)) = stack.pop() {
        if end - start == 1 {
            let light = members[start];
            tree.nodes[node as usize] = GpuLightBvhNode {
                split: start as u32,
                ..leaves[light as usize]
            };
            tree.leaf_of[light as usize] = node;
            continue;
        }
        let middle = start + split(leaves, &mut members[start..end]);
        let (left, right) = (next, next + 1);
        next += 2;
        tree.nodes[node as usize].children = UVec2::new(left, right);
        tree.nodes[node as usize].split = (middle - 1) as u32;
        tree.parents[left as usize] = node;
        tree.parents[right as usize] = node;
        interior.push(node);
        stack.push((left, start, middle));
        stack.push((right, middle, end));
    }
    for &node in interior.iter().rev() {
        let children = tree.nodes[node as usize].children;
        tree.nodes[node as usize] = merged(
            &tree.nodes[children.x as usize],
            &tree.nodes[children.y as usize],
            children,
            tree.nodes[node as usize].split,
        );
    }
    tree
}
