// Package crc32c computes the CRC-32C (Castagnoli) of data that is cut
// into runs held by different processes: each folds its runs into one
// 32-bit value (Sum), and the XOR of those values, finished with the total
// length (Finish), is the CRC-32C of the whole, exactly what
// crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)) gives.
//
// CRC is linear: the CRC of the data equals the XOR, over the runs, of each
// run's CRC shifted by the number of bytes that follow it
// (multiplication by x^(8n) modulo the CRC polynomial, as zlib's
// crc32_combine does).
package crc32c

import (
	"fmt"
	"hash/crc32"
)

// Table is the CRC-32C table (hardware accelerated where the CPU has an
// instruction for it).
var Table = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of p.
func Checksum(p []byte) uint32 { return crc32.Checksum(p, Table) }

// poly is the CRC-32C polynomial, bit-reversed.
const poly = 0x82f63b78

// x2n[k] is x^(2^k) modulo the polynomial, bit-reversed: enough for
// shifts of up to 2^63 bytes.
var x2n = func() (t [67]uint32) {
	p := uint32(1) << 30 // x^1
	for k := range t {
		t[k] = p
		p = multModP(p, p)
	}
	return t
}()

// multModP returns a*b modulo the CRC polynomial, bit-reversed (zlib's
// multmodp).
func multModP(a, b uint32) uint32 {
	if a == 0 {
		return 0
	}
	m := uint32(1) << 31
	p := uint32(0)
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
}

// x8n returns x^(8n) modulo the polynomial: the operator that appends n
// zero bytes to a CRC register.
func x8n(n int64) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; k++ {
		if n&1 != 0 {
			p = multModP(x2n[k], p)
		}
		n >>= 1
	}
	return p
}

// rawCRC returns the CRC-32C register after p from zero, without the
// initial and final inversions.
func rawCRC(p []byte) uint32 { return ^crc32.Update(^uint32(0), Table, p) }

// Sum folds the runs of some data that one process holds into the raw CRC
// of the whole data with zeros outside those runs. Runs must come in
// increasing order of offset, without overlap. The zero Sum is empty.
type Sum struct {
	acc     uint32 // raw CRC of bytes [0, end)
	end     int64
	lastD   int64 // the last shift, and its operator
	lastOp  uint32
	started bool
}

func (s *Sum) shift(v uint32, d int64) uint32 {
	if v == 0 || d == 0 {
		return v
	}
	if !s.started || d != s.lastD {
		s.lastD, s.lastOp, s.started = d, x8n(d), true
	}
	return multModP(s.lastOp, v)
}

// Add folds in the run p at byte offset off of the data. It panics on a
// run that starts before the end of the previous one.
func (s *Sum) Add(off int64, p []byte) {
	if len(p) == 0 {
		return
	}
	if off < s.end {
		panic(fmt.Sprintf("crc32c: a run at %d before the end %d of the previous one", off, s.end))
	}
	end := off + int64(len(p))
	s.acc = s.shift(s.acc, end-s.end) ^ rawCRC(p)
	s.end = end
}

// Part returns this process's share of the CRC of data of total bytes:
// the value to XOR with the other processes' before Finish.
func (s *Sum) Part(total int64) uint32 { return s.shift(s.acc, total-s.end) }

// Finish returns the CRC-32C of data of total bytes from the XOR of every
// process's Part.
func Finish(parts uint32, total int64) uint32 {
	// The standard CRC starts from all ones and inverts the result.
	return parts ^ multModP(x8n(total), ^uint32(0)) ^ ^uint32(0)
}
