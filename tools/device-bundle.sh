#!/usr/bin/env bash
# Assembles .device/ for a run on the lent H100 (see docs/H100.md): the Vulkan loader, the
# GL dispatch libraries NVIDIA's Vulkan ICD (libGLX_nvidia.so.0) needs, the validation layer,
# the stripped release binary, the benchmark examples, the stripped test suite and soak test,
# and a script per test file that runs that file's tests (all of them, or only those named:
# `bash tools/device-bundle.sh reference wavefront`; `.device/tests/reference --test-threads 1`).
# Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.device/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.device/' >> .git/info/exclude; }
mkdir -p .device/tests
(
  cd .device
  for p in libvulkan1 vulkan-validationlayers libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2; do
    ls ${p}_*.deb >/dev/null 2>&1 || apt-get download "$p" 2>/dev/null
  done
)
cargo build --release --examples --bins
cp target/release/wavetrace .device/
mkdir -p .device/examples
for example in bench_scan bench_lights bench_trace_floor bench_progressive error_parts; do cp "target/release/examples/$example" .device/examples/; done
# The suite (tests/suite.rs), the soak test and a script per test file that runs the suite on
# that file's tests. The CLI tests name the build tree's binary, so they get none.
rm -f .device/tests/*
cargo test --release --no-run --message-format=json --test suite --test soak 2>/dev/null \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' \
  | while read -r name exe; do cp "$exe" ".device/tests/$name"; done
names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
  names=($(sed -n 's/^mod \([a-z_0-9]*\);$/\1/p' tests/suite.rs | grep -vx 'common\|hostile\|cli'))
fi
for name in "${names[@]}"; do
  printf '#!/bin/sh\nexec "$(dirname "$0")/suite" %s:: "$@"\n' "$name" > ".device/tests/$name"
  chmod +x ".device/tests/$name"
done
strip .device/wavetrace .device/tests/suite .device/tests/soak .device/examples/*
du -sh .device
