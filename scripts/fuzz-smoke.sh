#!/usr/bin/env bash
# Fuzz smoke test (CI): builds the libFuzzer harnesses of fuzz/ with clang (ASan + UBSan) in
# build-fuzz, replays every committed crash input in fuzz/regressions/, then fuzzes each harness
# for FUZZ_SECONDS (default 20), one harness per core at a time, from the seeds fuzz/seed.sh
# makes out of the real samples (the end-to-end pipeline harness from its committed corpus,
# fuzz/corpus/pipeline).
# NPUSCOPE_FUZZ_BUILD_DIR=build-asan (CI) takes the harnesses from scripts/test-asan.sh's tree,
# which is configured with NPUSCOPE_FUZZ=ON, instead of configuring build-fuzz.
# Fails on any crash, leak, sanitizer report or hang; new crash inputs land in
# build-fuzz/artifacts/<harness>/ (copy them to fuzz/regressions/<harness>/ with the fix).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
seconds="${FUZZ_SECONDS:-20}"
jobs="$(nproc)"
bin_dir="${NPUSCOPE_FUZZ_BUILD_DIR:-build-fuzz}"
if [ "$bin_dir" = build-fuzz ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR="$PWD"
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # Line tables only (-g1): enough for symbolized reports, and far less to compile and link; -O1,
  # as the sanitizers advise, compiles faster than -O2 and fuzzes about as fast.
  cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER=clang++ -DNPUSCOPE_FUZZ=ON -DNPUSCOPE_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
elif ! grep -q '^NPUSCOPE_FUZZ:BOOL=ON' "$bin_dir/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz-smoke: $bin_dir is not configured with -DNPUSCOPE_FUZZ=ON" >&2
  exit 1
fi
cmake --build "$bin_dir" -j"$((jobs + 1))" --target fuzzers
mkdir -p build-fuzz
bash fuzz/seed.sh build-fuzz/seeds >/dev/null

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# harness:max_len (bytes); SQLite needs whole pages.
harnesses=(timeline_json:65536 simplified_json:16384 kernel_csv:32768 table_csv:32768
           comm_json:32768 info_json:8192 sqlite_db:1048576 pipeline:65536)
# One harness: replay its regressions, then fuzz it. Its verdict goes to build-fuzz/verdict-<h>.
fuzz_one() {
  local h="${1%%:*}" len="${1##*:}"
  local bin="$bin_dir/fuzz/fuzz_$h" regressions="fuzz/regressions/$h" verdict="build-fuzz/verdict-$h"
  echo failed >"$verdict"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if ! "$bin" -runs=0 -timeout=30 "$regressions" >"build-fuzz/replay-$h.log" 2>&1; then
      { echo "== $h: a regression input fails"; tail -40 "build-fuzz/replay-$h.log"; } >"build-fuzz/report-$h"
      echo "failed (regression)" >"$verdict"; return
    fi
  fi
  local corpus="build-fuzz/corpus/$h" seeds="build-fuzz/seeds/$h"
  [ "$h" = pipeline ] && seeds="fuzz/corpus/pipeline" # committed: one seed per real sample file
  mkdir -p "$corpus" "build-fuzz/artifacts/$h"
  if ! "$bin" -max_total_time="$seconds" -max_len="$len" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="build-fuzz/artifacts/$h/" -print_final_stats=1 \
       "$corpus" "$seeds" >"build-fuzz/fuzz-$h.log" 2>&1; then
    { echo "== $h: fuzzing failed"; tail -60 "build-fuzz/fuzz-$h.log"; } >"build-fuzz/report-$h"; return
  fi
  { echo "== $h: regressions replayed, fuzzed ${seconds}s"
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/fuzz-$h.log" | tr '\n' ' ' || true; echo; } >"build-fuzz/report-$h"
  echo passed >"$verdict"
}
# The harnesses run side by side, one per core; their reports are printed in order afterwards.
running=0
for entry in "${harnesses[@]}"; do
  fuzz_one "$entry" &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
done
wait
failed=()
for entry in "${harnesses[@]}"; do
  h="${entry%%:*}"
  cat "build-fuzz/report-$h" 2>/dev/null || true
  verdict="$(cat "build-fuzz/verdict-$h")"
  [ "$verdict" = passed ] || failed+=("$h ($verdict)")
done
if ((${#failed[@]})); then
  echo "fuzz smoke: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: ${#harnesses[@]} passed, 0 failed"
