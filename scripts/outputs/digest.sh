#!/usr/bin/env bash
# Byte-identical check of a refactoring (issue 13): runs the demo and every
# τ-Argus batch job of the corpus and of the repro folder through bin/argus
# (built from the tree this script sits in) and prints one line per output
# file: its SHA-256 and its path relative to the job's copy. Logbooks and
# run reports, HTML reports carry dates, times and durations, so their lines
# with a clock time, a timestamp or a duration are dropped before hashing,
# and the repository's and the work directory's paths are replaced by
# ROOT and WORK.
#
#   scripts/outputs/digest.sh > before.txt    # on the old commit
#   scripts/outputs/digest.sh > after.txt     # on the new one
#   diff before.txt after.txt
#
# SHARED names the shared folder (default: ../shared beside the repository).
# SKIP is a regular expression of job paths not to run. KEEP names a
# directory to keep every job's outputs in (to diff two runs file by file).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}
WORK=$(mktemp -d /tmp/argus-digest.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT" && go build -o "$WORK/bin/" ./host/cmd/argus &&
	go build -o "$WORK/bin/plugins/" ./plugins/... ./pluginsdk/example/...) >&2 || exit 2
export ARGUS_CACHE_DIR=$WORK/cache

TIMES='Time used|[0-9]{1,2}:[0-9]{2}|"(duration|elapsed|seconds|started|finished|time)[a-z_]*"|[0-9.]+ ?(ms|µs|s)\b|[0-9]+m[0-9.]+s'

digest() { # digest DIR: hashes every file under DIR
	(cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
		case $f in
		*.log | *.json | *.txt | *.html | *logbook*)
			h=$(grep -Ev "$TIMES" "$f" | sed "s#$ROOT#ROOT#g; s#$WORK#WORK#g" | sha256sum | cut -c1-16) ;;
		*) h=$(sha256sum <"$f" | cut -c1-16) ;;
		esac
		echo "$h $f"
	done)
}

"$WORK/bin/argus" demo -out "$WORK/demo" >/dev/null 2>&1
echo "== demo exit=$?"
digest "$WORK/demo"
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP/demo" && cp -r "$WORK/demo"/. "$KEEP/demo/"

find "$SHARED/corpus" "$SHARED/repro" -name '*.arb' | LC_ALL=C sort | while read -r arb; do
	rel=${arb#"$SHARED"/}
	if [ -n "${SKIP:-}" ] && [[ $rel =~ $SKIP ]]; then
		echo "== $rel skipped"
		continue
	fi
	dir=$WORK/jobs/$(echo "$rel" | tr / _)
	mkdir -p "$dir"
	cp -r "$(dirname "$arb")"/. "$dir/"
	before=$(cd "$dir" && find . -type f | LC_ALL=C sort)
	(cd "$dir" && timeout 600 "$WORK/bin/argus" "$(basename "$arb")" log.txt - >/dev/null 2>"$WORK/stderr")
	echo "== $rel exit=$?"
	# only the files the job wrote or changed
	(cd "$dir" && find . -type f | LC_ALL=C sort) | while read -r f; do
		if ! grep -qxF "$f" <<<"$before" || ! cmp -s "$dir/$f" "$(dirname "$arb")/$f"; then
			echo "$f"
		fi
	done >"$WORK/changed"
	mkdir -p "$WORK/out"
	rm -rf "$WORK/out"/*
	while read -r f; do mkdir -p "$WORK/out/$(dirname "$f")" && cp "$dir/$f" "$WORK/out/$f"; done <"$WORK/changed"
	digest "$WORK/out"
	if [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP/$(echo "$rel" | tr / _)" && cp -r "$WORK/out"/. "$KEEP/$(echo "$rel" | tr / _)/"
	fi
	rm -rf "$dir"
done
