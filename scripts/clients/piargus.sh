#!/usr/bin/env bash
# piargus.sh: piargus (the Python client of τ-Argus) runs its own examples
# against argus in place of TauArgus.exe, on Linux and, with `wine`, against
# the Windows build's argus.exe under Wine (a Linux Python drives it).
#
#   scripts/clients/piargus.sh [linux|wine|both]     # default: both
#
# Needs python3 with pandas and piargus importable (pip install piargus),
# and piargus's examples/data: PIARGUS_SRC names a checkout of piargus
# (github.com/lverweijen/piargus); its src/ is used when piargus is not
# installed. piargus imports littletree for tree hierarchies only; where
# littletree cannot be installed (its dependency abstracttree neither), a
# stand-in module that fails on use is put on the path (these jobs use no
# tree hierarchy). Linux: bin/argus (make build) or ARGUS. Wine: the build of
# scripts/wine/run.sh (dist/windows-amd64, its Wine prefix).
#
# Six jobs: tabledata_basic (table input, NK + FREQ rules) and
# microdata_basic (P-rule) with GH, MOD and OPT. Each must succeed as
# piargus judges it and piargus must read the table back; with `both`, the
# tables piargus read on the two sides must be equal byte for byte.
# Prints one line per job and "N passed, N failed"; exits 1 on a failure.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-both}
src=${PIARGUS_SRC:-}
[ -n "$src" ] && [ -d "$src/examples/data" ] || {
	echo "piargus.sh: set PIARGUS_SRC to a checkout of piargus (for examples/data)" >&2
	exit 2
}
py=${PYTHON:-python3}
work=$(mktemp -d /tmp/argus-piargus.XXXXXX)
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
pypath=
"$py" -c 'import piargus' 2>/dev/null || pypath=$src/src
if ! PYTHONPATH=$pypath "$py" -c 'import littletree' 2>/dev/null; then
	mkdir -p "$work/shim/littletree"
	cat >"$work/shim/littletree/__init__.py" <<'PY'
"""Stand-in for littletree (not installable here): piargus needs it only
for TreeHierarchy, which fails at once if used."""


class Node:
    def __init__(self, *args, **kwargs):
        raise ImportError("littletree is not installed; piargus's TreeHierarchy is unavailable")
PY
	printf 'from . import Node as RowSerializer, Node as RelationSerializer\n' >"$work/shim/littletree/serializers.py"
	pypath=${pypath:+$pypath:}$work/shim
	echo "piargus.sh: littletree not installed; using a stand-in (no tree hierarchies)" >&2
fi
run() { # run NAME PROGRAM
	echo "== $1"
	mkdir -p "$work/$1"
	PYTHONPATH=$pypath "$py" "$root/scripts/clients/piargus_jobs.py" "$2" "$src/examples/data" "$work/$1"
}
rc=0
if [ "$mode" = linux ] || [ "$mode" = both ]; then
	argus=${ARGUS:-$root/bin/argus}
	[ -x "$argus" ] || (cd "$root" && make build >&2) || exit 2
	run linux "$argus" || rc=1
fi
if [ "$mode" = wine ] || [ "$mode" = both ]; then
	cache=${ARGUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argus}
	win=$root/dist/windows-amd64
	[ -x "$win/argus.exe" ] || "$root/scripts/cross/build.sh" windows-amd64 >&2 || exit 2
	[ -d "${WINEPREFIX:-$cache/wineprefix}/drive_c" ] || "$root/scripts/wine/run.sh" version >&2 || exit 2
	# piargus runs PROGRAM with absolute Linux paths; Wine maps them to Z:.
	cat >"$work/argus-wine" <<W
#!/bin/sh
WINEDEBUG=-all WINEPREFIX=${WINEPREFIX:-$cache/wineprefix} exec ${WINE:-/usr/lib/wine/wine64} "$win/argus.exe" "\$@"
W
	chmod +x "$work/argus-wine"
	run wine "$work/argus-wine" || rc=1
fi
if [ "$mode" = both ]; then
	d=
	for f in "$work"/linux/*.csv; do
		cmp -s "$f" "$work/wine/$(basename "$f")" || d="$d $(basename "$f")"
	done
	echo "tables read by piargus, Linux against Wine: ${d:+differing:}${d:-identical}"
	[ -z "$d" ] || rc=1
fi
exit $rc
