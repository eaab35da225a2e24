#!/usr/bin/env bash
# qemu-demo.sh: the linux/arm64 build's demo under qemu-user, compared with
# the linux/amd64 build's, file by file.
#
#   scripts/cross/qemu-demo.sh
#
# Builds dist/linux-arm64 and dist/linux-amd64 with build.sh if missing.
# Without binfmt_misc (containers), qemu-aarch64 cannot run the arm64
# plugins argus starts, so each plugin is put behind a two-line wrapper that
# runs it under qemu-aarch64; argus itself (pure Go, static) runs under
# qemu-aarch64 too. Needs Debian's qemu-user and gcc-aarch64-linux-gnu (the
# arm64 libc and libstdc++ under /usr/aarch64-linux-gnu).
#
# The loader and the C library must come from the same glibc build. With
# -L /usr/aarch64-linux-gnu alone, qemu gives the plugin the cross
# toolchain's ld.so (libc6-arm64-cross), but that ld.so looks for libc.so.6
# in /lib/aarch64-linux-gnu first; where Debian's multiarch libc6:arm64 is
# installed too (a different package revision), it loads that libc, and the
# mismatched pair spins for ever in libc's start-up before main -- in any
# dynamically linked arm64 program that starts a thread, cgo Go binaries
# included (a static link, or no -L with libc6:arm64 and libstdc++6:arm64
# installed, also work). LD_LIBRARY_PATH inside the guest (-E) makes the
# cross ld.so load the cross libc and libstdc++.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
arm=$root/dist/linux-arm64 amd=$root/dist/linux-amd64
[ -x "$arm/argus" ] || scripts/cross/build.sh linux-arm64 >&2 || exit 2
[ -x "$amd/argus" ] || scripts/cross/build.sh linux-amd64 >&2 || exit 2
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static) || {
	echo "qemu-demo.sh: no qemu-aarch64 (apt-get install qemu-user)" >&2
	exit 2
}
sysroot=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
[ -e "$sysroot/lib/libc.so.6" ] || {
	echo "qemu-demo.sh: no arm64 C library in $sysroot (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)" >&2
	exit 2
}
# The host's process-tree tags must name the start time other processes
# see, even emulated (qemu-user makes up a process's own /proc/PID/stat).
GOARCH=arm64 CGO_ENABLED=0 go test -count=1 -exec "$qemu" -run TestHostIDAsOthersSeeIt ./host/proctree >&2 || exit 1
work=$(mktemp -d /tmp/argus-qemu.XXXXXX)
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
mkdir -p "$work/bin/plugins" "$work/arm/testdata" "$work/amd/testdata"
cp "$arm/argus" "$work/bin/"
for p in "$arm"/plugins/argus-method-*; do
	printf '#!/bin/sh\nexec %s -L %s -E LD_LIBRARY_PATH=%s/lib %s "$@"\n' "$qemu" "$sysroot" "$sysroot" "$p" >"$work/bin/plugins/$(basename "$p")"
	chmod +x "$work/bin/plugins/$(basename "$p")"
done
cp -r testdata/demo "$work/arm/testdata/"
cp -r testdata/demo "$work/amd/testdata/"
export ARGUS_CACHE_DIR=off
t0=$(date +%s)
(cd "$work/arm" && "$qemu" "$work/bin/argus" demo -out out >stdout.txt 2>&1)
ca=$?
t1=$(date +%s)
(cd "$work/amd" && "$amd/argus" demo -out out >stdout.txt 2>&1)
cm=$?
diffs= normed=
for f in $(ls "$work/arm/out" "$work/amd/out" | grep -v ':$' | sort -u); do
	if cmp -s "$work/arm/out/$f" "$work/amd/out/$f"; then
		continue
	fi
	# Logbooks, HTML and JSON reports: equal but for time stamps,
	# durations, the report's date and the run directory?
	n() { sed -E -e 's/^[0-9]{2}-[A-Z][a-z]{2}-[0-9]{4} [0-9:]{8} : //' \
		-e 's/(Time used|time used|processing time)( to protect the table:)? [0-9.]+ (seconds|sec)/\1\2 N \3/g' \
		-e 's/<p>[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [A-Z]+ [0-9]{4}<\/p>/<p>DATE<\/p>/' \
		-e 's/"(started|finished)": ?"[^"]*"/"\1": "T"/g' \
		-e 's/"([a-z_]*seconds)": ?[-0-9.e+]+/"\1": N/g' \
		-e "s#$work/(arm|amd)#DIR#g" "$1"; }
	if [ -f "$work/arm/out/$f" ] && [ -f "$work/amd/out/$f" ] && cmp -s <(n "$work/arm/out/$f") <(n "$work/amd/out/$f"); then
		normed="$normed $f"
	else
		diffs="$diffs $f"
	fi
done
echo "arm64 demo under qemu: exit $ca ($((t1 - t0)) s wall); amd64: exit $cm"
echo "files differing: ${diffs:- none}"
echo "equal once time stamps, durations and directories are removed:${normed:- none}"
grep -m1 'Method' "$work/arm/stdout.txt"
[ "$ca" = 0 ] && [ "$cm" = 0 ] && [ -z "$diffs" ]
