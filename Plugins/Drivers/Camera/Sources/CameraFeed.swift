import Logging
import ScanBridgeCore
import ScanBridgeModel

/// What every camera does with its frames, whatever they come from (files, V4L2): each
/// frame that differs from the last decoded one decoded (`StillSceneGate`, `FrameDecoder`),
/// the codes that are new to the view (`SightingFilter`) yielded as `qr` reads, and the
/// camera's state reported to the registry. Confined to the
/// camera's thread (the decoder is not thread-safe).
final class CameraFeed {
    let id: String
    let driver: String
    /// The device's name in `devices.list` (a V4L2 camera's card name once it is open).
    var name: String
    let path: String
    let logger: Logger
    private let events: AsyncStream<DriverEvent>.Continuation
    private let decoder: FrameDecoder
    private var filter: SightingFilter
    private var gate = StillSceneGate()
    /// The codes of the last decoded frame: what a skipped frame, alike to it, holds.
    private var inView: [DecodedCode] = []
    private let start = ContinuousClock.now
    /// The sentence of the last `error` reported, so a problem that lasts is said once.
    private var lastProblem: String?
    /// Frames the decoder process ended or hung on, told to the log at most every 10 s.
    private var undecoded = SkippedFrames()

    init(
        id: String, driver: String, name: String, path: String, settings: CameraSettings,
        events: AsyncStream<DriverEvent>.Continuation, logger: Logger
    ) {
        self.id = id
        self.driver = driver
        self.name = name
        self.path = path
        self.events = events
        var logger = logger
        logger[metadataKey: "device.id"] = "\(id)"
        self.logger = logger
        decoder = FrameDecoder(symbologies: settings.symbologies)
        filter = SightingFilter(outOfView: settings.outOfView)
    }

    /// Decodes a frame seen now (unless it is alike to the last decoded one); each code new to
    /// the view is one read.
    func show(_ frame: GrayFrame) {
        let time = ContinuousClock.now - start
        if gate.shouldDecode(frame, at: time) { inView = decode(frame, at: time) }
        for code in filter.frame(inView, at: time) {
            events.yield(.read(code.rawRead(device: id, driver: driver)))
        }
    }

    /// The frame's codes; none when the decoder failed on it. A decoder that cannot start at
    /// all makes the camera `error` until it can.
    private func decode(_ frame: GrayFrame, at time: Duration) -> [DecodedCode] {
        do throws(DecoderFailure) {
            let codes = try decoder.decode(frame)
            if lastProblem != nil { ready() }
            return codes
        } catch .cannotStart(let sentence) {
            problem(sentence)
        } catch {
            if let warning = undecoded.skipped("\(error)", at: time) { logger.warning("\(warning)") }
        }
        return []
    }

    func ready() {
        lastProblem = nil
        report(.ready)
    }

    /// The camera cannot be used now (`error`, or `busy` while another program has it, with
    /// the sentence); said once while it lasts, as it is tried again every second.
    func problem(_ sentence: String, state: Device.State = .error) {
        guard sentence != lastProblem else { return }
        logger.warning("\(sentence); trying again every second")
        report(state, error: sentence)
        lastProblem = sentence
    }

    func gone() {
        lastProblem = nil
        events.yield(.gone(deviceID: id))
    }

    private func report(_ state: Device.State, error: String? = nil) {
        var device = Device(id: id, driver: driver, kind: .qr, name: name, path: path)
        device.state = state
        device.error = error
        events.yield(.device(device))
    }
}
