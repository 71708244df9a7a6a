#!/usr/bin/env bash
# shellcheck disable=SC2086,SC2046  # $san and pkg-config output are word lists
# Installs xab from BUILD_DIR into a scratch prefix, then builds a user's
# program against it twice: with pkg-config and with find_package(xab).
set -euo pipefail
build_dir=$1 src_dir=$2
# A sanitizer build's libab.a needs the same -fsanitize at the user's link.
# $san and pkg-config's output are word lists: unquoted on purpose.
san=${XAB_SANITIZE:+-fsanitize=$XAB_SANITIZE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The build directory's own modules (PKG_CONFIG_PATH=BUILD), before any
# install: they name the build's libraries and the source tree's headers.
cc -Wall $san -c "$src_dir/consumer.c" -o "$work/consumer-b.o" $(PKG_CONFIG_PATH=$build_dir pkg-config --cflags xab)
cc $san "$work/consumer-b.o" -o "$work/consumer-build" $(PKG_CONFIG_PATH=$build_dir pkg-config --libs xab)
"$work/consumer-build" | grep -q '^3\.4'
if [[ -f $build_dir/f2x.pc ]]; then
  found=0
  for flag in $(PKG_CONFIG_PATH=$build_dir pkg-config --variable=fflags f2x); do
    [[ $flag == -I* && -f ${flag#-I}/fpvm3_free.h ]] && found=1
  done
  ((found)) || { echo "f2x.pc of $build_dir: no -I of fflags holds fpvm3_free.h" >&2; exit 1; }
fi
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -Wall $san -c "$src_dir/consumer.c" -o "$work/consumer.o" $(pkg-config --cflags xab)
cc $san "$work/consumer.o" -o "$work/consumer-pc" $(pkg-config --libs xab)
"$work/consumer-pc" | grep -q '^3\.4'
cmake -S "$src_dir" -B "$work/cm" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$work/cm" >/dev/null
"$work/cm/consumer" | grep -q '^3\.4'
test -f "$work/prefix/share/man/man3/xab.3"
echo "pkg-config in the build directory, install, pkg-config and find_package(xab) all work"
