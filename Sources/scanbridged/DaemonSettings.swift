import CardLink
import DriverKit
import EvdevDriver
import Foundation
import Logging
import MockDriver
import OrderLookup
import ScanBridgeCodes
import ScanBridgeConfig
import ScanBridgeCore
import ScanBridgeGateway
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer
import ScanBridgeService
import ScanBridgeStore
import USBDriver

#if SharedStore
import ScanBridgeSharedStore
#endif

/// Everything the daemon runs with: options over the config file over defaults.
struct DaemonSettings: Sendable {
    var socketPath: String
    var socketGroup: UInt32?
    var databasePath: String
    var drivers: [String]
    var logLevel: Logger.Level
    var logFormat: DaemonLogHandler.Format
    var durability: StoreDatabase.Durability
    var retention: JournalRetention
    var limits: ServerLimits
    var policy: RolePolicy
    var mockDevices: [MockDeviceSpec]
    var deviceOptions: [DeviceOption]
    var catalog: CatalogSettings
    var orderReferencePattern: String
    /// Where a secure card's Secure Unique NFC message sits in its URL (`cards.sun`).
    var sunLayout: SUNLayout
    /// The secure cards' SDM keys (`cards.sun.keys_file`); nil: no message verifies.
    var sdmKeys: SDMKeys?
    /// Each driver's settings from its section of the config file (`pcsc:`), by driver name,
    /// decoded by its factory and read by it alone.
    var driverSettings: [String: any Sendable]
    /// Reset a USB device by itself once it has failed this often (`usb.auto_reset_after_errors`); nil: never.
    var autoResetAfterErrors: Int?
    /// Scanners found through udev; nil when discovery is off.
    var scannerDiscovery: EvdevDiscoverySettings?
    /// The gateway; nil when it is off.
    var gateway: GatewaySettings?
    /// The gateway's access tokens' bounds (`http.token_max_lifetime_days`), kept whether or
    /// not the gateway is on: tokens are made before it is.
    var tokenLimits = AccessTokens.Limits()
    /// The listeners systemd passed (socket activation); they take the place of the socket
    /// path's and the gateway's own.
    var activated: ActivatedSockets
    #if SharedStore
    /// The shop's shared PostgreSQL store, password included; nil for the local database alone.
    var sharedStore: SharedStoreLocation?
    /// How long the daemon waits on the shop's store (`store.retry_max_ms`, `store.answer_limit_ms`).
    var sharedStoreTiming: SharedStoreTiming
    /// How long the shop's store keeps its log and scans (`store.change_log_days`, `store.scan_events_days`).
    var sharedStoreRetention: SharedStoreRetention
    #endif
    /// This daemon's name among the shop's counters.
    var counter: String

