package import Logging

/// One driver as the daemon knows it: its name, how it reads the devices named for it
/// (`--device NAME:PATH,KEY=VALUE…`), and how it is made from them. Each driver exports its
/// factory from its own folder and the daemon keeps a list of them, so that a driver is
/// added with a file in its folder and a line in that list, and the daemon names no
/// driver's types: every driver is registered, checked and made the same way.
///
/// `Choices` is what the drivers that find devices through udev share (DriverKit's scanner
/// choices); the core does not know it. A spec and a section's settings cross the daemon as
/// opaque values that only their driver's factory reads.
package struct DriverFactory<Choices: Sendable>: Sendable {
    /// What the daemon shares with a driver that finds devices of its own.
    package struct Discovery: Sendable {
        /// The scanners taken and left, one for every driver and the `scanners.*` methods.
        package var choices: Choices
        /// The `--device` settings of the nodes discovery finds (`scanners.layout`, `grab`…).
        package var deviceSettings: [String: String]

        package init(choices: Choices, deviceSettings: [String: String]) {
            self.choices = choices
            self.deviceSettings = deviceSettings
        }
    }

    /// What a driver is made from.
    package struct Setup<Spec: Sendable, Settings: Sendable>: Sendable {
        /// The devices named for it, as its parser read them.
        package var devices: [Spec]
        /// Its settings; nil when none were given.
        package var settings: Settings?
        /// Nil when discovery is off, or for a driver that does not discover.
        package var discovery: Discovery?
        /// With the driver's name in its metadata.
        package var logger: Logger
    }

    /// The driver's name, as `--drivers`, `--device` and the wire name it.
    package let name: String
    /// Whether it finds devices through udev, so it is handed the daemon's `Discovery`.
    package let discovers: Bool
    /// Whether it runs when no drivers are named and none of its devices are asked for: every
    /// driver but the mock one, whose devices scan whatever an admin injects.
    package let runsByDefault: Bool
    /// The key of its section in the config file (`pcsc`); nil when it has none.
    package let section: String?
    /// Reads a `--device` of this driver into its spec; nil for a driver no `--device` names.
    package let parseDevice: (@Sendable (_ path: String, _ settings: [String: String]) throws -> any Sendable)?
    private let decodeSection: @Sendable (any Decoder) throws -> any Sendable
    private let checkDevices: @Sendable ([any Sendable]) throws -> Void
    private let build:
        @Sendable (_ devices: [any Sendable], _ settings: (any Sendable)?, _ discovery: Discovery?, Logger)
            throws -> any DeviceDriver

    /// A driver named with `--device`.
    /// - Parameters:
    ///   - section: the key of its section in the config file; nil when it has none.
    ///   - settings: the type of its settings, decoded from its section; `Never` when it has none.
    ///   - parse: a `--device` spec from its path and `KEY=VALUE` settings.
    ///   - check: refuses specs that cannot stand together (two claims of one USB interface).
    ///   - make: the driver, from its specs, its settings and the discovery it is handed.
    package init<Spec: Sendable, Settings: Decodable & Sendable>(
        name: String, discovers: Bool, section: String? = nil, settings: Settings.Type,
        parse: @escaping @Sendable (_ path: String, _ settings: [String: String]) throws -> Spec,
        check: @escaping @Sendable ([Spec]) throws -> Void = { _ in },
        make: @escaping @Sendable (Setup<Spec, Settings>) throws -> any DeviceDriver
    ) {
        self.init(
            name: name, discovers: discovers, runsByDefault: true, section: section, parse: { try parse($0, $1) },
            check: check, make: make)
    }

    /// A driver no `--device` names: its devices, if any, come from options of its own (`--mock`).
    package init<Spec: Sendable, Settings: Decodable & Sendable>(
        name: String, runsByDefault: Bool = true, devices: Spec.Type, section: String? = nil, settings: Settings.Type,
        make: @escaping @Sendable (Setup<Spec, Settings>) throws -> any DeviceDriver
    ) {
        self.init(
            name: name, discovers: false, runsByDefault: runsByDefault, section: section, parse: nil, check: { _ in },
            make: make)
    }

    private init<Spec: Sendable, Settings: Decodable & Sendable>(
        name: String, discovers: Bool, runsByDefault: Bool, section: String?,
        parse: (@Sendable (_ path: String, _ settings: [String: String]) throws -> any Sendable)?,
        check: @escaping @Sendable ([Spec]) throws -> Void,
        make: @escaping @Sendable (Setup<Spec, Settings>) throws -> any DeviceDriver
    ) {
        self.name = name
        self.discovers = discovers
        self.runsByDefault = runsByDefault
        self.section = section
        decodeSection = { try Settings(from: $0) }
        parseDevice = parse
        checkDevices = { try check($0.compactMap { $0 as? Spec }) }
        build = { devices, settings, discovery, logger in
            try make(
                Setup(
                    devices: devices.compactMap { $0 as? Spec }, settings: settings as? Settings,
                    discovery: discovers ? discovery : nil, logger: logger))
        }
    }

    /// Its settings, from its section of the config file (`section`): opaque to all but `make`.
    package func decodeSettings(from decoder: any Decoder) throws -> any Sendable {
        try decodeSection(decoder)
    }

    /// Refuses specs of this driver that cannot stand together, with the driver's own sentence.
    package func check(devices: [any Sendable]) throws {
        try checkDevices(devices)
    }

    /// The driver. `devices` are the specs its `parseDevice` made (or, for the mock driver, its
    /// devices), `settings` its settings; values of any other type are not its own and are left out.
    package func make(devices: [any Sendable], settings: (any Sendable)?, discovery: Discovery?, logger: Logger) throws
        -> any DeviceDriver
    {
        try build(devices, settings, discovery, logger)
    }
}
