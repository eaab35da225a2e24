#!/usr/bin/env bash
# run.sh: the Windows build of argus under Wine, checked against the Linux
# build (issue 31).
#
#   scripts/wine/run.sh [CASE...]     # all cases by default
#
# Cases:
#   proctree   host/proctree's Windows tests (Job Objects) as a test .exe
#   version    argus.exe version names the commit and HiGHS
#   demo       argus.exe demo: every output file against the Linux build's
#   jobs       Simple2D (Size x Region, Var2, P(15,1)) and IndustryCode x
#              Size (Var2, NK(3,75)) with GH, MOD, OPT, NET and CTA: exit
#              codes and output files against the Linux build's
#   winpaths   Simple2D with C:\data\... paths, CRLF lines and a Latin-1
#              comment in the batch and metadata files: outputs against the
#              Linux build's run of the plain job
#   limits     a plugin that starts a child and hangs past --suppress-limit
#              (both must be gone when argus.exe returns, exit 2, a timeout
#              message), a plugin that exits with status 7 (exit 2, the
#              status named), a plugin killed from outside (exit 2)
#
# LINUX_BUILD names another Linux build to compare with, e.g. one whose
# plugins link the Windows build's HiGHS (HIGHS_SOURCE=1 build.sh
# linux-amd64 DIR). It builds what is missing: dist/windows-amd64 and
# dist/linux-amd64 with scripts/cross/build.sh (HiGHS for Windows is built
# once, see highs.sh),
# and the Wine prefix ($ARGUS_CACHE/wineprefix unless WINEPREFIX is set)
# with a stand-in bcryptprimitives.dll (see bcryptprimitives.c). Needs
# Debian's wine64 (the loader is /usr/lib/wine/wine64; WINE overrides).
# Prints one line per check and "N passed, N failed"; exits 1 on a failure.
# Work files go to a fresh directory under /tmp (kept with KEEP=1).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${ARGUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argus}
export WINEPREFIX=${WINEPREFIX:-$cache/wineprefix}
export WINEDEBUG=-all
wine=${WINE:-/usr/lib/wine/wine64}
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine || true)
[ -n "$wine" ] || {
	echo "run.sh: no wine (apt-get install wine64)" >&2
	exit 2
}
win=$root/dist/windows-amd64
lin=${LINUX_BUILD:-$root/dist/linux-amd64}
work=$(mktemp -d /tmp/argus-wine.XXXXXX)
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(proctree version demo jobs winpaths limits)

pass=0 fail=0
check() { # check NAME OK(0/1) DETAIL
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-28s %s\n' "$1" "$3"
	else
		fail=$((fail + 1))
		printf 'FAIL  %-28s %s\n' "$1" "$3"
	fi
}

# --- set-up --------------------------------------------------------------
cd "$root"
[ -x "$win/argus.exe" ] || scripts/cross/build.sh windows-amd64 >&2 || exit 2
[ -x "$lin/argus" ] || scripts/cross/build.sh linux-amd64 "$lin" >&2 || exit 2
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
	mkdir -p "$WINEPREFIX"
	"$wine" wineboot -i >/dev/null 2>&1
fi
shim=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
if [ ! -f "$shim" ] || [ "$shim" -ot scripts/wine/bcryptprimitives.c ]; then
	x86_64-w64-mingw32-gcc -O2 -shared -o "$shim" scripts/wine/bcryptprimitives.c -ladvapi32 || exit 2
fi
# Each platform keeps its plugin descriptions in a cache of its own.
export ARGUS_CACHE_DIR=$work/cache-linux
winrun() { # winrun DIR ARGS...: argus.exe in DIR under wine, its exit code
	local d=$1
	shift
	(cd "$d" && ARGUS_CACHE_DIR= "$wine" "$win/argus.exe" "$@")
}
linrun() {
	local d=$1
	shift
	(cd "$d" && "$lin/argus" "$@")
}

# norm FILE DIR: FILE without what legitimately differs between two runs
# on two systems: the logbook's time stamps, durations, progress lines
# (written every so many seconds), the date of the
# HTML report, DIR (the run's directory, also as Wine's Z:\ path) and path
# separators.
norm() {
	local d=$1 dw
	dw=$(printf 'Z:%s' "$2" | tr / '\\')
	sed -E -e 's/^[0-9]{2}-[A-Z][a-z]{2}-[0-9]{4} [0-9:]{8} : //' \
		-e 's/(Time used|time used|processing time)( to protect the table:)? [0-9.]+ (seconds|sec)/\1\2 N \3/g' \
		-e 's/<p>[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [A-Z]+ [0-9]{4}<\/p>/<p>DATE<\/p>/' \
		-e '/^argus progress: /d' \
		-e "s|$(printf '%s' "$dw" | sed 's/\\/\\\\/g')|DIR|g" -e "s|$2|DIR|g" -e 's|\\|/|g' -e 's/\r$//' "$1"
}

