import ScanBridgeRPC
import Testing

/// Where the daemon keeps its database and finds its configuration when no option names
/// them (docs/configuration.md, Files and paths).
@Suite("DaemonPaths")
struct DaemonPathsTests {
    @Test("the database: systemd's state folder, then root's, then the user's")
    func database() {
        let home = ["HOME": "/home/a"]
        #expect(
            DaemonPaths.database(environment: ["STATE_DIRECTORY": "/srv/state:/srv/other"], uid: 0)
                == "/srv/state/scanbridge.sqlite")
        #expect(
            DaemonPaths.database(environment: home.merging(["STATE_DIRECTORY": "/srv/state"]) { $1 }, uid: 1000)
                == "/srv/state/scanbridge.sqlite")
        #expect(DaemonPaths.database(environment: home, uid: 0) == "/var/lib/scanbridge/scanbridge.sqlite")
        #expect(DaemonPaths.database(environment: home, uid: 1000) == "/home/a/.local/share/scanbridge/scanbridge.sqlite")
        #expect(
            DaemonPaths.database(environment: home.merging(["XDG_DATA_HOME": "/d"]) { $1 }, uid: 1000)
                == "/d/scanbridge/scanbridge.sqlite")
    }

    @Test("the configuration: systemd's folder, then /etc for root, then the user's; none when missing")
    func config() {
        let home = ["HOME": "/home/a"]
        let service = home.merging(["CONFIGURATION_DIRECTORY": "/srv/config"]) { $1 }
        #expect(DaemonPaths.config(environment: service, uid: 0) { _ in true } == "/srv/config/scanbridge.yaml")
        #expect(DaemonPaths.config(environment: service, uid: 0) { _ in false } == nil, "a missing file: the defaults")
        #expect(
            DaemonPaths.config(environment: service, uid: 0) { $0 == DaemonPaths.systemConfig } == nil,
            "a service reads its own folder's file, not /etc's")
        #expect(DaemonPaths.config(environment: home, uid: 0) { _ in true } == DaemonPaths.systemConfig)
        #expect(
            DaemonPaths.config(environment: home, uid: 1000) { _ in true } == "/home/a/.config/scanbridge/scanbridge.yaml",
            "a user's own daemon never reads the system's file")
        #expect(
            DaemonPaths.config(environment: home.merging(["XDG_CONFIG_HOME": "/c"]) { $1 }, uid: 1000) { _ in true }
                == "/c/scanbridge/scanbridge.yaml")
    }
}
