#!/usr/bin/env bash
# Issue 17's figures on the H100 (docs/LIGHTS.md, docs/BENCHMARKS.md): the light BVH's build
# time at 10^4, 10^5 and 10^6 emitters (all its dispatches in one timestamped scope, rebuilt
# every pass), image quality against the power tree on cornell-many-lights and the generated
# room of 10^4 lights (with the part of the room's error that emitters seen directly set,
# which no selection controls: examples/error_parts.rs), samples/s of both, and equal-time
# quality at 256 x 256, 1024 spp.
# Needs .device/ from `bash tools/device-bundle.sh light_bvh light_selection`. Output under $OUT.
set -uo pipefail
source tools/bench/device.sh
device_setup
W=.device/wavetrace
CML=tests/scenes/cornell-many-lights/cornell-many-lights.gltf
BOX=tests/scenes/cornell-box/cornell-box.gltf
ROOMS=/tmp/rooms
python3 tools/scenes/many_lights_room.py $ROOMS --lights 10000 > "$OUT/scenes.txt"
python3 tools/scenes/many_lights_room.py $ROOMS --lights 100000 --triangles >> "$OUT/scenes.txt"
python3 tools/scenes/many_lights_room.py $ROOMS --lights 1000000 --triangles >> "$OUT/scenes.txt"
ROOM=$ROOMS/many-lights-room-10000.gltf
run_tests light_bvh light_selection
{
  echo "== build timings"
  for scene in $ROOM $ROOMS/many-lights-room-100000-triangles.gltf $ROOMS/many-lights-room-1000000-triangles.gltf; do
    for lights in bvh tree; do
      for run in 1 2; do
        echo "-- $scene $lights run $run"
        $W render "$scene" -o /tmp/b.exr --res 64 64 --spp 256 --max-depth 2 --integrator megakernel --lights $lights \
          --rebuild-lights --stats 2>&1 | grep -E "light_(bvh|tree)|Msamples"
      done
    done
  done
  echo "== quality, 128 x 128, depth 8, 64 spp, seed 3"
  $W render $ROOM -o /tmp/room-ref.exr --res 128 128 --spp 65536 --max-depth 8 --lights tree --seed 11 2>&1 | tail -1
  for lights in bvh cpu-bvh tree uniform; do
    $W render $ROOM -o /tmp/room-$lights.exr --res 128 128 --spp 64 --max-depth 8 --lights $lights --seed 3 2>&1 | tail -1
    echo "room $lights: $($W compare /tmp/room-$lights.exr /tmp/room-ref.exr)"
    $W render $CML -o /tmp/cml-$lights.exr --res 128 128 --spp 64 --max-depth 8 --lights $lights --seed 3 2>&1 | tail -1
    echo "cornell-many-lights $lights: $($W compare /tmp/cml-$lights.exr tests/scenes/cornell-many-lights/ref/cornell-many-lights-128-d8.exr)"
  done
  echo "== the room's error no light selection controls: emitters seen directly (depth 1, same camera samples)"
  $W render $ROOM -o /tmp/room-ref-d1.exr --res 128 128 --spp 65536 --max-depth 1 --seed 11 2>&1 | tail -1
  $W render $ROOM -o /tmp/room-d1.exr --res 128 128 --spp 64 --max-depth 1 --seed 3 2>&1 | tail -1
  echo "room $(.device/examples/error_parts floor /tmp/room-d1.exr /tmp/room-ref-d1.exr /tmp/room-ref.exr)"
  echo "room bvh and tree $(.device/examples/error_parts shared /tmp/room-bvh.exr /tmp/room-tree.exr /tmp/room-ref.exr)"
  echo "== equal time, cornell-many-lights 256 x 256, depth 8, 1024 spp"
  $W render $CML -o /tmp/cml256-ref.exr --res 256 256 --spp 65536 --max-depth 8 --lights tree --seed 11 2>&1 | tail -1
  for lights in bvh tree; do
    for run in 1 2; do
      $W render $CML -o /tmp/cml256-$lights.exr --res 256 256 --spp 1024 --max-depth 8 --lights $lights --seed $run --stats 2>&1 | grep -E "Msamples"
      echo "cml256 $lights run $run: $($W compare /tmp/cml256-$lights.exr /tmp/cml256-ref.exr)"
    done
  done
  echo "== samples/s, 1024 x 1024, 256 spp, depth 8"
  for lights in bvh tree; do
    render "cornell-many-lights $lights" $CML 8 --lights $lights
    render "cornell-box $lights" $BOX 8 --lights $lights
    render "room $lights" $ROOM 8 --lights $lights
  done
} > "$OUT/renders.txt" 2>&1
cat "$OUT/tests-summary.txt"
grep -E "^==|^--|light_|Msamples|relMSE|rel_mse|floor|shared" "$OUT/renders.txt" | cut -c1-220
