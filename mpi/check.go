package mpi

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// mode holds the checking and tracking bits, so that a collective call
// pays one atomic load and one branch when both are off.
var mode atomic.Uint32

const (
	modeCheck uint32 = 1 << iota
	modeTrack
)

func init() {
	if on, _ := CheckingFromEnv(); on {
		mode.Store(modeCheck)
	}
}

func setBit(bit uint32, on bool) bool {
	for {
		old := mode.Load()
		nw := old &^ bit
		if on {
			nw |= bit
		}
		if mode.CompareAndSwap(old, nw) {
			return old&bit != 0
		}
	}
}

// Checking reports whether the checking mode is on: before each collective
// call of this package and of package dist, every rank verifies that the
// others are making the same call with compatible arguments. XPMPI_CHECK=1
// turns it on at start-up; SetChecking at run time.
func Checking() bool { return mode.Load()&modeCheck != 0 }

// SetChecking turns the checking mode on or off and returns the previous
// setting. Every rank must make the same change at the same point.
func SetChecking(on bool) bool { return setBit(modeCheck, on) }

// MismatchError is returned on every rank when the ranks of a communicator
// make different collective calls, or the same call with incompatible
// arguments, in checking mode.
type MismatchError struct {
	Calls []string // what each rank called, with its arguments
}

func (e *MismatchError) Error() string {
	// Name the ranks that differ from rank 0, then rank 0.
	var parts []string
	for r, c := range e.Calls {
		if r > 0 && c != e.Calls[0] {
			parts = append(parts, fmt.Sprintf("rank %d called %s", r, c))
		}
	}
	parts = append(parts, fmt.Sprintf("rank 0 called %s", e.Calls[0]))
	return "mpi: collective mismatch: " + strings.Join(parts, ", ")
}

// maxCheckArgs is the number of integer arguments a check compares.
const maxCheckArgs = 6

// Arg is a named argument of a checked collective call. Value is what the
// ranks compare; Text, if set, is how a mismatch message shows it (a layout
// rather than its hash, say).
type Arg struct {
	Name  string
	Value int64
	Text  string
}

// CheckCollective verifies, in checking mode, that every rank of c is making
// the same collective call (call) with the same arguments; it returns a
// *MismatchError on every rank if not. It is itself collective. Outside
// checking mode it only records the call for the watchdog, and costs one
// branch when no watchdog runs.
func CheckCollective(c Comm, call string, args ...Arg) error {
	m := mode.Load()
	if m == 0 {
		return nil
	}
	if m&modeTrack != 0 {
		current.Store(&trackedCall{name: call, since: time.Now()})
	}
	if m&modeCheck == 0 {
		return nil
	}
	if len(args) > maxCheckArgs {
		panic(fmt.Sprintf("mpi: CheckCollective with %d arguments, at most %d", len(args), maxCheckArgs))
	}
	inner := unwrap(c)
	var desc [1 + maxCheckArgs]int64
	h := fnv.New64a()
	h.Write([]byte(call))
	for _, a := range args {
		h.Write([]byte{0})
		h.Write([]byte(a.Name))
	}
	desc[0] = int64(h.Sum64())
	for i, a := range args {
		desc[1+i] = a.Value
	}
	p := inner.Size()
	all := make([]int64, p*len(desc))
	if err := inner.Allgather(unsafe.Pointer(&desc[0]), len(desc), unsafe.Pointer(&all[0]), Int64); err != nil {
		return err
	}
	same := true
	for r := 1; r < p && same; r++ {
		for i := range desc {
			if all[r*len(desc)+i] != all[i] {
				same = false
				break
			}
		}
	}
	if same {
		return nil
	}
	// Every rank saw the same table: all of them gather the descriptions.
	text := call
	if len(args) > 0 {
		var s []string
		for _, a := range args {
			if a.Text != "" {
				s = append(s, fmt.Sprintf("%s %s", a.Name, a.Text))
			} else {
				s = append(s, fmt.Sprintf("%s %d", a.Name, a.Value))
			}
		}
		text += "(" + strings.Join(s, ", ") + ")"
	}
	calls, err := allgatherStrings(inner, text)
	if err != nil {
		return err
	}
	return &MismatchError{Calls: calls}
}

