#!/usr/bin/env bash
# fuzz.sh -- build every libFuzzer target in fuzz/ with clang and run each
# one for a bounded time on a copy of its seed corpus.  scripts/test.sh runs
# it (30 s a target) so that every CI run fuzzes a little; run it by hand
# for longer.  Exits non-zero if a target fails to build or finds a crash,
# a leak or undefined behaviour (its reproducer is kept under DIR/fuzz/).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${XAB_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
SECONDS_EACH=30
JOBS=${XAB_JOBS:-2}
ONLY=""
MODE=all  # all | build | run

usage() {
  cat <<EOF
Usage: scripts/fuzz.sh [--seconds N] [--only NAME] [--build-dir DIR]
Configure DIR (default build-fuzz/) with clang and -DXAB_FUZZ=ON, build every
fuzz_* target of fuzz/, and run each for N seconds (default $SECONDS_EACH) on a
fresh copy of its seed corpus, with its dictionary when it has one, XAB_JOBS
targets at a time.

  --seconds N      how long each target runs (1..86400)
  --only NAME      build and run only this target (e.g. fuzz_trace_reader)
  --build-dir DIR  build here instead of build-fuzz/
  --build-only     configure and build, run nothing
  --run-only       run what an earlier --build-only built
  -h, --help       this text
Environment: XAB_JOBS (parallel build jobs and targets run at once, default 2),
XAB_FUZZ_BUILD_DIR.

Examples:
  1. scripts/fuzz.sh
  2. scripts/fuzz.sh --seconds 600 --only fuzz_trace_reader
  3. scripts/fuzz.sh --build-dir /tmp/fz --seconds 5
  4. scripts/fuzz.sh --build-only && scripts/fuzz.sh --run-only --seconds 5
EOF
}

die() { echo "fuzz.sh: error: $*" >&2; exit 2; }

parse_args() {
  while (($#)); do
    case $1 in
      --seconds)
        [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 1 && $2 -le 86400 ]] || die "--seconds takes 1..86400"
        SECONDS_EACH=$2; shift ;;
      --only) [[ $# -ge 2 ]] || die "--only needs a target name"; ONLY=$2; shift ;;
      --build-dir) [[ $# -ge 2 ]] || die "--build-dir needs a directory"; BUILD_DIR=$2; shift ;;
      --build-only) MODE=build ;;
      --run-only) MODE=run ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
}

configure() {
  command -v clang++ >/dev/null || die "clang++ not found (scripts/setup.sh --no-build installs it)"
  local gen=()
  [[ -f $BUILD_DIR/CMakeCache.txt ]] || gen=(-G Ninja)
  # Line tables (-g1) are what a crash's stack needs; the parts' sources
  # compile a batch at a time (cmake/XabUnity.cmake).
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DXAB_FUZZ=ON \
    -DXAB_BUILD_VIEWER=OFF -DXAB_BUILD_FORTRAN=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON >/dev/null
}

# The fuzz targets, as ninja names their outputs (fuzz/fuzz_NAME).
targets() {
  ninja -C "$BUILD_DIR" -t targets all | sed -n 's|^\(fuzz/fuzz_[A-Za-z0-9_]*\): .*EXECUTABLE.*|\1|p' | sort -u
}

run_one() {  # fuzz/fuzz_NAME
  local exe=$BUILD_DIR/$1 name=${1#fuzz/}
  local seeds=$BUILD_DIR/fuzz/corpus-$name work
  [[ -d $seeds ]] || seeds=$BUILD_DIR/fuzz/corpus
  work=$(mktemp -d "${TMPDIR:-/tmp}/xab-$name.XXXXXX") || return 1
  cp -r "$seeds"/. "$work"/ 2>/dev/null
  local dict=() d=$ROOT/fuzz/${name#fuzz_}.dict
  [[ -f $d ]] || d=$ROOT/fuzz/trace.dict
  [[ $name == fuzz_trace_reader || -f $ROOT/fuzz/${name#fuzz_}.dict ]] && dict=(-dict="$d")
  echo "fuzz.sh: $name for ${SECONDS_EACH}s (seeds: $(find "$seeds" -type f | wc -l))"
  local rc=0
  (cd "$BUILD_DIR/fuzz" && "$exe" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
    "${dict[@]}" "$work" 2>"$BUILD_DIR/fuzz/$name.log") || rc=$?
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' "$BUILD_DIR/fuzz/$name.log" | sed "s/^/fuzz.sh: $name: /"
  rm -rf "$work"
  if ((rc != 0)); then
    echo "fuzz.sh: $name FAILED (exit $rc); log: $BUILD_DIR/fuzz/$name.log" >&2
    tail -40 "$BUILD_DIR/fuzz/$name.log" >&2
  fi
  return "$rc"
}

main() {
  parse_args "$@"
  # Absolute: each target runs from its fuzz/ directory.
  BUILD_DIR=$(realpath -m "$BUILD_DIR")
  if [[ $MODE == run ]]; then
    [[ -f $BUILD_DIR/build.ninja ]] || die "nothing built in $BUILD_DIR (run --build-only first)"
  else
    configure || die "configuring $BUILD_DIR failed"
  fi
  local list
  mapfile -t list < <(targets)
  ((${#list[@]})) || die "no fuzz_* targets in $BUILD_DIR"
  if [[ -n $ONLY ]]; then
    [[ " ${list[*]} " == *" fuzz/$ONLY "* ]] || die "no target $ONLY (have: ${list[*]#fuzz/})"
    list=("fuzz/$ONLY")
  fi
  if [[ $MODE != run ]]; then
    ninja -C "$BUILD_DIR" -j "$JOBS" "${list[@]}" || die "building the fuzz targets failed"
  fi
  [[ $MODE == build ]] && return 0
  # XAB_JOBS targets at once: each runs single-threaded, so on CI's two
  # cores two of them take the time of one.
  local t failed=0 running=0
  for t in "${list[@]}"; do
    if ((running >= JOBS)); then
      wait -n || failed=1
      running=$((running - 1))
    fi
    run_one "$t" &
    running=$((running + 1))
  done
  while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
  done
  return "$failed"
}

main "$@"
