//! What light_bvh.glsl computes, on the CPU: the importance of a node at a shading point and
//! every light's probability of being chosen there; and the checks a built tree must pass.

use glam::Vec3;

use crate::interface::{GpuLightBvhNode, LIGHT_BVH_LEAF, LIGHT_BVH_NO_PARENT};

use super::reference::BvhTree;

/// Where a light is chosen (light_bvh.glsl's `LightContext`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightContext {
    pub point: Vec3,
    /// Zero: no hemisphere.
    pub normal: Vec3,
    /// False: by power alone.
    pub spatial: bool,
}

fn cos_sub_clamped(sin_a: f32, cos_a: f32, sin_b: f32, cos_b: f32) -> f32 {
    if cos_a > cos_b {
        1.0
    } else {
        cos_a * cos_b + sin_a * sin_b
    }
}

fn sin_sub_clamped(sin_a: f32, cos_a: f32, sin_b: f32, cos_b: f32) -> f32 {
    if cos_a > cos_b {
        0.0
    } else {
        sin_a * cos_b - cos_a * sin_b
    }
}

/// light_bvh.glsl's LIGHT_BVH_NEAREST_FRACTION2: the squared share of a node's radius inside
/// which its lights count as no nearer.
const NEAREST_FRACTION2: f32 = 1.0 / 16.0;

fn safe_sqrt(x: f32) -> f32 {
    x.max(0.0).sqrt()
}

/// light_bvh_importance.
pub fn importance(node: &GpuLightBvhNode, ctx: &LightContext) -> f32 {
    if node.power.is_nan() || node.power <= 0.0 {
        return 0.0;
    }
    if !ctx.spatial {
        return node.power;
    }
    let center = 0.5 * (node.lower + node.upper);
    let radius2 = 0.25 * (node.upper - node.lower).length_squared();
    let to_point = ctx.point - center;
    let distance2 = to_point.length_squared();
    let inside = distance2 <= radius2;
    let wi = if inside {
        Vec3::ZERO
    } else {
        to_point / distance2.sqrt()
    };
    let cos_b = if inside {
        -1.0
    } else {
        safe_sqrt(1.0 - radius2 / distance2)
    };
    let sin_b = safe_sqrt(1.0 - cos_b * cos_b);
    let cos_w = if inside { 1.0 } else { node.axis.dot(wi) };
    let sin_w = safe_sqrt(1.0 - cos_w * cos_w);
    let sin_o = safe_sqrt(1.0 - node.cos_theta_o * node.cos_theta_o);
    let cos_x = cos_sub_clamped(sin_w, cos_w, sin_o, node.cos_theta_o);
    let sin_x = sin_sub_clamped(sin_w, cos_w, sin_o, node.cos_theta_o);
    let cos_emit = cos_sub_clamped(sin_x, cos_x, sin_b, cos_b);
    if cos_emit <= node.cos_theta_e {
        return 0.0;
    }
    if inside && node.axis.dot(ctx.point) <= node.behind {
        return 0.0;
    }
    let mut importance = node.power * cos_emit / distance2.max(NEAREST_FRACTION2 * radius2);
    if ctx.normal != Vec3::ZERO {
        let half_extent = 0.5 * (node.upper - node.lower);
        if (center - ctx.point).dot(ctx.normal) + half_extent.dot(ctx.normal.abs()) <= 0.0 {
            return 0.0;
        }
        let cos_i = if inside { 1.0 } else { (-wi).dot(ctx.normal) };
        let sin_i = safe_sqrt(1.0 - cos_i * cos_i);
        let cos_receive = cos_sub_clamped(sin_i, cos_i, sin_b, cos_b);
        if cos_receive <= 0.0 {
            return 0.0;
        }
        importance *= cos_receive;
    }
    if importance > 0.0 && importance.is_finite() {
        importance
    } else {
        0.0
    }
}

/// Each light's probability of being chosen at `ctx`: the product of the children's shares
/// of importance from the root down.
pub fn probabilities(tree: &BvhTree, ctx: &LightContext) -> Vec<f64> {
    let mut result = vec![0.0; tree.leaf_of.len()];
    // As the GPU sampler: only a tree of one light asks the root's importance; otherwise each
    // level's shares decide.
    let root = &tree.nodes[0];
    if root.children.y == LIGHT_BVH_LEAF && importance(root, ctx) <= 0.0 {
        return result;
    }
    let mut stack = vec![(0u32, 1.0f64)];
    while let Some((node, p)) = stack.pop() {
        let n = &tree.nodes[node as usize];
        if n.children.y == LIGHT_BVH_LEAF {
            result[n.children.x as usize] = p;
            continue;
        }
        let first = f64::from(importance(&tree.nodes[n.children.x as usize], ctx));
        let second = f64::from(importance(&tree.nodes[n.children.y as usize], ctx));
        let total = first + second;
        if total > 0.0 {
            stack.push((n.children.x, p * first / total));
            stack.push((n.children.y, p * second / total));
        }
    }
    result
}

