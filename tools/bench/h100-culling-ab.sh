#!/usr/bin/env bash
# Light culling's kernels across binaries, in one call (docs/BENCHMARKS.md, "Light culling"):
# the street scene of 10^3 / 10^4 / 10^5 lights at 1080p and 4K, bits and lists, the binaries
# interleaved run by run, culling rebuilt every pass and timed by its scopes (4K renders in
# three passes, so its figures are three culls), and each binary's cull kernels' registers.
# BINARIES="name=path ..." (default: old=.device/wavetrace-old new=.device/wavetrace).
# Needs .device/ from `bash tools/device-bundle.sh light_culling` plus the other binaries.
# Output under $OUT.
set -uo pipefail
source tools/bench/device.sh
device_setup
STREETS=/tmp/streets
for n in 1000 10000 100000; do
  python3 tools/scenes/street.py $STREETS --lights $n >> "$OUT/scenes.txt"
done
run_tests light_culling
read -r -a binaries <<< "${BINARIES:-old=.device/wavetrace-old new=.device/wavetrace}"
for entry in "${binaries[@]}"; do
  echo "== ${entry%%=*} registers"
  for culling in bits lists; do
    RUST_LOG=info WAVETRACE_PIPELINE_STATS=1 "${entry#*=}" render $STREETS/street-1000.gltf -o /tmp/t.exr --res 192 108 \
      --spp 1 --max-depth 4 --light-culling $culling 2>&1 | grep -o "statistics of cull.*Binary"
  done
done > "$OUT/registers.txt" 2>&1
for n in 1000 10000 100000; do
  for res in "1920 1080" "3840 2160"; do
    for culling in bits lists; do
      for run in 1 2; do
        for entry in "${binaries[@]}"; do
          echo "$n ${res/ /x} $culling ${entry%%=*} $run $("${entry#*=}" render $STREETS/street-$n.gltf -o /tmp/t.exr \
            --res $res --spp 16 --max-depth 4 --light-culling $culling --rebuild-lights --stats 2>&1 \
            | grep -E "light_cull_(depth|tiles|grid)|Msamples" | sed 's/.*GPU, //' | awk '{printf "%s %s  ", $1, $2}')"
        done
      done
    done
  done
done > "$OUT/culling-ab.txt" 2>&1
cat "$OUT/tests-summary.txt" "$OUT/registers.txt" "$OUT/culling-ab.txt"
