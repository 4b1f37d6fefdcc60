extension DaemonConfig {
    /// Refuses the first number of the file out of its range, naming its key, its value and the
    /// range, so the daemon does not start on it. A zero or negative limit would refuse every
    /// client or scan; a huge one would overflow what is computed from it (`retention_days` in
    /// milliseconds) or let the daemon hold without bound what the limit is there to bound.
    /// Each upper bound is far past any counter's need (a hundred years, a gigabyte a line).
    /// The digits and decimals of `catalog.variable_measure` layouts are checked with their
    /// layout (`variableMeasureRegion()`), where the lengths they must add up to are known.
    package func checkRanges() throws {
        let numbers: [(key: String, value: Int?, range: ClosedRange<Int>)] = [
            ("journal.retention_events", journal.retentionEvents, 1...1_000_000_000),
            ("journal.retention_days", journal.retentionDays, 1...36_500),
            ("server.max_line_bytes", server.maxLineBytes, 1024...1 << 30),
            ("server.subscription_queue", server.subscriptionQueue, 1...1_000_000),
            ("server.connection_buffer_bytes", server.connectionBufferBytes, 64 << 10...1 << 30),
            ("server.subscriptions_per_connection", server.subscriptionsPerConnection, 1...10_000),
            ("server.pending_requests", server.pendingRequests, 1...1_000_000),
            ("server.max_batch", server.maxBatch, 1...100_000),
            ("server.max_connections", server.maxConnections, 1...100_000),
            ("server.max_connections_per_user", server.maxConnectionsPerUser, 1...100_000),
            ("server.handlers_per_connection", server.handlersPerConnection, 1...1_000),
            ("http.max_connections", http.maxConnections, 1...100_000),
            ("handlers.timeout_ms", handlers.timeoutMs, 10...60_000),
            ("usb.auto_reset_after_errors", usb.autoResetAfterErrors, 1...100),
        ]
        for (key, value, range) in numbers {
            guard let value, !range.contains(value) else { continue }
            throw LoadError(description: "\(key) is \(value); it must be between \(range.lowerBound) and \(range.upperBound)")
        }
    }
}
