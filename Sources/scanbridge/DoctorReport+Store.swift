import ScanBridgeModel

/// The store part of `bridge.hello` (`counter`, `store`), as a line of the report and its
/// problems. A daemon too old to report it shows neither.
extension DoctorReport.Daemon {
    private var store: (kind: String, state: String, copyLag: Int64, problem: String?)? {
        guard let store = hello["store"]?.objectValue else { return nil }
        return (
            store["kind"]?.stringValue ?? "?", store["state"]?.stringValue ?? "?", store["copyLag"]?.intValue ?? 0,
            store["problem"]?.stringValue
        )
    }

    var storeLine: String? {
        guard let store else { return nil }
        let counter = hello["counter"]?.stringValue ?? "?"
        guard store.kind == "postgresql" else { return "this counter's own SQLite database (counter \(counter))" }
        return "the shop's PostgreSQL store, \(store.state); counter \(counter); "
            + "\(store.copyLag) event\(store.copyLag == 1 ? "" : "s") not yet copied to scan_events"
    }

    /// An unreachable shop's store, as a sentence that says what goes on and what to do.
    var storeProblems: [String] {
        guard let store, store.kind == "postgresql" else { return [] }
        let problem = store.problem.map { ["the shop's PostgreSQL store: \($0)"] } ?? []
        guard store.state != "ok" else { return problem }
        return problem + [
            "the shop's PostgreSQL store is offline: scans go on and are kept here, \(store.copyLag) wait to be copied; "
                + "see the daemon's log (\"the shop's store cannot be reached\" or \"events are not copied\")"
        ]
    }
}
