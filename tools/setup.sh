#!/usr/bin/env bash
# Installs what wavetrace needs to build and to run its tests on Debian 12 / Ubuntu.
# Idempotent: a second run installs nothing. Rust itself is out of scope: install it
# with rustup (https://rustup.rs) before running this.
#
# On a machine without a GPU, Vulkan runs on Mesa's lavapipe. Ray tracing in lavapipe
# needs Mesa 24.1 or later; on Debian 12 that comes from bookworm-backports. A machine
# that already has a GPU driver keeps it: we only add Mesa's packages, which install
# their own ICD beside the vendor's, and never remove or pin anything else.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "setup.sh: needs root (or sudo) to install packages" >&2; exit 1
  fi
else
  SUDO=
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup.sh: cargo not found. Install Rust first (https://rustup.rs); this script does not." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Build tools for shaderc's build-from-source (cmake, ninja, python3, a C++ compiler),
# the Vulkan loader and the Khronos validation layer; for the viewer's tests a virtual X
# server, input, drag and drop and screenshots (xvfb, xdotool, python3-xlib, xwd from
# x11-apps) and RenderDoc's capture tool (its layer loads only when
# ENABLE_VULKAN_RENDERDOC_CAPTURE=1); for the farm tools' tests python3-venv (Ray's virtual
# environment) and nodejs (the Flamenco job type's compiler, run outside Flamenco).
packages=(cmake ninja-build python3 g++ pkg-config libvulkan1 vulkan-validationlayers vulkan-tools
  xvfb xdotool python3-xlib x11-apps renderdoccmd python3-venv nodejs)
# CI compiles shaderc's C++ with clang (tools/test.sh says why).
if [ "${CI:-}" = true ]; then packages+=(clang); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

updated=0
apt_update() { if [ "$updated" -eq 0 ]; then $SUDO apt-get update -qq; updated=1; fi; }

if [ "${#missing[@]}" -gt 0 ]; then
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Mesa's version as the package manager knows it (empty when not installed).
mesa_version() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true; }
mesa_is_new_enough() {
  local v; v=$(mesa_version)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 24.1
}

if ! mesa_is_new_enough; then
  . /etc/os-release
  if [ "${ID:-}" = debian ] && [ "${VERSION_CODENAME:-}" = bookworm ]; then
    list=/etc/apt/sources.list.d/wavetrace-bookworm-backports.list
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee "$list" >/dev/null
      updated=0
    fi
    apt_update
    $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers
  else
    # Ubuntu 24.04 and Debian 13 ship Mesa 24.x or newer in their own archive.
    apt_update
    $SUDO apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers
  fi
  if ! mesa_is_new_enough; then
    echo "setup.sh: mesa-vulkan-drivers $(mesa_version) is older than 24.1; lavapipe will lack ray tracing." >&2
    echo "setup.sh: a GPU driver with ray tracing still works; tests need one or the other." >&2
  fi
fi

# Ray, for the farm driver (tools/farm/ray_render.py) and its test, in a virtual environment of
# the system's Python, pinned by tools/farm/requirements.txt; reinstalled when that changes.
farm=tools/farm/.venv
cd "$(dirname "$0")/.."
if ! cmp -s tools/farm/requirements.txt "$farm/requirements.txt" 2>/dev/null; then
  /usr/bin/python3 -m venv "$farm"
  "$farm/bin/pip" install --quiet --disable-pip-version-check -r tools/farm/requirements.txt
  cp tools/farm/requirements.txt "$farm/requirements.txt"
fi

echo "setup.sh: ready (mesa-vulkan-drivers $(mesa_version), $("$farm/bin/python" -c 'import ray; print("ray", ray.__version__)'))"
