package selfcheck

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

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
	x, err := dist.FromFunc(c, []int{n, 3}, func(idx []int) float64 { return float64(10*idx[0] + idx[1]) }, dist.Ghosts(2))
	if err != nil {
		return err
	}
	defer x.Free()
	if err := x.Exchange(); err != nil {
		return err
	}
	lo, hi := x.Range()
	data := x.Ghosted().Data()
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
