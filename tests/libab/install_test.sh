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
echo "install, pkg-config and find_package(xab) all work"
