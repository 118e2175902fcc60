#!/usr/bin/env bash
# Mutation campaign over the real samples: N mutants, spread round-robin over every file in the
# samples folder. Each mutant is a copy of the file's profile folder (the outermost *_ascend_pt,
# else the nearest PROF_*, else the file's own folder) with one change to the file: a byte set to
# a random value, a byte set to an invalid UTF-8 lead (0xC3, 0xFF, 0x80), or the file cut at a
# random length. Then `info`, `analyze` and `advise`, each with --format json, run on it with a
# 20 s limit. Outcomes per run:
#   ok       exit 0 with JSON that a strict parser takes (UTF-8, no NaN), or exit 1 with a message
#   crash    a signal, a sanitizer report or an abort
#   hang     the 20 s limit
#   silent   a non-zero exit with nothing on stderr
#   badjson  exit 0 with output a strict JSON parser rejects
# Usage: scripts/mutate-samples.sh N [OUT_DIR]
#   NPUSCOPE_BIN      the binary (default build-asan/app/npuscope, else build/app/npuscope)
#   NPUSCOPE_SAMPLES  the samples folder (default ../shared/samples/real)
#   JOBS              parallel mutants (default nproc)
# Prints one line per failing run and a summary; failing mutants are kept under OUT_DIR/keep.
# Exits 1 when any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:?usage: scripts/mutate-samples.sh N [OUT_DIR]}"
out="${2:-$(mktemp -d /tmp/npuscope-mutants.XXXXXX)}"
bin="${NPUSCOPE_BIN:-}"
if [ -z "$bin" ]; then
  bin=build-asan/app/npuscope
  [ -x "$bin" ] || bin=build/app/npuscope
fi
bin="$(realpath "$bin")"
samples="$(realpath "${NPUSCOPE_SAMPLES:-../shared/samples/real}")"
jobs="${JOBS:-$(nproc)}"
# The system's python3 (a version manager's shim costs a shell pipeline per call).
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
export PY="$py"
mkdir -p "$out/keep" "$out/results"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export QT_QPA_PLATFORM=offscreen

mapfile -t files < <(find "$samples" -type f ! -name SOURCES.md ! -name '*.md' | LC_ALL=C sort)
printf '%s\n' "${files[@]}" >"$out/files.txt"
echo "mutate-samples: $n mutants over ${#files[@]} files, $jobs at a time, binary $bin, results in $out"

one() {
  local i="$1" bin="$2" samples="$3" out="$4"
  mapfile -t files <"$out/files.txt"
  local file="${files[$((i % ${#files[@]}))]}"
  # The profile folder the file belongs to.
  local root="" p
  p="$(dirname "$file")"
  while [ "$p" != "$samples" ] && [ "$p" != / ]; do
    case "$(basename "$p")" in *_ascend_pt) root="$p" ;; PROF_*) [ -n "$root" ] || root="$p" ;; esac
    p="$(dirname "$p")"
  done
  [ -n "$root" ] || root="$(dirname "$file")"
  local work="$out/work/$i"
  rm -rf "$work" && mkdir -p "$work"
  cp -r "$root" "$work/"
  chmod -R u+w "$work"
  local copy="$work/$(basename "$root")/${file#"$root"/}"
  local size
  size=$(stat -c %s "$copy")
  RANDOM=$((i * 7919 + 17))
  local r=$(((RANDOM << 15) | RANDOM)) what
  if [ "$size" -eq 0 ]; then
    printf 'x' >"$copy"
    what="filled empty file"
  elif ((i % 4 == 3)); then
    local len=$((r % size))
    truncate -s "$len" "$copy"
    what="cut at $len of $size"
  else
    local off=$((r % size)) val
    if ((i % 4 == 2)); then
      local leads=(195 255 128 237 240)
      val=${leads[$((RANDOM % 5))]}
    else
      val=$((RANDOM % 256))
    fi
    printf "$(printf '\\%03o' "$val")" | dd of="$copy" bs=1 seek="$off" conv=notrunc status=none
    what="byte $off set to $val"
  fi
  local target="$work/$(basename "$root")" verdicts="" failed=0
  local verb
  for verb in info analyze advise; do
    local args=("$verb" "$target" --format json)
    [ "$verb" = analyze ] && args=(analyze --import "$target" --format json)
    local rc=0
    timeout -k 5 20 "$bin" "${args[@]}" >"$work/$verb.out" 2>"$work/$verb.err" </dev/null || rc=$?
    local v=ok
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      v=hang
    elif [ "$rc" -ge 128 ] || grep -q -E "AddressSanitizer|runtime error:|terminate called|Aborted" "$work/$verb.err"; then
      v=crash
    elif [ "$rc" -ne 0 ] && [ ! -s "$work/$verb.err" ]; then
      v=silent
    elif [ "$rc" -eq 0 ] && ! "$PY" -c '
import json, sys
def bad(c): raise ValueError("non-standard constant " + c)
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), parse_constant=bad)' "$work/$verb.out" 2>/dev/null; then
      v=badjson
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
      v=silent
    fi
    verdicts+="$verb=$v "
    if [ "$v" != ok ]; then
      failed=1
      echo "FAIL $v: mutant $i (${file#"$samples"/}: $what): $verb exit $rc: $(head -c 300 "$work/$verb.err" | tr '\n' ' ')"
    fi
  done
  echo "$i ${file#"$samples"/} | $what | $verdicts" >"$out/results/$i"
  if [ "$failed" -eq 1 ]; then
    rm -rf "$out/keep/$i" && mv "$work" "$out/keep/$i"
  else
    rm -rf "$work"
  fi
}
export -f one

seq 0 $((n - 1)) | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} "$bin" "$samples" "$out"

total=$(cat "$out"/results/* | wc -l)
count() { cat "$out"/results/* | grep -o "=$1" | wc -l || true; }
echo "mutate-samples: $total mutants, $((total * 3)) runs: ok $(count ok), crash $(count crash), hang $(count hang)," \
     "silent $(count silent), badjson $(count badjson)"
[ "$(count crash)" -eq 0 ] && [ "$(count hang)" -eq 0 ] && [ "$(count silent)" -eq 0 ] && [ "$(count badjson)" -eq 0 ]
