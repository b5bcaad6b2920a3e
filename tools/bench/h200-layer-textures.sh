#!/usr/bin/env bash
# What textures on the layers' factors cost and change (docs/BENCHMARKS.md, "Textures on the
# layers' factors"): the tests that check them, with validation; old (.device/wavetrace-old)
# against new (.device/wavetrace) on scenes without layer textures, image and speed; and the
# new binary on all-features against all-features with its layers textured
# (tools/bench/layer_textures.py). Needs .device/ with both binaries and .device/tests/suite.
set -uo pipefail
source tools/bench/device.sh
device_setup
# One test at a time: with four at once on the H200 four of these ran past 400 s (serially
# they take 76, 51 and 12 s; docs/BENCHMARKS.md).
WAVETRACE_VALIDATION=1 timeout 400 .device/tests/suite --test-threads 1 layer_textures:: \
  scene_import::the_layers kernel_features:: bdpt::splats_equal all_features:: > "$OUT/tests.txt" 2>&1
echo "tests rc $?" > "$OUT/tests-summary.txt"
python3 tools/bench/layer_textures.py tests/scenes/all-features/all-features.gltf /tmp/lt
for case in cornell-box:8 all-features:6; do
  IFS=: read -r scene depth <<< "$case"
  for integrator in wavefront megakernel bdpt; do
    for binary in old new; do
      exe=.device/wavetrace; [ $binary = old ] && exe=.device/wavetrace-old
      $exe render "tests/scenes/$scene/$scene.gltf" -o "/tmp/$binary.exr" --res 512 512 --spp 64 \
        --max-depth "$depth" --integrator "$integrator" > /dev/null 2>&1
    done
    echo "$scene d$depth $integrator old against new: $(.device/wavetrace compare /tmp/new.exr /tmp/old.exr 2>&1 | tr '\n' ' ')"
  done
done > "$OUT/identity.txt"
mkdir -p "$OUT/ab" "$OUT/layered"
CASES="cornell-box:8:wavefront cornell-box:8:megakernel cornell-box:8:bdpt all-features:6:wavefront all-features:6:megakernel all-features:6:bdpt" \
  KERNELS="shade_surface trace_paths shade_camera shade_light connect" RUNS=2 OUT="$OUT/ab" bash tools/bench/h100-render-ab.sh > /dev/null
CASES="/tmp/lt/all-features.gltf:6:wavefront /tmp/lt/all-features-layered.gltf:6:wavefront /tmp/lt/all-features.gltf:6:megakernel /tmp/lt/all-features-layered.gltf:6:megakernel /tmp/lt/all-features.gltf:6:bdpt /tmp/lt/all-features-layered.gltf:6:bdpt" \
  BINARIES="new=.device/wavetrace" KERNELS="shade_surface trace_paths shade_camera shade_light connect" RUNS=2 \
  OUT="$OUT/layered" bash tools/bench/h100-render-ab.sh > /dev/null
cat "$OUT/tests-summary.txt" "$OUT/identity.txt" "$OUT/ab/render-ab.txt" "$OUT/layered/render-ab.txt"
grep "test result" "$OUT/tests.txt"
