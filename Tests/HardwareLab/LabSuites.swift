import Testing

/// Every hardware lab suite is nested here: one guest at a time on this machine (two TCG
/// guests on two cores would both miss their deadlines), so the suites run one after
/// another, and all are skipped, with the reason, where the lab cannot run.
@Suite("Hardware lab", .serialized, .labAvailable, .timeLimit(.minutes(15)))
enum LabSuites {}

extension LabSuites {
    /// The suites that need QEMU's USB controller and nothing else share one guest, booted
    /// once: each of their tests plugs what it needs and unplugs it, and stops its daemons.
    /// It lives as long as the four suites take, with room for a slow machine.
    @Suite(
        "USB controller guest", .serialized,
        .sharedGuest(GuestConfiguration(devices: [.usbController], lifetime: .seconds(2400))))
    enum USBControllerGuest {}
}