/// What a built tree must be: every node reached once from the root, parents that agree with
/// children, each light at its leaf, power summed, bounds that hold the lit children, and
/// splits that say where each leaf lies. The first problem found, or None.
pub fn structure_problem(tree: &BvhTree) -> Option<String> {
    let n = tree.leaf_of.len();
    if tree.nodes.len() != 2 * n - 1 || tree.parents.len() != 2 * n - 1 {
        return Some(format!(
            "{} nodes and {} parents for {n} lights",
            tree.nodes.len(),
            tree.parents.len()
        ));
    }
    if tree.parents[0] != LIGHT_BVH_NO_PARENT {
        return Some(format!("the root has parent {}", tree.parents[0]));
    }
    let mut seen = vec![false; tree.nodes.len()];
    let mut stack = vec![0u32];
    while let Some(node) = stack.pop() {
        let Some(slot) = seen.get_mut(node as usize) else {
            return Some(format!("node {node} out of range"));
        };
        if std::mem::replace(slot, true) {
            return Some(format!("node {node} reached twice"));
        }
        let record = &tree.nodes[node as usize];
        if record.children.y == LIGHT_BVH_LEAF {
            let light = record.children.x as usize;
            if tree.leaf_of.get(light) != Some(&node) {
                return Some(format!("leaf {node} holds light {light}, whose leaf is elsewhere"));
            }
            continue;
        }
        for child in [record.children.x, record.children.y] {
            if tree.parents.get(child as usize) != Some(&node) {
                return Some(format!("child {child} of {node} has another parent"));
            }
            if let Some(problem) = child_problem(record, &tree.nodes[child as usize]) {
                return Some(format!("node {node}, child {child}: {problem}"));
            }
            stack.push(child);
        }
    }
    if let Some(node) = seen.iter().position(|&s| !s) {
        return Some(format!("node {node} unreachable"));
    }
    split_problem(tree)
}

/// Whether every `split` says what sampling's probability relies on: leaves numbered from left
/// to right, and each interior node's split the last leaf under its first child. Needs a tree
/// whose structure is otherwise sound.
fn split_problem(tree: &BvhTree) -> Option<String> {
    let is_leaf = |node: u32| tree.nodes[node as usize].children.y == LIGHT_BVH_LEAF;
    let mut position = 0;
    let mut stack = vec![0u32];
    while let Some(node) = stack.pop() {
        let record = &tree.nodes[node as usize];
        if is_leaf(node) {
            if record.split != position {
                return Some(format!(
                    "leaf {node} is leaf {position} from the left, its split says {}",
                    record.split
                ));
            }
            position += 1;
            continue;
        }
        let mut last = record.children.x;
        while !is_leaf(last) {
            last = tree.nodes[last as usize].children.y;
        }
        if record.split != tree.nodes[last as usize].split {
            return Some(format!(
                "node {node}: split {}, but its first child's last leaf is {}",
                record.split, tree.nodes[last as usize].split
            ));
        }
        stack.push(record.children.y);
        stack.push(record.children.x);
    }
    None
}

fn child_problem(parent: &GpuLightBvhNode, child: &GpuLightBvhNode) -> Option<String> {
    if child.power.is_nan() || child.power <= 0.0 {
        return None;
    }
    let slack = 1e-5 * (parent.upper - parent.lower).abs().max_element().max(1.0);
    if (child.lower - parent.lower).min_element() < -slack || (parent.upper - child.upper).min_element() < -slack {
        return Some("bounds not inside the parent's".into());
    }
    if child.power > parent.power * (1.0 + 1e-5) {
        return Some(format!("power {} above the parent's {}", child.power, parent.power));
    }
    // The parent's cone holds the child's (to the rounding of acos on a GPU).
    let angle = |cos: f32| f64::from(cos.clamp(-1.0, 1.0)).acos();
    let between = f64::from(parent.axis.dot(child.axis).clamp(-1.0, 1.0)).acos();
    if parent.cos_theta_o > -1.0 && between + angle(child.cos_theta_o) > angle(parent.cos_theta_o) + 2e-3 {
        return Some(format!(
            "cone of {} rad at {between} rad from the parent's axis, outside its {} rad",
            angle(child.cos_theta_o),
            angle(parent.cos_theta_o)
        ));
    }
    if child.cos_theta_e < parent.cos_theta_e {
        return Some("emission spread wider than the parent's".into());
    }
    None
}
