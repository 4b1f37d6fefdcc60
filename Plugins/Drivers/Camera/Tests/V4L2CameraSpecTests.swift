import Testing

@testable import CameraDriver

/// `--device v4l2:PATH,…` settings: the size asked for, and every camera's settings, parsed
/// by the code the file camera uses.
struct V4L2CameraSpecTests {
    @Test func defaultsAre720pAtTenFramesASecond() throws {
        let spec = try V4L2CameraSpec(path: "/dev/video0")
        #expect(spec.width == 1280 && spec.height == 720)
        #expect(spec.camera == (try CameraSettings(CameraSettings.read([:], own: [], camera: "a camera"))))
        #expect(spec.camera.fps == 10 && spec.camera.outOfView == .seconds(1) && spec.camera.symbologies == .all)
    }

    @Test func everySettingIsTaken() throws {
        let spec = try V4L2CameraSpec(
            path: "/dev/video2",
            settings: [
                "width": "640", "height": "480", "fps": "5", "symbologies": "qr+data-matrix", "out-of-view": "2500",
                "datamatrix-ms": "40",
            ])
        #expect(spec.width == 640 && spec.height == 480 && spec.camera.fps == 5)
        #expect(spec.camera.symbologies == (try CameraSymbologies(parsing: "qr+data-matrix")))
        // `datamatrix-ms` was the old Data Matrix decoder's time cap: taken and checked, so older settings start.
        #expect(spec.camera.outOfView == .milliseconds(2500))
    }

    @Test func badSettingsAreRefusedWithTheirName() {
        let cases: [([String: String], String)] = [
            (["width": "0"], "width takes pixels from 16 to 8192, not '0'"),
            (["height": "tall"], "height takes pixels from 16 to 8192, not 'tall'"),
            (["fps": "500"], "fps takes 0.1 to 120, not '500'"),
            (["symbologies": "maxicode"], "symbology 'maxicode' is not decoded"),
            (["datamatrix-ms": "0"], "datamatrix-ms"),
            // `loop` is the file camera's: a live camera has no end to start again from.
            (
                ["loop": "yes"],
                "unknown setting 'loop' for a V4L2 camera (known: fps, symbologies, out-of-view, datamatrix-ms, width, height)"
            ),
        ]
        for (settings, sentence) in cases {
            #expect {
                try V4L2CameraSpec(path: "/dev/video0", settings: settings)
            } throws: { error in
                "\(error)".contains(sentence)
            }
        }
    }
}
