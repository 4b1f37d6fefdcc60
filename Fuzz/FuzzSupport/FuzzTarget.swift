#if canImport(Glibc)
import Glibc
#endif

/// A libFuzzer target: `test` gets each input libFuzzer makes, and must return without
/// crashing whatever the bytes; a crash, a sanitizer report or a failed `fuzzCheck` is a
/// finding. The target's `main.swift` calls `main()`, which runs libFuzzer with the command
/// line; the suites' FuzzSeedTests call `test` with each committed seed.
public protocol FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// Stops the run as a finding when a property the target checks does not hold: libFuzzer
/// then keeps the input as a crash file, like any other crash.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    precondition(condition, "fuzz check failed: \(message())")
}

// The driver is compiled for the fuzz build alone (LIBFUZZER, Package.swift): elsewhere no
// libFuzzer is linked to define `LLVMFuzzerRunDriver`.
#if LIBFUZZER
/// libFuzzer's own main() cannot be used: SwiftPM links every executable with its `main`
/// pointing at the module's entry point, so the target has one (its `main.swift`), and
/// `main()` hands the command line to libFuzzer through `LLVMFuzzerRunDriver`.
extension FuzzTarget {
    public static func main() {
        // A C callback captures nothing, so the target's test waits for it in a global.
        currentTest = test
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, runOne))
    }
}

// Set once in main() before libFuzzer starts; libFuzzer calls the target on one thread.
nonisolated(unsafe) private var currentTest: (UnsafeBufferPointer<UInt8>) -> Void = { _ in }

// libFuzzer's archive also brings its own main(), which needs this symbol to link, though
// the linker points `main` at the target's.
@_cdecl("LLVMFuzzerTestOneInput")
public func runOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    currentTest(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
