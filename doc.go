// Package xpmpi reports which version of the xpmpi module a program links:
// Version and Revision from the build information, and RequireVersion, a
// check that a program can make at start-up against the oldest version it
// was written for.
//
// The toolkit itself is in the packages below this one: dist (distributed
// arrays), mpi, backend, staging, rng and the others; cmd/xpmpi is the
// command-line tool.
package xpmpi
