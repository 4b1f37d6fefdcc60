import DriverKit
import Glibc
import Logging
import ScanBridgeCore
import ScanBridgeModel
import Testing

/// A node that is never there: enough for a loop that must not start.
private final class AbsentNode: NodeReading, @unchecked Sendable {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    var deadline: ContinuousClock.Instant? { nil }
    func open() throws(DeviceNodeError) -> DeviceNode { throw DeviceNodeError(errno: ENOENT, doing: "cannot open /nowhere") }
    func describe(_ node: DeviceNode?) -> Device { Device(id: "test:absent", driver: "test", kind: .barcode, name: "Absent") }
    func hold(_ node: DeviceNode) -> NodeHold { .held }
    func received(_ bytes: ArraySlice<UInt8>, from node: DeviceNode) {}
    func idle() {}
    func unplugged() {}
}

@Suite("Poll failures and stop pipes")
struct PollBackoffTests {
    @Test("failed polls wait 10 ms doubling to a second, persist after the limit, and reset on success")
    func backsOff() {
        var backoff = PollBackoff(limit: 10)
        let waits = (0..<10).map { _ in backoff.failed() }
        #expect(waits.first == 0.01 && waits.last == 1)
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(backoff.persistent)
        backoff.succeeded()
        #expect(!backoff.persistent && backoff.failed() == 0.01)
    }

    @Test("a stop signal whose pipe cannot be made says why, and still stops and sleeps")
    func pipeFailureIsAnError() {
        let stop = StopSignal { _ in
            errno = EMFILE
            return -1
        }
        #expect(stop.failure?.contains("Too many open files") == true, "\(stop.failure ?? "")")
        #expect(stop.fd == -1)
        #expect(stop.sleep(seconds: 0))
        stop.stop()
        #expect(stop.isStopped && !stop.sleep(seconds: 0))
        #expect(StopSignal().failure == nil)
    }

    @Test("a read loop without its stop pipe reports its device in error and ends instead of hanging")
    func loopWithoutStopPipeEnds() async {
        let (stream, events) = AsyncStream.makeStream(of: DriverEvent.self)
        let stop = StopSignal { _ in
            errno = EMFILE
            return -1
        }
        NodeReadLoop(reading: AbsentNode(), events: events, stop: stop).run()
        events.finish()
        var reported: [Device] = []
        for await event in stream { if case .device(let device) = event { reported.append(device) } }
        #expect(reported.map(\.state) == [.error])
        #expect(reported.first?.error?.contains("cannot make the pipe") == true)
    }
}
