/// The pixel formats a V4L2 camera is read in, best first: GREY is the luma as is, YUYV
/// has it in every other byte, MJPEG must be decoded (libjpeg-turbo, to grayscale). Any
/// other format (RGB, NV12, H.264…) is not read.
package enum V4L2PixelFormat: String, Sendable, CaseIterable {
    case grey = "GREY"
    case yuyv = "YUYV"
    case mjpeg = "MJPG"

    /// The fourcc V4L2 names the format by.
    package var fourcc: UInt32 { FourCC.code(rawValue) }

    /// `JPEG`: the same frames as MJPG under another name, from some cameras.
    static let jpeg = FourCC.code("JPEG")

    /// The best format of those a camera offers (`VIDIOC_ENUM_FMT`), nil when it offers none
    /// of them.
    package static func choose(offered: [UInt32]) -> V4L2PixelFormat? {
        allCases.first { format in offered.contains(format.fourcc) || (format == .mjpeg && offered.contains(jpeg)) }
    }

    /// The format of a fourcc (`JPEG` is MJPEG), nil for one not read.
    package init?(fourcc: UInt32) {
        if fourcc == Self.jpeg {
            self = .mjpeg
            return
        }
        guard let format = Self.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = format
    }

    /// The sentence for a camera that offers nothing this driver reads, naming what it offers.
    package static func noneSupported(offered: [UInt32], path: String) -> String {
        let wanted = allCases.map(\.rawValue).joined(separator: ", ")
        guard !offered.isEmpty else { return "\(path) offers no video capture format (this driver reads \(wanted))" }
        return
            "\(path) offers \(offered.map(FourCC.name).joined(separator: ", ")), none of the formats this driver reads (\(wanted))"
    }
}
