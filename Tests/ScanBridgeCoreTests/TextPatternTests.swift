import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("TextPattern")
struct TextPatternTests {
    @Test("the whole text must match; (?i) at the start ignores case")
    func wholeText() throws {
        let references = try TextPattern("(?i)RM-?[0-9]+")
        #expect(references.matches("RM-1001"))
        #expect(references.matches("rm1001"))
        #expect(references.matches("RM-1001"[...]))
        #expect(!references.matches("XRM-1001"))
        #expect(!references.matches("RM-1001X"))
        #expect(!references.matches("RM-"))
        let exact = try TextPattern("RM-[0-9]+|TICKET-[A-Z]{3}")
        #expect(exact.matches("TICKET-ABC"))
        #expect(!exact.matches("rm-1"), "without (?i), case counts")
        #expect(!exact.matches("RM-1|TICKET-ABC"), "alternatives are anchored as a whole")
    }

    @Test("a text with a NUL character never matches")
    func nul() throws {
        #expect(!(try TextPattern(".*")).matches("RM-1\u{0}"))
    }

    @Test("a malformed or empty pattern is refused with the C library's reason")
    func invalid() {
        #expect(throws: TextPattern.InvalidPattern.self) { try TextPattern("RM-[0-9") }
        #expect(throws: TextPattern.InvalidPattern.self) { try TextPattern("(?i)") }
        do {
            _ = try TextPattern("(unclosed")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("'(unclosed' is not a POSIX extended regular expression"))
        }
    }

    @Test("anywhere: a part of the text matches; ^ and $ anchor to its ends")
    func anywhere() throws {
        let prefix = try TextPattern("(?i)^LOYALTY-", matching: .anywhere)
        #expect(prefix.matches("loyalty-0042"))
        #expect(!prefix.matches("X-LOYALTY-0042"))
        let inside = try TextPattern("[0-9]{4}", matching: .anywhere)
        #expect(inside.matches("card 0042 here"))
        #expect(!inside.matches("card 42"))
    }

    @Test("a pattern that would backtrack for ever on a long text answers at once")
    func noCatastrophicBacktracking() throws {
        // Swift's Regex, a backtracking engine, takes exponential time on this text.
        let nested = try TextPattern("(a*)*b", matching: .anywhere)
        #expect(!nested.matches(String(repeating: "a", count: 8192)))
        let alternatives = try TextPattern("^(a|aa)+$", matching: .anywhere)
        #expect(!alternatives.matches(String(repeating: "a", count: 8191) + "!"))
    }

    @Test("back-references and over-long patterns are refused")
    func bounded() {
        #expect(throws: TextPattern.InvalidPattern.self) { try TextPattern("(a)\\1", matching: .anywhere) }
        #expect(throws: TextPattern.InvalidPattern.self) {
            try TextPattern(String(repeating: "a", count: TextPattern.maxLength + 1))
        }
        // An escaped backslash before a digit is a literal backslash, not a back-reference.
        #expect((try? TextPattern("a\\\\1", matching: .anywhere))?.matches("a\\1") == true)
    }

    @Test("a repetition that would make the compiled pattern huge is refused, at once")
    func repetitionsBounded() throws {
        // Each made regcomp take seconds and gigabytes, from a client's handlers.register.
        let huge = [
            "a{1,32767}", "(((a{1,255}){1,255}){1,255})", "(a?){32767}", "a" + String(repeating: "+", count: 24),
            "((ab){40}){40}", "(a|b){501}", "x{,1001}", "[[:alpha:]]{1001,}",
        ]
        for pattern in huge {
            let start = ContinuousClock.now
            do {
                _ = try TextPattern(pattern, matching: .anywhere)
                Issue.record("'\(pattern)' accepted")
            } catch {
                #expect(error.description.contains("repeats too much"), "\(pattern): \(error)")
            }
            #expect(ContinuousClock.now - start < .seconds(1), "\(pattern)")
        }
        for pattern in ["a{1,1000}", "(?i)^[A-Z]{2}-[0-9]{4,8}$", "[[:digit:]{}]{12}x{,5}", "(RM-|ORD)[0-9]{1,255}", "a{2}{3}"] {
            #expect((try? TextPattern(pattern, matching: .anywhere)) != nil, "\(pattern) refused")
        }
        #expect((try? TextPattern("(ab){3}c{2,4}"))?.matches("abababccc") == true)
    }

    @Test("one compiled pattern serves many threads at once")
    func concurrent() async throws {
        let pattern = try TextPattern("(?i)RM-?[0-9]+")
        let matched = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<2_000).filter { pattern.matches($0.isMultiple(of: 2) ? "rm-\(task)\($0)" : "bench-\($0)") }.count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(matched == 8 * 1_000)
    }
}
