#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI): the "asan" preset of
# CMakePresets.json in build-asan (line tables only, -g1: reports keep file and line), every ctest test on the offscreen platform. UBSan (with
# float-cast-overflow, which GCC leaves out of "undefined": a double cast to an integer it does
# not fit) stops at the first report (-fno-sanitize-recover, halt_on_error); ASan always does.
# Leak checking is off (Qt and fontconfig keep process-lifetime allocations). Reports also go
# to build-asan/sanitizer-logs/, so one raised in a child process (the CLI tests run npuscope)
# fails the run even when the test itself passed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan -j"$(( $(nproc) + 1 ))"
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
