/// Which frames are worth decoding. A camera at a counter looks at the same still scene most of
/// the day, and searching a frame for codes costs much the same CPU whatever it holds: decoding
/// every frame of an empty view would spend a large share of a core on nothing
/// (docs/architecture.md, Design decisions). A frame that looks like the last decoded one
/// (the mean of every 16×16 block within a few grey levels of it, after taking out a change
/// of the whole picture's brightness, as auto-exposure makes) has the codes that frame had,
/// so it is skipped and those codes count as seen again.
///
/// What keeps a code from being missed:
/// - The reference is the last decoded frame, not the previous one, so a slow drift adds up
///   until it counts as a change.
/// - After a change, every frame is decoded for `settle`: a code carried in is blurred while
///   it moves, and the sharp frames once it stops differ from the blurred ones too little in
///   block means to count as a change of their own.
/// - At least one frame every `refresh` is decoded, whatever the gate thinks.
///
/// Pure: frames and their times are passed in. Sensor noise averages out over a block (±6
/// grey levels a pixel is about ±0.2 over 256 pixels), far under the threshold.
struct StillSceneGate {
    static let block = 16

    let threshold: Double
    let settle: Duration
    let refresh: Duration
    private var reference: BlockMeans?
    private var settlingUntil: Duration = .zero
    private var lastDecoded: Duration?

    init(threshold: Double = 6, settle: Duration = .seconds(1), refresh: Duration = .seconds(1)) {
        self.threshold = threshold
        self.settle = settle
        self.refresh = refresh
    }

    /// Whether to decode `frame`, seen at `time`; when true it becomes the reference.
    mutating func shouldDecode(_ frame: GrayFrame, at time: Duration) -> Bool {
        let means = BlockMeans(frame)
        let changed = reference.map { !means.matches($0, within: threshold) } ?? true
        if changed { settlingUntil = time + settle }
        let due = lastDecoded.map { time - $0 >= refresh } ?? true
        guard changed || time < settlingUntil || due else { return false }
        reference = means
        lastDecoded = time
        return true
    }
}

/// The mean grey level of each 16×16 block of a frame (the last partial row and column of
/// blocks left out).
struct BlockMeans: Equatable {
    let columns: Int
    let rows: Int
    let means: [Double]

    init(_ frame: GrayFrame) {
        let size = StillSceneGate.block
        let columns = frame.width / size
        let rows = frame.height / size
        var sums = [Int](repeating: 0, count: columns * rows)
        frame.bytes.withUnsafeBufferPointer { pixels in
            for y in 0..<(rows * size) {
                let line = y * frame.bytesPerLine
                let rowOfBlocks = (y / size) * columns
                for column in 0..<columns {
                    var sum = 0
                    let start = line + column * size
                    for x in start..<(start + size) { sum &+= Int(pixels[x]) }
                    sums[rowOfBlocks + column] &+= sum
                }
            }
        }
        self.columns = columns
        self.rows = rows
        means = sums.map { Double($0) / Double(size * size) }
    }

    /// Whether every block is within `threshold` of `other`'s once the whole picture's change
    /// of brightness (the median block's) is taken out; frames of other sizes never match.
    func matches(_ other: BlockMeans, within threshold: Double) -> Bool {
        guard columns == other.columns, rows == other.rows else { return false }
        guard !means.isEmpty else { return true }
        let differences = zip(means, other.means).map { $0 - $1 }
        let shift = differences.sorted()[differences.count / 2]
        return differences.allSatisfy { abs($0 - shift) < threshold }
    }
}
