import Foundation
import MockDriver
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeServer
import ScanBridgeStore
import Yams

/// The daemon's configuration file (YAML). Every key is optional; command-line options
/// win over the file. Unknown keys are errors, so a typo never silently does nothing.
package struct DaemonConfig: Decodable, Sendable {
    package var socket: String?
    /// The group given the socket file, so its members can connect (mode 0660).
    package var socketGroup: String?
    package var database: String?
    package var drivers: [String]?
    package var logLevel: String?
    /// text or json.
    package var logFormat: String?
    package var journal = Journal()
    package var server = Server()
    package var http = HTTP()
    package var roles = Roles()
    package var catalog = Catalog()
    package var orders = Orders()
    package var handlers = Handlers()
    package var pcsc = PCSC()
    package var usb = USB()
    package var scanners = Scanners()
    package var mock: [Mock] = []
    /// This daemon's name among the shop's counters; the host name when not given.
    package var counterId: String?
    package var store = Store()

    /// The shop's shared PostgreSQL store; none means the local SQLite database alone.
    package struct Store: Decodable, Sendable {
        /// `postgresql://USER@HOST[:PORT]/DATABASE`.
        package var url: String?
        /// A file whose first line is the password.
        package var passwordFile: String?

        enum CodingKeys: String, CodingKey {
            case url
            case passwordFile = "password_file"
        }
    }

    /// The store this daemon serves, its currency, and its region's in-store barcode layouts.
    package struct Catalog: Decodable, Sendable {
        package var storeId: String?
        package var currency: String?
        package var region: String?
        /// In-store price/weight barcode layouts beside or instead of the region's.
        package var variableMeasure: VariableMeasureSection?

        enum CodingKeys: String, CodingKey {
            case storeId = "store_id"
            case currency, region
            case variableMeasure = "variable_measure"
        }
    }

    /// `catalog.variable_measure`: layouts of in-store price and weight barcodes
    /// (DaemonConfig+VariableMeasure.swift checks them).
    package struct VariableMeasureSection: Decodable, Sendable {
        /// Whether the layouts replace the region's built-in ones rather than add to them.
        package var replace: Bool?
        package var layouts: [VariableMeasureLayout]?
    }

    /// One layout: after each of its two-digit prefixes, `item_digits` of item reference, an
    /// optional price check digit, then `price_digits` or `weight_digits` of value.
    package struct VariableMeasureLayout: Decodable, Sendable {
        // Optional here so that a missing key gets a message saying what to add.
        package var prefixes: [String]?
        package var itemDigits: Int?
        package var priceDigits: Int?
        package var weightDigits: Int?
        package var decimals: Int?
        package var priceCheckDigit: Bool?

        enum CodingKeys: String, CodingKey {
            case prefixes
            case itemDigits = "item_digits"
            case priceDigits = "price_digits"
            case weightDigits = "weight_digits"
            case decimals
            case priceCheckDigit = "price_check_digit"
        }
    }

    package struct Orders: Decodable, Sendable {
        /// Which plain label texts are repair-order references.
        package var referencePattern: String?

        enum CodingKeys: String, CodingKey {
            case referencePattern = "reference_pattern"
        }
    }

    package struct Handlers: Decodable, Sendable {
        /// How long an out-of-process handler may take to answer.
        package var timeoutMs: Int?

        enum CodingKeys: String, CodingKey {
            case timeoutMs = "timeout_ms"
        }
    }

    /// The PC/SC driver: beep and LED after each tap's resolution on ACR122U-class readers.
    package struct PCSC: Decodable, Sendable {
        package var feedback: Bool?
        /// More reader-name fragments that get feedback (a compatible reader under another name).
        package var feedbackReaders: [String]?

        enum CodingKeys: String, CodingKey {
            case feedback
            case feedbackReaders = "feedback_readers"
        }
    }

    /// USB devices: the port reset of a device that keeps failing.
    package struct USB: Decodable, Sendable {
        /// Reset a USB device once it has gone into `error` this many times within ten
        /// minutes; nil: never by itself.
        package var autoResetAfterErrors: Int?

        enum CodingKeys: String, CodingKey {
            case autoResetAfterErrors = "auto_reset_after_errors"
        }
    }

    package struct Journal: Decodable, Sendable {
        package var durability: StoreDatabase.Durability = .full
        package var retentionEvents = 1_000_000
        package var retentionDays = 30

        enum CodingKeys: String, CodingKey {
            case durability
            case retentionEvents = "retention_events"
            case retentionDays = "retention_days"
        }
    }

    package struct Server: Decodable, Sendable {
        package var maxLineBytes = 1 << 20
        package var subscriptionQueue = 4096
        package var connectionBufferBytes = 8 << 20
        package var subscriptionsPerConnection = 32
        package var pendingRequests = 4096
        package var maxBatch = 1000
        package var maxConnections = 256
        package var maxConnectionsPerUser = 64
        package var handlersPerConnection = 16

        enum CodingKeys: String, CodingKey {
            case maxLineBytes = "max_line_bytes"
            case subscriptionQueue = "subscription_queue"
            case connectionBufferBytes = "connection_buffer_bytes"
            case subscriptionsPerConnection = "subscriptions_per_connection"
            case pendingRequests = "pending_requests"
            case maxBatch = "max_batch"
            case maxConnections = "max_connections"
            case maxConnectionsPerUser = "max_connections_per_user"
            case handlersPerConnection = "handlers_per_connection"
        }
    }

    /// The gateway: HTTP, WebSocket and Server-Sent Events (docs/protocol.md, Web and network access).
    package struct HTTP: Decodable, Sendable {
        /// `ADDRESS:PORT` to listen on; none means the gateway is off.
        package var listen: [String] = []
        /// Origins a browser page may call from, beside each token's own.
        package var origins: [String] = []
        /// Host names a request may name, beside the listening addresses.
        package var hosts: [String] = []
        package var maxConnections: Int? = nil
        package var metricsPublic = false
        /// The counter page's files; the default is found next to the daemon (`GatewayWebRoot`).
        package var webRoot: String?
        package var tls = TLS()

        package struct TLS: Decodable, Sendable {
            /// PEM files: the certificate (chain) and its private key.
            package var certificate: String?
            package var key: String?
        }

        enum CodingKeys: String, CodingKey {
            case listen, origins, hosts
            case maxConnections = "max_connections"
            case metricsPublic = "metrics_public"
            case webRoot = "web_root"
            case tls
        }

        package init() {}

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            listen = try c.decodeIfPresent([String].self, forKey: .listen) ?? []
            origins = try c.decodeIfPresent([String].self, forKey: .origins) ?? []
            hosts = try c.decodeIfPresent([String].self, forKey: .hosts) ?? []
            maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections)
            metricsPublic = try c.decodeIfPresent(Bool.self, forKey: .metricsPublic) ?? false
            webRoot = try c.decodeIfPresent(String.self, forKey: .webRoot)
            tls = try c.decodeIfPresent(TLS.self, forKey: .tls) ?? TLS()
        }
    }

    package struct Roles: Decodable, Sendable {
        package var adminGroups: [String] = []
        package var operatorGroups: [String] = []
        package var readerGroups: [String] = []

        enum CodingKeys: String, CodingKey {
            case adminGroups = "admin_groups"
            case operatorGroups = "operator_groups"
            case readerGroups = "reader_groups"
        }
    }

    /// USB barcode scanners found through udev.
    package struct Scanners: Decodable, Sendable {
        /// Whether to look for them at all (on by default).
        package var discover: Bool?
        /// The keyboard layout wedge scanners emulate, unless `--device` says otherwise.
        package var layout: String?
        /// Whether keyboard-wedge scanners are grabbed, so that no window gets their keys
        /// (on by default); a `--device evdev:…,grab=` says so for its node alone.
        package var grab: Bool?
        /// Burst timing of wedge scanners, in milliseconds (as `--device evdev:…,max_gap=,idle=`).
        package var maxGap: Int?
        package var idle: Int?
        /// `vvvv:pppp` or device ids taken as scanners whatever their maker.
        package var claim: [String]?
        /// `vvvv:pppp` or device ids never taken.
        package var release: [String]?

        enum CodingKeys: String, CodingKey {
            case discover, layout, grab
            case maxGap = "max_gap"
            case idle, claim, release
        }
    }

    package struct Mock: Decodable, Sendable {
        package var kind: DeviceKind
        package var id: String?
        package var name: String?
        /// A script file of timed scans, relative to the config file.
        package var script: String?
        package var loop: Bool?
    }

    enum CodingKeys: String, CodingKey {
        case socket
        case socketGroup = "socket_group"
        case database, drivers
        case logLevel = "log_level"
        case logFormat = "log_format"
        case journal, server, http, roles
        case catalog, orders, handlers, pcsc, usb, scanners, mock
        case counterId = "counter_id"
        case store
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        socket = try c.decodeIfPresent(String.self, forKey: .socket)
        socketGroup = try c.decodeIfPresent(String.self, forKey: .socketGroup)
        database = try c.decodeIfPresent(String.self, forKey: .database)
        drivers = try c.decodeIfPresent([String].self, forKey: .drivers)
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel)
        logFormat = try c.decodeIfPresent(String.self, forKey: .logFormat)
        journal = try c.decodeIfPresent(Journal.self, forKey: .journal) ?? Journal()
        server = try c.decodeIfPresent(Server.self, forKey: .server) ?? Server()
        http = try c.decodeIfPresent(HTTP.self, forKey: .http) ?? HTTP()
        roles = try c.decodeIfPresent(Roles.self, forKey: .roles) ?? Roles()
        catalog = try c.decodeIfPresent(Catalog.self, forKey: .catalog) ?? Catalog()
        orders = try c.decodeIfPresent(Orders.self, forKey: .orders) ?? Orders()
        handlers = try c.decodeIfPresent(Handlers.self, forKey: .handlers) ?? Handlers()
        pcsc = try c.decodeIfPresent(PCSC.self, forKey: .pcsc) ?? PCSC()
        usb = try c.decodeIfPresent(USB.self, forKey: .usb) ?? USB()
        scanners = try c.decodeIfPresent(Scanners.self, forKey: .scanners) ?? Scanners()
        mock = try c.decodeIfPresent([Mock].self, forKey: .mock) ?? []
        counterId = try c.decodeIfPresent(String.self, forKey: .counterId)
        store = try c.decodeIfPresent(Store.self, forKey: .store) ?? Store()
    }
}

