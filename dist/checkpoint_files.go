package dist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xpmpi/xpmpi/mpi"
)

// SaveCheckpointFiles writes a checkpoint whose data files are written by
// write, not by this package: the hook through which a package that dist
// cannot import (package h5, which imports dist, for HDF5 checkpoints)
// keeps every guarantee of SaveCheckpoint. It runs SaveCheckpoint's
// protocol unchanged: rank 0 resolves dir's symbolic links, takes the
// directory's lock and makes the temporary directory DIR.tmp-<step>-<random>
// beside it; then every rank calls write(tmp) with that directory, which
// writes its files into it, syncs them, reads them back and checks them
// against memory, and returns the metadata that describes them (the
// checksums computed from what reached the files), the same on every rank;
// only if write succeeded on every rank does rank 0 write the manifest
// (meta with write's entries added, no .npy arrays), sync it and rename the
// directory into place, keeping the previous checkpoint until then. An
// error of write on any rank, or entries that differ between ranks, fails
// the save on every rank and leaves the previous checkpoint in place;
// OpenCheckpoint reads the result (its Manifest's Meta holds write's
// entries) and recovers from a crash as for SaveCheckpoint.
//
// It is collective over c: every rank passes the same dir, step and meta.
// write must be collective too (every rank calls it once), return an
// error that is the same on every rank (mpi.Agree), and use keys that
// meta does not have.
func SaveCheckpointFiles(c mpi.Comm, dir string, step int64, meta map[string]string, write func(tmp string) (map[string]string, error)) error {
	if write == nil {
		panic("dist: SaveCheckpointFiles: a nil write function")
	}
	dir = filepath.Clean(dir)
	for k, v := range meta {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			panic(fmt.Sprintf("dist: SaveCheckpointFiles: metadata %q: %q is not UTF-8", k, v))
		}
	}
	fail := func(err error) error { return fmt.Errorf("dist: SaveCheckpoint %s: %w", dir, err) }
	h := saveHash(dir, step, meta, nil)
	if err := mpi.CheckCollective(c, "SaveCheckpointFiles", mpi.Arg{Name: "args", Value: h}); err != nil {
		return err
	}
	all := make([]int64, c.Size())
	if err := mpi.Allgather(c, []int64{h}, all); err != nil {
		return fail(err)
	}
	for r, v := range all {
		if v != all[0] {
			return fail(fmt.Errorf("rank %d passed another directory, step or metadata than rank 0", r))
		}
	}

	// As SaveCheckpoint: rank 0 resolves, locks and makes the temporary
	// directory; the others learn both names.
	real, tmp, err := startCheckpoint(c, dir, step)
	if err != nil {
		return fail(err)
	}
	cleanup := func() {
		if c.Rank() == 0 {
			os.RemoveAll(tmp)
		}
	}

	extra, err := write(tmp)
	// write's error is the same on every rank; a write that broke that
	// contract still fails every rank, not only some.
	ok, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		cleanup()
		return fail(aerr)
	}
	if !ok {
		cleanup()
		if err == nil {
			err = errors.New("writing the data files failed on another rank")
		}
		return fail(err)
	}
	// The entries must be new keys, and the same on every rank.
	for k := range extra {
		if _, ok := meta[k]; ok && err == nil {
			err = fmt.Errorf("the data files' entry %q is a key of the caller's metadata too", k)
		} else if (!utf8.ValidString(k) || !utf8.ValidString(extra[k])) && err == nil {
			err = fmt.Errorf("the data files' entry %q: %q is not UTF-8", k, extra[k])
		}
	}
	if merr := agreeMeta(c, extra); err == nil {
		err = merr
	}
	if err := mpi.Agree(c, err); err != nil {
		cleanup()
		return fail(err)
	}
	full := make(map[string]string, len(meta)+len(extra))
	for k, v := range meta {
		full[k] = v
	}
	for k, v := range extra {
		full[k] = v
	}
	m := Manifest{Step: step, Meta: full, Created: time.Now(), Ranks: c.Size()}
	if err := finishCheckpoint(c, real, tmp, m); err != nil {
		return fail(err)
	}
	return nil
}

// agreeMeta returns an error on every rank whose m differs from rank 0's.
func agreeMeta(c mpi.Comm, m map[string]string) error {
	h := saveHash("", 0, m, nil)
	all := make([]int64, c.Size())
	if err := mpi.Allgather(c, []int64{h}, all); err != nil {
		return err
	}
	if all[c.Rank()] != all[0] {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return fmt.Errorf("the data files' entries (%s) differ from rank 0's", strings.Join(keys, ", "))
	}
	return nil
}
