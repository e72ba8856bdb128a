package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// selfCheck is one line of the selftest table.
type selfCheck struct {
	name string
	run  func(world mpi.Comm) error
}

// faults are the faults selftest --fault injects, with what each shows.
var faults = []struct{ name, help string }{
	{"panic", "rank R panics: the job aborts with the panic and the rank"},
	{"collective-error", "rank R fails inside a collective: every rank returns the same error, naming rank R"},
	{"mismatch", "rank R calls a different collective (checking mode on): every rank reports which call each made"},
	{"hang", "rank R never enters a collective: the watchdog (--timeout, default 5s with this fault) aborts the job, each rank naming the collective it is in"},
}

func faultNames() []string {
	var names []string
	for _, f := range faults {
		names = append(names, f.name)
	}
	return names
}

// checkReport is one row of the selftest table.
type checkReport struct {
	Name   string  `json:"name"`
	Result string  `json:"result"` // pass or FAIL
	Millis float64 `json:"ms,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// selftestReport is what `xpmpi selftest` prints on rank 0, as a table or,
// with --json, as one JSON object.
type selftestReport struct {
	Checks []checkReport `json:"checks"`
	Passed int           `json:"passed"`
	Failed int           `json:"failed"`
	Ranks  int           `json:"ranks"`
}

func newSelftestCmd(world mpi.Comm) *cobra.Command {
	var (
		fault   string
		rank    int
		timeout time.Duration
		asJSON  bool
	)
	var long strings.Builder
	long.WriteString(`selftest runs these checks at this rank count, checks the results, and
prints a pass/fail table on rank 0 (--json: one JSON object with the same
rows). It exits non-zero if any check fails on any rank.
`)
	for _, c := range selfChecks() {
		fmt.Fprintf(&long, "  %s\n", c.name)
	}
	long.WriteString(`
--fault injects one fault on rank --rank instead, so that an operator can see
on their own cluster that it ends the job promptly with a clear message:
`)
	for _, f := range faults {
		fmt.Fprintf(&long, "  %-17s %s\n", f.name, f.help)
	}
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check the MPI job end to end, or inject one fault to see it handled",
		Long:  strings.TrimSuffix(long.String(), "\n"),
		Example: `  mpirun -np 4 xpmpi selftest
  mpirun -np 4 xpmpi selftest --json
  mpirun -np 3 xpmpi selftest --fault panic --rank 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fault != "" && !slices.Contains(faultNames(), fault) {
				return fmt.Errorf("selftest: --fault %q: want one of %s", fault, strings.Join(faultNames(), ", "))
			}
			if fault != "" {
				if rank < 0 || rank >= world.Size() {
					return fmt.Errorf("selftest: --rank %d is not a rank of this job of %d", rank, world.Size())
				}
				if fault == "hang" && timeout == 0 {
					timeout = 5 * time.Second
				}
			}
			if timeout < 0 {
				return fmt.Errorf("selftest: --timeout %v: want a positive duration (0 or unset: no limit)", timeout)
			}
			if timeout > 0 {
				stop, err := mpi.StartWatchdog(world, timeout)
				if err != nil {
					return err
				}
				defer stop()
			}
			if fault != "" {
				return injectFault(world, fault, rank)
			}
			return runSelftest(world, cmd.OutOrStdout(), asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fault, "fault", "", "inject a fault: "+strings.Join(faultNames(), ", "))
	f.IntVar(&rank, "rank", 0, "the rank where the fault happens")
	f.DurationVar(&timeout, "timeout", 0, "abort the job if it runs longer than this (0: no limit)")
	f.BoolVar(&asJSON, "json", false, "print the results as one JSON object (rank 0)")
	cmd.RegisterFlagCompletionFunc("fault", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, f := range faults {
			out = append(out, cobra.CompletionWithDesc(f.name, f.help))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// injectFault makes rank r misbehave in the chosen way, inside a sequence of
// collectives that the other ranks follow normally.
func injectFault(world mpi.Comm, fault string, r int) error {
	me := world.Rank()
	if err := world.Barrier(); err != nil {
		return err
	}
	switch fault {
	case "panic":
		if me == r {
			panic(fmt.Sprintf("selftest: injected panic on rank %d", r))
		}
		_, err := mpi.AllreduceValue(world, 1.0, mpi.Sum)
		return err
	case "collective-error":
		var local error
		if me == r {
			local = fmt.Errorf("injected failure (as if a file would not open)")
		}
		return mpi.Agree(world, local)
	case "mismatch":
		prev := mpi.SetChecking(true)
		defer mpi.SetChecking(prev)
		x, err := dist.Full(world, []int{16}, 1.0)
		if err != nil {
			return err
		}
		if me == r {
			_, err = dist.Dot(x, x)
		} else {
			_, err = dist.Sum(x)
		}
		return err
	case "hang":
		if me == r {
			select {} // never joins the allreduce below
		}
		_, err := mpi.AllreduceValue(world, 1.0, mpi.Sum)
		return err
	}
	return fmt.Errorf("selftest: --fault %q: want one of %s", fault, strings.Join(faultNames(), ", "))
}

// runSelftest runs every check on every rank, agrees on each result, and
// prints the table on rank 0.
func runSelftest(world mpi.Comm, w io.Writer, asJSON bool) error {
	checks := selfChecks()
	rep := selftestReport{Ranks: world.Size()}
	for _, c := range checks {
		start := time.Now()
		err := mpi.Agree(world, c.run(world))
		d := time.Since(start)
		if err != nil {
			rep.Failed++
			rep.Checks = append(rep.Checks, checkReport{Name: c.name, Result: "FAIL", Error: err.Error()})
		} else {
			rep.Passed++
			rep.Checks = append(rep.Checks, checkReport{Name: c.name, Result: "pass", Millis: d.Seconds() * 1e3})
		}
	}
	if asJSON {
		if err := writeJSON(w, rep); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "CHECK\tRESULT\tDETAIL\n")
		for _, c := range rep.Checks {
			if c.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Result, c.Error)
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%.1f ms\n", c.Name, c.Result, c.Millis)
			}
		}
		tw.Flush()
		fmt.Fprintf(w, "%d passed, %d failed (ranks %d)\n", rep.Passed, rep.Failed, rep.Ranks)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("selftest: %d of %d checks failed", rep.Failed, len(checks))
	}
	return nil
}

