/// A WebDriver command that failed: the command, and what chromedriver said.
package struct WebDriverError: Error, CustomStringConvertible {
    package let command: String
    /// The W3C error code (`no such element`, `javascript error` …), or a transport failure.
    package let error: String
    package let message: String

    package init(command: String, error: String, message: String) {
        self.command = command
        self.error = error
        self.message = message
    }

    package var description: String { "WebDriver \(command) failed: \(error): \(message)" }
}
