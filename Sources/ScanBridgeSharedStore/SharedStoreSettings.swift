import ScanBridgeModel

/// The config file's `store:` section: where the shop's PostgreSQL store is, and how long a
/// counter waits on it (docs/configuration.md, The shop's store).
package struct SharedStoreSettings: Decodable, Sendable {
    /// `postgresql://USER@HOST[:PORT]/DATABASE`; `--store` replaces it.
    package var url: String?
    /// A file whose first line is the password.
    package var passwordFile: String?
    /// The PEM file of the roots the server's certificate must chain to (`sslrootcert`).
    package var rootCertificate: String?
    package var timing = SharedStoreTiming()
    package var retention = SharedStoreRetention()

    enum CodingKeys: String, CodingKey {
        case url
        case passwordFile = "password_file"
        case rootCertificate = "root_certificate"
        case retryMaxMs = "retry_max_ms"
        case answerLimitMs = "answer_limit_ms"
        case changeLogDays = "change_log_days"
        case scanEventsDays = "scan_events_days"
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        passwordFile = try c.decodeIfPresent(String.self, forKey: .passwordFile)
        rootCertificate = try c.decodeIfPresent(String.self, forKey: .rootCertificate)
        if let ms = try c.number(.retryMaxMs, in: 100...300_000) { timing.retryMax = .milliseconds(ms) }
        if let ms = try c.number(.answerLimitMs, in: 100...600_000) { timing.answerLimit = .milliseconds(ms) }
        if let days = try c.number(.changeLogDays, in: 0...3650) { retention.changeLogDays = days }
        if let days = try c.number(.scanEventsDays, in: 0...36500) { retention.scanEventsDays = days }
    }
}

/// How long the shop's store keeps what the counters write there; any counter prunes it,
/// every `interval` (`scanbridge_compact`). Zero keeps it all.
package struct SharedStoreRetention: Sendable {
    /// Days of the change log (and of erasures remembered for events copied late): a counter
    /// away longer takes a snapshot of the shop's rows instead.
    package var changeLogDays = 30
    /// Days of `scan_events`; 0, the default, keeps every scan: the shop's reports read them.
    package var scanEventsDays = 0
    /// How often a counter prunes.
    package var interval: Duration = .seconds(3600)

    package init() {}
}

/// How long a counter waits on the shop's store. The defaults suit a shop's network; a test
/// of an outage shortens them so that it does not wait production times.
package struct SharedStoreTiming: Sendable {
    /// The longest pause between two attempts to reach the store again. The pause starts
    /// short (`backoff.first`), so a blip costs little, and doubles after each failure up to
    /// this: a second, so a POS sees the store back within one, and one attempt a second is
    /// nothing to a server.
    package var retryMax: Duration = .seconds(1)
    /// How long one answer of the store may take before the store is taken for gone: the
    /// copy, the shop's changes and a card's link or status wait this long.
    package var answerLimit: Duration = .seconds(10)

    /// The first pause after a failure, and the back-off's range.
    var backoff: (first: Duration, last: Duration) { (min(.milliseconds(250), retryMax), retryMax) }
    /// How often an idle copy asks whether the store is still there, and how long it waits
    /// for the answer: a server gone silent behind a live route is offline within two of
    /// them. A server that closes its connections is seen at once, by the change feed.
    var idleCheck: Duration { min(.seconds(2), answerLimit) }

    package init() {}
}
