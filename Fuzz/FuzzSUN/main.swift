// libFuzzer runs the target (FuzzSupport); the suites replay its seeds (FuzzSeedTests).
import FuzzSupport

FuzzSUN.main()
