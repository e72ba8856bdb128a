#!/usr/bin/env bash
# test.sh: xpmpi's whole test suite, the README's test command.
#
#   scripts/test.sh
#
# Steps, in order; each prints a header and its time, stops at its own first
# error, and the suite goes on to the next step (a failed setup stops it):
#   setup       scripts/setup.sh (installs what is missing), and as root
#               scripts/setup.sh --slurm (Slurm and munge for slurm.sh)
#   gofmt       gofmt -l must print nothing
#   vet         go vet for every build tag: none, mpi, and mpi,mpich and
#               (mpi,petsc) on the packages whose files those tags select; and
#               dist, mpi, backend, staging, kernels with CGO_ENABLED=0
#   default     go build ./... and go test ./... (serial stand-in)
#   mpi         each package whose TestMain calls mpitest.Main, built with
#               -tags mpi and run under Open MPI's mpirun at 1, 2, 3, 4 ranks
#               (-test.short where the ranks outnumber the cores)
#   race        go test -race -short on the default build, on the packages
#               whose own code is concurrent (goroutines, sync/atomic,
#               mutexes, wait groups)
#   fuzz        each fuzzer for XPMPI_FUZZTIME (default 30000x: a count of
#               inputs; a duration can end in a spurious "context deadline
#               exceeded")
#   tcp         the mpi package's tests at 2 and 3 ranks over TCP only
#   serialized, sleep, single
#               the mpi package's tests at 2 ranks with the package lock
#               (XPMPI_THREAD_LEVEL=serialized), in sleep mode
#               (XPMPI_MPI_WAIT=sleep) and at MPI_THREAD_SINGLE
#               (XPMPI_THREAD_LEVEL=single; under MPICH too)
#   mpich       the same test binaries built with -tags mpi,mpich and run
#               under MPICH's launcher at 2 and 3 ranks (where the ranks
#               outnumber the cores: the binding's sleep mode, -test.short,
#               ./mpi and ./dist only, and of ./dist its collectives'
#               subset; not dist/disttest, whose MPI calls are dist's),
#               and the CLI built for MPICH (build/xpmpi-mpich); ldd must show every one linked
#               to libmpich, not Open MPI's libmpi.so.40, and xpmpi info
#               under MPICH's launcher must report MPICH (skipped without MPICH)
#   hosts       two simulated hosts x 2 ranks (scripts/hosts.sh: network
#               namespaces), under Open MPI and under MPICH: the mpi tests, a
#               dist subset, xpmpi info, selftest and heat2d (skipped with
#               the reason where hosts.sh cannot run: not root, no ip netns)
#   integration bin/xpmpi and the default-build CLI, then go test ./tests/
#   bench guard bin/xpmpi bench --small --check bench/baseline.json at 1 rank:
#               a slower row is a WARNING in the summary, never a failure
#   petsc       only once petsc/ holds Go files: -tags mpi,petsc under mpirun
#   hdf5        h5 with -tags mpi,hdf5 under mpirun at 1-4 ranks, and the
#               CLI built with them (build/xpmpi-hdf5) under tests/' TestH5*
#               (where pkg-config hdf5-openmpi finds parallel HDF5)
# It ends with a line "N passed, M failed" and exits non-zero on a failure.
#
# Environment:
#   XPMPI_QUICK=1          pass -short to the tests
#   XPMPI_MPI_TIMEOUT=300  seconds one mpirun case may take; a hang fails it
#   XPMPI_TEST_TMPDIR      where the tests write their files (default: a new
#                          directory on /dev/shm where it has 4 GiB free)
#   XPMPI_NP_LIST="1 2 3 4"  rank counts of the mpi phase
# Logs of the mpirun cases: build/logs/<pkg>-np<N>.log.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi

quick=${XPMPI_QUICK:-0}
limit=${XPMPI_MPI_TIMEOUT:-300}
np_list=${XPMPI_NP_LIST:-"1 2 3 4"}
mpich_np_list="2 3"
# The mpi package's tests run again at XPMPI_THREAD_LEVEL=serialized and
# single (the library lock on): requests, point to point, collectives
# beside each other, the level granted.
lock_run='TestConcurrentCalls|TestReduceValue|TestRecvBesideSend|TestThreadLevel|TestLibraryInfo|TestNonBlockingCollectives|TestPointToPoint|TestProbe|TestScan|TestAlltoall|TestFileView'
cores=$(nproc 2>/dev/null || echo 1)
short=()
[ "$quick" = 1 ] && short=(-short)
# The test binary's own timeout fires first, so a hang prints its goroutines.
test_timeout=$((limit > 60 ? limit - 15 : limit * 3 / 4))

# Open MPI in containers: more ranks than cores, and no CMA single copy.
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

mkdir -p build/test build/logs bin

results=()  # "status|seconds|name"
n_pass=0
n_fail=0

# step NAME COMMAND...: run COMMAND in a subshell with set -e, so that it
# stops at its first error, and record the result and the time taken.
step() {
	local name=$1
	shift
	printf '\n==> %s\n' "$name"
	local t0=$EPOCHREALTIME
	(
		set -e
		"$@"
	)
	local rc=$?
	local secs
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ $rc -eq 0 ]; then
		printf '<== %s: ok (%ss)\n' "$name" "$secs"
		results+=("ok|$secs|$name")
		n_pass=$((n_pass + 1))
	else
		printf '<== %s: FAILED (exit %d, %ss)\n' "$name" "$rc" "$secs"
		results+=("FAILED|$secs|$name")
		n_fail=$((n_fail + 1))
	fi
	return 0
}

skip() {
	printf '\n==> %s\n<== %s: skipped: %s\n' "$1" "$1" "$2"
	results+=("skipped|-|$1: $2")
}

summary() {
	printf '\n==> summary\n'
	local r status secs name
	for r in "${results[@]}"; do
		IFS='|' read -r status secs name <<<"$r"
		printf '  %-8s %7s  %s\n' "$status" "${secs}s" "$name"
	done
	if [ $n_fail -gt 0 ]; then
		printf '\nfailed steps:\n'
		for r in "${results[@]}"; do
			IFS='|' read -r status secs name <<<"$r"
			[ "$status" = FAILED ] && printf '  %s\n' "$name"
		done
	fi
	printf '\n%d passed, %d failed\n' "$n_pass" "$n_fail"
}

# report LOG RC: say why an mpirun case failed, with the lines of every rank
# that printed more than PASS (Open MPI's [1,r] tags, MPICH's [r] tags) and
# what the launcher said.
report() {
	local log=$1 rc=$2
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "    timed out after ${limit}s (a hang?); killed"
	fi
	awk '
	function keep(r, line, rest) {
		if (!(r in n)) { n[r] = 0; order[++nr] = r }
		n[r]++
		if (n[r] <= 40) out[r] = out[r] "    " line "\n"
		if (rest ~ /^(--- FAIL|FAIL|panic: |fatal error|test timed out)|panic on rank|SIGSEGV/) bad[r] = 1
	}
	{
		line = $0
		if (match(line, /^\[[0-9]+,[0-9]+\]<std(out|err)>:/)) {
			r = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
			sub(/^\[[0-9]+,/, "", r); sub(/\].*$/, "", r); r = "rank " r
		} else if (match(line, /^\[[0-9]+\] /)) {
			rest = substr(line, RLENGTH + 1); r = "rank " substr(line, 2, RLENGTH - 3)
		} else {
			rest = line; r = "launcher"
		}
		if (rest ~ /^(PASS|ok .*)?[ \t]*$/ || rest ~ /^-+$/) next
		keep(r, line, rest)
	}
	END {
		for (i = 1; i <= nr; i++) {
			r = order[i]
			printf "  %s%s:\n%s", r, (r in bad) ? " (failed)" : "", out[r]
			if (n[r] > 40) printf "    ... %d more lines\n", n[r] - 40
		}
	}' "$log"
	echo "    full log: $log"
}

