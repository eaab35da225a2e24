#!/bin/sh
# modbench.sh: the figures of MOD on office-size tables (issue 30).
#
#   scripts/modbench/modbench.sh [OUTDIR] [-- EXTRA ARGUMENTS OF argus]
#
# Builds argus, writes the generated job t4.5xt4.5xt4.5 (seed 1, 5 %
# primaries, micro values, MOD(5,1,1,1)), runs it with --threads=1 and
# --threads=2 and checks that the two patterns are the same; runs the two
# rtauargus repro jobs of ../shared/repro when they are there. Prints, per
# run, the CPU seconds (user + sys of argus and its plugins), the wall time,
# the peak RSS and the logbook's number of suppressions. Set MODBENCH_BIG=1
# to run t4.11xt4.11xt4.11 seeds 1-3 too (--time-limit=2m).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d)}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
cd "$root"
go build -o bin/ ./host/cmd/argus
go build -o bin/plugins/ ./plugins/...
argus=$root/bin/argus

run() { # NAME DIR ARB ARGS...
	name=$1 dir=$2 arb=$3
	shift 3
	(cd "$dir" && /usr/bin/time -f "%U %S %e %M" -o time.txt "$argus" "$arb" log.txt - "$@" >out.txt 2>err.txt) || true
	set -- $(cat "$dir/time.txt" | tail -1)
	supp=$(grep -m1 'Number of suppressions' "$dir/log.txt" | awk '{print $NF}')
	printf '%-28s %8.2f CPU s %8.2f wall s %8d KB  suppressions %s\n' "$name" "$(echo "$1 + $2" | bc)" "$3" "$4" "${supp:-none}"
}

gen() { # DIR SHAPE SEED
	mkdir -p "$1"
	"$argus" generate -shape "$2" -seed "$3" -primary frac:0.05 -values micro -job "$1/t" -method 'MOD(5,1,1,1)' >/dev/null
}

gen "$out/t45" t4.5xt4.5xt4.5 1
for th in 1 2; do
	rm -rf "$out/t45_$th" && cp -r "$out/t45" "$out/t45_$th"
	run "t4.5^3 threads=$th" "$out/t45_$th" t.arb --threads=$th "$@"
done
if cmp -s "$out/t45_1/t-protected.txt" "$out/t45_2/t-protected.txt"; then
	echo "t4.5^3: same pattern with 1 and 2 threads"
else
	echo "t4.5^3: the patterns of 1 and 2 threads DIFFER"
fi
for r in rtauargus_dt1_mod_slow rtauargus_splitvig_mod_slow; do
	src=$root/../shared/repro/$r
	[ -d "$src" ] || continue
	rm -rf "$out/$r" && cp -r "$src" "$out/$r"
	run "$r" "$out/$r" tab1.arb "$@"
done
if [ "${MODBENCH_BIG:-}" = 1 ]; then
	for s in 1 2 3; do
		gen "$out/t411_$s" t4.11xt4.11xt4.11 $s
		run "t4.11^3 seed $s threads=2" "$out/t411_$s" t.arb --threads=2 --time-limit=2m "$@"
	done
fi
