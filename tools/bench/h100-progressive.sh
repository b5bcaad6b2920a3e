#!/usr/bin/env bash
# Issue 19 on the lent H100 (no display there, so no window): the tests of progressive
# rendering under validation, and what the viewer's pass structure costs against one offline
# render (examples/bench_progressive.rs) at 1920 x 1080, 64 spp, depth 8. Needs .device/ from
# `bash tools/device-bundle.sh progressive bdpt`; writes under $OUT.
set -uo pipefail
source tools/bench/device.sh
device_setup
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
run_tests progressive bdpt
{
  for scene in tests/scenes/cornell-box/cornell-box.gltf tests/scenes/street-300/street-300.gltf; do
    for pass_spp in 1 4 16; do
      .device/examples/bench_progressive "$scene" 1920 1080 64 "$pass_spp" wavefront
    done
    .device/examples/bench_progressive "$scene" 1920 1080 64 1 megakernel
    .device/examples/bench_progressive "$scene" 1920 1080 64 1 bdpt
  done
} > "$OUT/progressive.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/progressive.txt"
