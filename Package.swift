// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // A file uses only the members of modules it imports itself, never one another file imported.
    .enableUpcomingFeature("MemberImportVisibility"),
    // An import is internal unless it says otherwise: a module's package or public API names
    // the modules it exposes (`package import`), and no other import leaks to its clients.
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]
let log: Target.Dependency = .product(name: "Logging", package: "swift-log")
// HTTP/1.1 and WebSocket framing: the gateway's, and the connection layer's writer for them.
let web: [Target.Dependency] = [
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOWebSocket", package: "swift-nio"),
]
let tls: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
// The gateway's TLS, and the shop's shared store, each build BoringSSL (swift-nio-ssl's, and
// postgres-nio's swift-crypto): a build without them (`--disable-default-traits`, `make demo`)
// takes half the time (docs/architecture.md, Design decisions).
let sharedStore = "SharedStore"
let gatewayTLS = "GatewayTLS"
let lifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
// Library code records through swift-metrics' API with a factory handed to it; only the daemon
// (and tests) know that Prometheus stores and renders what is recorded.
let metrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let atomics: Target.Dependency = .product(name: "Atomics", package: "swift-atomics")

// A release daemon is linked by lld with its functions laid out in the order a running daemon
// first calls them (Linker/README.md): the code it runs is then packed into few pages rather
// than spread over the whole binary (docs/architecture.md, Design decisions).
let linkOrder = String(#filePath.dropLast("Package.swift".count)) + "Linker/scanbridged.order"
// SCANBRIDGE_LINK_ORDER=off links in the usual order, for the benchmark that weighs the order.
let orderedLink: [LinkerSetting] =
    Context.environment["SCANBRIDGE_LINK_ORDER"] == "off"
    ? []
    : [
        .unsafeFlags(
            ["-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(linkOrder)", "-Xlinker", "--no-warn-symbol-ordering"],
            .when(configuration: .release))
    ]

let package = Package(
    name: "ScanBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "scanbridged", targets: ["scanbridged"]),
        .executable(name: "scanbridge", targets: ["scanbridge"]),
        .executable(name: "scanbridge-zxing", targets: ["scanbridge-zxing"]),
        .library(name: "ScanBridgeClient", targets: ["ScanBridgeClient"]),
    ],
    traits: [
        .trait(name: sharedStore, description: "The shop's PostgreSQL store, shared by its counters (postgres-nio)."),
        .trait(name: gatewayTLS, description: "The gateway over TLS (swift-nio-ssl)."),
        .default(enabledTraits: [sharedStore, gatewayTLS]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The latency percentiles of the benchmarks, recorded through the test kit.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The values that cross the wire, shared by the daemon and its clients.
        .target(name: "ScanBridgeCodes", swiftSettings: strict),
        .target(name: "ScanBridgeModel", dependencies: ["ScanBridgeCodes"], swiftSettings: strict),
        // The core knows no device, no socket and no database.
        .target(
            name: "ScanBridgeCore",
            dependencies: [
                "ScanBridgeModel", "ScanBridgeCodes", log, .product(name: "DequeModule", package: "swift-collections"),
                metrics, atomics,
            ],
            swiftSettings: strict),
        .target(name: "ScanBridgeRPC", dependencies: ["ScanBridgeModel"], swiftSettings: strict),
        // The daemon's life under a service manager: sockets systemd passes, its notify
        // socket and watchdog, and log lines as journald or a JSON reader wants them.
        .target(
            name: "ScanBridgeService", dependencies: ["ScanBridgeModel", "ScanBridgeRPC", log, lifecycle],
            swiftSettings: strict),
        // The Unix socket: connections, their outboxes, the dispatcher and the methods.
        .target(
            name: "ScanBridgeServer",
            dependencies: [
                "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeRPC", "ScanBridgeService", "CSocketBind", log,
                .product(name: "DequeModule", package: "swift-collections"), lifecycle, metrics, "CLibCrypto",
            ] + nio + web,
            swiftSettings: strict),
        // The web gateway: HTTP, WebSocket and Server-Sent Events over TCP or TLS, token access,
        // origins, the web root; each connection served by the socket server's connection layer.
        .target(
            name: "ScanBridgeGateway",
            dependencies: [
                "ScanBridgeServer", "ScanBridgeService", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeRPC", log,
                lifecycle, .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: [gatewayTLS])),
            ] + nio + web,
            swiftSettings: strict),
        // SHA-256 of the gateway's token secrets, AES and AES-CMAC of SUN messages (Debian package libssl-dev).
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // NTAG 424 DNA's Secure Unique NFC messages: AES and CMAC from libcrypto, over the
        // messages ScanBridgeCodes reads out of a URL.
        .target(name: "ScanBridgeSUN", dependencies: ["ScanBridgeCodes", "CLibCrypto"], swiftSettings: strict),
        // Binds the socket with its mode and group set from the start (include/CSocketBind.h).
        .target(name: "CSocketBind"),
        .target(
            name: "ScanBridgeStore",
            dependencies: [
                "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", log, .product(name: "GRDB", package: "GRDB.swift"),
                metrics,
            ],
            swiftSettings: strict),
        // The shop's PostgreSQL database, shared by its counters (docs/protocol.md, Several counters).
        .target(
            name: "ScanBridgeSharedStore",
            dependencies: [
                "ScanBridgeCore", "ScanBridgeModel", "ScanBridgeCodes", log,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The registry the daemon keeps its metrics in, rendered in Prometheus's text format.
        .target(name: "ScanBridgeMetrics", dependencies: ["ScanBridgeCore", metrics, prometheus], swiftSettings: strict),
        .target(name: "ScanBridgeClient", dependencies: ["ScanBridgeModel", "ScanBridgeRPC"] + nio, swiftSettings: strict),
        .target(
            name: "ScanBridgeTesting",
            // NIOHTTP1 also serves the WebDriver client's HTTP (WebDriver.swift says why not URLSession).
            dependencies: [
                "ScanBridgeModel", "ScanBridgeClient", "CTestSupport", log, tls,
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ] + nio + web,
            swiftSettings: strict),
        .target(name: "CTestSupport"),

        // What drivers share: device nodes read on threads of their own (evdev, hidraw, tty),
        // their settings, and finding them through libudev (Debian package libudev-dev).
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // Keys are decoded in the scanner's layout with libxkbcommon and xkb-data's layouts
        // (Debian package libxkbcommon-dev), for the evdev driver and the usb driver's boot keyboards.
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        .target(
            name: "DriverKit",
            dependencies: ["ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "CUdev", "CXKBCommon", log],
            exclude: ["README.md"], swiftSettings: strict),
        // libpcsclite, as it is (Debian package libpcsclite-dev; include/shim.h says why this
        // is not a pkg-config system library), behind thin wrappers the PC/SC driver and
        // `scanbridge doctor` share.
        .target(name: "CPCSCLite", linkerSettings: [.linkedLibrary("pcsclite")]),
        .target(name: "PCSCKit", dependencies: ["CPCSCLite"], swiftSettings: strict),

        // Plugins: each driver and handler in its own folder.
        .target(
            name: "PCSCDriver",
            dependencies: ["ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "PCSCKit", "CPCSCLite", log],
            path: "Plugins/Drivers/PCSC/Sources", swiftSettings: strict),
        // The evdev ioctls Swift cannot import.
        .target(name: "CEvdev", path: "Plugins/Drivers/Evdev/CEvdev"),
        .target(
            name: "EvdevDriver",
            dependencies: [
                "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "DriverKit", "CEvdev", log,
            ],
            path: "Plugins/Drivers/Evdev/Sources", swiftSettings: strict),
        // The hidraw ioctls Swift cannot import.
        .target(name: "CHidraw", path: "Plugins/Drivers/HIDPOS/CHidraw"),
        .target(
            name: "HIDPOSDriver", dependencies: ["ScanBridgeModel", "ScanBridgeCore", "DriverKit", "CHidraw", log],
            path: "Plugins/Drivers/HIDPOS/Sources", swiftSettings: strict),
        .target(
            name: "SerialDriver", dependencies: ["ScanBridgeModel", "ScanBridgeCore", "DriverKit", log],
            path: "Plugins/Drivers/Serial/Sources", swiftSettings: strict),
        // libusb-1.0, for scanners in a vendor USB mode that no kernel driver binds (Debian
        // package libusb-1.0-0-dev). A boot keyboard read this way is decoded by DriverKit's
        // KeyStream, as the evdev driver decodes a wedge scanner.
        .systemLibrary(
            name: "CLibUSB", path: "Plugins/Drivers/USB/CLibUSB", pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"])]),
        .target(
            name: "USBDriver", dependencies: ["ScanBridgeModel", "ScanBridgeCore", "DriverKit", "CLibUSB", log],
            path: "Plugins/Drivers/USB/Sources", swiftSettings: strict),
        // libpng reads the file camera's PNG frames (Debian package libpng-dev).
        .systemLibrary(
            name: "CPNG", path: "Plugins/Drivers/Camera/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // Camera frames are decoded by zxing-cpp (Debian package libzxing-dev; C++17, no C API
        // before 2.1) in a process of its own, scanbridge-zxing: the format of its pipes is
        // CFrameDecoding's (docs/architecture.md, Design decisions). It confines itself with a
        // seccomp allow-list built by libseccomp (Debian package libseccomp-dev).
        .target(name: "CFrameDecoding", path: "Plugins/Drivers/Camera/CFrameDecoding"),
        .executableTarget(
            name: "scanbridge-zxing", dependencies: ["CFrameDecoding"], path: "Plugins/Drivers/Camera/Decoder",
            cxxSettings: [.define("ZX_USE_UTF8")], linkerSettings: [.linkedLibrary("ZXing"), .linkedLibrary("seccomp")]),
        // V4L2 capture: the ioctls Swift cannot import, and libjpeg-turbo's TurboJPEG API for
        // MJPEG frames (Debian package libturbojpeg0-dev).
        .target(name: "CV4L2", path: "Plugins/Drivers/Camera/CV4L2"),
        .systemLibrary(
            name: "CTurboJPEG", path: "Plugins/Drivers/Camera/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .target(
            name: "CameraDriver",
            dependencies: [
                "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "DriverKit", "CFrameDecoding", "CPNG",
                "CV4L2", "CTurboJPEG", log,
            ],
            path: "Plugins/Drivers/Camera/Sources", swiftSettings: strict),
        .target(
            name: "MockDriver", dependencies: ["ScanBridgeModel", "ScanBridgeCore", log],
            path: "Plugins/Drivers/Mock/Sources", swiftSettings: strict),

        .target(
            name: "ProductLookup", dependencies: ["ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes"],
            path: "Plugins/Handlers/ProductLookup/Sources", swiftSettings: strict),
        .target(
            name: "CardLink", dependencies: ["ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "ScanBridgeSUN", log],
            path: "Plugins/Handlers/CardLink/Sources", swiftSettings: strict),
        .target(
            name: "OrderLookup", dependencies: ["ScanBridgeModel", "ScanBridgeCore"],
            path: "Plugins/Handlers/OrderLookup/Sources", swiftSettings: strict),

        // The daemon's YAML config file, apart from the daemon so that its fuzz target can load it.
        .target(
            name: "ScanBridgeConfig",
            // A YAML loader that knows the sections by name: each module decodes its own.
            dependencies: ["ScanBridgeCodes", .product(name: "Yams", package: "Yams")],
            swiftSettings: strict),
        // glibc's heap knobs: four arenas at most, and malloc_trim.
        .target(name: "CHeap"),
        .executableTarget(
            name: "scanbridged",
            dependencies: [
                "CHeap", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeRPC", "ScanBridgeServer", "ScanBridgeGateway",
                "ScanBridgeService", "ScanBridgeStore",
                .target(name: "ScanBridgeSharedStore", condition: .when(traits: [sharedStore])),
                "ScanBridgeConfig", "ScanBridgeMetrics", "DriverKit",
                "MockDriver", "PCSCDriver", "EvdevDriver", "SerialDriver", "HIDPOSDriver", "USBDriver", "CameraDriver",
                "ProductLookup", "CardLink", "OrderLookup", log,
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict, linkerSettings: orderedLink),
        .executableTarget(
            name: "scanbridge",
            dependencies: [
                "ScanBridgeClient", "ScanBridgeRPC", "ScanBridgeModel", "ScanBridgeCodes", "PCSCKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // The frames camera decoders are held to (qrencode and zint labels changed as a camera
        // changes them, and frames with no code), for the camera tests and the benchmark.
        .target(
            name: "CameraCorpus", dependencies: ["CameraDriver", "ScanBridgeTesting"], path: "Plugins/Drivers/Camera/Corpus",
            swiftSettings: strict),

        // The module edges, pinned against every import (Tests/ArchitectureTests).
        .testTarget(name: "ArchitectureTests", dependencies: ["ScanBridgeTesting"], swiftSettings: strict),
        .testTarget(name: "ScanBridgeCodesTests", dependencies: ["ScanBridgeCodes", "ScanBridgeTesting"], swiftSettings: strict),
        .testTarget(name: "ScanBridgeSUNTests", dependencies: ["ScanBridgeSUN", "ScanBridgeCodes"], swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeCoreTests",
            dependencies: ["ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "ScanBridgeTesting", log],
            swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeStoreTests",
            dependencies: [
                "ScanBridgeStore", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", log,
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeServerTests",
            dependencies: [
                "ScanBridgeServer", "ScanBridgeRPC", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeTesting", log,
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ] + nio,
            swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeGatewayTests", dependencies: ["ScanBridgeGateway", "ScanBridgeCore", "ScanBridgeModel"],
            swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeServiceTests",
            dependencies: ["ScanBridgeService", "ScanBridgeModel", "ScanBridgeTesting", log], swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeSharedStoreTests",
            dependencies: [
                "ScanBridgeSharedStore", "ScanBridgeTesting", log, .product(name: "PostgresNIO", package: "postgres-nio"),
            ], swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeConfigTests",
            dependencies: [
                "ScanBridgeConfig", "ScanBridgeCodes", "ScanBridgeServer", "ScanBridgeGateway", "ScanBridgeSharedStore",
                "USBDriver", "MockDriver",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ScanBridgeMetricsTests",
            dependencies: [
                "ScanBridgeMetrics", "ScanBridgeCore", "ScanBridgeModel", "ScanBridgeServer", "ScanBridgeStore",
                "ScanBridgeRPC", "ScanBridgeTesting", "MockDriver", log,
            ],
            swiftSettings: strict),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "ScanBridgeTesting"], swiftSettings: strict),
        .testTarget(name: "PCSCKitTests", dependencies: ["PCSCKit"], swiftSettings: strict),
        .testTarget(
            name: "MockDriverTests",
            dependencies: ["MockDriver", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "ScanBridgeTesting"],
            path: "Plugins/Drivers/Mock/Tests", swiftSettings: strict),
        .testTarget(
            name: "EvdevDriverTests", dependencies: ["EvdevDriver", "DriverKit"],
            path: "Plugins/Drivers/Evdev/Tests", swiftSettings: strict),
        .testTarget(
            name: "HIDPOSDriverTests", dependencies: ["HIDPOSDriver", "ScanBridgeModel", "ScanBridgeTesting"],
            path: "Plugins/Drivers/HIDPOS/Tests", swiftSettings: strict),
        .testTarget(
            name: "SerialDriverTests", dependencies: ["SerialDriver"],
            path: "Plugins/Drivers/Serial/Tests", swiftSettings: strict),
        .testTarget(
            name: "USBDriverTests", dependencies: ["USBDriver", "DriverKit"],
            path: "Plugins/Drivers/USB/Tests", swiftSettings: strict),
        .testTarget(
            name: "CameraDriverTests",
            dependencies: [
                "CameraDriver", "CameraCorpus", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeTesting", "DriverKit",
                "CTurboJPEG",
            ],
            path: "Plugins/Drivers/Camera/Tests", swiftSettings: strict),
        .testTarget(
            name: "PCSCDriverTests", dependencies: ["PCSCDriver", "ScanBridgeModel", "ScanBridgeCore"],
            path: "Plugins/Drivers/PCSC/Tests", swiftSettings: strict),
        .testTarget(
            name: "ProductLookupTests", dependencies: ["ProductLookup", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes"],
            path: "Plugins/Handlers/ProductLookup/Tests", swiftSettings: strict),
        .testTarget(
            name: "CardLinkTests",
            dependencies: ["CardLink", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes", "ScanBridgeSUN"],
            path: "Plugins/Handlers/CardLink/Tests", swiftSettings: strict),
        .testTarget(
            name: "OrderLookupTests", dependencies: ["OrderLookup", "ScanBridgeModel", "ScanBridgeCore"],
            path: "Plugins/Handlers/OrderLookup/Tests", swiftSettings: strict),
        .testTarget(name: "ScanBridgeClientTests", dependencies: ["ScanBridgeClient", "ScanBridgeModel"], swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ScanBridgeTesting", "ScanBridgeClient", "ScanBridgeRPC", "ScanBridgeModel", "ScanBridgeCore", "DriverKit",
                // To hold the daemon's database locked from another process, as a sqlite3 shell would.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        // Boots a QEMU guest with Debian's kernel to test against real kernel devices (Tests/HardwareLab/README.md).
        .testTarget(
            name: "HardwareLab", dependencies: ["ScanBridgeTesting", "ScanBridgeModel", "CameraDriver"],
            exclude: ["README.md"], swiftSettings: strict),
    ],
    cxxLanguageStandard: .cxx17
)

// The benchmarks (docs/performance.md), declared only when SCANBRIDGE_BENCH=1 (`make bench`), so
// that a build of the product, the demo's and the tests', compiles none of them and needs none of
// the old decoder's libraries. Not a package of their own: they weigh the daemon's modules in
// process through `package` declarations, which SwiftPM shares only within one package
// (docs/architecture.md, Design decisions).
if Context.environment["SCANBRIDGE_BENCH"] == "1" {
    package.targets += [
        // The camera decoder before zxing-cpp (libzbar, libdmtx), which the camera benchmark
        // weighs FrameDecoder against (Debian packages libzbar-dev, libdmtx-dev).
        .systemLibrary(name: "CZBar", path: "Benchmarks/CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CDmtx", path: "Benchmarks/CDmtx", pkgConfig: "libdmtx", providers: [.apt(["libdmtx-dev"])]),
        .target(
            name: "ReferenceDecoder", dependencies: ["CameraDriver", "CZBar", "CDmtx"], path: "Benchmarks/ReferenceDecoder",
            swiftSettings: strict),
        .executableTarget(
            name: "scanbridge-bench",
            dependencies: [
                "ScanBridgeClient", "ScanBridgeTesting", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes",
                "ScanBridgeStore", "ProductLookup", "DriverKit", "CameraDriver", "CameraCorpus", "ReferenceDecoder",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ] + nio,
            path: "Benchmarks/scanbridge-bench", swiftSettings: strict),
    ]
    package.products.append(.executable(name: "scanbridge-bench", targets: ["scanbridge-bench"]))
}

// The fuzz targets (docs/testing.md, Fuzzing). Each folder of Fuzz/ holds a target's test
// (FuzzX.swift) and its libFuzzer entry point (main.swift). With SCANBRIDGE_FUZZ=1
// (scripts/fuzz.sh) each is an executable linked with libFuzzer; otherwise the tests are one
// module, FuzzTargets, whose committed seeds FuzzSeedTests replays in the suites, so that
// `make test` checks them without a sanitized build of its own.
let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzJSON", ["ScanBridgeModel"]),
    (
        "FuzzRPCLine",
        [
            "ScanBridgeServer", "ScanBridgeRPC", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]
    ),
    ("FuzzHIDPOS", ["HIDPOSDriver"]),
    ("FuzzCodes", ["ScanBridgeCodes"]),
    // A Type 4 tag's answers to the NDEF read; SUN URLs and their verification (libcrypto).
    ("FuzzType4", ["ScanBridgeCodes"]),
    ("FuzzSUN", ["ScanBridgeSUN", "ScanBridgeCodes"]),
    ("FuzzImport", ["ScanBridgeClient", "ScanBridgeModel"]),
    ("FuzzFrames", ["CameraDriver"]),
    ("FuzzSerial", ["DriverKit"]),
    ("FuzzKeystrokes", ["DriverKit"]),
    ("FuzzMockScript", ["MockDriver"]),
    // The sections the daemon reads, each decoded by its module's settings type.
    ("FuzzConfig", ["ScanBridgeConfig", "ScanBridgeServer", "ScanBridgeStore", "MockDriver", "PCSCDriver", "USBDriver"]),
    (
        "FuzzGateway",
        [
            "ScanBridgeGateway", "ScanBridgeServer", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ] + web
    ),
    ("FuzzRPCParams", ["ScanBridgeServer", "ScanBridgeRPC", "ScanBridgeModel", "ScanBridgeCore", "ScanBridgeCodes"]),
    // The pipeline's normalizer, then the product and order handlers' reading of its events.
    ("FuzzNormalizer", ["ScanBridgeCore", "ScanBridgeModel", "ScanBridgeCodes", "ProductLookup", "OrderLookup"]),
    ("FuzzUSB", ["USBDriver", "DriverKit", "ScanBridgeCore", log]),
    // CFrameDecoding: the format of the decoder's replies, and their bounds.
    ("FuzzDecoderReply", ["CameraDriver", "CFrameDecoding", "ScanBridgeCore", "ScanBridgeModel"]),
]
if Context.environment["SCANBRIDGE_FUZZ"] == "1" {
    // Each executable links libFuzzer, whose main() wants a target, so only this build has them.
    package.targets.append(
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strict + [.define("LIBFUZZER")]))
    for (name, dependencies) in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Fuzz/\(name)", swiftSettings: strict,
                linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]))
        package.products.append(.executable(name: name, targets: [name]))
    }
} else {
    var dependencies: [Target.Dependency] = ["FuzzSupport"]
    for target in fuzzTargets {
        for dependency in target.dependencies where !dependencies.contains(where: { "\($0)" == "\(dependency)" }) {
            dependencies.append(dependency)
        }
    }
    package.targets += [
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strict),
        .target(
            name: "FuzzTargets", dependencies: dependencies, path: "Fuzz",
            exclude: ["Corpus", "Dictionaries", "FuzzSupport"] + fuzzTargets.map { "\($0.name)/main.swift" },
            sources: fuzzTargets.map { "\($0.name)/\($0.name).swift" }, swiftSettings: strict),
        // The test kit's seeded generator makes the mutations of the seeds that the suites run.
        .testTarget(name: "FuzzSeedTests", dependencies: ["FuzzTargets", "ScanBridgeTesting"], swiftSettings: strict),
    ]
}
