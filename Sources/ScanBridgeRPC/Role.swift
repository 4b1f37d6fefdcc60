/// What a connected peer may do, from its credentials (docs/protocol.md "Methods").
package enum Role: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Reads events, devices and lookups.
    case reader
    /// Also manages cards and customers.
    case `operator`
    /// Everything: mock devices, injection, catalog changes, handler plugins.
    case admin

    /// Whether events reach this role whole; a reader gets them masked (docs/protocol.md
    /// "What each role sees"): card UIDs but for two bytes, and no customer email or phone.
    package var seesWholeEvents: Bool { self >= .operator }

    /// The role a protocol name (`reader`, `operator`, `admin`) names.
    package static func named(_ name: String) -> Role? {
        allCases.first { $0.description == name }
    }

    package static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .reader: "reader"
        case .operator: "operator"
        case .admin: "admin"
        }
    }
}
