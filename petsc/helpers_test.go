//go:build petsc

package petsc

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// backendToHost stages a device array to the host as NewVec's error says.
func backendToHost(a *dist.Array[float64]) (*dist.Array[float64], error) {
	h, err := backend.ToHost(a.Local())
	if err != nil {
		return nil, err
	}
	return dist.FromLocal(a.Comm(), a.Layout(), h), nil
}
