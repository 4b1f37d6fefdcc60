import Foundation
import Testing

/// The module edges, pinned: which first-party modules each module of the product, the test
/// kit and the benchmarks may import, checked against every import in its folder, and the
/// rules the edges keep (docs/architecture.md, Code map). A new import of a first-party module
/// fails here until it is added below, where the rules then judge it: the core knows no
/// device, socket or database; no driver imports another; no handler imports a driver; the
/// configuration imports no server, store or driver; nothing of the product imports the test
/// kit or the benchmarks. Test targets may import anything.
@Suite("Module edges")
struct ModuleEdgesTests {
    /// Each module's folder and the first-party modules it may import.
    static let modules: [String: (folder: String, imports: Set<String>)] = [
        "CameraCorpus": ("Plugins/Drivers/Camera/Corpus", ["CameraDriver", "ScanBridgeTesting"]),
        "CameraDriver": (
            "Plugins/Drivers/Camera/Sources",
            [
                "CFrameDecoding", "CPNG", "CTurboJPEG", "CV4L2", "DriverKit", "ScanBridgeCodes", "ScanBridgeCore",
                "ScanBridgeModel",
            ]
        ),
        "CardLink": (
            "Plugins/Handlers/CardLink/Sources", ["ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel", "ScanBridgeSUN"]
        ),
        "DriverKit": ("Sources/DriverKit", ["CUdev", "CXKBCommon", "ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]),
        "EvdevDriver": (
            "Plugins/Drivers/Evdev/Sources", ["CEvdev", "DriverKit", "ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]
        ),
        "HIDPOSDriver": ("Plugins/Drivers/HIDPOS/Sources", ["CHidraw", "DriverKit", "ScanBridgeCore", "ScanBridgeModel"]),
        "MockDriver": ("Plugins/Drivers/Mock/Sources", ["ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]),
        "OrderLookup": ("Plugins/Handlers/OrderLookup/Sources", ["ScanBridgeCore", "ScanBridgeModel"]),
        "PCSCDriver": (
            "Plugins/Drivers/PCSC/Sources", ["CPCSCLite", "PCSCKit", "ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]
        ),
        "PCSCKit": ("Sources/PCSCKit", ["CPCSCLite"]),
        "ProductLookup": ("Plugins/Handlers/ProductLookup/Sources", ["ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]),
        "ReferenceDecoder": ("Benchmarks/ReferenceDecoder", ["CDmtx", "CZBar", "CameraDriver"]),
        "scanbridge": (
            "Sources/scanbridge", ["PCSCKit", "ScanBridgeClient", "ScanBridgeCodes", "ScanBridgeModel", "ScanBridgeRPC"]
        ),
        "scanbridge-bench": (
            "Benchmarks/scanbridge-bench",
            [
                "CameraCorpus", "CameraDriver", "DriverKit", "ProductLookup", "ReferenceDecoder", "ScanBridgeClient",
                "ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel", "ScanBridgeStore", "ScanBridgeTesting",
            ]
        ),
        "scanbridge-zxing": ("Plugins/Drivers/Camera/Decoder", []),
        "ScanBridgeClient": ("Sources/ScanBridgeClient", ["ScanBridgeModel", "ScanBridgeRPC"]),
        "ScanBridgeCodes": ("Sources/ScanBridgeCodes", []),
        "ScanBridgeConfig": ("Sources/ScanBridgeConfig", ["ScanBridgeCodes"]),
        "ScanBridgeCore": ("Sources/ScanBridgeCore", ["ScanBridgeCodes", "ScanBridgeModel"]),
        "scanbridged": (
            "Sources/scanbridged",
            [
                "CHeap", "CameraDriver", "CardLink", "DriverKit", "EvdevDriver", "HIDPOSDriver", "MockDriver", "OrderLookup",
                "PCSCDriver", "ProductLookup", "ScanBridgeCodes", "ScanBridgeConfig", "ScanBridgeCore", "ScanBridgeGateway",
                "ScanBridgeMetrics", "ScanBridgeModel", "ScanBridgeRPC", "ScanBridgeServer", "ScanBridgeService",
                "ScanBridgeSharedStore", "ScanBridgeStore", "SerialDriver", "USBDriver",
            ]
        ),
        "ScanBridgeGateway": (
            "Sources/ScanBridgeGateway",
            ["ScanBridgeCore", "ScanBridgeModel", "ScanBridgeRPC", "ScanBridgeServer", "ScanBridgeService"]
        ),
        "ScanBridgeMetrics": ("Sources/ScanBridgeMetrics", ["ScanBridgeCore"]),
        "ScanBridgeModel": ("Sources/ScanBridgeModel", ["ScanBridgeCodes"]),
        "ScanBridgeRPC": ("Sources/ScanBridgeRPC", ["ScanBridgeModel"]),
        "ScanBridgeServer": (
            "Sources/ScanBridgeServer",
            [
                "CLibCrypto", "CSocketBind", "ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel", "ScanBridgeRPC",
                "ScanBridgeService",
            ]
        ),
        "ScanBridgeService": ("Sources/ScanBridgeService", ["ScanBridgeModel", "ScanBridgeRPC"]),
        "ScanBridgeSharedStore": ("Sources/ScanBridgeSharedStore", ["ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]),
        "ScanBridgeStore": ("Sources/ScanBridgeStore", ["ScanBridgeCodes", "ScanBridgeCore", "ScanBridgeModel"]),
        "ScanBridgeSUN": ("Sources/ScanBridgeSUN", ["CLibCrypto", "ScanBridgeCodes"]),
        "ScanBridgeTesting": ("Sources/ScanBridgeTesting", ["CTestSupport", "ScanBridgeClient", "ScanBridgeModel"]),
        "SerialDriver": ("Plugins/Drivers/Serial/Sources", ["DriverKit", "ScanBridgeCore", "ScanBridgeModel"]),
        "USBDriver": ("Plugins/Drivers/USB/Sources", ["CLibUSB", "DriverKit", "ScanBridgeCore", "ScanBridgeModel"]),
    ]

    struct Edge: Hashable, CustomStringConvertible {
        let from: String
        let to: String
        init(_ from: String, _ to: String) {
            self.from = from
            self.to = to
        }
        var description: String { "\(from) → \(to)" }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func isDriver(_ module: String) -> Bool {
        modules[module]?.folder.hasPrefix("Plugins/Drivers/") == true && module.hasSuffix("Driver")
    }
    static func isHandler(_ module: String) -> Bool { modules[module]?.folder.hasPrefix("Plugins/Handlers/") == true }
    static let testSupport: Set<String> = ["ScanBridgeTesting", "CameraCorpus", "scanbridge-bench", "ReferenceDecoder"]
    static let infrastructure: Set<String> = [
        "ScanBridgeServer", "ScanBridgeGateway", "ScanBridgeService", "ScanBridgeStore", "ScanBridgeSharedStore",
        "ScanBridgeMetrics", "ScanBridgeConfig",
    ]

    /// The first-party modules a folder's Swift files import.
    static func imports(in folder: String) throws -> Set<String> {
        let known = Set(modules.keys).union([
            "CLibCrypto", "CUdev", "CXKBCommon", "CLibUSB", "CPNG", "CTurboJPEG", "CZBar", "CDmtx",
        ])
        var found: Set<String> = []
        let base = root.appendingPathComponent(folder)
        let files = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter {
                    !$0.hasPrefix("@") && !["package", "public", "internal"].contains($0)
                }
                if words.count == 2, words[0] == "import", known.contains(String(words[1])) { found.insert(String(words[1])) }
            }
        }
        return found
    }

    @Test func everyModuleImportsOnlyWhatItsEdgesAllow() throws {
        for (module, entry) in Self.modules {
            let extra = try Self.imports(in: entry.folder).subtracting(entry.imports).subtracting([module])
            #expect(
                extra.isEmpty, "\(module) imports \(extra.sorted()): add the edges to ModuleEdgesTests if the rules allow them")
        }
    }

    @Test func everySourceFolderIsAModuleHere() throws {
        let listed = Set(Self.modules.values.map(\.folder))
        var folders: [String] = []
        for parent in ["Sources", "Plugins/Drivers", "Plugins/Handlers"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(parent).path) {
                let folder = parent == "Sources" ? "Sources/\(name)" : "\(parent)/\(name)/Sources"
                let swift = try FileManager.default.subpathsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)
                    .contains { $0.hasSuffix(".swift") }
                if swift { folders.append(folder) }
            }
        }
        for folder in folders {
            #expect(listed.contains(folder), "\(folder) holds Swift code but is no module of ModuleEdgesTests")
        }
    }

    @Test func theEdgesKeepTheRules() {
        var broken: [String] = []
        for (module, entry) in Self.modules {
            for target in entry.imports {
                let edge = Edge(module, target)
                var why: String?
                if module == "ScanBridgeCore",
                    Self.isDriver(target) || Self.isHandler(target) || Self.infrastructure.contains(target)
                {
                    why = "the core knows no device, socket or database"
                } else if Self.isDriver(module), Self.isDriver(target) {
                    why = "no driver imports another"
                } else if Self.isHandler(module), Self.isDriver(target) || Self.isHandler(target) {
                    why = "a handler imports no driver and no other handler"
                } else if module == "ScanBridgeConfig", Self.isDriver(target) || Self.infrastructure.contains(target) {
                    why = "the configuration imports no server, store or driver: each module decodes its own settings"
                } else if !Self.testSupport.contains(module), Self.testSupport.contains(target) {
                    why = "nothing of the product imports the test kit or the benchmarks"
                } else if module != "scanbridged", !Self.testSupport.contains(module), !Self.isDriver(module),
                    Self.isDriver(target) || Self.isHandler(target)
                {
                    why = "only the daemon wires drivers and handlers in"
                } else if ["ScanBridgeServer", "ScanBridgeGateway"].contains(module),
                    ["ScanBridgeStore", "ScanBridgeSharedStore"].contains(target)
                {
                    why = "the servers reach the stores through the core's repository protocols"
                }
                if let why { broken.append("\(edge): \(why)") }
            }
        }
        #expect(broken.isEmpty, "\(broken.sorted().joined(separator: "\n"))")
    }
}