// allgatherStrings returns every rank's s, in rank order, on every rank.
func allgatherStrings(c Comm, s string) ([]string, error) {
	all, err := AllgatherBytes(c, []byte(s))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(all))
	for r, b := range all {
		out[r] = string(b)
	}
	return out, nil
}

// RankError is a failure on some ranks of a collective operation, agreed on
// by all of them: every rank returns the same RankError.
//
// It keeps the kind of the failure: where a failing rank's error matched a
// kind registered with RegisterErrorKind (fs.ErrNotExist,
// dist.ErrNoCheckpoint, ...), errors.Is finds that kind's sentinel in the
// RankError on every rank. On a rank that failed, errors.Unwrap gives its
// own error as well.
type RankError struct {
	Ranks []int      // the ranks where it failed, in order
	Msgs  []string   // the failure on each of those ranks
	Kinds [][]string // the registered kinds of each rank's failure

	kinds []error // the sentinels of every failing rank's kinds
	local error   // this rank's own error; nil where it did not fail
}

// Is reports whether target is the sentinel of a kind of the failure on
// any of the failing ranks.
func (e *RankError) Is(target error) bool {
	for _, k := range e.kinds {
		if k == target {
			return true
		}
	}
	return false
}

// Unwrap returns this rank's own error, or nil where it did not fail.
func (e *RankError) Unwrap() error { return e.local }

func (e *RankError) Error() string {
	var b strings.Builder
	if len(e.Ranks) == 1 {
		fmt.Fprintf(&b, "failed on rank %d: %s", e.Ranks[0], e.Msgs[0])
		return b.String()
	}
	fmt.Fprintf(&b, "failed on ranks %v:", e.Ranks)
	for i, r := range e.Ranks {
		fmt.Fprintf(&b, " [rank %d: %s]", r, e.Msgs[i])
	}
	return b.String()
}

// Agree turns a local outcome into a collective one: every rank passes its
// own error (nil for success), and every rank gets nil if all succeeded,
// and otherwise the same *RankError naming the ranks that failed and why.
// It is collective: use it after a local step that can fail on some ranks
// (opening a file, allocating) and before the next collective call, so that
// no rank is left waiting in it.
func Agree(c Comm, err error) error {
	failed := int32(0)
	if err != nil {
		failed = 1
	}
	inner := unwrap(c)
	any, aerr := AllreduceValue(inner, failed, LOr)
	if aerr != nil {
		return aerr
	}
	if any == 0 {
		return nil
	}
	msg := ""
	if err != nil {
		// The kinds first, then the message (which may hold anything).
		msg = strings.Join(kindsOf(err), ",") + "\x00" + err.Error()
	}
	msgs, gerr := allgatherStrings(inner, msg)
	if gerr != nil {
		return gerr
	}
	// A rank that failed with an empty message still counts: gather flags.
	flags := make([]int32, inner.Size())
	if gerr := Allgather(inner, []int32{failed}, flags); gerr != nil {
		return gerr
	}
	re := &RankError{local: err}
	var all []string
	for r, f := range flags {
		if f == 0 {
			continue
		}
		names, text, ok := strings.Cut(msgs[r], "\x00")
		if !ok {
			names, text = "", msgs[r]
		}
		var ks []string
		if names != "" {
			ks = strings.Split(names, ",")
		}
		re.Ranks = append(re.Ranks, r)
		re.Msgs = append(re.Msgs, text)
		re.Kinds = append(re.Kinds, ks)
		all = append(all, ks...)
	}
	re.kinds = kindErrors(all)
	return re
}

// IsRankError reports whether err is (or wraps) a *RankError.
func IsRankError(err error) bool {
	var re *RankError
	return errors.As(err, &re)
}

// current is the collective this rank is in, recorded while a watchdog
// runs, for the message it prints when a job runs out of time.
var current atomic.Pointer[trackedCall]

