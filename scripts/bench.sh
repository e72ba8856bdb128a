#!/usr/bin/env bash
# bench.sh: build xpmpi and the C+MPI reference, and run `xpmpi bench` at 1
# and 2 ranks (BENCH.md's workloads, xpmpi against the reference in the
# same job).
#
#   scripts/bench.sh                 # everything, 5 repetitions
#   scripts/bench.sh --only W3,W4    # extra arguments go to xpmpi bench
#   scripts/bench.sh --small --reps 1
#   scripts/bench.sh --check         # the regression guard: fails naming the
#                                    # rows slower than bench/baseline.json
#   scripts/bench.sh --write-baseline --baseline-note "quiet machine"
#   scripts/bench.sh --add-baseline-run   # one more run of the same code:
#                                    # the rows record the run-to-run drift
#
# --check [FILE], --write-baseline [FILE] and --add-baseline-run [FILE] go
# to xpmpi bench at every rank count (FILE: bench/baseline.json when left
# out); --check makes a run fail when a row's ratio rose beyond the guard's
# margin (docs/PERFORMANCE.md, "The regression guard").
#
# It installs what is missing through scripts/setup.sh, builds bin/xpmpi
# (-tags mpi, or mpi,petsc where PETSc is installed) and build/libxpref.so (bench/ref/xpref.c), then runs
#
#   mpirun -np N bin/xpmpi bench --json build/bench-npN.json --plot build/bench-npN.png "$@"
#
# for N = 1 and 2, prints both tables at the end, and exits non-zero if a
# run failed (a checksum that disagrees fails its run).
#
# Before the bench at each rank count it runs the peers, separate MPI jobs
# at the same rank count and sizes (--small, --reps and --only are passed
# on), and gives their figures to the bench with --peers build/peers-npN.json:
#   build/xpmpi-w6 (bench/ref/w6.c)   W6 as a plain C + MPI program at
#                                     MPI_THREAD_SINGLE: column "C alone"
#   bench/peers/mpi4py_w2_w5.py       W2-W6, W11 in NumPy + mpi4py: column "mpi4py";
#                                     python3-mpi4py is installed with apt-get
#                                     when missing; left out if it cannot be
# A peer that fails fails the run, as a checksum that disagrees does.
#
# Environment:
#   XPMPI_BENCH_NP="1 2"   rank counts to run
#   XPMPI_BENCH_TIMEOUT=3600  seconds one run may take
#   XPMPI_BENCH_PEERS=0    run no peers (no --peers)
#   XPMPI_BENCH_COMMIT     the commit the baseline records (default: git's
#                          HEAD, +dirty for a changed tree)
#   XPMPI_BENCH_SLOWDOWN=W3=1.3  multiply xpmpi's measured times of W3 by 1.3
#                          (to see --check fail)
#   XPMPI_THREAD_LEVEL     passed to the bench's ranks (package mpi's thread
#                          level; the baseline was measured at the default)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
say() { printf 'bench: %s\n' "$*"; }

# --check, --write-baseline and --add-baseline-run without a file name take
# bench/baseline.json.
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--check | --write-baseline | --add-baseline-run)
		if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then
			args+=("$1" "$2")
			shift 2
		else
			args+=("$1" bench/baseline.json)
			shift
		fi
		;;
	*)
		args+=("$1")
		shift
		;;
	esac
done
set -- "${args[@]}"

scripts/setup.sh || exit 1

mkdir -p bin build
# With PETSc (Debian's petsc-dev), W4 gains its PETSc rows (KSP CG over
# the Go shell operator): the binary is built with -tags mpi,petsc.
tags=mpi
pkg-config --exists PETSc 2>/dev/null && tags=mpi,petsc
say "go build -tags $tags -o bin/xpmpi ./cmd/xpmpi"
go build -tags $tags -o bin/xpmpi ./cmd/xpmpi || exit 1
ref_cmd=(mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c -lopenblas)
say "${ref_cmd[*]}"
"${ref_cmd[@]}" || exit 1
# Both sides must use one MPI library (the bench refuses otherwise). A Go
# build cache shared with builds for another MPI (-tags mpi,mpich) has been
# seen to hand back a binary linked to MPICH: rebuild without the cache then.
mpi_lib() { ldd "$1" 2>/dev/null | awk '/libmpi(ch)?\.so/ {print $1; exit}'; }
if [ "$(mpi_lib bin/xpmpi)" != "$(mpi_lib build/libxpref.so)" ]; then
	say "bin/xpmpi links $(mpi_lib bin/xpmpi), the reference $(mpi_lib build/libxpref.so): rebuilding bin/xpmpi with -a"
	go build -a -tags $tags -o bin/xpmpi ./cmd/xpmpi || exit 1
	if [ "$(mpi_lib bin/xpmpi)" != "$(mpi_lib build/libxpref.so)" ]; then
		say "bin/xpmpi still links $(mpi_lib bin/xpmpi): check pkg-config ompi-c and mpicc"
		exit 1
	fi
fi

