// libFuzzer runs the target (FuzzSupport); the suites replay its seeds (FuzzSeedTests).
import FuzzSupport

FuzzGateway.main()
