#!/usr/bin/env bash
# Light culling's builds side by side in one call (docs/BENCHMARKS.md, "Bit arrays built by
# light"): the street scene of 10^3 / 10^4 / 10^5 lights at 1080p and 4K, each variant's
# options run by run interleaved, culling rebuilt every pass and timed by its scopes (4K renders
# in three passes, so its figures are three culls), shade_surface and samples/s of the render,
# and each cull kernel's registers.
# VARIANTS="name=options ..." with options comma-separated (default: bits and lists, each built
# both ways). COUNTS, RUNS, RESOLUTIONS override the light counts, runs and image sizes;
# BINARIES="name=path ..." compares builds of wavetrace too (default: .device/wavetrace alone).
# Needs .device/ from `bash tools/device-bundle.sh light_culling`. Output under $OUT.
set -uo pipefail
source tools/bench/device.sh
device_setup
STREETS=/tmp/streets
COUNTS=${COUNTS:-1000 10000 100000}
for n in $COUNTS; do
  python3 tools/scenes/street.py $STREETS --lights "$n" >> "$OUT/scenes.txt"
done
run_tests light_culling
default="bits-cells=--light-culling,bits,--cull-build,cells bits-lights=--light-culling,bits,--cull-build,lights
  lists-cells=--light-culling,lists,--cull-build,cells lists-lights=--light-culling,lists,--cull-build,lights"
read -r -a variants <<< "$(echo ${VARIANTS:-$default})"
for entry in "${variants[@]}"; do
  echo "== ${entry%%=*} registers"
  options=${entry#*=}
  RUST_LOG=info WAVETRACE_PIPELINE_STATS=1 .device/wavetrace render $STREETS/street-1000.gltf -o /tmp/t.exr \
    --res 192 108 --spp 1 --max-depth 4 ${options//,/ } 2>&1 | grep -o "statistics of cull.*Binary"
done > "$OUT/registers.txt" 2>&1
read -r -a binaries <<< "${BINARIES:-=.device/wavetrace}"
read -r -a resolutions <<< "${RESOLUTIONS:-1920x1080 3840x2160}"
for n in $COUNTS; do
  for res in "${resolutions[@]}"; do
    for run in $(seq "${RUNS:-2}"); do
      for entry in "${variants[@]}"; do
        for binary in "${binaries[@]}"; do
          options=${entry#*=} name=${binary%%=*}
          echo "$n $res ${entry%%=*}${name:+ $name} $run $(${binary#*=} render $STREETS/street-$n.gltf \
            -o /tmp/t.exr --res ${res/x/ } --spp 16 --max-depth 4 ${options//,/ } --rebuild-lights --stats 2>&1 \
            | grep -E "light_cull_(depth|bounds|tiles|grid)|shade_surface|Msamples" | sed 's/.*GPU, //' \
            | awk '{printf "%s %s  ", $1, $2}')"
        done
      done
    done
  done
done > "$OUT/culling-builds.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/registers.txt" "$OUT/culling-builds.txt"