    init(options: ScanBridgeDaemon, activated: ActivatedSockets = ActivatedSockets()) throws {
        self.activated = activated
        let configPath = try options.config ?? Self.implicitConfig()
        let file = try configPath.map(DaemonConfig.load) ?? DaemonConfig()
        try file.checkRanges()
        guard let socketPath = activated.unix?.path ?? SocketPath.resolve(explicit: options.socket ?? file.socket) else {
            throw DaemonConfig.LoadError(description: SocketPath.noneApplies)
        }
        self.socketPath = socketPath
        databasePath = options.database ?? file.database ?? DaemonPaths.database()
        counter = try Self.counter(file.counterId)
        #if SharedStore
        let store = try file.section("store", as: SharedStoreSettings.self) ?? SharedStoreSettings()
        sharedStoreTiming = store.timing
        sharedStoreRetention = store.retention
        sharedStore = try (options.store ?? store.url).map { url in
            do {
                return try SharedStoreLocation(url: url).withRootCertificate(store.rootCertificate)
                    .withPassword(file: store.passwordFile)
            } catch {
                throw DaemonConfig.LoadError(description: "\(error)")
            }
        }
        #else
        let storeSection = try file.section("store") { _ in true } ?? false
        if options.store != nil || storeSection {
            throw DaemonConfig.LoadError(
                description: Self.notBuiltIn("the shop's shared store (store:, --store)", trait: "SharedStore"))
        }
        #endif
        mockDevices =
            try Self.mockDevices(try file.section("mock", as: [MockDeviceEntry].self) ?? [], relativeTo: configPath)
            + options.mocks.map {
                try MockDeviceSpec(option: $0)
            }
        drivers =
            options.drivers.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            ?? file.drivers ?? BuiltinPlugins.defaultDrivers(mockDevicesAsked: !mockDevices.isEmpty)
        for driver in drivers where !BuiltinPlugins.driverNames.contains(driver) {
            throw DaemonConfig.LoadError(
                description: "unknown driver '\(driver)'; this build has \(BuiltinPlugins.driverNames.joined(separator: ", "))")
        }
        let levelName = options.logLevel ?? file.logLevel ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw DaemonConfig.LoadError(description: "unknown log level '\(levelName)'")
        }
        logLevel = level
        let formatName = file.logFormat ?? "text"
        guard let format = DaemonLogHandler.Format(rawValue: formatName) else {
            throw DaemonConfig.LoadError(description: "unknown log_format '\(formatName)'; it is text or json")
        }
        logFormat = format
        let journal = try file.section("journal", as: JournalSettings.self) ?? JournalSettings()
        durability = journal.durability
        retention = journal.retention
        limits = try file.section("server", as: ServerLimits.self) ?? ServerLimits()
        limits.handlerTimeout = .milliseconds(file.handlers.timeoutMs ?? 2000)
        catalog = try Self.catalog(file.catalog)
        let cards = try file.section("cards", as: CardSecuritySettings.self) ?? CardSecuritySettings()
        sunLayout = cards.layout
        do {
            sdmKeys = try cards.keys(relativeTo: configPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
        } catch {
            throw DaemonConfig.LoadError(description: "\(error)")
        }
        orderReferencePattern = file.orders.referencePattern ?? OrderLookup.defaultReferencePattern
        do {
            _ = try TextPattern(orderReferencePattern)
        } catch {
            throw DaemonConfig.LoadError(description: "orders.reference_pattern: \(error)")
        }
        if let name = file.socketGroup {
            guard let gid = RolePolicy.groupID(named: name) else {
                throw DaemonConfig.LoadError(description: "socket_group '\(name)' is not a group on this system")
            }
            socketGroup = gid
        }
        policy = RolePolicy(
            adminGroups: try Self.groupIDs(file.roles.adminGroups),
            operatorGroups: try Self.groupIDs(file.roles.operatorGroups),
            readerGroups: try Self.groupIDs(file.roles.readerGroups))
        deviceOptions =
            try options.devices.map { try DeviceOption(parsing: $0) }.map { option in
                guard option.driver == "evdev" else { return option }
                var named = option
                named.settings = file.scanners.namedWedgeSettings(option.settings)
                return named
            }
            + Self.usbClaims(file.scanners.claim).map {
                try DeviceOption(parsing: "usb:" + $0.dropFirst(4), origin: "scanners.claim")
            }
        // Every driver's section is checked, whether or not the driver runs.
        driverSettings = [:]
        for factory in BuiltinPlugins.driverFactories {
            guard let section = factory.section else { continue }
            driverSettings[factory.name] = try file.section(section, decode: factory.decodeSettings(from:))
        }
        autoResetAfterErrors = try file.section("usb", as: USBSettings.self)?.autoResetAfterErrors
        scannerDiscovery = try Self.scannerDiscovery(file.scanners)
        let http = try file.section("http", as: GatewayConfig.self) ?? GatewayConfig()
        if let days = http.tokenMaxLifetimeDays { tokenLimits.maxLifetimeDays = days == 0 ? nil : days }
        gateway = try Self.gateway(
            http, listen: options.httpListen, origins: options.allowOrigins, passed: !activated.tcp.isEmpty,
            maxConnections: limits.maxConnections)
    }

