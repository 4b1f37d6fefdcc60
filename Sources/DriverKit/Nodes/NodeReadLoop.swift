import Foundation
import Glibc
package import Logging
package import ScanBridgeCore
package import ScanBridgeModel

/// What one device read from a file descriptor does with its node (decode keys, HID
/// reports, serial bytes); `NodeReadLoop` does the rest. Called on the loop's thread only.
package protocol NodeReading: AnyObject {
    /// The device's logger (with its id in the metadata), for the loop's words too.
    var logger: Logger { get }
    /// Opens the node; while it cannot, the device is `error` and it is tried every second.
    func open() throws(DeviceNodeError) -> DeviceNode
    /// The device as reported, for the node when it is open (its name, USB identity).
    func describe(_ node: DeviceNode?) -> Device
    /// Takes the node for this reader (an evdev grab); `busy` waits and asks again every second.
    func hold(_ node: DeviceNode) -> NodeHold
    /// Bytes as they came from the node.
    func received(_ bytes: ArraySlice<UInt8>, from node: DeviceNode)
    /// When `idle()` is due if nothing arrives before (a read with no terminator yet).
    var deadline: ContinuousClock.Instant? { get }
    func idle()
    /// The node went away: what was half-read is incomplete.
    func unplugged()
}

package enum NodeHold: Equatable {
    case held
    /// Another program holds the device; the sentence says so.
    case busy(String)
}

/// The life of one fd-read device, on a thread of its own (`read` and `poll` block): open,
/// hold, report `ready`, read until unplugged, report `gone`, open again when the node is
/// back. A node that cannot be opened is `error`, retried every second. A FIFO whose writer
/// closed is opened again quietly; a regular file (a recording) is read once.
package struct NodeReadLoop: Sendable {
    let reading: any NodeReading & Sendable
    let events: AsyncStream<DriverEvent>.Continuation
    let logger: Logger
    /// A node named by the operator is waited for after an unplug; a discovered one is not:
    /// discovery reports it gone, and starts a new loop when it is back.
    let reopens: Bool
    package let stop: StopSignal

    package init(
        reading: any NodeReading & Sendable, events: AsyncStream<DriverEvent>.Continuation, reopens: Bool = true,
        stop: StopSignal = StopSignal()
    ) {
        self.reading = reading
        self.stop = stop
        self.events = events
        self.logger = reading.logger
        self.reopens = reopens
    }

    private enum Ending {
        case stopped, unplugged, endOfFile
        /// `poll` failed, or woke with nothing to read, `PollBackoff.limit` times in a row.
        case failing(String)
    }

    package func run() {
        if let failure = stop.failure {
            logger.error("\(failure): not read")
            report(.error, error: failure, node: nil)
            return
        }
        var lastProblem: String?
        while !stop.isStopped {
            let node: DeviceNode
            do {
                node = try reading.open()
            } catch {
                if error.declines {
                    logger.debug("\(error): left alone")
                    return
                }
                let sentence = "\(error)"
                if sentence != lastProblem {
                    logger.warning("\(sentence); trying again every second")
                    report(.error, error: sentence, node: nil)
                    lastProblem = sentence
                }
                guard stop.sleep(seconds: 1) else { return }
                continue
            }
            guard hold(node) else { return }
            lastProblem = nil
            report(.ready, node: node)
            switch read(node) {
            case .stopped:
                return
            case .endOfFile where node.isFIFO:
                continue
            case .endOfFile where node.isRegularFile:
                while stop.sleep(seconds: 3600) {}
                return
            case .failing(let sentence):
                logger.warning("\(sentence); opening it again in a second")
                report(.error, error: sentence, node: node)
                lastProblem = sentence
                guard stop.sleep(seconds: 1) else { return }
            case .endOfFile, .unplugged:
                logger.info("unplugged")
                reading.unplugged()
                guard reopens else { return }
                events.yield(.gone(deviceID: reading.describe(nil).id))
                guard stop.sleep(seconds: 0.2) else { return }
            }
        }
    }

    /// Holds the node, reporting `busy` while another program has it; false when stopped.
    private func hold(_ node: DeviceNode) -> Bool {
        var busy = false
        while case .busy(let sentence) = reading.hold(node) {
            if !busy {
                logger.warning("\(sentence); waiting for it to let go")
                report(.busy, error: sentence, node: node)
                busy = true
            }
            guard stop.sleep(seconds: 1) else { return false }
        }
        return true
    }

    private func read(_ node: DeviceNode) -> Ending {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptors = [
            pollfd(fd: node.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0),
        ]
        var backoff = PollBackoff()
        while true {
            var timeout: Int32 = -1
            if let deadline = reading.deadline {
                timeout = max(0, Int32((deadline - ContinuousClock.now) / .milliseconds(1)) + 1)
            }
            let ready = poll(&descriptors, 2, timeout)
            if stop.isStopped { return .stopped }
            if ready == 0 {
                if let deadline = reading.deadline, deadline <= ContinuousClock.now { reading.idle() }
                continue
            }
            if ready < 0, errno == EINTR { continue }
            if ready < 0 || descriptors[0].revents & Int16(POLLNVAL) != 0 {
                // Not the node's data but poll itself failing: back off instead of spinning.
                let sentence = ready < 0 ? "poll failed: \(String(cString: strerror(errno)))" : "poll: the node is not open"
                guard !backoff.persistent else { return .failing("\(node.path): \(sentence)") }
                guard stop.sleep(seconds: backoff.failed()) else { return .stopped }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(node.fd, $0.baseAddress, $0.count) }
            if count == 0 { return .endOfFile }
            if count < 0 {
                let failure = errno
                if failure == EINTR { continue }
                if failure == EAGAIN {
                    // Woken with nothing to read: an error state (POLLERR) that no read clears.
                    if descriptors[0].revents & Int16(POLLERR | POLLHUP) != 0 {
                        guard !backoff.persistent else { return .failing("\(node.path) is in error but gives no error to read") }
                        guard stop.sleep(seconds: backoff.failed()) else { return .stopped }
                    }
                    continue
                }
                if failure != ENODEV && failure != EIO {
                    logger.warning("reading \(node.path) failed: \(String(cString: strerror(failure)))")
                }
                return .unplugged
            }
            backoff.succeeded()
            reading.received(buffer[..<count], from: node)
        }
    }

    private func report(_ state: Device.State, error: String? = nil, node: DeviceNode?) {
        // A loop stopped meanwhile (its device released, or gone) reports nothing more.
        guard !stop.isStopped else { return }
        var device = reading.describe(node)
        device.state = state
        device.error = error
        events.yield(.device(device))
    }
}
