import Foundation
import Testing

/// One version number for a release: what the binaries say, the newest version of CHANGELOG.md,
/// the newest entry of debian/changelog (the package's version), the JavaScript and Python
/// clients' packages and, where the checkout stands on a release tag, the tag (docs/releasing.md).
@Suite struct ReleaseVersionTests {
    @Test func everyPlaceSaysTheBinariesVersion() async throws {
        let version = try await run("scanbridge", ["--version"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+/) != nil, "\(version)")

        let changelog = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // `## [Unreleased]` gathers what changed since: the newest version's heading follows it.
        let newest = changelog.firstMatch(of: /\n## \[([0-9][^\]]*)\]/)?.1
        #expect(newest.map(String.init) == version, "CHANGELOG.md's newest version is \(newest ?? "missing")")

        let debian = try String(contentsOf: repositoryRoot.appendingPathComponent("debian/changelog"), encoding: .utf8)
        let package = debian.firstMatch(of: /^scanbridge \(([^)]+)\)/)?.1
        #expect(package.map(String.init) == version, "debian/changelog's newest entry is \(package ?? "missing")")

        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Web/package.json"), encoding: .utf8)
        let client = manifest.firstMatch(of: /"version": "([^"]+)"/)?.1
        #expect(client.map(String.init) == version, "Web/package.json's version is \(client ?? "missing")")

        let project = try String(
            contentsOf: repositoryRoot.appendingPathComponent("clients/python/pyproject.toml"), encoding: .utf8)
        let python = project.firstMatch(of: /(?m)^version = "([^"]+)"/)?.1
        #expect(python.map(String.init) == version, "clients/python/pyproject.toml's version is \(python ?? "missing")")

        let tags = try await Spawned(command: [
            "/usr/bin/git", "-C", repositoryRoot.path, "tag", "--points-at", "HEAD", "v[0-9]*",
        ])
        .finish(timeout: .seconds(60))
        for tag in tags.out.split(separator: "\n") {
            #expect(tag == "v\(version)", "HEAD is tagged \(tag), the binaries say \(version)")
        }
    }
}
