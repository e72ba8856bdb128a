package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/integrate"
	"github.com/xpmpi/xpmpi/internal/serialloop"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/rng"
)

func TestMedianAndSpread(t *testing.T) {
	for _, c := range []struct {
		v            []float64
		med, spreadV float64
	}{
		{nil, 0, 0},
		{[]float64{3}, 3, 0},
		{[]float64{2, 1}, 1.5, 1.0 / 1.5},
		{[]float64{5, 1, 3}, 3, 4.0 / 3},
		{[]float64{4, 1, 3, 2}, 2.5, 3 / 2.5},
		{[]float64{10, 10, 10, 10, 12}, 10, 0.2},
		{[]float64{0, 0, 1}, 0, 0}, // zero median: no spread
	} {
		in := slices.Clone(c.v)
		if m := median(c.v); m != c.med {
			t.Errorf("median(%v) = %g, want %g", c.v, m, c.med)
		}
		if s := spread(c.v); math.Abs(s-c.spreadV) > 1e-15 {
			t.Errorf("spread(%v) = %g, want %g", c.v, s, c.spreadV)
		}
		if !slices.Equal(in, c.v) {
			t.Errorf("median reordered its input: %v", c.v)
		}
	}
}

func TestRatioAndRows(t *testing.T) {
	if r := ratioOf(KindTime, 2, 1); r != 2 {
		t.Errorf("time ratio %g", r)
	}
	// Bandwidth: xpmpi at 9 GB/s against 18 takes twice the time.
	if r := ratioOf(KindRate, 9, 18); r != 2 {
		t.Errorf("bandwidth ratio %g", r)
	}
	if r := ratioOf(KindTime, 1, 0); r != 0 {
		t.Errorf("ratio over zero %g", r)
	}
	row := newRow("W3", 2, "cpu", "Jacobi iteration", "ms/iter", KindTime, 1.1, []float64{1.1, 1.0, 1.2}, []float64{1, 1, 1}, true)
	if row.XPMPI != 1.1 || row.Reference != 1 || math.Abs(row.Ratio-1.1) > 1e-15 || row.Reps != 3 || math.Abs(row.Spread-0.2/1.1) > 1e-15 {
		t.Errorf("row %+v", row)
	}
	if got := row.targetText(); got != "<=1.1 met" {
		t.Errorf("target %q", got)
	}
	row.Ratio = 1.2
	if got := row.targetText(); got != "<=1.1 MISSED" {
		t.Errorf("target %q", got)
	}
	row.Target = 0
	if got := row.targetText(); got != "-" {
		t.Errorf("no target: %q", got)
	}
}

func TestChecksumComparison(t *testing.T) {
	s := func(sum float64) Sample { return Sample{Seconds: 1, Checksum: sum, OK: true} }
	for _, c := range []struct {
		name   string
		xs, rs []Sample
		tol    float64
		ok     bool
	}{
		{"exact equal", []Sample{s(4), s(4)}, []Sample{s(4), s(4)}, 0, true},
		{"exact differs in the last bit", []Sample{s(1)}, []Sample{s(math.Nextafter(1, 2))}, 0, false},
		{"within tolerance", []Sample{s(1)}, []Sample{s(1 + 1e-12)}, 1e-10, true},
		{"beyond tolerance", []Sample{s(1)}, []Sample{s(1 + 1e-9)}, 1e-10, false},
		{"a later repetition differs", []Sample{s(2), s(2), s(3)}, []Sample{s(2), s(2), s(3)}, 0, false},
		{"xpmpi's verification failed", []Sample{{Checksum: 1}}, []Sample{s(1)}, 0, false},
		{"the reference's verification failed", []Sample{s(1)}, []Sample{{Checksum: 1}}, 0, false},
		{"NaN", []Sample{s(math.NaN())}, []Sample{s(math.NaN())}, 1e-10, false},
		{"no repetitions", nil, nil, 0, false},
	} {
		got := compareChecksums("W0", "sum", c.xs, c.rs, c.tol, nil)
		if got.OK != c.ok {
			t.Errorf("%s: ok %v, want %v (%s)", c.name, got.OK, c.ok, got.Detail)
		}
	}
	// A figure other than the checksum: the CG iterations.
	it := func(k float64) Sample { return Sample{Extra: [4]float64{k}, OK: true} }
	if c := compareChecksums("W4", "iterations", []Sample{it(10)}, []Sample{it(11)}, 0, func(s Sample) float64 { return s.Extra[0] }); c.OK {
		t.Error("10 and 11 iterations agree")
	}
}

