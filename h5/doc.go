// Package h5 reads and writes dist arrays as datasets of HDF5 files, in
// parallel: every rank reads and writes its own block, as h5py with
// driver="mpio" and Heat's load_hdf5/save_hdf5 do, but never inside a
// collective HDF5 call (see Save).
//
//	err := h5.Save(u, "out.h5", "fields/u", h5.Gzip(1), h5.Attributes(map[string]any{"units": "K"}))
//	v, err := h5.Load[float64](comm, "out.h5", "fields/u", dist.ProcessGrid(0, 0))
//
// and in Python:
//
//	import h5py
//	u = h5py.File("out.h5", "r")["fields/u"][...]
//
// # Build
//
// The package binds the C library of parallel HDF5, Debian's
// libhdf5-openmpi-dev (HDF5 1.10.8 over Open MPI; pkg-config hdf5-openmpi),
// with cgo, under the build tags hdf5 and mpi:
//
//	go build -tags mpi,hdf5 ./...
//
// Without them (the default build, or -tags mpi alone, or with mpich: the
// HDF5 Debian ships for MPICH is another library) the package holds the same
// functions, which return an error wrapping ErrUnavailable that says how to
// rebuild; Available reports which build a binary is.
//
// # Datasets
//
// Save writes an array as the dataset at a path of groups ("fields/u"; the
// groups are made where missing) of a file it creates, or adds to, and no
// rank is ever inside a collective HDF5 or MPI-IO write, whose failure on
// one rank leaves the others waiting inside HDF5 forever (write_on.go has
// the design): rank 0 makes the dataset alone and closes the file; for a
// contiguous dataset every rank writes its block's bytes (for a replicated
// array, its share of the rows) into the storage rank 0 allocated, as
// package dist writes a .npy file; a chunked or compressed one the ranks
// write through HDF5 one after another, each opening the file alone. Every
// rank then reads back its part and compares it with memory: a write that
// was reported as done but did not reach the file is an error, not a file
// that looks complete. A failure on any rank is the same error on every
// rank, naming that rank, the step, the file and the dataset. Load and
// LoadInto open the file on every rank at once, each on its own (HDF5's
// serial driver, read-only; a collective read that failed on one rank hung
// too), and each reads its block as a hyperslab, into any layout at any
// rank count, whatever chunking or compression wrote the file (h5py's,
// serial or parallel, or Save's for another layout). A dataset already at the path
// with the array's shape and type is written in place, keeping its
// storage; one of another shape or type is replaced.
//
// Storage: contiguous by default; Chunks gives a chunk shape; Gzip compresses
// with HDF5's deflate filter (h5py's compression="gzip"), with chunks chosen
// from the layout where Chunks is not given (along each split axis the
// largest block, along the others the whole axis, halved while over 16 MiB).
// Parallel HDF5 writes compressed datasets only with collective transfers,
// which this package does not use for writing: the ranks' turns make gzip
// work at every rank count and layout, chunks shared by ranks included, at
// the cost of compressing one rank after another. h5py's default
// independent transfers are refused by HDF5 for a compressed dataset ("Can't
// perform independent write with filters in pipeline"). The dataset's fill
// value is never written first: Save writes every element.
//
// Element types: every type of dist, as HDF5's native types (little-endian
// on x86-64), complex64 and complex128 as h5py's compound {r, i} of two
// floats, which h5py reads as complex. Load reads big-endian datasets too
// (HDF5 converts); it refuses, naming the HDF5 type class, what dist has no
// type for (strings, enums such as h5py's bool, other compounds), scalar and
// null dataspaces, and a type other than the one asked for (no silent
// conversion).
//
// Attributes (Attributes, SetAttrs, ReadAttrs) are strings (variable-length
// UTF-8, which h5py reads as str), integers (int64), floats (float64) and 1-D
// arrays of them, on datasets and groups (CreateGroup; "/" is the root
// group).
//
// # Errors
//
// HDF5 prints nothing: its automatic error printing is off, and the error
// stack of a failed call comes back as the error's message, with the
// operation, the file and the dataset, the same on every rank (mpi.Agree),
// naming the rank where it failed. A
// missing file, dataset or group wraps fs.ErrNotExist; a layout option that
// the dataset's shape does not have is an error, not a panic.
//
// HDF5 writes in place: a crash during Save can leave a damaged file (HDF5
// 1.10 has no journal). Where that matters, write a new file and rename it.
//
// # Checkpoints
//
// SaveCheckpoint writes a dist checkpoint (dist.SaveCheckpoint's
// directory, lock, verification and crash recovery, through
// dist.SaveCheckpointFiles) whose arrays are the datasets of one HDF5 file,
// checkpoint.h5, which h5py reads; dist.OpenCheckpoint opens it and
// LoadCheckpointArray reads an array into any layout at any rank count,
// checked against the manifest's CRC-32C. `xpmpi run heat2d
// --checkpoint-format h5` uses them. checkpoint.go has the design.
//
// Every call into HDF5 holds package mpi's library lock (mpi.LockLibrary):
// HDF5 calls MPI itself, and Debian's build is not thread-safe.
package h5
