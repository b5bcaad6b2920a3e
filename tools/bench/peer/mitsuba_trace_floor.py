#!/usr/bin/env python3
"""Trace wavetrace's recorded rays with Mitsuba 3 (OptiX on the GPU): the peer's side of the trace floor.

wavetrace's `bench_trace_floor SCENE --dump-rays DIR` writes the rays its extend and connect
kernels traced, in their order, and how long its own trivial shaders took to trace them again.
This script loads the same glTF scene through the converter (tools/bench/peer/gltf2mitsuba.py),
traces the same rays in the same order with Mitsuba's own entry points (extension rays with
`ray_intersect_preliminary`, the closest hit's distance and primitive, as its path tracer
starts every bounce; shadow rays with `ray_test`, the first hit ends them), and prints both
renderers' times and hit counts. Equal hit counts say both traced the same scene.

usage: mitsuba_trace_floor.py SCENE.gltf DIR [--runs R] [--variant V]
Prints one JSON line. Times are the GPU kernels' own (Dr.Jit's kernel history), the fastest of
R runs after a warm-up that also compiles the kernels.
"""
import argparse, json, os, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]
import gltf2mitsuba  # noqa: E402
import numpy as np  # noqa: E402

# wavetrace's ProbeRay: origin (3 floats), t_min, direction (3 floats), t_max.
PROBE_RAY = np.dtype([('origin', '<f4', 3), ('t_min', '<f4'), ('direction', '<f4', 3), ('t_max', '<f4')])


def load_rays(mi, path):
    raw = np.fromfile(path, PROBE_RAY)
    if raw.size == 0:
        return None, 0
    if float(np.abs(raw['t_min']).max()) != 0.0:
        sys.exit(f'{path}: rays with t_min != 0, which Mitsuba\'s rays cannot express')
    origin = mi.Point3f(*[np.ascontiguousarray(raw['origin'][:, k]) for k in range(3)])
    direction = mi.Vector3f(*[np.ascontiguousarray(raw['direction'][:, k]) for k in range(3)])
    ray = mi.Ray3f(origin, direction)
    ray.maxt = mi.Float(np.ascontiguousarray(raw['t_max']))
    return ray, raw.size


def kernel_ms(dr, run):
    """Runs `run` (which evaluates its result), returns the GPU milliseconds of the kernels it launched."""
    dr.kernel_history()  # clears the history
    start = time.perf_counter()
    result = run()
    dr.sync_thread()
    wall = (time.perf_counter() - start) * 1e3
    kernels = [k for k in dr.kernel_history() if k.get('type') == dr.KernelType.JIT]
    return sum(k['execution_time'] for k in kernels), wall, len(kernels), result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('scene'); ap.add_argument('dir')
    ap.add_argument('--runs', type=int, default=4)
    ap.add_argument('--variant', default='cuda_ad_rgb')
    a = ap.parse_args()
    import mitsuba as mi
    mi.set_variant(a.variant)
    import drjit as dr
    dr.set_flag(dr.JitFlag.KernelHistory, True)
    scene = mi.load_dict(gltf2mitsuba.scene_dict(a.scene, [64, 64], 8, 1))
    ours = json.load(open(os.path.join(a.dir, 'floor.json')))
    report = {'scene': a.scene, 'variant': a.variant, 'wavetrace': ours}
    for kind in ('extension', 'shadow'):
        ray, count = load_rays(mi, os.path.join(a.dir, f'{kind}.rays'))
        if count == 0:
            report[kind] = {'rays': 0, 'hits': 0, 'gpu_ms': 0.0, 'gpu_ms_runs': [], 'wall_ms_runs': [], 'kernels': 0}
            continue
        dr.eval(ray)
        dr.sync_thread()

        def run():
            if kind == 'extension':
                hit = scene.ray_intersect_preliminary(ray, coherent=False).is_valid()
            else:
                hit = scene.ray_test(ray)
            hits = dr.count(hit)
            dr.eval(hits)
            return hits
        times = [kernel_ms(dr, run) for _ in range(a.runs + 1)][1:]
        gpu_ms = min(t[0] for t in times)
        report[kind] = {'rays': count, 'hits': int(times[0][3][0] if hasattr(times[0][3], '__len__') else times[0][3]),
                        'gpu_ms': gpu_ms, 'gpu_ms_runs': [round(t[0], 3) for t in times],
                        'wall_ms_runs': [round(t[1], 3) for t in times], 'kernels': times[0][2],
                        'grays_per_s': count / gpu_ms / 1e6 if gpu_ms > 0 else None}
    print(json.dumps(report), flush=True)


if __name__ == '__main__':
    main()
