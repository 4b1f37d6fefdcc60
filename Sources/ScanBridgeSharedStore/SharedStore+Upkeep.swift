import PostgresNIO

extension SharedStore {
    /// Prunes the shop's change log, erasures and scans past their retention, every
    /// `retention.interval` from a minute after the start, until cancelled. Every counter
    /// does; what one has pruned, the next finds gone.
    func keepSmall() async {
        guard retention.changeLogDays > 0 || retention.scanEventsDays > 0 else { return }
        var wait: Duration = .seconds(60)
        while (try? await Task.sleep(for: wait)) != nil {
            wait = retention.interval
            let (changeDays, eventDays) = (retention.changeLogDays, retention.scanEventsDays)
            do {
                let through = try await shopReplica.shared.run("pruning the shop's store", within: .seconds(600)) {
                    [logger] connection in
                    try await connection.query(
                        "SELECT scanbridge_compact(CAST(\(changeDays) AS integer), CAST(\(eventDays) AS integer))", logger: logger
                    ).decode(Int64.self).collectAll().first ?? 0
                }
                if through > 0 { logger.info("compacted the shop's change log", metadata: ["through": "\(through)"]) }
            } catch {
                logger.warning("the shop's store could not be pruned", metadata: ["error": "\(SharedStoreError.reason(error))"])
            }
        }
    }
}