    /// The gateway's settings; nil when it is off: no address to listen on, and none passed.
    private static func gateway(
        _ http: GatewayConfig, listen: [String], origins allowed: [String], passed: Bool, maxConnections: Int
    ) throws -> GatewaySettings? {
        let texts = listen.isEmpty ? http.listen : listen
        guard !texts.isEmpty || passed else { return nil }
        let addresses = try texts.map { text in
            guard let address = GatewayAddress(parsing: text) else {
                throw DaemonConfig.LoadError(
                    description: "'\(text)' is not an address to listen on; write ADDRESS:PORT, e.g. 127.0.0.1:8765 or [::1]:8765"
                )
            }
            return address
        }
        let tls: (certificate: String, key: String)?
        switch (http.tls.certificate, http.tls.key) {
        case (let certificate?, let key?):
            #if GatewayTLS
            tls = (certificate, key)
            #else
            _ = (certificate, key)
            throw DaemonConfig.LoadError(description: Self.notBuiltIn("the gateway's TLS (http.tls)", trait: "GatewayTLS"))
            #endif
        case (nil, nil): tls = nil
        default:
            throw DaemonConfig.LoadError(description: "http.tls needs both certificate and key (PEM files), or neither")
        }
        // Compared as a browser writes its Origin header: an entry written otherwise would
        // never match, and `null` (sandboxed frames, file: pages) would let any of them in.
        var origins: [String] = []
        for (text, setting) in http.origins.map({ ($0, "http.origins") }) + allowed.map({ ($0, "--allow-origin") }) {
            do throws(TokenOrigin.Problem) {
                origins.append(try TokenOrigin.normalized(text))
            } catch {
                throw DaemonConfig.LoadError(description: "\(setting): \(error.reason)")
            }
        }
        var settings = GatewaySettings(
            listen: addresses, origins: origins, hosts: http.hosts,
            maxConnections: http.maxConnections ?? maxConnections, metricsPublic: http.metricsPublic,
            webRoot: http.webRoot
                ?? GatewayWebRoot.defaultPath(
                    executable: "/proc/self/exe", sourceRoot: Self.sourceRoot),
            tls: tls)
        if let perAddress = http.maxConnectionsPerAddress { settings.maxConnectionsPerAddress = perAddress }
        if let perToken = http.maxStreamsPerToken { settings.maxStreamsPerToken = perToken }
        if let idle = http.idleTimeoutMilliseconds { settings.idleTimeout = .milliseconds(idle) }
        if let request = http.requestTimeoutMilliseconds { settings.requestTimeout = .milliseconds(request) }
        settings.queryTokens = http.queryTokens
        return settings
    }

    /// Why a setting is refused by a build made without the package trait that brings it
    /// (`swift build --disable-default-traits`, as `make demo` builds).
    static func notBuiltIn(_ what: String, trait: String) -> String {
        "\(what) is not in this build of scanbridged: it was built without the \(trait) package trait; build it with the default traits (make build)"
    }

    /// The config's mock devices, with their scripts read relative to the config's folder.
    private static func mockDevices(_ entries: [MockDeviceEntry], relativeTo configPath: String?) throws
        -> [MockDeviceSpec]
    {
        let folder =
            configPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return try entries.map { entry in
            do throws(ScanBridgeError) {
                return try entry.spec(relativeTo: folder)
            } catch {
                throw DaemonConfig.LoadError(description: error.message)
            }
        }
    }

    /// The checkout this daemon was built from: its `Web/` is the page's default folder there.
    private static let sourceRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    private static func scannerDiscovery(_ scanners: DaemonConfig.Scanners) throws -> EvdevDiscoverySettings? {
        guard scanners.discover ?? true else { return nil }
        let settings = scanners.wedgeSettings
        let claimed = try keys(scanners.claim?.filter { !usbClaims([$0]).contains($0) }, at: "scanners.claim")
        let released = try keys(scanners.release, at: "scanners.release")
        do {
            return try EvdevDiscoverySettings(
                deviceSettings: settings, choices: ScannerChoices(ScannerSelection(claimed: claimed, released: released)))
        } catch {
            throw DaemonConfig.LoadError(description: "scanners: \(error)")
        }
    }

    /// The config's claims of USB devices for the `usb` driver: each as `--device` names one
    /// (`usb:VID:PID[:SERIAL],interface=N,…`), read whatever `scanners.discover` says.
    private static func usbClaims(_ entries: [String]?) -> [String] {
        (entries ?? []).filter { $0.lowercased().hasPrefix("usb:") }
    }

    /// The claim or release entries of the config, each checked as `devices.claim` checks its id.
    private static func keys(_ entries: [String]?, at section: String) throws -> [String] {
        try (entries ?? []).map { entry in
            switch ScannerKey.parse(entry) {
            case .success(let key): return key
            case .failure(let error): throw DaemonConfig.LoadError(description: "\(section): \(error)")
            }
        }
    }

