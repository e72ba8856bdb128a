//go:build mpi || petsc

package mpi

/*
#include <stdlib.h>
#include "xpmpi_mpi.h"
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// mpiFile is a File of the real library.
type mpiFile struct {
	fh   C.MPI_File
	comm Comm
	path string
	view view
}

// fail returns the error of a file call that returned rc, leaving errno;
// end, where positive, is the byte the call would have made the file end
// at (for the diagnosis of a failed write).
func (f *mpiFile) fail(call string, rc C.int, errno error, end int64) error {
	return fileFail(call, f.path, rc, errno, end)
}

func fileFail(call, path string, rc C.int, errno error, end int64) error {
	if rc == 0 {
		return nil
	}
	e := check(call, rc).(*Error)
	en, _ := errno.(syscall.Errno)
	return &FileError{Call: call, Path: path, Class: C.GoString(C.xp_error_class(rc)), Errno: en, Hint: fileHint(path, end, en), Err: e}
}

func openFile(c Comm, path string, flags int) (File, error) {
	m, ok := c.(*comm)
	if !ok {
		// A stand-in communicator in an MPI build (tests): an ordinary file.
		return openOSFile(path, flags)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	f := &mpiFile{comm: c, path: path}
	lib.Lock()
	rc, errno := C.xp_file_open(m.c, cpath, C.int(flags), &f.fh)
	lib.Unlock()
	if err := fileFail("File_open", path, rc, errno, 0); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *mpiFile) SetView(disp int64, etype Datatype, filetype Subarray) error {
	if !filetype.fits32() {
		// Every rank has the same sizes: all of them return here.
		return errorf("File_set_view", "array of shape %v: a dimension over 2^31-1 elements", filetype.Sizes)
	}
	nd := len(filetype.Sizes)
	if filetype.empty() {
		nd = 0 // MPI has no empty subarray; the view's reads move nothing
	}
	arg := make([]C.int, 3*max(nd, 1))
	for i := 0; i < nd; i++ {
		arg[i], arg[nd+i], arg[2*nd+i] = C.int(filetype.Sizes[i]), C.int(filetype.Subsizes[i]), C.int(filetype.Starts[i])
	}
	lib.Lock()
	rc, errno := C.xp_file_set_view_subarray(f.fh, C.longlong(disp), C.int(etype), C.int(nd), &arg[0])
	lib.Unlock()
	if err := f.fail("File_set_view", rc, errno, 0); err != nil {
		return err
	}
	f.view = newView(disp, etype, filetype)
	return nil
}

func (f *mpiFile) WriteAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	at := f.view.access("WriteAtAll", off, count, dt)
	n, err := cint("File_write_at_all", count)
	if err != nil {
		return err
	}
	lib.Lock()
	rc, errno := C.xp_file_write_at_all(f.fh, C.longlong(at), buf, n, C.int(dt))
	lib.Unlock()
	if rc == 0 {
		return nil
	}
	return f.fail("File_write_at_all", rc, errno, f.view.end(off, int64(count*dt.Size())))
}

// pastEnd reports an error if count elements at off go past the end of the
// file: some MPI-IO implementations return short reads as complete.
func (f *mpiFile) pastEnd(call string, off int64, count int, dt Datatype) error {
	size, err := f.Size()
	if err != nil {
		return err
	}
	if end := f.view.end(off, int64(count*dt.Size())); count > 0 && end > size {
		return errorf(call, "reading %d bytes at offset %d goes past the end of the file (%d bytes)", count*dt.Size(), off, size)
	}
	return nil
}

func (f *mpiFile) ReadAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	at := f.view.access("ReadAtAll", off, count, dt)
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
	rc, errno := C.xp_file_read_at_all(f.fh, C.longlong(at), buf, n, C.int(dt), &got)
	lib.Unlock()
	if err := f.fail("File_read_at_all", rc, errno, 0); err != nil {
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
	at := f.view.access("WriteAt", off, count, dt)
	n, err := cint("File_write_at", count)
	if err != nil {
		return err
	}
	lib.Lock()
	rc, errno := C.xp_file_write_at(f.fh, C.longlong(at), buf, n, C.int(dt))
	lib.Unlock()
	if rc == 0 {
		return nil
	}
	return f.fail("File_write_at", rc, errno, f.view.end(off, int64(count*dt.Size())))
}

func (f *mpiFile) ReadAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	at := f.view.access("ReadAt", off, count, dt)
	n, err := cint("File_read_at", count)
	if err != nil {
		return err
	}
	if err := f.pastEnd("File_read_at", off, count, dt); err != nil {
		return err
	}
	var got C.int
	lib.Lock()
	rc, errno := C.xp_file_read_at(f.fh, C.longlong(at), buf, n, C.int(dt), &got)
	lib.Unlock()
	if err := f.fail("File_read_at", rc, errno, 0); err != nil {
		return err
	}
	if got != n {
		return errorf("File_read_at", "read %d of %d elements at offset %d: the file ends there", int(got), count, off)
	}
	return nil
}

func (f *mpiFile) Sync() error {
	lib.Lock()
	rc, errno := C.xp_file_sync(f.fh)
	lib.Unlock()
	return f.fail("File_sync", rc, errno, 0)
}

func (f *mpiFile) SetSize(size int64) error {
	lib.Lock()
	rc, errno := C.xp_file_set_size(f.fh, C.longlong(size))
	lib.Unlock()
	return f.fail("File_set_size", rc, errno, size)
}

func (f *mpiFile) Size() (int64, error) {
	var s C.longlong
	lib.Lock()
	rc, errno := C.xp_file_get_size(f.fh, &s)
	lib.Unlock()
	return int64(s), f.fail("File_get_size", rc, errno, 0)
}

func (f *mpiFile) Close() error {
	lib.Lock()
	rc, errno := C.xp_file_close(&f.fh)
	lib.Unlock()
	return f.fail("File_close", rc, errno, 0)
}

// fileHint looks for the likely cause of a failed write or resize that
// would have made path end at byte end: the process's file-size limit,
// or too little free space on its file system.
func fileHint(path string, end int64, errno syscall.Errno) string {
	var hints []string
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil && lim.Cur < 1<<62 /* not RLIM_INFINITY */ {
		if end > 0 && uint64(end) > lim.Cur {
			hints = append(hints, fmt.Sprintf("the file would end at byte %d, past this process's file-size limit of %d bytes (ulimit -f)", end, lim.Cur))
		} else if errno == syscall.EFBIG {
			hints = append(hints, fmt.Sprintf("this process has a file-size limit of %d bytes (ulimit -f)", lim.Cur))
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err == nil {
		free := uint64(st.Bavail) * uint64(st.Bsize)
		if errno == syscall.ENOSPC || errno == syscall.EDQUOT || (end > 0 && free < uint64(end)) {
			hints = append(hints, fmt.Sprintf("the file system of %s has %d bytes free", filepath.Dir(path), free))
		}
	}
	return strings.Join(hints, "; ")
}
