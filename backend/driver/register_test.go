package driver_test

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestRegister checks that Register records a factory under its name, that
// Registered returns a copy the caller may change, and that a second
// Register of one name panics.
func TestRegister(t *testing.T) {
	errNo := errors.New("not here")
	driver.Register("registertest", func() (driver.Backend, error) { return nil, errNo })
	m := driver.Registered()
	f, ok := m["registertest"]
	if !ok {
		t.Fatalf("Registered() = %v: no registertest", m)
	}
	if _, err := f(); err != errNo {
		t.Errorf("the registered factory returned %v, want %v", err, errNo)
	}
	delete(m, "registertest")
	if _, ok := driver.Registered()["registertest"]; !ok {
		t.Error("deleting from Registered's map unregistered the backend")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Register of registertest did not panic")
		}
	}()
	driver.Register("registertest", f)
}
