import DriverKit
import Foundation
import Glibc
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// One V4L2 camera's life on a thread of its own: open and start streaming (`V4L2Stream`),
/// report `ready`, then take every frame the camera fills and give its buffer straight back,
/// decoding at most `fps` frames a second (the newest one each time) through the camera
/// feed every camera shares. `poll` waits for a frame beside the stop signal, so stopping is
/// seen at once; the node is non-blocking, so no ioctl ever waits.
///
/// An unplug (ENODEV, EIO) makes the camera `gone`, its buffers unmapped and its node
/// closed; it stays `gone` while its node is missing or answers ENODEV, and is opened again
/// when the node works again (a camera whose USB link failed and recovered, vivid's
/// reconnect). A discovered camera's loop is ended by discovery when its node goes away,
/// and a new one started when it is back. A node that cannot be used is `error` with the
/// reason, tried again every second.
final class V4L2CaptureLoop: DeviceLoop, @unchecked Sendable {
    // Confined to the loop's thread once started, apart from `stop` (Sendable).
    let spec: V4L2CameraSpec
    let stop = StopSignal()
    private let feed: CameraFeed
    private var skipped = SkippedFrames()
    private let start = ContinuousClock.now

    /// A camera with no frame for this long is said to be silent, once.
    static let silence = Duration.seconds(5)

    init(spec: V4L2CameraSpec, id: String, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.spec = spec
        feed = CameraFeed(
            id: id, driver: V4L2Driver.driverName, name: "V4L2 camera \(spec.path)", path: spec.path,
            settings: spec.camera, events: events, logger: logger)
    }

    var id: String { feed.id }

    private enum Ending {
        case stopped, unplugged
        case failed(String)
    }

    func run() {
        if let failure = stop.failure {
            feed.problem(failure)
            return
        }
        var unplugged = false
        while !stop.isStopped {
            let stream: V4L2Stream
            do {
                stream = try V4L2Stream(path: spec.path, width: spec.width, height: spec.height)
            } catch {
                if error.declines {
                    feed.logger.debug("\(error): left alone")
                    return
                }
                if !(unplugged && error.isMissing) {  // still unplugged: it stays `gone`, quietly
                    feed.problem(error.sentence, state: error.isBusy ? .busy : .error)
                }
                guard stop.sleep(seconds: 1) else { return }
                continue
            }
            // Stopped while opening (discovery saw the node go): no `ready` after its `gone`.
            guard !stop.isStopped else { return }
            if !stream.card.isEmpty { feed.name = stream.card }
            feed.logger.info(
                "capturing \(stream.format.rawValue) \(stream.width)×\(stream.height) from \(spec.path), decoding up to \(spec.camera.fps) frames a second"
            )
            feed.ready()
            unplugged = false
            let ending = capture(stream)
            stream.close()
            switch ending {
            case .stopped:
                return
            case .unplugged:
                feed.logger.info("unplugged")
                feed.gone()
                unplugged = true
                guard stop.sleep(seconds: 0.2) else { return }
            case .failed(let sentence):
                feed.problem(sentence)
                guard stop.sleep(seconds: 1) else { return }
            }
        }
    }

    /// Frames until stopped or the camera fails.
    private func capture(_ stream: V4L2Stream) -> Ending {
        let period = Duration.seconds(1 / spec.camera.fps)
        let jpeg = stream.format == .mjpeg ? MJPEGDecoder() : nil
        var due = ContinuousClock.now
        var lastFrame = ContinuousClock.now
        var saidSilent = false
        var descriptors = [
            pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0),
        ]
        var backoff = PollBackoff()
        while true {
            // A deadline, though the stop signal wakes poll too: a silent camera is noticed.
            let ready = poll(&descriptors, 2, 1000)
            if stop.isStopped { return .stopped }
            if ready < 0, errno != EINTR {
                // poll itself failing: back off instead of spinning, and give up when it persists.
                let sentence = "poll on \(spec.path) failed: \(String(cString: strerror(errno)))"
                guard !backoff.persistent else { return .failed(sentence) }
                guard stop.sleep(seconds: backoff.failed()) else { return .stopped }
                continue
            }
            guard ready > 0 else {
                if ready == 0, !saidSilent, ContinuousClock.now - lastFrame > Self.silence {
                    feed.logger.warning("no frame from \(spec.path) for \(Self.silence); waiting")
                    saidSilent = true
                }
                continue  // a timeout, or EINTR
            }
            do throws(V4L2Error) {
                // The newest frame is the one worth decoding: older ones go straight back.
                var newest: (index: Int, bytes: UnsafeRawBufferPointer, damaged: Bool)?
                while let buffer = try stream.dequeue() {
                    if let older = newest { try stream.requeue(older.index) }
                    newest = buffer
                }
                guard let frame = newest else {
                    // POLLERR (or POLLNVAL) with no frame and no errno to tell: not streaming any
                    // more. Do not spin: back off, and open the camera again when it persists.
                    if descriptors[0].revents & Int16(POLLERR | POLLNVAL) != 0 {
                        guard !backoff.persistent else { return .failed("\(spec.path) is in error but gives no frame") }
                        guard stop.sleep(seconds: backoff.failed()) else { return .stopped }
                    }
                    continue
                }
                backoff.succeeded()
                lastFrame = ContinuousClock.now
                saidSilent = false
                var gray: GrayFrame?
                if frame.damaged {
                    skip("the camera flagged the frame as damaged")
                } else if lastFrame >= due {
                    gray = luma(of: frame.bytes, from: stream, jpeg: jpeg)
                    due = max(due + period, lastFrame)
                }
                // The buffer goes back before decoding: the camera keeps filling while the decoder works.
                try stream.requeue(frame.index)
                if let gray { feed.show(gray) }
            } catch {
                return error.isUnplug ? .unplugged : .failed(error.sentence)
            }
        }
    }

    /// The frame in a filled buffer as grayscale; nil (and said) when it cannot be read.
    private func luma(of bytes: UnsafeRawBufferPointer, from stream: V4L2Stream, jpeg: MJPEGDecoder?) -> GrayFrame? {
        do throws(FrameError) {
            if let jpeg { return try jpeg.gray(bytes) }
            return try V4L2FrameConversion.gray(
                bytes, format: stream.format, width: stream.width, height: stream.height,
                bytesPerLine: stream.bytesPerLine)
        } catch {
            skip("\(error)")
            return nil
        }
    }

    private func skip(_ reason: String) {
        if let warning = skipped.skipped(reason, at: ContinuousClock.now - start) { feed.logger.warning("\(warning)") }
    }
}
