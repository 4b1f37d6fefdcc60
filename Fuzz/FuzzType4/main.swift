// libFuzzer runs the target (FuzzSupport); the suites replay its seeds (FuzzSeedTests).
import FuzzSupport

FuzzType4.main()
