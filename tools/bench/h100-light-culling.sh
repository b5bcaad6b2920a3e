#!/usr/bin/env bash
# Issue 18's figures on the H100 (docs/LIGHT_CULLING.md, docs/BENCHMARKS.md): light culling's
# cost (depth kernel, tiles, grid; per cull, rebuilt every pass) and the shading kernel's time
# with bit arrays, index lists and no culling, on the street scene (tools/scenes/street.py) of
# 10^3 / 10^4 / 10^5 lights at 1080p and 4K; then quality on the 10^4-light street at
# 1024 x 1024, depth 4: relMSE at equal spp against global power selection, and relMSE x time.
# Needs .device/ from `bash tools/device-bundle.sh light_culling light_bvh light_selection`.
# Output under $OUT; `timings` or `quality` as the first argument runs that half alone.
set -uo pipefail
source tools/bench/device.sh
device_setup
W=.device/wavetrace
STREETS=/tmp/streets
part=${1:-all}
for n in 1000 10000 100000; do
  python3 tools/scenes/street.py $STREETS --lights $n >> "$OUT/scenes.txt"
done

if [ "$part" != quality ]; then
  run_tests light_culling light_bvh light_selection
  {
    echo "== culling and shading, wavefront, 16 spp, depth 4, lights and culling rebuilt every pass"
    for n in 1000 10000 100000; do
      for res in "1920 1080" "3840 2160"; do
        for culling in "bits" "bits --cull-scalarise" "lists" "off"; do
          for run in 1 2; do
            echo "-- street-$n $res $culling run $run"
            $W render $STREETS/street-$n.gltf -o /tmp/t.exr --res $res --spp 16 --max-depth 4 --light-culling $culling \
              --rebuild-lights --stats 2>&1 | grep -E "light_cull|shade_surface|light_bvh |Msamples|light culling \("
          done
        done
      done
    done
    echo "== the 2.5D depth mask off, street-10000 and street-100000 at 1080p"
    for n in 10000 100000; do
      for culling in bits lists; do
        echo "-- street-$n 1920 1080 $culling --no-depth-mask run 1"
        $W render $STREETS/street-$n.gltf -o /tmp/t.exr --res 1920 1080 --spp 16 --max-depth 4 --light-culling $culling \
          --no-depth-mask --rebuild-lights --stats 2>&1 | grep -E "light_cull|shade_surface|Msamples|light culling \("
      done
    done
  } > "$OUT/timings.txt" 2>&1
fi

if [ "$part" != timings ]; then
  S=$STREETS/street-10000.gltf
  {
    echo "== quality, street-10000, 1024 x 1024, depth 4; reference: bits, 4096 spp, seed 11"
    $W render $S -o /tmp/ref.exr --res 1024 1024 --spp 4096 --max-depth 4 --light-culling bits --seed 11 --stats 2>&1 \
      | grep -E "Msamples"
    for run in 1 2; do
      for mode in "bits" "lists" "off --lights tree" "off --lights bvh"; do
        $W render $S -o /tmp/q.exr --res 1024 1024 --spp 64 --max-depth 4 --light-culling $mode --seed $run --stats 2>&1 \
          | grep -E "Msamples"
        echo "street-10000 64 spp run $run, $mode: $($W compare /tmp/q.exr /tmp/ref.exr)"
      done
    done
  } > "$OUT/quality.txt" 2>&1
fi
cat "$OUT/tests-summary.txt" 2>/dev/null
grep -E "^==|^--|light_cull|shade_surface|Msamples|relMSE|light culling \(" "$OUT"/timings.txt "$OUT"/quality.txt 2>/dev/null \
  | sed 's/ Wavefront integrator.*GPU, / /' | cut -c1-200
