import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension LabSuites.ServiceLane {
    /// The journal's promise under the default `journal.durability: full`: an event whose
    /// `scan.inject` was answered survives a power cut, and no `seq` is given twice. The
    /// daemon's database is on a virtio disk written through to a file on the host; the guest
    /// is killed at the hypervisor in the middle of a burst and booted again on that disk.
    @Suite("Power cut", .serialized, .timeLimit(.minutes(15)))
    struct PowerCutLabTests {
        /// Injects `burst-0`, `burst-1`… on `mock:burst` one after another, and appends each
        /// answer's seq and id to /lab/acks.ndjson (on the host, through 9p, line by line) as
        /// soon as it arrives: what the host reads there was acknowledged.
        static let burst = """
            import json, socket, sys
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(sys.argv[1])
            stream = connection.makefile("rwb", buffering=0)
            acks = open("/lab/acks.ndjson", "a", buffering=1)
            for n in range(int(sys.argv[2])):
                request = {"jsonrpc": "2.0", "id": n, "method": "scan.inject",
                           "params": {"device": "mock:burst", "text": "burst-%d" % n}}
                stream.write(json.dumps(request).encode() + b"\\n")
                event = json.loads(stream.readline())["result"]["event"]
                acks.write(json.dumps({"seq": event["seq"], "id": event["id"]}) + "\\n")
            """

        static let mount = """
            modprobe virtio_blk && modprobe ext4
            i=0; until [ -b /dev/vda ]; do i=$((i + 1)); [ $i -le 100 ] || { echo "no /dev/vda"; exit 1; }; nap 0.1; done
            mkdir -p /mnt/journal

            """

        @Test func noAcknowledgedEventIsLostAndNoSeqIsGivenTwice() async throws {
            let image = LabFolder.root.appendingPathComponent("power-cut-\(getpid()).img")
            try LabFolder.makeFolder(LabFolder.root)
            _ = FileManager.default.createFile(atPath: image.path, contents: nil)
            defer { try? LabFolder.remove(image) }
            try FileHandle(forWritingTo: image).truncate(atOffset: 128 << 20)
            let configuration = GuestConfiguration(devices: [.disk(image: image.path)], udev: false)

            // The first boot: a fresh file system, the daemon on it, a burst, and the power cut.
            let first = try await Lab.boot(configuration)
            try await first.run(
                "format and mount the disk", Self.mount + "mkfs.ext4 -q -F /dev/vda && mount /dev/vda /mnt/journal")
            let daemon = try await first.startDaemon(["--mock", "barcode:burst"], database: "/mnt/journal/scanbridge.sqlite")
            try Self.burst.write(to: first.share.appendingPathComponent("burst.py"), atomically: false, encoding: .utf8)
            try await daemon.background("burst", "python3 /lab/burst.py \(daemon.socket) 5000")
            let acksPath = first.share.appendingPathComponent("acks.ndjson").path
            try await waitUntil("300 acknowledged injections", timeout: .seconds(120)) {
                Self.acknowledged(acksPath).count >= 300
            }
            await first.powerCut()
            let acknowledged = Self.acknowledged(acksPath)
            #expect(acknowledged.count < 5000, "the cut came in the middle of the burst")

            // The second boot on the same disk: the file system's journal and SQLite's recover.
            let second = try await Lab.boot(configuration)
            do {
                try await Self.check(second, acknowledged: acknowledged)
            } catch {
                await second.shutdown()
                throw error
            }
            await second.shutdown()
        }

        /// After the cut: every acknowledged event is in the journal under its seq, the seqs run
        /// from 1 without a gap, and the next event takes the next seq.
        static func check(_ second: Guest, acknowledged: [(seq: Int64, id: String)]) async throws {
            try await second.run("mount the disk again", Self.mount + "mount /dev/vda /mnt/journal")
            let again = try await second.startDaemon(["--mock", "barcode:burst"], database: "/mnt/journal/scanbridge.sqlite")
            let journaled = try await again.waitForScans(acknowledged.count, timeout: .seconds(120))
            let seqs = journaled.compactMap { $0["seq"]?.intValue }
            #expect(seqs == Array(1...Int64(seqs.count)), "seq is gap-free from 1")
            let ids = Dictionary(
                uniqueKeysWithValues: journaled.compactMap { event in
                    event["seq"]?.intValue.map { ($0, event["id"]?.stringValue ?? "") }
                })
            for ack in acknowledged {
                #expect(ids[ack.seq] == ack.id, "acknowledged event \(ack.seq) is there, the same event")
            }
            let next = try await again.call("scan.inject", #"{"device":"mock:burst","text":"after the cut"}"#)
            let nextSeq = try #require(next["event"]?["seq"]?.intValue)
            #expect(nextSeq == Int64(seqs.count) + 1)
            #expect(nextSeq > acknowledged.map(\.seq).max() ?? 0, "no acknowledged seq is given again")
            try await again.stop()
        }

        /// The acknowledgements written whole so far (a line cut by the power cut is not one).
        static func acknowledged(_ path: String) -> [(seq: Int64, id: String)] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
                    let seq = value["seq"]?.intValue, let id = value["id"]?.stringValue
                else { return nil }
                return (seq, id)
            }
        }
    }
}
