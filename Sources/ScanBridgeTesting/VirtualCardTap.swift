import Foundation
package import Synchronization

/// A `VirtualCard` on a vpcd reader: connecting is the card entering the field, `remove()`
/// (or the card's `leavesAfterAPDUs`) is the card leaving it. Frames are a 2-byte
/// big-endian length then the payload; a 1-byte payload is a control code (0 power off,
/// 1 power on, 2 reset, 4 get ATR), anything longer an APDU.
///
/// One card at a time per reader, as in a real field: vpcd (3.3) checks presence by asking
/// the ATR every 400 ms, and when that fails on a card that left it accepts a waiting
/// connection *in the same poll*, so a card removed and another put on the same reader
/// before that poll looked to pcscd like one card that never left: no event, a lost tap.
/// So `remove()` half-closes the connection (vpcd's next ATR request reads end-of-file,
/// it reports "no card" and closes), and a card tapped on a reader whose previous card has
/// not left yet connects only once vpcd has closed that card's connection and a moment
/// has passed, so pcscd has seen the reader empty in between.
package final class VirtualCardTap: Sendable {
    private enum Phase: Equatable {
        case waiting, inField, leaving
        case closed(ContinuousClock.Instant)
    }

    /// How long after vpcd let a card go the next card on that reader waits before it connects:
    /// vpcd accepts the next connection microseconds after the close, so this is a wide margin.
    static let handOver: Duration = .milliseconds(300)
    /// The last card tapped on each vpcd port in this process.
    private static let lastTap = Mutex<[Int: VirtualCardTap]>([:])

    private let port: Int
    private let acknowledgesAtOnce: Bool
    private let socket = Mutex<Int32>(-1)
    private let phase = Mutex(Phase.waiting)
    /// The APDUs the card received, in order.
    package let received = Mutex<[[UInt8]]>([])
    /// The control codes vpcd sent (1 is power on: pcscd has seen the card), in order.
    package let controlCodes = Mutex<[UInt8]>([])

    /// The APDUs received so far that start with `prefix` (e.g. `FF 00 40`, a reader's LED command).
    package func received(startingWith prefix: [UInt8]) -> [[UInt8]] {
        received.withLock { $0.filter { $0.starts(with: prefix) } }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Puts `card` on the vpcd reader listening on `port` (127.0.0.1), at once when the
    /// reader is free, otherwise as soon as the previous card has left (see the type's comment).
    /// - Parameter acknowledgesAtOnce: answer vpcd at the speed of a real card (see
    ///   `acknowledgeAtOnce`), for the benchmark. Off by default.
    package init(_ card: VirtualCard, port: Int, acknowledgesAtOnce: Bool = false) throws {
        self.port = port
        self.acknowledgesAtOnce = acknowledgesAtOnce
        let previous = Self.lastTap.withLock { taps in
            defer { taps[port] = self }
            return taps[port]
        }
        if previous?.hasLeft(since: Self.handOver) ?? true {
            try connect()
            start(card, after: nil)
        } else {
            start(card, after: previous)
        }
    }

    /// Takes the card away from the reader: pcscd sees the reader empty at vpcd's next poll,
    /// before any card tapped after this one on the same reader (see the type's comment).
    package func remove() {
        phase.withLock { phase in
            switch phase {
            case .waiting: phase = .closed(.now)  // never reached the reader
            case .inField:
                // Still reading: vpcd's next request gets end-of-file and it closes the connection.
                _ = socket.withLock { shutdown($0, Int32(SHUT_WR)) }
                phase = .leaving
            case .leaving, .closed: break
            }
        }
    }

    /// Whether vpcd has let the card go (or it never reached the reader).
    package var isGone: Bool { hasLeft(since: .zero) }

    private func hasLeft(since: Duration) -> Bool {
        guard case .closed(let at) = phase.withLock({ $0 }) else { return false }
        return ContinuousClock.now - at >= since
    }

    private func connect() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "no vpcd reader on 127.0.0.1:\(port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket.withLock { $0 = fd }
        let entered = phase.withLock { phase in
            guard phase == .waiting else { return false }  // removed while it waited
            phase = .inField
            return true
        }
        if !entered { shutdown(fd, Int32(SHUT_WR)) }
    }

    private func start(_ card: VirtualCard, after previous: VirtualCardTap?) {
        let thread = Thread { [self] in
            if let previous {
                // This thread's own time: waiting here blocks no task. A previous card vpcd
                // never lets go of leaves this one out of the field, and the test's wait for its
                // event fails.
                do {
                    try blockUntil("vpcd to let the previous card on port \(port) go", timeout: .seconds(30)) {
                        previous.hasLeft(since: Self.handOver)
                    }
                } catch {
                    FileHandle.standardError.write(Data("VirtualCardTap: \(error)\n".utf8))
                    phase.withLock { $0 = .closed(.now) }
                    return
                }
                if isGone { return }  // removed before it reached the reader
                do { try connect() } catch {
                    FileHandle.standardError.write(Data("VirtualCardTap: \(error)\n".utf8))
                    phase.withLock { $0 = .closed(.now) }
                    return
                }
            }
            serve(card)
        }
        thread.name = "virtual-card"
        thread.start()
    }

    private func serve(_ card: VirtualCard) {
        var card = card
        let fd = socket.withLock { $0 }
        defer {
            // Under the phase lock, so remove() never shuts down a closed (maybe reused) descriptor.
            phase.withLock { phase in
                phase = .closed(.now)
                close(fd)
            }
        }
        var apdus = 0
        while let frame = readFrame(fd) {
            if frame.count == 1 { controlCodes.withLock { $0.append(frame[0]) } }
            if phase.withLock({ $0 != .inField }) { continue }  // half-closed: vpcd reads end-of-file
            if frame.count == 1 {
                if frame[0] == 4 { guard writeFrame(fd, card.atr) else { return } }
                continue
            }
            received.withLock { $0.append(frame) }
            apdus += 1
            if let limit = card.leavesAfterAPDUs, apdus > limit {
                shutdown(fd, Int32(SHUT_RDWR))  // pulled mid-read: gone at once
                return
            }
            guard writeFrame(fd, card.respond(to: frame)) else { return }
        }
    }

    /// vpcd sends a frame's 2-byte length and its payload in two writes, with Nagle's
    /// algorithm on: the payload waits until the length is acknowledged, and Linux delays
    /// that ACK by up to 40 ms. Every card round trip (power on, each APDU) then costs ~44 ms,
    /// which no real reader has. Quick ACK mode is left by the kernel on its own, so it is
    /// asked for again before every read.
    private func acknowledgeAtOnce(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private func readFrame(_ fd: Int32) -> [UInt8]? {
        guard let header = readExactly(fd, 2) else { return nil }
        return readExactly(fd, Int(header[0]) << 8 | Int(header[1]))
    }

    private func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            if acknowledgesAtOnce { acknowledgeAtOnce(fd) }
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
            if n <= 0 { return nil }
            done += n
        }
        return bytes
    }

    private func writeFrame(_ fd: Int32, _ payload: [UInt8]) -> Bool {
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        return frame.withUnsafeBytes { send(fd, $0.baseAddress!, frame.count, Int32(MSG_NOSIGNAL)) } == frame.count
    }
}
