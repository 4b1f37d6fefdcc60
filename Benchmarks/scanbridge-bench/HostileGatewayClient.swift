import Foundation

/// `scanbridge-bench --attack-gateway ADDRESS --token SECRET`: the hostile-gateway scenario's
/// attacker, in a process of its own, doing at once, each on a thread of its own until
/// killed, what the gateway's deadlines, places and budget are there to stop:
/// - with no token, 2,000 connections that send a header byte each second, each opened again
///   when the daemon closes it;
/// - with no token, 4 connections pipelining `GET /scanbridge.mjs` and reading nothing;
/// - with a reader's token, 150 event streams replaying from the journal's start
///   (`Last-Event-ID: 0`), never read;
/// - with the same token, a WebSocket sending pings as fast as the daemon takes them, never
///   reading a pong.
enum HostileGatewayClient {
    /// Every attack, by the name `--attacks` takes.
    static let attacks = ["slow", "pipeline", "replays", "pings"]

    static func attack(address: String, token: String, only chosen: Set<String>) -> Never {
        signal(SIGPIPE, SIG_IGN)
        // Far more descriptors than the daemon may hold for it.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let benchmark = getppid()
        let host = "Host: \(address)\r\n"
        let bearer = "Authorization: Bearer \(token)\r\n"
        if chosen.contains("slow") {
            forever("slow") { slow(address, count: 2_000, head: Array("GET /healthz HTTP/1.1\r\n\(host)X-Slow: ".utf8)) }
        }
        for n in 0..<4 where chosen.contains("pipeline") {
            forever("pipeline \(n)") {
                pipeline(address, request: Array("GET /scanbridge.mjs HTTP/1.1\r\n\(host)\r\n".utf8))
            }
        }
        // The WebSocket first: its token's streams are bounded (`http.max_streams_per_token`),
        // and the replays would take every one of them.
        if chosen.contains("pings") {
            forever("pings") { pings(address, upgrade: Array(webSocketUpgrade(host: host, bearer: bearer).utf8)) }
            usleep(500_000)
        }
        if chosen.contains("replays") {
            let request = "GET /v1/events HTTP/1.1\r\n\(host)\(bearer)Last-Event-ID: 0\r\n\r\n"
            forever("replays") { replays(address, count: 150, request: Array(request.utf8)) }
        }
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        while getppid() == benchmark { usleep(100_000) }
        exit(0)
    }

    /// Runs `body` on a thread of its own, again whenever it returns.
    static func forever(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            while true {
                body()
                usleep(10_000)
            }
        }
        thread.name = name
        thread.start()
    }

    /// Connections that never finish their request: one byte each a second.
    static func slow(_ address: String, count: Int, head: [UInt8]) {
        var open: [(descriptor: Int32, sent: Int)] = []
        while true {
            while open.count < count, let descriptor = try? GatewaySocket.connect(address) {
                open.append((descriptor, 0))
            }
            for index in open.indices.reversed() {
                let (descriptor, sent) = open[index]
                let byte = sent < head.count ? head[sent] : UInt8(ascii: "x")
                if !send(descriptor, [byte]) {
                    close(descriptor)
                    open.remove(at: index)
                } else {
                    open[index].sent += 1
                }
            }
            sleep(1)
        }
    }

    /// Pipelined requests, written while the daemon reads them, never an answer read.
    static func pipeline(_ address: String, request: [UInt8]) {
        guard let descriptor = try? GatewaySocket.connect(address) else { return }
        defer { close(descriptor) }
        shrinkReceiveBuffer(descriptor)
        let burst = Array(Array(repeating: request, count: 100).joined())
        while true {
            let written = burst.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if written < 0 && errno != EAGAIN { return }
            if written < burst.count { usleep(100_000) }
        }
    }

    /// Event streams opened and never read; one the daemon ends is opened again.
    static func replays(_ address: String, count: Int, request: [UInt8]) {
        var open: [Int32] = []
        while true {
            while open.count < count, let descriptor = try? GatewaySocket.connect(address) {
                shrinkReceiveBuffer(descriptor)
                guard send(descriptor, request) else {
                    close(descriptor)
                    break
                }
                open.append(descriptor)
            }
            open.removeAll { descriptor in
                guard hungUp(descriptor) else { return false }
                close(descriptor)
                return true
            }
            sleep(1)
        }
    }

    /// A WebSocket that sends pings without end and reads none of its pongs.
    static func pings(_ address: String, upgrade: [UInt8]) {
        guard let descriptor = try? GatewaySocket.connect(address) else { return }
        defer { close(descriptor) }
        shrinkReceiveBuffer(descriptor)
        guard send(descriptor, upgrade) else { return }
        // A masked ping with 125 bytes of payload, the most a control frame may carry.
        let ping = [0x89, 0x80 | 125, 1, 2, 3, 4] + [UInt8](repeating: 0x55, count: 125)
        let burst = Array(Array(repeating: ping, count: 100).joined())
        while true {
            let written = burst.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if written < 0 && errno != EAGAIN { return }
            if written < burst.count { usleep(100_000) }
        }
    }

    static func webSocketUpgrade(host: String, bearer: String) -> String {
        "GET /v1/ws HTTP/1.1\r\n\(host)\(bearer)Upgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: c2NhbmJyaWRnZS1iZW5jaA==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// Sends all of `bytes` unless the connection has ended.
    static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// The daemon closed its side (what it sent still unread).
    static func hungUp(_ descriptor: Int32) -> Bool {
        // POLLRDHUP, which Glibc's module map leaves out.
        let peerClosed: Int16 = 0x2000
        var poller = pollfd(fd: descriptor, events: peerClosed, revents: 0)
        return poll(&poller, 1, 0) > 0 && poller.revents & (peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// So that the daemon's writes fill its own buffers, not this process's kernel's.
    static func shrinkReceiveBuffer(_ descriptor: Int32) {
        var size: Int32 = 4096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
}
