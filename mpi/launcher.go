package mpi

import (
	"os"
	"strconv"
	"strings"
)

// Launcher variables, read before MPI starts.
var (
	launchVars = []string{
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
		"MPI_LOCALRANKID", "ALPS_APP_PE", "PALS_RANKID",
	}
	localRankVars = []string{
		"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID", "LOCAL_RANK",
	}
	localSizeVars = []string{
		"OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
		"PMI_LOCAL_SIZE", "PALS_LOCAL_SIZE", "LOCAL_WORLD_SIZE",
	}
	worldSizeVars = []string{
		"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "PALS_SIZE",
	}
)

// Launched reports whether the process was started by an MPI launcher,
// without starting MPI. XPMPI_MPI=1 or 0 overrides the answer; otherwise it
// is true if any launcher's rank variable is set (OMPI_COMM_WORLD_RANK,
// PMI_RANK, PMIX_RANK, MV2_COMM_WORLD_RANK, MPI_LOCALRANKID, ALPS_APP_PE,
// PALS_RANKID). SLURM_PROCID alone does not count: batch scripts set it.
func Launched() bool {
	switch strings.TrimSpace(os.Getenv("XPMPI_MPI")) {
	case "1", "true", "yes":
		return true
	case "0", "false", "no":
		return false
	}
	_, ok := firstSet(launchVars)
	return ok
}

// Launcher returns the name of the variable that shows a launcher started
// the process, or "" if none is set.
func Launcher() string {
	name, _ := firstSet(launchVars)
	return name
}

// LocalRank returns the rank of this process among the ranks of its node, as
// the launcher's variables give it before MPI starts (the first parsable of
// OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// PMI_LOCAL_RANK, PALS_LOCAL_RANKID, SLURM_LOCALID, LOCAL_RANK), else 0.
// After Init, NodeRank gives the answer of MPI itself.
func LocalRank() int {
	if v, ok := firstInt(localRankVars); ok && v >= 0 {
		return v
	}
	return 0
}

// LocalSize returns the number of ranks on this node, as the launcher's
// variables give it before MPI starts, else 1.
func LocalSize() int {
	if v, ok := firstInt(localSizeVars); ok && v > 0 {
		return v
	}
	return 1
}

// LaunchedSize returns the number of ranks the launcher started, from its
// variables, or 0 if it does not say.
func LaunchedSize() int {
	if v, ok := firstInt(worldSizeVars); ok && v > 0 {
		return v
	}
	return 0
}

func firstSet(names []string) (string, bool) {
	for _, n := range names {
		if _, ok := os.LookupEnv(n); ok {
			return n, true
		}
	}
	return "", false
}

func firstInt(names []string) (int, bool) {
	for _, n := range names {
		if s, ok := os.LookupEnv(n); ok {
			if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}
