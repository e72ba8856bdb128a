package cuda

// mathParamSizes returns the sizes in bytes of the parameters of math.cu's
// entry op for element size elem, as math.go packs them, or nil.
func mathParamSizes(op string, elem int) []int {
	switch op {
	case "exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "abs",
		"log10", "log2", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "sign":
		return []int{8, 8, 8}
	case "pow", "maximum", "minimum", "mod", "floordiv", "arctan2":
		return []int{8, 8, 8, 8}
	case "pows":
		return []int{8, 8, 8, elem}
	case "clip":
		return []int{8, 8, 8, elem, elem}
	}
	return statsParamSizes(op, elem)
}
