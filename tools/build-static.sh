#!/usr/bin/env bash
# Build the command line for the fastest process start: a static, non-PIE executable
# (no dynamic loader, no load-time relocations) with whole-program LTO (the `dist` profile).
# A robot stack or a benchmark script that starts `safeplan validate` once per plan gains
# about a third of the start time (docs/benchmarks.md, "Against VAL, per process").
#
#   tools/build-static.sh          # prints the path of the binary it built
#
# It builds both executables of the package into one folder: `safeplan` (the core commands)
# and `safeplan-full` (every command; `safeplan` hands the others to it). Copy both.
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
echo "target/static/$host/dist/safeplan"
