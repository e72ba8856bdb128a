package xpmpi_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi"
)

// A program checks at start-up that it links an xpmpi at least as new as
// the one it was written for.
func ExampleRequireVersion() {
	if err := xpmpi.RequireVersion("v0.1.0"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("xpmpi is new enough")
	// Output: xpmpi is new enough
}
