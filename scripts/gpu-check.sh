#!/usr/bin/env bash
# gpu-check.sh: the checks that need an NVIDIA GPU, prepared here and run on
# a machine that has one (which has no Go toolchain and no network).
#
#   scripts/gpu-check.sh build   # here: builds everything into .gpu/ and
#                                # prints the one command to run there
#   scripts/gpu-check.sh run     # there (from the repository root, with
#                                # .gpu/ carried): runs the checks, prints a
#                                # short table, writes logs under $OUT (or
#                                # build/gpu-logs)
#
# What "run" checks, within about 5 minutes:
#   conformance   backend/cuda's conformance suite and GPU tests on the device
#   staging       a 2-rank dist test on one GPU through host staging (MPI is
#                 not CUDA-aware there): the Open MPI runtime is carried in
#                 .gpu/ompi; skipped with the reason if it cannot start
#   bandwidth     W1 triad on the device against a device-to-device copy in
#                 the same run, and pinned copy bandwidth both ways
#   info          xpmpi info with the CUDA backend selected
# NVRTC is looked for under /usr/local/cuda/lib64 there (XPMPI_NVRTC wins).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
gpu=$root/.gpu

build() {
	if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
		export PATH=/usr/local/go/bin:$PATH
	fi
	scripts/setup.sh >/dev/null || return 1
	rm -rf "$gpu"
	mkdir -p "$gpu"
	set -e
	go test -c -o "$gpu/cuda.test" ./backend/cuda
	go test -tags mpi -c -o "$gpu/dist.test" ./dist
	go test -c -o "$gpu/kernels.test" ./kernels
	go test -c -o "$gpu/fuse.test" ./kernels/fuse
	go build -o "$gpu/xpmpi" ./cmd/xpmpi
	# The Open MPI runtime for the 2-rank test: the launcher, its helper
	# programs, the libraries the binaries load and Open MPI's plugins and
	# help files, relocated with OPAL_PREFIX.
	mkdir -p "$gpu/ompi/bin" "$gpu/ompi/lib" "$gpu/ompi/share"
	for b in orterun orted; do
		cp "$(command -v $b || echo /usr/bin/$b)" "$gpu/ompi/bin/" 2>/dev/null || true
	done
	ln -sf orterun "$gpu/ompi/bin/mpirun"
	local libs
	libs=$( (ldd "$gpu/dist.test"; ldd /usr/bin/orterun) | awk '/=>/ { print $3 }' | grep -v -E 'libc\.so|libm\.so|ld-linux|libpthread|libdl|librt' | sort -u)
	for l in $libs; do cp -L "$l" "$gpu/ompi/lib/"; done
	# Plugins where a relocated Debian Open MPI looks for them:
	# $OPAL_PREFIX followed by the libdir below the configured prefix /usr.
	mkdir -p "$gpu/ompi/lib/x86_64-linux-gnu/openmpi/lib"
	cp -rL /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3 "$gpu/ompi/lib/x86_64-linux-gnu/openmpi/lib/"
	cp -rL /usr/share/openmpi "$gpu/ompi/share/" 2>/dev/null || true
	cp -rL /etc/openmpi "$gpu/ompi/etc" 2>/dev/null || true
	set +e
	du -sh "$gpu" | awk '{ print "built .gpu/ (" $1 ")" }'
	cat <<'MSG'

Run on the GPU machine, from the repository root, carrying .gpu:
  scripts/gpu-check.sh run
MSG
}

row() { printf '%-12s %-6s %s\n' "$1" "$2" "$3" | tee -a "$out/summary.txt"; }

run() {
	out=${OUT:-$root/build/gpu-logs}
	mkdir -p "$out"
	: >"$out/summary.txt"
	[ -x "$gpu/cuda.test" ] || { echo "no .gpu/cuda.test: run 'scripts/gpu-check.sh build' here first and carry .gpu"; return 1; }
	for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
		if [ -z "${XPMPI_NVRTC:-}" ] && compgen -G "$d/libnvrtc.so*" >/dev/null; then
			export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		fi
	done
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/nvidia-smi.txt" 2>&1
	echo "device: $(head -1 "$out/nvidia-smi.txt")"
	printf '%-12s %-6s %s\n' CHECK RESULT DETAIL

	# conformance and the other device tests (the bandwidth test separately)
	timeout 240 "$gpu/cuda.test" -test.v -test.run '^TestGPU' -test.skip 'TestGPUBandwidth' >"$out/conformance.log" 2>&1
	local rc=$?
	local np ns
	np=$(grep -c -- '^--- PASS' "$out/conformance.log")
	ns=$(grep -c -- '--- SKIP' "$out/conformance.log")
	if [ $rc -eq 0 ] && [ "$np" -gt 0 ]; then row conformance pass "$np tests passed, $ns skipped"; else row conformance FAIL "exit $rc; see conformance.log"; fi

	# W1 on the device and pinned copies
	timeout 120 "$gpu/cuda.test" -test.v -test.run '^TestGPUBandwidth$' >"$out/bandwidth.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q GPUBW "$out/bandwidth.log"; then
		row bandwidth pass "$(grep -o 'GPUBW .*' "$out/bandwidth.log" | sed 's/GPUBW //' | tr '\n' ' ')"
	else
		row bandwidth FAIL "exit $rc; see bandwidth.log"
	fi

	# 2 ranks on one GPU through host staging
	local ompi=$gpu/ompi
	if [ -x "$ompi/bin/orterun" ]; then
		OPAL_PREFIX=$ompi LD_LIBRARY_PATH=$ompi/lib:${LD_LIBRARY_PATH:-} PATH=$ompi/bin:$PATH \
			OMPI_MCA_plm_rsh_agent= OMPI_MCA_btl_vader_single_copy_mechanism=none XPMPI_CUDA_AWARE=0 \
			timeout 120 "$ompi/bin/orterun" --allow-run-as-root --oversubscribe -np 2 \
			"$gpu/dist.test" -test.run 'Device|Halo|Staging' -test.v >"$out/staging.log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then row staging pass "2 ranks, one GPU, MPI not CUDA-aware"; else row staging FAIL "exit $rc; see staging.log"; fi
	else
		row staging skip "no Open MPI runtime in .gpu/ompi"
	fi

	XPMPI_BACKEND=cuda timeout 60 "$gpu/xpmpi" info >"$out/info.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q 'cuda.*available on cuda' "$out/info.log"; then row info pass "$(grep -o 'cuda:[0-9]* of [0-9]*' "$out/info.log" | head -1)"; else row info FAIL "exit $rc; see info.log"; fi

	# The kernel catalog's parity on the device, and the fused expressions
	# (their generated CUDA) against the CPU.
	{
		timeout 180 "$gpu/kernels.test" -test.v -test.run '^(TestCatalogParity|TestCompilePTX|TestHeadersNVRTC)$'
		XPMPI_BACKEND=cuda timeout 120 "$gpu/xpmpi" kernels --compile --parity
	} >"$out/kernels.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then row kernels pass "catalog parity on the GPU"; else row kernels FAIL "exit $rc; see kernels.log"; fi
	timeout 180 "$gpu/fuse.test" -test.v -test.run '^TestGPU' >"$out/fuse.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q -- '--- SKIP' "$out/fuse.log"; then row fuse pass "fused kernels match the CPU"; else row fuse FAIL "exit $rc; see fuse.log"; fi
	! grep -q FAIL "$out/summary.txt"
}

case "${1:-}" in
build) build ;;
run) run ;;
*)
	echo "usage: scripts/gpu-check.sh build|run" >&2
	exit 2
	;;
esac
