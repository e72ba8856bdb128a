package dist

import "github.com/xpmpi/xpmpi/backend"

// Axpby sets y = a*x + b*y, in one pass (backend.Axpby). It is not
// collective: it works on each rank's block alone.
func Axpby[T backend.Numeric](a T, x *Array[T], b T, y *Array[T]) {
	if x.freed || y.freed {
		panic(freedError("Axpby"))
	}
	sameLayout("Axpby", x, y)
	backend.Axpby(a, x.local, b, y.local)
}
