import Foundation

/// Barcode and QR images as PNG files, drawn by Debian's generators (qrencode, zint; see
/// scripts/deps.sh): what a camera would see of a printed label, for the camera driver's
/// tests and the demo.
package enum CodeImages {
    package struct GeneratorFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// zint's barcode types (`zint -t` lists them).
    package enum Kind: Sendable, CaseIterable {
        case qr
        case dataMatrix
        case gs1DataMatrix
        case aztec
        case pdf417
        case ean13
        case ean8
        case upcA
        case upcE
        case code128
        case gs1128
        case code39
        case code93
        case itf
        case codabar
        case dataBar
        case dataBarExpanded

        var zintType: String {
            switch self {
            case .qr: "58"
            case .dataMatrix, .gs1DataMatrix: "71"
            case .aztec: "92"
            case .pdf417: "55"
            case .ean13, .ean8: "13"
            case .upcA: "34"
            case .upcE: "37"
            case .code128: "20"
            case .gs1128: "16"
            case .code39: "8"
            case .code93: "25"
            case .itf: "3"
            case .codabar: "18"
            case .dataBar: "29"
            case .dataBarExpanded: "31"
            }
        }
    }

    /// A QR code of `text` drawn by qrencode, `moduleSize` pixels a module, with the
    /// standard 4-module quiet zone.
    package static func qr(_ text: String, to path: String, moduleSize: Int = 4) throws {
        try run("/usr/bin/qrencode", ["-o", path, "-s", "\(moduleSize)", "-m", "4", "--", text])
    }

    /// A QR code of arbitrary bytes (qrencode's 8-bit mode, read from a file).
    package static func binaryQR(_ bytes: [UInt8], to path: String, moduleSize: Int = 4) throws {
        let input = path + ".bin"
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        defer { try? FileManager.default.removeItem(atPath: input) }
        try run("/usr/bin/qrencode", ["-8", "-r", input, "-o", path, "-s", "\(moduleSize)", "-m", "4"])
    }

    /// A code drawn by zint; GS1 data is written with its application identifiers in
    /// brackets (`[01]09506000134352[17]251231`).
    package static func zint(_ kind: Kind, _ data: String, to path: String, scale: Int = 2) throws {
        // With the quiet zones a printed label has (zint draws none around a Data Matrix by default).
        var arguments = ["-b", kind.zintType, "--quietzones", "--scale=\(scale)", "-o", path, "-d", data]
        if kind == .gs1DataMatrix { arguments.insert("--gs1", at: 0) }
        try run("/usr/bin/zint", arguments)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw GeneratorFailed(description: "\(tool) is missing: run scripts/deps.sh")
        }
        // What it says goes to a file, not a pipe that could fill up and stall it.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "code-image-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let child = try Process.launch(URL(fileURLWithPath: tool), arguments: arguments, appendingTo: errors.path)
        let said = { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
        do {
            // These callers are synchronous (a frame drawn in a closure): the thread waits, as waitUntilExit would.
            try blockUntil("\(tool) to draw \(arguments.joined(separator: " "))", timeout: .seconds(30)) { child.hasEnded }
        } catch {
            kill(child.processIdentifier, SIGKILL)
            throw GeneratorFailed(description: "\(error): \(said())")
        }
        guard child.endStatus == 0 else {
            throw GeneratorFailed(description: "\(tool) \(arguments.joined(separator: " ")): \(said())")
        }
    }
}