func TestParseOnly(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", benchIDs, ""},
		{"W3", []string{"W3"}, ""},
		{"w4, W1,W4", []string{"W1", "W4"}, ""},
		{"W7", []string{"W7"}, ""},
		{"W10", []string{"W10"}, ""},
		{"W11", []string{"W11"}, ""},
		{"W12", nil, "unknown workload"},
		{",", nil, "names no workload"},
	} {
		got, err := parseOnly(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

// fakeRows are rows as the bench makes them, one of each kind, one
// disagreeing, one with a ratio JSON cannot hold.
func fakeRows() []Row {
	return []Row{
		newRow("W1", 1, "cpu", "triad, 1 thread vs C", "GB/s", KindRate, targetTriad, []float64{12, 12.5, 11.8}, []float64{18.6, 18.4, 18.9}, true),
		newRow("W3", 1, "cpu", "Jacobi iteration", "ms/iter", KindTime, targetJacobi, []float64{5.0, 5.1}, []float64{4.8, 4.9}, true),
		newRow("W4", 1, "cpu", "CG iterations", "count", KindInfo, 0, []float64{1898}, []float64{1898}, true),
		newRow("W5", 1, "cpu", "sample sort", "s", KindTime, 0, []float64{1.3}, []float64{0.6}, false),
		{Workload: "W6", Ranks: 1, Backend: "cpu", Metric: "allreduce 8 B", Unit: "us/call", XPMPI: math.Inf(1), Reference: 0.5, Ratio: math.NaN(), ChecksumOK: true, Reps: 1, Kind: KindTime, Target: targetAllreduce},
	}
}

func TestBenchTable(t *testing.T) {
	var b bytes.Buffer
	if err := writeBenchTable(&b, fakeRows()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for _, h := range strings.Fields("workload ranks backend metric unit xpmpi reference ratio target checksum reps spread") {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header lacks %q: %s", h, lines[0])
		}
	}
	for i, want := range []string{"1.550", "<=1.05 MISSED", "DISAGREE", "<=1.1 met"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d: table lacks %q:\n%s", i, want, b.String())
		}
	}
	// Columns line up: "ratio" starts at the same offset in every line.
	at := strings.Index(lines[0], "ratio")
	for _, l := range lines[1:] {
		if len(l) < at || l[at-1] != ' ' {
			t.Errorf("misaligned line %q", l)
		}
	}
}

func TestBenchJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "bench.json")
	if err := writeBenchJSON(path, fakeRows()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(data, &objs); err != nil {
		t.Fatal(err)
	}
	if len(objs) != 5 {
		t.Fatalf("%d objects", len(objs))
	}
	want := []string{"backend", "checksum_ok", "metric", "ranks", "ratio", "reference", "reps", "spread", "unit", "workload", "xpmpi"}
	for i, o := range objs {
		var keys []string
		for k := range o {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("object %d has fields %v, want exactly %v", i, keys, want)
		}
	}
	if objs[0]["workload"] != "W1" || objs[0]["unit"] != "GB/s" || objs[0]["checksum_ok"] != true || objs[0]["reps"] != 3.0 {
		t.Errorf("first object %v", objs[0])
	}
	if math.Abs(objs[0]["ratio"].(float64)-18.6/12) > 1e-12 {
		t.Errorf("bandwidth ratio %v", objs[0]["ratio"])
	}
	if objs[3]["checksum_ok"] != false {
		t.Errorf("disagreeing row %v", objs[3])
	}
	// NaN and infinities become 0.
	if objs[4]["xpmpi"] != 0.0 || objs[4]["ratio"] != 0.0 {
		t.Errorf("non-finite row %v", objs[4])
	}
}

func TestBenchPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.png")
	if err := writeBenchPNG(path, fakeRows(), "xpmpi bench, 1 rank: test"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 300 {
		t.Fatalf("image of %v", b)
	}
	// Bars are drawn in their colours: find one pixel of each.
	found := map[string]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 8, g >> 8, bl >> 8}
			switch c {
			case [3]uint32{uint32(barMet.R), uint32(barMet.G), uint32(barMet.B)}:
				found["met"] = true
			case [3]uint32{uint32(barMissed.R), uint32(barMissed.G), uint32(barMissed.B)}:
				found["missed"] = true
			case [3]uint32{uint32(barBad.R), uint32(barBad.G), uint32(barBad.B)}:
				found["bad"] = true
			}
		}
	}
	for _, k := range []string{"met", "missed", "bad"} {
		if !found[k] {
			t.Errorf("no %s bar", k)
		}
	}
	// No rows: still a picture.
	if err := writeBenchPNG(path, nil, "empty"); err != nil {
		t.Fatal(err)
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("triad, 2 threads vs C+OpenMP", 10)
	want := []string{"triad, 2", "threads vs", "C+OpenMP"}
	if !slices.Equal(got, want) {
		t.Fatalf("%q", got)
	}
	if got := wrapWords("abcdefghijkl", 5); !slices.Equal(got, []string{"abcde", "fghij", "kl"}) {
		t.Fatalf("%q", got)
	}
}

func TestNeedsMPIBuild(t *testing.T) {
	if mpi.Built {
		t.Skip("the mpi build runs the bench")
	}
	world := mpitest.World(t)
	rep, err := Run(world, Options{Small: true, Reps: 1})
	if !errors.Is(err, ErrNeedsMPI) || rep != nil {
		t.Fatalf("Run: %v, %v", rep, err)
	}
	const msg = "xpmpi bench needs the mpi build (go build -tags mpi) and the reference library (scripts/bench.sh builds both)"
	if err.Error() != msg {
		t.Fatalf("message %q", err)
	}
	if _, err := OpenReference("build/libxpref.so"); !errors.Is(err, ErrNeedsMPI) {
		t.Fatalf("OpenReference: %v", err)
	}
}

// fakeRef is a reference in Go for tests of the bench's machinery: plain
// serial loops of the workloads, whose checksums the xpmpi side must
// match. corrupt names functions whose checksum it gets wrong.
type fakeRef struct {
	ranks   int
	corrupt map[string]bool
	calls   map[string]int
}

