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
// Offsets are in bytes of the file's view (see SetView; by default the
// whole file from byte 0); counts in elements of the datatype, at most
// 2^31-1 per call. SetView, the ...All methods, Sync, SetSize and Close
// are collective.
type File interface {
	// SetView makes the file, for this rank's reads and writes that
	// follow, the stream of etype elements that filetype selects from
	// byte disp on: a block of a row-major array (MPI_File_set_view with
	// a subarray datatype), repeated like tiles, one whole array after
	// the other, to the end of the file; the zero Subarray selects every
	// element. Offsets of later calls are bytes of that stream, a
	// multiple of etype's size, and their datatype must be etype (any
	// with an etype of Byte). Every rank passes the same etype and
	// number of dimensions; disp and the block are its own. It is
	// collective.
	SetView(disp int64, etype Datatype, filetype Subarray) error
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
//
// Each rank first checks that it could open the file (it exists, or its
// directory does for Create; permissions; Exclusive), and if any rank
// could not, every rank returns that error and none opens the file. An
// open that still fails on some ranks (a race with another process, a
// library error) returns the error there, and the other ranks keep a
// handle that cannot be closed without them: callers agree on the outcome
// (Agree) and leave it.
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
	// A rank that cannot open the file says so before any rank opens it,
	// and every rank returns the same error: an open that fails on some
	// ranks only would leave the others holding handles that no rank can
	// close (closing is collective).
	if err := Agree(c, precheckOpen(path, flags)); err != nil {
		return nil, err
	}
	f, err := openFile(unwrap(c), path, flags)
	if err != nil {
		return nil, err
	}
	return &trackedFile{File: f, comm: c}, nil
}

// trackedFile records each call of a File for the watchdog, and passes the
// collective ones through the checking mode, so that a rank stuck in a
// collective write is named as such and ranks that disagree on a file
// call fail instead of hanging. It costs one atomic load per call when
// neither mode is on.
type trackedFile struct {
	File
	comm Comm
}

// collective checks and records a collective call of the file.
func (f *trackedFile) collective(call string, args ...Arg) error {
	if mode.Load() == 0 {
		return nil
	}
	return CheckCollective(f.comm, call, args...)
}

func (f *trackedFile) SetView(disp int64, etype Datatype, filetype Subarray) error {
	filetype.check()
	if !etype.valid() {
		panic(fmt.Sprintf("mpi: File.SetView with etype %v", etype))
	}
	if disp < 0 {
		panic(fmt.Sprintf("mpi: File.SetView at byte %d", disp))
	}
	if err := f.collective("File.SetView", dtArg(etype), Arg{Name: "ndims", Value: int64(len(filetype.Sizes))}); err != nil {
		return err
	}
	defer leave()
	return f.File.SetView(disp, etype, filetype)
}

func (f *trackedFile) WriteAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	if err := f.collective("File.WriteAtAll", dtArg(dt)); err != nil {
		return err
	}
	defer leave()
	return f.File.WriteAtAll(off, buf, count, dt)
}

func (f *trackedFile) ReadAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	if err := f.collective("File.ReadAtAll", dtArg(dt)); err != nil {
		return err
	}
	defer leave()
	return f.File.ReadAtAll(off, buf, count, dt)
}

func (f *trackedFile) WriteAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	Enter("File.WriteAt")
	defer leave()
	return f.File.WriteAt(off, buf, count, dt)
}

func (f *trackedFile) ReadAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	Enter("File.ReadAt")
	defer leave()
	return f.File.ReadAt(off, buf, count, dt)
}

func (f *trackedFile) Sync() error {
	if err := f.collective("File.Sync"); err != nil {
		return err
	}
	defer leave()
	return f.File.Sync()
}

func (f *trackedFile) SetSize(size int64) error {
	if err := f.collective("File.SetSize", Arg{Name: "size", Value: size}); err != nil {
		return err
	}
	defer leave()
	return f.File.SetSize(size)
}

func (f *trackedFile) Close() error {
	if err := f.collective("File.Close"); err != nil {
		return err
	}
	defer leave()
	return f.File.Close()
}

// WriteAtAll writes buf at byte offset off of f, collectively.
func WriteAtAll[T Number](f File, off int64, buf []T) error {
	return f.WriteAtAll(off, ptr(buf), len(buf), TypeOf[T]())
}

// ReadAtAll reads len(buf) elements at byte offset off of f, collectively.
func ReadAtAll[T Number](f File, off int64, buf []T) error {
	return f.ReadAtAll(off, ptr(buf), len(buf), TypeOf[T]())
}
