import Foundation
import ScanBridgeModel

/// The journal part of `bridge.hello` (`journal`), as a line of the report and its problems.
/// A daemon too old to report it shows neither.
extension DoctorReport.Daemon {
    private var journal: (walBytes: Int64, pruneFailures: Int64, checkpointFailures: Int64, spooled: Int64)? {
        guard let journal = hello["journal"]?.objectValue else { return nil }
        let number = { (name: String) in journal[name]?.intValue ?? 0 }
        return (number("walBytes"), number("pruneFailures"), number("checkpointFailures"), number("spooled"))
    }

    var journalLine: String? {
        guard let journal else { return nil }
        let wal = Double(journal.walBytes) / 1_048_576
        return "WAL \(String(format: "%.1f", wal)) MiB; \(journal.spooled) device reads waiting; "
            + "\(journal.pruneFailures) prune and \(journal.checkpointFailures) checkpoint failures since the daemon started"
    }

    /// The journal's failed upkeep, as sentences that say what to do. Reads waiting are the
    /// devices' problems (each device in `error` says why).
    var journalProblems: [String] {
        guard let journal else { return [] }
        var problems: [String] = []
        if journal.pruneFailures > 0 {
            problems.append(
                "the journal could not be pruned \(journal.pruneFailures) times; see the daemon's log (\"journal prune failed\")")
        }
        if journal.checkpointFailures > 0 {
            problems.append(
                "the journal's write-ahead log could not be checkpointed \(journal.checkpointFailures) times and grows until it can; "
                    + "see the daemon's log (\"journal checkpoint failed\")")
        }
        return problems
    }
}
