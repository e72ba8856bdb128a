package profiling

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRuleUnmarshalErrorOrder: of several bad limits, the error names the
// first by name, every time (a map's order would name one at random).
func TestRuleUnmarshalErrorOrder(t *testing.T) {
	for i := 0; i < 30; i++ {
		var r Rule
		err := json.Unmarshal([]byte(`{"kind": "sync", "max_count": "x", "max_bytes": "y", "calls": "z"}`), &r)
		if err == nil || !strings.Contains(err.Error(), `limit "calls"`) {
			t.Fatalf("try %d: %v, want an error naming the limit \"calls\"", i, err)
		}
	}
}
