package cuda

import "strings"

// statsParamSizes returns the sizes in bytes of the parameters of
// stats.cu's entry op for element size elem, as stats.go packs them, or
// nil.
func statsParamSizes(op string, elem int) []int {
	switch op {
	case "sumaxis":
		return []int{8, 8, 8, 8, 8, 4}
	case "extaxis":
		return []int{8, 8, 8, 8, 8, 8, 8, 4}
	case "combext":
		return []int{8, 8, 8, 8, 8, 8, 4}
	case "momaxis":
		return []int{8, 8, 8, 8, 8}
	case "mom1", "nnz", "prodf", "prodi", "momfin1":
		return []int{8, 8, 8}
	case "mom2":
		return []int{8, 8, 8, 8, 8}
	case "hist":
		return []int{8, 8, 8, 8, 8, 8}
	case "scanaxis":
		return []int{8, 8, 8, 8, 8, 8, 8, 4}
	case "castsums":
		return []int{8, 8, 8, 4}
	case "momfin2", "combmom":
		return []int{8, 8, 8, 8, 8}
	case "ratio":
		return []int{8, 8, 8, 8, 4}
	case "prod2":
		return []int{4, 8, 8}
	case "cmp":
		return []int{8, 4, 8, 8, 8}
	case "cmps":
		return []int{8, 4, 8, 8, elem}
	case "where":
		return []int{8, 8, 8, 8, 8}
	case "cpscatter":
		return []int{8, 8, 8, 8, 8}
	case "cpcount":
		return []int{8, 8, 8}
	case "cpscan":
		return []int{8, 8}
	}
	if strings.HasPrefix(op, "cvt_") {
		return []int{8, 8, 8}
	}
	return complexParamSizes(op, elem)
}
