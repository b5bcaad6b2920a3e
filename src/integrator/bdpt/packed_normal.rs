//! Unit vectors in 30 bits: the CPU twin of `include/packed_normal.glsl` (octahedral, 15 bits
//! an axis), with which a glossy light vertex keeps its coat's normal beside its flags.

use glam::{Vec2, Vec3};

use crate::interface::PACKED_NORMAL_STEPS as STEPS;

fn sign_not_zero(v: f32) -> f32 {
    if v >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// `n` (unit) as 30 bits: x in the low 15, y in the next.
pub fn pack_unit_vector(n: Vec3) -> u32 {
    let mut p = Vec2::new(n.x, n.y) / (n.x.abs() + n.y.abs() + n.z.abs());
    if n.z < 0.0 {
        p = (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * Vec2::new(sign_not_zero(p.x), sign_not_zero(p.y));
    }
    let q = ((p * 0.5 + 0.5).clamp(Vec2::ZERO, Vec2::ONE) * STEPS).round();
    q.x as u32 | (q.y as u32) << 15
}

/// The unit vector of `pack_unit_vector`'s bits (above bit 30 ignored).
pub fn unpack_unit_vector(bits: u32) -> Vec3 {
    let p = Vec2::new((bits & 0x7FFF) as f32, ((bits >> 15) & 0x7FFF) as f32) / STEPS * 2.0 - Vec2::ONE;
    let mut n = Vec3::new(p.x, p.y, 1.0 - p.x.abs() - p.y.abs());
    let t = (-n.z).max(0.0);
    n.x -= t * sign_not_zero(n.x);
    n.y -= t * sign_not_zero(n.y);
    n.normalize()
}
