import Foundation
import ScanBridgeTesting
import Testing

/// `ProcessStat` on the real daemon, as the camera benchmark reads it: the fields after a
/// command name, the CPU time of all its threads, and nothing once it is gone.
@Suite("ProcessStat", .heavy, .timeLimit(.minutes(5)))
struct ProcessStatTests {
    @Test func aRunningDaemonsStatAndCPUTimeThenNothingOnceItIsGone() async throws {
        let daemon = try DaemonHarness(arguments: ["--mock", "barcode", "--log-level", "warning"])
        try await daemon.start()
        let pid = try #require(daemon.pid)
        let fields = try #require(ProcessStat.fields(of: pid))
        // Field 3 is the state, field 4 the parent: this test process started it.
        #expect(["R", "S", "D"].contains(String(fields[0])))
        #expect(fields[1] == "\(getpid())")
        // Its start (the runtime, the database, the socket) takes clock ticks of CPU time: a
        // `cpuSeconds` that read no time, or fields that stay at zero, never gets here.
        _ = try await waitFor("the daemon's CPU time to count (\(ProcessStat.cpuSeconds(of: pid) ?? -1) s)") {
            ProcessStat.cpuSeconds(of: pid).flatMap { $0 > 0 ? $0 : nil }
        }
        try await daemon.stop()
        #expect(ProcessStat.fields(of: pid) == nil)
        #expect(ProcessStat.cpuSeconds(of: pid) == nil)
    }

    /// This process's CPU time as `cpuSeconds` reads it lies between two readings of
    /// `getrusage(RUSAGE_SELF)`, which the kernel keeps from the same counts, less up to a
    /// clock tick each for the user and system times (`/proc` counts whole ticks).
    @Test func cpuSecondsIsWhatGetrusageSays() throws {
        func usage() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return [usage.ru_utime, usage.ru_stime].reduce(0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
        }
        let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        let before = usage()
        let stat = try #require(ProcessStat.cpuSeconds(of: getpid()))
        let after = usage()
        #expect(stat >= before - 2 * tick && stat <= after + tick / 100, "stat \(stat) s, getrusage \(before) to \(after) s")
    }
}
