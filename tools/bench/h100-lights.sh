#!/usr/bin/env bash
# The lights issue's run on the lent H100 (docs/H100.md): GPU tests with validation, the
# light-tree build and precision benchmark, torch.cumsum as the peer, and renders of the
# many-lights scene with each selection strategy. Expects .device/ from tools/device-bundle.sh;
# writes everything under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
.device/wavetrace info > "$OUT/info.txt" 2>&1
for t in lights light_selection wavefront reference layout scan; do
  echo "== $t"
  WAVETRACE_VALIDATION=1 ".device/tests/$t" --test-threads 1 --nocapture 2>&1
  echo "$t rc $?" >> "$OUT/tests-summary.txt"
done > "$OUT/tests.txt" 2>&1
.device/examples/bench_lights --json > "$OUT/bench-lights.txt" 2>&1
python3 tools/bench/torch_cumsum.py float32 >> "$OUT/bench-lights.txt" 2>&1
S=tests/scenes
render() { .device/wavetrace render "$@" -o /tmp/render.exr --stats; }
for selection in tree cdf uniform; do
  for run in 1 2 3; do
    echo "== $selection run $run"
    render $S/cornell-many-lights/cornell-many-lights.gltf --res 1024 1024 --spp 256 --max-depth 8 --lights $selection
  done
done > "$OUT/render-many-lights.txt" 2>&1
for run in 1 2; do
  echo "== rebuild every pass, run $run"
  render $S/cornell-many-lights/cornell-many-lights.gltf --res 1024 1024 --spp 256 --max-depth 8 --rebuild-lights
done >> "$OUT/render-many-lights.txt" 2>&1
for run in 1 2 3; do
  echo "== cornell-box d8 run $run"
  render $S/cornell-box/cornell-box.gltf --res 1024 1024 --spp 256 --max-depth 8
done > "$OUT/render-cornell-box.txt" 2>&1
cat "$OUT/tests-summary.txt"
