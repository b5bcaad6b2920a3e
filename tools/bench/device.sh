# Sourced by the tools/bench/h100-*.sh scripts, which run on the lent H100 with .device/ from
# tools/device-bundle.sh carried along and write under $OUT.

# The Vulkan loader, GL dispatch and validation layer from .device/, and the build tree's
# path, through which test binaries find tests/scenes.
device_setup() {
  for f in .device/*.deb; do dpkg -x "$f" /; done
  ldconfig
  [ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
}

# The many-materials benchmark scene (tools/scenes/many_materials.py) at /tmp/many, the script's
# output to $OUT/many-materials.txt.
make_many_materials() {
  python3 tools/scenes/many_materials.py /tmp/many > "$OUT/many-materials.txt" 2>&1
}

# The named test binaries with validation: output to $OUT/tests.txt, one rc line each to
# $OUT/tests-summary.txt.
run_tests() {
  for t in "$@"; do
    echo "== $t"
    WAVETRACE_VALIDATION=1 timeout 300 ".device/tests/$t" --test-threads 1 2>&1
    echo "$t rc $?" >> "$OUT/tests-summary.txt"
  done > "$OUT/tests.txt" 2>&1
}

# render NAME SCENE DEPTH [options...]: $RUNS renders at 1024 x 1024, $SPP spp, with --stats.
render() {
  local name=$1 scene=$2 depth=$3
  shift 3
  for run in $(seq "${RUNS:-2}"); do
    echo "== $name d$depth $* run $run"
    .device/wavetrace render "$scene" -o /tmp/render.exr --res 1024 1024 --spp "${SPP:-256}" --max-depth "$depth" --stats "$@"
  done
}

# The summary: test results, then one line of samples/s per render.
summarise() {
  cat "$OUT/tests-summary.txt" 2>/dev/null
  grep -E "^==|Msamples" "$OUT/renders.txt" | sed 's/ Wavefront integrator.*GPU, / /; s/ Megakernel integrator.*GPU, / /; s/ of the GPU.s.*submissions),//'
}
