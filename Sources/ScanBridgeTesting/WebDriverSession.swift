package import Foundation
package import ScanBridgeModel

/// One browser window under WebDriver: navigate, find elements, run scripts, wait for a
/// condition, take screenshots. `delete()` closes it.
package struct WebDriverSession: Sendable {
    package let driver: WebDriver
    package let id: String

    /// A W3C element reference.
    package struct Element: Sendable {
        package let id: String
    }

    /// The key under which WebDriver names an element in JSON.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    package func navigate(to url: String) async throws {
        try await command("POST", "url", ["url": .string(url)], "navigate to \(url)")
    }

    /// Reloads the page, as the browser's reload button does, and waits for it to load.
    package func reload() async throws {
        try await command("POST", "refresh", [:], "reload")
    }

    package func currentURL() async throws -> String {
        try await command("GET", "url", nil, "current URL").stringValue ?? ""
    }

    package func title() async throws -> String {
        try await command("GET", "title", nil, "title").stringValue ?? ""
    }

    /// The first element that matches the CSS `selector`; throws `no such element` when none does.
    package func find(_ selector: String) async throws -> Element {
        let value = try await command(
            "POST", "element", ["using": "css selector", "value": .string(selector)], "find \(selector)")
        return try element(in: value, command: "find \(selector)")
    }

    /// Every element that matches the CSS `selector`, in document order.
    package func findAll(_ selector: String) async throws -> [Element] {
        let value = try await command(
            "POST", "elements", ["using": "css selector", "value": .string(selector)], "find all \(selector)")
        return try (value.arrayValue ?? []).map { try element(in: $0, command: "find all \(selector)") }
    }

    /// The element's rendered text.
    package func text(of element: Element) async throws -> String {
        try await command("GET", "element/\(element.id)/text", nil, "text").stringValue ?? ""
    }

    package func attribute(_ name: String, of element: Element) async throws -> String? {
        try await command("GET", "element/\(element.id)/attribute/\(name)", nil, "attribute \(name)").stringValue
    }

    package func click(_ element: Element) async throws {
        try await command("POST", "element/\(element.id)/click", [:], "click")
    }

    /// Empties an input, as a person selecting its text and deleting it would.
    package func clear(_ element: Element) async throws {
        try await command("POST", "element/\(element.id)/clear", [:], "clear")
    }

    package func type(_ text: String, into element: Element) async throws {
        try await command("POST", "element/\(element.id)/value", ["text": .string(text)], "type")
    }

    /// Runs `script` (a function body: `return …`) in the page with `arguments`, and returns
    /// what it returned, as JSON.
    @discardableResult
    package func execute(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command(
            "POST", "execute/sync", ["script": .string(script), "args": .array(arguments)], "execute script")
    }

    /// Runs `script`, which ends by calling `arguments[arguments.length - 1](result)` (for
    /// promises: `….then(done)`), and returns the result it passed.
    @discardableResult
    package func executeAsync(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command(
            "POST", "execute/async", ["script": .string(script), "args": .array(arguments)], "execute async script")
    }

    /// Sets how long an async script may run before WebDriver ends it.
    package func setScriptTimeout(_ timeout: Duration) async throws {
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        try await command("POST", "timeouts", ["script": .int(milliseconds)], "set timeouts")
    }

    /// Polls `script` (a function body returning a truthy value once the condition holds)
    /// until it does; returns its value, or throws `TimedOut` naming `what`.
    @discardableResult
    package func wait(
        for what: @autoclosure () -> String, timeout: Duration = .seconds(30), until script: String,
        _ arguments: [JSONValue] = []
    ) async throws -> JSONValue {
        try await waitFor(what(), timeout: timeout) { () async throws -> JSONValue? in
            let value = try await execute(script, arguments)
            switch value {
            case .null, .bool(false), .int(0): return nil
            case .string(let text) where text.isEmpty: return nil
            default: return value
            }
        }
    }

    /// Runs `script` in every document this window loads from now on, before the page's own
    /// scripts (Chromium's DevTools command, through chromedriver): to stand a fake in for
    /// what the page would reach over the network.
    package func addScriptOnNewDocument(_ script: String) async throws {
        try await command(
            "POST", "goog/cdp/execute",
            ["cmd": "Page.addScriptToEvaluateOnNewDocument", "params": ["source": .string(script)]],
            "add script on new document")
    }

    /// Gives the page a viewport of exactly `width`×`height` CSS pixels at scale 1.
    package func setViewport(width: Int, height: Int) async throws {
        let metrics: JSONValue = [
            "width": .int(Int64(width)), "height": .int(Int64(height)), "deviceScaleFactor": 1, "mobile": false,
        ]
        try await command(
            "POST", "goog/cdp/execute", ["cmd": "Emulation.setDeviceMetricsOverride", "params": metrics],
            "set viewport")
    }

    /// A PNG of the window as it is.
    package func screenshot() async throws -> Data {
        let encoded = try await command("GET", "screenshot", nil, "screenshot").stringValue ?? ""
        guard let png = Data(base64Encoded: encoded) else {
            throw WebDriverError(command: "screenshot", error: "bad answer", message: "not base64")
        }
        return png
    }

    /// Closes the window and ends the session.
    package func delete() async throws {
        try await driver.send("DELETE", "/session/\(id)", command: "delete session")
    }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: JSONValue?, _ name: String) async throws
        -> JSONValue
    {
        try await driver.send(method, "/session/\(id)/\(path)", body, command: name)
    }

    private func element(in value: JSONValue, command: String) throws -> Element {
        guard let id = value[Self.elementKey]?.stringValue else {
            throw WebDriverError(command: command, error: "no element", message: "\(value)")
        }
        return Element(id: id)
    }
}
