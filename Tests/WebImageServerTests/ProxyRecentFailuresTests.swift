import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// A result that failed for a lasting reason is answered again with the same status for a while, without a fetch
/// or a render: a source that costs seconds of CPU before it is refused costs them once, not once a request.
@Suite struct ProxyRecentFailuresTests {
    @Test func aRefusedSourceIsNotFetchedOrDecodedAgainForAWhile() async throws {
        try await ProxyHarness.with { harness in
            // libjpeg's ten-scan file with its last (refinement) scan repeated: refused while decoding.
            harness.origin.serve("flood.jpg", data: try Self.scanFlood(), contentType: "image/jpeg")
            let path = harness.plainPath(["w:100"], "flood.jpg")
            for _ in 0..<3 {
                let answer = await harness.get(path)
                #expect(answer.status == 422)
            }
            #expect(harness.origin.log.count("/files/flood.jpg") == 1)
            #expect(harness.proxy.renderingsStarted == 1)
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(metrics.contains("webimage_serve_remembered_failures_total 2"))
            // Another result of the same source is its own key: tried (the source comes from memory or the
            // origin, and is refused again).
            #expect(await harness.get(harness.plainPath(["w:50"], "flood.jpg")).status == 422)
            #expect(harness.proxy.renderingsStarted == 2)
            // The origin's own answers, the server's load and timeouts are asked again at once.
            #expect(![404, 408, 429, 499, 502, 504].contains(where: RecentFailures.isLasting))
        }
    }

    @Test func aZeroLifetimeRemembersNothing() async throws {
        try await ProxyHarness.with(configuring: { $0.failureMemory = .zero }) { harness in
            let path = harness.plainPath(["w:100"], "text.txt")
            #expect(await harness.get(path).status == 422)
            #expect(await harness.get(path).status == 422)
            #expect(harness.proxy.renderingsStarted == 2)
        }
    }

    /// A flat progressive JPEG whose last scan (a luma refinement) is repeated 50 times.
    static func scanFlood() throws -> Data {
        let flat = Image(pixels: try PixelBuffer(width: 256, height: 256, filledWith: RGBA(90, 100, 110)))
        let bytes = [UInt8](try ImageCoders.shared.encode(flat, as: .jpeg, options: EncodeOptions(progressive: true)))
        let lastScan = try #require((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = bytes[lastScan..<(bytes.count - 2)]
        var flood = Array(bytes.dropLast(2))
        for _ in 0..<50 { flood += scan }
        return Data(flood + [0xFF, 0xD9])
    }
}
