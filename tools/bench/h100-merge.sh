#!/usr/bin/env bash
# Merged instances (--merge-instances: one bottom level for every instance) against one bottom
# level per mesh on the lent H100 (issue 15, item 3): the accel test with validation; the
# trace floor of both shapes (examples/bench_trace_floor, 64 spp) and 1024 x 1024, 256 spp,
# depth 8 renders with the wavefront and the megakernel, two runs each, on many-materials and
# the Cornell box. Expects .device/ from tools/device-bundle.sh (with the accel test); writes
# under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
run_tests ${TEST_NAMES:-accel}
make_many_materials
S=tests/scenes
for scene in many-materials cornell-box; do
  path=$S/$scene/$scene.gltf
  [ "$scene" = many-materials ] && path=/tmp/many/many-materials.gltf
  for merge in "" --merge-instances; do
    echo "== $scene floor $merge"
    .device/examples/bench_trace_floor "$path" --spp 64 --capacity $((1 << 29)) $merge
    for integrator in wavefront megakernel; do
      for run in 1 2; do
        m=$(.device/wavetrace render "$path" -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 \
          --integrator $integrator $merge --stats --json 2>> "$OUT/stderr.txt" \
          | python3 -c 'import json,sys; s=json.load(sys.stdin); print(round(s["samples_per_second"] / 1e6, 1))')
        echo "$scene $integrator ${merge:-per-mesh} run $run: $m Msamples/s"
      done
    done
  done
done > "$OUT/merge.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/merge.txt"
