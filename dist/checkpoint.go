package dist

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist/internal/manifest"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/npy"
)

// A checkpoint is a directory:
//
//	DIR/manifest.json   what the checkpoint holds (see Manifest)
//	DIR/<name>.npy      one NumPy .npy file per array, the global array in C order
//
// SaveCheckpoint writes it under a temporary name, DIR.tmp-<step>-<random>,
// in the same parent directory: every rank writes and syncs its blocks of
// every array, then rank 0 writes and syncs the manifest, last, and moves
// the directory into place. An existing checkpoint is first renamed to
// DIR.old, the new one renamed to DIR, the parent directory synced, and
// DIR.old removed. A crash at any point leaves a complete checkpoint at
// DIR, or, between the two renames, none at DIR and the previous one at
// DIR.old: OpenCheckpoint then moves DIR.old back to DIR and opens it. The
// next SaveCheckpoint removes what a crash left (DIR.tmp-* directories, a
// DIR.old beside a DIR).
//
// Checksums: each array's manifest entry carries the CRC-32C (Castagnoli)
// of its data, the bytes of the global array in C order, exactly what
// crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)) gives for the
// data part of the .npy file. It does not depend on how the array was
// split. CRC is linear: the CRC of the data equals the XOR, over the
// contiguous runs of the file that the ranks hold, of each run's CRC
// shifted by the number of bytes that follow it (multiplication by
// x^(8n) modulo the CRC polynomial, as zlib's crc32_combine does). Each
// rank folds its runs into one 32-bit value as it writes (or reads) them,
// and one Allgather of those values gives the checksum on every rank. The
// manifest carries a CRC-32C of itself too, over its compact JSON encoding
// with that field empty, so that a corrupted manifest is an error rather
// than a wrong step or metadata. CRC-32C detects accidental corruption
// (truncation, flipped bits); it is not a defence against tampering.

// crcSum folds this rank's runs of an array's data (see crc32c.Sum).
type crcSum struct{ crc32c.Sum }

func (s *crcSum) add(off int64, p []byte) { s.Add(off, p) }

// combine returns the CRC-32C of the total bytes of data whose runs the
// ranks of c hold, the same on every rank. It is collective.
func (s *crcSum) combine(c mpi.Comm, total int64) (uint32, error) {
	all := make([]uint32, c.Size())
	if err := mpi.Allgather(c, []uint32{s.Part(total)}, all); err != nil {
		return 0, err
	}
	parts := uint32(0)
	for _, v := range all {
		parts ^= v
	}
	return crc32c.Finish(parts, total), nil
}

// Named is an array with its name in a checkpoint; Entry makes one.
type Named struct {
	name string
	a    namedArray
}

// namedArray is what a checkpoint needs of an array of any element type.
type namedArray interface {
	Comm() mpi.Comm
	Layout() Layout
	dtype() backend.DType
	save(path string, sum bool) (uint32, error)
	Freed() bool
}

func (a *Array[T]) dtype() backend.DType { return backend.DTypeOf[T]() }

// Entry names x for SaveCheckpoint; the array is saved as <name>.npy. A
// name is 1 to 128 letters, digits, '_', '-' and '.', not starting with
// '.' or '-'.
func Entry[T backend.Numeric](name string, x *Array[T]) Named {
	if x == nil {
		panic(fmt.Sprintf("dist: Entry %q of a nil array", name))
	}
	if err := checkName(name); err != nil {
		panic("dist: " + err.Error())
	}
	return Named{name: name, a: x}
}

// Name returns the entry's name.
func (n Named) Name() string { return n.name }

func checkName(name string) error { return manifest.CheckName(name) }

// Manifest is what a checkpoint holds, from its manifest.json.
type Manifest struct {
	Step    int64             // the step the caller gave SaveCheckpoint
	Meta    map[string]string // the caller's metadata
	Created time.Time         // when it was written
	Ranks   int               // the number of ranks that wrote it
	Arrays  []ArrayInfo       // in the order they were given
}

