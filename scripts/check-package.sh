#!/usr/bin/env bash
# Builds the .deb from the install tree and checks it in a throwaway root: contents, desktop
# entry and AppStream metainfo validation, and that the packaged binary runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
(cd build && cpack -G DEB >/dev/null)
deb=$(ls build/npuscope_*_*.deb | head -n 1)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -I "$deb" | grep -E '^ (Package|Version|Depends):'
dpkg-deb -x "$deb" "$root"
for f in usr/bin/npuscope usr/share/applications/io.github.npuscope.desktop \
         usr/share/metainfo/io.github.npuscope.metainfo.xml usr/share/icons/hicolor/scalable/apps/npuscope.svg \
         usr/share/icons/hicolor/256x256/apps/npuscope.png usr/share/man/man1/npuscope.1 \
         usr/share/npuscope/advisor/thresholds.json; do
  test -s "$root/$f" || { echo "package check: missing $f" >&2; exit 1; }
done
desktop-file-validate "$root/usr/share/applications/io.github.npuscope.desktop"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.npuscope.metainfo.xml"
"$root/usr/bin/npuscope" --version
"$root/usr/bin/npuscope" --help >/dev/null
echo "package check: $deb ok"
