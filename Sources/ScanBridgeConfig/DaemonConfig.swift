import Yams

/// The daemon's configuration file (YAML). Every key is optional; command-line options
/// win over the file. Unknown keys are errors, so a typo never silently does nothing.
///
/// This module knows the file's sections by name, and decodes the daemon's own keys and the
/// sections no other module owns. A section whose settings belong to a module (`server:` and
/// `http:` to the server, `journal:` to the store, `store:` to the shared store, `pcsc:`,
/// `usb:` and `mock:` to their drivers, `cards:` to the card-link handler) is decoded, range checks included, by that module's `Decodable` settings type
/// through `section(_:as:)`; the daemon composes them. Its unknown keys are found as the
/// type decodes (`AskedKeys`), so no list of them is kept here.
package struct DaemonConfig {
    /// The top-level sections other modules decode (`section(_:as:)`).
    package static let moduleSections = ["journal", "server", "http", "pcsc", "usb", "mock", "store", "cards"]

    package var socket: String?
    /// The group given the socket file, so its members can connect (mode 0660).
    package var socketGroup: String?
    package var database: String?
    package var drivers: [String]?
    package var logLevel: String?
    /// text or json.
    package var logFormat: String?
    package var roles = Roles()
    package var catalog = Catalog()
    package var orders = Orders()
    package var handlers = Handlers()
    package var scanners = Scanners()
    /// This daemon's name among the shop's counters; the host name when not given.
    package var counterId: String?
    /// The file, for the messages of its sections; nil for the built-in defaults.
    var path: String?
    /// The file's YAML, from which the other modules' sections are decoded.
    var tree: Node?

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

    enum CodingKeys: String, CodingKey {
        case socket
        case socketGroup = "socket_group"
        case database, drivers
        case logLevel = "log_level"
        case logFormat = "log_format"
        case roles, catalog, orders, handlers, scanners
        case counterId = "counter_id"
    }

    package init() {}
}

extension DaemonConfig: Decodable {
    /// The daemon's own keys and sections. The other modules' sections are only noted as
    /// known here: `section(_:as:)` decodes each.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        socket = try c.decodeIfPresent(String.self, forKey: .socket)
        socketGroup = try c.decodeIfPresent(String.self, forKey: .socketGroup)
        database = try c.decodeIfPresent(String.self, forKey: .database)
        drivers = try c.decodeIfPresent([String].self, forKey: .drivers)
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel)
        logFormat = try c.decodeIfPresent(String.self, forKey: .logFormat)
        roles = try c.decodeIfPresent(Roles.self, forKey: .roles) ?? Roles()
        catalog = try c.decodeIfPresent(Catalog.self, forKey: .catalog) ?? Catalog()
        orders = try c.decodeIfPresent(Orders.self, forKey: .orders) ?? Orders()
        handlers = try c.decodeIfPresent(Handlers.self, forKey: .handlers) ?? Handlers()
        scanners = try c.decodeIfPresent(Scanners.self, forKey: .scanners) ?? Scanners()
        counterId = try c.decodeIfPresent(String.self, forKey: .counterId)
        let sections = try decoder.container(keyedBy: NameKey.self)
        for name in Self.moduleSections { _ = sections.contains(NameKey(name)) }
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
