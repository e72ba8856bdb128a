//go:build mpi

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestartFromFIFORefused: a checkpoint whose u.npy is a FIFO (a
// damaged or hostile directory) is refused at once on every rank with a
// message that says what it found, at 1 and 2 ranks, instead of an open
// that waits forever for a writer.
func TestRestartFromFIFORefused(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "heat2d", "--n", "17", "--quiet"}
	if r := launch(t, time.Minute, 2, bin, append(args, "--iters", "4", "--checkpoint", dir, "--every", "2")...); r.code != 0 {
		r.fail(t, "heat2d with a checkpoint")
		return
	}
	u := filepath.Join(dir, "u.npy")
	if err := os.Remove(u); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(u, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, np := range []int{1, 2} {
		r := launch(t, 30*time.Second, np, bin, append(args, "--iters", "8", "--restart", dir)...)
		if r.timedOut || r.code != 1 || !strings.Contains(r.combined, "FIFO") || !strings.Contains(r.combined, "not a regular file") {
			r.fail(t, "restart at %d ranks from a checkpoint whose u.npy is a FIFO: want exit 1 at once, saying it is a FIFO, not a regular file", np)
		}
	}
}

// TestCheckpointLockedThroughLink: two jobs writing one checkpoint, the
// first by its real path and the second through a symbolic link to it:
// the second is refused by the lock, the first is not disturbed, and the
// link stays a link.
func TestCheckpointLockedThroughLink(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	tmp := t.TempDir()
	dir, link := filepath.Join(tmp, "ck"), filepath.Join(tmp, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	first := exec.Command(bin, "run", "heat2d", "--n", "64", "--iters", "1000000", "--quiet", "--checkpoint", dir, "--every", "1")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Kill()
		first.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first job wrote no checkpoint in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := run(t, time.Minute, bin, "run", "heat2d", "--n", "64", "--iters", "10", "--quiet", "--checkpoint", link, "--every", "1")
	if r.code == 0 || !strings.Contains(r.combined, "another job is writing the checkpoint") {
		r.fail(t, "a second job writing the checkpoint through a link must be refused by the lock")
	}
	if first.ProcessState != nil {
		t.Errorf("the first job ended: %v", first.ProcessState)
	}
	if got, err := os.Readlink(link); err != nil || got != dir {
		t.Errorf("the link is now %q (%v), want a link to %s", got, err, dir)
	}
}

// TestPETScErrorShown: a PETSc error in run cg --solver petsc (an
// unknown method) shows PETSc's own message and exits 1, at 1 and 2
// ranks, instead of a panic about freeing a lent array. It needs the CLI
// built with -tags mpi,petsc in XPMPI_PETSC_BIN.
func TestPETScErrorShown(t *testing.T) {
	bin := binary(t, "XPMPI_PETSC_BIN")
	for _, np := range []int{1, 2} {
		r := launch(t, time.Minute, np, bin, "run", "cg", "--n", "16", "--solver", "petsc", "--petsc", "-cg_ksp_type no_such_method")
		if r.code != 1 || !strings.Contains(r.combined, "Unable to find requested KSP type no_such_method") || strings.Contains(r.combined, "panic") || strings.Contains(r.combined, "lent") {
			r.fail(t, "%d ranks: want exit 1 with PETSc's message", np)
		}
	}
}

// memCgroup makes a control group under this process's own, with a
// memory limit of limit bytes (cgroup v1's memory.limit_in_bytes, or
// v2's memory.max where the memory controller is enabled for children),
// removed at the end of the test, and returns its cgroup.procs file; it
// skips, saying why, where it cannot (not root, no writable hierarchy).
func memCgroup(t *testing.T, limit int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a control group needs root")
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup:", err)
	}
	var v1, v2 string
	for _, line := range strings.Split(string(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				v1 = parts[2]
			}
		}
	}
	name := fmt.Sprintf("xpmpi-test-%d", os.Getpid())
	var tries []string
	try := func(parent, limitFile string) string {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			tries = append(tries, err.Error())
			return ""
		}
		t.Cleanup(func() {
			// The job has ended: the group is empty and can go.
			if err := os.Remove(dir); err != nil {
				t.Errorf("removing the test's control group: %v", err)
			}
		})
		if err := os.WriteFile(filepath.Join(dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			tries = append(tries, err.Error())
			return ""
		}
		return filepath.Join(dir, "cgroup.procs")
	}
	if v1 != "" {
		if p := try(filepath.Join("/sys/fs/cgroup/memory", v1), "memory.limit_in_bytes"); p != "" {
			return p
		}
	}
	if v2 != "" {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			parent := filepath.Join(root, v2)
			ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
			if err != nil || !strings.Contains(string(ctl), "memory") {
				tries = append(tries, fmt.Sprintf("%s: no memory controller for child groups", parent))
				continue
			}
			if p := try(parent, "memory.max"); p != "" {
				return p
			}
		}
	}
	t.Skipf("cannot make a control group with a memory limit here: %s", strings.Join(tries, "; "))
	return ""
}

