import DriverKit
import Foundation
import Glibc
import Histogram
import NIOCore
import ScanBridgeTesting
import Synchronization

/// Keyboard-wedge scanners: how long from a label's terminator key reaching the device node
/// to its `scan` notification on the socket, and what decoding costs a key.
enum WedgeScenarios {
    /// `label`'s keys, or its terminator's, as a US-layout scanner types them.
    static func recording(_ label: String, terminator: Bool, at microseconds: Int64) -> [UInt8] {
        var recording = KeyboardRecording(startingAt: microseconds)
        recording.type(terminator ? "\n" : label)
        return recording.bytes
    }

    /// A release daemon on the shop's store reading a FIFO as an evdev node; each label's keys
    /// are written, then, a millisecond later, its Enter, stamped just before the write. The
    /// labels are the counter's typed ones (`CounterWorkload.typedLabel`); a wedge's scans
    /// come in the order they were typed, so the n-th scan is the n-th label, and one that is
    /// not counts as misread.
    static func terminatorToEvent(stores: CounterStores, count: Int, rate: Int = 200) async throws
        -> (delivery: Delivery, description: String)
    {
        let fifo = try DeviceFIFO(name: "wedge")
        let daemon = try DaemonHarness(arguments: [
            "--drivers", "evdev", "--device", "evdev:\(fifo.path)", "--log-level", "warning",
        ])
        let workload = CounterWorkload(mix: .counter, catalog: stores.shop)
        try await stores.copy(workload.catalog, to: daemon)
        try await daemon.start()
        try await CatalogScenarios.settle(daemon: daemon)
        let warmup = count / 10
        let total = count + warmup
        let labels = (0..<total).map(workload.typedLabel)
        let sendTimes = SendTimes(count: total)
        // Each event in the order typed, with the text typed and the resolution its label has.
        let order = Mutex((next: 0, misread: 0, outcomes: [String: Int]()))
        let reader = try await LineStamper.connect(socketPath: daemon.socketPath) { line, arrived in
            let bytes = Array(line.readableBytesView)[...]
            guard let text = JSONScan.string(after: #""text":""#, in: bytes) else { return nil }
            var resolution = "no resolution"
            JSONScan.resolutions(in: bytes) { resolution = $0 }
            let index = order.withLock { order in
                defer { order.next += 1 }
                order.outcomes[resolution, default: 0] += 1
                if order.next < total, text.elementsEqual(labels[order.next].utf8),
                    resolution == workload.typedOutcome(order.next).rawValue
                {
                    return order.next
                }
                order.misread += 1
                return -1
            }
            guard index >= warmup else { return nil }
            return arrived - sendTimes.time(of: index)
        }
        reader.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["barcode"]}}"#)
        await reader.wait(forLines: 1)
        let writer = try FIFOWriter(path: fifo.path)
        let interval = UInt64(1_000_000_000 / rate)
        let start = Nanos.now() + 10_000_000
        for index in 0..<total {
            await Nanos.sleep(until: start + UInt64(index) * interval)
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            writer.write(recording(labels[index], terminator: false, at: now))
            await Nanos.sleep(until: Nanos.now() + 1_000_000)
            let enter = recording(labels[index], terminator: true, at: now + 30_000)
            sendTimes.set(index, Nanos.now())
            writer.write(enter)
        }
        // Every scan, or what came within 30 s: a lost one shows as a shorter count, not a hang.
        let deadline = ContinuousClock.now + .seconds(30)
        while reader.lines < total + 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let delivery = order.withLock {
            Delivery(
                latency: reader.histogram, expected: total, arrived: reader.lines - 1, misresolved: $0.misread,
                outcomes: $0.outcomes)
        }
        await reader.close()
        try await daemon.stop()
        return (delivery, "typed labels: EAN-13s of \(stores.shopSize) products, 1 in 20 unknown")
    }

    /// The floor under that figure: the same Enter's bytes through a bare FIFO to a thread
    /// blocked reading it, in this process.
    static func fifoBaseline(count: Int) async throws -> Histogram<UInt64> {
        let fifo = try DeviceFIFO(name: "baseline")
        let readFD = open(fifo.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        defer { close(readFD) }
        let writer = try FIFOWriter(path: fifo.path)
        let sendTimes = SendTimes(count: count)
        let histogram = Mutex(Histogram<UInt64>.nanoseconds())
        let size = recording("", terminator: true, at: 0).count
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: size)
            var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            var received = 0
            while received < count {
                _ = poll(&descriptor, 1, 1000)
                var got = 0
                while got < size {
                    let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress! + got, size - got) }
                    if n > 0 { got += n } else { _ = poll(&descriptor, 1, 1000) }
                }
                let arrived = Nanos.now()
                _ = histogram.withLock { $0.record(arrived - sendTimes.time(of: received)) }
                received += 1
            }
        }
        thread.start()
        for index in 0..<count {
            await Nanos.sleep(until: Nanos.now() + 2_000_000)
            sendTimes.set(index, Nanos.now())
            writer.write(recording("", terminator: true, at: 0))
        }
        while histogram.withLock({ $0.totalCount }) < UInt64(count) { try await Task.sleep(for: .milliseconds(1)) }
        return histogram.withLock { $0 }
    }

    /// Decoding cost: nanoseconds a key for a long recording of labels, in this process.
    static func decodeCostPerKey(labels: Int) throws -> Double {
        var bytes: [UInt8] = []
        var recording = KeyboardRecording(startingAt: 0)
        for index in 0..<labels { recording.type("bench-\(index)\n") }
        bytes = recording.bytes
        let keys = bytes.count / (24 * 4)  // press, SYN, release, SYN a key
        let stream = try KeyStream(layout: "us")
        let started = Nanos.now()
        var scans = 0
        var offset = 0
        while offset < bytes.count {
            scans += stream.feed(bytes[offset..<min(offset + 4096, bytes.count)]).count
            offset += 4096
        }
        let elapsed = Nanos.now() - started
        precondition(scans == labels, "decoded \(scans) scans of \(labels)")
        return Double(elapsed) / Double(keys)
    }
}

/// The writing end of a FIFO, opened once its reader has it open.
final class FIFOWriter: Sendable {
    let fd: Int32

    init(path: String) throws {
        var fd: Int32 = -1
        let deadline = ContinuousClock.now + .seconds(20)
        while fd < 0 {
            fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 || (errno == ENXIO && ContinuousClock.now < deadline) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if fd < 0 { usleep(10_000) }
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n } else { usleep(100) }
        }
    }
}