// ArrayInfo describes one array of a checkpoint.
type ArrayInfo struct {
	Name     string
	DType    backend.DType
	Shape    []int
	Checksum uint32 // CRC-32C of the data, the global array in C order
}

// Array returns the entry of the array called name.
func (m Manifest) Array(name string) (ArrayInfo, bool) {
	for _, a := range m.Arrays {
		if a.Name == name {
			return a, true
		}
	}
	return ArrayInfo{}, false
}

// The manifest file (package manifest has its format).
const (
	manifestName = manifest.FileName
	maxManifest  = manifest.Max
)

func formatCRC(v uint32) string { return manifest.FormatCRC(v) }

// encodeManifest returns the manifest file of m.
func encodeManifest(m Manifest) ([]byte, error) {
	j := manifest.Manifest{Step: m.Step, Meta: m.Meta, Created: m.Created, Ranks: m.Ranks}
	for _, a := range m.Arrays {
		j.Arrays = append(j.Arrays, manifest.Array(a))
	}
	return manifest.Encode(j)
}

// parseManifest parses and checks a manifest file.
func parseManifest(b []byte) (Manifest, error) {
	j, err := manifest.Parse(b)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{Step: j.Step, Meta: j.Meta, Created: j.Created, Ranks: j.Ranks}
	for _, a := range j.Arrays {
		m.Arrays = append(m.Arrays, ArrayInfo(a))
	}
	return m, nil
}

// ErrNoCheckpoint is (wrapped in) the error of OpenCheckpoint where there
// is no checkpoint.
var ErrNoCheckpoint = errors.New("no checkpoint")

func init() {
	// The kinds keep their identity through mpi.Agree on every rank.
	mpi.RegisterErrorKind("dist.no-checkpoint", ErrNoCheckpoint)
	mpi.RegisterErrorKind("dist.too-large", ErrTooLarge)
}

// SaveCheckpoint writes the arrays, the step and the metadata as a
// checkpoint in the directory dir, replacing the checkpoint there if there
// is one, atomically: a crash at any point leaves the previous checkpoint
// or the new one loadable by OpenCheckpoint. It is collective over c: every
// rank passes the same dir, step, metadata and arrays (of c), in the same
// order; ranks that disagree get an error. Each array is a NumPy .npy file
// that every rank writes its blocks of. A failure on any rank is the same
// error on every rank, and leaves the previous checkpoint in place. A dir
// that exists and is not a checkpoint (no manifest.json, not empty) is
// never replaced. The first save of a process to dir locks it (a file
// dir.lock beside it, held until the process ends): a save by another job
// to the same directory fails, naming the holder. Every rank reads back
// what it wrote and compares it with memory before the checkpoint is
// committed, and the checksums come from what reached the file: a write
// that a library reported as done but that did not reach the file fails
// the save on every rank and keeps the previous checkpoint.
//
// Symbolic links: rank 0 resolves dir once, at the start of each save,
// every link in it included (filepath.EvalSymlinks; where dir does not
// exist yet, its parent): a dir that is a link to a checkpoint directory
// updates the link's target, which may be on another file system, and the
// link stays. The temporary directory, the previous checkpoint (.old) and
// the lock are beside the target, so the rename never crosses file
// systems, and two jobs that name one directory by different paths (one
// through a link) take the same lock: the second is refused. A link whose
// target does not exist is followed too: the save creates the target
// (and its parents), as it creates any new checkpoint directory.
func SaveCheckpoint(c mpi.Comm, dir string, step int64, meta map[string]string, arrays ...Named) error {
	dir = filepath.Clean(dir)
	seen := map[string]bool{}
	for _, n := range arrays {
		if n.a == nil {
			panic("dist: SaveCheckpoint: a Named that Entry did not make")
		}
		if low := strings.ToLower(n.name); seen[low] {
			panic(fmt.Sprintf("dist: SaveCheckpoint: array name %q twice", n.name))
		} else {
			seen[low] = true
		}
		if n.a.Comm() != c {
			panic(fmt.Sprintf("dist: SaveCheckpoint: array %q is on another communicator", n.name))
		}
	}
	for k, v := range meta {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			panic(fmt.Sprintf("dist: SaveCheckpoint: metadata %q: %q is not UTF-8", k, v))
		}
	}
	for _, n := range arrays {
		if n.a.Freed() {
			return fmt.Errorf("%w (the entry %q)", freedCollective("SaveCheckpoint", c), n.name)
		}
	}
	fail := func(err error) error { return fmt.Errorf("dist: SaveCheckpoint %s: %w", dir, err) }

	// Every rank must be saving the same thing.
	h := saveHash(dir, step, meta, arrays)
	if err := mpi.CheckCollective(c, "SaveCheckpoint", mpi.Arg{Name: "arrays", Value: int64(len(arrays))}, mpi.Arg{Name: "args", Value: h}); err != nil {
		return err
	}
	all := make([]int64, c.Size())
	if err := mpi.Allgather(c, []int64{h}, all); err != nil {
		return fail(err)
	}
	for r, v := range all {
		if v != all[0] {
			return fail(fmt.Errorf("rank %d passed another directory, step, metadata or set of arrays than rank 0", r))
		}
	}

	// Rank 0 resolves the directory's symbolic links, once (the save
	// writes the link's target, and renames there), locks it and makes the
	// temporary directory; the others learn both names.
	real, tmp, err := startCheckpoint(c, dir, step)
	if err != nil {
		return fail(err)
	}
	cleanup := func() {
		if c.Rank() == 0 {
			os.RemoveAll(tmp)
		}
	}

	m := Manifest{Step: step, Meta: meta, Created: time.Now(), Ranks: c.Size()}
	for _, n := range arrays {
		sum, err := n.a.save(filepath.Join(tmp, n.name+".npy"), true)
		if err != nil {
			cleanup()
			return fail(fmt.Errorf("array %q: %w", n.name, err))
		}
		m.Arrays = append(m.Arrays, ArrayInfo{Name: n.name, DType: n.a.dtype(), Shape: n.a.Layout().Shape(), Checksum: sum})
	}

	// The data is synced on every rank: rank 0 writes the manifest, last,
	// and moves the checkpoint into place.
	if err := finishCheckpoint(c, real, tmp, m); err != nil {
		return fail(err)
	}
	return nil
}

