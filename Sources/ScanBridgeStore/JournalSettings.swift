import ScanBridgeModel

/// The config file's `journal:` section: how hard a commit waits for the disk, and how much
/// of the journal is kept, each checked for its range as it is read. A zero or negative
/// retention would keep nothing; `retention_days` past a hundred years would overflow in
/// milliseconds.
package struct JournalSettings: Decodable, Sendable {
    package var durability: StoreDatabase.Durability = .full
    package var retentionEvents = 1_000_000
    package var retentionDays = 30

    /// The retention these settings keep.
    package var retention: JournalRetention {
        JournalRetention(maxEvents: retentionEvents, maxAge: .seconds(retentionDays * 24 * 3600))
    }

    enum CodingKeys: String, CodingKey {
        case durability
        case retentionEvents = "retention_events"
        case retentionDays = "retention_days"
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        durability = try c.decodeIfPresent(StoreDatabase.Durability.self, forKey: .durability) ?? .full
        retentionEvents = try c.number(.retentionEvents, in: 1...1_000_000_000) ?? 1_000_000
        retentionDays = try c.number(.retentionDays, in: 1...36_500) ?? 30
    }
}
