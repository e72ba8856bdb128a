#!/usr/bin/env bash
# setup.sh: install what xpmpi needs to build and test on Debian 12.
#
# Idempotent: it installs only the packages that are missing (checked with
# dpkg -s), runs apt-get update at most once and only when something is
# missing, and then downloads the Go modules. Run it as root, or as a user
# who may use sudo. It exports nothing: scripts that need PATH set it
# themselves.
#
#   scripts/setup.sh
#   scripts/setup.sh --slurm   only Debian's Slurm and munge (slurmctld, slurmd,
#                              slurm-client, munge), for scripts/slurm.sh's
#                              two-node cluster; not part of the default
#                              install: most users have a cluster's Slurm, or none
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { printf 'setup: %s\n' "$*"; }

# System packages:
#   gcc, libc6-dev       cgo (gcc only recommends libc6-dev)
#   pkg-config           cgo's #cgo pkg-config lines
#   procps               pgrep: the test script ends ranks a killed mpirun left behind
#   openmpi-bin, libopenmpi-dev   Open MPI: mpirun and mpi.h (build tag mpi)
#   mpich, libmpich-dev  MPICH: the test script runs the mpi tests against it once
#                        (build tags mpi,mpich)
#   python3-numpy        checks that NumPy reads xpmpi's .npy checkpoints
#   iproute2             ip netns: the two simulated hosts of scripts/hosts.sh
#   libopenblas-dev      OpenBLAS: the bench's C reference of the matrix product
#                        links it (cblas_dgemm); the CPU backend loads
#                        libopenblas.so.0 at run time where present
#   libfftw3-dev         FFTW: the bench's C reference of the 2-D FFT
#   petsc-dev            PETSc, only once the petsc package exists (tag petsc)
#   libhdf5-openmpi-dev  parallel HDF5 over Open MPI: package h5 (tags mpi,hdf5)
#   python3-h5py-mpi     h5py, serial and MPI: h5's tests read what it writes and back
#   python3-zarr         zarr-python 2: zarr's tests read what it writes and back
want=(gcc libc6-dev pkg-config procps openmpi-bin libopenmpi-dev mpich libmpich-dev python3-numpy python3-mpi4py iproute2 libopenblas-dev libfftw3-dev libhdf5-openmpi-dev python3-h5py-mpi python3-zarr)
if compgen -G 'petsc/*.go' >/dev/null; then
	want+=(petsc-dev)
fi

slurm_only=0
if [ "${1:-}" = --slurm ]; then
	# The packages' services are not used: slurm.sh starts its own daemons
	# with its own configuration and munge key.
	want=(slurmctld slurmd slurm-client munge)
	slurm_only=1
fi

missing=()
for p in "${want[@]}"; do
	if ! dpkg -s "$p" >/dev/null 2>&1; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	say "system packages present: ${want[*]}"
else
	as_root=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			as_root=(sudo)
		else
			say "missing packages: ${missing[*]}"
			say "not root and no sudo: install them as root, then run this again"
			exit 1
		fi
	fi
	say "installing: ${missing[*]}"
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ $slurm_only = 1 ]; then
	say "done (Slurm and munge)"
	exit 0
fi

# Go: the toolchain is not a Debian package here (Debian 12's Go is too old
# for go.mod); look for it on PATH and in /usr/local/go.
if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		PATH=/usr/local/go/bin:$PATH
	else
		say "go not found on PATH or in /usr/local/go/bin: install Go $(sed -n 's/^go //p' go.mod) or newer"
		exit 1
	fi
fi
say "$(go version) at $(command -v go)"

for pc in ompi-c mpich; do
	if pkg-config --exists "$pc"; then
		say "pkg-config $pc: $(pkg-config --modversion "$pc")"
	else
		say "pkg-config $pc: not found"
	fi
done

say "go mod download"
go mod download
say "done"
