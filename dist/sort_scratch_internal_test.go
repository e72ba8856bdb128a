package dist

// SortScratchKept reports whether SortInto keeps scratch space with the
// array whose weak pointer (a weak.Pointer[Array[T]]) is w.
func SortScratchKept(w any) bool {
	_, ok := sortScratches.Load(w)
	return ok
}
