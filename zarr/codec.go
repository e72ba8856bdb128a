package zarr

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// asBytes returns the memory of s as bytes.
func asBytes[T backend.Numeric](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// encode compresses a chunk's bytes with the compressor comp ("" for none).
func encode(comp string, level int, raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch comp {
	case "":
		return raw, nil
	case "zlib":
		w, err = zlib.NewWriterLevel(&buf, level)
	case "gzip":
		w, err = gzip.NewWriterLevel(&buf, level)
	default:
		panic("zarr: encode: compressor " + comp)
	}
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errCorrupt is wrapped in the error of a chunk that does not decode to a
// whole chunk.
var errCorrupt = errors.New("corrupted chunk")

// decode decompresses a chunk file's contents into out, which has the size
// of a whole chunk, and checks that the chunk fills it exactly (and, for zlib
// and gzip, the stream's checksum).
func decode(comp string, data, out []byte) error {
	var r io.Reader
	br := bytes.NewReader(data)
	switch comp {
	case "":
		if len(data) != len(out) {
			return fmt.Errorf("%w: %d bytes, want %d", errCorrupt, len(data), len(out))
		}
		copy(out, data)
		return nil
	case "zlib":
		zr, err := zlib.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: zlib: %v", errCorrupt, err)
		}
		r = zr
	case "gzip":
		gr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: gzip: %v", errCorrupt, err)
		}
		r = gr
	default:
		panic("zarr: decode: compressor " + comp)
	}
	n, err := io.ReadFull(r, out)
	if err != nil {
		return fmt.Errorf("%w: %s stream holds %d bytes, want %d (%v)", errCorrupt, comp, n, len(out), err)
	}
	// Reading on to the end checks the stream's checksum and that nothing
	// follows the chunk.
	rest, err := io.ReadAll(io.LimitReader(r, 1))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errCorrupt, comp, err)
	}
	if len(rest) > 0 || br.Len() > 0 {
		return fmt.Errorf("%w: %s stream holds more than the %d bytes of a chunk", errCorrupt, comp, len(out))
	}
	return nil
}

// swapBytes reverses the bytes of every element of size bytes in b (a
// complex element as two parts of size/2).
func swapBytes(b []byte, size int, complex bool) {
	if complex {
		size /= 2
	}
	if size == 1 {
		return
	}
	for i := 0; i+size <= len(b); i += size {
		e := b[i : i+size]
		for j, k := 0, size-1; j < k; j, k = j+1, k-1 {
			e[j], e[k] = e[k], e[j]
		}
	}
}

// Compressors returns the compressors that Save writes and Load reads, by
// their numcodecs ids ("none": a store without a compressor); Load refuses
// every other (blosc, lz4, zstd, ...) by name.
func Compressors() []string { return []string{"none", "zlib", "gzip"} }
