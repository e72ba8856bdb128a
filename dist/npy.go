package dist

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/npy"
)

// NPYHeader is the header of a .npy file: see npy.Header.
type NPYHeader = npy.Header

// WriteNPYHeader writes the header of a .npy file: see npy.WriteHeader.
func WriteNPYHeader(w io.Writer, dt backend.DType, shape []int) error {
	return npy.WriteHeader(w, dt, shape)
}

// ParseNPYHeader reads the header of a .npy file: see npy.ReadHeader.
func ParseNPYHeader(r io.Reader) (NPYHeader, error) { return npy.ReadHeader(r) }

// Tuning of the parallel file I/O (variables so that tests can exercise
// every path).
var (
	// ioChunkBytes bounds the bytes of one read or write call: MPI counts
	// are 32-bit, and some MPI-IO implementations mishandle calls over
	// 2 GiB.
	ioChunkBytes = 1 << 30
	// minRunBytes is the smallest contiguous run, along a split axis other
	// than 0, that ranks read and write in place with independent calls;
	// below it the array goes through a layout split on axis 0 (one
	// collective call per rank and one all-to-all), which costs a copy but
	// not one call per tiny run.
	minRunBytes = 16 << 10
)

// flatRange returns the range [lo, hi) of global C-order element indices
// that rank reads and writes as one contiguous piece when the layout's
// blocks are contiguous in the file: its block, or for a replicated layout
// its even share of the elements. ok is false for other layouts.
func (l Layout) flatRange(rank int) (lo, hi int, ok bool) {
	if l.axis == Grid {
		if l.ranks == 1 {
			return 0, l.Len(), true
		}
		return 0, 0, false
	}
	if l.axis == Replicated {
		n, p := l.Len(), l.ranks
		lo = rank*(n/p) + min(rank, n%p)
		hi = lo + n/p
		if rank < n%p {
			hi++
		}
		return lo, hi, true
	}
	if prod(l.shape[:l.axis]) > 1 {
		if l.ranks == 1 {
			return 0, l.Len(), true
		}
		return 0, 0, false
	}
	inner := prod(l.shape[l.axis+1:])
	lo, hi = l.Range(rank)
	return lo * inner, hi * inner, true
}

// maxFlat returns the longest flat range of any rank.
func (l Layout) maxFlat() int {
	m := 0
	for r := 0; r < l.ranks; r++ {
		lo, hi, _ := l.flatRange(r)
		m = max(m, hi-lo)
	}
	return m
}

// inPlaceRuns reports whether a layout whose blocks are not contiguous in
// the file has runs long enough to read and write in place.
func (l Layout) inPlaceRuns(size int) bool {
	if l.axis == Grid {
		return false // through a layout split on axis 0
	}
	inner := prod(l.shape[l.axis+1:]) * size
	shortest := -1
	for _, c := range l.counts {
		if c > 0 && (shortest < 0 || c*inner < shortest) {
			shortest = c * inner
		}
	}
	return shortest >= minRunBytes
}

// ioCalls returns how many calls of at most ioChunkBytes move n elements.
func ioCalls(n, size int) int {
	per := max(ioChunkBytes/size, 1)
	return (n + per - 1) / per
}

func hashString(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64())
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Save writes x to the file at path as a NumPy .npy file: the global
// array in C order, which numpy.load reads. It is collective. Rank 0
// creates the file at its final size and writes the header; every rank
// writes its own block at its offset, so that no rank holds more than its
// block: with ordinary file I/O when all ranks are on one node, with
// independent MPI-IO writes otherwise (XPMPI_IO=posix or mpiio chooses;
// plain file I/O in the stand-in). With a split axis other than 0, a
// rank's block is a set of strided runs in the file: runs of at least
// 16 KiB are written in place; shorter runs, and an array on a process
// grid, go through a copy of x split on axis 0 first. A replicated array
// is written by every rank, each its share. The file is synced, and
// every rank then reads back what it wrote and compares it with memory: a
// write that a library reported as done but that did not reach the file
// is an error. A failure on any rank is the same error on every rank.
func Save[T backend.Numeric](x *Array[T], path string) error {
	if x.freed {
		return freedCollective("Save", x.comm)
	}
	if err := check("Save", x, mpi.Arg{Name: "path", Value: hashString(path)}); err != nil {
		return err
	}
	if _, err := x.save(path, false); err != nil {
		return fmt.Errorf("dist: Save %s: %w", path, err)
	}
	return nil
}