// selfChecks lists the checks. Each returns an error on the ranks where the
// result is wrong; runSelftest agrees on them.
func selfChecks() []selfCheck {
	return []selfCheck{
		{"barrier", func(c mpi.Comm) error { return c.Barrier() }},
		{"bcast", checkBcast},
		{"allreduce", checkAllreduce},
		{"reduce", checkReduce},
		{"gather/allgather", checkGather},
		{"gatherv/scatterv", checkGatherv},
		{"alltoall(v)", checkAlltoall},
		{"sendrecv ring", checkRing},
		{"isend/irecv", checkNonblocking},
		{"split", checkSplit},
		{"checking mode", checkMismatchDetection},
		{"halo exchange", checkHalo},
		{"redistribute", checkRedistribute},
		{"distributed sort", checkSort},
	}
}

// want returns an error if got and exp differ.
func want[T comparable](what string, got, exp []T) error {
	if !slices.Equal(got, exp) {
		return fmt.Errorf("%s: got %v, want %v", what, head(got), head(exp))
	}
	return nil
}

func head[T any](s []T) []T { return s[:min(len(s), 6)] }

func seq(r, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(1000*r + i)
	}
	return s
}

func checkBcast(c mpi.Comm) error {
	for root := 0; root < c.Size(); root++ {
		b := seq(c.Rank(), 37)
		if err := mpi.Bcast(c, b, root); err != nil {
			return err
		}
		if err := want("bcast", b, seq(root, 37)); err != nil {
			return err
		}
	}
	return nil
}

