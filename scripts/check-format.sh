#!/usr/bin/env bash
# Every C++ file of src/, app/, tests/, bench/ and fuzz/ as clang-format 14 writes it with the
# repository's .clang-format, but those scripts/format-pending.txt lists: the files written
# before the style was checked, each to be formatted (`clang-format -i FILE`) when next edited
# and its line removed then. A listed file that is now clean fails too, so the list only shrinks;
# so does a listed file that no longer exists. Exits 1 naming each breach.
# Usage: scripts/check-format.sh [SOURCE_DIR]; CLANG_FORMAT=... picks the binary.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
pending_file=scripts/format-pending.txt

tool="${CLANG_FORMAT:-}"
if [ -z "$tool" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null; then tool="$candidate"; break; fi
  done
fi
if [ -z "$tool" ]; then
  echo "check-format: clang-format 14 is not installed (Debian: apt-get install clang-format)" >&2
  exit 1
fi
# Another major version breaks lines differently: its verdict would not be this style's.
version="$("$tool" --version)"
if ! grep -qE 'version 14\.' <<<"$version"; then
  echo "check-format: $tool is not clang-format 14 ($version); set CLANG_FORMAT" >&2
  exit 1
fi

mapfile -t files < <(find src app tests bench fuzz -type f \( -name '*.cpp' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort)
# The files clang-format would change: it names each one in a warning (the first per file is
# enough). Two processes at a time, as CI has two cores; each filters its own output, so that
# the names reach the pipe as whole lines.
mapfile -t unclean < <(printf '%s\0' "${files[@]}" \
  | xargs -0 -P2 -n50 sh -c '"$0" --style=file --dry-run --ferror-limit=1 --color=false "$@" 2>&1 \
      | sed -n "s/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p"' "$tool" \
  | LC_ALL=C sort -u)

declare -A is_unclean=() is_file=() is_pending=()
for f in "${unclean[@]}"; do [ -n "$f" ] && is_unclean["$f"]=1; done
for f in "${files[@]}"; do is_file["$f"]=1; done
problems=()
line=0
if [ -f "$pending_file" ]; then
  while IFS= read -r entry || [ -n "$entry" ]; do
    line=$((line + 1))
    entry="${entry%%#*}"
    entry="$(echo "$entry" | xargs)"
    [ -z "$entry" ] && continue
    is_pending["$entry"]=1
    if [ -z "${is_file[$entry]:-}" ]; then
      problems+=("$pending_file:$line: $entry no longer exists (or was renamed); remove it from the list")
    elif [ -z "${is_unclean[$entry]:-}" ]; then
      problems+=("$pending_file:$line: $entry is formatted now; remove it from the list")
    fi
  done <"$pending_file"
fi
for f in "${unclean[@]}"; do
  if [ -z "${is_pending[$f]:-}" ]; then
    problems+=("$f: not as clang-format writes it; run: $tool -i $f")
  fi
done

echo "check-format: ${#files[@]} files, ${#unclean[@]} not formatted, ${#is_pending[@]} listed as pending"
for p in "${problems[@]}"; do echo "$p" >&2; done
if ((${#problems[@]})); then
  echo "check-format: ${#problems[@]} problem(s)" >&2
  exit 1
fi
