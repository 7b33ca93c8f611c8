#!/usr/bin/env bash
# Build the command line for the fastest process start: a static, non-PIE executable
# (no dynamic loader, no load-time relocations) with whole-program LTO (the `dist` profile).
# A robot stack or a benchmark script that starts `safeplan validate` once per plan gains
# about a third of the start time (docs/benchmarks.md, "Against VAL, per process").
#
#   tools/build-static.sh          # prints the path of the binary it built
#
# It builds both executables of the package into one folder: `safeplan` (the core commands)
# and `safeplan-full` (every command; `safeplan` hands the others to it). Copy both (and their
# `.debug` files, for profiling with line numbers).
#
# Linux with glibc only. The LLM subcommands of a static glibc binary resolve host names
# through the system's NSS modules at run time, so build it on the machine (or the glibc
# version) it runs on; validation, checking and planning need nothing from the system.
set -euo pipefail
cd "$(dirname "$0")/.."
host="$(rustc -vV | sed -n 's/^host: //p')"
case "$host" in
  *-linux-gnu) ;;
  *) echo "tools/build-static.sh: Linux with glibc only (this is $host); use cargo build --release" >&2; exit 2 ;;
esac
# The flags go to the target only (--target), so build scripts and proc macros still link
# dynamically.
RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static" \
  cargo build --profile dist -p safeplan-cli --target "$host" --target-dir target/static >&2
dist="target/static/$host/dist"
# The line tables move to NAME.debug beside each executable, which a gnu-debuglink names:
# perf, gdb and addr2line still find them there. The executable without them starts with
# fewer page faults (100 → 87 on a DESPITE-size validate; docs/benchmarks.md).
if command -v objcopy >/dev/null 2>&1; then
  for exe in safeplan safeplan-full; do
    # Already split (cargo found nothing to rebuild): splitting again would empty the .debug.
    if readelf -S "$dist/$exe" 2>/dev/null | grep -q gnu_debuglink; then
      continue
    fi
    objcopy --only-keep-debug "$dist/$exe" "$dist/$exe.debug"
    objcopy --strip-debug --add-gnu-debuglink="$dist/$exe.debug" "$dist/$exe"
  done
else
  echo "tools/build-static.sh: objcopy (binutils) not found: the executables keep their line tables" >&2
fi
echo "$dist/safeplan"
