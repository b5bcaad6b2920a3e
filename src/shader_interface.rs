// The one declaration of every struct and constant that crosses the CPU/GPU boundary.
//
// This file is `include!`d twice: by the library, whose `gpu_constants!` and `gpu_structs!`
// macros turn each entry into a Rust constant or a `#[repr(C)]` Pod struct, and by build.rs,
// whose macros of the same names turn each entry into GLSL in the generated `interface.glsl`
// (scalar block layout). Both sides come from these lines, so their values, field order,
// types and sizes cannot drift apart; `tests/shader_constants.rs` fails if a shader defines
// one of these constants by hand.
//
// Constant types: u32, i32, f32. Field types: u32, i32, f32, u64 (device addresses), and
// glam's Vec2/Vec3/Vec4/UVec2/UVec4, which have the same size and alignment in repr(C) and
// GLSL's scalar layout.

gpu_constants! {
    /// The deepest software hierarchy (`trace::software_bvh`) its traversal's stack holds.
    const SOFTWARE_BVH_MAX_DEPTH: u32 = 64;
    /// What the software traversal scales a box's far distance by, so that rounding never
    /// culls a box a ray touches (Ize 2013's 1 + 2 gamma(3)).
    const SOFTWARE_CONSERVATIVE_FAR: f32 = 1.000_000_4;
    /// Set on a software hierarchy's instance id where the material may have alpha holes.
    const SOFTWARE_MAY_HAVE_HOLES: u32 = 0x8000_0000;
    /// Bits of a software hierarchy's leaf index that hold its triangle count less one.
    const SOFTWARE_LEAF_COUNT_BITS: u32 = 4;
    /// Threads per workgroup of the wavefront's compute kernels and the compute megakernel.
    const WAVEFRONT_GROUP: u32 = 64;
    /// A free path slot has this pixel; every other value is a path in flight.
    const INACTIVE_PATH: u32 = 0xffff_ffff;
    /// The wavefront regenerates (compacts its paths and fills the freed slots with camera
    /// paths) when fewer than 1 / REGENERATION_SHARE of the slots hold a path. Compaction reads
    /// every slot, so rarer and larger refills cost less; a quarter of the usual 2^23 slots
    /// still fills a GPU. Against a half: compaction 39 -> 19 ms and +3-4% samples/s on the
    /// Cornell box at depth 8 on the H100 (docs/BENCHMARKS.md). Both schedulers obey it.
    const REGENERATION_SHARE: u32 = 4;
    /// A path's sample index (low `SAMPLE_BITS` bits) and the segment it is on (the high 8)
    /// share one word.
    const SAMPLE_BITS: u32 = 24;
    const SAMPLE_MASK: u32 = (1 << SAMPLE_BITS) - 1;
    /// The wavefront's queues (`integrator::kernel_graph::Queue`), indices into
    /// `QueueState`'s vectors.
    /// Extend and connect are neighbours, so that the shade kernels, which feed both, reserve
    /// their runs of both with one 64-bit atomic (`enqueue_extend_and_connect`).
    const QUEUE_EXTEND: u32 = 0;
    const QUEUE_CONNECT: u32 = 1;
    const QUEUE_SHADE: u32 = 2;
    /// compact_find's shape: each thread tests this many slots, a workgroup's worth of them
    /// apart, and a workgroup appends to each list with one global atomic.
    const COMPACT_GROUP: u32 = 256;
    const COMPACT_SLOTS_PER_THREAD: u32 = 8;
    const COMPACT_SLOTS_PER_GROUP: u32 = COMPACT_GROUP * COMPACT_SLOTS_PER_THREAD;
    /// The film's fixed-point unit is 1 / FILM_SCALE (film.glsl).
    const FILM_SCALE: f32 = 16_777_216.0;
    /// Larger contributions are clamped, so that 2^24 samples of them cannot overflow a sum.
    const FILM_MAX: f32 = 1.0e7;
    /// The counting sort's shape, shared by its kernels and by prepare_launch, which sizes
    /// their launches.
    const SORT_GROUP: u32 = 256;
    const SORT_ITEMS_PER_THREAD: u32 = 4;
    const SORT_ITEMS_PER_GROUP: u32 = SORT_GROUP * SORT_ITEMS_PER_THREAD;
    /// Buckets fit one workgroup's shared histogram.
    const SORT_MAX_BUCKETS: u32 = 1024;
    /// `GpuMaterial::textures` entry of a material without that texture.
    const NO_TEXTURE: u32 = 0xffff_ffff;
    /// `GpuMaterial::second_uv_textures`: which textures read the mesh's second set of
    /// texture coordinates (`PassConstants::second_uvs`).
    const SECOND_UV_BASE_COLOR: u32 = 1 << 0;
    const SECOND_UV_METALLIC_ROUGHNESS: u32 = 1 << 1;
    const SECOND_UV_NORMAL: u32 = 1 << 2;
    const SECOND_UV_EMISSIVE: u32 = 1 << 3;
    /// Any of the material's layer textures (each binding says which).
    const SECOND_UV_LAYERS: u32 = 1 << 4;
    /// `GpuMaterial::alpha_mode`.
    const ALPHA_OPAQUE: u32 = 0;
    const ALPHA_MASK: u32 = 1;
    const ALPHA_BLEND: u32 = 2;
    /// Below this GGX alpha a lobe is a delta (a perfect mirror or smooth glass).
    const DELTA_ALPHA: f32 = 1e-3;
    /// KHR_materials_clearcoat's Fresnel at normal incidence: ior 1.5.
    const CLEARCOAT_F0: f32 = 0.04;
    /// Steps an axis of a unit vector packed in 30 bits (include/packed_normal.glsl): 15 bits,
    /// even, so that the axes come back exactly.
    const PACKED_NORMAL_STEPS: f32 = 32766.0;
    /// `PassConstants::light_selection`: how next-event estimation picks an emissive triangle.
    const LIGHT_SELECTION_TREE: u32 = 0;
    const LIGHT_SELECTION_CDF: u32 = 1;
    const LIGHT_SELECTION_UNIFORM: u32 = 2;
    /// By importance at the shading point, descending the light BVH (light_bvh.glsl).
    const LIGHT_SELECTION_BVH: u32 = 3;
    /// `GpuLightBvhNode::children.y` of a leaf (its `children.x` is the light).
    const LIGHT_BVH_LEAF: u32 = 0xffff_ffff;
    /// The parent of the light BVH's root.
    const LIGHT_BVH_NO_PARENT: u32 = 0xffff_ffff;
    /// The largest cos(theta_e) a light BVH leaf keeps: a spot whose falloff between its inner
    /// and outer cones is narrower than about 4.5 mrad keeps that much. In float32 the cosine of
    /// a spread under 3.5e-4 rad is 1, and importance's test `cos_emit <= cos_theta_e` then
    /// turned away every point in the spot's own cone (Blender's hard spots: glTF's inner cone
    /// equal to the outer). Slack only loosens the bound.
    const LIGHT_BVH_MAX_COS_SPREAD: f32 = 0.99999;
    /// Threads per workgroup of the light BVH's build kernels.
    const LIGHT_BVH_GROUP: u32 = 256;
    /// Bits of the light BVH's sort keys: the top bits of a 30-bit Morton code (10 bits an
    /// axis), or of a 3-bit direction bucket over 27 bits of it. Three digits of the radix
    /// sort; a fourth cost about 13 us a build on an H100 and changed no tree's SAOH cost by
    /// more than 1e-5 (docs/BENCHMARKS.md).
    const LIGHT_BVH_KEY_BITS: u32 = 24;
    /// The radix sort (primitives/radix_sort.rs): digits of RADIX_BITS bits, workgroups of
    /// RADIX_GROUP threads each ranking RADIX_ITEMS_PER_THREAD items of a tile.
    const RADIX_BITS: u32 = 8;
    const RADIX_BUCKETS: u32 = 1 << RADIX_BITS;
    const RADIX_GROUP: u32 = 256;
    const RADIX_ITEMS_PER_THREAD: u32 = 8;
    const RADIX_TILE: u32 = RADIX_GROUP * RADIX_ITEMS_PER_THREAD;
    /// `instance_light_offset` of an instance that emits nothing.
    const NOT_A_LIGHT: u32 = 0xffff_ffff;
    /// `PassConstants::light_culling` (`--light-culling`): next-event estimation chooses lights
    /// of finite range globally (off) or among those listed for the shading point's cell, as
    /// flat bit arrays or as compacted index lists (light_culling.glsl).
    const LIGHT_CULLING_OFF: u32 = 0;
    const LIGHT_CULLING_BITS: u32 = 1;
    const LIGHT_CULLING_LISTS: u32 = 2;
    /// Screen tiles of the first bounce are this many pixels square: one workgroup of the
    /// culling kernel, a thread a pixel.
    const LIGHT_CULLING_TILE: u32 = 16;
    const LIGHT_CULLING_GROUP: u32 = LIGHT_CULLING_TILE * LIGHT_CULLING_TILE;
    /// A light-culling scatter workgroup where lights are many (`lights::culling`'s
    /// NARROW_SCATTER_LIGHTS or more): one light's footprint a workgroup.
    const LIGHT_CULLING_NARROW_GROUP: u32 = 64;
    /// A tile's 2.5D depth mask: its depth range in this many slices, one bit each.
    const LIGHT_CULLING_DEPTH_BINS: u32 = 32;
    /// Bit-array words a culling workgroup holds in shared memory at once (lights in chunks of
    /// 32 times this).
    const LIGHT_CULLING_SHARED_WORDS: u32 = 2048;
    /// The most entries a cell's index list may hold (`--light-list-capacity`).
    const LIGHT_CULLING_MAX_LIST: u32 = 1024;
    /// The depth of a pixel corner whose ray met nothing.
    const LIGHT_CULLING_NO_DEPTH: f32 = -1.0;
    /// `GpuPunctualLight::kind`.
    const PUNCTUAL_POINT: u32 = 0;
    const PUNCTUAL_SPOT: u32 = 1;
    const PUNCTUAL_DIRECTIONAL: u32 = 2;
    /// `PassConstants::environment_kind`.
    const ENVIRONMENT_NONE: u32 = 0;
    const ENVIRONMENT_CONSTANT: u32 = 1;
    const ENVIRONMENT_MAP: u32 = 2;
    /// The ray sort's buckets: a direction's octant, then the Morton cell of the origin in a
    /// grid of RAY_SORT_GRID^3 cells over the scene's bounds.
    const RAY_SORT_GRID_BITS: u32 = 2;
    const RAY_SORT_GRID: u32 = 1 << RAY_SORT_GRID_BITS;
    const RAY_SORT_CELLS: u32 = RAY_SORT_GRID * RAY_SORT_GRID * RAY_SORT_GRID;
    const RAY_SORT_BUCKETS: u32 = 8 * RAY_SORT_CELLS;
    /// Workgroup sizes of the light and environment kernels.
    const LIGHT_COUNT_GROUP: u32 = 64;
    const LIGHT_FLATTEN_GROUP: u32 = 256;
    const LIGHT_CDF_GROUP: u32 = 256;
    const ENVIRONMENT_WEIGHTS_GROUP: u32 = 256;
    /// Workgroup size of the diagnostic probes the tests dispatch.
    const PROBE_GROUP: u32 = 64;
    /// `diagnostics/bdpt_mis_probe`: vertices of the longest path, and floats per path.
    const BDPT_PROBE_MAX_VERTICES: u32 = 11;
    const BDPT_PROBE_PATH_FLOATS: u32 = 5 + 6 * BDPT_PROBE_MAX_VERTICES;
    /// The dimension of a bounce's random numbers that Russian roulette draws (the path
    /// tracer's and a camera subpath's: 0, 1, 5 sample the BSDF, 2-4 a light; a light
    /// subpath's: 0-2 sample the BSDF).
    const RR_DIMENSION: u32 = 6;
    /// Bidirectional path tracing: a light subpath draws its random numbers at bounce
    /// LIGHT_SUBPATH_BOUNCE + segment, apart from its camera subpath's.
    const LIGHT_SUBPATH_BOUNCE: u32 = 1 << 16;
    /// The sample index under which the Sobol sampler hashes the seed of a (pixel, bounce,
    /// set)'s shuffle (sampler.glsl), apart from every sample's own numbers.
    const SOBOL_SET_SAMPLE: u32 = 0xffff_ffff;
    /// `PassConstants::path_sampler`.
    const SAMPLER_INDEPENDENT: u32 = 0;
    const SAMPLER_SOBOL: u32 = 1;
    /// A shadow path whose pixel has this bit is a light vertex seen by the camera (a splat).
    const SPLAT_PIXEL: u32 = 1 << 31;
    /// `PassConstants::strategy_s`/`strategy_t` when every strategy is MIS-weighted.
    const BDPT_ALL_STRATEGIES: u32 = 0xffff_ffff;
    /// How far apart, in columns (and rows), the pixels of a group that shares BDPT's light
    /// subpaths lie (bdpt.glsl's light_subpath_pixel, `bdpt::light_groups`): half a tile, so
    /// that a group's camera paths come close together in tile order and nearly always in one
    /// batch, but never in one 8 x 8 block.
    const LIGHT_SHARE_APART: u32 = 8;
    /// Metropolis (integrator/pmlt/): a shadow path whose pixel has this bit carries the
    /// contribution of proposal `pixel & !MLT_RECORD` to its record, not to the film.
    const MLT_RECORD: u32 = 1 << 30;
    /// Primary-sample dimensions a bounce of a subpath may draw (mlt.glsl's mlt_dimension).
    const MLT_DIMENSIONS_PER_BOUNCE: u32 = 8;
    /// Dimensions before the first bounce's: the strategy, then the image position.
    const MLT_LEADING_DIMENSIONS: u32 = 3;
    /// Proposals of one chain an iteration, at most: the acceptance kernel's shared prefix sum.
    const MLT_MAX_PROPOSALS: u32 = 1024;
    const MLT_ACCEPT_GROUP: u32 = 64;
    /// Threads per workgroup of the chains' start (pmlt/start_*.comp).
    const MLT_START_GROUP: u32 = 256;
    /// A chain's entry in a redraw of the chains' start that leaves the chain as it is.
    const MLT_KEEP_CHAIN: u32 = 0xffff_ffff;
    /// `pmlt/chain_stats.comp`: threads per workgroup, and the chains of one length a
    /// workgroup sums at most.
    const MLT_STATS_GROUP: u32 = 256;
    const MLT_STATS_RUN: u32 = 4096;
    /// Bounce index under which `squares_key` (rng.rs, squares.glsl) draws its digits, apart
    /// from every path's.
    const SQUARES_KEY_BOUNCE: u32 = 0xfff0_0000;
    /// `LightVertex::flags`: wo is on the front side; a connection can end here (not delta).
    const LIGHT_VERTEX_FRONT: u32 = 1;
    const LIGHT_VERTEX_CONNECTABLE: u32 = 2;
    /// Where a glossy light vertex's flags word holds its coat's normal (30 bits,
    /// include/packed_normal.glsl), above the two flags.
    const LIGHT_VERTEX_COAT_NORMAL_SHIFT: u32 = 2;
    /// The planes a scene with glossy lobes stores (bdpt.glsl's store_light_vertex).
    const LIGHT_VERTEX_GLOSSY_PLANES: u32 = 6;
    /// The planes a scene without glossy lobes stores, in a layout of their own: the rest of
    /// the vertex reads as a Lambertian surface's values (bdpt.glsl's store_light_vertex).
    const LIGHT_VERTEX_LAMBERTIAN_PLANES: u32 = 5;
    /// The planes a scene whose materials texture their layers (FEATURE_LAYER_TEXTURES)
    /// stores: the glossy planes and the layers' values where the vertex read them.
    const LIGHT_VERTEX_TEXTURED_PLANES: u32 = 8;
    /// Strategies (s, t) counted for --stats: s and t below this; then the two subpaths'
    /// extension rays.
    const BDPT_COUNTED: u32 = 17;
    const BDPT_COUNTERS: u32 = BDPT_COUNTED * BDPT_COUNTED + 2;
    /// The specialization constant that tells the shading kernels which of the scene
    /// features below a render needs (include/features.glsl, `integrator::KernelFeatures`);
    /// an id of its own, apart from the small positional ids other kernels use.
    const KERNEL_FEATURES_CONSTANT_ID: u32 = 100;
    /// Kernel features: base colour, metallic-roughness or emissive textures; normal maps;
    /// alpha masks or blending; KHR_materials_volume absorption; an environment; punctual
    /// lights; the glTF BSDF's lobes beyond the Lambertian base: metal, the dielectric's
    /// specular layer, glass; and how lights are chosen: the light BVH, or a selection by
    /// power or uniform (`LIGHT_SELECTION_*`), not a feature of the scene but of the render,
    /// whose code is as large; and the sampler (`PassConstants::path_sampler`), also the
    /// render's: both samplers in one kernel cost the H100's megakernel 2-4% (docs/BENCHMARKS.md);
    /// COLOR_0 vertex colours; materials whose textures read two sets of texture coordinates.
    const FEATURE_TEXTURES: u32 = 1 << 0;
    const FEATURE_NORMAL_MAPS: u32 = 1 << 1;
    const FEATURE_ALPHA: u32 = 1 << 2;
    const FEATURE_VOLUMES: u32 = 1 << 3;
    const FEATURE_ENVIRONMENT: u32 = 1 << 4;
    const FEATURE_PUNCTUAL_LIGHTS: u32 = 1 << 5;
    const FEATURE_METAL: u32 = 1 << 6;
    const FEATURE_SPECULAR_LAYER: u32 = 1 << 7;
    const FEATURE_TRANSMISSION: u32 = 1 << 8;
    const FEATURE_LIGHT_BVH: u32 = 1 << 9;
    const FEATURE_LIGHT_BY_POWER: u32 = 1 << 10;
    const FEATURE_SOBOL_SAMPLER: u32 = 1 << 11;
    const FEATURE_INDEPENDENT_SAMPLER: u32 = 1 << 12;
    const FEATURE_VERTEX_COLORS: u32 = 1 << 13;
    const FEATURE_SECOND_UVS: u32 = 1 << 14;
    const FEATURE_CLEARCOAT: u32 = 1 << 15;
    /// Textures on the layers' factors: KHR_materials_specular's, transmission's, the coat's.
    const FEATURE_LAYER_TEXTURES: u32 = 1 << 16;
    const FEATURES_ALL: u32 = (1 << 17) - 1;
    /// A material's textures beyond the four of `GpuMaterial` (`GpuTextureBinding`, in the
    /// scene's layer texture table): a bit each in `GpuMaterial::layer_texture_roles`, and
    /// a material's bindings in this order, those it lacks left out.
    const LAYER_SPECULAR: u32 = 0;
    const LAYER_SPECULAR_COLOR: u32 = 1;
    const LAYER_TRANSMISSION: u32 = 2;
    const LAYER_CLEARCOAT: u32 = 3;
    const LAYER_CLEARCOAT_ROUGHNESS: u32 = 4;
    const LAYER_CLEARCOAT_NORMAL: u32 = 5;
    const LAYER_TEXTURE_ROLES: u32 = 6;
    /// The viewer's tone maps (`film/display.comp`, and `film::tone_map` on the CPU).
    const TONE_MAP_CLAMP: u32 = 0;
    const TONE_MAP_REINHARD: u32 = 1;
    const TONE_MAP_ACES: u32 = 2;
    /// The display kernel's workgroup: DISPLAY_GROUP x DISPLAY_GROUP pixels.
    const DISPLAY_GROUP: u32 = 8;
}

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

    /// Push constants of the trace floor's kernels (`trace/floor*`): `count` threads from
    /// thread `first`, each tracing `rays_per_thread` (0 means 1) consecutive recorded rays of
    /// `rays` one after the other, as extension rays (closest hit) or, with `shadow` 1, as
    /// shadow rays (first hit ends them); a ray with `t_max` <= 0 is a gap, not traced. Rays
    /// that hit are counted at `hits` (a u32).
    struct TraceFloorPush {
        top_level: u64,
        rays: u64,
        hits: u64,
        first: u32,
        count: u32,
        shadow: u32,
        rays_per_thread: u32,
    }

    /// Push constants of `trace/floor_software`: the trace floor's (`TraceFloorPush`) with our
    /// own traversal of the hierarchy at `nodes` and `triangles` (`trace::software_bvh`) in
    /// place of the top level; where `results` is not 0, each ray's distance and the slot of
    /// the triangle it hit (-1 for none) are written there as a (f32, i32) pair.
    struct SoftwareFloorPush {
        nodes: u64,
        triangles: u64,
        rays: u64,
        hits: u64,
        results: u64,
        first: u32,
        count: u32,
        shadow: u32,
        rays_per_thread: u32,
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

    /// Push constants of `diagnostics/sampler_probe`: the Sobol sampler's 32 bits for
    /// dimensions `0 .. dimensions` of `bounce`, invocation i drawing sample
    /// `first_sample + i / pixels` of pixel `i % pixels`.
    struct SamplerProbePush {
        values: u64,
        count: u32,
        dimensions: u32,
        seed: u32,
        first_sample: u32,
        bounce: u32,
        pixels: u32,
    }

    /// Push constants of `diagnostics/squares_probe`: Squares32 of counters
    /// `first_counter ..` under `key`, then the same as uniform floats.
    struct SquaresProbePush {
        values: u64,
        key: u64,
        first_counter: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/mlt_probe`: numbers 0 to `count` of the primary sample
    /// the ids reproduce (mlt.glsl), for the CPU twin's comparison.
    struct MltProbePush {
        values: u64,
        base_key: u64,
        base_index: u64,
        offset_key: u64,
        offset_index: u64,
        dimensions: u32,
        count: u32,
        sigma: f32,
        pad0: u32,
    }

    /// One instance of the scene: object-to-world rows, its mesh, whether its
    /// transform mirrors (which flips the front face), and whether its material emits (so
    /// that a path's last segment can end where it hits without shading anything).
    struct GpuInstance {
        row0: Vec4,
        row1: Vec4,
        row2: Vec4,
        mesh: u32,
        flips_winding: u32,
        emits: u32,
        pad1: u32,
    }

    /// Where a mesh's vertices and indices start in the scene buffers, and its material.
    struct GpuMesh {
        first_vertex: u32,
        first_index: u32,
        material: u32,
        triangle_count: u32,
    }

    /// One emissive triangle of the flattened lights (`lights/flatten.comp`): its instance, and
    /// what a triangle needs of its mesh, so that a light's corners are two dependent loads
    /// away (indices, then positions) rather than four (instance, mesh, indices, positions).
    /// `first_index` is the triangle's own first index, `first_vertex` the mesh's.
    struct GpuLightEntry {
        instance: u32,
        first_vertex: u32,
        first_index: u32,
        material: u32,
    }

    /// A glTF metallic-roughness material with the extensions wavetrace reads
    /// (shaders-glsl/include/bsdf.glsl says how they combine).
    struct GpuMaterial {
        base_color: Vec4,
        emission: Vec3,
        metallic: f32,
        specular_color: Vec3,
        roughness: f32,
        specular: f32,
        transmission: f32,
        ior: f32,
        // Beer's law inside a KHR_materials_volume, per unit length (0: clear).
        absorption: Vec3,
        // KHR_materials_clearcoat's factor (0: no coat) and roughness.
        clearcoat: f32,
        clearcoat_roughness: f32,
        // Textures (textures.glsl): slots in the bindless array for base colour, metallic-
        // roughness, normal and emissive (!0: none; 0: the magenta stand-in), each read at
        // the mesh's texture coordinates (its second set where `second_uv_textures` has the
        // texture's SECOND_UV_ bit: Material::uv_sets) through a KHR_texture_transform,
        // x_axis.xy y_axis.xy here and the offsets two by two below.
        textures: UVec4,
        base_color_uv: Vec4,
        metallic_roughness_uv: Vec4,
        normal_uv: Vec4,
        emissive_uv: Vec4,
        base_color_and_metallic_roughness_uv_offsets: Vec4,
        normal_and_emissive_uv_offsets: Vec4,
        normal_scale: f32,
        // ALPHA_OPAQUE, ALPHA_MASK (below alpha_cutoff is a hole) or ALPHA_BLEND.
        alpha_mode: u32,
        alpha_cutoff: f32,
        second_uv_textures: u32,
        // Textures of the layers' factors (FEATURE_LAYER_TEXTURES): the first of the material's
        // entries in the layer texture table and a bit per LAYER_ role it has (0: none).
        first_layer_texture: u32,
        layer_texture_roles: u32,
        pad0: u32,
        pad1: u32,
    }

    /// One texture a material reads beyond `GpuMaterial`'s four (textures.glsl's
    /// `layer_texture`): its slot in the bindless array (0: the magenta stand-in), its
    /// KHR_texture_transform (x_axis.xy, y_axis.xy, then the offset), whether it reads the
    /// mesh's second set of texture coordinates, and a normal texture's scale.
    struct GpuTextureBinding {
        transform: Vec4,
        offset: Vec2,
        scale: f32,
        slot: u32,
        second_uv: u32,
        pad0: u32,
        pad1: u32,
        pad2: u32,
    }

    /// Everything a wavefront kernel reads: scene tables, path state, queues, film, camera.
    /// Lives in a buffer; kernels get its address as their only push constant. The path
    /// state is structure-of-arrays over path slots (`integrator::path_state` says what each
    /// array holds and why it is packed so).
    struct PassConstants {
        positions: u64,
        indices: u64,
        instances: u64,
        meshes: u64,
        materials: u64,
        // The materials' layer textures (`GpuTextureBinding`); 0 where none has one.
        layer_textures: u64,
        // Per-vertex normals, texture coordinates and tangents beside `positions` (zero for meshes
        // without).
        normals: u64,
        uvs: u64,
        tangents: u64,
        // The second set of texture coordinates beside `positions` (zero for meshes without)
        // where a material's textures read two sets (FEATURE_SECOND_UVS); 0 where none does.
        second_uvs: u64,
        // COLOR_0 beside `positions` (1 for meshes without) where the scene has vertex
        // colours (FEATURE_VERTEX_COLORS); 0 where it has none, which the general kernels see.
        colors: u64,
        top_level: u64,
        // The software hierarchy (`trace::software_bvh`) where the render traces with our own
        // traversal (`TraceBackend::Software`), else 0: nodes, triangles, and each triangle
        // slot's (instance | SOFTWARE_MAY_HAVE_HOLES, triangle).
        software_nodes: u64,
        software_triangles: u64,
        software_ids: u64,
        // Main paths, one entry per slot.
        ray_origins: u64,
        ray_directions: u64,
        throughputs: u64,
        hits: u64,
        path_pixels: u64,
        path_samples: u64,
        // The normal of the light sampler's context where each path sampled its direction
        // (light_bvh.glsl's encode_light_normal).
        light_normals: u64,
        // Queues (`integrator::kernel_graph`): counters, then each kernel's list of slots.
        queues: u64,
        kernel_counters: u64,
        extend_queue: u64,
        extend_keys: u64,
        sorted_extend_queue: u64,
        shade_queue: u64,
        shade_keys: u64,
        sorted_shade_queue: u64,
        // Shadow paths, one entry per connect-queue position.
        shadow_origins: u64,
        shadow_directions: u64,
        shadow_contributions: u64,
        shadow_pixels: u64,
        // With the ray sort, connect visits shadow paths in the order of their ray_sort_key.
        connect_keys: u64,
        sorted_connect_queue: u64,
        // Fixed-point radiance sums per pixel (film.glsl).
        film: u64,
        // The light sampler (src/lights/): light index -> its `GpuLightEntry`, scene
        // instance -> its first light index (or !0), the subgroup-ary power tree, the flat CDF.
        light_map: u64,
        instance_light_offset: u64,
        light_tree: u64,
        light_cdf: u64,
        // The light BVH (LIGHT_SELECTION_BVH): its nodes and each light's node; its lights are
        // the `light_count` triangles, then the punctual lights.
        light_bvh: u64,
        light_bvh_leaf_of: u64,
        light_count: u32,
        // `LightSelection`: 0 power tree walk, 1 power CDF binary search, 2 uniform, 3 BVH.
        light_selection: u32,
        light_tree_arity: u32,
        // The camera (camera.glsl): half the image's height on the plane at distance 1 (a
        // pinhole's tan(yfov / 2)) or in scene units (orthographic), and 1 where its rays are
        // parallel to camera_forward, from the image's place on the plane through the origin.
        camera_origin: Vec3,
        camera_half_height: f32,
        camera_right: Vec3,
        aspect: f32,
        camera_up: Vec3,
        // View depth before which nothing is seen (camera.glsl's near plane).
        camera_near: f32,
        camera_forward: Vec3,
        camera_orthographic: u32,
        // Keeps the 64-bit addresses below on 8-byte boundaries.
        pad_camera: u32,
        path_slots: u32,
        width: u32,
        height: u32,
        max_depth: u32,
        // Camera paths are handed out tile by tile, `tile_size` pixels square.
        tile_size: u32,
        // Buckets of the counting sort before shading (0: no sorting): material buckets x
        // partitions of the slots (route_hit.glsl's shade_sort_key).
        sort_buckets: u32,
        material_count: u32,
        // Lanes a launch of n items occupies are n rounded up to this (the workgroup size of
        // compute kernels, the subgroup size of raygen launches), for the active-lane shares.
        launch_lanes: u32,
        // Rays waiting for extend are counting-sorted by ray_sort_key (route_hit.glsl): the
        // direction's octant and a 4x4x4 grid cell of the origin in the scene's bounds.
        ray_sort_origin: Vec3,
        // Buckets of that sort; 0: no sorting.
        ray_sort_buckets: u32,
        ray_sort_scale: Vec3,
        // Materials share a bucket only beyond this many (1: no grouping by material).
        material_sort_buckets: u32,
        // After a ray sort the shade queue is grouped by slot range too, `sort_partition_size`
        // slots a range, so that shading reads the path state of one range at a time.
        sort_partitions: u32,
        sort_partition_size: u32,
        // The environment (environment.glsl): ENVIRONMENT_NONE/CONSTANT/MAP, a map's RGB
        // texels and the light tree over its pixels, the constant radiance or the map's
        // multiplier, the map's turn about +Y in radians, and the chance that next-event
        // estimation aims at the environment rather than an emissive triangle.
        environment_texels: u64,
        environment_tree: u64,
        environment_color: Vec3,
        environment_kind: u32,
        environment_width: u32,
        environment_height: u32,
        environment_tree_arity: u32,
        environment_rotation: f32,
        environment_choice: f32,
        // The render's seed (sampler.glsl), in the room the environment's fields leave.
        seed: u32,
        // KHR_lights_punctual lights, their normalised inclusive CDF by power, and the chance
        // that next-event estimation (when it does not pick the environment) picks one of
        // them rather than an emissive triangle: their share of the power.
        punctual_lights: u64,
        punctual_cdf: u64,
        punctual_count: u32,
        punctual_choice: f32,
        // The scene's bounding sphere: lights at infinity (directional lights, the environment)
        // start light subpaths on a disk of this radius across their direction.
        scene_center: Vec3,
        scene_radius: f32,
        // Bidirectional path tracing (integrator/bdpt/): each slot's light subpath vertices
        // (max_depth a slot, planes of vec4s: the first `light_vertex_low_planes` planes at
        // `light_vertices`, the rest at `light_vertices_high`, so that neither allocation passes
        // the device's limit) and their count, each slot's two MIS scalars, the float splat film
        // (0: splats go to the fixed-point film), the counters of BDPT_COUNTERS entries, and
        // the room for shadow paths. `shade_misses`: extend queues misses for shading too (with
        // t < 0) instead of adding the environment. `strategy_s`/`strategy_t`: the one
        // strategy to render, unweighted, or BDPT_ALL_STRATEGIES.
        light_vertices: u64,
        light_vertices_high: u64,
        light_vertex_counts: u64,
        subpath_mis: u64,
        splat_film: u64,
        bdpt_counters: u64,
        shade_misses: u32,
        strategy_s: u32,
        strategy_t: u32,
        shadow_capacity: u32,
        // Russian roulette from this many scattering events on (0: never), as Mitsuba has it.
        rr_depth: u32,
        // With the ray sort, 1 where the shade queue is extend's in its own order
        // (route_hit.glsl's shade_in_extend_order).
        shade_in_extend_order: u32,
        // The trace floor's recording (`trace::floor`): where extend appends every ray it traces
        // and connect every shadow ray (`ProbeRay`s; 0: nothing is recorded), the two logs'
        // counts (two u32s) and how many rays each log has room for.
        extension_ray_log: u64,
        shadow_ray_log: u64,
        ray_log_counts: u64,
        ray_log_capacity: u32,
        // Shader execution reordering's hint bits: enough for every instance and a miss.
        reorder_hint_bits: u32,
        // Light culling (light_culling.glsl): the lights of finite range (`GpuCullLight`), the
        // screen tiles' depth bounds, each cell's bit array (and its summary: a bit per word
        // that has any light) or index list and its count (tiles first, then the grid's cells), and a CDF over the ranged lights by power for
        // cells whose list overflowed. `ranged_choice`: the chance that next-event estimation
        // (when it does not pick the environment) picks a ranged light, in a cell that lists
        // any: their share of the power.
        cull_lights: u64,
        cull_tiles: u64,
        cull_bits: u64,
        cull_summaries: u64,
        cull_counts: u64,
        cull_lists: u64,
        ranged_cdf: u64,
        light_culling: u32,
        ranged_count: u32,
        ranged_choice: f32,
        cull_words: u32,
        cull_list_capacity: u32,
        cull_tiles_x: u32,
        cull_tiles_y: u32,
        cull_grid_x: u32,
        cull_grid_y: u32,
        cull_grid_z: u32,
        cull_grid_lower: Vec3,
        cull_scalarise: u32,
        cull_grid_scale: Vec3,
        cull_summary_words: u32,
        // The sample index of a pass's first sample: a progressive render's passes (the
        // viewer) continue one sample sequence, so that N passes of k samples add up to the
        // render of N k samples bit for bit.
        first_sample: u32,
        // The pixels a render covers, `crop_width` x `crop_height` from (`crop_x`, `crop_y`):
        // the whole image, or a farm's tile (`render --tile`). Camera paths are handed out
        // over these pixels only; the film and the camera stay the whole image's, so that a
        // pixel's samples are the same whichever tile renders it.
        crop_x: u32,
        crop_y: u32,
        crop_width: u32,
        crop_height: u32,
        // Where a path's numbers come from (sampler.glsl): SAMPLER_INDEPENDENT or SAMPLER_SOBOL.
        path_sampler: u32,
        // Metropolis light transport (integrator/pmlt/, mlt.glsl): the chains (`MltChain`),
        // each proposal's record (`MltRecord`), each path slot's strategy (s | t << 16), the
        // image scale of each path length's chains and the phase (`MltControl`).
        // `mlt_proposals`: proposals of one chain an iteration (0: not Metropolis);
        // `mlt_dimensions`: numbers in a primary sample.
        mlt_chains: u64,
        mlt_records: u64,
        mlt_strategies: u64,
        mlt_scales: u64,
        mlt_control: u64,
        mlt_chain_count: u32,
        mlt_proposals: u32,
        mlt_dimensions: u32,
        mlt_large_step: f32,
        mlt_sigma: f32,
        light_vertex_low_planes: u32,
        // Bidirectional path tracing: the pixels a group whose camera subpaths share a light
        // subpath each sample (1, 2 or 4; bdpt.glsl's light_subpath_pixel), the light
        // subpaths of a render per camera subpath (groups over pixels), and each slot's slot
        // whose light subpath it connects to.
        light_share: u32,
        light_subpath_ratio: f32,
        light_subpath_slots: u64,
    }

    /// Queue counters and the indirect arguments made from them; all GPU-written. Queue
    /// indices are `integrator::kernel_graph::Queue` (QUEUE_* in queues.glsl).
    struct QueueState {
        // Paths waiting in each queue, appended by the kernels that hand paths to it.
        queued: UVec4,
        // How many the queue's current launch processes (moved from `queued` by prepare_launch).
        launched: UVec4,
        extend_groups: UVec4,
        extend_launch: UVec4,
        shade_groups: UVec4,
        sort_groups: UVec4,
        // One group when there is something to sort, else none.
        sort_offsets_groups: UVec4,
        connect_groups: UVec4,
        connect_launch: UVec4,
        compact_groups: UVec4,
        move_groups: UVec4,
        generate_groups: UVec4,
        // Camera paths (pixel, sample) in tile order: the next to hand out and how many in all.
        next_camera_path: u64,
        camera_paths: u64,
        // Where the current regeneration's new camera paths start.
        first_new_camera_path: u64,
        // Rays traced over the whole render, for --stats.
        extend_rays: u64,
        shadow_rays: u64,
        // The current regeneration: active paths kept (moved to slots below this), new camera
        // paths after them, and the lengths of compaction's two lists.
        kept_paths: u32,
        new_paths: u32,
        free_slots: u32,
        moving_paths: u32,
        // The megakernel's sample pass.
        sample_index: u32,
        pad0: u32,
    }

    /// What one kernel did over a render, from the counts the GPU launched it with
    /// (`prepare_launch`, `prepare_regenerate`): items processed, lanes those launches occupied,
    /// launches with work.
    struct KernelCounters {
        items: u64,
        lanes: u64,
        busy_launches: u32,
        pad0: u32,
    }

    /// Push constants of `primitives/counting_sort_*`: `values` reordered into `sorted` by
    /// `keys` (each < `bucket_count`); `count` is the address of the u32 item count, so it
    /// can be a GPU-written queue length. `bucket_counts` must be zero before; the offsets
    /// kernel leaves it zero again.
    struct SortPush {
        keys: u64,
        values: u64,
        sorted: u64,
        unsorted_copy: u64,
        bucket_counts: u64,
        bucket_offsets: u64,
        count: u64,
        bucket_count: u32,
        pad0: u32,
    }

    /// The closest hit of a path's ray, written by either trace backend.
    struct HitRecord {
        t: f32,
        instance: u32,
        primitive: u32,
        pad0: u32,
    }

    /// Push constants of `lights/count_triangles` and `lights/flatten`: from the scene
    /// instances whose material emits (`emissive_instances`, in scene order) to the flattened
    /// light array `map` (light index -> instance, triangle) and each instance's first light.
    /// `counts` holds the triangles of each emissive instance, then (scanned in place) their
    /// inclusive prefix sum.
    struct LightFlattenPush {
        emissive_instances: u64,
        instances: u64,
        meshes: u64,
        counts: u64,
        map: u64,
        instance_light_offset: u64,
        emissive_instance_count: u32,
        light_count: u32,
    }

    /// Push constants of `lights/tree_build` and `lights/tree_to_cdf`. The leaves are either
    /// `weights` (the `weights` variant) or the emitted power of the triangles that `map`
    /// names, computed from the scene tables. `tree` holds, per node and level, the inclusive
    /// prefix sum of the node's value among its siblings; `counters` are the survivor counters.
    struct LightTreePush {
        weights: u64,
        map: u64,
        positions: u64,
        indices: u64,
        instances: u64,
        materials: u64,
        tree: u64,
        counters: u64,
        cdf: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of the radix sort's passes (`primitives/radix_count`, `radix_offsets`,
    /// `radix_scatter`): `count` (key, value) pairs sorted by the digit at bit `shift` from the
    /// `_in` arrays to the `_out` ones. `histograms` holds this digit's count per tile and
    /// value, tile-major; the scatter counts the next digit into `next_histograms` (0 after the
    /// last digit). `prefixes` (each tile's exclusive prefix over the tiles before it) and
    /// `totals` come from `radix_offsets` when the table is too long for every scatter
    /// workgroup to sum it itself; 0 otherwise. The count clears `clear_words` words after
    /// its own table, the later digits' tables. The scatter clears `spent_histograms` (the
    /// first digit's table, after the second digit; else 0), so that a caller may count the
    /// first digit of the next sort into it (`RadixSort::record_counted`).
    struct RadixSortPush {
        keys_in: u64,
        values_in: u64,
        keys_out: u64,
        values_out: u64,
        histograms: u64,
        next_histograms: u64,
        spent_histograms: u64,
        prefixes: u64,
        totals: u64,
        count: u32,
        shift: u32,
        tiles: u32,
        clear_words: u32,
    }

    /// One node of the light BVH (light_bvh.glsl): the spatial bounds of its emitters, their
    /// summed `power` (the importance's scale: radiance x area for a triangle, intensity for
    /// a point or spot light), and the cone of their normals (`axis`, cos_theta_o) widened by
    /// how far off the normal they emit (cos_theta_e), after Conty Estevez and Kulla 2018. An
    /// interior node's `children` are node indices; a leaf's are (light, LIGHT_BVH_LEAF).
    /// `split`: of a leaf, its position among the leaves from left to right; of an interior
    /// node, the position of the last leaf under its first child (so that the way from the root
    /// to a leaf can be found going down). `behind`: a point inside the node's bounding sphere
    /// whose height along `axis` is at most this lies behind every one of its lights, by the
    /// margin their cone's spread needs, and gets nothing from the node (-inf where no plane
    /// does that: cones too wide, no power).
    struct GpuLightBvhNode {
        lower: Vec3,
        power: f32,
        upper: Vec3,
        cos_theta_o: f32,
        axis: Vec3,
        cos_theta_e: f32,
        children: UVec2,
        split: u32,
        behind: f32,
    }

    /// Push constants of the light BVH's build (`lights/bvh_*`). Leaves: light `i` below
    /// `triangle_count` is the triangle that `map` names, above it punctual light
    /// `i - triangle_count`; each leaf's node goes to `leaves`, its sort key (a Morton code of
    /// its centre in the grid from `grid_lower` with `grid_scale` cells a unit, under
    /// `direction_bits` of its normal's direction bucket) to `keys` and its index to
    /// `values`. The climb's `keys`/`values` are the sorted pairs, wherever the sort left
    /// them (`RadixSort::sorted_buffers`); `nodes` receives the tree (interior nodes first,
    /// then the leaves in sorted order), `parents` each node's parent, `leaf_of` each light's
    /// node; `counters` are the climb's split slots.
    struct LightBvhPush {
        map: u64,
        positions: u64,
        indices: u64,
        instances: u64,
        materials: u64,
        punctual_lights: u64,
        leaves: u64,
        keys: u64,
        values: u64,
        nodes: u64,
        parents: u64,
        leaf_of: u64,
        counters: u64,
        // The radix sort's table of the keys' first digit, which the leaves count into
        // (`RadixSort::first_digit_counts`).
        first_digit_counts: u64,
        grid_lower: Vec3,
        triangle_count: u32,
        grid_scale: Vec3,
        count: u32,
        direction_bits: u32,
        // Words after `first_digit_counts` (the later digits' tables) the leaves clear.
        clear_words: u32,
    }

    /// Push constants of `diagnostics/light_bvh_probe`: for each of `points` shading points
    /// (`GpuLightBvhProbePoint`), `draws` BVH samples into `choices` (light, or !0), and the
    /// probability of each of `lights` lights into `probabilities` (points x lights).
    struct LightBvhProbePush {
        nodes: u64,
        leaf_of: u64,
        points: u64,
        choices: u64,
        probabilities: u64,
        lights: u32,
        draws: u32,
        seed: u32,
        spatial: u32,
        points_count: u32,
        pad0: u32,
    }

    /// A shading point of the probe: where, and the normal of its hemisphere (zero: none).
    struct GpuLightBvhProbePoint {
        position: Vec3,
        pad0: u32,
        normal: Vec3,
        pad1: u32,
    }

    /// A KHR_lights_punctual light in world space (PUNCTUAL_* in lights.glsl): where it is,
    /// where it points, colour x intensity (candela for point and spot lights, lux for
    /// directional ones), its range (0: none) and a spot light's cone cosines.
    /// A light of finite range as the culling kernels and the in-cell choice read it: the
    /// sphere it reaches, a spot light's cone (`cone` 1 when culling tests it), its luminous
    /// weight (luminance of intensity) and its index among the punctual lights.
    struct GpuCullLight {
        position: Vec3,
        range: f32,
        axis: Vec3,
        cos_outer: f32,
        cos_inner: f32,
        weight: f32,
        punctual: u32,
        cone: u32,
    }

    /// A screen tile's depth bounds (view depth along the camera's forward axis; z_min > z_max:
    /// no primary hit) and its 2.5D mask of LIGHT_CULLING_DEPTH_BINS slices of [z_min, z_max].
    struct GpuLightTile {
        z_min: f32,
        z_max: f32,
        mask: u32,
        pad0: u32,
    }

    /// Push constants of light culling's kernels. `lights/cull_depth*`: the view depth of the
    /// primary hit (through `top_level`) at every pixel corner ((width + 1) x (height + 1),
    /// row-major) into `corner_depths`. `lights/cull*`: every cell against the `count` lights
    /// of `lights`
    /// (their range spheres, read first, also packed in `spheres` as position and range),
    /// into its bit array (`words` a cell, and a summary of `summary_words` with a bit per
    /// word that has any light) or its index list (`list_capacity` a cell), and its count. Tiles (`tiles_x` x `tiles_y`, bounds from `corner_depths` into `tiles`) come
    /// first, then the grid's cells (`grid_x` x `grid_y` x `grid_z` from `grid_lower`, each
    /// 1 / `grid_scale` wide). `margin`: how far past its range a light still counts.
    struct LightCullingPush {
        top_level: u64,
        lights: u64,
        spheres: u64,
        corner_depths: u64,
        tiles: u64,
        bits: u64,
        summaries: u64,
        counts: u64,
        lists: u64,
        camera_origin: Vec3,
        // PassConstants' camera_half_height and camera_orthographic (camera.glsl).
        camera_half_height: f32,
        camera_right: Vec3,
        aspect: f32,
        camera_up: Vec3,
        width: u32,
        camera_forward: Vec3,
        height: u32,
        grid_lower: Vec3,
        margin: f32,
        grid_scale: Vec3,
        count: u32,
        tiles_x: u32,
        tiles_y: u32,
        grid_x: u32,
        grid_y: u32,
        grid_z: u32,
        words: u32,
        summary_words: u32,
        list_capacity: u32,
        groups_x: u32,
        // 0: tiles keep every slice of their depth bounds (no 2.5D mask).
        depth_mask: u32,
        // Built by light: each light's tile footprint (`cull_scatter_prepare_*` writes a
        // uvec4 a light: first column | first row << 16, columns, tiles, and the tiles the
        // light's own workgroup takes) and the queue (`split_capacity` entries) of the chunks
        // of `split_chunk` tiles past the first of footprints of `split_from` chunks or more,
        // which the tiles' scatter's first `split_pool` workgroups take.
        footprints: u64,
        split_queue: u64,
        split_chunk: u32,
        split_capacity: u32,
        split_from: u32,
        split_pool: u32,
        // The camera's near plane (camera.glsl): the depth kernel's rays start there.
        camera_near: f32,
        camera_orthographic: u32,
    }

    struct GpuPunctualLight {
        position: Vec3,
        kind: u32,
        direction: Vec3,
        range: f32,
        intensity: Vec3,
        cos_inner: f32,
        cos_outer: f32,
        pad0: u32,
        pad1: u32,
        pad2: u32,
    }

    /// Push constants of `environment/weights`: per pixel of a `width` x `height` map of RGB
    /// `texels`, its luminance times the sine of its row's polar angle, into `weights`.
    struct EnvironmentWeightsPush {
        texels: u64,
        weights: u64,
        width: u32,
        height: u32,
        groups_x: u32,
        pad0: u32,
    }

    /// One case of `diagnostics/bsdf_probe`: a BSDF (fields of bsdf.glsl's `Bsdf`), an
    /// outgoing direction to sample from with `u`, and an incoming one to evaluate.
    struct BsdfProbeCase {
        base_color: Vec3,
        metallic: f32,
        specular_color: Vec3,
        specular: f32,
        alpha: f32,
        transmission: f32,
        ior: f32,
        entering: u32,
        wo: Vec3,
        clearcoat: f32,
        coat_normal: Vec3,
        coat_alpha: f32,
        wi: Vec3,
        pad1: u32,
        u: Vec3,
        pad2: u32,
    }

    /// What `diagnostics/bsdf_probe` found for a case: bsdf_eval at (wo, wi), and
    /// bsdf_sample from wo; `flags`: 1 sampled, 2 transmitted, 4 delta.
    struct BsdfProbeResult {
        eval: Vec3,
        eval_pdf: f32,
        sample_wi: Vec3,
        sample_pdf: f32,
        sample_weight: Vec3,
        flags: u32,
    }

    struct BsdfProbePush {
        cases: u64,
        results: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/packed_normal_probe`: `count` unit vectors at `normals`
    /// (Vec4s, w unused), each packed and unpacked again into `results`.
    struct PackedNormalProbePush {
        normals: u64,
        results: u64,
        count: u32,
        pad0: u32,
    }

    /// What `diagnostics/packed_normal_probe` made of one vector: its bits, and the vector
    /// they unpack to.
    struct PackedNormalProbeResult {
        unpacked: Vec3,
        bits: u32,
    }

    /// Push constants of `diagnostics/light_sample_probe`: `draws` light choices with the
    /// shaders' sampler, each writing (index, probability as float bits) to `results`.
    struct LightProbePush {
        tree: u64,
        cdf: u64,
        results: u64,
        count: u32,
        selection: u32,
        arity: u32,
        draws: u32,
        seed: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/copy_probe`: copies `count` 16-byte words, for the
    /// benchmarks' measure of the device's memory bandwidth.
    struct CopyProbePush {
        source: u64,
        target: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/spin_probe`: each thread spins `iterations` times, so
    /// that a test has a kernel that outlasts the hang timeout.
    struct SpinProbePush {
        target: u64,
        iterations: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/bdpt_mis_probe`: `count` paths of
    /// `BDPT_PROBE_PATH_FLOATS` floats in, `BDPT_PROBE_MAX_VERTICES` weights per path out.
    struct BdptMisProbePush {
        paths: u64,
        weights: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/camera_probe`: `count` points projected with the camera of
    /// the `PassConstants` at `constants`.
    struct CameraProbePush {
        constants: u64,
        points: u64,
        results: u64,
        count: u32,
        pad0: u32,
    }

    /// Push constants of `diagnostics/emission_probe`: `count` emission samples with the lights
    /// of the `PassConstants` at `constants`, each (weight, 1) or zeros where none was made.
    struct EmissionProbePush {
        constants: u64,
        results: u64,
        count: u32,
        seed: u32,
    }

    /// A light subpath's vertex as bidirectional path tracing keeps it for connections: where,
    /// the direction back along the subpath, the throughput and MIS scalars on arrival, the
    /// shading and geometric normals (turned to wo) and the BSDF's parameters (bsdf.glsl).
    /// Stored as fewer planes of four floats than it has (bdpt.glsl's store_light_vertex):
    /// LIGHT_VERTEX_GLOSSY_PLANES, or LIGHT_VERTEX_LAMBERTIAN_PLANES without glossy lobes.
    struct LightVertex {
        position: Vec3,
        d_vcm: f32,
        wo: Vec3,
        d_vc: f32,
        throughput: Vec3,
        // LIGHT_VERTEX_FRONT | LIGHT_VERTEX_CONNECTABLE.
        flags: u32,
        shading: Vec3,
        epsilon: f32,
        facing: Vec3,
        metallic: f32,
        base_color: Vec3,
        specular: f32,
        specular_color: Vec3,
        transmission: f32,
        alpha: f32,
        ior: f32,
        // Where specular_color, specular, transmission, ior and the coat's weight and alpha come
        // from: material constants.
        material: u32,
        clearcoat: f32,
        coat_alpha: f32,
        pad0: u32,
        pad1: u32,
        pad2: u32,
    }

    /// A Metropolis chain (pmlt): its key, and its current state as the ids that reproduce
    /// its primary sample, never the sample itself (mlt.glsl): the base's key and index, and
    /// the offset's. Beside it what the state's path gave (kept, so that it is not traced
    /// again): its contribution, luminance (Y*) and pixel; then its path length and, for
    /// --stats, its moves, iterations and summed acceptance probability.
    struct MltChain {
        key: u64,
        base_key: u64,
        base_index: u64,
        offset_key: u64,
        offset_index: u64,
        contribution: Vec3,
        luminance: f32,
        pixel: u32,
        path_length: u32,
        moves: u32,
        iterations: u32,
        acceptance: f32,
        pad0: u32,
    }

    /// How one path length's splats are weighed (pmlt/accept.comp): `image` is W H b_k / C_k
    /// (C_k the length's chains); `uniform_luminance` is the Y* at which the chains' density
    /// Y* / b_k equals the large steps' uniform density, N p_large (N proposals an iteration),
    /// times b_k: 0 weighs splats by Metropolis alone, else by Kelemen's balance of both.
    struct MltScale {
        image: f32,
        uniform_luminance: f32,
    }

    /// What a proposal's path gave: its contribution (MIS-weighted, over its strategy's
    /// selection probability) and the pixel it lands on.
    struct MltRecord {
        contribution: Vec3,
        pixel: u32,
    }

    /// Push constants of the chains' start (pmlt/start.rs) over `count` bootstrap records
    /// (start_luminance, start_compact) or `count` chains (start_chains): each record's Y* in
    /// `luminances` and whether it carries light in `positions` (1 or 0, then their inclusive
    /// prefix sums); the lit records in record order as (record, Y* bits, pixel) in `lit`,
    /// their number in `lit_count`; each chain's entry of `lit` in `chosen`; the chains' states
    /// in `chains`, under `seed`'s keys and the bootstrap's. Y* here is the chains' target:
    /// times the record's pixel's factor in `pixel_importance` (`pixels` floats) where that is
    /// not 0. A redraw (`redraw` 1: a later bootstrap round's) leaves the chains whose entry is
    /// `MLT_KEEP_CHAIN` as they are and keeps every chain's path length.
    struct MltStartPush {
        records: u64,
        luminances: u64,
        positions: u64,
        lit: u64,
        lit_count: u64,
        chosen: u64,
        chains: u64,
        bootstrap_key: u64,
        count: u32,
        depth: u32,
        seed: u32,
        pixels: u32,
        pixel_importance: u64,
        redraw: u32,
        pad0: u32,
    }

    /// Push constants of `pmlt/chain_stats.comp`: `runs` runs of chains of one length, each
    /// (first chain, count) in `table`, whose acceptance and moves are summed into `sums`
    /// (a vec2 a run).
    struct MltStatsPush {
        chains: u64,
        table: u64,
        sums: u64,
        runs: u32,
        pad0: u32,
    }

    /// Push constants of `pmlt/film_luminance.comp`: the luminance of the float splat film
    /// `film` (three floats a pixel, `pixels` pixels) summed into `sums`, a float a workgroup.
    struct MltFilmSumPush {
        film: u64,
        sums: u64,
        pixels: u32,
        pad0: u32,
    }

    /// The phase of a Metropolis render, written by the host between submissions:
    /// `bootstrap_key`: the key of the bootstrap's samples (each pass's own: pmlt/mod.rs's
    /// `pass_seed`); `proposals`: an iteration's proposals (every chain's), or the bootstrap's
    /// samples; `lengths`: while the bootstrap's uniform samples are traced, the path lengths
    /// its round samples, whose table (`lengths` u32s) follows this struct in its buffer
    /// (mlt.glsl's `mlt_path_length`), and 0 outside the bootstrap; `resolve_scale`: what the
    /// splat film is multiplied by as it is added to the film;
    /// `pixel_importance`: each pixel's factor on Y* in the chains' target (a float a pixel;
    /// 0: none, the target is Y* itself).
    struct MltControl {
        bootstrap_key: u64,
        proposals: u32,
        lengths: u32,
        resolve_scale: f32,
        pad0: u32,
        pixel_importance: u64,
    }

    /// `argument`: the queue `prepare_launch` prepares (unused by the other kernels).
    struct WavefrontPush {
        constants: u64,
        argument: u32,
        pad0: u32,
    }

    /// Push constants of `film/display`: the film's running mean, exposed (`mean_scale` =
    /// 2^exposure / (FILM_SCALE x samples)), tone-mapped and sRGB-encoded into one RGBA8 word
    /// per pixel at `pixels`, for the viewer's swapchain. Where `overlay` is not 0, its bit
    /// mask (`overlay_width` x `overlay_height` pixels from the top left, rows padded to whole
    /// words) is laid over the image: set bits white, the rest of its rectangle darkened.
    struct DisplayPush {
        film: u64,
        pixels: u64,
        overlay: u64,
        width: u32,
        height: u32,
        mean_scale: f32,
        tone_map: u32,
        overlay_width: u32,
        overlay_height: u32,
    }
}
