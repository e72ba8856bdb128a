package manifest

import (
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/npy"
)

// seed returns a valid manifest file.
func seed(t testing.TB, arrays []Array, meta map[string]string) []byte {
	b, err := Encode(Manifest{Step: 42, Meta: meta, Created: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC), Ranks: 3, Arrays: arrays})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzManifest parses arbitrary bytes as a manifest: a manifest that
// parses has valid names and shapes, and encodes to one that parses the
// same. Seed corpus: testdata/fuzz/FuzzManifest.
func FuzzManifest(f *testing.F) {
	f.Add(seed(f, nil, nil))
	f.Add(seed(f, []Array{
		{Name: "u", DType: backend.Float64, Shape: []int{3, 4}, Checksum: 0xdeadbeef},
		{Name: "count.v2", DType: backend.Int32, Shape: []int{0}, Checksum: 0},
	}, map[string]string{"code": "heat2d", "dt": "0.1"}))
	f.Add([]byte(`{"format":"xpmpi-checkpoint","version":1}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		for _, a := range m.Arrays {
			if CheckName(a.Name) != nil || len(a.Shape) == 0 {
				t.Fatalf("accepted array %+v", a)
			}
			if _, ok := npy.ShapeBytes(a.Shape, a.DType.Size()); !ok {
				t.Fatalf("accepted shape %v", a.Shape)
			}
		}
		// A manifest that parses encodes to one that parses the same.
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Parse(b)
		if err != nil {
			t.Fatalf("re-encoded manifest: %v\n%s", err, b)
		}
		if m2.Step != m.Step || m2.Ranks != m.Ranks || !m2.Created.Equal(m.Created) || len(m2.Arrays) != len(m.Arrays) || len(m2.Meta) != len(m.Meta) {
			t.Fatalf("re-encoded manifest differs: %+v, %+v", m2, m)
		}
	})
}

// TestParseRefuses checks that Parse names what is wrong with a manifest.
func TestParseRefuses(t *testing.T) {
	good := seed(t, []Array{{Name: "u", DType: backend.Float64, Shape: []int{2, 3}, Checksum: 7}}, nil)
	m, err := Parse(good)
	if err != nil || len(m.Arrays) != 1 || m.Arrays[0].Name != "u" || m.Arrays[0].Checksum != 7 || m.Step != 42 || m.Ranks != 3 {
		t.Fatalf("Parse(a valid manifest) = %+v, %v", m, err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte("[1"), "bad manifest"},
		{"another format", []byte(`{"format":"x","version":1}`), `format "x"`},
		{"a later version", []byte(`{"format":"xpmpi-checkpoint","version":2}`), "version 2 is not supported"},
		{"edited", []byte(strings.Replace(string(good), `"step": 42`, `"step": 43`, 1)), "checksum mismatch"},
		{"trailing data", append(append([]byte{}, good...), []byte("{}")...), "more data"},
	} {
		if _, err := Parse(c.data); err == nil {
			t.Errorf("%s: Parse accepted %q", c.name, c.data)
		} else if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
	}
	for _, name := range []string{"", "-a", ".a", "a b", "é", string(make([]byte, 129))} {
		if CheckName(name) == nil {
			t.Errorf("CheckName(%q) accepted it", name)
		}
	}
	for _, name := range []string{"a", "A_1", "u.v-2", "_"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}
