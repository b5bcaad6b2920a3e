// Compute-only helpers for dispatches.
#ifndef WAVETRACE_DISPATCH_GLSL
#define WAVETRACE_DISPATCH_GLSL

// The flat workgroup index of a dispatch that DispatchSize::covering split into a 2D grid.
uint flat_workgroup_index(uint groups_x) {
    return gl_WorkGroupID.x + gl_WorkGroupID.y * groups_x;
}

#endif
