#!/usr/bin/env bash
# Issue 17's build figure for two or more wavetrace binaries, interleaved run by run in one
# call: the light BVH rebuilt every pass of a small render of the generated rooms, each
# timestamped scope of the build summed over its 256 builds ("ms / launches"; per build: ms x
# 1000 / 256 in us). BINARIES="name=path ..." (default: old=.device/wavetrace-old
# new=.device/wavetrace); ROOMS_LIGHTS ("10000 100000 1000000": the larger two as single
# triangles, as docs/BENCHMARKS.md measures them); RUNS (2); TESTS: test binaries of
# .device/tests to run first, with validation. Needs .device/ from tools/device-bundle.sh.
set -uo pipefail
source tools/bench/device.sh
device_setup
[ -n "${TESTS:-}" ] && run_tests $TESTS
read -r -a binaries <<< "${BINARIES:-old=.device/wavetrace-old new=.device/wavetrace}"
rooms=/tmp/rooms
for lights in ${ROOMS_LIGHTS:-10000 100000 1000000}; do
  shape=$([ "$lights" -gt 10000 ] && echo --triangles)
  python3 tools/scenes/many_lights_room.py $rooms --lights "$lights" $shape > /dev/null
done
for scene in $(ls $rooms/*.gltf | sort -V); do
  for run in $(seq "${RUNS:-2}"); do
    for entry in "${binaries[@]}"; do
      stats=$("${entry#*=}" render "$scene" -o /tmp/b.exr --res 64 64 --spp 256 --max-depth 2 \
        --integrator megakernel --lights bvh --rebuild-lights --stats 2>&1)
      echo "$(basename "$scene") ${entry%%=*} run$run: $(awk '$1 ~ /^light_bvh/ {printf "%s %s / %s; ", $1, $2, $3}' <<< "$stats")"
    done
  done
done > "$OUT/light-bvh-build-ab.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/light-bvh-build-ab.txt" 2>/dev/null
