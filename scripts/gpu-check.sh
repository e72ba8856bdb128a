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
#   scripts/gpu-check.sh dry-run # here: what run would do, each command
#                                # printed instead of run (checks that the
#                                # binaries and paths it needs are there)
#
# What "run" checks, within about 6 minutes:
#   conformance   backend/cuda's conformance suite and GPU tests on the device
#                 (xpmpi's kernels: the parity mode, the CPU's bits)
#   vendor        cuBLAS and cuFFT found and started on the device (the
#                 default vendor mode), their GEMM and FFT against xpmpi's
#                 kernels and the CPU within the stated bounds
#                 (TestGPUVendor); FAIL if they do not start
#   timing        W9's matrix product (2048^2 float64 and float32, GFLOP/s)
#                 and W8's 2-D FFT (2048^2 complex128, forward and inverse,
#                 GFLOP/s) in the vendor and the parity mode, and the two
#                 modes compared (TestVendorTiming): one GPUTIME line each
#   dist-kernels  a user stencil kernel launched on dist arrays (LaunchDist)
#                 on the GPU against the serial steps, bit for bit
#   staging       a 2-rank dist test on one GPU through host staging (MPI is
#                 not CUDA-aware there): the Open MPI runtime is carried in
#                 .gpu/ompi; skipped with the reason if it cannot start
#   bandwidth     W1 triad on the device against a device-to-device copy in
#                 the same run, and pinned copy bandwidth both ways
#   info          xpmpi info with the CUDA backend selected
# NVRTC, cuBLAS and cuFFT are looked for under /usr/local/cuda/lib64 there
# (XPMPI_NVRTC, XPMPI_CUBLAS and XPMPI_CUFFT win).
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
	# Stripped (-s -w: no symbol table or DWARF; panics still name their
	# functions), so that .gpu/ stays under the 64 MiB a device run carries.
	local ld=(-ldflags='-s -w')
	go test "${ld[@]}" -c -o "$gpu/cuda.test" ./backend/cuda
	go test "${ld[@]}" -tags mpi -c -o "$gpu/dist.test" ./dist
	go test "${ld[@]}" -c -o "$gpu/kernels.test" ./kernels
	go test "${ld[@]}" -c -o "$gpu/fuse.test" ./kernels/fuse
	go build "${ld[@]}" -o "$gpu/xpmpi" ./cmd/xpmpi
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
	if [ "$(du -sm "$gpu" | awk '{ print $1 }')" -gt 64 ]; then
		echo "warning: .gpu/ is over the 64 MiB a device run carries" >&2
	fi
	cat <<'MSG'

Run on the GPU machine, from the repository root, carrying .gpu:
  scripts/gpu-check.sh run
MSG
}

row() { printf '%-12s %-6s %s\n' "$1" "$2" "$3" | tee -a "$out/summary.txt"; }

# t LOG SECONDS CMD...: runs CMD with a timeout, its output into LOG; in a
# dry run, writes the command into LOG instead and says whether CMD's
# program is there.
t() {
	local log=$1 secs=$2
	shift 2
	if [ -n "${dry:-}" ]; then
		local prog=$1
		[ "$prog" = env ] && prog=$(printf '%s\n' "$@" | grep -v '=' | sed -n 2p)
		if [ -x "$prog" ] || command -v "$prog" >/dev/null 2>&1; then
			echo "DRY (found $prog): timeout $secs $*" | tee "$log"
		else
			echo "DRY (MISSING $prog): timeout $secs $*" | tee "$log"
		fi
		return 0
	fi
	timeout "$secs" "$@" >"$log" 2>&1
}

# result NAME RC DETAIL-IF-PASS FAIL-DETAIL: one row from a check's exit
# status (a dry run's rows say "dry").
result() {
	if [ -n "${dry:-}" ]; then row "$1" dry "$3"; elif [ "$2" -eq 0 ]; then row "$1" pass "$3"; else row "$1" FAIL "$4"; fi
}