func checkAllreduce(c mpi.Comm) error {
	p := c.Size()
	for _, op := range []mpi.Op{mpi.Sum, mpi.Min, mpi.Max} {
		got := make([]float64, 5)
		if err := mpi.Allreduce(c, seq(c.Rank(), 5), got, op); err != nil {
			return err
		}
		exp := make([]float64, 5)
		for i := range exp {
			switch op {
			case mpi.Sum:
				exp[i] = float64(1000*p*(p-1)/2 + p*i)
			case mpi.Min:
				exp[i] = float64(i)
			case mpi.Max:
				exp[i] = float64(1000*(p-1) + i)
			}
		}
		if err := want("allreduce "+op.String(), got, exp); err != nil {
			return err
		}
	}
	ok, err := mpi.AllTrue(c, true)
	if err == nil && !ok {
		err = errors.New("logical and of true is false")
	}
	return err
}

func checkReduce(c mpi.Comm) error {
	p := c.Size()
	for root := 0; root < p; root++ {
		got := make([]int64, 3)
		if err := mpi.Reduce(c, []int64{1, int64(c.Rank()), 2}, got, mpi.Sum, root); err != nil {
			return err
		}
		if c.Rank() == root {
			if err := want("reduce", got, []int64{int64(p), int64(p * (p - 1) / 2), int64(2 * p)}); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkGather(c mpi.Comm) error {
	p := c.Size()
	exp := []float64{}
	for r := 0; r < p; r++ {
		exp = append(exp, seq(r, 3)...)
	}
	all := make([]float64, 3*p)
	if err := mpi.Allgather(c, seq(c.Rank(), 3), all); err != nil {
		return err
	}
	if err := want("allgather", all, exp); err != nil {
		return err
	}
	var g []float64
	if c.Rank() == p-1 {
		g = make([]float64, 3*p)
	}
	if err := mpi.Gather(c, seq(c.Rank(), 3), g, p-1); err != nil {
		return err
	}
	if c.Rank() == p-1 {
		return want("gather", g, exp)
	}
	return nil
}

func checkGatherv(c mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	counts := make([]int, p)
	total := 0
	for r := range counts {
		counts[r] = (r * 7) % 4 // some zero
		total += counts[r]
	}
	exp := []float64{}
	for r := 0; r < p; r++ {
		exp = append(exp, seq(r, counts[r])...)
	}
	all := make([]float64, total)
	if err := mpi.Allgatherv(c, seq(me, counts[me]), all, counts, nil); err != nil {
		return err
	}
	if err := want("allgatherv", all, exp); err != nil {
		return err
	}
	mine := make([]float64, counts[me])
	if err := mpi.Scatterv(c, exp, counts, nil, mine, 0); err != nil {
		return err
	}
	return want("scatterv", mine, seq(me, counts[me]))
}

func checkAlltoall(c mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	send := make([]int32, 2*p)
	for d := 0; d < p; d++ {
		send[2*d], send[2*d+1] = int32(100*me+d), int32(-me)
	}
	recv := make([]int32, 2*p)
	if err := mpi.Alltoall(c, send, recv); err != nil {
		return err
	}
	for s := 0; s < p; s++ {
		if recv[2*s] != int32(100*s+me) || recv[2*s+1] != int32(-s) {
			return fmt.Errorf("alltoall: block %d = %v", s, recv[2*s:2*s+2])
		}
	}
	scounts, rcounts := make([]int, p), make([]int, p)
	var sv []int32
	total := 0
	for d := 0; d < p; d++ {
		scounts[d] = (me + d) % 3
		for i := 0; i < scounts[d]; i++ {
			sv = append(sv, int32(me*10+d))
		}
		rcounts[d] = (d + me) % 3
		total += rcounts[d]
	}
	rv := make([]int32, total)
	if err := mpi.Alltoallv(c, sv, scounts, nil, rv, rcounts, nil); err != nil {
		return err
	}
	k := 0
	for s := 0; s < p; s++ {
		for i := 0; i < rcounts[s]; i++ {
			if rv[k] != int32(s*10+me) {
				return fmt.Errorf("alltoallv: from rank %d got %d", s, rv[k])
			}
			k++
		}
	}
	return nil
}

func checkRing(c mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	got := make([]float64, 1000)
	if _, err := mpi.Sendrecv(c, seq(me, 1000), (me+1)%p, 1, got, (me+p-1)%p, 1); err != nil {
		return err
	}
	return want("sendrecv", got, seq((me+p-1)%p, 1000))
}

func checkNonblocking(c mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	got := make([]float64, 1<<16)
	rr, err := mpi.Irecv(c, got, (me+p-1)%p, 2)
	if err != nil {
		return err
	}
	sr, err := mpi.Isend(c, seq(me, 1<<16), (me+1)%p, 2)
	if err != nil {
		return err
	}
	if _, err := mpi.Waitall([]mpi.Request{rr, sr}); err != nil {
		return err
	}
	return want("isend/irecv", got, seq((me+p-1)%p, 1<<16))
}

func checkSplit(c mpi.Comm) error {
	sub, err := c.Split(c.Rank()%2, c.Rank())
	if err != nil {
		return err
	}
	defer sub.Free()
	n, err := mpi.AllreduceValue(sub, int32(1), mpi.Sum)
	if err != nil {
		return err
	}
	if exp := (c.Size() + 1 - c.Rank()%2) / 2; int(n) != exp {
		return fmt.Errorf("split: %d ranks in my half, want %d", n, exp)
	}
	return nil
}

func checkMismatchDetection(c mpi.Comm) error {
	if c.Size() < 2 {
		return nil
	}
	prev := mpi.SetChecking(true)
	defer mpi.SetChecking(prev)
	name := "A"
	if c.Rank() == 1 {
		name = "B"
	}
	err := mpi.CheckCollective(c, name)
	var me *mpi.MismatchError
	if !errors.As(err, &me) {
		return fmt.Errorf("checking mode missed a mismatch: %v", err)
	}
	return nil
}

func checkHalo(c mpi.Comm) error {
	n := 2*c.Size() + 1
	x, err := dist.FromFunc(c, []int{n, 3}, func(idx []int) float64 { return float64(10*idx[0] + idx[1]) })
	if err != nil {
		return err
	}
	h, err := dist.HaloOf(x, 2)
	if err != nil {
		return err
	}
	if err := h.Exchange(); err != nil {
		return err
	}
	lo, hi := x.Range()
	data := h.Local().Data()
	for i := 0; i < hi-lo+4 && hi > lo; i++ {
		g := lo - 2 + i
		if g < 0 || g >= n {
			continue
		}
		for j := 0; j < 3; j++ {
			if v := data[i*3+j]; v != float64(10*g+j) {
				return fmt.Errorf("halo: row %d column %d holds %v", g, j, v)
			}
		}
	}
	return nil
}

func checkRedistribute(c mpi.Comm) error {
	x, err := dist.FromFunc(c, []int{5, 7, 3}, func(idx []int) int64 { return int64(100*idx[0] + 10*idx[1] + idx[2]) })
	if err != nil {
		return err
	}
	ref, err := dist.Allgather(x)
	if err != nil {
		return err
	}
	for _, axis := range []int{1, 2, dist.Replicated, 0} {
		y, err := dist.Resplit(x, axis)
		if err != nil {
			return err
		}
		got, err := dist.Allgather(y)
		if err != nil {
			return err
		}
		if err := want(fmt.Sprintf("redistribute to axis %d", axis), got, ref); err != nil {
			return err
		}
	}
	return nil
}

func checkSort(c mpi.Comm) error {
	x, err := dist.Uniform[float64](c, []int{10007}, 42, 0)
	if err != nil {
		return err
	}
	s, err := dist.Sort(x)
	if err != nil {
		return err
	}
	all, err := dist.Allgather(s)
	if err != nil {
		return err
	}
	if !slices.IsSorted(all) || len(all) != 10007 {
		return errors.New("sort: result out of order")
	}
	sum, err := dist.Sum(x)
	if err != nil {
		return err
	}
	total := 0.0
	for _, v := range all {
		total += v
	}
	if math.Abs(sum-total) > 1e-9*math.Abs(sum) {
		return fmt.Errorf("sort: sum changed from %v to %v", sum, total)
	}
	return nil
}
