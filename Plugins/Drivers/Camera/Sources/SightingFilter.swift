/// Turns what each frame shows into events: a code held in front of the camera is in many
/// frames but is one event, and is reported again only after it has been out of view for
/// `outOfView`. A frame that misses a code now and then (motion blur, a glare) does not
/// make it new again. Pure: frame times are passed in.
struct SightingFilter {
    /// How long a code must be out of view before showing it again is a new scan.
    let outOfView: Duration
    /// When each code in view was last seen.
    private var lastSeen: [DecodedCode: Duration] = [:]

    init(outOfView: Duration = .seconds(1)) {
        self.outOfView = outOfView
    }

    /// The codes of the frame at `time` that are new: not seen within `outOfView` before.
    /// A code counts as out of view only while frames come without it, so frames slower
    /// than `outOfView` do not repeat a code that never left.
    mutating func frame(_ codes: [DecodedCode], at time: Duration) -> [DecodedCode] {
        let present = Set(codes)
        lastSeen = lastSeen.filter { code, seen in present.contains(code) || time - seen < outOfView }
        var new: [DecodedCode] = []
        for code in codes {
            if lastSeen[code] == nil, !new.contains(code) { new.append(code) }
            lastSeen[code] = time
        }
        return new
    }

    /// The codes taken to be in view.
    var inView: Set<DecodedCode> { Set(lastSeen.keys) }
}
