package import CameraDriver
import Foundation
package import ScanBridgeTesting

/// A code as a decoder must report it: the protocol's symbology and the content's text (GS
/// separators as U+001D).
package struct CorpusCode: Sendable, Hashable, CustomStringConvertible {
    package let symbology: String
    package let text: String

    package init(_ symbology: String, _ text: String) {
        self.symbology = symbology
        self.text = text
    }

    package init(_ code: DecodedCode) {
        self.init(code.symbology, code.text ?? "(binary)")
    }

    package var description: String { "\(symbology) \(text.replacingOccurrences(of: "\u{1D}", with: "<GS>"))" }
}

/// One frame of the corpus and what it holds (nothing, for a frame that must give nothing).
package struct CorpusCase: Sendable {
    package let name: String
    package let frame: GrayFrame
    package let holds: Set<CorpusCode>
    /// The same codes as another decoder may report them (zbar gives a Codabar's start and
    /// stop characters, and a UPC-E expanded to its UPC-A).
    package var alsoReadAs: [CorpusCode: CorpusCode] = [:]

    /// How a decoder did on this frame: whether it read every code the frame holds, and the
    /// codes it reported that the frame does not hold.
    package func score(_ reads: [DecodedCode]) -> (readAll: Bool, falsePositives: [CorpusCode]) {
        let found = Set(
            reads.map { code in
                let read = CorpusCode(code)
                return alsoReadAs.first { $0.value == read }?.key ?? read
            })
        return (found.isSuperset(of: holds), found.subtracting(holds).sorted { $0.description < $1.description })
    }
}

/// The frames a bench camera meets, drawn in the run by qrencode and zint: a label of every
/// symbology the camera reads, printed, then turned, scaled, out of focus, noisy and faded;
/// several labels in one frame; and frames that must give nothing (text, textures, a
/// keyboard, noise). The camera tests hold the decoder to it, and the camera benchmark
/// reports each decoder's read rate and false positives over it.
package enum CameraCorpus {
    /// A label of each symbology: how it is drawn, and what must be read from it.
    package struct Label: Sendable {
        package let kind: CodeImages.Kind
        package let data: String
        package let code: CorpusCode
        /// zint's pixels a module; QR codes are qrencode's, 4 pixels a module.
        package var scale = 2
        /// The code as zbar reports it, where that differs.
        package var zbarForm: CorpusCode?

        package func draw() throws -> GrayFrame {
            kind == .qr ? try CodeFrames.qr(data, moduleSize: 2 * scale) : try CodeFrames.zint(kind, data, scale: scale)
        }
    }

    package static let labels: [Label] = [
        Label(kind: .qr, data: "RO-2024-0042", code: CorpusCode("qr", "RO-2024-0042")),
        Label(kind: .dataMatrix, data: "SN 4711-A", code: CorpusCode("data-matrix", "SN 4711-A"), scale: 4),
        Label(
            kind: .gs1DataMatrix, data: "[01]09506000134352[10]ABC1[17]251231",
            code: CorpusCode("data-matrix", "0109506000134352" + "10ABC1\u{1D}17251231"), scale: 4),
        Label(kind: .aztec, data: "TICKET 2026-11-27 A17", code: CorpusCode("aztec", "TICKET 2026-11-27 A17"), scale: 4),
        Label(kind: .pdf417, data: "DOE^JOHN^1980-01-01", code: CorpusCode("pdf417", "DOE^JOHN^1980-01-01"), scale: 3),
        Label(kind: .ean13, data: "590123412345", code: CorpusCode("ean-13", "5901234123457")),
        Label(kind: .ean8, data: "9638507", code: CorpusCode("ean-8", "96385074")),
        Label(kind: .upcA, data: "03600029145", code: CorpusCode("upc-a", "036000291452")),
        Label(kind: .upcE, data: "0425261", code: CorpusCode("upc-e", "04252614"), zbarForm: CorpusCode("upc-a", "042100005264")),
        Label(kind: .code128, data: "RO-2024-0042", code: CorpusCode("code-128", "RO-2024-0042")),
        Label(
            kind: .gs1128, data: "[01]09506000134352[10]ABC1[21]XYZ",
            code: CorpusCode("gs1-128", "0109506000134352" + "10ABC1\u{1D}21XYZ")),
        Label(kind: .code39, data: "PART-4711", code: CorpusCode("code-39", "PART-4711")),
        Label(kind: .code93, data: "PART-4711", code: CorpusCode("code-93", "PART-4711")),
        Label(kind: .itf, data: "15400141288763", code: CorpusCode("itf", "15400141288763")),
        Label(kind: .codabar, data: "A40156B", code: CorpusCode("codabar", "40156"), zbarForm: CorpusCode("codabar", "A40156B")),
        Label(kind: .dataBar, data: "0950600013435", code: CorpusCode("databar", "0109506000134352")),
        Label(
            kind: .dataBarExpanded, data: "[01]09506000134352[10]ABC1",
            code: CorpusCode("databar", "0109506000134352" + "10ABC1")),
    ]

    /// What a camera does to a label, each on a white frame.
    package static let changes: [(name: String, change: @Sendable (GrayFrame) -> GrayFrame)] = [
        ("printed", { $0 }),
        ("turned 20°", { $0.rotated(by: 20) }),
        ("turned 90°", { $0.rotated(by: 90) }),
        ("scaled ×1.5", { $0.scaled(by: 1.5) }),
        ("out of focus", { $0.blurred(radius: 1) }),
        ("noisy ±30", { $0.noisy(amplitude: 30) }),
        ("faded", { $0.lowContrast() }),
    ]

    /// Every case: each label under each change, several labels in one frame, and the frames
    /// that must give nothing.
    package static func cases() throws -> [CorpusCase] {
        var cases: [CorpusCase] = []
        for label in labels {
            let printed = try label.draw()
            for (name, change) in changes {
                cases.append(
                    CorpusCase(
                        name: "\(label.kind) \(name)", frame: change(printed), holds: [label.code],
                        alsoReadAs: label.zbarForm.map { [label.code: $0] } ?? [:]))
            }
        }
        cases.append(try severalInOneFrame())
        cases += NoCodeScenes.all()
        return cases
    }

    /// Six labels of six symbologies on one 1280×720 frame, side by side with room between
    /// them, lightly noisy.
    static func severalInOneFrame() throws -> CorpusCase {
        let picked = labels.filter { [.qr, .dataMatrix, .aztec, .ean13, .code128, .pdf417].contains($0.kind) }
        var frame = GrayFrame.make(width: 1280, height: 720)
        var (x, y, rowHeight) = (20, 20, 0)
        for label in picked {
            let drawn = try label.draw()
            if x + drawn.width > frame.width { (x, y, rowHeight) = (20, y + rowHeight + 30, 0) }
            frame = frame.placing(drawn, x: x, y: y)
            (x, rowHeight) = (x + drawn.width + 30, max(rowHeight, drawn.height))
        }
        return CorpusCase(name: "six labels in one frame", frame: frame.noisy(amplitude: 5), holds: Set(picked.map(\.code)))
    }
}
