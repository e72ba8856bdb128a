package mpi

import (
	"fmt"
	"unsafe"
)

// File flags for OpenFile, combined with |.
const (
	ReadOnly  = 1
	WriteOnly = 2
	ReadWrite = 4
	Create    = 8
	Exclusive = 16
)

// File is a file that every rank of a communicator opened together for
// parallel I/O (MPI-IO under -tags mpi; an ordinary file in the stand-in).
// Offsets are in bytes; counts in elements of the datatype, at most 2^31-1
// per call. The ...All methods, Sync, SetSize and Close are collective.
type File interface {
	// WriteAtAll writes count elements at byte offset off, every rank its
	// own part, in one collective call.
	WriteAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error
	// ReadAtAll reads count elements at byte offset off, every rank its own
	// part, in one collective call. Reading past the end is an error.
	ReadAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error
	// WriteAt writes count elements at off, independently of other ranks.
	WriteAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error
	// ReadAt reads count elements at off, independently of other ranks.
	ReadAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error
	// Sync makes every rank's writes durable.
	Sync() error
	// SetSize truncates or extends the file.
	SetSize(size int64) error
	// Size returns the file's size in bytes.
	Size() (int64, error)
	// Close closes the file on every rank.
	Close() error
}

// OpenFile opens path on every rank of c with the flags (ReadOnly,
// WriteOnly or ReadWrite, optionally Create and Exclusive). It is
// collective; every rank passes the same path and flags.
func OpenFile(c Comm, path string, flags int) (File, error) {
	n := 0
	for _, f := range []int{ReadOnly, WriteOnly, ReadWrite} {
		if flags&f != 0 {
			n++
		}
	}
	if n != 1 || flags&^(ReadOnly|WriteOnly|ReadWrite|Create|Exclusive) != 0 {
		panic(fmt.Sprintf("mpi: OpenFile flags %#x: want exactly one of ReadOnly, WriteOnly, ReadWrite, with Create or Exclusive", flags))
	}
	if err := CheckCollective(c, "OpenFile", Arg{Name: "flags", Value: int64(flags)}); err != nil {
		return nil, err
	}
	defer leave()
	return openFile(unwrap(c), path, flags)
}

// WriteAtAll writes buf at byte offset off of f, collectively.
func WriteAtAll[T Number](f File, off int64, buf []T) error {
	return f.WriteAtAll(off, ptr(buf), len(buf), TypeOf[T]())
}

// ReadAtAll reads len(buf) elements at byte offset off of f, collectively.
func ReadAtAll[T Number](f File, off int64, buf []T) error {
	return f.ReadAtAll(off, ptr(buf), len(buf), TypeOf[T]())
}
