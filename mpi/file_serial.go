package mpi

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// osFile is a File of one process over an ordinary file.
type osFile struct {
	f    *os.File
	view view
}

func openOSFile(path string, flags int) (File, error) {
	of := 0
	switch {
	case flags&ReadOnly != 0:
		of = os.O_RDONLY
	case flags&WriteOnly != 0:
		of = os.O_WRONLY
	default:
		of = os.O_RDWR
	}
	if flags&Create != 0 {
		of |= os.O_CREATE
	}
	if flags&Exclusive != 0 {
		of |= os.O_EXCL
	}
	f, err := os.OpenFile(path, of, 0o644)
	if err != nil {
		return nil, &Error{Call: "OpenFile", Msg: err.Error()}
	}
	return &osFile{f: f}, nil
}

func (f *osFile) SetView(disp int64, etype Datatype, filetype Subarray) error {
	f.view = newView(disp, etype, filetype)
	return nil
}

func (f *osFile) WriteAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	f.view.access("WriteAt", off, count, dt)
	b := bytesAt(buf, count, dt)
	err := f.view.pieces(off, int64(len(b)), func(at, bo, n int64) error {
		_, err := f.f.WriteAt(b[bo:bo+n], at)
		return err
	})
	if err != nil {
		return &Error{Call: "WriteAt", Msg: err.Error()}
	}
	return nil
}

func (f *osFile) ReadAt(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	f.view.access("ReadAt", off, count, dt)
	b := bytesAt(buf, count, dt)
	err := f.view.pieces(off, int64(len(b)), func(at, bo, n int64) error {
		got, err := f.f.ReadAt(b[bo:bo+n], at)
		if err != nil && errors.Is(err, io.EOF) {
			return fmt.Errorf("read %d of %d bytes at offset %d: the file ends there", bo+int64(got), len(b), off)
		}
		return err
	})
	if err != nil {
		return &Error{Call: "ReadAt", Msg: err.Error()}
	}
	return nil
}

func (f *osFile) WriteAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	return f.WriteAt(off, buf, count, dt)
}

func (f *osFile) ReadAtAll(off int64, buf unsafe.Pointer, count int, dt Datatype) error {
	return f.ReadAt(off, buf, count, dt)
}

func (f *osFile) Sync() error {
	if err := f.f.Sync(); err != nil {
		return &Error{Call: "Sync", Msg: err.Error()}
	}
	return nil
}

func (f *osFile) SetSize(size int64) error {
	if err := f.f.Truncate(size); err != nil {
		return &Error{Call: "SetSize", Msg: err.Error()}
	}
	return nil
}

func (f *osFile) Size() (int64, error) {
	st, err := f.f.Stat()
	if err != nil {
		return 0, &Error{Call: "Size", Msg: err.Error()}
	}
	return st.Size(), nil
}

func (f *osFile) Close() error {
	if err := f.f.Close(); err != nil {
		return &Error{Call: "Close", Msg: err.Error()}
	}
	return nil
}