# ---------------------------------------------------------------- peers
# The programs `xpmpi bench --peers` compares with, run separately before
# the bench at each rank count. peer_flags: --small, --reps and --only of
# the bench's arguments, which the peers take too.
peer_flags=()
peer_only=""
peers_parse_args() {
	local a=("$@") i
	for ((i = 0; i < ${#a[@]}; i++)); do
		case "${a[i]}" in
		--small | --small=true) peer_flags+=(--small) ;;
		--reps) peer_flags+=(--reps "${a[i + 1]:-}") ;;
		--reps=*) peer_flags+=(--reps "${a[i]#--reps=}") ;;
		--only) peer_only=${a[i + 1]:-} ;;
		--only=*) peer_only=${a[i]#--only=} ;;
		esac
	done
}
# peers_want W...: whether --only (if given) names one of the workloads.
peers_want() {
	[ -z "$peer_only" ] && return 0
	local w
	for w in "$@"; do
		case ",$(echo "$peer_only" | tr 'a-z' 'A-Z' | tr -d ' ')," in *",$w,"*) return 0 ;; esac
	done
	return 1
}
peer_py=/usr/bin/python3
[ -x "$peer_py" ] || peer_py=$(command -v python3 || echo python3)
peers_have_mpi4py() { "$peer_py" -c 'import mpi4py.MPI, numpy' >/dev/null 2>&1; }
# peers_build: build/xpmpi-w6, and python3-mpi4py if missing (Debian's,
# built against the system's Open MPI).
peers_build() {
	peers_c=0 peers_py=0
	local w6_cmd=(mpicc -O3 -march=native -o build/xpmpi-w6 bench/ref/w6.c)
	say "${w6_cmd[*]}"
	"${w6_cmd[@]}" && peers_c=1
	if ! peers_have_mpi4py; then
		local as_root=()
		[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && as_root=(sudo)
		say "mpi4py does not import in $peer_py: apt-get install -y python3-mpi4py"
		"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-mpi4py >/dev/null ||
			say "could not install python3-mpi4py: the mpi4py column is left out"
	fi
	peers_have_mpi4py && peers_py=1
	return 0
}
# peers_run NP: runs the peers at NP ranks into build/peers-npNP.json and
# sets peers_args to the bench's --peers flag (none if no peer ran); a
# peer that fails is added to failed.
peers_run() {
	local np=$1 out=build/peers-np$1.json rc
	peers_args=()
	: >"$out"
	local env=(env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
	local fwd=(-x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS)
	local jobs=()
	[ "$peers_c" = 1 ] && peers_want W6 && jobs+=("build/xpmpi-w6 ${peer_flags[*]}")
	if [ "$peers_py" = 1 ] && peers_want W2 W3 W4 W5 W6 W11; then
		local only=()
		[ -n "$peer_only" ] && only=(--only "$peer_only")
		jobs+=("$peer_py bench/peers/mpi4py_w2_w5.py ${peer_flags[*]} ${only[*]}")
	fi
	local job
	for job in "${jobs[@]}"; do
		# shellcheck disable=SC2206 # the job's words, split as written
		local cmd=("${env[@]}" "${launch[@]}" "${fwd[@]}" -np "$np" $job)
		say "${cmd[*]} >> $out"
		# Only a peer that finished adds its figures.
		timeout "$limit" "${cmd[@]}" >"$out.part" 2>>"build/peers-np$np.log"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			cat "$out.part" >>"$out"
		else
			say "np $np: peer exit status $rc (build/peers-np$np.log): its figures are left out"
			failed+=("$np (peer ${job%% *})")
		fi
		rm -f "$out.part"
	done
	[ -s "$out" ] && peers_args=(--peers "$out")
	return 0
}
peers_args=()
peers_c=0 peers_py=0
if [ "${XPMPI_BENCH_PEERS:-1}" != 0 ]; then
	peers_parse_args "$@"
	peers_build
fi

# As root, mpirun wants --allow-run-as-root. --oversubscribe: more ranks
# than cores is allowed (the machine may have fewer than the run asks for).
# --bind-to none: Open MPI binds each rank to one core by default at up to
# two ranks, which would leave a single rank one core and so a thread
# budget of 1 (W1's full-thread row compares the rank's whole budget).
launch=(mpirun --oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then
	launch+=(--allow-run-as-root)
fi
# The commit the baseline records: the one bin/xpmpi was built from,
# "+dirty" if the tree differed from it (the baseline file aside).
if [ -z "${XPMPI_BENCH_COMMIT:-}" ] && c=$(git rev-parse --short HEAD 2>/dev/null); then
	git diff --quiet HEAD -- . ':(exclude)bench/baseline.json' 2>/dev/null || c="$c+dirty"
	export XPMPI_BENCH_COMMIT=$c
fi
[ -n "${XPMPI_BENCH_COMMIT:-}" ] && launch+=(-x XPMPI_BENCH_COMMIT)
[ -n "${XPMPI_BENCH_SLOWDOWN:-}" ] && launch+=(-x XPMPI_BENCH_SLOWDOWN)
[ -n "${XPMPI_THREAD_LEVEL:-}" ] && launch+=(-x XPMPI_THREAD_LEVEL)
np_list=${XPMPI_BENCH_NP:-"1 2"}
limit=${XPMPI_BENCH_TIMEOUT:-3600}

say "$(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1)); load $(cut -d' ' -f1-3 /proc/loadavg)"
failed=()
for np in $np_list; do
	log=build/bench-np$np.log
	peers_args=()
	if [ "${XPMPI_BENCH_PEERS:-1}" != 0 ]; then
		: >"build/peers-np$np.log"
		peers_run "$np"
	fi
	cmd=("${launch[@]}" -np "$np" bin/xpmpi bench --json "build/bench-np$np.json" --plot "build/bench-np$np.png" "${peers_args[@]}" "$@")
	say "${cmd[*]}"
	timeout "$limit" "${cmd[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		say "np $np: exit status $rc"
		failed+=("$np")
	fi
done

# Both tables together at the end (the runs print progress in between).
for np in $np_list; do
	log=build/bench-np$np.log
	printf '\n==> %d rank(s): %s\n' "$np" "$log"
	sed -n '/^xpmpi bench:/,$p' "$log"
done
echo
if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED at ${failed[*]} rank(s): see the logs above (a checksum that disagrees fails the run; with --check, so does a row slower than the baseline)"
	exit 1
fi
say "all runs passed; results in build/bench-np*.json and build/bench-np*.png"
