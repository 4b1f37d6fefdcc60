// libFuzzer runs the target (FuzzSupport); the suites replay its seeds (FuzzSeedTests).
import FuzzSupport

FuzzRPCParams.main()
