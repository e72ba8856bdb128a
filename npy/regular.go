package npy

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenRegular opens the file at path for reading and returns it if it is
// a regular file (a symbolic link to one is followed). Anything else is
// refused with an error that says what it is: a FIFO, whose open would
// wait for a writer forever, a device, a socket or a directory. The open
// never blocks: it is non-blocking (O_NONBLOCK, which does not change how
// a regular file reads), and the kind of file is checked on the open
// descriptor (fstat), so the file checked is the file read.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file", path, FileKind(st.Mode()))
	}
	return f, nil
}

// FileKind names the kind of file of mode m, with its article: "a
// regular file", "a directory", "a FIFO (named pipe)", "a character
// device", "a block device", "a socket", "a symbolic link", "an irregular
// file".
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}