// startCheckpoint is the first step of a save, collective over c: rank 0
// resolves dir's symbolic links, locks the result and makes the temporary
// directory of step; every rank learns the resolved directory and the
// temporary one, or gets rank 0's error.
func startCheckpoint(c mpi.Comm, dir string, step int64) (real, tmp string, err error) {
	var suffix [16]byte
	if c.Rank() == 0 {
		var t string
		real, err = resolveCheckpointDir(dir)
		if err == nil {
			err = lockCheckpointDir(real)
		}
		if err == nil {
			t, err = makeTempCheckpoint(real, step)
		}
		if err == nil {
			copy(suffix[:], t[len(t)-len(suffix):])
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return "", "", err
	}
	realLen := []int64{int64(len(real))}
	if err := mpi.Bcast(c, realLen, 0); err != nil {
		return "", "", err
	}
	buf := make([]byte, int(realLen[0])+len(suffix))
	copy(buf, real)
	copy(buf[realLen[0]:], suffix[:])
	if err := mpi.BcastBytes(c, buf, 0); err != nil {
		return "", "", err
	}
	real = string(buf[:realLen[0]])
	return real, fmt.Sprintf("%s.tmp-%d-%s", real, step, buf[realLen[0]:]), nil
}

// finishCheckpoint is the last step of a save, collective over c, once the
// data in tmp is synced on every rank: rank 0 writes m, the manifest, last,
// and moves tmp into place at real (removing tmp if that fails); every
// rank gets rank 0's error.
func finishCheckpoint(c mpi.Comm, real, tmp string, m Manifest) error {
	var err error
	if c.Rank() == 0 {
		err = commitCheckpoint(real, tmp, m)
		if err != nil {
			os.RemoveAll(tmp)
		}
	}
	return mpi.Agree(c, err)
}

// saveHash hashes the arguments of SaveCheckpoint, for the check that
// every rank passed the same.
func saveHash(dir string, step int64, meta map[string]string, arrays []Named) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q %d %d", dir, step, len(meta))
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, " %q=%q", k, meta[k])
	}
	for _, n := range arrays {
		fmt.Fprintf(h, " %q %d %d", n.name, n.a.dtype(), n.a.Layout().hash())
	}
	return int64(h.Sum64())
}

