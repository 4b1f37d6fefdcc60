import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// Devices that come and go for ever, each under a new id (a flaky USB hub, a hostile
/// device, a test rig): the daemon's file descriptors, threads and memory stay where they
/// were, and the list of devices stays bounded.
@Suite("Device churn end to end", .heavy, .timeLimit(.minutes(5)))
struct DeviceChurnTests {
    /// Attaches and detaches `cycles` mock scanners through the socket, eight at a time, each
    /// under an id of its own.
    static func churn(_ client: ScanBridgeClient, cycles: Range<Int>) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for n in stride(from: cycles.lowerBound + worker, to: cycles.upperBound, by: 8) {
                        _ = try await client.call("mock.attach", ["kind": "barcode", "id": .string("churn-\(n)")])
                        _ = try await client.call("mock.detach", ["id": .string("mock:churn-\(n)")])
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// 2,000 in `make test`; `make soak` sets SCANBRIDGE_CHURN_CYCLES to 10,000.
    static let cycles = ProcessInfo.processInfo.environment["SCANBRIDGE_CHURN_CYCLES"].flatMap(Int.init) ?? 2_000

    @Test func attachAndDetachCyclesLeaveTheDaemonAsItWas() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let pid = try #require(daemon.pid)
        let client = try await daemon.connect()
        // The warm-up fills what is kept and bounded (the 64 gone devices the registry lists,
        // the allocator's pools, the driver host's threads): the figures after it are the
        // daemon's steady state, and the rest of the churn must not move them.
        let warmUp = min(1_000, Self.cycles / 2)
        try await Self.churn(client, cycles: 0..<warmUp)
        let files = try #require(ProcessStat.openFiles(of: pid))
        let threads = try #require(ProcessStat.threads(of: pid))
        let rss = ProcessStat.megabytes("VmRSS", of: pid)

        try await Self.churn(client, cycles: warmUp..<Self.cycles)
        // Generous slack: a thread pool may have one more worker awake, a socket or the
        // journal's files may be mid-rotation; a leak of one of each a cycle would show as
        // thousands. Polled, because a detached device's reader stops just after its answer.
        try await waitUntil(
            "the daemon back to \(files) files, \(threads) threads, \(rss) MB (now \(ProcessStat.openFiles(of: pid) ?? -1), "
                + "\(ProcessStat.threads(of: pid) ?? -1), \(ProcessStat.megabytes("VmRSS", of: pid)) MB)",
            timeout: .seconds(30)
        ) {
            (ProcessStat.openFiles(of: pid) ?? .max) <= files + 8 && (ProcessStat.threads(of: pid) ?? .max) <= threads + 4
                && ProcessStat.megabytes("VmRSS", of: pid) <= rss + 16
        }
        let devices = try await client.devices()
        #expect(devices.count <= 65, "the till and at most 64 gone devices are listed: \(devices.count)")
        #expect(devices.contains { $0.id == "mock:till-1" && $0.state == .ready })
        #expect(try await client.inject(device: "mock:till-1", text: "4006381333931").text == "4006381333931")
        await client.close()
    }
}
