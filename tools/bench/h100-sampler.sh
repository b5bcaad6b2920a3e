#!/usr/bin/env bash
# The Sobol sampler against independent numbers on the lent H100, the same binary with
# `--sampler sobol` and `--sampler independent` (docs/SAMPLING.md):
# * speed: Msamples/s of renders at 1024 x 1024, $SPP spp (256), default roulette, $RUNS runs
#   (2), interleaved;
# * quality at equal samples: relMSE against the references of the test scenes at 128 x 128
#   (64 spp, seeds 3 and 4) and of the generated room of 10^4 lights (issue 17; our own
#   65,536-spp references, power tree, seed 11), with the light BVH and the power tree, and
#   the room's error from emitters seen directly (depth 1, in the units of depth 8);
# * ajar at 256 x 256, depth 8: relMSE x GPU seconds of the path tracer (4096 spp) and BDPT
#   (256 spp) against .device/refs/ajar-256-d8.exr (issues 13, 14).
# SPEED=0 skips the timed renders and ajar's; QUALITY=0 the 128 x 128 renders; SEEDS ("3 4") their seeds.
# TESTS: test binaries of .device/tests to run first, with validation.
# Needs .device/ from `bash tools/device-bundle.sh [tests...]`.
set -uo pipefail
source tools/bench/device.sh
device_setup
[ -n "${TESTS:-}" ] && run_tests $TESTS
W=.device/wavetrace
S=tests/scenes
make_many_materials
$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1

speed() {
  local default="cornell-box:3:wavefront cornell-box:8:wavefront ajar:8:wavefront /tmp/many/many-materials.gltf:8:wavefront"
  default="$default cornell-box:8:megakernel cornell-box:8:bdpt"
  for case in ${CASES:-$default}; do
    IFS=: read -r scene depth integrator <<< "$case"
    path=$([[ $scene == *.gltf ]] && echo "$scene" || echo "$S/$scene/$scene.gltf")
    for run in $(seq "${RUNS:-2}"); do
      for sampler in sobol independent; do
        stats=$($W render "$path" -o /tmp/ab.exr --res 1024 1024 --spp "${SPP:-256}" --max-depth "$depth" \
          --integrator "$integrator" --sampler $sampler --stats 2>&1)
        echo "$(basename "$scene" .gltf) d$depth $integrator $sampler run$run $(grep -o '[0-9.]* Msamples/s' <<< "$stats" | head -1)"
      done
    done
  done
}

# quality NAME SCENE REFERENCE DEPTH: relMSE at 128 x 128, 64 spp, each sampler, lights and seed.
quality() {
  local name=$1 scene=$2 reference=$3 depth=$4
  for seed in ${SEEDS:-3 4}; do
    for lights in bvh tree; do
      for sampler in sobol independent; do
        $W render "$scene" -o /tmp/q-$sampler.exr --res 128 128 --spp 64 --max-depth "$depth" --lights $lights \
          --seed "$seed" --sampler $sampler > /dev/null 2>&1
        echo "$name d$depth seed $seed $lights $sampler: $($W compare /tmp/q-$sampler.exr "$reference")"
        if [ "$depth" = 1 ]; then
          echo "  seen directly, in the units of depth 8: $(.device/examples/error_parts floor /tmp/q-$sampler.exr \
            "$reference" /tmp/room-ref-d8.exr)"
        fi
      done
    done
  done
}

# ajar_time NAME SPP [options]: GPU seconds and relMSE, twice.
ajar_time() {
  local name=$1 spp=$2
  shift 2
  for run in 1 2; do
    $W render $S/ajar/ajar.gltf -o /tmp/ajar.exr --res 256 256 --spp "$spp" --max-depth 8 --stats --json "$@" > /tmp/stats.json
    seconds=$(python3 -c 'import json; print(json.load(open("/tmp/stats.json"))["gpu_seconds"])')
    error=$($W compare /tmp/ajar.exr .device/refs/ajar-256-d8.exr --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rel_mse"])')
    echo "ajar $name $* spp $spp run $run: gpu_s $seconds relMSE $error relMSE_x_s $(python3 -c "print($seconds * $error)")"
  done
}

[ "${SPEED:-1}" = 1 ] && speed > "$OUT/speed.txt" 2>&1
[ "${SPEED:-1}" = 1 ] && {
  for sampler in sobol independent; do
    ajar_time pt 4096 --sampler $sampler
    ajar_time bdpt 256 --integrator bdpt --sampler $sampler
  done
} > "$OUT/ajar.txt" 2>&1
[ "${QUALITY:-1}" = 1 ] && {
  python3 tools/scenes/many_lights_room.py /tmp/rooms --lights 10000
  room=/tmp/rooms/many-lights-room-10000.gltf
  for depth in 1 2 8; do
    $W render $room -o /tmp/room-ref-d$depth.exr --res 128 128 --spp 65536 --max-depth $depth --lights tree --seed 11 > /dev/null 2>&1
  done
  for depth in 1 2 8; do quality room $room /tmp/room-ref-d$depth.exr $depth; done
  for depth in 2 8; do
    quality cornell-many-lights $S/cornell-many-lights/cornell-many-lights.gltf \
      $S/cornell-many-lights/ref/cornell-many-lights-128-d$depth.exr $depth
  done
  for depth in 2 8; do quality cornell-box $S/cornell-box/cornell-box.gltf $S/cornell-box/ref/cornell-box-128-d$depth.exr $depth; done
  quality cornell-glass $S/cornell-glass/cornell-glass.gltf $S/cornell-glass/ref/cornell-glass-128-d8.exr 8
  quality ajar $S/ajar/ajar.gltf $S/ajar/ref/ajar-128-d8.exr 8
} > "$OUT/quality.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/speed.txt" "$OUT/ajar.txt" 2>/dev/null
grep -c . "$OUT/quality.txt"
