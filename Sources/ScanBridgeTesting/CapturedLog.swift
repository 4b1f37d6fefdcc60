package import Logging
package import Synchronization

/// Every log line, message and metadata, as text.
package final class CapturedLog: Sendable {
    package let lines = Mutex<[String]>([])
    package var text: String { lines.withLock { $0.joined(separator: "\n") } }

    package var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    package init() {}

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.level) \(event.message) \(metadata) \(event.metadata ?? [:])") }
        }
    }
}
