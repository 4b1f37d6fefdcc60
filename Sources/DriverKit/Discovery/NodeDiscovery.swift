import CUdev
import Foundation
import Glibc
package import Logging

/// What discovery reports.
package enum DiscoveryEvent: Sendable, Equatable {
    /// A node appeared (or was there at start), udev's rules applied to it.
    case added(DiscoveredNode)
    case removed(DiscoveredNode)
}

/// Device nodes of some subsystems (`input`, `hidraw`, `tty`, `video4linux`) as they come
/// and go, through libudev: subscribe to udevd's events first, then list what is there
/// (coldplug), then serve events — so nothing plugged in between is missed. Events come
/// from udevd ("udev", not "kernel"), so the node's permissions are set when it is reported.
///
/// Without udevd (a container, a minimal box), the list is read from sysfs again whenever
/// `/dev` or `/dev/input` changes (inotify), so hotplug still works.
package final class NodeDiscovery: Sendable {
    package let subsystems: [String]
    private let logger: Logger

    package init(subsystems: [String], logger: Logger) {
        self.subsystems = subsystems
        self.logger = logger
    }

    /// Starts watching on a thread of its own; ends when the stream is cancelled.
    package func events() -> AsyncStream<DiscoveryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        let stop = StopSignal()
        let watcher = UdevWatcher(subsystems: subsystems, events: continuation, stop: stop, logger: logger)
        let thread = Thread { watcher.run() }
        thread.name = "scanbridge-discovery"
        thread.start()
        continuation.onTermination = { _ in stop.stop() }
        return stream
    }
}

/// The discovery thread's libudev objects and loop (they are not thread-safe: this thread only).
private final class UdevWatcher: @unchecked Sendable {
    let subsystems: [String]
    let events: AsyncStream<DiscoveryEvent>.Continuation
    let stop: StopSignal
    let logger: Logger
    private var known: [String: DiscoveredNode] = [:]

    init(subsystems: [String], events: AsyncStream<DiscoveryEvent>.Continuation, stop: StopSignal, logger: Logger) {
        self.subsystems = subsystems
        self.events = events
        self.stop = stop
        self.logger = logger
    }

    func run() {
        if let failure = stop.failure {
            logger.error("\(failure): devices are not discovered")
            return
        }
        guard let udev = udev_new() else {
            logger.error("libudev could not start: devices are not discovered")
            return
        }
        defer { udev_unref(udev) }
        let monitor = udev_monitor_new_from_netlink(udev, "udev")
        defer { if let monitor { udev_monitor_unref(monitor) } }
        if let monitor {
            for subsystem in subsystems { udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil) }
            udev_monitor_enable_receiving(monitor)
        }
        let withUdevd = access("/run/udev/control", F_OK) == 0
        let inotify = withUdevd ? Int32(-1) : DevWatch.open()
        defer { if inotify >= 0 { close(inotify) } }
        if !withUdevd { logger.info("udevd does not run: devices are found from sysfs when /dev changes") }
        rescan(udev)

        var descriptors = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
        if let monitor { descriptors.append(pollfd(fd: udev_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0)) }
        if inotify >= 0 { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
        var backoff = PollBackoff()
        while !stop.isStopped {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if stop.isStopped { return }
            if ready < 0 {
                guard errno != EINTR else { continue }
                // poll itself failing: back off instead of spinning; give up when it persists.
                guard !backoff.persistent else {
                    logger.error("poll failed: \(String(cString: strerror(errno))); devices plugged in from now on are not seen")
                    return
                }
                guard stop.sleep(seconds: backoff.failed()) else { return }
                continue
            }
            let woke = Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL)
            for descriptor in descriptors.dropFirst() where descriptor.revents & woke != 0 {
                if let monitor, descriptor.fd == udev_monitor_get_fd(monitor) {
                    if descriptor.revents & Int16(POLLIN) != 0 {
                        backoff.succeeded()
                        receive(monitor)
                    } else {
                        // The netlink socket overflowed (ENOBUFS): events were lost. Reading
                        // clears the error, which would otherwise wake poll for ever; what was
                        // lost is found again in sysfs, after a breath so a burst can settle.
                        receive(monitor)
                        guard stop.sleep(seconds: backoff.failed()) else { return }
                        rescan(udev)
                    }
                } else {
                    DevWatch.drain(inotify)
                    // Give a burst of node creations (a device with several nodes) a moment.
                    _ = stop.sleep(seconds: 0.05)
                    rescan(udev)
                }
            }
        }
    }

    /// One event from udevd.
    private func receive(_ monitor: OpaquePointer) {
        guard let device = udev_monitor_receive_device(monitor) else { return }
        defer { udev_device_unref(device) }
        let action = udev_device_get_action(device).map { String(cString: $0) } ?? "add"
        guard let node = UdevDevice.node(device) else { return }
        if action == "remove" {
            if known.removeValue(forKey: node.devnode) != nil { events.yield(.removed(node)) }
        } else if known[node.devnode] != node {
            known[node.devnode] = node
            events.yield(.added(node))
        }
    }

    /// The nodes sysfs lists now, compared with those known: what came and what went.
    private func rescan(_ udev: OpaquePointer) {
        var present: [String: DiscoveredNode] = [:]
        for node in UdevDevice.list(udev, subsystems: subsystems) { present[node.devnode] = node }
        for (devnode, node) in known where present[devnode] == nil {
            known.removeValue(forKey: devnode)
            events.yield(.removed(node))
        }
        for (devnode, node) in present.sorted(by: { $0.key < $1.key }) where known[devnode] != node {
            known[devnode] = node
            events.yield(.added(node))
        }
    }
}
