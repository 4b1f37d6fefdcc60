import ScanBridgeClient

extension ChunkedParser {
    /// Everything the parser hands out for `input` given in chunks of `chunkSize` bytes,
    /// the errors included (after one it goes on with what follows), and the parser at the end.
    static func results(of input: [UInt8], chunkSize: Int, parser: Self) -> (
        results: [Result<Output, ImportProblem>], parser: Self
    ) {
        var parser = parser
        var out: [Result<Output, ImportProblem>] = []
        func drain() {
            while true {
                do throws(ImportProblem) {
                    guard let output = try parser.next() else { return }
                    out.append(.success(output))
                } catch {
                    out.append(.failure(error))
                }
            }
        }
        var start = 0
        while start < input.count {
            parser.append(input[start..<min(input.count, start + chunkSize)])
            start += chunkSize
            drain()
        }
        parser.finish()
        drain()
        return (out, parser)
    }
}