// makeTempCheckpoint makes the temporary directory of a new checkpoint at
// dir, after checking that dir may be replaced and removing what earlier
// crashed saves left.
func makeTempCheckpoint(dir string, step int64) (string, error) {
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return "", fmt.Errorf("%s exists and is not a directory", dir)
		}
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
			if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
				return "", fmt.Errorf("%s exists and is not a checkpoint (no %s): not replacing it", dir, manifestName)
			}
		}
	}
	// Temporary directories of saves that crashed.
	if ents, err := os.ReadDir(parent); err == nil {
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), base+".tmp-") {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%s", dir, step, hex.EncodeToString(r[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return "", err
	}
	return tmp, nil
}

// commitCheckpoint writes the manifest into tmp, syncs it, and moves tmp
// to dir (on rank 0).
func commitCheckpoint(dir, tmp string, m Manifest) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(tmp, manifestName), b); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	old := dir + ".old"
	if _, err := os.Lstat(dir); err == nil {
		// A DIR.old beside a DIR is what a crash after the second rename
		// left: DIR is the newer.
		if err := os.RemoveAll(old); err != nil {
			return err
		}
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Put the previous checkpoint back.
		if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
			os.Rename(old, dir)
		}
		return err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

func writeFileSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	err = firstErr(err, f.Sync(), f.Close())
	return err
}

// syncDir makes the entries of a directory durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil // file systems that cannot sync a directory
	}
	return firstErr(err, f.Close())
}

// CheckpointReader reads the arrays of a checkpoint that OpenCheckpoint
// opened.
type CheckpointReader struct {
	comm      mpi.Comm
	dir       string
	recovered bool
	manifest  Manifest
}

// OpenCheckpoint opens the checkpoint in the directory dir on every rank of
// c: rank 0 reads and checks its manifest and every rank gets it. If
// there is no checkpoint at dir but a save crashed after it moved the
// previous checkpoint aside (to dir.old), OpenCheckpoint moves it back and
// opens it (reading it at dir.old if it cannot be moved). It is collective;
// an error (ErrNoCheckpoint where there is none) is the same on every
// rank.
func OpenCheckpoint(c mpi.Comm, dir string) (*CheckpointReader, error) {
	dir = filepath.Clean(dir)
	if err := mpi.CheckCollective(c, "OpenCheckpoint", mpi.Arg{Name: "dir", Value: hashString(dir)}); err != nil {
		return nil, err
	}
	// Rank 0 reads the manifest; its failure, with its kind
	// (ErrNoCheckpoint), becomes every rank's through Agree.
	var at string
	var data []byte
	recovered := false
	var err error
	if c.Rank() == 0 {
		at, recovered, data, err = readManifest(dir)
		if errors.Is(err, ErrNoCheckpoint) {
			err = fmt.Errorf("%w (neither %s nor %s.old exists)", ErrNoCheckpoint, dir, dir)
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, fmt.Errorf("dist: OpenCheckpoint %s: %w", dir, err)
	}
	head := []int64{int64(len(at)), int64(len(data)), 0}
	if recovered {
		head[2] = 1
	}
	if err := mpi.Bcast(c, head, 0); err != nil {
		return nil, err
	}
	buf := make([]byte, head[0]+head[1])
	if c.Rank() == 0 {
		copy(buf, at)
		copy(buf[len(at):], data)
	}
	if err := mpi.BcastBytes(c, buf, 0); err != nil {
		return nil, err
	}
	text := string(buf[:head[0]])
	data = buf[head[0]:]
	m, err := parseManifest(data)
	if err != nil {
		// Rank 0 parsed the same bytes: it cannot fail here.
		return nil, fmt.Errorf("dist: OpenCheckpoint %s: %w", dir, err)
	}
	return &CheckpointReader{comm: c, dir: text, recovered: head[2] != 0, manifest: m}, nil
}

// readManifest finds the checkpoint at dir (or at dir.old after a crash),
// and returns its directory and its checked manifest.
func readManifest(dir string) (at string, recovered bool, data []byte, err error) {
	at = dir
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", false, nil, err
		}
		if _, err := os.Stat(dir); err == nil {
			return "", false, nil, fmt.Errorf("%s is not a checkpoint: it has no %s", dir, manifestName)
		}
		// A link's target is where a save moved the previous checkpoint
		// aside (SaveCheckpoint resolves links).
		if real, err := resolveCheckpointDir(dir); err == nil {
			dir = real
		}
		old := dir + ".old"
		if _, err := os.Stat(filepath.Join(old, manifestName)); err != nil {
			return "", false, nil, ErrNoCheckpoint
		}
		// A save crashed between moving the previous checkpoint aside and
		// moving the new one in: restore the previous one.
		recovered = true
		if err := os.Rename(old, dir); err != nil {
			at = old
		} else {
			syncDir(filepath.Dir(dir))
		}
	}
	f, err := npy.OpenRegular(filepath.Join(at, manifestName))
	if err != nil {
		return "", false, nil, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return "", false, nil, err
	}
	if _, err := parseManifest(data); err != nil {
		return "", false, nil, err
	}
	return at, recovered, data, nil
}