// TestJobCgroupMemoryLimit runs heat2d and run cg inside a control group
// of their own with a 1 GiB limit, as Slurm and container runtimes make
// one per job, with grids that need more (1.4-1.9 GiB) but fit in the
// node's memory: each is refused before it allocates, naming the control
// group's limit and the rank count that fits, instead of being killed by
// the kernel's OOM killer (exit 137) with no message.
func TestJobCgroupMemoryLimit(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	for _, args := range [][]string{
		{"run", "cg", "--n", "6000"},
		{"run", "heat2d", "--n", "9000", "--iters", "3", "--quiet"},
	} {
		t.Run(args[1], func(t *testing.T) {
			procs := memCgroup(t, 1<<30)
			r := run(t, time.Minute, "sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`, procs, bin}, args...)...)
			if r.code != 1 || !strings.Contains(r.combined, "available (cgroup)") || !strings.Contains(r.combined, "it fits on") {
				r.fail(t, "%s in a 1 GiB control group: want exit 1, refused with the control group's limit", args[1])
			}
		})
	}
}

// TestCGMemoryPreflight: run cg with a grid past the node's memory is
// refused before it allocates, as heat2d is, at 1 and 2 ranks.
func TestCGMemoryPreflight(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	for _, np := range []int{1, 2} {
		r := launch(t, time.Minute, np, bin, "run", "cg", "--n", "400000")
		if r.code != 1 || !strings.Contains(r.combined, "cg: --n 400000 on") || !strings.Contains(r.combined, "per rank") || !strings.Contains(r.combined, "it fits on") {
			r.fail(t, "%d ranks: want exit 1 and the memory check's message", np)
		}
	}
}

// TestHostileVariablesRefused: XPMPI_DEVICE, XPMPI_MPI, XPMPI_CHECK and
// XPMPI_KERNELS_STRICT with values they do not take are refused by run
// (exit 1, one line naming the variable) at 2 ranks, and doctor reports
// them as a problem (exit 1). (cmd/xpmpi's TestCheckEnvHostile runs every
// variable with every hostile value.)
func TestHostileVariablesRefused(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	launcher, _ := mpirun(t)
	for _, kv := range []string{"XPMPI_DEVICE=-1", "XPMPI_MPI=abc", "XPMPI_CHECK=99999999999999999999", "XPMPI_KERNELS_STRICT=maybe", "XPMPI_DEVICE=" + strings.Repeat("9", 100<<10), "XPMPI_CHECK=\xff\xfe"} {
		name, _, _ := strings.Cut(kv, "=")
		r := launchEnv(t, time.Minute, 2, []string{kv}, bin, "run", "heat2d", "--n", "8", "--iters", "1", "--quiet")
		if r.code != 1 || !strings.Contains(r.combined, name+"=") || len(r.combined) > 20000 {
			r.fail(t, "%.80s: want exit 1 and a short message naming %s", kv, name)
		}
	}
	for _, kv := range []string{"XPMPI_DEVICE=-1", "XPMPI_KERNELS_STRICT=maybe"} {
		name, _, _ := strings.Cut(kv, "=")
		d := runEnv(t, 2*time.Minute, []string{kv}, bin, "doctor", "--mpirun", launcher, "--np", "1")
		if d.code != 1 || !strings.Contains(d.stdout, "PROBLEM") || !strings.Contains(d.stdout, name+"=") {
			d.fail(t, "doctor with %s: want exit 1 and the problem named", kv)
		}
	}
}

// hostsLauncherKilled kills Open MPI's launcher (in h1) of a 2-host
// heat2d job that would run for hours: hosts.sh run must say that the
// launcher or a rank was killed, not that the job ran past its time
// limit, and remove the session directory the killed launcher left
// (ompi.h1.UID/pid.N under $TMPDIR, and h2's; hosts.sh down runs the same
// cleanup). The hosts stay up: processes that ran there before the job
// are not the job's.
func hostsLauncherKilled(t *testing.T) {
	bin := realBinary(t, "XPMPI_BIN")
	script := hostsScript(t)
	done := make(chan result, 1)
	go func() {
		done <- hostsRun(t, script, 90*time.Second, nil, 2, bin, "run", "heat2d", "--n", "256", "--iters", "100000000", "--quiet")
	}()
	if pids := waitRanks(t, "h2", bin, 1, 30*time.Second); len(pids) < 1 {
		r := <-done
		r.fail(t, "no rank of %s on h2 within 30 s", bin)
		return
	}
	launcher := 0
	if out, err := exec.Command("ip", "netns", "pids", "h1").Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			comm, _ := os.ReadFile("/proc/" + f + "/comm")
			if strings.HasPrefix(string(comm), "mpirun") || strings.HasPrefix(string(comm), "orterun") {
				launcher, _ = strconv.Atoi(f)
			}
		}
	}
	if launcher == 0 {
		t.Fatal("no mpirun in h1")
	}
	time.Sleep(time.Second) // its session directory is made
	sessions := func() []string {
		var all []string
		for _, base := range []string{os.TempDir(), "/tmp"} {
			for _, h := range []string{"h1", "h2"} {
				m, _ := filepath.Glob(filepath.Join(base, "ompi."+h+".*", "pid.*"))
				all = append(all, m...)
			}
		}
		return all
	}
	before := sessions()
	if err := syscall.Kill(launcher, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code == 0 || strings.Contains(r.combined, "ran past") || !strings.Contains(r.combined, "was killed by signal 9 (KILL)") {
		r.fail(t, "a killed launcher: want its exit and the signal named, not the time limit")
	}
	leftRanks(t, bin, 5*time.Second)
	left := sessions()
	for end := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(end); left = sessions() {
		time.Sleep(200 * time.Millisecond) // h2's daemon, killed, may still be ending
	}
	if len(left) > 0 {
		t.Errorf("after the job, the killed launcher's session directories are still there: %v (before the kill: %v)", left, before)
	} else if len(before) == 0 {
		t.Logf("the launcher made no session directory under %s or /tmp to remove", os.TempDir())
	}
}

