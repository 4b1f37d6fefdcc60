import Foundation
import Testing

/// One guest for a whole suite: booted by the suite's first test that asks for it, shut
/// down when the suite ends. Booting costs seconds of TCG, so a suite groups the tests
/// that can share one guest.
///
///     @Suite(.serialized, .labAvailable, .sharedGuest(GuestConfiguration()))
///     struct MyLabTests {
///         @Test func something() async throws {
///             let guest = try await Lab.guest()
///             …
struct SharedGuestTrait: SuiteTrait, TestScoping {
    let configuration: GuestConfiguration

    /// Once around the suite, not once per test.
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let slot = GuestSlot(configuration: configuration)
        do {
            try await GuestSlot.$current.withValue(slot) { try await function() }
        } catch {
            await slot.shutdown()
            throw error
        }
        await slot.shutdown()
    }
}

extension Trait where Self == SharedGuestTrait {
    static func sharedGuest(_ configuration: GuestConfiguration = GuestConfiguration()) -> Self {
        SharedGuestTrait(configuration: configuration)
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite, with the exact reason, on a machine that lacks what the lab needs; under
    /// CI=true runs it, to fail naming what is missing (`LabRequirements.mustRun`).
    static var labAvailable: Self {
        .enabled(
            if: LabRequirements.missing == nil || LabRequirements.mustRun, Comment(rawValue: LabRequirements.missing ?? ""))
    }
}

/// The guest of the running suite; boots it on first use and remembers a failed boot, so
/// the suite's other tests fail with the same step at once instead of booting again.
actor GuestSlot {
    @TaskLocal static var current: GuestSlot?

    let configuration: GuestConfiguration
    private var boot: Task<Guest, any Error>?
    private var isShutDown = false

    init(configuration: GuestConfiguration) { self.configuration = configuration }

    func guest() async throws -> Guest {
        if isShutDown { throw LabFailure(step: "boot", reason: "the suite's guest was already shut down") }
        let boot = boot ?? Task { [configuration] in try await Guest.boot(configuration) }
        self.boot = boot
        return try await boot.value
    }

    func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        if let guest = try? await boot?.value { await guest.shutdown() }
    }
}

enum Lab {
    /// The steps whose failure means this machine cannot run the lab at all (no kernel
    /// package to be had): the test is skipped with the reason, not failed.
    static let environmentSteps: Set<String> = ["find the kernel package", "download the kernel and udev packages", "find QEMU"]

    /// The running suite's shared guest (see `SharedGuestTrait`).
    static func guest() async throws -> Guest {
        guard let slot = GuestSlot.current else {
            throw LabFailure(step: "boot", reason: "Lab.guest() is for tests in a suite with the .sharedGuest trait")
        }
        return try await skippingWhereTheLabCannotRun { try await slot.guest() }
    }

    /// Boots a guest of its own (a test that needs a configuration no suite shares).
    static func boot(_ configuration: GuestConfiguration) async throws -> Guest {
        try await skippingWhereTheLabCannotRun { try await Guest.boot(configuration) }
    }

    private static func skippingWhereTheLabCannotRun(_ body: () async throws -> Guest) async throws -> Guest {
        // Reached with something missing only under CI=true (`labAvailable`), to fail naming it.
        if let missing = LabRequirements.missing { throw LabFailure(step: "check what the lab needs", reason: missing) }
        do {
            return try await body()
        } catch let failure as LabFailure where environmentSteps.contains(failure.step) && !LabRequirements.mustRun {
            try Test.cancel(Comment(rawValue: "the hardware lab cannot run here: \(failure)"))
        }
    }
}