# same DIR_A DIR_B [BASE_A BASE_B]: compares the files of two output
# directories (paths under BASE_X, by default DIR_X, are normalised); prints
# "DIFFERING|NORMALISED": the files that differ (or are missing on one
# side), and those equal only after norm (logbooks, HTML reports).
same() {
	local a=$1 b=$2 ba=${3:-$1} bb=${4:-$2} f n diffs= normed=
	for f in $( (cd "$a" && ls) ; (cd "$b" && ls)); do
		case $f in out.txt | err.txt | stdout.txt | *report.json | *.arb | *.asc | *.rda | *.hrc | testdata) continue ;; esac
		n=" $f"
		case "$diffs$normed" in *"$n"*) continue ;; esac
		if cmp -s "$a/$f" "$b/$f"; then
			continue
		elif [ -f "$a/$f" ] && [ -f "$b/$f" ] && cmp -s <(norm "$a/$f" "$ba") <(norm "$b/$f" "$bb"); then
			normed="$normed$n"
		else
			diffs="$diffs$n"
		fi
	done
	echo "${diffs# }|${normed# }"
}

# verdict NAME CODE_WIN CODE_LIN SAME_OUTPUT: one check line.
verdict() {
	local d=${4%%|*} n=${4#*|}
	[ "$2" = "$3" ] && [ -z "$d" ]
	check "$1" $? "exit win $2 linux $3; differing: ${d:-none}; equal once normalised: ${n:-none}"
}

# job FILE TABLE RULE SUPPRESS: a batch job on the tutorial microdata.
job() {
	{
		echo '<OPENMICRODATA> "tau_testW.asc"'
		echo '<OPENMETADATA> "tau_testW.rda"'
		echo "<SPECIFYTABLE> $2|\"Var2\"||"
		echo "<SAFETYRULE> $3"
		echo '<READMICRODATA>'
		echo "<SUPPRESS> $4"
		echo '<WRITETABLE> (1, 1, , "t1.csv")'
		echo '<WRITETABLE> (1, 3, AS+, "t3.txt")'
		echo '<WRITETABLE> (1, 6, , "t6.jj")'
	} >"$1"
}

# --- cases ---------------------------------------------------------------
case_proctree() {
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$work/proctree.test.exe" ./host/proctree || {
		check proctree 1 "test build failed"
		return
	}
	local out
	out=$(cd "$work" && timeout 300 "$wine" "$work/proctree.test.exe" -test.v 2>&1)
	echo "$out" | grep -q '^PASS$'
	check "proctree (Job Objects)" $? "$(echo "$out" | grep -c -- '--- PASS') tests passed"
}

case_version() {
	local out
	out=$(winrun "$work" version 2>&1)
	echo "$out" | grep -q "^commit [0-9a-f]\{40\}" && echo "$out" | grep -q "^HiGHS [0-9.]* (linked" &&
		echo "$out" | grep -q "windows/amd64"
	check "version" $? "$(echo "$out" | tr '\n' ';')"
}

case_demo() {
	local w=$work/demo-win l=$work/demo-lin cw cl d
	mkdir -p "$w/testdata" "$l/testdata"
	cp -r testdata/demo "$w/testdata/"
	cp -r testdata/demo "$l/testdata/"
	winrun "$w" demo -out out >"$w/stdout.txt" 2>&1
	cw=$?
	linrun "$l" demo -out out >"$l/stdout.txt" 2>&1
	cl=$?
	verdict demo "$cw" "$cl" "$(same "$w/out" "$l/out" "$w" "$l")"
}

