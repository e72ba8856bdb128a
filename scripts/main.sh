#!/usr/bin/env bash
# main.sh: the README's main job. Installs what is missing, builds the CLI
# with real MPI, and runs the 2-D heat equation example on 2 ranks:
#
#   scripts/main.sh                 # default size
#   scripts/main.sh --n 512         # extra arguments go to `xpmpi run heat2d`
#   XPMPI_NP=4 scripts/main.sh      # another rank count
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH=/usr/local/go/bin:$PATH
fi

scripts/setup.sh

echo "main: go build -tags mpi -o bin/xpmpi ./cmd/xpmpi"
go build -tags mpi -o bin/xpmpi ./cmd/xpmpi

# Open MPI's launcher (plain mpirun may be MPICH's, by Debian's alternatives).
mpirun=$(command -v mpirun.openmpi || command -v mpirun)
flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
np=${XPMPI_NP:-2}

echo "main: ${mpirun##*/} -np $np ${flags[*]} bin/xpmpi run heat2d $*"
exec env OMPI_MCA_btl_vader_single_copy_mechanism=none \
	"$mpirun" -np "$np" "${flags[@]}" bin/xpmpi run heat2d "$@"
