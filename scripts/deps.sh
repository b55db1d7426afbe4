#!/usr/bin/env bash
# Installs the Debian 12 packages plumb needs. Idempotent: only missing packages are installed.
# Uses sudo when not root.
#   scripts/deps.sh build   what building and running plumb needs (compiler, CMake, the -dev libraries
#                           the binary links, dpkg-dev for the package's dependencies): a minute or two
#   scripts/deps.sh test    the build set plus the test tool-chain (GoogleTest, clang, PyTorch, Open MPI,
#                           Prometheus, Slurm, nginx, Chromium, ...) the real-component tests drive
#   scripts/deps.sh         both (the same as test)
set -euo pipefail
BUILD_PKGS=(
  build-essential cmake ninja-build pkg-config dpkg-dev
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libsimdjson-dev libpugixml-dev
  zlib1g-dev libisal-dev libsqlite3-dev libvectorscan-dev
)
TEST_PKGS=(
  git lld
  libjpeg62-turbo-dev libturbojpeg0-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang clang-tidy clang-format libclang-rt-14-dev
  python3 python3-torch python3-numpy libhdf5-103-1
  openmpi-bin libopenmpi-dev
  prometheus wrk mbw fio curl time chromium
  slurm-wlm munge nginx-light
  man-db groff-base zsh systemd python3-yaml
  postgresql-15 libpq5
)
case "${1:-all}" in
  build) PKGS=("${BUILD_PKGS[@]}") ;;
  test | all) PKGS=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
  *)
    echo "usage: scripts/deps.sh [build|test]" >&2
    exit 2
    ;;
esac
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
