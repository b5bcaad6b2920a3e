// The one declaration of every struct that crosses the CPU/GPU boundary.
//
// This file is `include!`d twice: by the library, whose `gpu_structs!` macro turns each
// entry into a `#[repr(C)]` Pod struct, and by build.rs, whose macro of the same name turns
// each entry into a GLSL struct in `interface.glsl` (scalar block layout). Both sides come
// from these lines, so their field order, types and sizes cannot drift apart.
//
// Field types: u32, i32, f32, u64 (device addresses), and glam's Vec2/Vec3/Vec4/UVec2/UVec4,
// which have the same size and alignment in repr(C) and GLSL's scalar layout.

gpu_structs! {
    /// Push constants of `primitives/scan_block` and `primitives/scan_add_offsets`.
    /// Addresses are buffer device addresses; `block_sums` is 0 when the input fits in one block.
    struct ScanPush {
        values_in: u64,
        values_out: u64,
        block_sums: u64,
        count: u32,
        groups_x: u32,
    }

    /// Push constants of the layout probe used by tests to check the two sides of this file.
    struct LayoutProbePush {
        words: u64,
        a: u32,
        b: f32,
        c: Vec3,
        pad0: u32,
        d: u64,
        e: Vec2,
        f: UVec4,
    }

    /// A ray of the trace probe (tests of the acceleration structures).
    struct ProbeRay {
        origin: Vec3,
        t_min: f32,
        direction: Vec3,
        t_max: f32,
    }

    /// What the trace probe found; `t` is negative for a miss.
    struct ProbeHit {
        t: f32,
        custom_index: u32,
        primitive: u32,
        instance: u32,
    }

    /// Push constants of `diagnostics/trace_probe_query`.
    struct TraceProbePush {
        top_level: u64,
        rays: u64,
        hits: u64,
        count: u32,
        pad0: u32,
    }

    /// One emissive triangle in world space, wound so that `cross(p1 - p0, p2 - p0)` points
    /// to the emitting (front) side, whatever the instance's transform did to the winding.
    struct EmissiveTriangle {
        p0: Vec3,
        instance: u32,
        p1: Vec3,
        primitive: u32,
        p2: Vec3,
        area: f32,
        radiance: Vec3,
        pad0: u32,
    }

    /// Push constants of `diagnostics/rng_probe`.
    struct RngProbePush {
        values: u64,
        count: u32,
        dimensions: u32,
        seed: u32,
        sample_index: u32,
        bounce: u32,
        pad0: u32,
    }

    /// One instance of the scene: object-to-world rows, its mesh, and whether its
    /// transform mirrors (which flips the front face).
    struct GpuInstance {
        row0: Vec4,
        row1: Vec4,
        row2: Vec4,
        mesh: u32,
        flips_winding: u32,
        pad0: u32,
        pad1: u32,
    }

    /// Where a mesh's vertices and indices start in the scene buffers, and its material.
    struct GpuMesh {
        first_vertex: u32,
        first_index: u32,
        material: u32,
        pad0: u32,
    }

    /// `kind`: 0 Lambertian, 1 perfect mirror, 2 smooth dielectric (`MATERIAL_*` in
    /// shaders-glsl/include/bsdf.glsl, `MaterialKind` in src/integrator/wavefront.rs).
    struct GpuMaterial {
        base_color: Vec4,
        emission: Vec3,
        kind: u32,
        ior: f32,
        pad0: u32,
        pad1: u32,
        pad2: u32,
    }

    /// Everything a wavefront kernel reads: scene tables, path state, queues, film, camera.
    /// Lives in a buffer; kernels get its address as their only push constant.
    struct PassConstants {
        positions: u64,
        indices: u64,
        instances: u64,
        meshes: u64,
        materials: u64,
        top_level: u64,
        ray_origins: u64,
        ray_directions: u64,
        throughputs: u64,
        hits: u64,
        queues: u64,
        extend_queue: u64,
        shade_queue: u64,
        film: u64,
        shadow_origins: u64,
        shadow_directions: u64,
        shadow_contributions: u64,
        connect_queue: u64,
        light_triangles: u64,
        light_cdf: u64,
        light_count: u32,
        light_total_power: f32,
        camera_origin: Vec3,
        tan_half_yfov: f32,
        camera_right: Vec3,
        aspect: f32,
        camera_up: Vec3,
        seed: u32,
        camera_forward: Vec3,
        path_count: u32,
        width: u32,
        height: u32,
        max_depth: u32,
        pad0: u32,
    }

    /// Queue counters and the indirect arguments made from them; all GPU-written.
    struct QueueState {
        extend_count: u32,
        shade_count: u32,
        sample_index: u32,
        connect_count: u32,
        extend_groups: UVec4,
        shade_groups: UVec4,
        extend_launch: UVec4,
        connect_groups: UVec4,
        connect_launch: UVec4,
        // Rays traced over the whole render, for --stats (read once after the last pass).
        extend_rays: u64,
        shadow_rays: u64,
    }

    /// The closest hit of a path's ray, written by either trace backend.
    struct HitRecord {
        t: f32,
        instance: u32,
        primitive: u32,
        pad0: u32,
    }

    /// `bounce`: the path segment the kernel works on; every live path of a pass is at the
    /// same bounce in the GPU-driven schedule, so it is fixed at recording time.
    struct WavefrontPush {
        constants: u64,
        bounce: u32,
        pad0: u32,
    }
}
