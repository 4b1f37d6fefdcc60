import Testing

/// Every hardware lab suite is nested here: one guest at a time on this machine (two TCG
/// guests on two cores would both miss their deadlines), so the suites run one after
/// another, and all are skipped, with the reason, where the lab cannot run.
@Suite("Hardware lab", .serialized, .labAvailable, .timeLimit(.minutes(15)))
enum LabSuites {}