func (f *fakeRef) Call(name string, p Params) (Sample, error) {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[name]++
	s := Sample{Seconds: 1e-3, OK: true}
	n := int(p.N)
	switch name {
	case "xpref_triad":
		for i := 0; i < n; i++ {
			s.Checksum += 1 + float64(p.Iters+1)*0.5*float64(i%1024)/1024
		}
	case "xpref_dot":
		for g := 0; g < n; g++ {
			s.Checksum += float64(g%8) / 8 * float64(g%16) / 16
		}
	case "xpref_jacobi":
		s.Checksum = serialloop.Heat(n, int(p.Iters))
	case "xpref_cg", "xpref_cg_fused":
		k, rel, sum, _ := serialloop.CG(n, p.Tol, int(p.Iters))
		s.Checksum, s.Extra = sum, [4]float64{float64(k), rel, s.Seconds / float64(max(k, 1))}
		s.OK = rel <= p.Tol
	case "xpref_sort":
		keys := make([]float64, n)
		rng.FillUniform(keys, p.Seed, 0, 0)
		slices.Sort(keys)
		for g, v := range keys {
			s.Checksum += v * float64(g%1024+1)
		}
	case "xpref_allreduce":
		s.Checksum = float64(p.Iters) * float64(f.ranks)
	case "xpref_pingpong":
		for i := 0; i < n/8; i++ {
			s.Checksum += float64(i % 1000)
		}
	case "xpref_filewrite":
		for g := 0; g < n; g++ {
			s.Checksum += float64(g%1024) / 1024
		}
		s.Extra[0], s.Extra[1] = s.Seconds/2, s.Seconds/2
	case "xpref_kepler":
		// The plain loop of the C reference, in Go.
		for g := 0; g < n; g++ {
			m, e := 2*math.Pi*float64(g%1009)/1009, 0.8*float64((g*7919)%1000)/1000
			x := m
			for it := 0; it < 50; it++ {
				fv := x - e*math.Sin(x) - m
				if fv == 0 {
					break
				}
				dv := 1 - e*math.Cos(x)
				if dv == 0 {
					break
				}
				dx := fv / dv
				x -= dx
				s.Extra[0]++
				if math.Abs(dx) < 1.48e-8 {
					break
				}
			}
			s.Checksum += x
		}
	case "xpref_rk45":
		// The same integration one system at a time (the plumbing is what
		// this fake checks).
		for g := 0; g < n; g++ {
			mu := 0.5 + float64(g%100)/100
			res, err := integrate.SolveIVP(func(t float64, y, dy []float64) {
				dy[0] = y[1]
				dy[1] = mu*(1-y[0]*y[0])*y[1] - y[0]
			}, 0, 10, []float64{2, 0}, &integrate.IVPOptions{Method: integrate.RK45, RelTol: 1e-6, AbsTol: 1e-9, IgnoreStiffness: true})
			if err != nil {
				return Sample{}, err
			}
			y := res.Y[len(res.Y)-1]
			s.Checksum += y[0] + y[1]
			s.Extra[0] += float64(res.Steps)
		}
	case "xpref_matmul":
		// The serial product, whichever the mode: the weighted sum of C.
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				c := 0.0
				for k := 0; k < n; k++ {
					c += matmulA(i, k) * matmulB(k, j)
				}
				s.Checksum += c * matmulWeight(i, j)
			}
		}
	case "xpref_fft2":
		// The forward transform by its definition (twiddles reduced
		// modulo n); the round trip is taken as exact.
		cs := make([]complex128, n)
		for k := range cs {
			sin, cos := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
			cs[k] = complex(cos, sin)
		}
		for k1 := 0; k1 < n; k1++ {
			for k2 := 0; k2 < n; k2++ {
				var v complex128
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						v += fftInput(i, j) * cs[(i*k1+j*k2)%n]
					}
				}
				s.Extra[0] += fftWeight(k1, k2) * (real(v) + 2*imag(v))
			}
		}
	default:
		return Sample{}, fmt.Errorf("fake reference: no %s", name)
	}
	if f.corrupt[name] {
		s.Checksum = s.Checksum*(1+1e-6) + 1
	}
	return s, nil
}

func (f *fakeRef) CallLoop(name string, calls int) (float64, error) {
	return 1e-7 * float64(calls), nil
}
func (f *fakeRef) Close() {}

// tinySizes are workload sizes for tests: uneven over 1-4 ranks.
func tinySizes() benchSizes {
	return benchSizes{
		TriadN: 1000, TriadSweeps: 3,
		DotN: 1003, Dots: 4,
		JacobiN: 13, JacobiIters: 9,
		CGN: 11, CGTol: 1e-8,
		SortN:          2001,
		AllreduceCalls: 10,
		PingBytes:      4096, PingTrips: 3,
		FileN:   3001,
		KeplerN: 2021,
		ODEN:    37,
		MatMulN: 13,
		FFTN:    13,
	}
}