// save writes x to path; with sum, it returns the CRC-32C of the data
// (see crcSum), the same on every rank.
func (x *Array[T]) save(path string, sum bool) (uint32, error) {
	if !npy.LittleEndian {
		return 0, npy.ErrBigEndianHost()
	}
	c, l := x.comm, x.layout
	if len(l.shape) > npy.MaxDims {
		return 0, fmt.Errorf("%d dimensions: .npy files hold at most %d", len(l.shape), npy.MaxDims)
	}
	if _, _, ok := l.flatRange(0); !ok && !l.inPlaceRuns(int(unsafe.Sizeof(*new(T)))) {
		y, err := Redistribute(x, NewLayout(l.shape, 0, c.Size()))
		if err != nil {
			return 0, err
		}
		defer y.Free()
		return y.save(path, sum)
	}
	dt := backend.DTypeOf[T]()
	size := dt.Size()
	header := npy.HeaderBytes(dt, l.shape)
	dataOff := int64(len(header))
	total := dataOff + int64(l.Len())*int64(size)
	how, err := writePath(c)
	if err := mpi.Agree(c, err); err != nil {
		return 0, err
	}
	if err := mpi.CheckCollective(c, "Save.write", mpi.Arg{Name: "path", Value: int64(how), Text: how.String()}); err != nil {
		return 0, err
	}
	host, herr := x.localHost()

	// Rank 0 creates (or truncates) the file at its size first, so that a
	// file that cannot be created is an agreed error before anyone writes;
	// on the POSIX path it writes the header too.
	err = nil
	if c.Rank() == 0 {
		head := header
		if how == ioMPI {
			head = nil
		}
		err = createSized(path, total, head)
	}
	if err := mpi.Agree(c, err); err != nil {
		return 0, err
	}
	var lerr error
	if how == ioPOSIX {
		lerr = herr
		if lerr == nil {
			lerr = writePOSIX(path, l, c.Rank(), host, dataOff)
		}
	} else {
		lerr = writeMPIIO(c, path, l, host, herr, header)
	}
	// Whatever the write calls said, every rank reads back what it wrote:
	// a library can report a failed write as done.
	var crc crcSum
	if lerr == nil {
		crc, lerr = verifyWritten(path, l, c.Rank(), host, header, total)
	}
	if err := mpi.Agree(c, lerr); err != nil {
		return 0, err
	}
	if !sum {
		return 0, nil
	}
	return crc.combine(c, int64(l.Len())*int64(size))
}

// writeMPIIO writes this rank's part of the file at path (rank 0 the
// header too) with MPI-IO, each rank its own bytes with independent
// writes. Not collective writes: with Open MPI 4.1 the ranks that write
// for the others (aggregators) hang in a collective write after a failed
// pwrite on one of them, from 3 ranks on, and report a failed write on
// another rank as done; with independent writes each rank's failure stays
// its own, and the read-back (verifyWritten) catches it. herr is the
// failure to get the data to the host: the rank still takes part in the
// open, the sync and the close.
func writeMPIIO[T backend.Numeric](c mpi.Comm, path string, l Layout, host []T, herr error, header []byte) error {
	dataOff := int64(len(header))
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly)
	if err := mpi.Agree(c, err); err != nil {
		// A rank whose open succeeded keeps its handle: closing it is
		// collective, and the ranks that failed have none.
		return err
	}
	if testWrapMPI != nil {
		f = testWrapMPI(f)
	}
	lerr := herr
	if c.Rank() == 0 && lerr == nil {
		lerr = f.WriteAt(0, unsafe.Pointer(&header[0]), len(header), mpi.Byte)
	}
	if lerr == nil {
		lerr = eachRun(l, c.Rank(), host, func(off int64, run []T) error {
			return writeRun(f, dataOff+off, run)
		})
	}
	lerr = firstErr(lerr, f.Sync())
	return firstErr(lerr, f.Close())
}

// readFlat reads data at off in calls collective calls.
func readFlat[T backend.Numeric](f mpi.File, off int64, data []T, calls int) error {
	return flatCalls(f, off, data, calls, mpi.ReadAtAll[T])
}

