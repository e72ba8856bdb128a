package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi"
	"github.com/xpmpi/xpmpi/mpi"
)

// versionDoc is what `xpmpi version` prints.
type versionDoc struct {
	Version    string `json:"version"`  // module version, or devel
	Revision   string `json:"revision"` // VCS revision, or unknown
	Go         string `json:"go"`
	Platform   string `json:"platform"`
	MPI        string `json:"mpi"`         // MPI implementation
	MPIVersion string `json:"mpi_version"` // the library's own version string
}

func versionDocument(world mpi.Comm) versionDoc {
	lib := mpi.LibraryInfo()
	return versionDoc{
		Version: xpmpi.Version(), Revision: xpmpi.Revision(),
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		MPI: lib.Implementation, MPIVersion: lib.Version,
	}
}

// text is the version document as `xpmpi version` and `xpmpi --version`
// print it.
func (d versionDoc) text() string {
	return fmt.Sprintf("xpmpi %s\nrevision %s\ngo %s %s\nmpi %s: %s\n", d.Version, d.Revision, d.Go, d.Platform, d.MPI, d.MPIVersion)
}

func (d versionDoc) write(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	_, err := io.WriteString(w, d.text())
	return err
}

func newVersionCmd(world mpi.Comm) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the xpmpi version, VCS revision, Go version and MPI library",
		Long: `version prints the version of the xpmpi module this binary was built from
("devel" for a build from a working tree), the VCS revision ("unknown" when
the build recorded none, as with -buildvcs=false), the Go version and
platform, and the MPI library the binary links ("serial stand-in" for a
build without -tags mpi). xpmpi --version prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return versionDocument(world).write(cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document")
	return cmd
}
