#!/usr/bin/env bash
# The trace floor on the lent H100 (issue 15, item 4): the trace_floor test with validation,
# then examples/bench_trace_floor on the Cornell box and many-materials (1024 x 1024, depth 8,
# default roulette, SPP samples, default 64, so that the logs hold every ray) with the wavefront and,
# on the Cornell box, bdpt. Expects .device/ from tools/device-bundle.sh (with the trace_floor
# test); writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
run_tests ${TEST_NAMES:-trace_floor}
make_many_materials
S=tests/scenes
for case in cornell-box:wavefront many-materials:wavefront cornell-box:bdpt; do
  scene=${case%%:*}
  path=$S/$scene/$scene.gltf
  [ "$scene" = many-materials ] && path=/tmp/many/many-materials.gltf
  for run in 1 2; do
    echo "== $scene ${case#*:} run $run"
    .device/examples/bench_trace_floor "$path" --spp "${SPP:-64}" --integrator "${case#*:}" --capacity $((1 << 29))
  done
done > "$OUT/floor.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/floor.txt"
