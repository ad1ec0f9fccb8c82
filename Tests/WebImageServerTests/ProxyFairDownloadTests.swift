import Foundation
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// Downloads shared fairly between origins: an origin that stalls holds only its share of the download slots
/// (`--max-downloads-per-origin`, a quarter of `--max-downloads` by default), a body that trickles is cut by the
/// download timeout, and every slot comes back. Order of events only, never timing.
@Suite struct ProxyFairDownloadTests {
    /// 64 distinct sources on an origin that holds every request until the test releases it: the origin sees its
    /// share (4 of the 16 slots), and a source on another origin is rendered while all 64 wait. With one line for
    /// every origin the 64 filled all 16 slots and the other origin's request waited behind them.
    @Test func aStalledOriginLeavesTheOtherOriginsTheirSlots() async throws {
        try await ProxyHarness.with { harness in
            let other = try await TestImageServer.start()
            defer { Task { await other.shutdown() } }
            other.serve("photo.jpg", data: try ProxyHarness.photo(width: 200, height: 100, as: .jpeg),
                        contentType: "image/jpeg")
            #expect(harness.proxy.configuration.maximumDownloads == 16)
            let stalled = (0..<64).map { index in
                Task { await harness.get(harness.plainPath(["w:50"], "photo.jpg?n=\(index)", path: "/gate/held/")) }
            }
            #expect(await harness.origin.waitUntil { $0.count("/gate/held/photo.jpg") == 4 })
            #expect(await ProxyLoadTests.eventually { harness.proxy.load.downloadsQueued == 60 })
            #expect(harness.proxy.load.downloading == 4)

            let fresh = await harness.get(Self.path(["w:50"], other.url("/files/photo.jpg")))
            #expect(fresh.status == 200, "\(String(buffer: fresh.body))")
            #expect(try ProxyHarness.decode(fresh).size.width == 50)
            #expect(harness.origin.log.count("/gate/held/photo.jpg") == 4)  // the 64 still pending
            #expect(harness.proxy.load.downloadsQueued == 60)

            harness.origin.openGate("held")
            var statuses: [Int: Int] = [:]
            for request in stalled { statuses[await request.value.status, default: 0] += 1 }
            #expect(statuses == [200: 64])
            #expect(harness.origin.log.count("/gate/held/photo.jpg") == 64)
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            let gauges = await Self.gauges(of: harness)
            #expect(gauges["webimage_serve_download_slots_busy"] == 0)
            #expect(gauges["webimage_serve_downloads_queued"] == 0)
        }
    }

    /// `--download-timeout` covers the whole download, from the request to the body's last byte, as imgproxy's
    /// does: an origin that sends its head at once and then one byte a second never finishes within it, and the
    /// request is answered 504 while the origin has sent only the start of the body; the slot comes back.
    @Test func aBodyThatTricklesIsCutByTheDownloadTimeout() async throws {
        try await ProxyHarness.with(configuring: { $0.downloadTimeout = .seconds(2) }) { harness in
            let size = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg).count
            let response = await harness.get(
                harness.plainPath(["w:50"], "photo.jpg?chunk=1&delayMs=1000", path: "/slow/"))
            #expect(response.status == 504, "\(String(buffer: response.body))")
            let sent = harness.origin.log.requests(for: "/slow/photo.jpg").map(\.bodyBytesSent)
            #expect(sent.count <= 1 && sent.allSatisfy { $0 < size / 2 }, "sent \(sent) of \(size) bytes")
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            // The connection was dropped, not left open.
            #expect(await harness.origin.waitUntil { $0.inFlight == 0 && $0.openConnections == 0 })
            let gauges = await Self.gauges(of: harness)
            #expect(gauges["webimage_serve_download_slots_busy"] == 0)
        }
    }

    /// Thousands of distinct sources over four origins (two servers, each under two spellings) through eight
    /// slots, two an origin, a third of the clients leaving at random points: every request that stayed is
    /// answered, nothing is left in flight, and no origin's share leaked (each still downloads afterwards).
    @Test func thousandsOfDownloadsOverFewOriginsAllAnsweredAndEverySlotReturned() async throws {
        try await ProxyHarness.with(configuring: {
            $0.workers = 2
            $0.queueLimit = 4_096
            $0.maximumDownloads = 8
            $0.maximumDownloadsPerOrigin = 2
            // Two thousand distinct downloads through eight slots: minutes under a sanitizer beside other suites.
            $0.downloadTimeout = .seconds(900)
            $0.requestTimeout = .seconds(900)
        }) { harness in
            let other = try await TestImageServer.start()
            defer { Task { await other.shutdown() } }
            other.serve("photo.jpg", data: try ProxyHarness.photo(width: 120, height: 90, as: .jpeg),
                        contentType: "image/jpeg")
            let origins = [harness.origin.url("/files/photo.jpg"), harness.origin.url("/files/photo.jpg", host: "localhost"),
                           other.url("/files/photo.jpg"), other.url("/files/photo.jpg", host: "localhost")]
            let total = 2_000
            let answered = await ProxyLoadTests.statusesWithEveryThirdLeaving(total) { index in
                let source = origins[index % origins.count].absoluteString + "?n=\(index)"
                // Passed on as it came: what is measured is the download line, not rendering.
                return await harness.get(Self.path(["raw:1"], URL(string: source)!))
            }
            let statuses = Dictionary(answered.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(answered.count == total - (total + 2) / 3 && statuses == [200: answered.count],
                    "statuses: \(statuses)")
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            for origin in origins {
                let again = await harness.get(Self.path(["w:21"], URL(string: origin.absoluteString + "?again")!))
                #expect(again.status == 200, "\(origin)")
            }
            let gauges = await Self.gauges(of: harness)
            #expect(gauges["webimage_serve_download_slots_busy"] == 0)
            #expect(gauges["webimage_serve_downloads_queued"] == 0)
        }
    }

    /// `/_/OPTIONS/plain/SOURCE` for any source URL.
    static func path(_ options: [String], _ source: URL) -> String {
        let encoded = source.absoluteString.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        return "/_" + options.map { "/" + $0 }.joined() + "/plain/" + encoded
    }

    /// The unlabelled gauges of the proxy's `/metrics`, by name.
    static func gauges(of harness: ProxyHarness) async -> [String: Double] {
        let text = String(buffer: await harness.get("/metrics").body)
        var gauges: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.contains("{") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { gauges[String(parts[0])] = value }
        }
        return gauges
    }
}
