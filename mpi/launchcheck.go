package mpi

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/launch"
)

// ErrLauncherMismatch is what the error Init returns matches (errors.Is)
// when MPI's world size differs from the number of ranks the launcher
// started: a binary linked to one MPI library started by another library's
// launcher (Open MPI's mpirun starting an MPICH binary, or the reverse),
// where every rank would run alone as a separate one-rank job. Every rank
// sees the mismatch on its own and refuses, so none waits for another.
var ErrLauncherMismatch = errors.New("mpi: the launcher and the MPI library do not match")

// mismatchError is the error Init returns for a mismatch.
type mismatchError struct{ msg string }

func (e *mismatchError) Error() string        { return e.msg }
func (e *mismatchError) Is(target error) bool { return target == ErrLauncherMismatch }

// checkLauncher compares the size of MPI's world with the number of ranks
// the launcher (d) started; impl and version name the MPI library. It
// returns nil where they agree, where the launcher does not say how many
// ranks it started, or where XPMPI_MPI=0 says to ignore the launcher.
func checkLauncher(d launch.Info, worldSize int, impl, version string) error {
	if !d.Launched || d.Size <= 0 || worldSize == d.Size {
		return nil
	}
	var b strings.Builder
	lib := impl
	version = strings.Join(strings.Fields(version), " ") // MPICH's holds a tab
	if version != "" && !strings.EqualFold(version, impl) {
		lib = fmt.Sprintf("%s (%s)", impl, version)
	}
	fmt.Fprintf(&b, "mpi: launcher and MPI library do not match: this binary links %s but was started by %s (%s=%d", lib, d.Kind, d.SizeVariable, d.Size)
	if d.Rank >= 0 {
		fmt.Fprintf(&b, ", this is its rank %d", d.Rank)
	}
	fmt.Fprintf(&b, "); MPI_Init made a world of %d %s where the launcher started %d", worldSize, plural(worldSize, "rank"), d.Size)
	if worldSize == 1 {
		b.WriteString(", so each rank would run alone as a separate one-rank job")
	}
	var fixes []string
	if start := launcherFor(impl); start != "" {
		fixes = append(fixes, "start it with "+start)
	}
	if tags := tagsFor(d.Kind.Library()); tags != "" && d.Kind.Library() != impl {
		fixes = append(fixes, fmt.Sprintf("rebuild it for %s (go build %s)", d.Kind.Library(), tags))
	}
	if len(fixes) > 0 {
		b.WriteString(". Fix: " + strings.Join(fixes, ", or "))
	}
	b.WriteString(" (XPMPI_MPI=0 runs the separate jobs on purpose)")
	return &mismatchError{msg: b.String()}
}

// launcherFor returns the launcher that starts programs of the library.
func launcherFor(impl string) string {
	switch impl {
	case "Open MPI":
		return "Open MPI's mpirun (mpirun.openmpi on Debian)"
	case "MPICH":
		return "MPICH's mpiexec (mpiexec.mpich on Debian)"
	}
	return ""
}

// tagsFor returns the build tags of xpmpi's binding to the library.
func tagsFor(lib string) string {
	switch lib {
	case "Open MPI":
		return "-tags mpi"
	case "MPICH":
		return "-tags mpi,mpich"
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// overrideWarning returns the warning for XPMPI_MPI=0 in a process that a
// launcher's variables say was launched, or "".
func overrideWarning(d launch.Info, rank, size int) string {
	if !d.Overridden || d.Launched || d.Kind == launch.None {
		return ""
	}
	ranks := ""
	if d.Size > 0 {
		ranks = fmt.Sprintf(", %s=%d", d.SizeVariable, d.Size)
	}
	return fmt.Sprintf("mpi: warning: XPMPI_MPI=0 ignores %s, which started this process (%s%s): "+
		"the refusals of a build without MPI and of a launcher that does not match the MPI library are off; "+
		"this process is rank %d of %d in MPI's world", d.Kind, d.Variable, ranks, rank, size)
}

var warnOverride sync.Once

// warnOverrideOnce prints overrideWarning's warning, if any, to w, once per
// process.
func warnOverrideOnce(w io.Writer, d launch.Info, rank, size int) {
	msg := overrideWarning(d, rank, size)
	if msg == "" {
		return
	}
	warnOverride.Do(func() { fmt.Fprintln(w, msg) })
}
