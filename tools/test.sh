#!/usr/bin/env bash
# Runs the whole test suite with the Khronos validation layer on, after installing what it
# needs (tools/setup.sh). On a machine without a GPU the tests run on Mesa's lavapipe.
# This is the README's test command and the only thing CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh

# Every test context turns validation on itself; the variable also covers the CLI tests.
export WAVETRACE_VALIDATION=1
export RUST_BACKTRACE=1
if [ "${CI:-}" = true ]; then
  # CI builds a clean clone once: incremental state and line tables are time spent for
  # nothing there (panic messages keep their file and line without them).
  export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0
  # shaderc's C++ (glslang, SPIRV-Tools: some 370 files, front-end bound) is most of a clean
  # build, and clang compiles it in about two thirds of GCC's time. Only here: elsewhere a
  # compiler that changed between builds would rebuild it.
  if [ -z "${CXX:-}" ]; then export CC=clang CXX=clang++; fi
fi

cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --all-targets --locked "$@"
