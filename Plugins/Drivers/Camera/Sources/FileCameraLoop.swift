import DriverKit
import Foundation
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// One file camera's life on a thread of its own (reading and decoding frames blocks): open
/// the frames (`error`, retried every second, while they cannot be), report `ready`, then
/// decode a frame every 1/fps seconds, each new code one `qr` read, to the end (or forever,
/// looping). Ends when `stop` is signalled.
final class FileCameraLoop: DeviceLoop, @unchecked Sendable {
    // Confined to the loop's thread once started, apart from `stop` (Sendable).
    let spec: FileCameraSpec
    let stop = StopSignal()
    private let feed: CameraFeed

    init(spec: FileCameraSpec, id: String, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.spec = spec
        feed = CameraFeed(
            id: id,
            driver: FileCameraDriver.driverName, name: "file camera \(spec.path)", path: spec.path,
            settings: spec.camera, events: events, logger: logger)
    }

    var id: String { feed.id }

    func run() {
        if let failure = stop.failure {
            feed.problem(failure)
            return
        }
        while !stop.isStopped {
            let source: FrameSource
            do {
                source = try FrameSource(path: spec.path)
            } catch {
                feed.problem("\(error)")
                guard stop.sleep(seconds: 1) else { return }
                continue
            }
            feed.ready()
            play(source)
            // Played to the end, not looping: a camera looking at nothing until stopped.
            while stop.sleep(seconds: 3600) {}
        }
    }

    /// Plays the frames at `fps` (a frame that took longer to decode delays the next, never
    /// bunches them), until the end or, looping, until stopped.
    private func play(_ source: FrameSource) {
        let period = Duration.seconds(1 / spec.camera.fps)
        var due = ContinuousClock.now
        var badFrames = Set<String>()
        var framesThisPass = 0
        while !stop.isStopped {
            do {
                guard let frame = try source.next() else {
                    // A Y4M file with no frame at all would loop without end.
                    guard spec.loop, framesThisPass > 0 else { return }
                    framesThisPass = 0
                    try source.rewind()
                    continue
                }
                framesThisPass += 1
                feed.show(frame)
            } catch {
                framesThisPass += 1
                // A bad frame takes its turn (a folder of bad files does not spin), and is
                // said once, not at every pass of a loop.
                if badFrames.insert("\(error)").inserted { feed.logger.warning("skipped a frame: \(error)") }
            }
            due = max(due + period, ContinuousClock.now)
            // Never negative: poll takes a negative timeout as "forever".
            let wait = max(0, Double((due - ContinuousClock.now) / .microseconds(1)) / 1_000_000)
            guard stop.sleep(seconds: wait) else { return }
        }
    }
}