case_jobs() {
	local t m dir name cw cl d table rule
	for t in s2d ind; do
		if [ $t = s2d ]; then
			table='"Size""Region"' rule='P(15,1)'
		else
			table='"IndustryCode""Size"' rule='NK(3,75)'
		fi
		for m in 'GH(1,100,0,1)' 'MOD(1,5,1,1,1)' 'OPT(1,5)' 'NET(1)' 'CTA(1)'; do
			name=$t-${m%%(*}
			for side in win lin; do
				dir=$work/jobs/$name-$side
				mkdir -p "$dir"
				cp testdata/demo/tau_testW.asc testdata/demo/tau_testW.rda testdata/demo/region2.hrc "$dir/"
				job "$dir/job.arb" "$table" "$rule" "$m"
			done
			winrun "$work/jobs/$name-win" job.arb log.txt >"$work/jobs/$name-win/out.txt" 2>&1
			cw=$?
			linrun "$work/jobs/$name-lin" job.arb log.txt >"$work/jobs/$name-lin/out.txt" 2>&1
			cl=$?
			verdict "job $name" "$cw" "$cl" "$(same "$work/jobs/$name-win" "$work/jobs/$name-lin")"
		done
	done
}

case_winpaths() {
	local data=$WINEPREFIX/drive_c/data/argus-wine-test w=$work/winpaths-win l=$work/winpaths-lin cw cl d
	[ "${KEEP:-0}" = 1 ] || rm -rf "$data"
	mkdir -p "$data" "$w" "$l"
	cp testdata/demo/tau_testW.asc testdata/demo/region2.hrc "$data/"
	# Metadata with CRLF line ends and a Latin-1 comment.
	{
		printf '// M\xe9tadonn\xe9es du fichier d\x27essai (Latin-1, CRLF)\n'
		cat testdata/demo/tau_testW.rda
	} | sed 's/$/\r/' >"$data/tau_testW.rda"
	{
		printf '// R\xe9gion \xd7 Taille, \xe9crit en Latin-1 avec des fins de ligne CRLF\n'
		echo '<OPENMICRODATA> "C:\data\argus-wine-test\tau_testW.asc"'
		echo '<OPENMETADATA> "C:\data\argus-wine-test\tau_testW.rda"'
		echo '<SPECIFYTABLE> "Size""Region"|"Var2"||'
		echo '<SAFETYRULE> P(15,1)'
		echo '<READMICRODATA>'
		echo '<SUPPRESS> MOD(1,5,1,1,1)'
		echo '<WRITETABLE> (1, 1, , "C:\data\argus-wine-test\out\t1.csv")'
		echo '<WRITETABLE> (1, 3, AS+, "C:\data\argus-wine-test\out\t3.txt")'
		echo '<WRITETABLE> (1, 6, , "C:\data\argus-wine-test\out\t6.jj")'
	} | sed 's/$/\r/' >"$data/job.arb"
	mkdir -p "$data/out"
	winrun "$w" 'C:\data\argus-wine-test\job.arb' 'C:\data\argus-wine-test\out\log.txt' >"$w/out.txt" 2>&1
	cw=$?
	cp testdata/demo/tau_testW.asc testdata/demo/tau_testW.rda testdata/demo/region2.hrc "$l/"
	job "$l/job.arb" '"Size""Region"' 'P(15,1)' 'MOD(1,5,1,1,1)'
	linrun "$l" job.arb log.txt >"$l/out.txt" 2>&1
	cl=$?
	[ -s "$data/out/t3.txt" ] || cw="$cw (no output)"
	# The tables only: the logbooks and HTML reports name the files as
	# the two jobs do (C:\data\... against relative names).
	mkdir -p "$w/tables" "$l/tables"
	cp "$data"/out/t?.* "$w/tables/"
	cp "$l"/t?.* "$l/tables/"
	rm -f "$w"/tables/*.html "$l"/tables/*.html
	verdict "windows paths, CRLF, Latin-1" "$cw" "$cl" "$(same "$w/tables" "$l/tables")"
	[ "${KEEP:-0}" = 1 ] || rm -rf "$data"
}

# ours: the pids of this run's test plugin processes (their paths contain
# the work directory's unique name).
ours() { pgrep -f "$(basename "$work").*argus-method-test" || true; }

case_limits() {
	local tp=$work/testplugins d code t0 t1 left started
	mkdir -p "$tp"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$tp/argus-method-test.exe" ./host/runner/testplugin || {
		check limits 1 "test plugin build failed"
		return
	}
	for mode in hang-with-child crash slow; do
		d=$work/limits-$mode
		mkdir -p "$d"
		cp testdata/demo/tau_testW.asc testdata/demo/tau_testW.rda testdata/demo/region2.hrc "$d/"
		job "$d/job.arb" '"Size""Region"' 'P(15,1)' "TEST(1,$mode)"
		t0=$(date +%s)
		if [ $mode = slow ]; then
			# Killed from outside once it is protecting: the Windows
			# process is ended with wine's taskkill.
			(sleep 8 && "$wine" taskkill /F /IM argus-method-test.exe >/dev/null 2>&1) &
			ARGUS_PLUGIN_PATH=$tp winrun "$d" job.arb log.txt >"$d/out.txt" 2>&1
		else
			ARGUS_PLUGIN_PATH=$tp winrun "$d" job.arb log.txt --suppress-limit=5s --param=TEST.pidfile=pids.txt >"$d/out.txt" 2>&1
		fi
		code=$?
		t1=$(date +%s)
		wait
		sleep 1
		left=$(ours | wc -l)
		case $mode in
		hang-with-child)
			started=$(wc -l <"$d/pids.txt" 2>/dev/null || echo 0)
			[ "$code" = 2 ] && [ "$started" = 2 ] && [ "$left" = 0 ] && [ $((t1 - t0)) -le 40 ] &&
				grep -q 'exceeded its time limit' "$d/log.txt"
			check "limit: hang with child" $? "exit $code, $started processes started (plugin, child), ${left} left, $((t1 - t0)) s wall (limit 5 s + start under wine)"
			;;
		crash)
			[ "$code" = 2 ] && grep -q 'status 7\|exit status 7\|exited with 7' "$d/log.txt" "$d/out.txt"
			check "plugin exits with 7" $? "exit $code; $(grep -h -m1 -i 'status 7' "$d/log.txt" "$d/out.txt" | cut -c1-120)"
			;;
		slow)
			# The job must have reached the plugin (not failed before it).
			[ "$code" = 2 ] && [ "$left" = 0 ] && grep -q 'plugin test crashed' "$d/log.txt"
			check "plugin killed from outside" $? "exit $code, ${left} left; $(grep -h -m1 -i 'plugin' "$d/log.txt" | cut -c1-120)"
			;;
		esac
		for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
	done
}

for c in "${cases[@]}"; do
	"case_$c"
done
echo "wine: $pass passed, $fail failed"
[ "$fail" = 0 ]
