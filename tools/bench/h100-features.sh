#!/usr/bin/env bash
# Kernels specialised to the scene against the general kernels (--general-kernels) on the lent
# H100 (issue 15, item 2): the kernel_features test with validation; registers and spills per
# compute kernel (WAVETRACE_PIPELINE_STATS) on the Cornell box and the all-features scene; then
# 1024 x 1024, 256 spp, depth 8, default roulette, two runs each: the wavefront and the
# megakernel on the Cornell box, cornell-glass, ajar and many-materials, bidirectional path
# tracing on the Cornell box and ajar. Expects .device/ from tools/device-bundle.sh (with the
# kernel_features test); writes under $OUT and prints Msamples/s per render.
set -u
. "$(dirname "$0")/device.sh"
device_setup
run_tests ${TEST_NAMES:-kernel_features}
W=.device/wavetrace
S=tests/scenes
make_many_materials

for scene in cornell-box all-features; do
  for integrator in wavefront bdpt; do
    for kernels in specialised general; do
      flag=$([ $kernels = general ] && echo --general-kernels)
      echo "== $scene $integrator $kernels"
      WAVETRACE_PIPELINE_STATS=1 RUST_LOG=info $W render $S/$scene/$scene.gltf -o /tmp/stats.exr --res 64 64 --spp 1 \
        --integrator $integrator $flag 2>&1 | grep -iE "pipeline statistics|specialised"
    done
  done
done > "$OUT/pipeline-stats.txt" 2>&1

$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
for case in cornell-box:wavefront cornell-box:megakernel cornell-box:bdpt cornell-glass:wavefront \
  cornell-glass:megakernel ajar:wavefront ajar:megakernel ajar:bdpt many-materials:wavefront \
  many-materials:megakernel; do
  scene=${case%%:*}
  integrator=${case#*:}
  path=$S/$scene/$scene.gltf
  [ "$scene" = many-materials ] && path=/tmp/many/many-materials.gltf
  for kernels in specialised general; do
    flag=$([ $kernels = general ] && echo --general-kernels)
    for run in 1 2; do
      m=$($W render "$path" -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 --integrator "$integrator" \
        $flag --stats --json 2>> "$OUT/stderr.txt" \
        | python3 -c 'import json,sys; s=json.load(sys.stdin); print(round(s["samples_per_second"] / 1e6, 1), s["kernel_features"])')
      echo "$scene $integrator $kernels run $run: $m"
    done
  done
done > "$OUT/renders.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/pipeline-stats.txt" "$OUT/renders.txt"
