#!/usr/bin/env bash
# setup.sh -- install what xab needs on Debian bookworm, then build it.
#
# Installs only the packages that are missing (a second run makes no apt
# call at all), as root directly or through sudo, non-interactively; then
# configures and builds with CMake and Ninja.
set -euo pipefail

# The one list of Debian packages xab needs.  Parts that need more add them
# here (and say so in their commit).
PACKAGES=(
  # toolchain
  cmake ninja-build pkg-config g++ gfortran shellcheck
  # rebuilds of unchanged sources from a cache (CMakeLists.txt, XAB_CCACHE)
  ccache
  # fuzz/ (scripts/fuzz.sh): clang and its libFuzzer/sanitizer runtimes
  clang libclang-rt-dev
  # scripts/lint.sh: the one naming style of the C++ (.clang-tidy)
  clang-tidy
  # PVM 3.4 (pvmd, pvm console, pvmgs, libpvm3/libgpvm3/libfpvm3)
  pvm pvm-dev
  # PVM's own example programs: tests/examples, libab's and abstat's tests
  # build them from their sources
  pvm-examples
  # libraries: abmon (Boost.Asio, spdlog), tests (Catch2 v2), translators (OTF2)
  libboost-dev libspdlog-dev catch2 libotf2-trace-dev otf2-tools
  # compressed traces: abmon writes zstd; every reader opens zstd and gzip
  libzstd-dev zlib1g-dev
  # xabview (Qt 6) and a display to test it on; xdpyinfo for demo.sh
  qt6-base-dev qt6-svg-dev xvfb xauth x11-utils
  # scripts/pvm-hosts.sh (tests/multihost): namespaces, bridge and veths
  # (ip, nsenter, unshare), packet loss (nft), delay (iptables NFQUEUE and
  # tools/nfqdelay), clock skew (libfaketime); python3 reads abstat's JSON
  iproute2 util-linux nftables iptables libnetfilter-queue-dev faketime python3
)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${XAB_BUILD_DIR:-$ROOT/build}
JOBS=${XAB_JOBS:-2}
DO_BUILD=1
CMAKE_ARGS=()

usage() {
  cat <<EOF
Usage: scripts/setup.sh [--no-build] [--build-dir DIR] [-- CMAKE_ARGS...]
Install the Debian packages xab needs (only those missing), then configure
and build xab in DIR (default: build/, or \$XAB_BUILD_DIR) with Ninja.

  --no-build       only install packages
  --build-dir DIR  build here instead of build/
  -h, --help       this text
Environment: XAB_JOBS (parallel build jobs, default 2), XAB_BUILD_DIR.

Examples:
  1. scripts/setup.sh
  2. scripts/setup.sh --build-dir build-debug -- -DCMAKE_BUILD_TYPE=Debug
  3. scripts/setup.sh --no-build
EOF
}

log() { echo "setup.sh: $*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

parse_args() {
  while (($#)); do
    case $1 in
      --no-build) DO_BUILD=0 ;;
      --build-dir) [[ $# -ge 2 ]] || die "--build-dir needs a directory"; BUILD_DIR=$2; shift ;;
      -h | --help) usage; exit 0 ;;
      --) shift; CMAKE_ARGS=("$@"); break ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
}

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

install_packages() {
  command -v dpkg-query >/dev/null || die "this is not a Debian system (no dpkg-query)"
  local missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    log "all ${#PACKAGES[@]} packages are installed"
    return
  fi
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || die "not root and no sudo: install as root: apt-get install ${missing[*]}"
    sudo=(sudo)
  fi
  log "installing: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  local gen=()
  # An existing build dir keeps its generator; a new one gets Ninja.
  [[ -f $BUILD_DIR/CMakeCache.txt ]] || gen=(-G Ninja)
  log "configuring $BUILD_DIR"
  cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" "${CMAKE_ARGS[@]}"
  log "building $BUILD_DIR (-j$JOBS)"
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

main() {
  parse_args "$@"
  install_packages
  if ((DO_BUILD)); then build; fi
  log "done"
}

main "$@"
