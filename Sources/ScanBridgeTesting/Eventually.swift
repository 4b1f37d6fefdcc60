/// Polls `condition` until it holds or `timeout` passes; true when it held. For tests that
/// wait on another task: no fixed sleeps, no timing assertions.
package func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
