import Foundation
import ScanBridgeTesting
import Testing

/// `ProcessStat` on the real daemon, as the camera benchmark reads it: the fields after a
/// command name, the CPU time of all its threads, and nothing once it is gone.
@Suite("ProcessStat", .timeLimit(.minutes(5)))
struct ProcessStatTests {
    @Test func aRunningDaemonsStatAndCPUTimeThenNothingOnceItIsGone() async throws {
        let daemon = try DaemonHarness(arguments: ["--mock", "barcode", "--log-level", "warning"])
        try await daemon.start()
        let pid = try #require(daemon.pid)
        let fields = try #require(ProcessStat.fields(of: pid))
        // Field 3 is the state, field 4 the parent: this test process started it.
        #expect(["R", "S", "D"].contains(String(fields[0])))
        #expect(fields[1] == "\(getpid())")
        let cpu = try #require(ProcessStat.cpuSeconds(of: pid))
        #expect(cpu >= 0)
        try await daemon.stop()
        #expect(ProcessStat.fields(of: pid) == nil)
        #expect(ProcessStat.cpuSeconds(of: pid) == nil)
    }
}
