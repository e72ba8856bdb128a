package cuda

// SetLaunchHook sets (f != nil) or clears the function that Function.Launch
// runs between the packing of its arguments and the launch, for
// TestGPULifetime. No launch may run while it is set or cleared.
func SetLaunchHook(f func()) { testHookLaunch = f }
