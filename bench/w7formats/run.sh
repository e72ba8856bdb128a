#!/bin/bash
# bench/w7formats/run.sh [N] [REPS]: W7's array in .npy, HDF5 and Zarr
# (w7formats, built with -tags mpi,hdf5) and in h5py's MPI build
# (h5py_w7.py), at 1 and 2 ranks, in one run, files in $TMPDIR.
# docs/PERFORMANCE.md has a run's rows.
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-$((1 << 26))}
reps=${2:-5}
dir=${TMPDIR:-/tmp}
bin=$(mktemp -d)/w7formats
go build -tags mpi,hdf5 -o "$bin" .
run=(mpirun.openmpi --oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && run+=(--allow-run-as-root)
for np in 1 2; do
	"${run[@]}" -np "$np" "$bin" -n "$n" -reps "$reps" -dir "$dir"
	"${run[@]}" -np "$np" -x H5PY_ALWAYS_USE_MPI=1 /usr/bin/python3 h5py_w7.py "$n" "$reps" "$dir"
done
rm -rf "$(dirname "$bin")"
