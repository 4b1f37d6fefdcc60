import Foundation

/// vivid's video loopback in the guest: a frame written to its output node comes back on
/// its capture node byte for byte (S-Video output 0 → input 2, NTSC, 720x480 YUYV,
/// `loop_video=1`, `osd_text_mode=2` hiding the overlay text). That is how a test shows a
/// QR code to a real V4L2 capture path. Uses `v4l2-ctl` (Debian package v4l-utils).
struct VividLoopback: Sendable {
    let guest: Guest
    let capture: String
    let output: String

    static let width = 720
    static let height = 480
    /// YUYV: two bytes a pixel.
    static let frameBytes = width * height * 2

    /// Feeds `frame` (raw 720x480 YUYV) to the output over and over and captures one frame
    /// back, after vivid has had time to loop it.
    func loop(_ frame: Data, name: String = "frame") async throws -> Data {
        guard frame.count == Self.frameBytes else {
            throw LabFailure(step: "vivid: feed \(name)", reason: "a frame is \(Self.frameBytes) bytes, this one \(frame.count)")
        }
        try frame.write(to: guest.share.appendingPathComponent("\(name).yuv"))
        try await guest.run("vivid: feed \(name) and capture it back", """
            v4l2-ctl -d \(output) --stream-out-mmap --stream-from=/lab/\(name).yuv --stream-loop --stream-count=600 \
                >/tmp/\(name)-feeder.out 2>&1 &
            feeder=$!
            # Capture only once the feeder is streaming (it prints a '>' a frame): on a slow
            # machine the first frames are still vivid's own test pattern.
            i=0; until [ "$(tr -cd '>' </tmp/\(name)-feeder.out | wc -c)" -ge 10 ] || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
            v4l2-ctl -d \(capture) --stream-mmap --stream-skip=8 --stream-count=1 --stream-to=/lab/\(name)-captured.yuv
            status=$?
            kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
            exit $status
            """, timeout: .seconds(90))
        return try Data(contentsOf: guest.share.appendingPathComponent("\(name)-captured.yuv"))
    }
}

extension Guest {
    /// Loads vivid with one capture and one output node and sets them up as a loopback.
    func startVividLoopback() async throws -> VividLoopback {
        try await run("vivid: find v4l2-ctl", """
            command -v v4l2-ctl >/dev/null || { echo "no v4l2-ctl on the host (Debian package v4l-utils)"; exit 1; }
            """)
        try await modprobe("vivid", "n_devs=1", "node_types=0x101")
        let nodes = try await run("vivid: find its nodes", """
            i=0; until [ -e /sys/class/video4linux/video1 ] || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
            for node in /sys/class/video4linux/video*; do echo "$(cat $node/name) /dev/${node##*/}"; done
            """)
        func node(_ suffix: String) throws -> String {
            guard let line = nodes.split(separator: "\n").first(where: { $0.split(separator: " ").first?.hasSuffix(suffix) == true }) else {
                throw LabFailure(step: "vivid: find the \(suffix) node", reason: "vivid made \(nodes)")
            }
            return String(line.split(separator: " ").last!)
        }
        let loop = VividLoopback(guest: self, capture: try node("vid-cap"), output: try node("vid-out"))
        let format = "width=\(VividLoopback.width),height=\(VividLoopback.height),pixelformat=YUYV"
        try await run("vivid: set up the loopback", """
            set -e
            v4l2-ctl -d \(loop.output) --set-output=0 --set-standard=ntsc --set-fmt-video-out=\(format)
            v4l2-ctl -d \(loop.capture) --set-input=2 --set-standard=ntsc --set-fmt-video=\(format)
            v4l2-ctl -d \(loop.capture) --set-ctrl=loop_video=1,osd_text_mode=2
            """)
        return loop
    }
}
