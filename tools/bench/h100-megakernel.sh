#!/usr/bin/env bash
# The megakernel baseline against the wavefront integrator on the lent H100: tests with
# validation, then the Cornell box and Cornell glass at 1024 x 1024, 256 spp, depths 3 and 8,
# three runs each. Expects .device/ from tools/device-bundle.sh; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
for t in wavefront reference; do
  echo "== $t"
  WAVETRACE_VALIDATION=1 ".device/tests/$t" --test-threads 1 --nocapture 2>&1
  echo "$t rc $?" >> "$OUT/tests-summary.txt"
done > "$OUT/tests.txt" 2>&1
S=tests/scenes
.device/wavetrace render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
for scene in cornell-box cornell-glass; do
  for depth in 3 8; do
    for integrator in wavefront megakernel; do
      for run in 1 2 3; do
        echo "== $scene d$depth $integrator run $run"
        .device/wavetrace render $S/$scene/$scene.gltf -o /tmp/render.exr --res 1024 1024 --spp 256 \
          --max-depth $depth --integrator $integrator --stats
      done
    done
  done
done > "$OUT/renders.txt" 2>&1
cat "$OUT/tests-summary.txt"
grep -E "^==|Msamples" "$OUT/renders.txt" | sed 's/, 140 bytes.*//; s/, 16 bytes.*//'