// flatCalls moves data at off with calls collective calls of io, at most
// ioChunkBytes each; after a failure the remaining calls move nothing, so
// that every rank still makes the same number of calls.
func flatCalls[T backend.Numeric](f mpi.File, off int64, data []T, calls int, io func(mpi.File, int64, []T) error) error {
	per := max(ioChunkBytes/int(unsafe.Sizeof(*new(T))), 1)
	var first error
	for i := 0; i < calls; i++ {
		lo, hi := min(i*per, len(data)), min((i+1)*per, len(data))
		if first != nil {
			lo = hi
		}
		at := off + int64(lo)*int64(unsafe.Sizeof(*new(T)))
		if lo == hi {
			at = 0 // nothing to move: an offset inside the file
		}
		first = firstErr(first, io(f, at, data[lo:hi]))
	}
	return first
}

// writeRun writes one run with independent calls.
func writeRun[T backend.Numeric](f mpi.File, off int64, run []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	per := max(ioChunkBytes/size, 1)
	for lo := 0; lo < len(run); lo += per {
		hi := min(lo+per, len(run))
		if err := f.WriteAt(off+int64(lo*size), unsafe.Pointer(&run[lo]), hi-lo, mpiType[T]()); err != nil {
			return err
		}
	}
	return nil
}

// readRun reads one run with independent calls.
func readRun[T backend.Numeric](f mpi.File, off int64, run []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	per := max(ioChunkBytes/size, 1)
	for lo := 0; lo < len(run); lo += per {
		hi := min(lo+per, len(run))
		if err := f.ReadAt(off+int64(lo*size), unsafe.Pointer(&run[lo]), hi-lo, mpiType[T]()); err != nil {
			return err
		}
	}
	return nil
}