# run_mpi LOG LAUNCHER...: run one case under a time limit.
run_mpi() {
	local log=$1
	shift
	echo "    $* > $log"
	local rc=0
	timeout -k 5 "$limit" "$@" >"$log" 2>&1 || rc=$?
	last_rc=$rc
	if [ $rc -ne 0 ]; then
		echo "    exit $rc"
		report "$log" "$rc"
		return 1
	fi
	echo "    passed; output: $(grep -c '' "$log") lines"
}

# ---------------------------------------------------------------- setup
step "setup" scripts/setup.sh
if [ $n_fail -gt 0 ]; then
	echo "setup failed: nothing else can run"
	summary
	exit 1
fi
# Slurm and munge for the integration tests' two-node Slurm cluster
# (scripts/slurm.sh, on the simulated hosts, as root): an install of its
# own, since a user of scripts/setup.sh alone has a cluster's Slurm or none.
if [ "$(id -u)" -eq 0 ]; then
	step "setup --slurm (Slurm for TestHosts/Slurm)" scripts/setup.sh --slurm
fi

# Packages whose tests run on every rank of a job: TestMain calls mpitest.Main.
mapfile -t mpi_pkgs < <(
	find . -name '*_test.go' -not -path './build/*' -not -path './bin/*' \
		-not -path '*/testdata/*' -not -path './.*' -print0 |
		xargs -0 grep -l 'mpitest\.Main(' 2>/dev/null |
		xargs -r -n1 dirname | sort -u | grep -v '^\./\(petsc\|h5\)\(/\|$\)'
)
have_petsc=0
compgen -G 'petsc/*.go' >/dev/null && have_petsc=1
# h5 runs in its own phase with -tags mpi,hdf5 (parallel HDF5 from
# libhdf5-openmpi-dev); without the tag it is stubs, which the default
# build's tests cover.
have_hdf5=0
[ -d h5 ] && pkg-config --exists hdf5-openmpi 2>/dev/null && have_hdf5=1
echo "packages tested under mpirun: ${mpi_pkgs[*]:-none}"

# The tests' files (t.TempDir, mpitest.TempDir, go test's binaries) on
# tmpfs where there is room: the checkpoint and .npy tests fsync every file
# they write, 2.6-4.4 s for dist's TestNPYRoundTrip on this machine's disk
# against 0.3 s on tmpfs, in each of the dist runs. XPMPI_TEST_TMPDIR
# chooses another directory. A killed run's directory is removed by the
# next run, and so are the shared-memory files and session directories
# that killed Open MPI launchers left and no live process holds
# (scripts/mpi-clean.sh), at the start and at the end.
for d in /dev/shm/xpmpi-test.*; do
	[ -d "$d" ] && ! kill -0 "${d##*.}" 2>/dev/null && rm -rf "$d"
done
"$root/scripts/mpi-clean.sh"
if [ -n "${XPMPI_TEST_TMPDIR:-}" ]; then
	export TMPDIR=$XPMPI_TEST_TMPDIR
elif [ -d /dev/shm ] && [ -w /dev/shm ] &&
	[ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $4}')" -gt $((4 << 20)) ] 2>/dev/null; then
	export TMPDIR=/dev/shm/xpmpi-test.$$
	mkdir -p "$TMPDIR"
fi
echo "test files under ${TMPDIR:-/tmp}"

# Open MPI's launcher (mpirun may be MPICH's, by Debian's alternatives).
ompi_run=$(command -v mpirun.openmpi || command -v mpirun || true)
ompi_flags=(--oversubscribe --tag-output)
[ "$(id -u)" -eq 0 ] && ompi_flags+=(--allow-run-as-root)
# MPICH: headers through pkg-config, and its own launcher.
mpich_run=""
if pkg-config --exists mpich 2>/dev/null; then
	mpich_run=$(command -v mpiexec.mpich || command -v mpirun.mpich || true)
fi

