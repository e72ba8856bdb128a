package solvers_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/solvers"
)

func ExampleConfigError_Message() {
	err := &solvers.ConfigError{Solver: "heat", Field: "Every", Value: 5, Without: "Checkpoint", Reason: "say where to save"}
	fmt.Println(err)
	// A command-line front names the fields after its flags.
	flags := map[string]string{"Every": "--every", "Checkpoint": "--checkpoint"}
	fmt.Println(err.Message("heat2d", func(field string) string { return flags[field] }))
	// Output:
	// heat: Every 5 without Checkpoint: say where to save
	// heat2d: --every 5 without --checkpoint: say where to save
}
