#!/usr/bin/env bash
# highs.sh: a static HiGHS library (libhighs.a) for a target gohighs ships
# no library for, built once from Debian's source package and kept in a
# cache directory outside the repository. Prints the library's directory.
#
#   scripts/cross/highs.sh windows-amd64
#   scripts/cross/highs.sh linux-amd64    # the same HiGHS for a native build,
#                                         # to compare with the Windows one
#
# Environment:
#   ARGUS_CACHE   cache directory (default ${XDG_CACHE_HOME:-~/.cache}/argus);
#                 the library goes to $ARGUS_CACHE/highs-<version>-<target>/lib
#   JOBS          parallel compile jobs (default 2); the compilers run under
#                 nice -n 10
#   HIGHS_SUITE   Debian suite whose source package is used (default trixie)
#
# Needs (Debian): gcc-mingw-w64 g++-mingw-w64 cmake ninja-build xz-utils.
# Source: the Debian source package "highs" (HiGHS 1.10.0 in trixie), fetched
# with apt-get into the cache without touching the machine's apt set-up: a
# private sources list naming the mirror apt already uses. Only the upstream
# tarball (*.orig.tar.xz) is used; Debian's packaging is not needed.
#
# Build: CMake with a MinGW-w64 toolchain file (posix threads, which HiGHS's
# task scheduler needs), Release, static, FAST_BUILD, no zlib, 32-bit
# HighsInt (what internal/solver expects; it checks the width at run time).
# About 25-40 minutes of CPU on this kind of machine; later calls return at
# once.
set -euo pipefail

target=${1:?usage: highs.sh windows-amd64|linux-amd64}
case $target in
windows-amd64) triplet=x86_64-w64-mingw32 system=Windows processor=AMD64 ;;
linux-amd64) triplet= ;;
*)
	echo "highs.sh: unsupported target $target (linux and darwin builds use gohighs's library; linux-amd64 here is for comparisons)" >&2
	exit 2
	;;
esac
cache=${ARGUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argus}
suite=${HIGHS_SUITE:-trixie}
jobs=${JOBS:-2}
mkdir -p "$cache/src"

# 1. The source tarball.
tarball=$(ls "$cache"/src/highs_*.orig.tar.xz 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$tarball" ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/lists/partial" "$t/cache/archives/partial"
	uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" >"$t/sources.list"
	o=(-o "Dir::Etc::sourcelist=$t/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o "Dir::State::Lists=$t/lists" -o "Dir::Cache=$t/cache")
	apt-get "${o[@]}" update >&2
	# The .dsc may be missing on a partial mirror; the tarball is what counts.
	(cd "$cache/src" && apt-get "${o[@]}" source --download-only highs >&2) || true
	tarball=$(ls "$cache"/src/highs_*.orig.tar.xz 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$tarball" ] || {
		echo "highs.sh: could not fetch the highs source package from $uri ($suite)" >&2
		exit 1
	}
fi
version=$(basename "$tarball" | sed -E 's/^highs_([0-9.]+).*/\1/')
prefix=$cache/highs-$version-$target
if [ -f "$prefix/lib/libhighs.a" ]; then
	echo "$prefix/lib"
	exit 0
fi

# 2. Configure and build in the cache (not in the repository).
tools=(cmake ninja gcc g++)
[ -z "$triplet" ] || tools=(cmake ninja "$triplet-gcc-posix" "$triplet-g++-posix")
for tool in "${tools[@]}"; do
	command -v "$tool" >/dev/null || {
		echo "highs.sh: $tool not found (apt-get install gcc-mingw-w64 g++-mingw-w64 cmake ninja-build)" >&2
		exit 1
	}
done
work=$cache/build-highs-$version-$target
rm -rf "$work"
mkdir -p "$work"
tar -xJf "$tarball" -C "$work"
src=$(ls -d "$work"/HiGHS-* | head -1)
# Native: position-independent code, since Debian's gcc links PIE.
toolchain=(-DCMAKE_POSITION_INDEPENDENT_CODE=ON)
if [ -n "$triplet" ]; then
	cat >"$work/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME $system)
set(CMAKE_SYSTEM_PROCESSOR $processor)
set(CMAKE_C_COMPILER $triplet-gcc-posix)
set(CMAKE_CXX_COMPILER $triplet-g++-posix)
set(CMAKE_RC_COMPILER $triplet-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$triplet)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
	toolchain=(-DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake")
fi
start=$(date +%s)
cmake -S "$src" -B "$work/build" -G Ninja \
	"${toolchain[@]}" \
	-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DFAST_BUILD=ON \
	-DZLIB=OFF -DBUILD_TESTING=OFF -DHIGHSINT64=OFF >&2
nice -n 10 ninja -C "$work/build" -j "$jobs" highs >&2
lib=$(find "$work/build" -name libhighs.a | head -1)
[ -n "$lib" ] || {
	echo "highs.sh: the build produced no libhighs.a" >&2
	exit 1
}
mkdir -p "$prefix/lib"
cp "$lib" "$prefix/lib/libhighs.a.tmp"
mv "$prefix/lib/libhighs.a.tmp" "$prefix/lib/libhighs.a"
echo "HiGHS $version for $target from $(basename "$tarball"), built in $(($(date +%s) - start)) s wall" >"$prefix/BUILDINFO"
rm -rf "$work"
echo "$prefix/lib"
