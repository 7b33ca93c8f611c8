#!/usr/bin/env bash
# The C API (crates/safeplan-capi) as C and C++ users get it: the CMake package built with
# cargo and installed into a prefix; the C test and the examples compiled against the
# installed header and library with -Wall -Wextra -Werror and run under AddressSanitizer and
# UndefinedBehaviorSanitizer (and valgrind); the static library; pkg-config; and a downstream
# CMake project that only does find_package(safeplan CONFIG REQUIRED). Installs what is
# missing with apt (below).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# What the checks need: cmake and pkg-config, a C and C++ compiler with the sanitizers'
# runtimes (gcc's libasan and libubsan), and valgrind where it installs.
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
if ! echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o /dev/null - >/dev/null 2>&1; then
  need+=(gcc g++)
fi
if [ "${#need[@]}" -gt 0 ]; then
  (apt-get update -qq && apt-get install -y -qq "${need[@]}") >/dev/null
fi
command -v valgrind >/dev/null 2>&1 || (apt-get install -y -qq valgrind >/dev/null 2>&1 || echo "valgrind does not install here: the valgrind run is left out")
build=$root/target/capi-build
prefix=$root/target/capi-prefix
rm -rf "$prefix"
cmake -S crates/safeplan-capi -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$build"
cmake --install "$build" >/dev/null
lib=$prefix/lib
[ -d "$lib" ] || lib=$prefix/lib64

warn=(-Wall -Wextra -Werror)
san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== C test (shared library, ASan + UBSan)"
cc -std=c11 "${warn[@]}" "${san[@]}" -I"$prefix/include" crates/safeplan-capi/tests/c/test_capi.c \
  -L"$lib" -lsafeplan_c -Wl,-rpath,"$lib" -lpthread -o "$build/test_capi"
"$build/test_capi" "$root"

echo "== C test (static library, ASan + UBSan)"
cc -std=c11 "${warn[@]}" "${san[@]}" -I"$prefix/include" crates/safeplan-capi/tests/c/test_capi.c \
  "$lib/libsafeplan_c.a" -lpthread -ldl -lm -lrt -lutil -o "$build/test_capi_static"
"$build/test_capi_static" "$root"

if command -v valgrind >/dev/null 2>&1; then
  echo "== C test under valgrind (no sanitizers)"
  cc -std=c11 -g "${warn[@]}" -I"$prefix/include" crates/safeplan-capi/tests/c/test_capi.c \
    -L"$lib" -lsafeplan_c -Wl,-rpath,"$lib" -lpthread -o "$build/test_capi_plain"
  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    "$build/test_capi_plain" "$root"
fi

echo "== C example, through pkg-config"
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 "${warn[@]}" "${san[@]}" crates/safeplan-capi/examples/validate.c \
  $(pkg-config --cflags --libs safeplan) -Wl,-rpath,"$lib" -o "$build/validate"
"$build/validate" examples/tasks/hot-soup/domain.pddl examples/tasks/hot-soup/problem.pddl examples/tasks/hot-soup/safe.plan
set +e
"$build/validate" examples/tasks/hot-soup/domain.pddl examples/tasks/hot-soup/problem.pddl examples/tasks/hot-soup/unsafe.plan
status=$?
set -e
[ "$status" -eq 1 ] || { echo "validate: the unsafe plan must exit 1, got $status"; exit 1; }

echo "== C fuzz harness over every entry point (ASan + LeakSanitizer + UBSan, 20 s)"
cc -std=c11 "${warn[@]}" "${san[@]}" -I"$prefix/include" crates/safeplan-capi/tests/c/fuzz_capi.c \
  -L"$lib" -lsafeplan_c -Wl,-rpath,"$lib" -lm -o "$build/fuzz_capi"
"$build/fuzz_capi" "$root" 45 20

echo "== C++ error paths (ASan + LeakSanitizer + UBSan)"
c++ -std=c++17 "${warn[@]}" "${san[@]}" -I"$prefix/include" crates/safeplan-capi/tests/cpp/test_errors.cpp \
  -L"$lib" -lsafeplan_c -Wl,-rpath,"$lib" -o "$build/test_errors_cpp"
"$build/test_errors_cpp"

echo "== C++ robot executive (ASan + UBSan): stops before the unsafe start"
c++ -std=c++17 "${warn[@]}" "${san[@]}" -I"$prefix/include" crates/safeplan-capi/examples/robot_executive.cpp \
  -L"$lib" -lsafeplan_c -Wl,-rpath,"$lib" -o "$build/robot_executive"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/robot_executive" examples/temporal/hot-drink-carry/domain.pddl examples/temporal/hot-drink-carry/problem.pddl \
  examples/temporal/hot-drink-carry/plans/safe.plan
set +e
"$build/robot_executive" examples/temporal/hot-drink-carry/domain.pddl examples/temporal/hot-drink-carry/problem.pddl \
  examples/temporal/hot-drink-carry/plans/unsafe.plan | tee "$tmp/executive.txt"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 1 ] || { echo "robot_executive: the unsafe plan must stop (exit 1), got $status"; exit 1; }
grep -q "STOP at 2.01 before starting (carry tea kitchen hallway)" "$tmp/executive.txt"
grep -q "danger 0 -> 1" "$tmp/executive.txt"

echo "== downstream CMake project: find_package(safeplan CONFIG REQUIRED)"
cmake -S crates/safeplan-capi/tests/downstream -B "$build/downstream" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/downstream"
"$build/downstream/validate" examples/tasks/hot-soup/domain.pddl examples/tasks/hot-soup/problem.pddl examples/tasks/hot-soup/safe.plan
"$build/downstream/validate_static" examples/tasks/hot-soup/domain.pddl examples/tasks/hot-soup/problem.pddl examples/tasks/hot-soup/safe.plan
"$build/downstream/robot_executive" examples/temporal/hot-drink-carry/domain.pddl examples/temporal/hot-drink-carry/problem.pddl \
  examples/temporal/hot-drink-carry/plans/safe.plan >/dev/null
echo "C API: all checks passed"