func TestBenchWithFakeReference(t *testing.T) {
	if testing.Short() {
		t.Skip("every workload: the full suite runs it")
	}
	world := mpitest.World(t)
	ref := &fakeRef{ranks: world.Size()}
	e := newBenchEnv(world, ref, Options{Reps: 3, Threads: 1})
	e.sizes = tinySizes()
	rows, err := e.run(benchIDs)
	if err != nil {
		t.Fatal(err)
	}
	p := world.Size()
	want := []string{"W2", "W3", "W4", "W4", "W4", "W4", "W4F", "W4F", "W5", "W6"}
	if p == 1 {
		want = append([]string{"W1"}, want...)
		if e.budget > 1 {
			want = append([]string{"W1"}, want...)
		}
	} else {
		want = append(want, "W6") // the ping-pong
	}
	want = append(want, "W7", "W7")                   // write and read
	want = append(want, fftID)                        // forward and inverse
	want = append(want, matmulID, matmulID, matmulID) // B replicated; B split; grid
	want = append(want, "W10", "W10", "W10", "W10")   // Newton and RK45 time and steps
	want = append(want, "W11", "W11")                 // percentiles and unique
	var got []string
	for _, r := range rows {
		got = append(got, r.Workload)
		if !r.ChecksumOK || r.Reps != 3 || r.Ranks != p || r.Backend != "cpu" {
			t.Errorf("row %+v", r)
		}
		if r.Kind != KindInfo && !(r.XPMPI > 0 && r.Reference > 0 && r.Ratio > 0) {
			t.Errorf("row without figures: %+v", r)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows of %v, want %v", got, want)
	}
	for _, c := range e.checks {
		if !c.OK {
			t.Errorf("%s %s: %s", c.Workload, c.What, c.Detail)
		}
	}
	// The repetitions alternate: 3 reference calls of each workload.
	if ref.calls["xpref_jacobi"] != 3 || ref.calls["xpref_cg"] != 3 {
		t.Errorf("reference calls %v", ref.calls)
	}
	rep, err := e.report(rows)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ranks != p || rep.Reps != 3 || len(rep.Rows) != len(rows) {
		t.Fatalf("report of %d ranks, %d reps, %d rows", rep.Ranks, rep.Reps, len(rep.Rows))
	}
	// Each rank writes into its own directory.
	var out bytes.Buffer
	dir := t.TempDir()
	jsonPath, plotPath := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.png")
	if err := rep.WriteText(&out, true); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(jsonPath); err != nil {
		t.Fatal(err)
	}
	if err := rep.WritePNG(plotPath); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"workload", "W3", "checksums", "agree", "W6 allreduce breakdown", "samples (every repetition", "W3 Jacobi iteration (ms/iter): xpmpi "} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, out.String())
		}
	}
	for _, f := range []string{jsonPath, plotPath} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

func TestBenchFailsOnDisagreement(t *testing.T) {
	world := mpitest.World(t)
	ref := &fakeRef{ranks: world.Size(), corrupt: map[string]bool{"xpref_jacobi": true}}
	e := newBenchEnv(world, ref, Options{Reps: 1, Threads: 1})
	e.sizes = tinySizes()
	rows, err := e.run([]string{"W2", "W3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !rows[0].ChecksumOK || rows[1].ChecksumOK {
		t.Fatalf("rows %+v", rows)
	}
	rep, err := e.report(rows)
	if err == nil || !strings.Contains(err.Error(), "checksums disagree in W3") || rep == nil || rep.Err() == nil {
		t.Fatalf("error %v", err)
	}
	// The report comes with the error, so that the table can be printed
	// before the failure.
	var out bytes.Buffer
	if err := rep.WriteText(&out, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "DISAGREE") || !strings.Contains(out.String(), "Jacobi iteration") {
		t.Fatalf("report:\n%s", out.String())
	}
}
