#!/usr/bin/env bash
# bench.sh: build xpmpi and the C+MPI reference, and run `xpmpi bench` at 1
# and 2 ranks (BENCH.md's workloads, xpmpi against the reference in the
# same job).
#
#   scripts/bench.sh                 # everything, 5 repetitions
#   scripts/bench.sh --only W3,W4    # extra arguments go to xpmpi bench
#   scripts/bench.sh --small --reps 1
#
# It installs what is missing through scripts/setup.sh, builds bin/xpmpi
# (-tags mpi) and build/libxpref.so (bench/ref/xpref.c), then runs
#
#   mpirun -np N bin/xpmpi bench --json build/bench-npN.json --plot build/bench-npN.png "$@"
#
# for N = 1 and 2, prints both tables at the end, and exits non-zero if a
# run failed (a checksum that disagrees fails its run).
#
# Environment:
#   XPMPI_BENCH_NP="1 2"   rank counts to run
#   XPMPI_BENCH_TIMEOUT=3600  seconds one run may take
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi
say() { printf 'bench: %s\n' "$*"; }

scripts/setup.sh || exit 1

mkdir -p bin build
say "go build -tags mpi -o bin/xpmpi ./cmd/xpmpi"
go build -tags mpi -o bin/xpmpi ./cmd/xpmpi || exit 1
ref_cmd=(mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c -lopenblas)
say "${ref_cmd[*]}"
"${ref_cmd[@]}" || exit 1
# Both sides must use one MPI library (the bench refuses otherwise). A Go
# build cache shared with builds for another MPI (-tags mpi,mpich) has been
# seen to hand back a binary linked to MPICH: rebuild without the cache then.
mpi_lib() { ldd "$1" 2>/dev/null | awk '/libmpi(ch)?\.so/ {print $1; exit}'; }
if [ "$(mpi_lib bin/xpmpi)" != "$(mpi_lib build/libxpref.so)" ]; then
	say "bin/xpmpi links $(mpi_lib bin/xpmpi), the reference $(mpi_lib build/libxpref.so): rebuilding bin/xpmpi with -a"
	go build -a -tags mpi -o bin/xpmpi ./cmd/xpmpi || exit 1
	if [ "$(mpi_lib bin/xpmpi)" != "$(mpi_lib build/libxpref.so)" ]; then
		say "bin/xpmpi still links $(mpi_lib bin/xpmpi): check pkg-config ompi-c and mpicc"
		exit 1
	fi
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
np_list=${XPMPI_BENCH_NP:-"1 2"}
limit=${XPMPI_BENCH_TIMEOUT:-3600}

say "$(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1)); load $(cut -d' ' -f1-3 /proc/loadavg)"
failed=()
for np in $np_list; do
	log=build/bench-np$np.log
	cmd=("${launch[@]}" -np "$np" bin/xpmpi bench --json "build/bench-np$np.json" --plot "build/bench-np$np.png" "$@")
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
	say "FAILED at ${failed[*]} rank(s): see the logs above (a checksum that disagrees fails the run)"
	exit 1
fi
say "all runs passed; results in build/bench-np*.json and build/bench-np*.png"
