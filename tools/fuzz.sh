#!/usr/bin/env bash
# A long fuzzing run of the glTF importer and the image loaders (no GPU needed):
#   bash tools/fuzz.sh [SECONDS (default 3600)] [SEED (default: the clock)]
# Inputs that panic or take over 10 s are saved in target/fuzz-findings/; once fixed, copy each
# into tests/fuzz-regressions/ (see its README), which every test run replays.
set -euo pipefail
cd "$(dirname "$0")/.."
export WAVETRACE_FUZZ_SECONDS="${1:-3600}"
if [ -n "${2:-}" ]; then
    export WAVETRACE_FUZZ_SEED="$2"
fi
exec cargo test --release --test suite hostile_input::fuzzing_ -- --nocapture