    /// `counter_id`, else the host name: a name the shop's back office reads in `scan_events`.
    private static func counter(_ configured: String?) throws -> String {
        let name = configured ?? ProcessInfo.processInfo.hostName
        guard (1...64).contains(name.utf8.count), name.unicodeScalars.allSatisfy({ $0.properties.isGraphemeBase || $0 == " " })
        else {
            throw DaemonConfig.LoadError(
                description: "counter_id '\(name)' must be 1 to 64 bytes of printable characters, e.g. till-1")
        }
        return name
    }

    private static func catalog(_ section: DaemonConfig.Catalog) throws -> CatalogSettings {
        var catalog = CatalogSettings()
        if let store = section.storeId {
            // A product's storeId rule, so the configured store is one a product can have;
            // blank is no store, as for a product.
            do throws(ScanBridgeError) {
                catalog.storeId = try JSONFields(.object(["store_id": .string(store)]), path: "catalog")
                    .text("store_id", maxLength: Product.storeIdMaxLength)
            } catch {
                throw DaemonConfig.LoadError(description: error.message)
            }
        }
        if let currency = section.currency {
            do throws(ScanBridgeError) {
                catalog.currency = try Currency.validated(currency, field: "catalog.currency")
            } catch {
                throw DaemonConfig.LoadError(description: error.message)
            }
        }
        catalog.region = try section.variableMeasureRegion()
        // A label's price with more decimals than the currency has could not be read as one.
        let currencyDecimals = Money.decimals(of: catalog.currency)
        for (prefix, layout) in catalog.region.layouts.sorted(by: { $0.key < $1.key }) where layout.measure == .price {
            if let decimals = layout.decimals, decimals > currencyDecimals {
                throw DaemonConfig.LoadError(
                    description:
                        "catalog: prefix \(prefix) of region \(catalog.region.code) reads a price with \(decimals) "
                        + "decimal\(decimals == 1 ? "" : "s") but \(catalog.currency) has \(currencyDecimals); give "
                        + "prefix \(prefix) a layout in catalog.variable_measure.layouts with decimals at most "
                        + "\(currencyDecimals), or without decimals for the currency's minor unit")
            }
        }
        return catalog
    }

    private static func groupIDs(_ names: [String]) throws -> [UInt32] {
        try names.map { name in
            guard let gid = RolePolicy.groupID(named: name) else {
                throw DaemonConfig.LoadError(description: "role group '\(name)' is not a group on this system")
            }
            return gid
        }
    }

    /// The configuration found without `--config` (`DaemonPaths.config`), read only when no
    /// other user could have written it: it sets who may do what, so the file must be the
    /// daemon user's or root's and writable by no one else, in a folder that passes the
    /// daemon's own folder rules. Blocking: called off the cooperative pool.
    private static func implicitConfig() throws -> String? {
        guard let path = DaemonPaths.config() else { return nil }
        var info = stat()
        if stat(path, &info) == 0 {
            let user = geteuid()
            if info.st_uid != user && info.st_uid != 0 || info.st_mode & 0o022 != 0 {
                throw DaemonConfig.LoadError(
                    description: """
                        the configuration \(path) could be changed by another user than this daemon's (uid \(user)) or \
                        root (its owner is uid \(info.st_uid), its mode 0\(String(info.st_mode & 0o7777, radix: 8))); \
                        `chown \(user) \(path)` and `chmod go-w \(path)`, or name a configuration with --config
                        """)
            }
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let refusal = DaemonFolder.refusal(of: folder, holding: "configuration") {
            throw DaemonConfig.LoadError(description: refusal)
        }
        return path
    }
}

/// `--device DRIVER:PATH[,KEY=VALUE…]`.
struct DeviceOption: Sendable, Hashable {
    var driver: String
    var path: String
    var settings: [String: String]
    /// Where it was named, for the messages: `--device`, or the config's `scanners.claim`.
    var origin: String

    init(parsing text: String, origin: String = "--device") throws {
        self.origin = origin
        let parts = text.split(separator: ",")
        guard let head = parts.first, let colon = head.firstIndex(of: ":") else {
            throw DaemonConfig.LoadError(description: "\(origin) takes DRIVER:PATH[,KEY=VALUE...]; got '\(text)'")
        }
        driver = String(head[..<colon])
        path = String(head[head.index(after: colon)...])
        settings = [:]
        for pair in parts.dropFirst() {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else {
                throw DaemonConfig.LoadError(description: "\(origin) setting '\(pair)' is not KEY=VALUE")
            }
            settings[String(kv[0])] = String(kv[1])
        }
    }
}
