package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Kind is a launcher (process manager) that can start MPI ranks.
type Kind int

// The launchers Detect recognises.
const (
	None    Kind = iota // no launcher's variables are set
	OpenMPI             // Open MPI's mpirun (ORTE or PRRTE)
	MVAPICH             // MVAPICH's mpirun_rsh or mpiexec
	Hydra               // MPICH's (or Intel MPI's) hydra mpiexec
	PALS                // HPE's PALS mpiexec
	ALPS                // Cray's ALPS aprun
	Slurm               // Slurm's srun running an MPI step (PMI-2 or PMIx)
	PMIx                // another PMIx server
	PMI                 // another PMI-1 or PMI-2 server
	Unknown             // XPMPI_MPI=1 where no known variable is set
)

var kindNames = [...]string{
	None:    "no launcher",
	OpenMPI: "Open MPI's mpirun",
	MVAPICH: "MVAPICH's launcher",
	Hydra:   "MPICH's hydra mpiexec",
	PALS:    "HPE PALS",
	ALPS:    "Cray ALPS aprun",
	Slurm:   "Slurm's srun",
	PMIx:    "a PMIx launcher",
	PMI:     "a PMI launcher",
	Unknown: "an unknown launcher (XPMPI_MPI=1)",
}

// String names the launcher as a message would: "Open MPI's mpirun",
// "MPICH's hydra mpiexec", ...
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("launch.Kind(%d)", int(k))
}

// Library returns the MPI library whose programs the launcher starts
// ("Open MPI", "MPICH", "MVAPICH"), or "" where it can start any library's
// (Slurm, PMIx, PMI) or is not known.
func (k Kind) Library() string {
	switch k {
	case OpenMPI:
		return "Open MPI"
	case Hydra:
		return "MPICH"
	case MVAPICH:
		return "MVAPICH"
	}
	return ""
}

// Info is what the environment says about how this process was started.
type Info struct {
	// Kind is the launcher whose variables are set, whatever XPMPI_MPI says.
	Kind Kind
	// Launched reports whether the process counts as started by a launcher:
	// Kind != None, unless XPMPI_MPI overrides it.
	Launched bool
	// Overridden reports that XPMPI_MPI (1 or 0) decided Launched.
	Overridden bool
	// Variable is the variable that shows the launcher
	// ("OMPI_COMM_WORLD_RANK", "PMI_RANK", ...), "" if none.
	Variable string
	// Rank is this process's rank among all the ranks the launcher
	// started, -1 if the launcher's variable does not say.
	Rank int
	// Size is the number of ranks the launcher started, 0 if its variables
	// do not say; SizeVariable names the variable it came from.
	Size         int
	SizeVariable string
	// LocalRank is this process's rank among the ranks of its node (0 if no
	// variable says) and LocalSize the number of ranks there (1 if none
	// says); they are read whatever the Kind, as a batch system may give
	// them without a launcher.
	LocalRank int
	LocalSize int
	// Node is the name of this process's node as the batch system gives
	// it (SLURMD_NODENAME), "" where none does.
	Node string
	// SlurmTasks is the number of tasks of the Slurm step that started
	// this process (SLURM_STEP_NUM_TASKS, with SLURM_STEP_ID set), 0
	// outside a step. A step started without PMI (srun --mpi=none) has it
	// but no rank variable: Kind is None there, and an MPI program that
	// sees a one-rank world and SlurmTasks > 1 was started as separate
	// one-rank jobs.
	SlurmTasks int
	// Ignored lists the variables whose values could not be used, each as
	// "NAME=value: why".
	Ignored []string
}

// A marker is one launcher's signature: every variable of all must be set,
// and one of any, if any are listed.
type marker struct {
	kind     Kind
	all, any []string
	rank     []string // the rank variables, first usable wins
	size     []string // the size variables, first usable wins
}

