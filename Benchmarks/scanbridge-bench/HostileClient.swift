import Foundation
import Synchronization

/// `scanbridge-bench --attack SOCKET`: one client that means harm, in a process of its own
/// (run as another user with a reader's role when the benchmark can), doing at once what
/// docs/protocol.md's limits are there to stop, each on a thread of its own, until killed.
/// Each attack waits for the daemon's answer before its next round where there is one, so
/// it goes as fast as the daemon lets it, not faster than it can refuse.
enum HostileClient {
    static let hello = #"{"jsonrpc":"2.0","id":"h","method":"bridge.hello"}"#
    /// Set once the hoarder holds every connection it may.
    static let full = Mutex(false)

    /// Every attack, by the name `--attacks` takes.
    static let attacks = ["garbage", "flood", "stalled", "churn", "hoarder"]

    static func attack(socketPath: String, only chosen: Set<String>) -> Never {
        // A refused connection is closed under a write; that is an error to retry, not a signal to die of.
        signal(SIGPIPE, SIG_IGN)
        let benchmark = getppid()
        let runs: [String: @Sendable () throws -> Void] = [
            "garbage": { try garbage(socketPath) }, "flood": { try notificationFlood(socketPath) },
            "stalled": { try neverReading(socketPath) }, "churn": { try churn(socketPath) },
            "hoarder": { try hoard(socketPath) },
        ]
        for name in attacks where chosen.contains(name) { forever(name, runs[name]!) }
        if !chosen.contains("hoarder") { full.withLock { $0 = true } }
        // Ready once the hoarder holds every slot it may: the attack is then whole.
        while !full.withLock({ $0 }) { usleep(10_000) }
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        // Until the benchmark kills it, or is gone itself (stopped half-way): an attacker left
        // behind would go on attacking whatever listens at the path.
        while getppid() == benchmark { usleep(100_000) }
        exit(0)
    }

    /// The longest line the default limit lets in (1 MiB), `[1,1,1,…]`, then a batch one past
    /// `server.max_batch`: both refused whole.
    static func garbage(_ socketPath: String) throws {
        let ones = (1_048_576 - 1) / 2
        let mebibyte = [UInt8(ascii: "[")] + Array(repeating: Array("1,".utf8), count: ones - 1).joined() + Array("1]\n".utf8)
        let overBatch = Array(("[" + Array(repeating: hello, count: 1_001).joined(separator: ",") + "]\n").utf8)
        let socket = try LineSocket(path: socketPath)
        while true {
            for line in [mebibyte, overBatch] {
                try socket.write(line)
                _ = try socket.readLine()
            }
        }
    }

    /// Notifications past `server.pending_requests` (5,000 in five batches), each the dearest
    /// read a reader may ask for; then a request, whose answer paces the next round.
    static func notificationFlood(_ socketPath: String) throws {
        let recent = #"{"jsonrpc":"2.0","method":"events.recent","params":{"limit":1000}}"#
        let batch = Array(("[" + Array(repeating: recent, count: 1_000).joined(separator: ",") + "]\n").utf8)
        let socket = try LineSocket(path: socketPath)
        while true {
            for _ in 0..<5 { try socket.write(batch) }
            try socket.write(Array((hello + "\n").utf8))
            _ = try socket.readLine()
        }
    }

    /// Every subscription a connection may hold, never read: each overflows and is closed,
    /// and every two seconds they are asked for again.
    static func neverReading(_ socketPath: String) throws {
        let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8) + [0x0A]
        let socket = try LineSocket(path: socketPath)
        while true {
            for _ in 0..<32 { try socket.write(subscribe) }
            sleep(2)
        }
    }

    /// Subscribe, unsubscribe, again and again, each after the last one's answer.
    static func churn(_ socketPath: String) throws {
        let socket = try LineSocket(path: socketPath)
        let marker = Array(#""subscription":""#.utf8)
        for n in 1... {
            try socket.write(Array(#"{"jsonrpc":"2.0","id":"s\#(n)","method":"events.subscribe"}"#.utf8) + [0x0A])
            let answer = try line(from: socket, containing: #""id":"s\#(n)""#)
            guard let start = answer.firstRange(of: marker)?.upperBound,
                let end = answer[start...].firstIndex(of: UInt8(ascii: "\""))
            else { continue }
            let subscription = String(decoding: answer[start..<end], as: UTF8.self)
            try socket.write(
                Array(
                    #"{"jsonrpc":"2.0","id":"u\#(n)","method":"events.unsubscribe","params":{"subscription":"\#(subscription)"}}"#
                        .utf8) + [0x0A])
            _ = try line(from: socket, containing: #""id":"u\#(n)""#)
        }
    }

    /// Connections until the daemon refuses one (the per-user limit, or the daemon's), all
    /// held; then further attempts, a short pause apart, so the daemon keeps refusing.
    static func hoard(_ socketPath: String) throws {
        var held: [LineSocket] = []
        while true {
            let socket = try LineSocket(path: socketPath)
            let answer = (try? socket.write(Array((hello + "\n").utf8))).flatMap { try? socket.readLine() }
            if let answer, answer.firstRange(of: Array(#""result""#.utf8)) != nil {
                held.append(socket)
                continue
            }
            full.withLock { $0 = true }
            usleep(10_000)
        }
    }

    /// The next line holding `text`; the lines before it (events of a subscription) are dropped.
    static func line(from socket: LineSocket, containing text: String) throws -> ArraySlice<UInt8> {
        let wanted = Array(text.utf8)
        while true {
            let line = try socket.readLine()
            if line.firstRange(of: wanted) != nil { return line }
        }
    }

    /// Runs `attack` on a thread of its own for as long as the process lives; when the daemon
    /// closes its connection, it starts again with a new one.
    static func forever(_ name: String, _ attack: @escaping @Sendable () throws -> Void) {
        let thread = Thread {
            while true {
                try? attack()
                usleep(100_000)
            }
        }
        thread.name = name
        thread.start()
    }
}