# ---------------------------------------------------------------- gofmt
check_gofmt() {
	local files out
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		mapfile -t files < <(git ls-files -co --exclude-standard -- '*.go')
	else
		mapfile -t files < <(find . -name '*.go' -not -path './.*')
	fi
	[ ${#files[@]} -eq 0 ] && return 0
	out=$(gofmt -l "${files[@]}")
	if [ -n "$out" ]; then
		echo "gofmt -l lists files that need formatting (run gofmt -w):"
		echo "$out"
		return 1
	fi
	echo "${#files[@]} files formatted"
}
step "gofmt" check_gofmt

# ---------------------------------------------------------------- fake CUDA driver
# The fake CUDA driver (backend/cuda/testdata/fakecuda: the .cu kernels
# compiled as C++ and run on the host; it stands in for NVRTC too), built
# once for backend/cuda's TestFakeDriver, the hosts phase and dist's CUDA
# step. -ffp-contract=off: no contracted multiply-adds, so the kernels give
# the CPU's bits. One g++ process of 19-34 s: it compiles in the background
# while go vet runs, and the default build's step below waits for it.
fakecuda_pid=
build_fakecuda() {
	mkdir -p build/fakecuda
	rm -f build/fakecuda/libcuda.so.1
	g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off -fno-strict-aliasing \
		-I backend/cuda -o build/fakecuda/libcuda.so.1 backend/cuda/testdata/fakecuda/fakecuda.cpp
}
if command -v g++ >/dev/null 2>&1; then
	(
		set -e
		build_fakecuda
	) >build/logs/fakecuda-build.log 2>&1 &
	fakecuda_pid=$!
fi

# ---------------------------------------------------------------- vet
step "go vet ./..." go vet ./...
# dist, mpi, backend and staging build without cgo: the CUDA backend (cgo)
# is the program's choice (backend/all), not a dependency of dist.
step "CGO_ENABLED=0 go vet ./dist ./mpi ./backend ./staging ./kernels/..." env CGO_ENABLED=0 go vet ./dist ./mpi ./backend ./staging ./kernels/...
# The mpi, mpich and petsc tags change the files of a few packages only
# (those with a build constraint naming the tag); every other package is
# the same code as in the default build, vetted above, and the MPI phases
# below compile it against the binding. A cold vet of ./... per tag took
# 30-40 s each.
tag_pkgs() { # TAG: the packages with a file whose build constraint names TAG
	grep -rlE --include='*.go' "^//go:build.*\b$1\b" --exclude-dir=build --exclude-dir=testdata . |
		xargs -r -n1 dirname | sort -u
}
# With petsc, one vet under mpi,petsc covers the mpi tag's packages too:
# the petsc tag only adds files, except the !petsc ones (cmd/xpmpi's
# petsc_off.go), which the default build's vet above covers.
vet_tags=mpi
[ $have_petsc = 1 ] && vet_tags+=,petsc
[ $have_hdf5 = 1 ] && vet_tags+=,hdf5
mapfile -t vet_pkgs < <({ tag_pkgs mpi; [ $have_petsc = 1 ] && tag_pkgs petsc; [ $have_hdf5 = 1 ] && tag_pkgs hdf5; } | sort -u)
step "go vet -tags $vet_tags ${vet_pkgs[*]}" go vet -tags $vet_tags "${vet_pkgs[@]}"
if [ -n "$mpich_run" ]; then
	mapfile -t vet_pkgs < <(tag_pkgs mpich)
	step "go vet -tags mpi,mpich ${vet_pkgs[*]}" go vet -tags mpi,mpich "${vet_pkgs[@]}"
else
	skip "go vet -tags mpi,mpich" "MPICH not found (pkg-config mpich, mpiexec.mpich)"
fi

# ---------------------------------------------------------------- NVRTC
# Debian's NVRTC (non-free, unpacked into .deps/ without touching the
# system's apt sources) lets the CUDA backend's kernels compile to PTX here,
# with no GPU; its tests skip with a message where it is absent.
if nvrtc_lib=$(scripts/fetch-nvrtc.sh "$root/.deps/nvrtc" 2>/dev/null | tail -n 1) && [ -f "$nvrtc_lib/libnvrtc.so.11.2" ]; then
	export XPMPI_NVRTC=$nvrtc_lib/libnvrtc.so.11.2
	export LD_LIBRARY_PATH=$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	echo "NVRTC for the CUDA kernel tests: $XPMPI_NVRTC"
else
	echo "NVRTC not available: the CUDA kernel compile tests will skip"
fi

# ---------------------------------------------------------------- default build
step "go build ./..." go build ./...
# The fake CUDA driver, built in the background since the vet step
# (above); the step waits for it.
fakecuda=
if [ -n "$fakecuda_pid" ]; then
	# wait works in this shell only (the background job is its child), not
	# in a step's subshell.
	fakecuda_t0=$EPOCHREALTIME fakecuda_rc=0
	wait "$fakecuda_pid" || fakecuda_rc=$?
	fakecuda_waited=$(awk -v a="$fakecuda_t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	fakecuda_report() {
		cat build/logs/fakecuda-build.log
		echo "waited ${fakecuda_waited}s for it after the vet steps"
		return $fakecuda_rc
	}
	step "g++ backend/cuda/testdata/fakecuda (the fake CUDA driver, built during the vet steps)" fakecuda_report
	[ -f build/fakecuda/libcuda.so.1 ] && fakecuda=$root/build/fakecuda/libcuda.so.1
fi
# The emulated tests of kernels, integrate, algorithms/algkern and fusecuda
# build fake drivers with their own kernels in (internal/fakecudatest),
# cached in the build tree rather than the user's cache directory.
export XPMPI_FAKECUDA_CACHE=$root/build/fakecuda-cache
# -vet=off here and in every later go test but the purego step's: go vet
# ran every analyzer on these files above (the default build's, and with
# the mpi, petsc, hdf5 and mpich tags the packages whose files those tags
# select); go test's own pass, a subset of them, took 6 s of this step.
step "go test ./... (default build)" env ${fakecuda:+XPMPI_FAKECUDA=$fakecuda} go test -vet=off -timeout 10m "${short[@]}" ./...
# The race detector on the default build (goroutine-parallel loops, the
# stand-in's queues, the profiling counters), with -short to bound its time,
# on the packages whose own code is concurrent: those that start goroutines
# or share state between goroutines (package sync/atomic, a sync.Mutex,
# RWMutex, WaitGroup or Cond; a sync.Once or Pool alone does not count)
# (race_pkgs). The others (algorithms, integrate, optimize, npy, fft, the
# solvers ...) start none; the concurrency they call into is raced in its
# own package. Without XPMPI_NVRTC: NVRTC's compile of every CUDA kernel
# (backend/cuda's TestCompileKernels, C++ the race detector does not see)
# ran in the default build above, and took 20 s more here.
race_pkgs() {
	go list -f '{{.Dir}}' ./... | while read -r d; do
		grep -lE '^[[:space:]]*go (func[[:space:]]*\(|[[:alnum:]_.]+(\[[^]]*\])?\()|"sync/atomic"|sync\.(Mutex|RWMutex|WaitGroup|Cond)\b' "$d"/*.go 2>/dev/null |
			grep -qv '_test\.go$' && echo "./${d#"$root"/}"
	done
}
mapfile -t rpkgs < <(race_pkgs)
step "go test -race -short ${rpkgs[*]} (default build)" env -u XPMPI_NVRTC go test -vet=off -race -short -timeout 15m "${rpkgs[@]}"
# The CPU backend without its AVX2 kernels (the Go loops alone), and the
# committed assembly against what its avo generator writes now.
step "go test -short -tags purego ./backend/cpu/... ./kernels/fuse/... ./internal/repro/... ./solvers/cg/... (no AVX2 kernels)" go test -short -tags purego ./backend/cpu/... ./kernels/fuse/... ./internal/repro/... ./solvers/cg/...
# check_asmgen DIR PKG NAME: internal/asmgen, run with -pkg PKG, writes
# what DIR/internal/PKG holds (NAME_amd64.s and NAME_stubs_amd64.go).
check_asmgen() {
	local dir=$1 pkg=$2 name=$3 tmp
	tmp=$(mktemp -d)
	(cd internal/asmgen && go run . -out "$tmp/${name}_amd64.s" -stubs "$tmp/${name}_stubs_amd64.go" -pkg "$pkg") || return 1
	sed -i "s#$tmp/#../internal/$pkg/#g" "$tmp/${name}_amd64.s" "$tmp/${name}_stubs_amd64.go"
	local rc=0
	diff -u "$dir/internal/$pkg/${name}_amd64.s" "$tmp/${name}_amd64.s" || rc=1
	diff -u "$dir/internal/$pkg/${name}_stubs_amd64.go" "$tmp/${name}_stubs_amd64.go" || rc=1
	rm -rf "$tmp"
	[ $rc -eq 0 ] || echo "$dir/internal/$pkg's assembly differs from its generator's output: regenerate it (go generate ./$dir/internal/$pkg; see internal/asmgen/gen.go)"
	return $rc
}
step "internal/asmgen -pkg vec writes backend/cpu/internal/vec's committed assembly" check_asmgen backend/cpu vec vec
step "internal/asmgen -pkg fvec writes kernels/fuse/internal/fvec's committed assembly" check_asmgen kernels/fuse fvec fvec
step "internal/asmgen -pkg rvec writes internal/repro/internal/rvec's committed assembly" check_asmgen internal/repro rvec rvec

# ---------------------------------------------------------------- fuzzers
# Each fuzzer briefly, from its committed seed corpus (PKG/testdata/fuzz),
# for a count of inputs rather than a time.
fuzz_time=${XPMPI_FUZZTIME:-30000x}
for pf in ./npy:FuzzHeader ./dist/internal/manifest:FuzzManifest ./kernels:FuzzParseSignatures ./kernels:FuzzCheckSource; do
	pkg=${pf%%:*} f=${pf#*:}
	step "go test -fuzz $f $pkg ($fuzz_time)" go test -vet=off -run '^$' -fuzz "^$f\$" -fuzztime "$fuzz_time" "$pkg"
done

# ---------------------------------------------------------------- bench reference
# The C reference of xpmpi bench, for the bench's end-to-end test in
# cmd/xpmpi (under Open MPI only: it is built against Open MPI's mpi.h).
build_ref() {
	mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c -lopenblas
}
step "mpicc bench/ref/xpref.c (the bench's C reference)" build_ref
[ -f build/libxpref.so ] && export XPMPI_BENCH_REF=$root/build/libxpref.so

# ---------------------------------------------------------------- mpi build
# bin_name PKG: ./backend/cpu -> backend_cpu
bin_name() {
	local p=${1#./}
	p=${p//\//_}
	echo "${p:-root}"
}

# build_tests TAGS PREFIX PACKAGES...: the packages' test binaries, as
# build/test/PREFIX<bin_name>.test, from one go test -c, whose compiles and
# links run side by side (16 packages with -tags mpi: 91 s, against 99 s
# for one go command per package; 15 with mpi,mpich: 71 s against 83 s;
# 2 cores, 2026-12-07). A package that does not build has no binary (no
# stale one either), and the step fails.
build_tests() {
	local tags=$1 prefix=$2 pkg out rc=0
	shift 2
	local tmp=$root/build/test/.build-$prefix$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for pkg in "$@"; do
		rm -f "$root/build/test/$prefix$(bin_name "$pkg").test"
	done
	# go test -c -o DIR/ names each binary after the package's directory.
	go test -tags "$tags" -vet=off -c -o "$tmp/" "$@" || rc=$?
	for pkg in "$@"; do
		out=$root/build/test/$prefix$(bin_name "$pkg").test
		if [ -f "$tmp/$(basename "$pkg").test" ]; then
			mv "$tmp/$(basename "$pkg").test" "$out"
		else
			echo "no test binary for $pkg"
			rc=1
		fi
	done
	rm -rf "$tmp"
	return $rc
}

# run_test_args: more arguments of the test binary for run_test, empty
# but where a phase sets them for some runs.
run_test_args=()
run_test() { # LOG PKG BINARY LAUNCHER...: run BINARY in PKG's directory
	local log=$1 pkg=$2 bin=$3
	shift 3
	local args=(-test.timeout="${test_timeout}s")
	[ "$quick" = 1 ] && args+=(-test.short)
	args+=("${run_test_args[@]}")
	cd "$pkg"
	last_rc=0
	run_mpi "$root/$log" "$@" "$bin" "${args[@]}" && return 0
	if [ "$last_rc" -eq 124 ] || [ "$last_rc" -eq 137 ]; then
		# Open MPI puts each rank in a process group of its own: make sure a
		# killed launcher left none of this binary's ranks running.
		sleep 1
		local left
		left=$(command -v pgrep >/dev/null && pgrep -f -- "^$bin " || true)
		if [ -n "$left" ]; then
			echo "    killing ranks left running: $(echo $left)"
			kill -KILL $left 2>/dev/null || true
		fi
	fi
	return 1
}

mpi_phase() { # TAG-SET PREFIX PACKAGES...
	local tags=$1 prefix=$2
	shift 2
	local pkg name bin np
	step "build -tags $tags: the tests of $*" build_tests "$tags" "$prefix" "$@"
	for pkg in "$@"; do
		name=$(bin_name "$pkg")
		bin=$root/build/test/$prefix$name.test
		if [ ! -x "$bin" ]; then
			skip "mpirun $pkg" "its test binary did not build"
			continue
		fi
		for np in $np_list; do
			# More ranks than cores: the long tests (testing.Short)
			# run at the rank counts that fit, and in the default build.
			run_test_args=() label="-tags $tags"
			if [ "$np" -gt "$cores" ]; then
				run_test_args=(-test.short)
				label+="; oversubscribed: -short"
			elif [ "$np" = 1 ] && [ "$pkg" = ./dist ] && [ "$cores" -lt 3 ]; then
				# dist's long tests run at 2 ranks and in the default
				# build's one; one real MPI rank adds little to them
				# (22 s of the suite's 20 minutes, 4 s with -short;
				# measured on 2 cores 2026-12-02).
				run_test_args=(-test.short)
				label+="; -short: the long tests run at 2 ranks"
			fi
			step "mpirun -np $np $pkg ($label)" \
				run_test "build/logs/$prefix$name-np$np.log" "$pkg" "$bin" \
				"$ompi_run" "${ompi_flags[@]}" -np "$np"
			run_test_args=()
		done
	done
}

no_mpirun() {
	echo "Open MPI's mpirun not found (mpirun.openmpi, mpirun): scripts/setup.sh installs openmpi-bin"
	return 1
}
if [ -z "$ompi_run" ]; then
	step "Open MPI's mpirun" no_mpirun
elif [ ${#mpi_pkgs[@]} -eq 0 ]; then
	skip "mpi phase" "no package's TestMain calls mpitest.Main"
else
	mpi_phase mpi "" "${mpi_pkgs[@]}"
fi

# ---------------------------------------------------------------- TCP
# The mpi package's tests once over TCP, the path that ranks on different
# machines take (no shared memory transport).
if [ -n "$ompi_run" ] && [ -x "$root/build/test/mpi.test" ]; then
	for np in 2 3; do
		step "mpirun -np $np ./mpi over TCP (btl self,tcp)" \
			run_test "build/logs/mpi-tcp-np$np.log" ./mpi "$root/build/test/mpi.test" \
			env OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1 "$ompi_run" "${ompi_flags[@]}" -np "$np"
	done
fi

# ---------------------------------------------------------------- SERIALIZED
# The binding asks for MPI_THREAD_MULTIPLE and takes no lock where it is
# granted (both libraries grant it here); XPMPI_THREAD_LEVEL=serialized
# brings back the package lock and Wait's polling. That path once, at 2
# ranks: requests, point to point, collectives beside each other
# ($lock_run).
if [ -n "$ompi_run" ] && [ -x "$root/build/test/mpi.test" ]; then
	run_test_args=(-test.run "$lock_run")
	step "mpirun -np 2 ./mpi at XPMPI_THREAD_LEVEL=serialized" \
		run_test "build/logs/mpi-serialized-np2.log" ./mpi "$root/build/test/mpi.test" \
		env XPMPI_THREAD_LEVEL=serialized "$ompi_run" "${ompi_flags[@]}" -x XPMPI_THREAD_LEVEL -np 2
	# ... and in sleep mode, where Wait's polls nap between tests.
	step "mpirun -np 2 ./mpi at XPMPI_THREAD_LEVEL=serialized XPMPI_MPI_WAIT=sleep" \
		run_test "build/logs/mpi-serialized-sleep-np2.log" ./mpi "$root/build/test/mpi.test" \
		env XPMPI_THREAD_LEVEL=serialized XPMPI_MPI_WAIT=sleep "$ompi_run" "${ompi_flags[@]}" -x XPMPI_THREAD_LEVEL -x XPMPI_MPI_WAIT -np 2
	# XPMPI_THREAD_LEVEL=single: MPI_THREAD_SINGLE under the same lock
	# (the mpi package documentation, Goroutines); TestThreadLevel fails
	# unless MPI granted exactly SINGLE.
	step "mpirun -np 2 ./mpi at XPMPI_THREAD_LEVEL=single" \
		run_test "build/logs/mpi-single-np2.log" ./mpi "$root/build/test/mpi.test" \
		env XPMPI_THREAD_LEVEL=single "$ompi_run" "${ompi_flags[@]}" -x XPMPI_THREAD_LEVEL -np 2
	run_test_args=()
fi

# ---------------------------------------------------------------- SLEEP
# Sleep mode (mpi package documentation, Waiting): every blocking call is
# its nonblocking form and a test loop. Init chooses it where a node has
# more ranks than CPUs (the MPICH runs at 3 ranks below, here); forced at
# 2 ranks under Open MPI, the whole mpi package, the differential test
# against the stand-in among them.
if [ -n "$ompi_run" ] && [ -x "$root/build/test/mpi.test" ]; then
	step "mpirun -np 2 ./mpi at XPMPI_MPI_WAIT=sleep" \
		run_test "build/logs/mpi-sleep-np2.log" ./mpi "$root/build/test/mpi.test" \
		env XPMPI_MPI_WAIT=sleep "$ompi_run" "${ompi_flags[@]}" -x XPMPI_MPI_WAIT -np 2
fi

# ---------------------------------------------------------------- MPICH
if [ -z "$mpich_run" ]; then
	skip "MPICH phase" "MPICH not found (pkg-config mpich and mpiexec.mpich or mpirun.mpich); scripts/setup.sh installs it"
else
	# links_mpich BINARY: ldd must show MPICH's libmpich and not Open MPI's
	# libmpi.so.40 (a build cache shared with the -tags mpi builds once gave
	# a -tags mpi,mpich build Open MPI).
	links_mpich() {
		local libs
		libs=$(ldd "$1")
		if ! grep -q 'libmpich\.so' <<<"$libs" || grep -q 'libmpi\.so\.40' <<<"$libs"; then
			echo "$1 is not linked to MPICH; ldd says:"
			grep -E 'libmpi|libmpich' <<<"$libs" || echo "    no MPI library"
			return 1
		fi
		echo "${1#"$root"/}: $(grep -oE 'libmpich\.so[.0-9]*' <<<"$libs" | head -n 1)"
	}
	mpich_dist_odd_run='^(TestGatherScatter|TestReductions|TestIntegerReductions|TestArgTiesAndNaN|TestHalo|TestRedistribute|TestSort|TestCheckpointRoundTrip|TestDeviceFaultReductions|TestUniqueNumPy|TestQuantileNumPy)$'
	# dist/disttest (the conformance matrix) runs under Open MPI at 1-4
	# ranks; every MPI call it makes is one of dist's, which ./dist's own
	# tests run under MPICH below. Its MPICH build and runs took 35-40 s
	# of the suite (2 cores, 2026-12-05).
	mpich_pkgs=()
	for pkg in "${mpi_pkgs[@]}"; do
		if [ "$pkg" = ./dist/disttest ]; then
			echo "MPICH: $pkg is not rebuilt for MPICH (the matrix runs under Open MPI at 1-4 ranks; ./dist's tests cover dist's MPI calls under MPICH)"
			continue
		fi
		mpich_pkgs+=("$pkg")
	done
	step "build -tags mpi,mpich: the tests of ${mpich_pkgs[*]}" build_tests mpi,mpich mpich- "${mpich_pkgs[@]}"
	# At more ranks than cores (3 on 2 cores: MPICH's algorithms for a
	# rank count that is not a power of two, in the binding's sleep mode)
	# ./mpi runs its -short tests, every call of the binding, and ./dist
	# the collectives' subset; the other packages make their MPI calls
	# through those two and run at 2 ranks here, at 3 and 4 under Open
	# MPI. Their runs at 3 ranks under MPICH took 61 s of the suite (2
	# cores, 2026-12-07), most of it naps of the sleep mode.
	[ "$cores" -lt 3 ] &&
		echo "MPICH at 3 ranks (more than the $cores cores): ./mpi and ./dist only; every package runs at 2 ranks"
	for pkg in "${mpich_pkgs[@]}"; do
		name=$(bin_name "$pkg")
		bin=$root/build/test/mpich-$name.test
		if [ ! -x "$bin" ]; then
			skip "MPICH $pkg" "its test binary did not build"
			continue
		fi
		step "ldd: the -tags mpi,mpich $pkg tests link MPICH" links_mpich "$bin"
		for np in $mpich_np_list; do
			# With more ranks than cores the binding waits in sleep
			# mode (mpi package documentation, Waiting): MPICH's own
			# blocking calls busy-poll and never yield, and there each
			# collective waited out a scheduler time slice (./dist did
			# not end in 390 s at 3 ranks on 2 cores; in sleep mode it
			# takes 73-78 s, as below). The long tests (testing.Short)
			# run at 2 ranks (under Open MPI alone for ./dist); so does
			# dist's TestCheckpointWriteFaults, whose time goes to the
			# collectives inside MPI-IO, which still busy-poll (27 s
			# more at 3 ranks).
			run_test_args=() label="-tags mpi,mpich"
			if [ "$pkg" = ./dist ] && [ "$cores" -lt 3 ]; then
				# dist's long tests run at 2 ranks under Open MPI and
				# in the default build; under MPICH they took 36 s of
				# the suite's 20 minutes, 9 s with -short (2 cores,
				# 2026-12-02).
				run_test_args=(-test.short)
				label+="; -short: the long tests run under Open MPI"
			fi
			if [ "$np" -gt "$cores" ]; then
				if [ "$pkg" != ./mpi ] && [ "$pkg" != ./dist ]; then
					continue
				fi
				run_test_args=(-test.short)
				label="-tags mpi,mpich; oversubscribed: sleep mode, -short"
				if [ "$pkg" = ./dist ]; then
					# dist's collectives at an odd rank count (MPICH's
					# algorithms for non-powers of two): the hosts
					# phase's subset and the order operations; the
					# whole -short package ran at 2 ranks above. All of
					# it took 53-55 s here.
					run_test_args+=(-test.run "$mpich_dist_odd_run")
					label+=", the collectives' subset"
				fi
			fi
			step "${mpich_run##*/} -np $np $pkg ($label)" \
				run_test "build/logs/mpich-$name-np$np.log" "$pkg" "$bin" \
				env -u XPMPI_BENCH_REF "$mpich_run" -prepend-rank -np "$np"
			run_test_args=()
		done
		if [ "$pkg" = ./mpi ]; then
			# MPI_THREAD_SINGLE under the binding's lock
			# (XPMPI_THREAD_LEVEL=single), as under Open MPI above.
			run_test_args=(-test.run "$lock_run")
			step "${mpich_run##*/} -np 2 ./mpi at XPMPI_THREAD_LEVEL=single" \
				run_test "build/logs/mpich-mpi-single-np2.log" "$pkg" "$bin" \
				env -u XPMPI_BENCH_REF XPMPI_THREAD_LEVEL=single "$mpich_run" -prepend-rank -np 2
			run_test_args=()
		fi
	done
	# The CLI built for MPICH: linked to it, it says MPICH under MPICH's
	# launcher; the integration tests start it under Open MPI's mpirun.
	build_mpich_cli() {
		rm -f build/xpmpi-mpich
		go build -tags mpi,mpich -o build/xpmpi-mpich ./cmd/xpmpi
		links_mpich "$root/build/xpmpi-mpich"
	}
	step "go build -tags mpi,mpich -o build/xpmpi-mpich ./cmd/xpmpi (ldd: MPICH)" build_mpich_cli
	mpich_info() {
		local out
		out=$(timeout -k 5 60 "$mpich_run" -np 2 build/xpmpi-mpich info --json) || {
			echo "xpmpi info under ${mpich_run##*/} -np 2 failed (exit $?): $out"
			return 1
		}
		grep -E '"(mpi|mpi_version)":' <<<"$out"
		if ! grep -q '"mpi": "MPICH"' <<<"$out" || [ "$(grep -c '"rank": ' <<<"$out")" -ne 2 ]; then
			echo "xpmpi info under ${mpich_run##*/} -np 2 does not report MPICH on 2 ranks:"
			echo "$out"
			return 1
		fi
	}
	if [ -x build/xpmpi-mpich ]; then
		step "${mpich_run##*/} -np 2 build/xpmpi-mpich info reports MPICH" mpich_info
	fi
fi

# ---------------------------------------------------------------- hosts
# Two simulated hosts on this machine (scripts/hosts.sh: network namespaces
# h1 and h2 joined by a veth pair, a host name each, ssh replaced by a
# remote agent), 2 ranks on each, once under Open MPI and once under MPICH:
# the mpi package's tests, a subset of the dist package's, xpmpi info
# (host, local rank and local size of each rank), xpmpi selftest, and
# heat2d, whose checksum must equal the one of the same job on one host.
# Needs root and `ip netns`: skipped with hosts.sh's reason otherwise. The
# hosts are removed at the end of the phase, whatever happened.
hosts_sh=$root/scripts/hosts.sh
# The dist subset: collectives (gather/scatter, reductions), halo
# exchange, redistribution, sort, checkpoints. The checking mode is on in
# every test (mpitest.Main) and the mpi package's own tests check it.
hosts_dist_run='^(TestGatherScatter|TestReductions|TestHalo|TestRedistribute|TestSort|TestCheckpointRoundTrip)$'
# MPICH's ranks busy-poll (4 ranks on 2 cores: its TestReductions took
# 22 s, TestSort over 150 s, against 0.7 s and 10 s under Open MPI). In
# sleep mode (hosts_job) the whole Open MPI subset takes 28 s, where it did
# not end in 180 s without; this smaller one takes 5 s, where it took 22 s
# (measured 2026-12-02; the mpi tests and xpmpi selftest cover the other
# collectives and the sort).
hosts_dist_run_mpich='^(TestIntegerReductions|TestArgTiesAndNaN|TestHalo|TestRedistribute|TestCheckpointRoundTrip|ExampleSort)$'
rm -f build/logs/hosts-notes.txt

# hosts_job LOG LIB SECS DONE-REGEX COUNT ARGS...: hosts.sh run --tag-output
# [--mpich] --timeout SECS -np 4 ARGS... > LOG. MPICH 4.0.2 over UCX 1.13's
# TCP transport hangs in MPI_Finalize across the hosts after every rank has
# done its work: one rank stays in UCX's endpoint flush while the others
# wait in the PMI barrier (UCX issue 8738, "TCP transport hangs during
# cleanup"). How often depends on the job: once every pair of ranks has
# talked, nearly always (2026-12-07 at 2 x 2: xpmpi info 9 of 9 runs, a C
# program of one MPI_Alltoall 5 of 6; a C program of one MPI_Allreduce 1
# of 16; docs/CLUSTER.md). So under MPICH, once COUNT lines match
# DONE-REGEX (every rank's PASS, say) and no rank failed, the job gets
# finalize_grace seconds to exit (a finalize that does not hang takes
# under 0.3 s here); if it has not, it is stopped, counts as passed, and is
# listed at the end of the phase.
finalize_grace=3
hosts_job() {
	local log=$1 lib=$2 secs=$3 done_re=$4 count=$5
	shift 5
	local flags=(--tag-output --timeout "$secs") wait=auto
	# The hosts share this machine's cores: 2 ranks on each host, 4 on 2
	# cores. MPICH's ranks busy-poll, so its jobs wait in sleep mode (mpi
	# package documentation, Waiting), which Init's auto choice, per host,
	# would not pick.
	[ "$lib" = mpich ] && flags+=(--mpich) wait=sleep
	echo "    XPMPI_MPI_WAIT=$wait hosts.sh run ${flags[*]} -x XPMPI_FAKECUDA -x XPMPI_MPI_WAIT -np 4 $* > $log"
	XPMPI_MPI_WAIT=$wait "$hosts_sh" run "${flags[@]}" -x XPMPI_FAKECUDA -x XPMPI_MPI_WAIT -np 4 "$@" >"$log" 2>&1 &
	local pid=$! rc=0 finished="" hung=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$lib" = mpich ] && [ -z "$finished" ] && [ "$(grep -cE "$done_re" "$log")" -ge "$count" ] &&
			! grep -qE '^\[[0-9]+\] (--- )?FAIL' "$log"; then
			finished=$SECONDS
		fi
		if [ -n "$finished" ] && [ $((SECONDS - finished)) -ge $finalize_grace ]; then
			hung=1
			kill -TERM "$pid" 2>/dev/null # hosts.sh kills what the job left
			break
		fi
		sleep 0.5
	done
	wait "$pid" || rc=$?
	if [ $hung = 1 ]; then
		echo "    NOTE: every rank finished its work, then MPI_Finalize did not return within ${finalize_grace} s (MPICH over UCX TCP): stopped"
		echo "${log#"$root"/}" >>"$root/build/logs/hosts-notes.txt"
		rc=0
	fi
	if [ $rc -ne 0 ]; then
		echo "    exit $rc"
		report "$log" "$rc"
		return 1
	fi
	echo "    passed; output: $(grep -c '' "$log") lines"
}

# hosts_test LIB SECS PKG BIN ARGS...: a package's test binary across the
# hosts, in the package's directory; every rank must print PASS.
hosts_test() {
	local lib=$1 secs=$2 pkg=$3 bin=$4
	shift 4
	local log
	log=$root/build/logs/hosts-$lib-$(bin_name "$pkg").log
	cd "$pkg"
	# The test binary's own limit fires first, so that a hang prints the
	# goroutines.
	hosts_job "$log" "$lib" "$secs" '^(\[1,[0-9]+\]<stdout>:|\[[0-9]+\] )PASS$' 4 "$bin" -test.timeout="$((secs - 10))s" "$@"
}

# hosts_info LIB CLI: xpmpi info --json across the hosts: ranks 0, 1 on one
# host and 2, 3 on the other, local ranks 0 1 0 1, local size 2, the right
# library, no warning about the local rank.
hosts_info() {
	local lib=$1 cli=$2 log=$root/build/logs/hosts-$1-info.log
	hosts_job "$log" "$lib" 30 '"thread_level"' 1 "$cli" info --json
	local want="Open MPI"
	[ "$lib" = mpich ] && want=MPICH
	# Open MPI's output forwarding may deliver a long line in pieces, and
	# --tag-output tags each piece, so its tags are removed wherever they
	# are (seen: "[1,0]<stdout>:local_rank" inside rank 0's JSON), MPICH's
	# at the start of a line.
	sed -E 's/\[1,[0-9]+\]<stdout>://g; s/^\[[0-9]+\] //' "$log" | python3 -c '
import json, sys
text = sys.stdin.read()
doc = json.loads(text[text.index("{"):text.rindex("}") + 1])
want = sys.argv[1]
rows = [(r["rank"], r["host"], r["local_rank"], r["local_size"], r.get("warning", "")) for r in doc["ranks"]]
for r in rows:
    print("    rank %d: host %s, local rank %d of %d %s" % r)
bad = []
if doc["mpi"] != want:
    bad.append("mpi is %r, want %r" % (doc["mpi"], want))
if [r[0] for r in rows] != [0, 1, 2, 3]:
    bad.append("ranks %s, want 0 1 2 3" % [r[0] for r in rows])
hosts = [r[1] for r in rows]
if len(rows) == 4 and not (hosts[0] == hosts[1] and hosts[2] == hosts[3] and hosts[0] != hosts[2]):
    bad.append("hosts %s: want ranks 0, 1 on one host and 2, 3 on another" % hosts)
if [r[2] for r in rows] != [0, 1, 0, 1] or [r[3] for r in rows] != [2, 2, 2, 2]:
    bad.append("local ranks %s of %s, want [0, 1, 0, 1] of 2" % ([r[2] for r in rows], [r[3] for r in rows]))
if any(r[4] for r in rows):
    bad.append("warnings: %s" % [r[4] for r in rows if r[4]])
if bad:
    print("xpmpi info across the hosts: " + "; ".join(bad))
    sys.exit(1)
' "$want"
}

# hosts_selftest LIB CLI: xpmpi selftest across the hosts passes on 4 ranks.
hosts_selftest() {
	local lib=$1 cli=$2 log=$root/build/logs/hosts-$1-selftest.log
	hosts_job "$log" "$lib" 40 ' 0 failed \(ranks 4\)' 1 "$cli" selftest
	grep -q ' 0 failed (ranks 4)' "$log" || {
		echo "selftest did not report '0 failed (ranks 4)':"
		tail -n 20 "$log"
		return 1
	}
}

# hosts_heat LIB CLI LAUNCHER...: heat2d across the hosts gives the
# checksum of the same job on this one host (LAUNCHER -np 4).
hosts_heat() {
	local lib=$1 cli=$2 log=$root/build/logs/hosts-$1-heat2d.log
	shift 2
	local args=(run heat2d --n 300 --iters 60 --quiet)
	local one
	one=$(timeout -k 5 60 "$@" -np 4 "$cli" "${args[@]}" 2>&1) || {
		echo "heat2d on one host failed (exit $?): $one"
		return 1
	}
	one=$(sed -E 's/\[1,[0-9]+\]<stdout>://g; s/^\[[0-9]+\] //' <<<"$one" | grep -oE '^checksum .*') || {
		echo "heat2d on one host printed no checksum"
		return 1
	}
	hosts_job "$log" "$lib" 40 'checksum ' 1 "$cli" "${args[@]}"
	local two
	two=$(sed -E 's/\[1,[0-9]+\]<stdout>://g; s/^\[[0-9]+\] //' "$log" | grep -oE '^checksum .*')
	echo "    one host: $one; two hosts: $two"
	[ "$one" = "$two" ] || {
		echo "heat2d across two hosts: '$two', on one host: '$one'"
		return 1
	}
}

hosts_why=$("$hosts_sh" status 2>&1)
if [ $? -eq 77 ]; then
	skip "hosts phase (2 simulated hosts x 2 ranks)" "$hosts_why"
else
	trap '"$hosts_sh" down >/dev/null 2>&1' EXIT
	step "scripts/hosts.sh up (hosts h1, h2)" "$hosts_sh" up
	# The CLI for Open MPI (the integration phase builds it again); the
	# fake CUDA driver is for TestDeviceBindingPerHost's device check.
	step "go build -tags mpi -o bin/xpmpi ./cmd/xpmpi (for the hosts phase)" go build -tags mpi -o bin/xpmpi ./cmd/xpmpi
	[ -n "$fakecuda" ] && export XPMPI_FAKECUDA=$fakecuda
	if "$hosts_sh" status >/dev/null 2>&1; then
		for lib in ompi mpich; do
			if [ $lib = ompi ]; then
				prefix="" cli=bin/xpmpi one_host=("$ompi_run" "${ompi_flags[@]}")
				dist_run=$hosts_dist_run label="Open MPI"
			else
				if [ -z "$mpich_run" ]; then
					skip "hosts phase under MPICH" "MPICH not found"
					continue
				fi
				prefix=mpich- cli=build/xpmpi-mpich one_host=("$mpich_run")
				dist_run=$hosts_dist_run_mpich label=MPICH
			fi
			for pkg in ./mpi ./dist; do
				bin=$root/build/test/$prefix$(bin_name "$pkg").test
				if [ ! -x "$bin" ]; then
					skip "hosts 2x2 $pkg ($label)" "no test binary ${bin#"$root"/} (built by the $label phase)"
					continue
				fi
				if [ $pkg = ./mpi ] && [ $lib = mpich ]; then
					# 4 ranks on 2 cores: TestReduce's thousands of
					# collectives took 45 of its 51 s when MPICH's
					# ranks busy-polled; -test.short and sleep mode
					# (hosts_job) make it 6 s.
					step "hosts 2x2 $pkg -test.short ($label)" hosts_test $lib 90 $pkg "$bin" -test.short
				elif [ $pkg = ./mpi ]; then
					step "hosts 2x2 $pkg ($label)" hosts_test $lib 90 $pkg "$bin"
				else
					step "hosts 2x2 $pkg -test.run ... ($label)" hosts_test $lib 90 $pkg "$bin" -test.run "$dist_run"
				fi
			done
			if [ ! -x "$cli" ]; then
				skip "hosts 2x2 xpmpi ($label)" "no $cli (built by the $label phase)"
				continue
			fi
			step "hosts 2x2 xpmpi info --json: host, local rank, local size ($label)" hosts_info $lib "$root/$cli"
			step "hosts 2x2 xpmpi selftest ($label)" hosts_selftest $lib "$root/$cli"
			step "hosts 2x2 xpmpi run heat2d: the checksum of one host ($label)" hosts_heat $lib "$root/$cli" "${one_host[@]}"
		done
	else
		skip "hosts phase steps" "the hosts are not up (see scripts/hosts.sh up above)"
	fi
	if [ -s build/logs/hosts-notes.txt ]; then
		printf '\nhosts phase: MPI_Finalize hung after the work was done (MPICH over UCX TCP) in:\n'
		sed 's/^/  /' build/logs/hosts-notes.txt
	fi
	step "scripts/hosts.sh down" "$hosts_sh" down
	trap - EXIT
	unset XPMPI_FAKECUDA
fi

# ---------------------------------------------------------------- cuda-dist
# dist's and fft's CUDA arrays on the fake CUDA driver (kernels.cu, math.cu,
# stats.cu, convert.cu, gemm.cu, stencil.cu, random.cu, fft.cu, sort.cu and
# complex.cu compiled as C++ and run on the host; it stands in for NVRTC
# too): complex arithmetic and math,
# statistics, axis reductions, masks, Astype, the stencils, random fills
# and FFTs must stay on the device and give the CPU's bits (FFTs within
# 1e-12 of them), dist.Sort and the slicing, shape and Redistribute packs
# stay on the device with the CPU's results, and
# matrix products (MatMul, MatVec, SUMMA) stay on the device within
# MatMul's bound. Only those tests: the rest of the dist and fft suites run
# on the fake device above.
cuda_dist_cases=(
	"./dist|dist|^TestDevice(Stats|MatMul|Stencils|Random|Sort|Complex|Lifetime)CUDA$"
	"./fft|fft|^TestDeviceFFTCUDA$"
)
if [ -n "$fakecuda" ]; then
	fake=$fakecuda
	for c in "${cuda_dist_cases[@]}"; do
		IFS='|' read -r pkg name re <<<"$c"
		[ -x "build/test/$name.test" ] || continue
		run_test_args=(-test.run "$re")
		for np in $np_list; do
			step "mpirun -np $np $pkg $re (fake CUDA driver)" \
				run_test "build/logs/cuda-$name-np$np.log" "$pkg" "$root/build/test/$name.test" \
				env XPMPI_LIBCUDA="$fake" XPMPI_NVRTC="$fake" XPMPI_DEVICE= \
				"$ompi_run" "${ompi_flags[@]}" -x XPMPI_LIBCUDA -x XPMPI_NVRTC -x XPMPI_DEVICE -np "$np"
		done
		if [ -n "$mpich_run" ] && [ -x "build/test/mpich-$name.test" ]; then
			step "${mpich_run##*/} -np 2 $pkg $re (fake CUDA driver)" \
				run_test "build/logs/cuda-$name-mpich-np2.log" "$pkg" "$root/build/test/mpich-$name.test" \
				env XPMPI_LIBCUDA="$fake" XPMPI_NVRTC="$fake" XPMPI_DEVICE= "$mpich_run" -np 2
		fi
		run_test_args=()
	done
fi

# ---------------------------------------------------------------- integration
# go build keeps a binary that is up to date as it is (bin/xpmpi, which the
# hosts phase built: relinking it took 3-5 s), and a failed build removes
# it, so that no stale binary is tested.
build_cli() { # OUT TAGS...
	local out=$1
	shift
	go build "$@" -o "$out" ./cmd/xpmpi || {
		rm -f "$out"
		return 1
	}
}
step "go build -tags mpi -o bin/xpmpi ./cmd/xpmpi" build_cli bin/xpmpi -tags mpi
step "go build -o build/xpmpi-nompi ./cmd/xpmpi" build_cli build/xpmpi-nompi
integration() {
	local env=(XPMPI_MPIRUN="$ompi_run")
	[ -x bin/xpmpi ] && env+=(XPMPI_BIN="$root/bin/xpmpi")
	[ -x build/xpmpi-nompi ] && env+=(XPMPI_NOMPI_BIN="$root/build/xpmpi-nompi")
	# The mpi package's tests, as the mpi phase built them, for TestHosts
	# (which builds them itself otherwise).
	[ -x build/test/mpi.test ] && env+=(XPMPI_MPI_TEST="$root/build/test/mpi.test")
	# The launcher/library mismatch tests: MPICH's launcher, and the CLI the
	# MPICH step built (only if that step ran).
	if [ -n "$mpich_run" ]; then
		env+=(XPMPI_MPICH_RUN="$mpich_run")
		if [ -x build/xpmpi-mpich ]; then
			env+=(XPMPI_MPICH_BIN="$root/build/xpmpi-mpich")
		fi
	fi
	env "${env[@]}" go test -tags mpi -vet=off -count=1 -v -timeout 10m -parallel 4 "${short[@]}" ./tests/
}
step "go test -tags mpi ./tests/ (integration)" integration

# ---------------------------------------------------------------- bench guard
# The regression guard's short form (docs/PERFORMANCE.md): bin/xpmpi bench
# --small at 1 rank against bench/baseline.json's small rows of this
# machine. It prints the comparison and never fails the suite (a shared
# machine's noise must not fail CI): a slower row, a machine the baseline
# has no rows for ("nothing checked"), or a bench that could not run, is a
# warning in the summary. scripts/bench.sh --check is the full form.
bench_guard() {
	local name="xpmpi bench --small --check bench/baseline.json (regression guard: a warning, never a failure)"
	local t0=$EPOCHREALTIME rc secs
	printf '\n==> %s\n' "$name"
	local flags=(--oversubscribe --bind-to none)
	[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
	timeout 180 "$ompi_run" "${flags[@]}" -np 1 bin/xpmpi bench --small --reps 15 --quiet --check bench/baseline.json 2>&1 |
		sed -n '/^xpmpi bench:/,/^checksums/p; /^regression guard:/,$p; /^bench:/p'
	rc=${PIPESTATUS[0]}
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" -eq 0 ]; then
		printf '<== %s: ok (%ss)\n' "$name" "$secs"
		results+=("ok|$secs|$name")
	else
		printf '<== %s: WARNING (exit %d, %ss): see the comparison above; not counted as a failure\n' "$name" "$rc" "$secs"
		results+=("WARNING|$secs|$name")
	fi
}
if [ -z "$ompi_run" ] || [ ! -x bin/xpmpi ] || [ ! -f "${XPMPI_BENCH_REF:-build/libxpref.so}" ]; then
	skip "xpmpi bench --small --check (regression guard)" "needs Open MPI's mpirun, bin/xpmpi and build/libxpref.so"
else
	bench_guard
fi

# ---------------------------------------------------------------- petsc
if [ $have_petsc = 1 ]; then
	mapfile -t petsc_pkgs < <(
		find ./petsc -name '*_test.go' -not -path '*/testdata/*' -print0 |
			xargs -0 -r -n1 dirname | sort -u
	)
	if [ ${#petsc_pkgs[@]} -eq 0 ]; then
		skip "petsc phase" "petsc/ has no tests"
	else
		mpi_phase mpi,petsc petsc- "${petsc_pkgs[@]}"
	fi
fi

# ---------------------------------------------------------------- hdf5
if [ $have_hdf5 = 1 ]; then
	mpi_phase mpi,hdf5 h5- ./h5
	# heat2d --checkpoint-format h5 with failing writes (tests/, LD_PRELOAD).
	step "go build -tags mpi,hdf5 -o build/xpmpi-hdf5 ./cmd/xpmpi" build_cli build/xpmpi-hdf5 -tags mpi,hdf5
	h5_integration() {
		XPMPI_MPIRUN="$ompi_run" XPMPI_H5_BIN="$root/build/xpmpi-hdf5" \
			go test -tags mpi -vet=off -count=1 -v -timeout 5m -parallel 4 -run 'TestH5' ./tests/
	}
	[ -x build/xpmpi-hdf5 ] && step "go test -tags mpi -run TestH5 ./tests/ (HDF5 checkpoints)" h5_integration
else
	skip "hdf5 phase" "parallel HDF5 not found (pkg-config hdf5-openmpi): scripts/setup.sh installs libhdf5-openmpi-dev"
fi

summary
"$root/scripts/mpi-clean.sh"
[ "${TMPDIR:-}" = "/dev/shm/xpmpi-test.$$" ] && rm -rf "$TMPDIR"
[ $n_fail -eq 0 ]
