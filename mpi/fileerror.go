package mpi

import (
	"fmt"
	"strings"
	"syscall"
)

// FileError is the error of an MPI-IO call: the call, the file, the MPI
// error class and the library's text, the errno the call left where it set
// one, and what xpmpi found about the likely cause (a file-size limit, a
// full file system). errors.Is matches the errno (syscall.EFBIG,
// syscall.ENOSPC, ...); errors.As finds the *Error underneath.
type FileError struct {
	Call  string        // "File_set_size", "File_write_at", ...
	Path  string        // the file
	Class string        // the MPI error class, "MPI_ERR_NO_SPACE"; "" where unknown
	Errno syscall.Errno // the errno after the failed call; 0 where none
	Hint  string        // a likely cause found by xpmpi; "" where none
	Err   *Error        // the library's error
}

// classText says what an MPI-IO error class means.
var classText = map[string]string{
	"MPI_ERR_FILE":                  "invalid file handle",
	"MPI_ERR_NOT_SAME":              "ranks passed different arguments to a collective file call",
	"MPI_ERR_AMODE":                 "invalid access mode",
	"MPI_ERR_UNSUPPORTED_OPERATION": "operation not supported on this file",
	"MPI_ERR_NO_SUCH_FILE":          "no such file or directory",
	"MPI_ERR_FILE_EXISTS":           "the file exists",
	"MPI_ERR_BAD_FILE":              "invalid file name",
	"MPI_ERR_ACCESS":                "permission denied",
	"MPI_ERR_NO_SPACE":              "no space left on the device",
	"MPI_ERR_QUOTA":                 "quota exceeded",
	"MPI_ERR_READ_ONLY":             "read-only file or file system",
	"MPI_ERR_FILE_IN_USE":           "the file is in use",
	"MPI_ERR_IO":                    "I/O error",
	"MPI_ERR_OTHER":                 "an error the library did not classify",
	"MPI_ERR_UNKNOWN":               "an unknown error",
}

func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mpi: %s %s: ", e.Call, e.Path)
	if t := classText[e.Class]; t != "" {
		fmt.Fprintf(&b, "%s (%s", t, e.Class)
	} else if e.Class != "" {
		fmt.Fprintf(&b, "(%s", e.Class)
	} else {
		b.WriteString("(")
	}
	if e.Err != nil && e.Err.Msg != "" {
		if e.Class != "" {
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "%q", e.Err.Msg)
	}
	b.WriteString(")")
	if e.Errno != 0 {
		fmt.Fprintf(&b, "; errno after the call: %s (%s)", e.Errno.Error(), errnoName(e.Errno))
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *FileError) Unwrap() []error {
	errs := []error{}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Errno != 0 {
		errs = append(errs, e.Errno)
	}
	return errs
}

// errnoName returns the symbolic name of the errno values a file call is
// likely to leave.
func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.EFBIG:
		return "EFBIG"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EDQUOT:
		return "EDQUOT"
	case syscall.EIO:
		return "EIO"
	case syscall.EROFS:
		return "EROFS"
	case syscall.EACCES:
		return "EACCES"
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.EEXIST:
		return "EEXIST"
	case syscall.EISDIR:
		return "EISDIR"
	case syscall.ENOTDIR:
		return "ENOTDIR"
	}
	return fmt.Sprintf("errno %d", int(e))
}
