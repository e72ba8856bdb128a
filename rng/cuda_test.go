package rng

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cInput is one (seed, stream, counter, n) case of the C comparison.
type cInput struct{ seed, stream, counter, n uint64 }

func cInputs() []cInput {
	in := []cInput{
		{0, 0, 0, 1},
		{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)},
		{0x299f31d0a4093822, 0x0370734413198a2e, 0x85a308d3243f6a88, 3 << 62},
		{1, 2, 3, 10},
		{1234567, 1 << 40, 17, 1<<63 + 1},
		{42, 7, 0, 1 << 20},
	}
	// Many draws with a large rejection rate, so that the re-encryption
	// path of IntN is compared too.
	s := Stream{Seed: 77}
	for i := uint64(0); i < 200; i++ {
		in = append(in, cInput{s.Uint64(), i, i * i, 1<<63 + 1 + i})
	}
	return in
}

const cProgram = `#include <stdio.h>
#include <string.h>
#include "philox.cuh"

static unsigned long long dbits(double x) { unsigned long long b; memcpy(&b, &x, sizeof b); return b; }
static unsigned int fbits(float x) { unsigned int b; memcpy(&b, &x, sizeof b); return b; }

static const uint64_t in[][4] = {
%s};

int main(void)
{
    size_t i;
    for (i = 0; i < sizeof in / sizeof in[0]; i++) {
        uint64_t seed = in[i][0], stream = in[i][1], counter = in[i][2], n = in[i][3];
        uint32_t ctr[4], key[2], w[4];
        double u0, u1, z0, z1;
        ctr[0] = (uint32_t)counter; ctr[1] = (uint32_t)(counter >> 32);
        ctr[2] = (uint32_t)stream; ctr[3] = (uint32_t)(stream >> 32);
        key[0] = (uint32_t)seed; key[1] = (uint32_t)(seed >> 32);
        xpmpi_philox4x32_10(ctr, key, w);
        xpmpi_uniform2(seed, stream, counter, &u0, &u1);
        xpmpi_normal2(seed, stream, counter, &z0, &z1);
        printf("%%08x %%08x %%08x %%08x %%016llx %%016llx %%08x %%016llx %%016llx %%016llx\n",
               w[0], w[1], w[2], w[3], dbits(u0), dbits(u1),
               fbits(xpmpi_uniform_f32(seed, stream, counter)),
               dbits(z0), dbits(z1),
               (unsigned long long)xpmpi_intn(seed, stream, counter, n));
    }
    return 0;
}
`

// TestCUDAHeaderMatchesGo compiles philox.cuh as plain C with gcc and checks
// that Philox, the uniforms and IntN are bit-identical to the Go functions
// and that the normals agree to 1e-14.
func TestCUDAHeaderMatchesGo(t *testing.T) {
	compilers := []struct{ cc, lang string }{{"gcc", "c"}, {"g++", "c++"}}
	ran := false
	for _, c := range compilers {
		path, err := exec.LookPath(c.cc)
		if err != nil {
			t.Logf("%s not on PATH: skipping the %s build of philox.cuh", c.cc, c.lang)
			continue
		}
		ran = true
		t.Run(c.cc, func(t *testing.T) { checkHeader(t, path, c.lang) })
	}
	if !ran {
		t.Skip("no C compiler (gcc, g++) on PATH: philox.cuh not compared with the Go implementation")
	}
}

func checkHeader(t *testing.T, cc, lang string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "philox.cuh"), []byte(CUDAHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := cInputs()
	var table strings.Builder
	for _, in := range inputs {
		fmt.Fprintf(&table, "    {0x%xull, 0x%xull, 0x%xull, 0x%xull},\n", in.seed, in.stream, in.counter, in.n)
	}
	src := filepath.Join(dir, "main.c")
	if err := os.WriteFile(src, fmt.Appendf(nil, cProgram, table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "philox_check")
	std := "-std=c99"
	if lang == "c++" {
		std = "-std=c++11"
	}
	args := []string{"-x", lang, std, "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", dir, "-o", exe, src, "-lm"}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("running the C program: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(inputs) {
			t.Fatalf("C program printed more than %d lines", len(inputs))
		}
		in := inputs[i]
		var w [4]uint32
		var u0, u1, z0, z1, intn uint64
		var f uint32
		if _, err := fmt.Sscanf(sc.Text(), "%x %x %x %x %x %x %x %x %x %x",
			&w[0], &w[1], &w[2], &w[3], &u0, &u1, &f, &z0, &z1, &intn); err != nil {
			t.Fatalf("line %d %q: %v", i, sc.Text(), err)
		}
		ctr := [4]uint32{uint32(in.counter), uint32(in.counter >> 32), uint32(in.stream), uint32(in.stream >> 32)}
		key := [2]uint32{uint32(in.seed), uint32(in.seed >> 32)}
		if want := Philox4x32_10(ctr, key); w != want {
			t.Errorf("%+v: C philox %08x, Go %08x", in, w, want)
		}
		gu0, gu1 := Uniform2(in.seed, in.stream, in.counter)
		if u0 != math.Float64bits(gu0) || u1 != math.Float64bits(gu1) {
			t.Errorf("%+v: C uniform2 %v %v, Go %v %v", in, math.Float64frombits(u0), math.Float64frombits(u1), gu0, gu1)
		}
		f32 := make([]float32, 1)
		FillUniform(f32, in.seed, in.stream, in.counter)
		if f != math.Float32bits(f32[0]) {
			t.Errorf("%+v: C uniform_f32 %v, Go %v", in, math.Float32frombits(f), f32[0])
		}
		gz0, gz1 := Normal2(in.seed, in.stream, in.counter)
		for _, p := range [][2]float64{{math.Float64frombits(z0), gz0}, {math.Float64frombits(z1), gz1}} {
			if math.Abs(p[0]-p[1]) > 1e-14*math.Max(1, math.Abs(p[1])) {
				t.Errorf("%+v: C normal2 %v, Go %v", in, p[0], p[1])
			}
		}
		if want := IntN(in.seed, in.stream, in.counter, in.n); intn != want {
			t.Errorf("%+v: C intn %d, Go %d", in, intn, want)
		}
	}
	if i != len(inputs) {
		t.Errorf("C program printed %d lines, want %d", i, len(inputs))
	}
}
