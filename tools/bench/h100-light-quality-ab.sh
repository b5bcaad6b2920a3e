#!/usr/bin/env bash
# Issue 17's equal-sample quality for several binaries in one call: relMSE against our own
# high-spp render (the power tree, seed 11) of the generated room of $ROOM_LIGHTS lights, and
# against Mitsuba's reference of cornell-many-lights, at depth 2 (direct light) and 8.
# BINARIES="name=path ..." (the first also renders the room's references); SPP (64);
# SEEDS ("3 4"); REF_SPP (65536); KEEP=1 brings the room's images back; TESTS: test
# binaries of .device/tests to run first. EQUAL_TIME=1 adds issue 17's equal-time figure:
# cornell-many-lights at 256 x 256, depth 8, 1024 spp, relMSE x GPU seconds of each binary and
# of the power tree against a $REF_SPP-spp render by the power tree (seed 11), seeds 3 and 4.
# Needs .device/ from `bash tools/device-bundle.sh [tests...]` plus the other binaries.
set -uo pipefail
source tools/bench/device.sh
device_setup
[ -n "${TESTS:-}" ] && run_tests $TESTS
read -r -a binaries <<< "${BINARIES:-new=.device/wavetrace}"
first=${binaries[0]#*=}
rooms=/tmp/rooms
python3 tools/scenes/many_lights_room.py $rooms --lights "${ROOM_LIGHTS:-10000}" > "$OUT/setup.txt" 2>&1
room=$rooms/many-lights-room-${ROOM_LIGHTS:-10000}.gltf
cml=tests/scenes/cornell-many-lights/cornell-many-lights.gltf
for depth in 2 8; do
  $first render $room -o /tmp/room-ref-d$depth.exr --res 128 128 --spp "${REF_SPP:-65536}" --max-depth $depth \
    --lights tree --seed 11 > /dev/null 2>&1
done
# quality NAME SCENE REFERENCE: every binary and the power tree at depths 2 and 8, each seed,
# against REFERENCE (a path with DEPTH where the depth goes).
quality() {
  local name=$1 scene=$2 reference=$3
  for depth in 2 8; do
    for seed in ${SEEDS:-3 4}; do
      for entry in "${binaries[@]}" tree=$first; do
        local label=${entry%%=*}
        local lights=$([ "$label" = tree ] && echo tree || echo bvh)
        "${entry#*=}" render "$scene" -o /tmp/q.exr --res 128 128 --spp "${SPP:-64}" --max-depth $depth \
          --lights $lights --seed $seed > /dev/null 2>&1
        echo "$name d$depth seed $seed $label: $($first compare /tmp/q.exr "${reference//DEPTH/$depth}")"
        if [ -n "${KEEP:-}" ] && [ "$name" = room ]; then
          cp /tmp/q.exr "$OUT/room-d$depth-seed$seed-$label.exr"
        fi
      done
    done
  done
}
{
  quality room $room /tmp/room-ref-dDEPTH.exr
  quality cornell-many-lights $cml tests/scenes/cornell-many-lights/ref/cornell-many-lights-128-dDEPTH.exr
} > "$OUT/quality-ab.txt" 2>&1
if [ -n "${KEEP:-}" ]; then cp /tmp/room-ref-d*.exr "$OUT/"; fi
equal_time() {
  $first render $cml -o /tmp/cml-ref-256.exr --res 256 256 --spp "${REF_SPP:-65536}" --max-depth 8 --lights tree \
    --seed 11 > /dev/null 2>&1
  for seed in 3 4; do
    for entry in "${binaries[@]}" tree=$first; do
      local label=${entry%%=*}
      local lights=$([ "$label" = tree ] && echo tree || echo bvh)
      "${entry#*=}" render $cml -o /tmp/e.exr --res 256 256 --spp 1024 --max-depth 8 --lights $lights --seed $seed \
        --stats --json > /tmp/stats.json
      local seconds error
      seconds=$(python3 -c 'import json; print(json.load(open("/tmp/stats.json"))["gpu_seconds"])')
      error=$($first compare /tmp/e.exr /tmp/cml-ref-256.exr --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rel_mse"])')
      echo "equal time seed $seed $label: gpu_s $seconds relMSE $error relMSE_x_s $(python3 -c "print($seconds * $error)")"
    done
  done
}
[ -n "${EQUAL_TIME:-}" ] && equal_time > "$OUT/equal-time.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/quality-ab.txt" "$OUT/equal-time.txt" 2>/dev/null
