import Foundation
import ScanBridgeModel
import ScanBridgeTesting
import Testing

extension BrowserTests {
    /// The browser test kit on a page of its own (a `data:` URL), so it is tested wherever
    /// Chromium is installed, gateway or not.
    @Suite
    struct BrowserKitTests {
        static let page = """
            <!doctype html><html lang="en"><head><title>Kit</title></head><body>
            <h1 id="greeting">Hello</h1><button id="later" type="button">Later</button><ul id="list"></ul>
            <script>
            document.getElementById("later").addEventListener("click", () => {
              setTimeout(() => {
                for (const n of [1, 2, 3]) {
                  const item = document.createElement("li"); item.dataset.n = n; item.textContent = "item " + n;
                  document.getElementById("list").append(item);
                }
              }, 200);
            });
            </script></body></html>
            """

        @Test func drivesAHeadlessChromium() async throws {
            // The kit's own calls, without the tests' withBrowser, since they are what is tested.
            let driver = try await WebDriver.start()
            // The port it said is the one /proc shows it listening on (what the gateway tests use).
            #expect(ListeningPorts.loopback(of: driver.pid).contains(driver.port))
            let session = try await driver.newSession(width: 800, height: 600)
            let url = "data:text/html;base64," + Data(Self.page.utf8).base64EncodedString()
            try await session.navigate(to: url)
            #expect(try await session.title() == "Kit")
            #expect(try await session.text(of: session.find("#greeting")) == "Hello")

            // An element that appears later: the kit waits for it rather than reading too early.
            try await session.click(session.find("#later"))
            try await session.wait(for: "three items", until: "return document.querySelectorAll('#list li').length === 3")
            let items = try await session.findAll("#list li")
            #expect(items.count == 3)
            #expect(try await session.attribute("data-n", of: items[2]) == "3")

            // Scripts answer JSON, synchronously or through a promise.
            let size = try await session.execute("return [window.innerWidth, window.innerHeight]")
            #expect(size[0]?.intValue == 800)
            #expect(size[1]?.intValue == 600)
            let sum = try await session.executeAsync(
                "const done = arguments[arguments.length - 1]; Promise.resolve(arguments[0] + 1).then(done)", [41])
            #expect(sum.intValue == 42)

            await #expect(throws: WebDriverError.self) { try await session.find("#nothing-here") }
            await #expect(throws: TimedOut.self) {
                try await session.wait(for: "something that never comes", timeout: .milliseconds(300), until: "return false")
            }

            let png = try await session.screenshot()
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            try await session.delete()
            try await driver.stop()
        }
    }
}