// asBytes returns the memory of s as bytes (little-endian machines only).
func asBytes[T backend.Numeric](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// Load reads the NumPy .npy file at path into a new array on c, laid out
// by opts (SplitAxis, BlockSizes, ProcessGrid, GridBlockSizes, OnBackend)
// as for Zeros: any number of ranks, any split axis or process grid,
// whatever layout wrote the file. It is collective. Rank 0 reads and
// checks the header and the file's size, and every rank then reads only
// its own block: with MPI-IO (see Save for which path a job takes) in one
// collective read through a file view of its block, whatever the layout;
// with ordinary file I/O, with a split axis other than 0 and runs shorter
// than 16 KiB, or a process grid, its share of a layout split on axis 0,
// which an all-to-all then redistributes. Replicated, each rank reads its
// share, which every rank then gathers. A file that is not a .npy file of T, a truncated file, a
// 0-dimensional array, or a split axis or process grid the array does not
// have, is the same error on every rank.
//
// A file of another element type than T is an error that names both,
// unless opts include Convert: the file is then loaded as its own type
// and converted to T as Astype converts (in a second array, on the same
// backend). A complex file (<c8, <c16) loaded as a real T needs
// DiscardImag as well, as Astype does; without it, it is an error that
// names both types.
func Load[T backend.Numeric](c mpi.Comm, path string, opts ...Option) (*Array[T], error) {
	a, _, err := load[T](c, path, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("dist: Load %s: %w", path, err)
	}
	return a, nil
}

// npyExpect is what a checkpoint's manifest says a .npy file holds.
type npyExpect struct {
	dtype backend.DType
	shape []int
}

// load reads the .npy file at path. With exp, the header must match it and
// the file must end with the data, and load returns the CRC-32C of the
// data, the same on every rank.
func load[T backend.Numeric](c mpi.Comm, path string, exp *npyExpect, opts []Option) (*Array[T], uint32, error) {
	o := options{axis: 0}
	for _, f := range opts {
		f(&o)
	}
	h, err := readHeaderOn[T](c, "Load", path, exp, o.axis)
	var de *dtypeError
	if errors.As(err, &de) && exp == nil {
		if o.convert && de.have.IsComplex() && !de.want.IsComplex() && !o.discardImag {
			return nil, 0, fmt.Errorf("%w; converting it drops the imaginary parts: pass dist.Convert() and dist.DiscardImag() to keep the real parts", err)
		}
		if o.convert {
			a, err := loadConverted[T](c, path, de.have, opts)
			return a, 0, err
		}
		return nil, 0, fmt.Errorf("%w; pass dist.Convert() to convert it", err)
	}
	if err != nil {
		return nil, 0, err
	}
	shape := h.shape
	if o.axis != Replicated && (o.axis < 0 || o.axis >= len(shape)) {
		return nil, 0, fmt.Errorf("split axis %d of the file's %d-dimensional shape %v", o.axis, len(shape), shape)
	}
	if o.counts != nil {
		sum := 0
		for _, n := range o.counts {
			sum += n
		}
		if len(o.counts) != c.Size() || o.axis == Replicated || sum != shape[o.axis] {
			return nil, 0, fmt.Errorf("block sizes %v for the file's shape %v on %d ranks", o.counts, shape, c.Size())
		}
	}
	if err := o.gridFits(shape); err != nil {
		return nil, 0, err
	}
	l, b := buildOptions(c, shape, opts)
	if _, _, ok := l.flatRange(0); !ok && !l.inPlaceRuns(h.dtype.Size()) && !viewRead(c, l) {
		y, sum, err := loadLayout[T](c, path, NewLayout(shape, 0, c.Size()), b, h.dataOff, exp != nil)
		if err != nil {
			return nil, 0, err
		}
		defer y.Free()
		a, err := Redistribute(y, l)
		return a, sum, err
	}
	return loadLayout[T](c, path, l, b, h.dataOff, exp != nil)
}

// dtypeError is the error of a file of another element type than the
// one asked for.
type dtypeError struct{ have, want backend.DType }

func (e *dtypeError) Error() string {
	return fmt.Sprintf("the file holds %v (%s), not %v (%s)", e.have, npy.Descr(e.have), e.want, npy.Descr(e.want))
}

// npyFile is what readHeaderOn found in a .npy file's header.
type npyFile struct {
	dtype   backend.DType
	dataOff int64
	shape   []int
}

// readHeaderOn reads the header of the .npy file at path on rank 0, checks
// it (against exp, when not nil) and the file's size, and broadcasts it:
// the same header, or the same error, on every rank. The file must hold
// T. It is collective; op names the caller for the collective check.
func readHeaderOn[T backend.Numeric](c mpi.Comm, op, path string, exp *npyExpect, axis int) (npyFile, error) {
	want := backend.DTypeOf[T]()
	if err := mpi.CheckCollective(c, op, mpi.Arg{Name: "dtype", Value: int64(want)},
		mpi.Arg{Name: "path", Value: hashString(path)}, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
		return npyFile{}, err
	}
	if !npy.LittleEndian {
		return npyFile{}, npy.ErrBigEndianHost()
	}
	// Rank 0 reads the header and broadcasts it: dtype, data offset, file
	// size, dimensions, then the shape.
	var hdr [4 + npy.MaxDims]int64
	var err error
	if c.Rank() == 0 {
		var h NPYHeader
		var size int64
		h, size, err = npy.ReadFileHeader(path)
		if err == nil {
			err = checkNPY(h, size, exp)
		}
		if err == nil {
			hdr[0], hdr[1], hdr[2], hdr[3] = int64(h.DType), h.DataOffset, size, int64(len(h.Shape))
			for i, d := range h.Shape {
				hdr[4+i] = int64(d)
			}
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return npyFile{}, err
	}
	if err := mpi.Bcast(c, hdr[:], 0); err != nil {
		return npyFile{}, err
	}
	f := npyFile{dtype: backend.DType(hdr[0]), dataOff: hdr[1], shape: make([]int, hdr[3])}
	for i := range f.shape {
		f.shape[i] = int(hdr[4+i])
	}
	if f.dtype != want {
		return npyFile{}, &dtypeError{have: f.dtype, want: want}
	}
	if len(f.shape) == 0 {
		return npyFile{}, errors.New("the file holds a 0-dimensional array; distributed arrays have at least one dimension")
	}
	return f, nil
}

// LoadInto reads the NumPy .npy file at path into x, an array that has
// the file's shape and element type, whatever layout wrote the file: as
// Load does, but into memory the caller already has, so that a program
// that reads a checkpoint every step allocates (and first touches)
// nothing. With MPI-IO every rank reads its block straight into x's
// memory (a device array through a host copy of its block). Where Load
// would read a layout split on axis 0 and redistribute (ordinary file
// I/O, and a split axis other than 0 with runs shorter than 16 KiB, or a
// process grid), LoadInto does the same through a temporary array and
// copies its result into x. It is collective. A file that does not
// hold x's shape and element type is the same error on every rank, and
// leaves x as it was; a failure while reading may leave x partly written.
func LoadInto[T backend.Numeric](x *Array[T], path string) error {
	if x.freed {
		return freedCollective("LoadInto", x.comm)
	}
	if err := loadInto(x, path); err != nil {
		return fmt.Errorf("dist: LoadInto %s: %w", path, err)
	}
	return nil
}

func loadInto[T backend.Numeric](x *Array[T], path string) error {
	c, l := x.comm, x.layout
	h, err := readHeaderOn[T](c, "LoadInto", path, nil, l.axis)
	if err != nil {
		return err
	}
	if !slices.Equal(h.shape, l.shape) {
		return fmt.Errorf("the file holds shape %v, the array has shape %v", h.shape, l.shape)
	}
	if _, _, ok := l.flatRange(0); !ok && !l.inPlaceRuns(h.dtype.Size()) && !viewRead(c, l) {
		y, _, err := loadLayout[T](c, path, NewLayout(l.shape, 0, c.Size()), x.local.Backend(), h.dataOff, false)
		if err != nil {
			return err
		}
		defer y.Free()
		z, err := Redistribute(y, l)
		if err != nil {
			return err
		}
		defer z.Free()
		Copy(x, z)
		return nil
	}
	_, err = readLayout(c, path, x, h.dataOff, false)
	return err
}

// checkNPY checks a header against the file's size and a manifest's
// expectations.
func checkNPY(h NPYHeader, size int64, exp *npyExpect) error {
	if end := h.DataOffset + h.DataSize(); size < end {
		return fmt.Errorf("truncated: the file has %d bytes, its header says shape %v of %v, %d bytes from offset %d", size, h.Shape, h.DType, h.DataSize(), h.DataOffset)
	}
	if exp == nil {
		return nil
	}
	if h.DType != exp.dtype || !slices.Equal(h.Shape, exp.shape) {
		return fmt.Errorf("the file holds %v of shape %v, the manifest says %v of shape %v", h.DType, h.Shape, exp.dtype, exp.shape)
	}
	if end := h.DataOffset + h.DataSize(); size != end {
		return fmt.Errorf("the file has %d bytes, %d more than the header and the data", size, size-end)
	}
	return nil
}

// loadLayout reads the data at dataOff into a new array of layout l: in
// one piece per rank if the layout allows, else run by run.
func loadLayout[T backend.Numeric](c mpi.Comm, path string, l Layout, b backend.Backend, dataOff int64, sum bool) (*Array[T], uint32, error) {
	a, err := newOn[T](c, l, b)
	if err != nil {
		return nil, 0, err
	}
	crc, err := readLayout(c, path, a, dataOff, sum)
	if err != nil {
		a.Free()
		return nil, 0, err
	}
	return a, crc, nil
}

// readLayout reads the data at dataOff into a's blocks, in one piece per
// rank if a's layout allows, else run by run, and returns the CRC-32C of
// the data if sum (the same on every rank).
func readLayout[T backend.Numeric](c mpi.Comm, path string, a *Array[T], dataOff int64, sum bool) (uint32, error) {
	l := a.layout
	size := int(unsafe.Sizeof(*new(T)))
	r, err := openReader[T](c, path, ioCalls(l.maxFlat(), size))
	if err != nil {
		return 0, err
	}
	me := c.Rank()
	var crc crcSum
	var lerr error
	lo, hi, flat := l.flatRange(me)
	ferr := a.hostFill(func(host []T) {
		if flat {
			data := host
			if l.axis == Replicated {
				data = make([]T, hi-lo)
			}
			if sum && r.pread != nil {
				// Each chunk is checksummed as it arrives, while the next
				// one is read where the thread budget allows.
				lerr = readSummed(r.pread, dataOff, int64(lo)*int64(size), asBytes(data), &crc)
			} else {
				lerr = r.flat(dataOff+int64(lo)*int64(size), data)
				if sum && lerr == nil {
					crc.add(int64(lo)*int64(size), asBytes(data))
				}
			}
			if l.axis == Replicated {
				lerr = firstErr(lerr, mpi.Agree(c, lerr))
				if lerr == nil {
					counts, displs := make([]int, l.ranks), make([]int, l.ranks)
					for r := range counts {
						rlo, rhi, _ := l.flatRange(r)
						counts[r], displs[r] = rhi-rlo, rlo
					}
					lerr = mpi.Allgatherv(c, data, host, counts, displs)
				}
			}
			return
		}
		start, shape := l.box(me)
		if r.box != nil {
			// MPI-IO: the block in one collective read through a view
			// of it, straight into the block's memory.
			sub := mpi.Subarray{Sizes: l.shape, Subsizes: shape, Starts: start}
			lerr = r.box(dataOff, sub, host, ioCalls(l.maxBox(), size))
		}
		boxRuns(make([]int, len(l.shape)), l.shape, start, shape, func(globalOff, packedOff, n int) {
			run := host[packedOff : packedOff+n]
			if lerr == nil && r.box == nil {
				lerr = r.run(dataOff+int64(globalOff)*int64(size), run)
			}
			if sum && lerr == nil {
				crc.add(int64(globalOff)*int64(size), asBytes(run))
			}
		})
	})
	lerr = firstErr(lerr, ferr, r.close())
	if err := mpi.Agree(c, lerr); err != nil {
		return 0, err
	}
	if !sum {
		return 0, nil
	}
	return crc.combine(c, int64(l.Len())*int64(size))
}

// reader reads a file's data on one rank: flat reads a rank's contiguous
// block (a collective call on the MPI-IO path, which every rank makes, with
// an empty block if it has none), run one run of a strided block. On the
// POSIX path pread reads any bytes at any offset (not collective); it is
// nil on the MPI-IO path. On the MPI-IO path box reads the block sub of
// the array at off into data (C order) in calls collective calls through
// a file view of the block, which every rank makes; it is nil on the
// POSIX path.
type reader[T backend.Numeric] struct {
	flat  func(off int64, data []T) error
	run   func(off int64, run []T) error
	pread func(off int64, b []byte) error
	box   func(off int64, sub mpi.Subarray, data []T, calls int) error
	close func() error
}

// viewRead reports whether the ranks of c read the blocks of l with
// MPI-IO through file views (see reader.box): on the MPI-IO path, for an
// array with elements whose dimensions fit MPI's int arguments. A failure
// to decide (a bad XPMPI_IO) is false here and the same error on every
// rank from openReader.
func viewRead(c mpi.Comm, l Layout) bool {
	how, err := writePath(c)
	if err != nil || how != ioMPI || l.Len() == 0 {
		return false
	}
	for _, d := range l.shape {
		if d > math.MaxInt32 {
			return false
		}
	}
	return true
}

// maxBox returns the number of elements of the largest block of any rank.
func (l Layout) maxBox() int {
	m := 0
	for r := 0; r < l.ranks; r++ {
		_, shape := l.box(r)
		m = max(m, prod(shape))
	}
	return m
}

// readBox reads the block sub of the array at byte off of f into data, in
// calls collective calls (ioChunkBytes each at most) through a view of
// the block, which it leaves set. Every rank of c calls it, with its own
// block (empty or not) and the same calls.
func readBox[T backend.Numeric](c mpi.Comm, f mpi.File, off int64, sub mpi.Subarray, data []T, calls int) error {
	if err := mpi.Agree(c, f.SetView(off, mpiType[T](), sub)); err != nil {
		return err
	}
	return flatCalls(f, 0, data, calls, mpi.ReadAtAll[T])
}

// sumChunkBytes is the size of the chunks that readSummed reads and
// checksums (a variable so that tests can exercise the chunking). Large,
// because on the machines measured (issue 15, docs/PERFORMANCE-LOG.md) a
// pread from the page cache costs more per byte in small calls, and a
// copy out of the page cache does not leave its data in the cache either
// way: what chunking buys is the overlap of one chunk's checksum with the
// next chunk's read.
var sumChunkBytes = 8 << 20

// readSummed reads len(b) bytes of the data at dataOff+sumOff into b with
// pread, in chunks of sumChunkBytes, and folds them into crc at sumOff
// (their offset in the data). With a thread budget of two or more
// (backend.Threads), a second goroutine checksums chunk k while chunk k+1
// is read; otherwise each chunk is checksummed after its read. Either way
// the checksum is of the bytes that reached b, every byte of them. After
// a failed read nothing more is read, and the checksum is not to be used.
func readSummed(pread func(off int64, b []byte) error, dataOff, sumOff int64, b []byte, crc *crcSum) error {
	chunk := max(sumChunkBytes, 1)
	if len(b) <= chunk || backend.Threads() < 2 {
		for len(b) > 0 {
			n := min(len(b), chunk)
			if err := pread(dataOff+sumOff, b[:n]); err != nil {
				return err
			}
			crc.add(sumOff, b[:n])
			b, sumOff = b[n:], sumOff+int64(n)
		}
		return nil
	}
	// The checksum goroutine receives each chunk after its read, in order
	// of offset (crcSum.add needs increasing offsets); done says it has
	// folded in everything it was given.
	type piece struct {
		off int64
		b   []byte
	}
	todo := make(chan piece, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range todo {
			crc.add(p.off, p.b)
		}
	}()
	var err error
	for len(b) > 0 {
		n := min(len(b), chunk)
		if err = pread(dataOff+sumOff, b[:n]); err != nil {
			break
		}
		todo <- piece{sumOff, b[:n]}
		b, sumOff = b[n:], sumOff+int64(n)
	}
	close(todo)
	<-done
	return err
}

// openReader opens the file at path for reading on every rank of c, by the
// path that saves take (writePath): MPI-IO, whose flat reads are calls
// collective calls (ioCalls), or ordinary file I/O with pread, which on
// one node saves MPI-IO's collective buffering a copy of every byte. The
// open is collective, and its failure on any rank is the same error on
// every rank.
func openReader[T backend.Numeric](c mpi.Comm, path string, calls int) (reader[T], error) {
	how, err := writePath(c)
	if err := mpi.Agree(c, err); err != nil {
		return reader[T]{}, err
	}
	if how == ioPOSIX {
		f, err := npy.OpenRegular(path)
		if err := mpi.Agree(c, err); err != nil {
			if f != nil {
				f.Close()
			}
			return reader[T]{}, err
		}
		preadBytes := func(off int64, b []byte) error {
			if _, err := f.ReadAt(b, off); err != nil {
				return fmt.Errorf("reading %d bytes at offset %d of %s: %w", len(b), off, path, err)
			}
			return nil
		}
		pread := func(off int64, data []T) error { return preadBytes(off, asBytes(data)) }
		return reader[T]{flat: pread, run: pread, pread: preadBytes, close: f.Close}, nil
	}
	// MPI_File_open of a FIFO would wait for a writer forever: every rank
	// first checks, without blocking, that its path is a regular file.
	chk, err := npy.OpenRegular(path)
	if err == nil {
		chk.Close()
	}
	if err := mpi.Agree(c, err); err != nil {
		return reader[T]{}, err
	}
	f, err := mpi.OpenFile(c, path, mpi.ReadOnly)
	if err := mpi.Agree(c, err); err != nil {
		return reader[T]{}, err
	}
	return reader[T]{
		flat: func(off int64, data []T) error { return readFlat(f, off, data, calls) },
		run:  func(off int64, run []T) error { return readRun(f, off, run) },
		box: func(off int64, sub mpi.Subarray, data []T, calls int) error {
			return readBox(c, f, off, sub, data, calls)
		},
		close: f.Close,
	}, nil
}

// Convert, an option of Load, converts a file whose element type is not
// the requested one, by the rules of Astype, instead of refusing it.
func Convert() Option { return func(o *options) { o.convert = true } }

// loadConverted loads the file at path, of element type dt, and returns it
// converted to T.
func loadConverted[T backend.Numeric](c mpi.Comm, path string, dt backend.DType, opts []Option) (*Array[T], error) {
	switch dt {
	case backend.Float32:
		return loadAs[T, float32](c, path, opts)
	case backend.Float64:
		return loadAs[T, float64](c, path, opts)
	case backend.Int32:
		return loadAs[T, int32](c, path, opts)
	case backend.Int64:
		return loadAs[T, int64](c, path, opts)
	case backend.Uint32:
		return loadAs[T, uint32](c, path, opts)
	case backend.Uint64:
		return loadAs[T, uint64](c, path, opts)
	case backend.Int8:
		return loadAs[T, int8](c, path, opts)
	case backend.Int16:
		return loadAs[T, int16](c, path, opts)
	case backend.Uint8:
		return loadAs[T, uint8](c, path, opts)
	case backend.Uint16:
		return loadAs[T, uint16](c, path, opts)
	case backend.Complex64:
		return loadAs[T, complex64](c, path, opts)
	case backend.Complex128:
		return loadAs[T, complex128](c, path, opts)
	}
	return nil, fmt.Errorf("the file holds %v", dt)
}

func loadAs[T, S backend.Numeric](c mpi.Comm, path string, opts []Option) (*Array[T], error) {
	x, _, err := load[S](c, path, nil, opts)
	if err != nil {
		return nil, err
	}
	defer x.Free()
	if discardImag(opts) {
		return Astype[T](x, DiscardImag())
	}
	return Astype[T](x)
}
