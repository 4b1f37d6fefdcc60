import Testing

/// Every hardware lab suite is nested here, in one of two lanes: the lanes run at once, each
/// with a guest of its own (`LabLock.guestSlots`, one per core: two TCG guests keep their
/// pace on two cores), the suites of a lane one after another. The lanes hold about equal
/// shares of the lab's time. All are skipped, with the reason, where the lab cannot run.
@Suite("Hardware lab", .labAvailable, .timeLimit(.minutes(15)))
enum LabSuites {
    /// The USB controller's guest, the harness's own tests and the cameras without udevd.
    @Suite("Lane: USB devices", .serialized) enum USBLane {}
    /// The systemd guest, the cameras and the power cut.
    @Suite("Lane: service and cameras", .serialized) enum ServiceLane {}
}

extension LabSuites.USBLane {
    /// The suites that need QEMU's USB controller and nothing else share one guest, booted
    /// once: each of their tests plugs what it needs and unplugs it, and stops its daemons.
    /// It lives as long as the four suites take, with room for a slow machine.
    @Suite(
        "USB controller guest", .serialized,
        .sharedGuest(GuestConfiguration(devices: [.usbController], lifetime: .seconds(2400))))
    enum USBControllerGuest {}
}
