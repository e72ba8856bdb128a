//go:build hdf5 && mpi && !mpich

package h5

// #include <stdlib.h>
// #include "xp_h5.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/mpi"
)

// ckptIO is what writeCheckpoint does with an array of any element type.
type ckptIO interface {
	// host returns this rank's block in host memory (agreed), and a
	// function that frees a copy.
	host() (hostBlock, func(), error)
}

func (t typed[T]) host() (hostBlock, func(), error) {
	data, done, err := hostOf(t.x)
	if err != nil {
		return hostBlock{}, done, err
	}
	l := t.x.Layout()
	b := hostBlock{size: t.dtype().Size(), shape: l.Shape()}
	b.start, b.count, b.memshape, b.memstart = part(l, t.x.Comm().Rank(), false)
	if len(data) > 0 {
		b.data = unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*b.size)
	}
	return b, done, nil
}

// writeCheckpoint writes the arrays into a new HDF5 file at path and
// returns the manifest's entries. Its error is the same on every rank and
// names the operation, the file and the dataset.
//
// Rank 0 makes the file alone, with HDF5's POSIX driver: every dataset
// contiguous, its storage allocated at creation, nothing written into it;
// the ranks learn where each dataset's data lies and write their parts of
// it themselves (writeParts, which Save shares), read them back and fold
// them into the checksums; then rank 0 opens the file again with HDF5 and
// checks every dataset's type, shape and place. No rank is ever inside a
// collective HDF5 or MPI-IO write that can fail on some ranks only (see
// write_on.go): every failure is one rank's error, which mpi.Agree gives
// every rank.
func writeCheckpoint(c mpi.Comm, path string, arrays []Entry) (map[string]string, error) {
	opErr := func(op string, err error) error { return fmt.Errorf("h5: %s %s: %w", op, path, err) }
	ds := make([]dset, len(arrays))
	for i, e := range arrays {
		ds[i] = dset{name: "/" + e.name, dt: e.a.dtype(), shape: e.a.layout().Shape(), off: -1}
	}
	var err error
	if c.Rank() == 0 {
		err = createFile(path, ds)
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, opErr("create", err)
	}
	if err := bcastOffsets(c, ds); err != nil {
		return nil, opErr("create", err)
	}
	blocks := make([]hostBlock, len(arrays))
	for i, e := range arrays {
		b, done, err := e.a.(ckptIO).host()
		defer done()
		if err != nil {
			return nil, opErr("copy to the host", err)
		}
		blocks[i] = b
	}
	sums := make([]crc32c.Sum, len(arrays))
	if op, err := writeParts(c, path, ds, blocks, sums); err != nil {
		return nil, opErr(op, err)
	}
	err = nil
	if c.Rank() == 0 {
		err = checkFile(path, ds)
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, opErr("verify", err)
	}
	out := map[string]string{metaFormat: formatName, metaFile: CheckpointFile}
	for i, e := range arrays {
		info := arrayInfo{dt: e.a.dtype(), shape: e.a.layout().Shape()}
		sum, err := combineCRC(c, &sums[i], nbytes(info))
		if err != nil {
			return nil, opErr("verify", err)
		}
		info.sum = sum
		out[metaArray+e.name] = info.String()
	}
	return out, nil
}

func nbytes(a arrayInfo) int64 {
	n := int64(a.dt.Size())
	for _, d := range a.shape {
		n *= int64(d)
	}
	return n
}

// createFile makes a new HDF5 file at path on this rank alone, with the
// datasets ds contiguous and their storage allocated, and sets each one's
// offset. The file is closed and synced.
func createFile(path string, ds []dset) error {
	f, err := openLocal(path, modeCreate)
	if err != nil {
		return err
	}
	for i := range ds {
		if ds[i].off, err = f.createAlloc(ds[i].name, ds[i].dt, ds[i].shape); err != nil {
			err = fmt.Errorf("dataset %s: %w", ds[i].name, err)
			break
		}
	}
	if err = firstErr(err, f.closeLocal()); err != nil {
		return err
	}
	return syncFile(path)
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
	f, err := open(c, path)
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