// Manifest returns what the checkpoint holds. It is not collective.
func (r *CheckpointReader) Manifest() Manifest {
	m := r.manifest
	if m.Meta != nil {
		m.Meta = make(map[string]string, len(r.manifest.Meta))
		for k, v := range r.manifest.Meta {
			m.Meta[k] = v
		}
	}
	m.Arrays = slices.Clone(m.Arrays)
	for i := range m.Arrays {
		m.Arrays[i].Shape = slices.Clone(m.Arrays[i].Shape)
	}
	return m
}

// Dir returns the directory the checkpoint was read from: the one given to
// OpenCheckpoint, or its .old sibling after a crashed save if that could
// not be moved back.
func (r *CheckpointReader) Dir() string { return r.dir }

// Recovered reports whether OpenCheckpoint found the checkpoint where a
// crashed save had moved it aside.
func (r *CheckpointReader) Recovered() bool { return r.recovered }

// LoadArray reads the array called name from the checkpoint into a new
// array on the reader's communicator, laid out by opts as for Load: any
// number of ranks, any split axis. It verifies the file against the
// manifest (element type, shape, size) and the data against its checksum;
// a missing array or file, an element type other than T, a truncated or
// corrupted file is the same error on every rank, never a wrong array. It
// is collective.
func LoadArray[T backend.Numeric](r *CheckpointReader, name string, opts ...Option) (*Array[T], error) {
	c := r.comm
	if err := mpi.CheckCollective(c, "LoadArray", mpi.Arg{Name: "name", Value: hashString(name)}, mpi.Arg{Name: "dtype", Value: int64(backend.DTypeOf[T]())}); err != nil {
		return nil, err
	}
	fail := func(err error) error { return fmt.Errorf("dist: checkpoint %s: array %q: %w", r.dir, name, err) }
	info, ok := r.manifest.Array(name)
	if !ok {
		var names []string
		for _, a := range r.manifest.Arrays {
			names = append(names, a.Name)
		}
		return nil, fail(fmt.Errorf("no such array (the checkpoint holds %v)", names))
	}
	if want := backend.DTypeOf[T](); info.DType != want {
		return nil, fail(fmt.Errorf("the checkpoint holds %v, not %v", info.DType, want))
	}
	path := filepath.Join(r.dir, name+".npy")
	a, sum, err := load[T](c, path, &npyExpect{dtype: info.DType, shape: info.Shape}, opts)
	if err != nil {
		return nil, fail(err)
	}
	if sum != info.Checksum {
		a.Free()
		return nil, fail(fmt.Errorf("the data's checksum is %s, the manifest says %s: %s is corrupted", formatCRC(sum), formatCRC(info.Checksum), path))
	}
	return a, nil
}
