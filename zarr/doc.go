// Package zarr reads and writes dist arrays as Zarr v2 directory stores, the
// format of zarr-python 2 (zarr.open, zarr.save), xarray and Heat, in
// parallel: every rank writes and reads its own chunks, with no lock and no
// rank that gathers the array. It is pure Go (no cgo) over package dist.
//
//	err := zarr.Save(u, "out.zarr", "fields/u", zarr.Zlib(1), zarr.Attributes(map[string]any{"units": "K"}))
//	v, err := zarr.Load[float64](comm, "out.zarr", "fields/u", dist.ProcessGrid(0, 0))
//
// and in Python:
//
//	import zarr
//	u = zarr.open("out.zarr", mode="r")["fields/u"][...]
//
// # The store
//
// An array is a directory holding .zarray (its metadata: zarr_format 2,
// shape, chunks, dtype as NumPy's type string with its byte order, the
// compressor, fill_value, order and dimension_separator), .zattrs (user
// attributes, where it has any) and one file per chunk, named by the chunk's
// indices joined by "." ("1.0") or, with NestedKeys, "/" ("1/0"). Save writes
// an array at the store's root (name "") or at a path of groups inside it
// ("fields/u"), with a .zgroup at each level; CreateGroup and SetAttrs write
// groups and attributes. Attributes are strings, bools, numbers or lists of
// them.
//
// Element types: every type of dist, as NumPy's type strings: '<f4', '<f8',
// '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', and complex as
// '<c8' and '<c16'. Save writes little-endian; Load also reads big-endian
// ('>f8') and order "F" stores. Compressors: none (the default; compressor
// null), zlib and gzip (numcodecs' Zlib and GZip, with a level), through Go's
// compress/zlib and compress/gzip. What is not supported is refused by name
// on read: blosc (zarr-python's default), lz4, zstd and every other
// compressor ("compressor blosc is not supported: re-save with
// compressor=None or zlib"), any filter, structured, string, bool and
// datetime dtypes, and Zarr v3 (zarr.json). A 0-dimensional array has no
// dist counterpart and is refused too.
//
// # Which rank writes which chunk
//
// Zarr's chunks are a regular grid: every chunk has the shape in .zarray
// (those at the far edges are stored whole, the part outside the array
// holding fill_value). A chunk is written by exactly one rank, whole, and no
// rank waits for a lock:
//
//   - Without Chunks, Save chooses chunks aligned to the ranks' blocks: along
//     each axis that the layout splits (the split axis, or each axis of a
//     process grid with more than one rank), the largest block's length;
//     along the others the whole axis. A chunk over 16 MiB is halved along
//     the axes that are not split, then along the split ones. On an even
//     layout whose length divides (or leaves the last rank shorter), each
//     rank's block is then a whole number of chunks, and each rank writes the
//     chunks of its block straight from its memory.
//   - Where two ranks' blocks would share a chunk (uneven blocks, BlockSizes,
//     empty ranks, a chunk shape from Chunks, or halved chunks), Save first
//     moves the array, with one dist.Redistribute (one all-to-all), to a
//     layout of the same kind (same split axis, or same process grid) whose
//     block boundaries are those of the array rounded to the nearest chunk
//     boundary: each rank then holds whole chunks and writes those. Only the
//     elements between a boundary and its rounded place move, at most half a
//     chunk per boundary, and each rank needs memory for that copy of its
//     block.
//   - A replicated array is written by every rank, each the chunks whose
//     position in the row-major order of the chunk grid is its rank modulo
//     the rank count.
//
// Nothing is lost and nothing is written twice: the blocks of a layout are
// disjoint and cover the array, so the chunks do. Within a rank, chunks are
// packed, compressed and written (and on reading, read and decompressed) on
// up to backend.Threads() goroutines.
//
// # Crash safety
//
// Save writes the array into a temporary directory beside its path
// (.NAME.partial-*). Each chunk goes to a temporary file that is synced, read
// back and compared with memory, and renamed to its key; when every rank has
// written its chunks, rank 0 writes .zattrs and .zarray (last), syncs the
// directories and renames the directory into place, first moving an array
// already there aside (.NAME.old-*), which it removes after. A crash leaves
// the previous array, or between the two renames its copy under .NAME.old-*,
// never a mixture of two arrays; a failure on any rank is the same error on
// every rank and removes the temporary directory.
//
// # Reading
//
// Load and LoadInto read into any layout at any rank count, whatever chunking
// wrote the store (zarr-python's, or Save's for another layout): every rank
// reads each chunk that meets its block and copies the part inside its block.
// A chunk that meets several blocks is read by each of their ranks; nothing
// moves between ranks. A replicated array is read whole by every rank. A
// chunk missing from the store reads as fill_value (0 where it is null, where
// zarr-python leaves such elements undefined). A chunk that does not
// decompress to exactly one chunk's bytes, or whose zlib or gzip checksum
// fails, is an error naming its key. Errors are agreed: every rank returns
// the same one.
//
// The store is a directory on a file system that every rank sees (a local
// one for one node, or a shared one); object stores are not supported.
package zarr
