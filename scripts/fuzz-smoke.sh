#!/usr/bin/env bash
# Fuzz smoke test (CI): builds the libFuzzer harnesses of fuzz/ with clang (ASan + UBSan) in
# build-fuzz, replays every committed crash input in fuzz/regressions/, then fuzzes each harness
# for FUZZ_SECONDS (default 20) from the seeds fuzz/seed.sh makes out of the real samples (the
# end-to-end pipeline harness from its committed corpus, fuzz/corpus/pipeline).
# Fails on any crash, leak, sanitizer report or hang; new crash inputs land in
# build-fuzz/artifacts/<harness>/ (copy them to fuzz/regressions/<harness>/ with the fix).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
seconds="${FUZZ_SECONDS:-20}"
jobs="$(nproc)"
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Line tables only (-g1): enough for symbolized reports, and far less to compile and link.
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ -DNPUSCOPE_FUZZ=ON -DNPUSCOPE_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzzers
bash fuzz/seed.sh build-fuzz/seeds >/dev/null

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# harness:max_len (bytes); SQLite needs whole pages.
harnesses=(timeline_json:65536 simplified_json:16384 kernel_csv:32768 table_csv:32768
           comm_json:32768 info_json:8192 sqlite_db:1048576 pipeline:65536)
failed=()
for entry in "${harnesses[@]}"; do
  h="${entry%%:*}" len="${entry##*:}"
  bin="build-fuzz/fuzz/fuzz_$h"
  regressions="fuzz/regressions/$h"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== $h: replaying $(ls "$regressions" | wc -l) regression inputs"
    if ! "$bin" -runs=0 -timeout=30 "$regressions" >"build-fuzz/replay-$h.log" 2>&1; then
      tail -40 "build-fuzz/replay-$h.log"; failed+=("$h (regression)"); continue
    fi
  fi
  echo "== $h: fuzzing ${seconds}s"
  corpus="build-fuzz/corpus/$h"
  seeds="build-fuzz/seeds/$h"
  [ "$h" = pipeline ] && seeds="fuzz/corpus/pipeline" # committed: one seed per real sample file
  mkdir -p "$corpus" "build-fuzz/artifacts/$h"
  if ! "$bin" -max_total_time="$seconds" -max_len="$len" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="build-fuzz/artifacts/$h/" -print_final_stats=1 \
       "$corpus" "$seeds" >"build-fuzz/fuzz-$h.log" 2>&1; then
    tail -60 "build-fuzz/fuzz-$h.log"; failed+=("$h")
  else
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/fuzz-$h.log" | tr '\n' ' '; echo
  fi
done
if ((${#failed[@]})); then
  echo "fuzz smoke: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: ${#harnesses[@]} passed, 0 failed"
