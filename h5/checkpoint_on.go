//go:build hdf5 && mpi && !mpich

package h5

import (
	"fmt"
	"os"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/mpi"
)

// ckptIO is what writeCheckpoint does with an array of any element type.
type ckptIO interface {
	write(f *file, name string) error
	verify(f *file, name string) (arrayInfo, error)
}

// writeCheckpoint writes the arrays into a new HDF5 file at path, closes
// and syncs it, opens it again and verifies every rank's part of every
// array, and returns the manifest's entries. Its error is the same on every
// rank and names the operation, the file and the dataset.
func writeCheckpoint(c mpi.Comm, path string, arrays []Entry) (map[string]string, error) {
	opErr := func(op, name string, err error) error {
		if name == "" {
			return fmt.Errorf("h5: %s %s: %w", op, path, err)
		}
		return fmt.Errorf("h5: %s %s: %w", op, where(path, name), err)
	}
	f, err := open(c, path, modeCreate)
	if err != nil {
		return nil, opErr("create", "", err)
	}
	for _, e := range arrays {
		name := "/" + e.name
		if err := e.a.(ckptIO).write(f, name); err != nil {
			f.close()
			return nil, opErr("write", name, err)
		}
	}
	if err := f.close(); err != nil {
		return nil, opErr("close (flush)", "", err)
	}
	// Every rank syncs the file: the data it wrote may sit in its node's
	// page cache.
	if err := mpi.Agree(c, syncFile(path)); err != nil {
		return nil, opErr("fsync", "", err)
	}
	if testAfterWrite != nil {
		testAfterWrite(c, path)
	}
	// A fresh open: nothing of the write is cached in HDF5, so what is
	// read comes from the file.
	f, err = open(c, path, modeRead)
	if err != nil {
		return nil, opErr("open to verify", "", err)
	}
	out := map[string]string{metaFormat: formatName, metaFile: CheckpointFile}
	for _, e := range arrays {
		name := "/" + e.name
		info, err := e.a.(ckptIO).verify(f, name)
		if err != nil {
			f.close()
			return nil, opErr("verify", name, err)
		}
		out[metaArray+e.name] = info.String()
	}
	if err := f.close(); err != nil {
		return nil, opErr("close", "", err)
	}
	return out, nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return firstErr(f.Sync(), f.Close())
}

// hostOf returns x's block in host memory (a copy where it lives on a
// device: free it with done), the same outcome on every rank.
func hostOf[T backend.Numeric](x *dist.Array[T]) (data []T, done func(), err error) {
	host, herr := backend.ToHost(x.Local())
	done = func() {}
	if herr == nil && host != x.Local() {
		done = func() { host.Free() }
	}
	if err := mpi.Agree(x.Comm(), herr); err != nil {
		return nil, done, err
	}
	return host.Data(), done, nil
}

func (t typed[T]) write(f *file, name string) error {
	x := t.x
	host, done, err := hostOf(x)
	defer done()
	if err != nil {
		return err
	}
	l := x.Layout()
	if err := f.dataset(l, backend.DTypeOf[T](), name, options{gzip: -1}); err != nil {
		return err
	}
	start, count, ms, mst := part(l, f.c.Rank(), false)
	err = io(f, name, l.Shape(), true, start, count, ms, mst, host)
	if err == nil && testWriteError != nil {
		err = mpi.Agree(f.c, testWriteError(f.c, name))
	}
	return err
}

func (t typed[T]) verify(f *file, name string) (arrayInfo, error) {
	x := t.x
	l := x.Layout()
	info := arrayInfo{dt: backend.DTypeOf[T](), shape: l.Shape()}
	in, err := f.datasetInfo(name)
	if err == nil && (in.dt != info.dt || !equalInts(in.shape, info.shape)) {
		err = fmt.Errorf("the file holds %v of shape %v, written as %v of shape %v", in.dt, in.shape, info.dt, info.shape)
	}
	if err := mpi.Agree(f.c, err); err != nil {
		return info, err
	}
	host, done, err := hostOf(x)
	defer done()
	if err != nil {
		return info, err
	}
	start, count, ms, mst := part(l, f.c.Rank(), false)
	n := 1
	for _, k := range count {
		n *= k
	}
	back := make([]T, n)
	zero := make([]int, len(count))
	if err := io(f, name, info.shape, false, start, count, count, zero, back); err != nil {
		return info, err
	}
	if err := mpi.Agree(f.c, compareBox(host, ms, mst, back, count, start)); err != nil {
		return info, err
	}
	var s crc32c.Sum
	boxCRC(&s, back, count, zero, count, start, info.shape)
	total := int64(info.dt.Size())
	for _, d := range info.shape {
		total *= int64(d)
	}
	info.sum, err = combineCRC(f.c, &s, total)
	return info, err
}

// loadCheckpoint reads dataset name of the checkpoint file at path, which
// the manifest describes as want, into a new array laid out by opts, and
// checks it against want's checksum.
func loadCheckpoint[T backend.Numeric](c mpi.Comm, path, name string, want arrayInfo, opts []dist.Option) (*dist.Array[T], error) {
	x, err := loadCheckpointFile[T](c, path, name, want, opts)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", where(path, name), err)
	}
	return x, nil
}

func loadCheckpointFile[T backend.Numeric](c mpi.Comm, path, name string, want arrayInfo, opts []dist.Option) (*dist.Array[T], error) {
	f, err := open(c, path, modeRead)
	if err != nil {
		return nil, err
	}
	in, err := f.datasetInfo(name)
	if err == nil && (in.dt != want.dt || !equalInts(in.shape, want.shape)) {
		err = fmt.Errorf("%s holds %v of shape %v, the manifest says %v of shape %v: the file is damaged or was replaced", where(path, name), in.dt, in.shape, want.dt, want.shape)
	}
	if err := mpi.Agree(c, err); err != nil {
		f.close()
		return nil, err
	}
	x, err := loadOpen[T](f, name, nil, opts)
	if err = firstErr(err, f.close()); err != nil {
		if x != nil {
			x.Free()
		}
		return nil, err
	}
	host, done, err := hostOf(x)
	defer done()
	if err != nil {
		x.Free()
		return nil, err
	}
	var s crc32c.Sum
	l := x.Layout()
	start, count, ms, mst := part(l, c.Rank(), false)
	boxCRC(&s, host, ms, mst, count, start, l.Shape())
	total := int64(want.dt.Size())
	for _, d := range want.shape {
		total *= int64(d)
	}
	sum, err := combineCRC(c, &s, total)
	if err == nil && sum != want.sum {
		err = fmt.Errorf("the data's checksum is crc32c:%08x, the manifest says crc32c:%08x: %s is corrupted", sum, want.sum, where(path, name))
	}
	if err != nil {
		x.Free()
		return nil, err
	}
	return x, nil
}
