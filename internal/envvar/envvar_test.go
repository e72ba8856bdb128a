package envvar

import (
	"strings"
	"testing"
)

func TestBool(t *testing.T) {
	for _, c := range []struct {
		v            string
		on, set, bad bool
	}{
		{"", false, false, false}, {"1", true, true, false}, {" YES ", true, true, false}, {"on", false, false, true},
		{"0", false, true, false}, {"False", false, true, false}, {"off", false, false, true},
		{"2", false, false, true}, {"-1", false, false, true}, {"maybe", false, false, true},
		{strings.Repeat("x", 100000), false, false, true}, {"\xff\xfe", false, false, true},
	} {
		on, set, err := Bool("XPMPI_X", c.v, "x")
		if on != c.on || set != c.set || (err != nil) != c.bad {
			t.Errorf("Bool(%s) = %v, %v, %v", Quote(c.v), on, set, err)
		}
		if err != nil && (!strings.HasPrefix(err.Error(), "XPMPI_X=") || len(err.Error()) > 300) {
			t.Errorf("Bool(%s): message %q", Quote(c.v), err)
		}
	}
}

func TestCheckAndQuote(t *testing.T) {
	if err := Check("XPMPI_X", strings.Repeat("a", MaxLen)); err != nil {
		t.Error(err)
	}
	for _, v := range []string{strings.Repeat("a", MaxLen+1), "a\xffb"} {
		err := Check("XPMPI_X", v)
		if err == nil || len(err.Error()) > 300 {
			t.Errorf("Check(%s) = %v", Quote(v), err)
		}
	}
	if q := Quote(strings.Repeat("b", 1000)); !strings.Contains(q, "(1000 bytes)") || len(q) > 100 {
		t.Errorf("Quote of 1000 bytes: %s", q)
	}
}
