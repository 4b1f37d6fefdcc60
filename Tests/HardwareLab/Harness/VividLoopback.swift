import Foundation

/// vivid's video loopback in the guest: a frame written to its output node comes back on
/// its capture node byte for byte (S-Video output 0 → input 2, NTSC, 720x480, `loop_video=1`,
/// `osd_text_mode=2` hiding the overlay text). That is how a test shows a QR code to a real
/// V4L2 capture path. vivid loops only while both nodes have the same pixel format and size:
/// `format` is the one a capturing program will choose (YUYV, or GREY, which the daemon's
/// V4L2 driver prefers). Uses `v4l2-ctl` (Debian package v4l-utils).
struct VividLoopback: Sendable {
    let guest: Guest
    let capture: String
    let output: String
    /// `YUYV` (two bytes a pixel) or `GREY` (one).
    let format: String

    static let width = 720
    static let height = 480
    var frameBytes: Int { Self.width * Self.height * (format == "GREY" ? 1 : 2) }

    /// Feeds `frame` (raw 720x480 in `format`) to the output over and over and captures one
    /// frame back, after vivid has had time to loop it.
    func loop(_ frame: Data, name: String = "frame") async throws -> Data {
        try await feed(frame, name: name, frames: 600)
        try await guest.run(
            "vivid: capture \(name) back",
            """
            v4l2-ctl -d \(capture) --stream-mmap --stream-skip=8 --stream-count=1 --stream-to=/lab/\(name)-captured.yuv
            """, timeout: .seconds(90))
        try await stopFeeding()
        return try Data(contentsOf: guest.share.appendingPathComponent("\(name)-captured.yuv"))
    }

    /// Feeds `frame` to the output over and over (`frames` times, or until `stopFeeding()`),
    /// in the background; returns once the feeder streams.
    func feed(_ frame: Data, name: String, frames: Int? = nil) async throws {
        guard frame.count == frameBytes else {
            throw LabFailure(
                step: "vivid: feed \(name)", reason: "a \(format) frame is \(frameBytes) bytes, this one \(frame.count)")
        }
        try frame.write(to: guest.share.appendingPathComponent("\(name).yuv"))
        try await guest.run(
            "vivid: feed \(name)",
            """
            nohup v4l2-ctl -d \(output) --stream-out-mmap --stream-from=/lab/\(name).yuv --stream-loop \
                \(frames.map { "--stream-count=\($0)" } ?? "") >/tmp/\(name)-feeder.out 2>&1 &
            echo $! >/tmp/vivid-feeder.pid
            # Capture only once the feeder is streaming (it prints a '>' a frame): on a slow
            # machine the first frames are still vivid's own test pattern.
            i=0; until [ "$(tr -cd '>' </tmp/\(name)-feeder.out | wc -c)" -ge 10 ] || [ $i -gt 300 ]; do i=$((i + 1)); nap 0.1; done
            [ $i -le 300 ] || { echo "the feeder does not stream:"; cat /tmp/\(name)-feeder.out; exit 1; }
            """, timeout: .seconds(90))
    }

    func stopFeeding() async throws {
        try await guest.run(
            "vivid: stop feeding",
            """
            pid=$(cat /tmp/vivid-feeder.pid 2>/dev/null) && kill $pid 2>/dev/null
            i=0; while [ -n "$pid" ] && kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); nap 0.1; done
            rm -f /tmp/vivid-feeder.pid
            """)
    }

    /// `frame`'s pixels (8-bit luma, `width` a row) in the middle of a white frame in `format`,
    /// made as large as it fits by repeating each pixel.
    func frame(showing luma: [UInt8], width: Int, height: Int) -> Data {
        let scale = max(1, min(Self.width / width, Self.height / height))
        let left = (Self.width - width * scale) / 2
        let top = (Self.height - height * scale) / 2
        let bytesPerPixel = format == "GREY" ? 1 : 2
        var bytes = [UInt8](repeating: 128, count: frameBytes)  // U and V: grey
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let (row, column) = ((y - top) / scale, (x - left) / scale)
                let inside = y >= top && x >= left && row < height && column < width
                bytes[(y * Self.width + x) * bytesPerPixel] = inside ? luma[row * width + column] : 255
            }
        }
        return Data(bytes)
    }
}

extension Guest {
    /// Loads vivid with one capture and one output node and sets them up as a loopback in `format`.
    func startVividLoopback(format: String = "YUYV") async throws -> VividLoopback {
        try await run(
            "vivid: find v4l2-ctl",
            """
            command -v v4l2-ctl >/dev/null || { echo "no v4l2-ctl on the host (Debian package v4l-utils)"; exit 1; }
            """)
        try await modprobe("vivid", "n_devs=1", "node_types=0x101")
        let nodes = try await run(
            "vivid: find its nodes",
            """
            i=0; until [ -e /sys/class/video4linux/video1 ] || [ $i -gt 50 ]; do i=$((i + 1)); nap 0.1; done
            for node in /sys/class/video4linux/video*; do echo "$(cat $node/name) /dev/${node##*/}"; done
            """)
        func node(_ suffix: String) throws -> String {
            guard
                let line = nodes.split(separator: "\n").first(where: { $0.split(separator: " ").first?.hasSuffix(suffix) == true }
                )
            else {
                throw LabFailure(step: "vivid: find the \(suffix) node", reason: "vivid made \(nodes)")
            }
            return String(line.split(separator: " ").last!)
        }
        let loop = VividLoopback(guest: self, capture: try node("vid-cap"), output: try node("vid-out"), format: format)
        let size = "width=\(VividLoopback.width),height=\(VividLoopback.height),pixelformat=\(format)"
        try await run(
            "vivid: set up the loopback",
            """
            set -e
            # The nodes appear before udev has set them up; wait until they open.
            i=0; until v4l2-ctl -d \(loop.capture) --get-input >/dev/null 2>&1 || [ $i -gt 50 ]; do i=$((i + 1)); nap 0.1; done
            v4l2-ctl -d \(loop.output) --set-output=0 --set-standard=ntsc --set-fmt-video-out=\(size)
            v4l2-ctl -d \(loop.capture) --set-input=2 --set-standard=ntsc --set-fmt-video=\(size)
            v4l2-ctl -d \(loop.capture) --set-ctrl=loop_video=1,osd_text_mode=2
            """)
        return loop
    }
}
