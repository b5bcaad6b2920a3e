//! The Rust side of every struct shared with shaders. The declarations live in
//! `shader_interface.rs`, which build.rs also reads to write the GLSL side, so the two
//! cannot disagree; `tests/layout.rs` checks the result on a real device.

#[allow(unused_imports)]
use glam::{UVec2, UVec4, Vec2, Vec3, Vec4};

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
