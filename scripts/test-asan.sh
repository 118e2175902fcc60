#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI), in build-asan: clang,
# -O1 with assertions on and line tables only (-g1: reports keep file and line), every ctest test
# on the offscreen platform. The tree is configured with NPUSCOPE_FUZZ=ON, so it also holds the
# libFuzzer harnesses and scripts/fuzz-smoke.sh (NPUSCOPE_FUZZ_BUILD_DIR=build-asan) fuzzes from
# it instead of compiling the readers a third time. UBSan (clang's "undefined", which includes
# float-cast-overflow) stops at the first report, as ASan does.
# Leak checking is off (Qt and fontconfig keep process-lifetime allocations). Reports also go
# to build-asan/sanitizer-logs/, so one raised in a child process (the CLI tests run npuscope)
# fails the run even when the test itself passed. `cmake --preset asan` is the same check with
# GCC, without the harnesses.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DNPUSCOPE_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build build-asan -j"$(( $(nproc) + 1 ))"
logs="$PWD/build-asan/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:log_path=$logs/asan:log_exe_name=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan:log_exe_name=1"
status=0
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" --timeout 900 || status=$?
if [ -n "$(ls -A "$logs")" ]; then
  echo "sanitizer reports:" >&2
  for f in "$logs"/*; do echo "== $f" >&2; head -60 "$f" >&2; done
  exit 1
fi
exit "$status"
