package main

import (
	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
)

func newRunCmd(world mpi.Comm) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run <example>",
		Short: "Run a distributed example job",
	}
	return cmd
}
