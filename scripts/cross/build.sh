#!/usr/bin/env bash
# build.sh: argus and its method plugins for another platform, from Linux.
#
#   scripts/cross/build.sh TARGET [OUTDIR]
#
# TARGET is one of
#   windows-amd64  argus.exe + plugins\argus-method-*.exe (HiGHS built from
#                  source by highs.sh, linked statically with MinGW-w64),
#                  and the release zip dist/argus-VERSION-windows-amd64.zip
#   linux-arm64    argus + plugins/ (gohighs's arm64 library, Debian's
#                  aarch64 cross compiler; needs zlib1g-dev:arm64)
#   linux-amd64    the same natively, stamped like the others (reference);
#                  with HIGHS_SOURCE=1 its plugins link the HiGHS that
#                  highs.sh builds from source (the Windows build's version)
#                  instead of gohighs's, to tell HiGHS's version from the
#                  platform when the two builds' results differ
#   darwin-amd64, darwin-arm64
#                  compile check only: no macOS linker here, so the host is
#                  built and the plugins are compiled and vetted without
#                  being linked (see the README)
#
# OUTDIR defaults to dist/TARGET. The host is pure Go (CGO_ENABLED=0); the
# plugins use cgo for HiGHS. Every binary is stamped with the commit and the
# HiGHS version (argus version prints them; a plugin refuses another HiGHS).
# Environment: ARGUS_CACHE and JOBS as for highs.sh.
set -euo pipefail

target=${1:?usage: build.sh TARGET [OUTDIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$root/dist/$target}
cd "$root"
goos=${target%-*} goarch=${target#*-}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then
	commit="$commit+changes"
fi
exe=
[ "$goos" = windows ] && exe=.exe

gohighs_version() { # the HiGHS version of the library gohighs ships
	local dir
	dir=$(go list -m -f '{{.Dir}}' github.com/bartolsthoorn/gohighs)
	awk '/HIGHS_VERSION_(MAJOR|MINOR|PATCH)/{v=v (v==""?"":".") $3} END{print v}' \
		"$dir/internal/highs/include/HConfig.h"
}

cgo_env=()
modfile=()
case $target in
windows-amd64)
	lib=$(scripts/cross/highs.sh windows-amd64)
	highs=$(basename "$(dirname "$lib")" | sed -E 's/^highs-([0-9.]+)-.*/\1/')
	cgo_env=(CC=x86_64-w64-mingw32-gcc-posix CXX=x86_64-w64-mingw32-g++-posix "CGO_LDFLAGS=-L$lib")
	# Static C++ and winpthreads runtimes; no symbol tables (-s -w: Go's
	# stack traces do not need them), which halves the zip.
	extld="-s -w -extldflags=-static"
	;;
linux-arm64)
	highs=$(gohighs_version)
	cgo_env=(CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++)
	extld=
	;;
linux-amd64)
	highs=$(gohighs_version)
	extld=
	if [ "${HIGHS_SOURCE:-0}" = 1 ]; then
		# A private copy of gohighs whose archive is the source-built one,
		# named by a go.mod copy (-modfile): the repository is untouched.
		lib=$(scripts/cross/highs.sh linux-amd64)
		highs=$(basename "$(dirname "$lib")" | sed -E 's/^highs-([0-9.]+)-.*/\1/')
		mod=$(mktemp -d)
		trap 'rm -rf "$mod"' EXIT
		cp -r "$(go list -m -f '{{.Dir}}' github.com/bartolsthoorn/gohighs)" "$mod/gohighs"
		chmod -R u+w "$mod/gohighs"
		cp "$lib/libhighs.a" "$mod/gohighs/internal/highs/lib/linux_amd64/libhighs.a"
		cp go.mod "$mod/go.mod"
		cp go.sum "$mod/go.sum"
		go mod edit -modfile="$mod/go.mod" -replace "github.com/bartolsthoorn/gohighs=$mod/gohighs"
		modfile=(-modfile="$mod/go.mod")
	fi
	;;
darwin-amd64 | darwin-arm64)
	highs=$(gohighs_version)
	extld=
	;;
*)
	echo "build.sh: unknown target $target" >&2
	exit 2
	;;
esac

stamp="-X github.com/sdcengine/argus/host/cli.Commit=$commit -X github.com/sdcengine/argus/host/cli.HiGHSVersion=$highs"
rm -rf "$out"
mkdir -p "$out/plugins"
start=$(date +%s)
GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 go build -trimpath -ldflags "${extld%-extldflags=*} $stamp" -o "$out/" ./host/cmd/argus

if [ "$goos" = darwin ]; then
	# cgo for darwin needs Apple's SDK (even runtime/cgo), which Linux has
	# not: compile every package that does not need HiGHS (tests not
	# included); internal/solver and the packages above it need a Mac.
	pkgs=$(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./... | awk '!/internal\/solver/ {print $1}')
	GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 go build $pkgs >&2
	echo "darwin-$goarch: host built ($out/argus); $(echo "$pkgs" | wc -w) of $(go list ./... | wc -l) packages compiled; internal/solver and the packages using it (the plugins) need a Mac (cgo)"
	exit 0
fi

env GOOS="$goos" GOARCH="$goarch" CGO_ENABLED=1 "${cgo_env[@]}" \
	go build -trimpath "${modfile[@]}" \
	-ldflags "$extld -X github.com/sdcengine/argus/internal/solver.wantVersion=$highs" \
	-o "$out/plugins/" ./plugins/...
echo "built $target (HiGHS $highs, commit $commit) in $(($(date +%s) - start)) s wall into $out" >&2

if [ "$goos" = windows ]; then
	# The release: the demo job beside the binaries (argus demo reads
	# testdata\demo\simple2d.arb from the current directory) and HiGHS's
	# licence, which its MIT terms ask to ship with the binaries.
	mkdir -p "$out/testdata/demo" "$out/licenses"
	cp testdata/demo/* "$out/testdata/demo/"
	tarball=$(ls "${ARGUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argus}"/src/highs_"$highs"*.orig.tar.xz | head -1)
	tar -xJf "$tarball" --wildcards -O '*/LICENSE.txt' >"$out/licenses/HiGHS-LICENSE.txt"
	name=argus-$(sed -nE 's/^const Version = "(.*)"/\1/p' host/cli/cli.go)-$target
	zip=$root/dist/$name.zip
	rm -f "$zip"
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	cp -r "$out" "$stage/$name"
	(cd "$stage" && find "$name" -exec touch -d "$(git -C "$root" log -1 --format=%cI 2>/dev/null || echo 2026-01-01)" {} + && zip -qrX "$zip" "$name")
	echo "$zip"
fi
