#!/usr/bin/env bash
# Builds the .deb for any x86-64 CPU in its own build directory (-DNPUSCOPE_MARCH=x86-64: the hot
# JSON code picks its AVX2 build at run time) and checks it in a throwaway root: contents, the
# man page (gzip -9n, every option of --help documented), desktop entry and AppStream metainfo
# validation, no AVX instruction outside the run-time dispatched code, apt resolving its
# dependencies, no benchmark in it (npuscope-bench is built from bench/ and never installed), and
# that the packaged binary runs its CLI verbs and its window (under Xvfb).
# NPUSCOPE_PACKAGE_BUILD_DIR picks another build directory (default build-package); CI gives it the
# test build (configured with NPUSCOPE_MARCH=x86-64), so the package costs no second build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=${NPUSCOPE_PACKAGE_BUILD_DIR:-build-package}
# MPI off: in an existing build directory (CI packages its test build) only app/ recompiles.
config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSCOPE_MARCH=x86-64 -DNPUSCOPE_MPI=OFF)
[ -f "$dir/CMakeCache.txt" ] || config+=(-DNPUSCOPE_BUILD_TESTS=OFF)
cmake -S . -B "$dir" "${config[@]}" >/dev/null
# Only what the package installs (a developer's build directory may also hold the tests).
cmake --build "$dir" -j"$(( $(nproc) + 1 ))" --target npuscope npuscope_icons npuscope_man
rm -f "$dir"/npuscope_*.deb
(cd "$dir" && cpack -G DEB >/dev/null)
deb=$(ls "$dir"/npuscope_*_*.deb | head -n 1)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -I "$deb" | grep -E '^ (Package|Version|Architecture|Depends):'
dpkg-deb -x "$deb" "$root"
for f in usr/bin/npuscope usr/bin/npuscope-gui usr/share/applications/io.github.npuscope.desktop \
         usr/share/metainfo/io.github.npuscope.metainfo.xml usr/share/icons/hicolor/scalable/apps/npuscope.svg \
         usr/share/icons/hicolor/{16x16,24x24,32x32,48x48,64x64,128x128,256x256}/apps/npuscope.png \
         usr/share/man/man1/npuscope.1.gz usr/share/npuscope/advisor/thresholds.json; do
  test -s "$root/$f" || { echo "package check: missing $f" >&2; exit 1; }
done
if dpkg-deb -c "$deb" | grep -q 'npuscope-bench'; then
  echo "package check: the package installs npuscope-bench (the benchmarks stay in the build tree)" >&2; exit 1
fi
if dpkg-deb -c "$deb" | grep -q 'usr/share/man/man1/npuscope\.1$'; then
  echo "package check: the man page is installed uncompressed" >&2; exit 1
fi
desktop-file-validate "$root/usr/share/applications/io.github.npuscope.desktop"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.npuscope.metainfo.xml"

# The man page: compressed at maximum, without name or time stamp (gzip -9n), and naming every
# option that `npuscope --help` and each verb's --help print.
man=$root/usr/share/man/man1/npuscope.1.gz
file "$man" | grep -q 'max compression' || { echo "package check: $(file "$man") (want gzip -9n)" >&2; exit 1; }
if file "$man" | grep -q ', was "'; then echo "package check: the man page stores its file name (want gzip -n)" >&2; exit 1; fi
bin=$root/usr/bin/npuscope
mantext=$(zcat "$man" | sed 's/\\-/-/g')
version=$("$bin" --version)
grep -q "${version#npuscope }" <<<"$mantext" || { echo "package check: the man page lacks version ${version#npuscope }" >&2; exit 1; }
missing=0
for verb in "" info analyze advise compare synth bench cluster-summary cache; do
  # shellcheck disable=SC2086
  for opt in $("$bin" $verb --help 2>&1 | grep -oE '(^|[ [|,])--?[a-z][a-z0-9-]*' | sed 's/^[ [|,]//' | sort -u); do
    grep -qe "$opt" <<<"$mantext" || { echo "package check: 'npuscope $verb --help' prints $opt, packaging/npuscope.1 does not document it" >&2; missing=1; }
  done
  [ -z "$verb" ] || grep -q "^\.SS $verb" <<<"$mantext" || { echo "package check: no section for '$verb' in the man page" >&2; missing=1; }
done
[ "$missing" = 0 ]

# Runs on any x86-64 CPU: the unstripped binary of the same build (the packaged one is stripped).
bash scripts/check-avx.sh "$dir/app/npuscope"
bash scripts/check-avx.sh "$dir/app/npuscope-gui"
# apt can resolve the package's dependencies on this machine (as `apt-get install ./…deb` would).
apt-get install -s "$(realpath "$deb")" >/dev/null

# The packaged binary works: version, help, the CLI verbs on a generated profile, the window
# (with its settings and caches inside the throwaway root).
export XDG_CONFIG_HOME=$root/config XDG_CACHE_HOME=$root/cache
echo "$version"
"$bin" --help >/dev/null
# The benchmarks are not in the shipped programs: their report lines are not either, and the
# verb says where they come from.
if grep -qa 'simdjson On-Demand scan' "$bin" "$root/usr/bin/npuscope-gui"; then
  echo "package check: a packaged binary carries the benchmarks' code" >&2; exit 1
fi
"$bin" bench --help | grep -q 'not installed by the package'
"$bin" synth "$root/demo" --quiet
"$bin" info "$root/demo" >/dev/null
"$bin" analyze --import "$root/demo" --metric duration --top 3 --format csv --export "$root/top.csv"
test "$(wc -l <"$root/top.csv")" -ge 4
"$bin" advise "$root/demo" --format json -o "$root/advice.json"
grep -q '"findings"' "$root/advice.json"
"$bin" compare "$root/demo" "$root/demo" --format csv >/dev/null
# The verbs start without Qt; what draws with it is handed over to npuscope-gui.
if ldd "$bin" | grep -q 'libQt6'; then
  echo "package check: npuscope links Qt (its verbs should start without it)" >&2; exit 1
fi
"$bin" advise "$root/demo" --format pdf -o "$root/advice.pdf"
head -c 5 "$root/advice.pdf" | grep -q '%PDF-'
# The package stays MPI-free: cluster-summary runs on one machine's threads.
if dpkg-deb -f "$deb" Depends | grep -qi 'openmpi\|libmpi' || ldd "$bin" | grep -qi 'libmpi'; then
  echo "package check: the package depends on MPI (build it without -DNPUSCOPE_MPI)" >&2; exit 1
fi
"$bin" synth "$root/cluster" --scenario cluster-slowrank --ranks 2 --quiet
"$bin" cluster-summary "$root/cluster" -o "$root/cluster.summary.json" --quiet
"$bin" advise "$root/cluster.summary.json" --format json -o "$root/cluster-advice.json"
grep -q 'CLU-SLOWRANK' "$root/cluster-advice.json"
timeout 300 xvfb-run -a -s "-screen 0 1280x800x24" "$bin" "$root/demo" --screenshot "$root/window.png" 2>/dev/null
test -s "$root/window.png"
echo "package check: $deb ok"
