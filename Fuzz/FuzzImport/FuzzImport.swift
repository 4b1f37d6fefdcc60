import FuzzSupport
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge import`'s readers, the first byte choosing the CSV reader or the JSON
/// splitter: a file of any bytes, read in chunks of any size, gives records and problems
/// naming their line, never a crash, and each problem moves the reader on.
enum FuzzImport: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        if input.byte() % 2 == 0 {
            read(with: CSVReader(), input.chunks()) { _ in }
        } else {
            read(with: JSONSplitter(), input.chunks()) { _ = try? JSONValue(parsing: $0.bytes) }
        }
    }

    private static func read<Parser: ChunkedParser>(
        with parser: Parser, _ chunks: [[UInt8]], _ use: (Parser.Output) -> Void
    ) {
        var parser = parser
        // A problem is at least a byte of input: more problems than bytes is a reader stuck in place.
        let total = chunks.reduce(0) { $0 + $1.count }
        var problems = 0
        func drain() {
            while true {
                do throws(ImportProblem) {
                    guard let output = try parser.next() else { return }
                    use(output)
                } catch {
                    problems += 1
                    fuzzCheck(problems <= total + 1, "\(problems) problems from \(total) bytes: \(error)")
                }
            }
        }
        for chunk in chunks {
            parser.append(chunk)
            drain()
        }
        parser.finish()
        drain()
    }
}
