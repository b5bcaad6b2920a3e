#!/usr/bin/env bash
# Two or more wavetrace binaries on the same renders, interleaved run by run in one call, so
# that a change is measured against its parent under the same clocks (docs/BENCHMARKS.md).
# RES (1024 x 1024), $SPP spp (256), default roulette; per render: Msamples/s and, for each
# kernel or scope named in $KERNELS, its GPU time over its launches ("12.3 ms / 16").
# BINARIES="name=path ..." (default: old=.device/wavetrace-old new=.device/wavetrace);
# CASES="scene:depth:integrator[:options] ..." (scene a folder of tests/scenes or a .gltf path;
# options joined by commas, e.g. "--lights,tree"; default: the Cornell box at depth 3 and 8,
# ajar at 8, each with the wavefront and the megakernel); RUNS (2); SETUP: a command run first
# (e.g. one that writes generated scenes);
# TESTS: test binaries of .device/tests to run first, with validation.
# Needs .device/ from `bash tools/device-bundle.sh [tests...]` plus the other binaries.
set -uo pipefail
source tools/bench/device.sh
device_setup
[ -n "${TESTS:-}" ] && run_tests $TESTS
[ -n "${SETUP:-}" ] && eval "$SETUP" > "$OUT/setup.txt" 2>&1
read -r -a binaries <<< "${BINARIES:-old=.device/wavetrace-old new=.device/wavetrace}"
cases=${CASES:-"cornell-box:3:wavefront cornell-box:8:wavefront ajar:8:wavefront cornell-box:3:megakernel cornell-box:8:megakernel ajar:8:megakernel"}
kernels=${KERNELS:-"extend shade_surface connect trace_paths"}
.device/wavetrace render tests/scenes/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
for case in $cases; do
  IFS=: read -r scene depth integrator options <<< "$case"
  path=$([[ $scene == *.gltf ]] && echo "$scene" || echo "tests/scenes/$scene/$scene.gltf")
  for run in $(seq "${RUNS:-2}"); do
    for entry in "${binaries[@]}"; do
      # RES and the options are split into words on purpose.
      stats=$("${entry#*=}" render "$path" -o /tmp/ab.exr --res ${RES:-1024 1024} --spp "${SPP:-256}" \
        --max-depth "$depth" --integrator "$integrator" ${options//,/ } --stats 2>&1)
      line="$(basename "$scene" .gltf) d$depth $integrator ${options//,/ } ${entry%%=*} run$run $(grep -o '[0-9.]* Msamples/s' <<< "$stats" | head -1)"
      for kernel in $kernels; do
        ms=$(awk -v k="$kernel" '$1 == k {print $2 " ms / " $3; exit}' <<< "$stats")
        [ -n "$ms" ] && line="$line  $kernel $ms"
      done
      echo "$line"
    done
  done
done > "$OUT/render-ab.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/render-ab.txt" 2>/dev/null
