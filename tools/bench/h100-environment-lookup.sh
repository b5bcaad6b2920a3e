#!/usr/bin/env bash
# What the environment map's bilinear lookup costs against the nearest-texel lookup before it, on
# the lent H100: the environment and all-features tests with validation (current binary), then
# samples/s of the textured many-material scene and all-features under tools/scenes/sky.py's
# map, both binaries run by run in turn. Expects .device/ from tools/device-bundle.sh with the
# earlier binary copied to .device/wavetrace-nearest (or BINARIES="old new", names under
# .device/; TESTS=0 skips the tests); writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
[ "${TESTS:-1}" = 1 ] && run_tests environment all_features
python3 tools/scenes/many_materials.py /tmp/many --textured > "$OUT/scenes.txt" 2>&1
python3 tools/scenes/sky.py /tmp/sky.hdr 2048 >> "$OUT/scenes.txt" 2>&1
S=tests/scenes
T=/tmp/many/many-materials-textured.gltf
.device/wavetrace render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
one() {
  local binary=$1 name=$2 scene=$3
  shift 3
  echo "== $binary $name $*"
  ".device/$binary" render "$scene" -o /tmp/render.exr --res 1024 1024 --spp "${SPP:-256}" --max-depth 8 --stats \
    --env /tmp/sky.hdr "$@" 2>&1 | grep -E "Msamples|shade_surface|extend|connect"
}
for run in $(seq "${RUNS:-3}"); do
  for binary in ${BINARIES:-wavetrace-nearest wavetrace}; do
    one $binary textured $T
    one $binary textured $T --integrator megakernel
    one $binary all-features $S/all-features/all-features.gltf --env-strength 0.5
  done
done > "$OUT/renders.txt" 2>&1
.device/wavetrace render $S/all-features/all-features.gltf -o "$OUT/all-features.png" --res 512 512 --spp 1024 \
  --env /tmp/sky.hdr --env-strength 0.5 > /dev/null 2>&1
cat "$OUT/tests-summary.txt" 2> /dev/null
grep -E "^==|Msamples" "$OUT/renders.txt"
