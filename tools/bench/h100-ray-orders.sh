#!/usr/bin/env bash
# What ray coherence could buy (issue 15, item 3): examples/bench_trace_floor --orders on
# many-materials and the Cornell box (1024 x 1024, depth 8, SPP samples, default 16) traces each
# recorded log again in finer orders than the render's ray sort, sorted within runs of each of
# CHUNKS rays (default 2^22, about a launch, and 2^26, the whole log). Expects .device/ from tools/device-bundle.sh; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
make_many_materials
for case in ${CASES:-/tmp/many/many-materials.gltf tests/scenes/cornell-box/cornell-box.gltf}; do
  for chunk in ${CHUNKS:-4194304 67108864}; do
    echo "== $case runs of $chunk $*"
    .device/examples/bench_trace_floor "$case" --spp "${SPP:-16}" --orders "$chunk" "$@"
  done
done > "$OUT/orders.txt" 2>&1
cat "$OUT/orders.txt"
