#!/usr/bin/env bash
# Our own traversal of a software hierarchy against the driver's on the lent GPU (issue 15): for
# each scene, `bench_trace_floor --software` records a render's extension and shadow rays
# (1024 x 1024, SPP samples, default 16, depth 8, default roulette) and traces both logs with the
# driver's traversal and with ours (`trace::software_bvh`), each the fastest of warm runs.
# SCENES (default: "cornell-box many-materials ajar cornell-glass"). Expects
# .device/examples/bench_trace_floor; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
S=tests/scenes
for name in ${SCENES:-cornell-box many-materials ajar cornell-glass}; do
  case $name in
    many-materials) [ -e /tmp/many/many-materials.gltf ] || make_many_materials; scene=/tmp/many/many-materials.gltf ;;
    *) scene=$S/$name/$name.gltf ;;
  esac
  echo "== $name"
  .device/examples/bench_trace_floor "$scene" --spp "${SPP:-16}" --capacity 100000000 --software
done > "$OUT/software-trace.txt" 2>&1
cat "$OUT/software-trace.txt"
