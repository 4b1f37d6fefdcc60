import Foundation
import Histogram
import ScanBridgeTesting

/// The latency scenarios' baseline: the daemon's path for one scan at its leanest, in plain
/// system calls, on this machine, now. One loop thread waits in `poll`, reads an injection
/// and hands it to a writer thread, which writes 4 KB to a file (a commit's WAL frame: one
/// page, the event table's last), syncs it when it models durability `full` (`fdatasync`, as
/// SQLite does at each commit then), and hands it back; the loop then gives the event the
/// next `seq` and writes a scan line of the daemon's size to every subscriber and the answer
/// to the injector. The same hops and system calls as the daemon, with none of its work:
/// what the daemon measures beyond this is its own.
///
/// It serves one run of `Scenarios.injectToScanLatency`, in a process of its own as the daemon
/// does (`scanbridge-bench --serve-design-model`): `subscribers` connections that each send one
/// line (the subscription) and get one back, then the injector, until it closes.
/// `@unchecked Sendable`: its descriptors are set up before its threads start, and each is
/// then used by one thread.
final class DesignModel: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let file: Int32
    /// Loop → writer and writer → loop, a pipe each (`[read, write]`): a hand-off each way, as
    /// the daemon's journal has; a byte for each scan.
    private let toWriter: [Int32]
    private let toLoop: [Int32]
    private let syncs: Bool
    /// The frames cycle through a file written whole before the run, as SQLite reuses its log
    /// after a checkpoint: a sync then flushes the frame, not a file that grows.
    static let logSize = 4 << 20

    init(directory: URL, syncs: Bool) throws {
        self.syncs = syncs
        path = directory.appendingPathComponent("model.sock").path
        file = open(directory.appendingPathComponent("model.wal").path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var pipes = [Int32](repeating: -1, count: 4)
        let piped = pipe(&pipes) == 0 && pipe(&pipes[2]) == 0
        toWriter = Array(pipes[0..<2])
        toLoop = Array(pipes[2..<4])
        unlink(path)
        let written = [UInt8](repeating: 0, count: Self.logSize).withUnsafeBytes {
            pwrite(file, $0.baseAddress, $0.count, 0) == $0.count
        }
        guard piped, file >= 0, written, fsync(file) == 0, listener >= 0,
            withUnixSocketAddress(path, { bind(listener, $0, $1) }) == 0,
            listen(listener, 16) == 0
        else { throw BenchmarkFailure(description: "design model: \(String(cString: strerror(errno)))") }
    }

    deinit {
        for descriptor in [listener, file, toWriter[0], toLoop[0], toLoop[1]] { close(descriptor) }
        unlink(path)
    }

    /// Measures `Scenarios.injectToScanLatency` against this model, served by a process of
    /// its own as the daemon is, so the client's hand-offs to the server and back change
    /// address spaces in both: served by threads of the client's process, the baseline would
    /// be lower than a daemon in its own process could reach.
    static func injectToScanLatency(
        directory: URL, every interval: Duration, count: Int, subscribers: Int, syncs: Bool
    ) async throws -> Delivery {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        server.arguments =
            ["--serve-design-model", directory.path, "--subscribers", "\(subscribers)"] + (syncs ? ["--syncs"] : [])
        let announced = Pipe()
        server.standardOutput = announced
        try server.run()
        do {
            // The server prints its socket's path once it listens.
            let path = try await onAThread("model-ready") {
                let line = String(decoding: announced.fileHandleForReading.availableData, as: UTF8.self)
                guard let path = line.split(separator: "\n").first else {
                    throw BenchmarkFailure(description: "design model: its process ended before listening")
                }
                return String(path)
            }
            let latency = try await Scenarios.injectToScanLatency(
                socketPath: path, every: interval, count: count,
                readers: try Scenarios.subscribers(socketPath: path, count: subscribers),
                workload: CounterWorkload(mix: .counter, catalog: .shop(size: 1_000_000)), checksOutcomes: false)
            // It returns once the injector has closed.
            try await onAThread("model-exit") { server.waitUntilExit() }
            return latency
        } catch {
            // A server still waiting for a connection would wait forever.
            server.terminate()
            _ = try? await onAThread("model-exit") { server.waitUntilExit() }
            throw error
        }
    }

    /// `scanbridge-bench --serve-design-model DIRECTORY --subscribers N`: serves one run in
    /// this process, printing the socket's path once it listens.
    static func serveOneRun(directory: URL, subscribers: Int, syncs: Bool) async throws {
        let model = try DesignModel(directory: directory, syncs: syncs)
        FileHandle.standardOutput.write(Data((model.path + "\n").utf8))
        try await model.serve(subscribers: subscribers)
    }

    /// Serves the run on threads of its own; returns when the injector has closed.
    func serve(subscribers count: Int) async throws {
        let writer = Thread { [self] in write() }
        writer.name = "model-writer"
        writer.start()
        defer { close(toWriter[1]) }  // the writer's read ends: stop
        try await onAThread("model-loop") { [self] in try loop(subscribers: count) }
    }

    private func loop(subscribers count: Int) throws {
        var line = [UInt8](repeating: 0, count: 1 << 16)
        // One at a time, as they come: each waits for its answer before the next connects.
        let subscribers = try (0..<count).map { _ in
            let subscriber = try accepted()
            _ = read(subscriber, &line, line.count)
            send(Array(#"{"jsonrpc":"2.0","id":1,"result":{"subscription":"s1"}}"#.utf8) + [0x0A], to: subscriber)
            return subscriber
        }
        defer { for subscriber in subscribers { close(subscriber) } }
        let injector = try accepted()
        defer { close(injector) }
        var watched = [injector, toLoop[0]].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var pending: [[UInt8]] = []
        var seq = 0
        while true {
            guard Glibc.poll(&watched, 2, -1) >= 0 || errno == EINTR else {
                throw BenchmarkFailure(description: "design model: poll: \(String(cString: strerror(errno)))")
            }
            for watch in watched where watch.revents != 0 {
                if watch.fd == injector {
                    let got = read(injector, &line, line.count)
                    if got <= 0 { return }
                    // One scan line and one answer per injection in what arrived, the scan line
                    // padded to the daemon's size.
                    for id in Self.requestIDs(in: line[0..<got]) {
                        seq += 1
                        pending.append(
                            Array(#"{"jsonrpc":"2.0","method":"scan","params":{"event":{"seq":\#(seq),"pad":""#.utf8)
                                + [UInt8](repeating: 0x20, count: 1000) + Array("\"}}}\n".utf8))
                        pending.append(Array(#"{"jsonrpc":"2.0","id":\#(id),"result":{"event":{"seq":\#(seq)}}}"#.utf8) + [0x0A])
                        send([1], to: toWriter[1])
                    }
                } else {
                    var committed = [UInt8](repeating: 0, count: 256)
                    let count = max(0, read(toLoop[0], &committed, committed.count))
                    for index in 0..<count {
                        for subscriber in subscribers { send(pending[2 * index], to: subscriber) }
                        send(pending[2 * index + 1], to: injector)
                    }
                    pending.removeFirst(2 * count)
                }
            }
        }
    }

    private func accepted() throws -> Int32 {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else {
            throw BenchmarkFailure(description: "design model: accept: \(String(cString: strerror(errno)))")
        }
        return connection
    }

    private func write() {
        let page = [UInt8](repeating: 0x5A, count: 4096)
        var offset: off_t = 0
        var requested = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(toWriter[0], &requested, requested.count)
            guard count > 0 else { return }
            for _ in 0..<count {
                _ = pwrite(file, page, page.count, offset)
                offset = (offset + 4096) % off_t(Self.logSize)
            }
            if syncs { _ = fdatasync(file) }
            send([UInt8](repeating: 1, count: count), to: toLoop[1])
        }
    }

    private func send(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The request ids in `bytes`, a line each, in order.
    static func requestIDs(in bytes: ArraySlice<UInt8>) -> [Int] {
        bytes.split(separator: 0x0A).compactMap { JSONScan.number(after: #""id":"#, in: $0) }
    }
}
