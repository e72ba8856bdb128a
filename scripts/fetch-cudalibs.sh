#!/usr/bin/env bash
# fetch-cudalibs.sh: put NVIDIA's cuBLAS and cuFFT (CUDA 11.8, from Debian's
# non-free archive: libcublas11, libcublaslt11, libcufft10) into a private
# folder, so that the tests of backend/cuda can load them with dlopen and
# resolve their entry points on a machine without a GPU (they need a GPU to
# run: here they are loaded, bound and then refused by the fake driver's
# runtime checks, which tests the fallback), without changing the system's
# apt sources or installed packages.
#
#   scripts/fetch-cudalibs.sh DEST
#
# As scripts/fetch-nvrtc.sh: a private apt source file, list folder and
# cache (under a temporary folder), `apt-get download`, `dpkg -x` into DEST,
# and one line on standard output: the folder that holds libcublas.so.11.
# The source file copies the URIs:, Suites: (first word only) and Signed-By:
# of the first stanza of /etc/apt/sources.list.d/debian.sources with
# Components: non-free, so that no archive host is written anywhere.
#
# Idempotent: if DEST already holds libcublas.so.11 and libcufft.so.10 it
# only prints their folder. If the archive does not have the packages (or
# cannot be reached), it says so and exits 0 without printing a folder: the
# tests that need them skip.
#
# How the tests find them:
#   lib=$(scripts/fetch-cudalibs.sh .deps/cudalibs)
#   XPMPI_CUBLAS=$lib/libcublas.so.11 XPMPI_CUFFT=$lib/libcufft.so.10 go test ./backend/cuda/
# (libcublas.so.11 needs libcublasLt.so.11, which lies next to it: backend/cuda
# preloads it from the same folder.)
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 DEST" >&2
	exit 2
fi
mkdir -p "$1"
dest=$(cd "$1" && pwd)

# find_lib prints the folder of the first libcublas.so.11 under DEST, if
# libcufft.so.10 lies next to it.
find_lib() {
	local f
	f=$(find "$dest" -name 'libcublas.so.11' \( -type f -o -type l \) -print -quit 2>/dev/null || true)
	[ -n "$f" ] && [ -e "$(dirname "$f")/libcufft.so.10" ] && dirname "$f"
}

# finish LIBDIR: print LIBDIR, warning where cuBLASLt is missing.
finish() {
	local lib=$1
	if ! ls "$lib"/libcublasLt.so.11 >/dev/null 2>&1; then
		echo "fetch-cudalibs: warning: no libcublasLt.so.11 in $lib" >&2
	fi
	echo "$lib"
}

if lib=$(find_lib); then
	echo "fetch-cudalibs: cuBLAS and cuFFT already in $lib" >&2
	finish "$lib"
	exit 0
fi

sources=/etc/apt/sources.list.d/debian.sources
if [ ! -r "$sources" ]; then
	echo "fetch-cudalibs: $sources not found; cannot fetch cuBLAS and cuFFT (their tests will skip)" >&2
	exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	echo "fetch-cudalibs: apt-get or dpkg missing; cannot fetch cuBLAS and cuFFT (their tests will skip)" >&2
	exit 0
fi

# The first stanza's fields (stanzas are separated by blank lines; comment
# lines are skipped).
read_field() {
	awk -v key="$1" '
		/^[[:space:]]*$/ { if (seen) exit; next }
		/^#/ { next }
		{ seen = 1 }
		tolower($1) == tolower(key) ":" { $1 = ""; sub(/^[[:space:]]+/, ""); print; exit }
	' "$sources"
}
uris=$(read_field URIs)
suite=$(read_field Suites | awk '{ print $1 }')
signed=$(read_field Signed-By)
if [ -z "$uris" ] || [ -z "$suite" ]; then
	echo "fetch-cudalibs: no URIs:/Suites: in the first stanza of $sources; cannot fetch cuBLAS and cuFFT" >&2
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/xpmpi-cudalibs.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sources" "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
{
	echo "Types: deb"
	echo "URIs: $uris"
	echo "Suites: $suite"
	echo "Components: non-free"
	[ -n "$signed" ] && echo "Signed-By: $signed"
} >"$work/sources/nonfree.sources"

# Everything apt reads or writes is private: no system source, list or
# cache changes.
apt_opts=(
	-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$work/sources"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Dir::Cache::archives=$work/cache/archives"
	-o "APT::Sandbox::User=root"
	-o "Debug::NoLocking=1"
)
pkgs=(libcublas11 libcublaslt11 libcufft10)

echo "fetch-cudalibs: reading the non-free index of $suite (private apt state in $work)" >&2
if ! apt-get "${apt_opts[@]}" -qq update >&2; then
	echo "fetch-cudalibs: apt-get update of the private non-free source failed; cuBLAS and cuFFT not fetched (their tests will skip)" >&2
	exit 0
fi
echo "fetch-cudalibs: downloading ${pkgs[*]}" >&2
if ! (cd "$work/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2); then
	echo "fetch-cudalibs: the archive does not have ${pkgs[*]} (or the download failed); cuBLAS and cuFFT not fetched (their tests will skip)" >&2
	exit 0
fi
for deb in "$work"/debs/*.deb; do
	echo "fetch-cudalibs: unpacking $(basename "$deb") into $dest" >&2
	dpkg -x "$deb" "$dest"
done

if ! lib=$(find_lib); then
	echo "fetch-cudalibs: the packages did not hold libcublas.so.11 and libcufft.so.10" >&2
	exit 1
fi
finish "$lib"
