package mpi

// ClearStop forgets a pending stop, for the tests of package mpi_test.
var ClearStop = clearStop
