#!/usr/bin/env bash
# fetch-nvrtc.sh: put NVIDIA's run-time CUDA compiler (NVRTC 11.8, from
# Debian's non-free archive) into a private folder, so that the tests of
# backend/cuda can compile the backend's kernels to PTX on a machine without
# a GPU, without changing the system's apt sources or installed packages.
#
#   scripts/fetch-nvrtc.sh DEST
#
# It downloads the .debs of libnvrtc11.2 and libnvrtc-builtins11.8 with a
# private apt source file, list folder and cache (all under a temporary
# folder), unpacks them with `dpkg -x` into DEST, adds the link
# libnvrtc.so -> libnvrtc.so.11.2, and prints on standard output one line:
# the folder that holds libnvrtc.so.11.2. Messages go to standard error.
#
# The private source file copies the URIs:, Suites: (first word only) and
# Signed-By: of the first stanza of /etc/apt/sources.list.d/debian.sources,
# with Components: non-free, so that no archive host is written anywhere.
#
# Idempotent: if DEST already holds libnvrtc.so.11.2 it only prints its
# folder. If the archive does not have the packages (or cannot be reached),
# it says so and exits 0 without printing a folder: the NVRTC test then
# skips.
#
# How the tests find the library (NVRTC 11.2 dlopens
# libnvrtc-builtins.so.11.8, which must be findable too):
#   lib=$(scripts/fetch-nvrtc.sh .deps/nvrtc)
#   XPMPI_NVRTC=$lib/libnvrtc.so.11.2 LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
#       go test ./backend/cuda/
# (backend/cuda also preloads the libnvrtc-builtins library that lies next to
# the NVRTC it loads, so XPMPI_NVRTC alone is enough for it; LD_LIBRARY_PATH
# is for everything else.)
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 DEST" >&2
	exit 2
fi
mkdir -p "$1"
dest=$(cd "$1" && pwd)

# find_lib prints the folder of the first libnvrtc.so.11.2 under DEST.
find_lib() {
	local f
	f=$(find "$dest" -name 'libnvrtc.so.11.2' \( -type f -o -type l \) -print -quit 2>/dev/null || true)
	[ -n "$f" ] && dirname "$f"
}

# finish LIBDIR: make libnvrtc.so findable and print LIBDIR.
finish() {
	local lib=$1
	[ -e "$lib/libnvrtc.so" ] || ln -sf libnvrtc.so.11.2 "$lib/libnvrtc.so"
	if ! ls "$lib"/libnvrtc-builtins.so* >/dev/null 2>&1; then
		echo "fetch-nvrtc: warning: no libnvrtc-builtins library in $lib" >&2
	fi
	echo "$lib"
}

if lib=$(find_lib); then
	echo "fetch-nvrtc: NVRTC already in $lib" >&2
	finish "$lib"
	exit 0
fi

sources=/etc/apt/sources.list.d/debian.sources
if [ ! -r "$sources" ]; then
	echo "fetch-nvrtc: $sources not found; cannot fetch NVRTC (the NVRTC test will skip)" >&2
	exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	echo "fetch-nvrtc: apt-get or dpkg missing; cannot fetch NVRTC (the NVRTC test will skip)" >&2
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
	echo "fetch-nvrtc: no URIs:/Suites: in the first stanza of $sources; cannot fetch NVRTC" >&2
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/xpmpi-nvrtc.XXXXXX")
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
pkgs=(libnvrtc11.2 libnvrtc-builtins11.8)

echo "fetch-nvrtc: reading the non-free index of $suite (private apt state in $work)" >&2
if ! apt-get "${apt_opts[@]}" -qq update >&2; then
	echo "fetch-nvrtc: apt-get update of the private non-free source failed; NVRTC not fetched (the NVRTC test will skip)" >&2
	exit 0
fi
echo "fetch-nvrtc: downloading ${pkgs[*]}" >&2
if ! (cd "$work/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2); then
	echo "fetch-nvrtc: the archive does not have ${pkgs[*]} (or the download failed); NVRTC not fetched (the NVRTC test will skip)" >&2
	exit 0
fi
for deb in "$work"/debs/*.deb; do
	echo "fetch-nvrtc: unpacking $(basename "$deb") into $dest" >&2
	dpkg -x "$deb" "$dest"
done

if ! lib=$(find_lib); then
	echo "fetch-nvrtc: the packages did not hold libnvrtc.so.11.2" >&2
	exit 1
fi
finish "$lib"