// TestMPICleanLeftovers: an Open MPI job whose launcher is killed leaves
// its ranks' /dev/shm/vader_segment.* files and its session directory;
// scripts/mpi-clean.sh removes them, and keeps those of a job that is
// still running.
func TestMPICleanLeftovers(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	launcher, flags := mpirun(t)
	script, err := filepath.Abs("../scripts/mpi-clean.sh")
	if err != nil {
		t.Fatal(err)
	}
	segs := func() map[string]bool {
		m, _ := filepath.Glob("/dev/shm/vader_segment.*")
		out := map[string]bool{}
		for _, f := range m {
			out[f] = true
		}
		return out
	}
	// start starts a 2-rank job that would run for hours and returns it
	// with the shared-memory files it made.
	start := func() (*exec.Cmd, []string) {
		before := segs()
		cmd := exec.Command(launcher, append(flags, "-np", "2", bin, "run", "heat2d", "--n", "64", "--iters", "1000000000", "--quiet")...)
		cmd.Env = append(os.Environ(), "OMPI_MCA_btl_vader_single_copy_mechanism=none")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			var made []string
			for f := range segs() {
				if !before[f] {
					made = append(made, f)
				}
			}
			if len(made) >= 2 {
				return cmd, made
			}
		}
		t.Fatal("the job made no shared-memory files in 30 s")
		return nil, nil
	}
	live, liveSegs := start()
	dead, deadSegs := start()
	session := func(c *exec.Cmd) []string {
		var all []string
		for _, base := range []string{os.TempDir(), "/tmp"} {
			m, _ := filepath.Glob(filepath.Join(base, "ompi.*", fmt.Sprintf("pid.%d", c.Process.Pid)))
			all = append(all, m...)
		}
		return all
	}
	deadSession := session(dead)
	dead.Process.Signal(syscall.SIGKILL)
	dead.Wait()
	time.Sleep(time.Second) // its ranks end with it
	r := run(t, time.Minute, script, "--age", "0")
	if r.code != 0 {
		r.fail(t, "mpi-clean.sh")
	}
	for _, f := range deadSegs {
		if _, err := os.Stat(f); err == nil {
			r.fail(t, "%s of the killed launcher's job is still there", f)
		}
	}
	for _, d := range deadSession {
		if _, err := os.Stat(d); err == nil {
			r.fail(t, "the killed launcher's session directory %s is still there", d)
		}
	}
	for _, f := range append(liveSegs, session(live)...) {
		if _, err := os.Stat(f); err != nil {
			r.fail(t, "%s of the running job was removed: %v", f, err)
		}
	}
	if live.ProcessState != nil {
		t.Errorf("the running job ended: %v", live.ProcessState)
	}
}
