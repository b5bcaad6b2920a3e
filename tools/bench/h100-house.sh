#!/usr/bin/env bash
# The house issue's run on the lent H100 (docs/H100.md), with the restored benchmarks: the
# prefix-sum and light-tree benchmarks with torch.cumsum as the peer, then renders with the
# binary before the restructuring (.device/wavetrace-before, if carried) and after it,
# alternating, so that a difference can be set against the run-to-run spread, and the GPU
# tests of the integrators with validation (TEST_NAMES, default "reference wavefront"; BENCH=0
# skips the prefix-sum and light-tree benchmarks). Expects .device/ from tools/device-bundle.sh;
# writes everything under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
.device/wavetrace info > "$OUT/info.txt" 2>&1
if [ "${BENCH:-1}" = 1 ]; then
  {
    .device/examples/bench_scan --json
    python3 tools/bench/torch_cumsum.py int32 float32
  } > "$OUT/bench-scan.txt" 2>&1
  {
    .device/examples/bench_lights --json
    python3 tools/bench/torch_cumsum.py float32
  } > "$OUT/bench-lights.txt" 2>&1
fi
python3 tools/scenes/many_materials.py /tmp/many > "$OUT/many-materials.txt" 2>&1
S=tests/scenes
binaries=(.device/wavetrace)
[ -x .device/wavetrace-before ] && binaries=(.device/wavetrace-before .device/wavetrace)
for binary in "${binaries[@]}"; do
  $binary render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
done
{
  for run in 1 2 3; do
    for binary in "${binaries[@]}"; do
      for scene in cornell-box cornell-glass; do
        echo "== $binary $scene d8 run $run"
        $binary render $S/$scene/$scene.gltf -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 --stats
      done
      echo "== $binary many-materials d8 run $run"
      $binary render /tmp/many/many-materials.gltf -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 --stats
      echo "== $binary cornell-box d8 megakernel run $run"
      $binary render $S/cornell-box/cornell-box.gltf -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 \
        --integrator megakernel --stats
    done
  done
} > "$OUT/renders.txt" 2>&1
if [ "${TESTS:-1}" = 1 ]; then
  # shellcheck disable=SC2086 # a list of names
  run_tests ${TEST_NAMES:-reference wavefront}
fi
cat "$OUT/tests-summary.txt" 2>/dev/null
grep -E "^==|Msamples" "$OUT/renders.txt" | sed 's/ Wavefront integrator.*GPU, / /; s/ Megakernel integrator.*GPU, / /; s/ of the GPU.s.*submissions),//'
