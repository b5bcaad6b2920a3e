//! The GLSL and Rust sides of src/shader_interface.rs agree on every field's place.

use crate::common;

use glam::{UVec4, Vec2, Vec3};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, ComputePipeline, DispatchSize};
use wavetrace::interface::LayoutProbePush;

#[test]
fn push_constant_fields_reach_the_shader_intact() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let words = 14usize;
    let output = Buffer::gpu_storage(context, "layout probe", words as u64 * 4).unwrap();
    let pipeline = ComputePipeline::<LayoutProbePush>::new(context, ids::DIAGNOSTICS_LAYOUT_PROBE, &[]).unwrap();
    // Distinct, non-zero values in every field, so a shifted field cannot read as right.
    let push = LayoutProbePush {
        words: output.address(),
        a: 0xa11c_e5e5,
        b: 1.5,
        c: Vec3::new(-2.25, 3.5, 1e-3),
        pad0: 0x0bad_cafe,
        d: 0x0123_4567_89ab_cdef,
        e: Vec2::new(7.0, -8.5),
        f: UVec4::new(11, 22, 33, 44),
    };
    context
        .run_once("layout probe", |commands| {
            commands.dispatch(&pipeline, &push, DispatchSize { x: 1, y: 1 });
            Ok(())
        })
        .unwrap();
    let got: Vec<u32> = output.read_back(context, words).unwrap();
    let want = [
        push.a,
        push.b.to_bits(),
        push.c.x.to_bits(),
        push.c.y.to_bits(),
        push.c.z.to_bits(),
        push.pad0,
        push.d as u32,
        (push.d >> 32) as u32,
        push.e.x.to_bits(),
        push.e.y.to_bits(),
        push.f.x,
        push.f.y,
        push.f.z,
        push.f.w,
    ];
    assert_eq!(got, want);
    drop((pipeline, output));
    gpu.finish();
}
