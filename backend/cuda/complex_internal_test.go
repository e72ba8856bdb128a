package cuda

// complexParamSizes returns the sizes in bytes of the parameters of
// complex.cu's entry of op, for part size part (4 for complex64, 8 for
// complex128): what complex.go packs. It returns nil for another op.
func complexParamSizes(op string, part int) []int {
	switch op {
	case "cfill", "cscale":
		return []int{8, part, part, 8}
	case "caxpy":
		return []int{8, part, part, 8, 8}
	case "caxpby":
		return []int{8, part, part, 8, part, part, 8}
	case "cbin":
		return []int{8, 4, 8, 8, 8}
	case "cbins":
		return []int{8, 4, 8, 8, part, part}
	case "csum", "cprod", "cfin":
		return []int{8, 8, 8}
	case "cdot":
		return []int{8, 8, 8, 4, 8}
	case "cunary", "cunaryr":
		return []int{8, 4, 8, 8}
	case "cpow":
		return []int{8, 8, 8, 8}
	case "cpows":
		return []int{8, 8, 8, 8, 8}
	}
	return nil
}
