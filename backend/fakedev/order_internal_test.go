package fakedev

import (
	"fmt"
	"strings"
	"testing"
)

// TestSynchronizeFailureOrder: of failures on several streams, Synchronize
// reports the one of the stream made first, every time (the streams' map
// would give them in a random order).
func TestSynchronizeFailureOrder(t *testing.T) {
	for i := 0; i < 20; i++ {
		b := New()
		var ss []*Stream
		for range 4 {
			d, err := b.NewStream()
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, d.(*Stream))
		}
		for j := len(ss) - 1; j >= 1; j-- {
			if _, err := ss[j].enqueue(func() { panic(fmt.Sprintf("stream %d", j)) }); err != nil {
				t.Fatal(err)
			}
		}
		err := b.Synchronize()
		if err == nil || !strings.Contains(err.Error(), "stream 1") {
			t.Fatalf("try %d: %v, want the failure of stream 1", i, err)
		}
		for _, s := range ss {
			s.Destroy()
		}
	}
}
