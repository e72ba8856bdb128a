package backend_test

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestReexports checks that the names package backend re-exports and
// forwards from package driver are driver's own: the same error values,
// the same device, and one registry.
func TestReexports(t *testing.T) {
	if backend.ErrDevice != driver.ErrDevice || backend.ErrFreed != driver.ErrFreed {
		t.Error("backend's ErrDevice and ErrFreed are not driver's")
	}
	var err error = &driver.DeviceError{Device: driver.Device{Kind: driver.Fake}, Op: "Sum", Err: errors.New("fault")}
	var de *backend.DeviceError
	if !errors.As(err, &de) || !errors.Is(err, backend.ErrDevice) {
		t.Errorf("errors.As/Is of a driver.DeviceError with backend's names: %v", err)
	}
	if backend.Host != driver.Host || backend.Add != driver.Add {
		t.Error("backend's Host or Add is not driver's")
	}
	errNo := errors.New("not here")
	driver.Register("reexporttest", func() (driver.Backend, error) { return nil, errNo })
	if _, err := backend.Lookup("reexporttest"); err != errNo {
		t.Errorf("backend.Lookup of a backend registered with driver.Register: %v, want %v", err, errNo)
	}
	found := false
	for _, n := range backend.Names() {
		found = found || n == "reexporttest"
	}
	if !found {
		t.Errorf("backend.Names() = %v: no reexporttest", backend.Names())
	}
}
