package cuda

/*
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"

	"github.com/xpmpi/xpmpi/launch"
)

// DeviceFor returns the device that the rank with local rank localRank on
// its node uses when the node has count devices: localRank % count, so that
// the ranks of a node spread over its devices in turn. A negative local rank
// counts as 0; it returns -1 if count < 1.
func DeviceFor(localRank, count int) int {
	if count < 1 {
		return -1
	}
	if localRank < 0 {
		localRank = 0
	}
	return localRank % count
}

// ChooseDevice returns the device this process uses among count devices:
// XPMPI_DEVICE=N if it is set, and otherwise DeviceFor(launch.LocalRank(),
// count), the local rank coming from the launcher's variables, so that the
// choice can be made before MPI starts. An XPMPI_DEVICE that is not a
// device number below count is an error.
func ChooseDevice(count int) (int, error) {
	if count < 1 {
		return -1, fmt.Errorf("cuda: no CUDA device to choose from")
	}
	if n, set, err := DeviceFromEnv(); err != nil || set {
		if err != nil {
			return -1, err
		}
		if n >= count {
			return -1, fmt.Errorf("cuda: XPMPI_DEVICE=%d, but this process sees %d device(s) (0 to %d)", n, count, count-1)
		}
		return n, nil
	}
	return DeviceFor(launch.LocalRank(), count), nil
}

// Device attributes (CUdevice_attribute values of the driver API).
const (
	attrMultiprocessors = 16
	attrPCIBus          = 33
	attrPCIDevice       = 34
	attrPCIDomain       = 50
	attrCCMajor         = 75
	attrCCMinor         = 76
	// attrSharedOptin is the most dynamic shared memory per block a
	// kernel may have once it opts in (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
	attrSharedOptin = 97
)

// DeviceInfo describes one CUDA device.
type DeviceInfo struct {
	Ordinal         int    `json:"ordinal"`
	Name            string `json:"name"`
	Major           int    `json:"major"` // compute capability
	Minor           int    `json:"minor"`
	Multiprocessors int    `json:"multiprocessors"`
	TotalMemory     uint64 `json:"total_memory"` // bytes
	PCIBusID        string `json:"pci_bus_id"`   // domain:bus:device, as nvidia-smi shows it
	// SharedMemOptin is the most shared memory per block in bytes, static
	// and dynamic, that a kernel may use after opting in (Launch does so
	// for dynamic shared memory over DefaultSharedMem); 0 where the
	// driver does not say.
	SharedMemOptin int `json:"shared_mem_optin"`
}

// Arch returns the virtual architecture NVRTC compiles for on the device,
// as "compute_90".
func (d DeviceInfo) Arch() string { return fmt.Sprintf("compute_%d%d", d.Major, d.Minor) }

// String describes the device in one line.
func (d DeviceInfo) String() string {
	return fmt.Sprintf("%d: %s (sm_%d%d, %d SMs, %s, PCI %s)", d.Ordinal, d.Name, d.Major, d.Minor,
		d.Multiprocessors, formatBytes(d.TotalMemory), d.PCIBusID)
}

// Devices describes every CUDA device this process sees. It loads the
// driver.
func Devices() ([]DeviceInfo, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, 0, libcuda.count)
	for i := 0; i < libcuda.count; i++ {
		d, err := deviceInfo(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// deviceInfo queries device ordinal; the driver is loaded.
func deviceInfo(ordinal int) (DeviceInfo, error) {
	info := DeviceInfo{Ordinal: ordinal}
	var dev C.CUdevice
	if err := check("cuDeviceGet", C.xpcu_cuDeviceGet(&dev, C.int(ordinal))); err != nil {
		return info, err
	}
	var name [256]C.char
	if err := check("cuDeviceGetName", C.xpcu_cuDeviceGetName(&name[0], C.int(len(name)-1), dev)); err != nil {
		return info, err
	}
	info.Name = C.GoString(&name[0])
	var total C.size_t
	if err := check("cuDeviceTotalMem", C.xpcu_cuDeviceTotalMem(&total, dev)); err != nil {
		return info, err
	}
	info.TotalMemory = uint64(total)
	attr := func(a int) (int, error) {
		var v C.int
		err := check("cuDeviceGetAttribute", C.xpcu_cuDeviceGetAttribute(&v, C.int(a), dev))
		return int(v), err
	}
	var err error
	if info.Major, err = attr(attrCCMajor); err != nil {
		return info, err
	}
	if info.Minor, err = attr(attrCCMinor); err != nil {
		return info, err
	}
	if info.Multiprocessors, err = attr(attrMultiprocessors); err != nil {
		return info, err
	}
	info.SharedMemOptin, _ = attr(attrSharedOptin)
	bus, _ := attr(attrPCIBus)
	pdev, _ := attr(attrPCIDevice)
	dom, _ := attr(attrPCIDomain)
	info.PCIBusID = fmt.Sprintf("%08x:%02x:%02x.0", dom, bus, pdev)
	return info, nil
}

// formatBytes formats a byte count in GiB or MiB.
func formatBytes(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
