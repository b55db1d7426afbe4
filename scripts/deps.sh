#!/usr/bin/env bash
# Installs the Debian 12 packages plumb needs to build, test and run its real-component tests.
# Idempotent: only missing packages are installed. Uses sudo when not root.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git lld
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libsimdjson-dev libpugixml-dev
  zlib1g-dev libsqlite3-dev libjpeg62-turbo-dev libturbojpeg0-dev libvectorscan-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang clang-tidy clang-format libclang-rt-14-dev
  python3 python3-torch python3-numpy libhdf5-103-1
  openmpi-bin libopenmpi-dev
  prometheus wrk mbw fio curl time chromium
  slurm-wlm munge nginx-light
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "plumb: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
