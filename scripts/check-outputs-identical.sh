#!/usr/bin/env bash
# Checks that a refactoring left the command line's outputs as they were: runs `info --format
# json`, `analyze` (its default metric and format, then --metric memory_bandwidth,
# communication_duration and memory, and --format json) and `advise --format json` on every
# input, and compares stdout, stderr and the exit code byte for byte with a baseline.
#
#   scripts/check-outputs-identical.sh --record BASELINE_DIR BINARY [EXTRA_INPUT]...
#       writes the baseline: the inputs are every profile root found under the samples folder
#       (NPUSCOPE_SAMPLES_DIR, default ../shared/samples/real: folders named
#       ASCEND_PROFILER_OUTPUT (their parent is the root), PROF_*, *_ascend_pt, device_*, and the
#       folders holding several *_ascend_pt ranks), then EXTRA_INPUT (a generated profile, a
#       single trace file). The list is kept in BASELINE_DIR/inputs.txt.
#   scripts/check-outputs-identical.sh BASELINE_DIR BINARY
#       runs the same commands on the same inputs and names every output that differs.
#
# No output of these commands carries a wall-clock time (load times are printed by `bench`
# only), so nothing is filtered out before comparing.
set -euo pipefail

record=0
if [[ "${1:-}" == "--record" ]]; then
    record=1
    shift
fi
if [[ $# -lt 2 ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
base="$1"
bin="$(realpath "$2")"
shift 2
here="$(cd "$(dirname "$0")/.." && pwd)"
samples="${NPUSCOPE_SAMPLES_DIR:-$here/../shared/samples/real}"

commands=(
    "info --format json"
    "analyze --import"
    "analyze --metric memory_bandwidth --import"
    "analyze --metric communication_duration --import"
    "analyze --metric memory --import"
    "analyze --format json --top 50 --import"
    "advise --format json"
)

if [[ $record == 1 ]]; then
    mkdir -p "$base"
    {
        find "$samples" -type d -name ASCEND_PROFILER_OUTPUT -printf '%h\n'
        find "$samples" -type d \( -name 'PROF_*' -o -name '*_ascend_pt' -o -name 'device_*' \) -print
        find "$samples" -type d -name '*_ascend_pt' -printf '%h\n'
    } | sort -u | grep -v '/ASCEND_PROFILER_OUTPUT$' >"$base/inputs.txt"
    for extra in "$@"; do
        realpath "$extra" >>"$base/inputs.txt"
    done
fi
[[ -s "$base/inputs.txt" ]] || { echo "check-outputs-identical: no $base/inputs.txt (record first)" >&2; exit 2; }

n=0
differ=0
while IFS= read -r input; do
    for ci in "${!commands[@]}"; do
        read -r -a cmd <<<"${commands[$ci]}"
        key="$(printf '%s' "$input" | md5sum | cut -c1-12)-$ci"
        out="$(mktemp)"
        err="$(mktemp)"
        set +e
        "$bin" "${cmd[@]}" "$input" >"$out" 2>"$err"
        rc=$?
        set -e
        n=$((n + 1))
        if [[ $record == 1 ]]; then
            mv "$out" "$base/$key.out"
            mv "$err" "$base/$key.err"
            echo "$rc" >"$base/$key.rc"
            printf '%s\t%s\t%s\n' "$key" "${commands[$ci]}" "$input" >>"$base/index.tsv"
            continue
        fi
        for part in out err; do
            file="$out"
            [[ $part == err ]] && file="$err"
            if ! cmp -s "$file" "$base/$key.$part"; then
                echo "DIFFERS ($part): npuscope ${commands[$ci]} $input" >&2
                diff <(head -c 200000 "$base/$key.$part") <(head -c 200000 "$file") | head -20 >&2 || true
                differ=$((differ + 1))
            fi
        done
        if [[ "$rc" != "$(cat "$base/$key.rc")" ]]; then
            echo "DIFFERS (exit code $(cat "$base/$key.rc") -> $rc): npuscope ${commands[$ci]} $input" >&2
            differ=$((differ + 1))
        fi
        rm -f "$out" "$err"
    done
done <"$base/inputs.txt"

if [[ $record == 1 ]]; then
    echo "check-outputs-identical: recorded $n outputs of $(wc -l <"$base/inputs.txt") inputs in $base"
elif [[ $differ -gt 0 ]]; then
    echo "check-outputs-identical: $differ of $n outputs differ" >&2
    exit 1
else
    echo "check-outputs-identical: all $n outputs identical ($(wc -l <"$base/inputs.txt") inputs)"
fi
