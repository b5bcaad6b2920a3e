// The element type of a scan variant: `// variant: u32 SCAN_U32` or `// variant: f32 SCAN_F32`.
#ifndef WAVETRACE_SCAN_TYPES_GLSL
#define WAVETRACE_SCAN_TYPES_GLSL

#if defined(SCAN_U32)
#define SCAN_T uint
#elif defined(SCAN_F32)
#define SCAN_T float
#else
#error "a scan shader needs SCAN_U32 or SCAN_F32"
#endif

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer ScanValues {
    SCAN_T v[];
};

// Workgroup shape, set from Rust by specialization (primitives/scan.rs owns the numbers).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS_PER_THREAD = 4;

#endif
