import Foundation
import Logging
import ScanBridgeModel
import ScanBridgeService
import ScanBridgeTesting
import Synchronization
import Testing

/// What the daemon takes from systemd: passed sockets, the watchdog's period, and how its
/// log lines read under journald (docs/install.md, The service).
@Suite("systemd")
struct SystemdTests {
    @Test("passed sockets are the process's only, numbered from 3, with their names")
    func passedSockets() {
        let pid: pid_t = 4242
        let passed = ["LISTEN_PID": "4242", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "rpc:http"]
        #expect(
            ActivatedSockets.descriptors(in: passed, pid: pid).map { "\($0.descriptor) \($0.name)" }
                == ["3 rpc", "4 http", "5 unknown"])
        #expect(ActivatedSockets.descriptors(in: passed, pid: 4243).isEmpty, "passed to another process")
        #expect(ActivatedSockets.descriptors(in: ["LISTEN_FDS": "1"], pid: pid).isEmpty, "no LISTEN_PID")
        #expect(ActivatedSockets.descriptors(in: ["LISTEN_PID": "4242", "LISTEN_FDS": "x"], pid: pid).isEmpty)
        #expect(ActivatedSockets.descriptors(in: ["LISTEN_PID": "4242", "LISTEN_FDS": "0"], pid: pid).isEmpty)
    }

    @Test("the watchdog beats at half of WATCHDOG_USEC, for this process only")
    func watchdogInterval() {
        #expect(ServiceWatchdog.interval(in: ["WATCHDOG_USEC": "30000000"], pid: 7) == .seconds(15))
        #expect(ServiceWatchdog.interval(in: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7) == .seconds(15))
        #expect(ServiceWatchdog.interval(in: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(ServiceWatchdog.interval(in: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(ServiceWatchdog.interval(in: [:], pid: 7) == nil)
    }

    @Test("a part moves when it ran the task it was handed, or its counter advanced")
    func probes() {
        let held = Mutex<[@Sendable () -> Void]>([])
        let counter = Atomic<UInt64>(0)
        let probe = WatchdogProbe("writer", progress: { counter.load(ordering: .relaxed) }) { done in
            held.withLock { $0.append(done) }
        }
        #expect(probe.moved(), "nothing was asked yet")
        #expect(!probe.moved(), "the task it was handed has not run, and it committed nothing")
        #expect(held.withLock { $0.count } == 1, "one task at a time, however long the part is stuck")
        counter.add(1, ordering: .relaxed)
        #expect(probe.moved(), "busy, but committing")
        #expect(!probe.moved())
        held.withLock { $0.removeFirst() }()
        #expect(probe.moved(), "it ran the task")
        #expect(held.withLock { $0.count } == 1, "and was handed the next")
    }

    @Test("no beat while a part is stuck; beats again once it moves")
    func beatsOnlyWhileEveryPartMoves() async throws {
        let stuck = Atomic(true)
        let held = Mutex<[@Sendable () -> Void]>([])
        let loop = WatchdogProbe("event loop 0") { done in done() }
        let writer = WatchdogProbe("the journal writer") { done in
            if stuck.load(ordering: .relaxed) { held.withLock { $0.append(done) } } else { done() }
        }
        let beats = Atomic(0)
        let log = CapturedLog()
        let watchdog = ServiceWatchdog(
            interval: .milliseconds(5), probes: [loop, writer], logger: log.logger,
            beat: { beats.add(1, ordering: .relaxed) })
        let running = Task { try await watchdog.run() }
        try await waitUntil("a first beat") { beats.load(ordering: .relaxed) >= 1 }
        // The writer holds the task it was handed: once it has been still for longer than
        // the interval, the beats stop.
        try await waitUntil("the writer seen stuck: \(log.text)") { log.text.contains("the journal writer made no progress") }
        let beatsWhenStuck = beats.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(50))
        #expect(beats.load(ordering: .relaxed) == beatsWhenStuck, "no beat while a part is stuck")
        #expect(!log.text.contains("event loop 0 made no progress"))
        stuck.store(false, ordering: .relaxed)
        held.withLock { $0.removeFirst() }()
        try await waitUntil("beats again") { beats.load(ordering: .relaxed) > beatsWhenStuck }
        #expect(log.text.contains("the journal writer moves again"))
        running.cancel()
    }

    @Test("under journald: the syslog priority first, no timestamp; JSON on request")
    func logLines() throws {
        let lines = Mutex<[String]>([])
        let write: @Sendable ([UInt8]) -> Void = { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
        var journal = DaemonLogHandler(label: "scanbridge", format: .text, journald: true, write: write)
        journal[metadataKey: "device.id"] = "mock:till-1"
        journal.log(
            event: LogEvent(
                level: .warning, message: "two\nlines", metadata: ["b": "2"], source: "S", file: "", function: "", line: 0))
        #expect(lines.withLock { $0.last } == "<4>warning scanbridge : b=2 device.id=mock:till-1 [S] two\\x0Alines\n")
        // A client's name with a NUL and a forged priority, as bridge.hello logs it, and a
        // huge one: neither becomes an entry of its own.
        journal.log(
            event: LogEvent(
                level: .info, message: "hello", metadata: ["client.name": "x\u{0}<0>boom\r\u{1B}[2J"], source: "S",
                file: "", function: "", line: 0))
        #expect(lines.withLock { $0.last }?.contains("client.name=x\\x00<0>boom\\x0D\\x1B[2J device.id") == true)
        journal.log(
            event: LogEvent(
                level: .info, message: "\(String(repeating: "é", count: 30_000))", metadata: nil, source: "S", file: "",
                function: "", line: 0))
        let long = try #require(lines.withLock { $0.last })
        #expect(long.utf8.count < 2200 && long.hasSuffix("…(57952 bytes more)\n"), "\(long.suffix(40))")
        #expect(lines.withLock { $0.allSatisfy { $0.utf8.filter { $0 == 0x0A || $0 == 0 }.count == 1 } })
        let plain = DaemonLogHandler(label: "scanbridge", format: .text, journald: false, write: write)
        plain.log(event: LogEvent(level: .info, message: "ready", metadata: nil, source: "S", file: "", function: "", line: 0))
        let line = try #require(lines.withLock { $0.last })
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info scanbridge : \[S\] ready\n/) != nil, "\(line)")
        let json = DaemonLogHandler(label: "scanbridge", format: .json, journald: false, write: write)
        json.log(
            event: LogEvent(
                level: .error, message: "disk \"full\"", metadata: ["seq": "7"], source: "S", file: "", function: "", line: 0))
        let object = try JSONValue(parsing: Array(try #require(lines.withLock { $0.last }).utf8))
        #expect(object["level"]?.stringValue == "error" && object["message"]?.stringValue == "disk \"full\"")
        #expect(object["seq"]?.stringValue == "7" && object["time"]?.stringValue != nil)
        #expect(DaemonLogHandler.priority(of: .critical) == 2 && DaemonLogHandler.priority(of: .debug) == 7)
    }
}
