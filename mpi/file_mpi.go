//go:build mpi || petsc

package mpi

/*
#include <stdlib.h>
#include "xpmpi_mpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// mpiFile is a File of the real library.
type mpiFile struct {
	fh   C.MPI_File
	comm Comm
}

func openFile(c Comm, path string, flags int) (File, error) {
	m, ok := c.(*comm)
	if !ok {
		// A stand-in communicator in an MPI build (tests): an ordinary file.
		return openOSFile(path, flags)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	f := &mpiFile{comm: c}
	lib.Lock()
	rc := C.xp_file_open(m.c, cpath, C.int(flags), &f.fh)
	lib.Unlock()
	if err := check("File_open", rc); err != nil {
		return nil, fmt.Errorf("%w: %s", err, path)
	}
	return f, nil
}

func (f *mpiFile) WriteAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	n, err := cint("File_write_at_all", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("File_write_at_all", C.xp_file_write_at_all(f.fh, C.longlong(off), buf, n, C.int(dt)))
}

// pastEnd reports an error if count elements at off go past the end of the
// file: some MPI-IO implementations return short reads as complete.
func (f *mpiFile) pastEnd(call string, off int64, count int, dt Datatype) error {
	size, err := f.Size()
	if err != nil {
		return err
	}
	if end := off + int64(count*dt.Size()); count > 0 && end > size {
		return errorf(call, "reading %d bytes at offset %d goes past the end of the file (%d bytes)", count*dt.Size(), off, size)
	}
	return nil
}

func (f *mpiFile) ReadAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	n, err := cint("File_read_at_all", count)
	if err != nil {
		return err
	}
	// The check is local; the read that follows is collective, so a rank
	// that would read past the end still takes part, reading nothing.
	end := f.pastEnd("File_read_at_all", off, count, dt)
	if end != nil {
		n = 0
	}
	var got C.int
	lib.Lock()
	rc := C.xp_file_read_at_all(f.fh, C.longlong(off), buf, n, C.int(dt), &got)
	lib.Unlock()
	if err := check("File_read_at_all", rc); err != nil {
		return err
	}
	if end != nil {
		return end
	}
	if got != n {
		return errorf("File_read_at_all", "read %d of %d elements at offset %d: the file ends there", int(got), count, off)
	}
	return nil
}

func (f *mpiFile) WriteAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	n, err := cint("File_write_at", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("File_write_at", C.xp_file_write_at(f.fh, C.longlong(off), buf, n, C.int(dt)))
}

func (f *mpiFile) ReadAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	n, err := cint("File_read_at", count)
	if err != nil {
		return err
	}
	if err := f.pastEnd("File_read_at", off, count, dt); err != nil {
		return err
	}
	var got C.int
	lib.Lock()
	rc := C.xp_file_read_at(f.fh, C.longlong(off), buf, n, C.int(dt), &got)
	lib.Unlock()
	if err := check("File_read_at", rc); err != nil {
		return err
	}
	if got != n {
		return errorf("File_read_at", "read %d of %d elements at offset %d: the file ends there", int(got), count, off)
	}
	return nil
}

func (f *mpiFile) Sync() error {
	lib.Lock()
	defer lib.Unlock()
	return check("File_sync", C.xp_file_sync(f.fh))
}

func (f *mpiFile) SetSize(size int64) error {
	lib.Lock()
	defer lib.Unlock()
	return check("File_set_size", C.xp_file_set_size(f.fh, C.longlong(size)))
}

func (f *mpiFile) Size() (int64, error) {
	var s C.longlong
	lib.Lock()
	rc := C.xp_file_get_size(f.fh, &s)
	lib.Unlock()
	return int64(s), check("File_get_size", rc)
}

func (f *mpiFile) Close() error {
	lib.Lock()
	defer lib.Unlock()
	return check("File_close", C.xp_file_close(&f.fh))
}
