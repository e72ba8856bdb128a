package profiling_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/profiling"
)

// copyToHost stands for a library call that copies device memory to the
// host and records it, as backend.ToHost does.
func copyToHost(n int64) {
	profiling.Record(profiling.Event{
		Kind:     profiling.ToHost,
		Desc:     "copyToHost",
		Bytes:    n,
		Blocking: true,
		Site:     "heat/main.go:42", // Record finds the real site when this is empty
	})
}

func Example_counter() {
	c := profiling.Count()
	for range 3 {
		copyToHost(4096)
	}
	c.Stop()
	fmt.Println(c.Total(), c.Bytes(profiling.ToHost))
	fmt.Print(c.Report())
	// Output:
	// 3 12288
	// total: 3 events, 12288 bytes
	// to_host: 3 events, 12288 bytes
	//   3 at heat/main.go:42, 12288 bytes (copyToHost)
}

func Example_budget() {
	b, err := profiling.NewBudget(
		profiling.Phase{Name: "setup", Calls: 1, Allow: []profiling.Rule{
			profiling.Allow(profiling.ToHost),
		}},
		profiling.Phase{Name: "step", Calls: 10, Allow: []profiling.Rule{
			// One small non-blocking result per step, at most.
			profiling.Allow(profiling.ToHost, profiling.MaxNBytes(8), profiling.MaxCount(10), profiling.Blocking(false)),
		}},
	)
	if err != nil {
		panic(err)
	}
	b.Run("setup", func() { copyToHost(1 << 20) })
	for range 9 {
		b.Run("step", func() { copyToHost(8) })
	}
	fmt.Println(b.Check())
	// Output:
	// step: 9 call(s), expected 10
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
	// step: blocking=true not allowed: to_host 8 bytes blocking at heat/main.go:42 (copyToHost)
}

func ExampleParseBudget() {
	b, err := profiling.ParseBudget([]byte(`[
		{"name": "step", "allow": [{"kind": "to_host", "max_total_bytes": 1024}]}
	]`))
	if err != nil {
		panic(err)
	}
	b.Run("step", func() { copyToHost(4096) })
	fmt.Println(b.Check())
	// Output:
	// step: 4096 bytes of to_host > max_total_bytes=1024
}

func ExampleAssertNoTransfers() {
	err := profiling.AssertNoTransfers(func() error {
		copyToHost(64) // a hidden copy in a hot loop
		return nil
	})
	fmt.Println(err)
	// Output:
	// profiling: 1 transfer event where none were expected:
	//   to_host 64 bytes blocking at heat/main.go:42 (copyToHost)
}

func ExampleCountTraffic() {
	t := profiling.CountTraffic()
	profiling.RecordMessage("Send", 1, 4096) // as package mpi does
	profiling.RecordMessage("Recv", 1, 4096)
	profiling.RecordMessage("Allreduce", profiling.Collective, 8)
	t.Stop()
	fmt.Print(t.Report())
	// Output:
	// MPI: 3 messages, 8200 bytes
	//   peer 1: 2 messages, 8192 bytes
	//   Recv: 1 message, 4096 bytes
	//   Send: 1 message, 4096 bytes
	//   Allreduce (collective): 1 message, 8 bytes
}

func ExampleRegion() {
	sync := func() error { return nil } // e.g. the backend's Synchronize
	t := profiling.Region("step", sync)
	// ... work queued on the device ...
	r := t.Stop()
	fmt.Println(r.Name, r.Synced, r.Err)
	// Output:
	// step true <nil>
}