# vendor_libs exports XPMPI_CUBLAS and XPMPI_CUFFT (unless set) to the
# newest libcublas.so.N and libcufft.so.N under the CUDA folders.
vendor_libs() {
	local d f
	for d in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
		if [ -z "${XPMPI_CUBLAS:-}" ]; then
			f=$(ls "$d"/libcublas.so.[0-9]* 2>/dev/null | grep -E 'libcublas\.so\.[0-9]+$' | sort -V | tail -1)
			[ -n "$f" ] && export XPMPI_CUBLAS=$f
		fi
		if [ -z "${XPMPI_CUFFT:-}" ]; then
			f=$(ls "$d"/libcufft.so.[0-9]* 2>/dev/null | grep -E 'libcufft\.so\.[0-9]+$' | sort -V | tail -1)
			[ -n "$f" ] && export XPMPI_CUFFT=$f
		fi
	done
	echo "cuBLAS: ${XPMPI_CUBLAS:-not found under the CUDA folders (the loader path is searched)}"
	echo "cuFFT: ${XPMPI_CUFFT:-not found under the CUDA folders (the loader path is searched)}"
}

run() {
	out=${OUT:-$root/build/gpu-logs}
	mkdir -p "$out"
	: >"$out/summary.txt"
	if [ -z "${dry:-}" ]; then
		[ -x "$gpu/cuda.test" ] || { echo "no .gpu/cuda.test: run 'scripts/gpu-check.sh build' here first and carry .gpu"; return 1; }
	fi
	for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
		if [ -z "${XPMPI_NVRTC:-}" ] && compgen -G "$d/libnvrtc.so*" >/dev/null; then
			export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		fi
	done
	vendor_libs | tee "$out/vendor-libs.txt"
	if [ -z "${dry:-}" ]; then
		nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/nvidia-smi.txt" 2>&1
	else
		echo "DRY: nvidia-smi" >"$out/nvidia-smi.txt"
	fi
	echo "device: $(head -1 "$out/nvidia-smi.txt")"
	printf '%-12s %-6s %s\n' CHECK RESULT DETAIL

	# conformance and the other device tests (the bandwidth test separately)
	t "$out/conformance.log" 240 "$gpu/cuda.test" -test.v -test.run '^TestGPU' -test.skip 'TestGPUBandwidth'
	local rc=$?
	local np ns
	np=$(grep -c -- '^--- PASS' "$out/conformance.log")
	ns=$(grep -c -- '--- SKIP' "$out/conformance.log")
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && [ "$np" -eq 0 ] && rc=1
	result conformance $rc "$np tests passed, $ns skipped" "exit $rc; see conformance.log"

	# cuBLAS and cuFFT against xpmpi's kernels and the CPU; FAIL where
	# they do not start (the vendor mode would silently be the kernels').
	t "$out/vendor.log" 120 "$gpu/cuda.test" -test.v -test.run '^TestGPUVendor$'
	rc=$?
	local st
	st=$(grep -o 'vendor mode: .*' "$out/vendor.log" | head -1)
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && ! echo "$st" | grep -q 'GEMM cuBLAS .*FFT cuFFT ' && rc=1
	result vendor $rc "${st:-vendor mode}" "exit $rc; ${st:-see vendor.log}"

	# W9 and W8 on the device: vendor against parity mode, GFLOP/s
	t "$out/timing.log" 240 "$gpu/cuda.test" -test.v -test.run '^TestVendorTiming$'
	rc=$?
	grep -q -- '--- SKIP: TestVendorTiming' "$out/timing.log" && rc=1
	result timing $rc "$(grep -o 'GPUTIME .*' "$out/timing.log" | sed 's/GPUTIME //' | tr '\n' ';')" "exit $rc; see timing.log"
	grep -o 'GPUTIME .*' "$out/timing.log" >>"$out/summary.txt"

	# W1 on the device and pinned copies
	t "$out/bandwidth.log" 120 "$gpu/cuda.test" -test.v -test.run '^TestGPUBandwidth$'
	rc=$?
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && ! grep -q GPUBW "$out/bandwidth.log" && rc=1
	result bandwidth $rc "$(grep -o 'GPUBW .*' "$out/bandwidth.log" | sed 's/GPUBW //' | tr '\n' ' ')" "exit $rc; see bandwidth.log"

	# 2 ranks on one GPU through host staging
	local ompi=$gpu/ompi
	if [ -x "$ompi/bin/orterun" ] || [ -n "${dry:-}" ]; then
		t "$out/staging.log" 120 env OPAL_PREFIX="$ompi" LD_LIBRARY_PATH="$ompi/lib:${LD_LIBRARY_PATH:-}" PATH="$ompi/bin:$PATH" \
			OMPI_MCA_plm_rsh_agent= OMPI_MCA_btl_vader_single_copy_mechanism=none XPMPI_CUDA_AWARE=0 \
			"$ompi/bin/orterun" --allow-run-as-root --oversubscribe -np 2 \
			"$gpu/dist.test" -test.run 'Device|Halo|Staging' -test.v
		rc=$?
		result staging $rc "2 ranks, one GPU, MPI not CUDA-aware" "exit $rc; see staging.log"
	else
		row staging skip "no Open MPI runtime in .gpu/ompi"
	fi

	t "$out/info.log" 60 env XPMPI_BACKEND=cuda "$gpu/xpmpi" info
	rc=$?
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && ! grep -q 'cuda.*available on cuda' "$out/info.log" && rc=1
	result info $rc "$(grep -o 'cuda:[0-9]* of [0-9]*' "$out/info.log" | head -1) $(grep -o 'GPU libraries.*' "$out/info.log" | cut -c1-200)" "exit $rc; see info.log"

	# The kernel catalog's parity on the device (the host implementations
	# against the CUDA kernels: --parity exits 3 if it compared nothing),
	# and the fused expressions (their generated CUDA) against the CPU.
	t "$out/kernels.log" 180 "$gpu/kernels.test" -test.v -test.run '^(TestCatalogParity|TestCompilePTX|TestHeadersNVRTC)$'
	rc=$?
	t "$out/kernels-cli.log" 120 env XPMPI_BACKEND=cuda "$gpu/xpmpi" kernels --compile --parity
	local rc2=$?
	[ $rc2 -ne 0 ] && rc=$rc2
	result kernels $rc "catalog parity on the GPU ($(grep -c '^ok   ' "$out/kernels-cli.log") cases compared)" "exit $rc; see kernels.log and kernels-cli.log (exit 3: nothing compared)"
	t "$out/dist-kernels.log" 120 "$gpu/kernels.test" -test.v -test.run '^(TestLaunchDist|TestLaunchDistEmulated|ExampleKernel_LaunchDist)$'
	rc=$?
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && grep -q -- '--- SKIP: TestLaunchDistEmulated' "$out/dist-kernels.log" && rc=1
	result dist-kernels $rc "a stencil kernel on dist blocks on the GPU, the serial steps' bits" "exit $rc; see dist-kernels.log"
	t "$out/fuse.log" 180 "$gpu/fuse.test" -test.v -test.run '^TestGPU'
	rc=$?
	[ $rc -eq 0 ] && [ -z "${dry:-}" ] && grep -q -- '--- SKIP' "$out/fuse.log" && rc=1
	result fuse $rc "fused kernels match the CPU" "exit $rc; see fuse.log"
	! grep -q FAIL "$out/summary.txt"
}

case "${1:-}" in
build) build ;;
run) run ;;
dry-run)
	dry=1
	OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-dry.XXXXXX")}
	run
	echo "dry run: logs under $OUT"
	;;
*)
	echo "usage: scripts/gpu-check.sh build|run|dry-run" >&2
	exit 2
	;;
esac