extension DaemonConfig.Journal {
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        durability = try c.decodeIfPresent(StoreDatabase.Durability.self, forKey: .durability) ?? .full
        retentionEvents = try c.decodeIfPresent(Int.self, forKey: .retentionEvents) ?? 1_000_000
        retentionDays = try c.decodeIfPresent(Int.self, forKey: .retentionDays) ?? 30
    }
}

extension DaemonConfig.Server {
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServerLimits()
        maxLineBytes = try c.decodeIfPresent(Int.self, forKey: .maxLineBytes) ?? defaults.maxLineBytes
        subscriptionQueue = try c.decodeIfPresent(Int.self, forKey: .subscriptionQueue) ?? defaults.subscriptionQueue
        connectionBufferBytes =
            try c.decodeIfPresent(Int.self, forKey: .connectionBufferBytes) ?? defaults.connectionBufferBytes
        subscriptionsPerConnection =
            try c.decodeIfPresent(Int.self, forKey: .subscriptionsPerConnection)
            ?? defaults.subscriptionsPerConnection
        pendingRequests = try c.decodeIfPresent(Int.self, forKey: .pendingRequests) ?? defaults.pendingRequests
        maxBatch = try c.decodeIfPresent(Int.self, forKey: .maxBatch) ?? defaults.maxBatch
        maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? defaults.maxConnections
        maxConnectionsPerUser =
            try c.decodeIfPresent(Int.self, forKey: .maxConnectionsPerUser) ?? defaults.maxConnectionsPerUser
        handlersPerConnection =
            try c.decodeIfPresent(Int.self, forKey: .handlersPerConnection) ?? defaults.handlersPerConnection
    }
}

extension DaemonConfig.Roles {
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        adminGroups = try c.decodeIfPresent([String].self, forKey: .adminGroups) ?? []
        operatorGroups = try c.decodeIfPresent([String].self, forKey: .operatorGroups) ?? []
        readerGroups = try c.decodeIfPresent([String].self, forKey: .readerGroups) ?? []
    }
}
