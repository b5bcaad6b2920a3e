//! The Rust side of every struct and constant shared with shaders. The declarations live in
//! `shader_interface.rs`, which build.rs also reads to write the GLSL side, so the two
//! cannot disagree; `tests/layout.rs` checks the structs on a real device and
//! `tests/shader_constants.rs` that no shader defines a shared constant by hand.

#[allow(unused_imports)]
use glam::{UVec2, UVec4, Vec2, Vec3, Vec4};

macro_rules! gpu_constants {
    ($($(#[$meta:meta])* const $name:ident : $ty:ident = $value:expr;)*) => {
        $(
            $(#[$meta])*
            pub const $name: $ty = $value;
        )*
        /// The names of every constant above, as the shaders see them.
        pub const SHARED_CONSTANTS: &[&str] = &[$(stringify!($name)),*];
    };
}

macro_rules! gpu_structs {
    ($($(#[$meta:meta])* struct $name:ident { $($field:ident : $ty:ident),* $(,)? })*) => {
        $(
            $(#[$meta])*
            #[repr(C)]
            #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
            pub struct $name {
                $(pub $field: $ty),*
            }
        )*
    };
}

include!("shader_interface.rs");

// light_bvh.glsl reads a node as four 16-byte words (`light_bvh_node`), which is only right
// while the node is four words with no vector straddling two.
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<GpuLightBvhNode>() == 64);
    assert!(offset_of!(GpuLightBvhNode, upper) == 16 && offset_of!(GpuLightBvhNode, axis) == 32);
    assert!(offset_of!(GpuLightBvhNode, children) == 48 && offset_of!(GpuLightBvhNode, split) == 56);
};
