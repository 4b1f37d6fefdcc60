import Testing

@testable import CameraDriver

/// Which of the formats a camera offers is read: GREY, then YUYV, then MJPEG.
struct V4L2PixelFormatTests {
    static func offered(_ names: String...) -> [UInt32] { names.map(FourCC.code) }

    @Test func theBestOfferedFormatIsChosen() {
        let cases: [([UInt32], V4L2PixelFormat?)] = [
            (Self.offered("YUYV", "GREY", "MJPG"), .grey),
            (Self.offered("MJPG", "YUYV"), .yuyv),
            (Self.offered("RGB3", "MJPG", "NV12"), .mjpeg),
            (Self.offered("JPEG"), .mjpeg),  // MJPEG under its other name
            (Self.offered("RGB3", "NV12", "H264"), nil),
            ([], nil),
        ]
        for (offered, chosen) in cases {
            #expect(V4L2PixelFormat.choose(offered: offered) == chosen, "\(offered.map(FourCC.name))")
        }
    }

    @Test func aCameraWithNoneOfThemIsToldWhatItOffers() {
        #expect(
            V4L2PixelFormat.noneSupported(offered: Self.offered("RGB3", "NV12"), path: "/dev/video0")
                == "/dev/video0 offers RGB3, NV12, none of the formats this driver reads (GREY, YUYV, MJPG)")
        #expect(
            V4L2PixelFormat.noneSupported(offered: [], path: "/dev/video4")
                == "/dev/video4 offers no video capture format (this driver reads GREY, YUYV, MJPG)")
    }

    @Test func fourccsReadBack() {
        #expect(V4L2PixelFormat.yuyv.fourcc == 0x5659_5559 && V4L2PixelFormat.grey.fourcc == 0x5945_5247)
        #expect(V4L2PixelFormat.mjpeg.fourcc == 0x4750_4A4D)
        #expect(FourCC.name(FourCC.code("Y8  ")) == "Y8" && FourCC.name(0x0000_0001) == "????")
        #expect(V4L2PixelFormat(fourcc: FourCC.code("JPEG")) == .mjpeg && V4L2PixelFormat(fourcc: FourCC.code("RGB3")) == nil)
    }
}
