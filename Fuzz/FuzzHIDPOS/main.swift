// libFuzzer runs the target (FuzzSupport); the suites replay its seeds (FuzzSeedTests).
import FuzzSupport

FuzzHIDPOS.main()
