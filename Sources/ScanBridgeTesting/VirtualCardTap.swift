import Foundation
import Synchronization

/// A `VirtualCard` on a vpcd reader: connecting is the card entering the field, `remove()`
/// (or the card's `leavesAfterAPDUs`) is the card leaving it. Frames are a 2-byte
/// big-endian length then the payload; a 1-byte payload is a control code (0 power off,
/// 1 power on, 2 reset, 4 get ATR), anything longer an APDU.
public final class VirtualCardTap: Sendable {
    private let socket: Int32
    private let acknowledgesAtOnce: Bool
    private let closed = Mutex(false)
    /// The APDUs the card received, in order.
    public let received = Mutex<[[UInt8]]>([])

    /// The APDUs received so far that start with `prefix` (e.g. `FF 00 40`, a reader's LED command).
    public func received(startingWith prefix: [UInt8]) -> [[UInt8]] {
        received.withLock { $0.filter { $0.starts(with: prefix) } }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Puts `card` on the vpcd reader listening on `port` (127.0.0.1).
    /// - Parameter acknowledgesAtOnce: answer vpcd at the speed of a real card (see
    ///   `acknowledgeAtOnce`), for the benchmark. Off by default: with it, a card put on a
    ///   reader the instant another left it was seen to replace it without pcscd ever
    ///   reporting the reader empty, so no PC/SC client saw the new card (vpcd polled at
    ///   400 ms); a test that swaps cards that fast relies on the slower round trips.
    public init(_ card: VirtualCard, port: Int, acknowledgesAtOnce: Bool = false) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "no vpcd reader on 127.0.0.1:\(port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
        self.acknowledgesAtOnce = acknowledgesAtOnce
        let thread = Thread { [self] in self.serve(card) }
        thread.name = "virtual-card"
        thread.start()
    }

    deinit { remove() }

    /// Takes the card away from the reader.
    public func remove() {
        // shutdown wakes the serving thread's recv; that thread closes the descriptor on its
        // way out, under the same lock, so a closed (maybe reused) descriptor is never shut down.
        closed.withLock { closed in
            if !closed { shutdown(socket, Int32(SHUT_RDWR)) }
            closed = true
        }
    }

    private func serve(_ card: VirtualCard) {
        defer {
            closed.withLock { closed in
                closed = true
                close(socket)
            }
        }
        var apdus = 0
        while let frame = readFrame() {
            if frame.count == 1 {
                if frame[0] == 4 { guard writeFrame(card.atr) else { return } }
                continue
            }
            received.withLock { $0.append(frame) }
            apdus += 1
            if let limit = card.leavesAfterAPDUs, apdus > limit {
                remove()
                return
            }
            guard writeFrame(card.respond(to: frame)) else { return }
        }
    }

    private func readFrame() -> [UInt8]? {
        guard let header = readExactly(2) else { return nil }
        return readExactly(Int(header[0]) << 8 | Int(header[1]))
    }

    private func readExactly(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            if acknowledgesAtOnce { acknowledgeAtOnce() }
            let n = bytes.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + done, count - done, 0) }
            if n <= 0 { return nil }
            done += n
        }
        return bytes
    }

    /// vpcd sends a frame's 2-byte length and its payload in two writes, with Nagle's
    /// algorithm on: the payload waits until the length is acknowledged, and Linux delays
    /// that ACK by up to 40 ms. Every card round trip (power on, each APDU) then costs ~44 ms,
    /// which no real reader has. Quick ACK mode is left by the kernel on its own, so it is
    /// asked for again before every read.
    private func acknowledgeAtOnce() {
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private func writeFrame(_ payload: [UInt8]) -> Bool {
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        return frame.withUnsafeBytes { send(socket, $0.baseAddress!, frame.count, Int32(MSG_NOSIGNAL)) } == frame.count
    }
}
