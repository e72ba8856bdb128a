package cuda

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/xpmpi/xpmpi/internal/envvar"
)

// maxDevice bounds the device numbers XPMPI_DEVICE may name: far more
// devices than one node holds.
const maxDevice = 1 << 16

// DeviceFromEnv returns the device number XPMPI_DEVICE names (set is
// false where it is unset or empty), and an error naming the variable
// where it is not a device number, 0 to 65535. Whether this process sees
// that device is ChooseDevice's to say.
func DeviceFromEnv() (n int, set bool, err error) {
	s := strings.TrimSpace(os.Getenv("XPMPI_DEVICE"))
	if s == "" {
		return 0, false, nil
	}
	if err := envvar.Check("XPMPI_DEVICE", s); err != nil {
		return 0, false, err
	}
	n, err = strconv.Atoi(s)
	if err != nil || n < 0 || n >= maxDevice {
		return 0, false, fmt.Errorf("cuda: XPMPI_DEVICE=%s is not a device number (0, 1, ...; unset: the local rank modulo the device count)", envvar.Quote(s))
	}
	return n, true, nil
}
