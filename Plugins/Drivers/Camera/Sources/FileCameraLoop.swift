import DeviceNodes
import Foundation
import Logging
import ScanBridgeCore

/// One file camera's life on a thread of its own (reading and decoding frames blocks): open
/// the frames (`error`, retried every second, while they cannot be), report `ready`, then
/// decode a frame every 1/fps seconds, each new code one `qr` read, to the end (or forever,
/// looping). Ends when `stop` is signalled.
final class FileCameraLoop: @unchecked Sendable {
    // Confined to the loop's thread once started, apart from `stop` (Sendable).
    let spec: FileCameraSpec
    let id: String
    let stop = StopSignal()
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let start = ContinuousClock.now

    init(spec: FileCameraSpec, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.spec = spec
        self.id = DeviceNode.deviceID(driver: FileCameraDriver.driverName, path: spec.path)
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(id)"
        self.logger = logger
    }

    func start(name: String) {
        let thread = Thread { self.run() }
        thread.name = name
        thread.start()
    }

    private func run() {
        let decoder = FrameDecoder(symbologies: spec.symbologies, dataMatrixTimeLimit: spec.dataMatrixTimeLimit)
        var filter = SightingFilter(outOfView: spec.outOfView)
        var lastProblem: String?
        while !stop.isStopped {
            let source: FrameSource
            do {
                source = try FrameSource(path: spec.path)
            } catch {
                let sentence = "\(error)"
                if sentence != lastProblem {
                    logger.warning("\(sentence); trying again every second")
                    report(.error, error: sentence)
                    lastProblem = sentence
                }
                guard stop.sleep(seconds: 1) else { return }
                continue
            }
            report(.ready)
            play(source, decoder: decoder, filter: &filter)
            // Played to the end, not looping: a camera looking at nothing until stopped.
            while stop.sleep(seconds: 3600) {}
        }
    }

    /// Plays the frames at `fps` (a frame that took longer to decode delays the next, never
    /// bunches them), until the end or, looping, until stopped.
    private func play(_ source: FrameSource, decoder: FrameDecoder, filter: inout SightingFilter) {
        let period = Duration.seconds(1 / spec.fps)
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
                let time = ContinuousClock.now - start
                for code in filter.frame(decoder.decode(frame), at: time) {
                    events.yield(.read(code.rawRead(device: id, driver: FileCameraDriver.driverName)))
                }
            } catch {
                framesThisPass += 1
                // A bad frame takes its turn (a folder of bad files does not spin), and is
                // said once, not at every pass of a loop.
                if badFrames.insert("\(error)").inserted { logger.warning("skipped a frame: \(error)") }
            }
            due = max(due + period, ContinuousClock.now)
            // Never negative: poll takes a negative timeout as "forever".
            let wait = max(0, Double((due - ContinuousClock.now) / .microseconds(1)) / 1_000_000)
            guard stop.sleep(seconds: wait) else { return }
        }
    }

    private func report(_ state: Device.State, error: String? = nil) {
        var device = Device(id: id, driver: FileCameraDriver.driverName, kind: .qr, name: "file camera \(spec.path)", path: spec.path)
        device.state = state
        device.error = error
        events.yield(.device(device))
    }
}
