package backend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

func TestDeviceError(t *testing.T) {
	driver := errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	var err error = &backend.DeviceError{Device: backend.Device{Kind: backend.CUDA, ID: 1}, Op: "Sum", Err: driver}
	if !errors.Is(err, backend.ErrDevice) || !errors.Is(err, driver) {
		t.Errorf("errors.Is(%v, ErrDevice or the driver's error) = false", err)
	}
	if s := err.Error(); !strings.Contains(s, "cuda:1") || !strings.Contains(s, "Sum") || !strings.Contains(s, "ILLEGAL_ADDRESS") {
		t.Errorf("Error() = %q: want the device, the operation and the driver's error", s)
	}
	if errors.Is(errors.New("other"), backend.ErrDevice) {
		t.Error("an unrelated error is a device error")
	}
}