type trackedCall struct {
	name  string
	since time.Time
}

// leave records that the rank left the collective it was in.
func leave() {
	if mode.Load()&modeTrack != 0 {
		current.Store(nil)
	}
}

// Enter records, while a watchdog runs, that this rank is now inside call:
// a blocking step of a collective operation that makes no collective MPI
// call of its own (waiting for the messages of a halo exchange, say), so
// that a watchdog that fires names it. Leave records that the rank left
// it. Outside a watchdog both cost one atomic load.
func Enter(call string) {
	if mode.Load()&modeTrack != 0 {
		current.Store(&trackedCall{name: call, since: time.Now()})
	}
}

// Leave records that this rank left the call that Enter or a collective
// recorded: a watchdog that fires now says the rank is in no collective
// call.
func Leave() { leave() }

// Current returns the collective call this rank is in, and since when, as
// recorded while a watchdog runs; "" outside collectives.
func Current() (call string, since time.Time) {
	if t := current.Load(); t != nil {
		return t.name, t.since
	}
	return "", time.Time{}
}

// watchdogFired is set when a watchdog's time limit has passed: from then
// on the job ends with exit code 3, even if it finishes its work first.
var watchdogFired atomic.Bool

// watchdogDeadline is the time (Unix nanoseconds) at which an armed
// watchdog fires, 0 when none is armed: a rank whose work ends after it
// counts as past its time limit even if the timer's goroutine has not run
// yet.
var watchdogDeadline atomic.Int64

// watchdogPassed reports whether a watchdog has fired, or is armed and past
// its time limit.
func watchdogPassed() bool {
	if watchdogFired.Load() {
		return true
	}
	d := watchdogDeadline.Load()
	return d != 0 && time.Now().UnixNano() >= d
}

// abortGrace is how long a watchdog waits for MPI_Abort to end the job
// before the rank exits by itself.
const abortGrace = 5 * time.Second

// StartWatchdog arms a timer for the job: if stop has not been called
// within d, this rank prints which collective call it is in (or that it is
// in none) and, a second later so that every rank can say where it is,
// aborts the job through c. It is collective: the ranks arm their timers
// together, after a barrier, so that they fire together. A watchdog that
// fires always ends the job with exit code 3: if the abort does not end
// this rank within a few seconds (an MPI library that cannot reach a lost
// host), the rank exits by itself, and Main does not report success for a
// rank that finished after its watchdog fired. d must be positive.
func StartWatchdog(c Comm, d time.Duration) (stop func(), err error) {
	if err := unwrap(c).Barrier(); err != nil {
		return nil, err
	}
	if d <= 0 {
		return nil, fmt.Errorf("mpi: StartWatchdog: time limit %v: it must be positive", d)
	}
	setBit(modeTrack, true)
	watchdogDeadline.Store(time.Now().Add(d).UnixNano())
	t := time.AfterFunc(d, func() {
		watchdogFired.Store(true)
		where := "not in a collective call"
		if call, since := Current(); call != "" {
			where = fmt.Sprintf("in %s for %.1fs", call, time.Since(since).Seconds())
		}
		fmt.Fprintf(os.Stderr, "xpmpi: rank %d: the job exceeded its time limit of %v; this rank is %s\n", c.Rank(), d, where)
		// An abort may itself hang (a lost link): then the rank ends
		// itself.
		go func() {
			time.Sleep(abortGrace)
			fmt.Fprintf(os.Stderr, "xpmpi: rank %d: the abort did not end the job within %v; exiting\n", c.Rank(), abortGrace)
			os.Exit(3)
		}()
		time.Sleep(time.Second) // so that every rank can say where it is
		c.Abort(3)
	})
	return func() {
		if t.Stop() {
			watchdogDeadline.Store(0)
		} else {
			// The timer has fired: its function runs (or is about to) and
			// ends the job with code 3.
			watchdogFired.Store(true)
		}
		setBit(modeTrack, false)
	}, nil
}