// markers, most specific first: a launcher started inside another one's job
// (mpirun inside an srun step, hydra bootstrapped by Slurm) inherits the
// outer one's variables.
var markers = []marker{
	{kind: OpenMPI, any: []string{"OMPI_COMM_WORLD_RANK"},
		rank: []string{"OMPI_COMM_WORLD_RANK"}, size: []string{"OMPI_COMM_WORLD_SIZE"}},
	{kind: MVAPICH, any: []string{"MV2_COMM_WORLD_RANK"},
		rank: []string{"MV2_COMM_WORLD_RANK"}, size: []string{"MV2_COMM_WORLD_SIZE"}},
	{kind: Hydra, all: []string{"PMI_RANK"}, any: []string{"MPI_LOCALRANKID", "HYDI_CONTROL_FD"},
		rank: []string{"PMI_RANK"}, size: []string{"PMI_SIZE"}},
	{kind: Hydra, any: []string{"MPI_LOCALRANKID"}, size: []string{"PMI_SIZE"}},
	{kind: PALS, any: []string{"PALS_RANKID"},
		rank: []string{"PALS_RANKID"}, size: []string{"PALS_SIZE", "PMI_SIZE"}},
	{kind: ALPS, any: []string{"ALPS_APP_PE"},
		rank: []string{"ALPS_APP_PE"}, size: []string{"PMI_SIZE"}},
	{kind: Slurm, all: []string{"SLURM_PROCID", "SLURM_STEP_ID"}, any: []string{"PMI_RANK", "PMIX_RANK"},
		rank: []string{"SLURM_PROCID"}, size: []string{"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "PMI_SIZE"}},
	{kind: PMIx, any: []string{"PMIX_RANK"},
		rank: []string{"PMIX_RANK"}, size: []string{"PMIX_SIZE"}},
	{kind: PMI, any: []string{"PMI_RANK"},
		rank: []string{"PMI_RANK"}, size: []string{"PMI_SIZE"}},
}

// The local rank and size variables, whatever the launcher: the first
// usable one wins.
var (
	localRankVars = []string{
		"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID", "LOCAL_RANK",
	}
	localSizeVars = []string{
		"OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
		"PMI_LOCAL_SIZE", "PALS_LOCAL_SIZE", "LOCAL_WORLD_SIZE",
	}
)

// Detect reads the process's environment. It is cheap enough to call each
// time: nothing is cached, so a test's t.Setenv takes effect at once.
func Detect() Info { return DetectWith(os.LookupEnv) }

// DetectWith is Detect over another environment: lookup returns a
// variable's value and whether it is set, as os.LookupEnv does. A variable
// set to an empty (or blank) value counts as not set.
func DetectWith(lookup func(string) (string, bool)) Info {
	e := env{lookup: lookup}
	d := Info{Rank: -1, LocalSize: 1}
	for _, m := range markers {
		if !e.match(m) {
			continue
		}
		d.Kind = m.kind
		d.Variable = e.first(append(append([]string{}, m.all...), m.any...))
		if v, _, ok := e.int(m.rank, 0); ok {
			d.Rank = v
		}
		if v, name, ok := e.int(m.size, 1); ok {
			d.Size, d.SizeVariable = v, name
		}
		break
	}
	d.Launched = d.Kind != None
	if s, ok := e.get("XPMPI_MPI"); ok {
		switch on, _, err := parseOverride(s); {
		case err != nil:
			e.ignore("XPMPI_MPI", s, "not 1 or 0")
		case on:
			d.Launched, d.Overridden = true, true
			if d.Kind == None {
				d.Kind = Unknown
			}
		default:
			d.Launched, d.Overridden = false, true
		}
	}
	if v, _, ok := e.int(localRankVars, 0); ok {
		d.LocalRank = v
	}
	if v, _, ok := e.int(localSizeVars, 1); ok {
		d.LocalSize = v
	} else if v, ok := e.slurmLocalSize(); ok {
		d.LocalSize = v
	}
	d.Node, _ = e.get("SLURMD_NODENAME")
	if _, ok := e.get("SLURM_STEP_ID"); ok {
		if v, _, ok := e.int([]string{"SLURM_STEP_NUM_TASKS"}, 1); ok {
			d.SlurmTasks = v
		}
	}
	d.Ignored = e.ignored
	return d
}

// Launched reports whether the process was started by an MPI launcher,
// without starting MPI: XPMPI_MPI=1 or 0 if set, else whether a known
// launcher's variables are set.
func Launched() bool { return Detect().Launched }

// Which returns the launcher whose variables are set (None if none),
// whatever XPMPI_MPI says.
func Which() Kind { return Detect().Kind }

// Variable returns the name of the variable that shows a launcher started
// the process ("OMPI_COMM_WORLD_RANK", "PMI_RANK", ...), or "" if none does.
func Variable() string { return Detect().Variable }

// LocalRank returns this process's rank among the ranks of its node, from
// the first usable of OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK,
// MPI_LOCALRANKID, PMI_LOCAL_RANK, PALS_LOCAL_RANKID, SLURM_LOCALID and
// LOCAL_RANK, else 0.
func LocalRank() int { return Detect().LocalRank }

// LocalSize returns the number of ranks on this node, from the first usable
// of OMPI_COMM_WORLD_LOCAL_SIZE, MV2_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS,
// PMI_LOCAL_SIZE, PALS_LOCAL_SIZE and LOCAL_WORLD_SIZE, else from Slurm's
// SLURM_STEP_TASKS_PER_NODE at this node's SLURM_NODEID, else 1.
func LocalSize() int { return Detect().LocalSize }

// Size returns the number of ranks the launcher started, from its own size
// variable, or 0 if no launcher is detected or its variables do not say.
func Size() int { return Detect().Size }

// env reads variables and records the values it could not use.
type env struct {
	lookup  func(string) (string, bool)
	ignored []string
}

func (e *env) get(name string) (string, bool) {
	s, ok := e.lookup(name)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

func (e *env) ignore(name, value, why string) {
	e.ignored = append(e.ignored, fmt.Sprintf("%s=%q: %s", name, value, why))
}

func (e *env) match(m marker) bool {
	for _, n := range m.all {
		if _, ok := e.get(n); !ok {
			return false
		}
	}
	if len(m.any) == 0 {
		return true
	}
	return e.first(m.any) != ""
}

// first returns the first of names that is set, or "".
func (e *env) first(names []string) string {
	for _, n := range names {
		if _, ok := e.get(n); ok {
			return n
		}
	}
	return ""
}

// int returns the first of names that holds an integer of at least least,
// and its name; values it cannot use are recorded and skipped.
func (e *env) int(names []string, least int) (int, string, bool) {
	for _, n := range names {
		s, ok := e.get(n)
		if !ok {
			continue
		}
		v, err := strconv.Atoi(s)
		switch {
		case err != nil:
			e.ignore(n, s, "not an integer")
		case v < least:
			e.ignore(n, s, fmt.Sprintf("below %d", least))
		default:
			return v, n, true
		}
	}
	return 0, "", false
}

// slurmLocalSize reads the number of tasks on this node of a Slurm step:
// the entry of SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 tasks on each of
// the first three nodes, 1 on the fourth) at SLURM_NODEID (the node's index
// in the step). A batch script has neither.
func (e *env) slurmLocalSize() (int, bool) {
	spec, ok := e.get("SLURM_STEP_TASKS_PER_NODE")
	if !ok {
		return 0, false
	}
	node, _, ok := e.int([]string{"SLURM_NODEID"}, 0)
	if !ok {
		return 0, false
	}
	for _, part := range strings.Split(spec, ",") {
		count, reps := part, "1"
		if i := strings.Index(part, "(x"); i >= 0 && strings.HasSuffix(part, ")") {
			count, reps = part[:i], part[i+2:len(part)-1]
		}
		n, err1 := strconv.Atoi(count)
		r, err2 := strconv.Atoi(reps)
		if err1 != nil || err2 != nil || n < 1 || r < 1 {
			e.ignore("SLURM_STEP_TASKS_PER_NODE", spec, "not a list of COUNT or COUNT(xREPEATS)")
			return 0, false
		}
		if node < r {
			return n, true
		}
		node -= r
	}
	e.ignore("SLURM_STEP_TASKS_PER_NODE", spec, "lists fewer nodes than SLURM_NODEID")
	return 0, false
}
