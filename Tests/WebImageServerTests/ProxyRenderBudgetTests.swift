import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// Every render has a budget of CPU time, checked in its long loops: a render over it stops and is answered 422
/// (counted in `/metrics`), and a render nobody waits for any more (its requests timed out) stops instead of
/// running on.
@Suite struct ProxyRenderBudgetTests {
    /// A flat `side`² PNG: small to send, as costly as any other of its size to blur.
    static func flat(side: Int) throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: side, height: side,
                                                                  filledWith: RGBA(80, 120, 160))), as: .png)
    }

    /// A 16-bit `side`² PNG of a ramp.
    static func deep(side: Int) throws -> Data {
        let samples = (0..<(side * side)).flatMap { index -> [UInt16] in
            let x = index % side, y = index / side
            return [UInt16(truncatingIfNeeded: x * 97), UInt16(truncatingIfNeeded: y * 89), 30_000, 65_535]
        }
        let deep = try DeepPixelBuffer(width: side, height: side, samples: samples)
        return try ImageCoders.shared.encode(Image(frames: [ImageFrame(deep: deep)]), as: .png)
    }

    static func stops(_ metrics: String, _ reason: String) -> Int? {
        let prefix = #"webimage_serve_renders_stopped_total{reason=""# + reason + #""} "#
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test func aRenderOverItsCPUBudgetIsRefusedAndCounted() async throws {
        // A millisecond: far less than blurring four megapixels costs in any build.
        try await ProxyHarness.with(configuring: { $0.renderCPUBudget = .milliseconds(1) }) { harness in
            harness.origin.serve("flat.png", data: try Self.flat(side: 2000), contentType: "image/png")
            harness.origin.serve("deep.png", data: try Self.deep(side: 600), contentType: "image/png")
            let refused = await harness.get(harness.plainPath(["bl:40"], "flat.png"))
            #expect(refused.status == 422)
            #expect(String(buffer: refused.body).contains("CPU time"))
            // 16-bit samples through a filter chain, kept deep: the deep loops check the budget too.
            let deep = await harness.get(harness.plainPath(["ph:1", "bl:20", "sh:5"], "deep.png", ext: "png"))
            #expect(deep.status == 422)
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(Self.stops(metrics, "cpu_budget") == 2)
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
        }
        // The default budget renders both.
        try await ProxyHarness.with { harness in
            harness.origin.serve("flat.png", data: try Self.flat(side: 2000), contentType: "image/png")
            harness.origin.serve("deep.png", data: try Self.deep(side: 600), contentType: "image/png")
            #expect(await harness.get(harness.plainPath(["bl:40"], "flat.png")).status == 200)
            let deepPath = harness.plainPath(["ph:1", "bl:20", "sh:5"], "deep.png", ext: "png")
            #expect(await harness.get(deepPath).status == 200)
        }
    }

    @Test func aRenderOverItsMemoryBudgetIsRefusedBeforeDecoding() async throws {
        // A mebibyte: the 400×300 photo decoded whole (480 KB), its result and a working copy need 1.4 MB; made
        // into a 50 px thumbnail it is decoded reduced and fits.
        try await ProxyHarness.with(configuring: { $0.renderMemoryBudget = 1 << 20 }) { harness in
            let refused = await harness.get(harness.plainPath(["w:400"], "photo.jpg"))
            #expect(refused.status == 422)
            #expect(String(buffer: refused.body).contains("MB of pixels"))
            #expect(await harness.get(harness.plainPath(["w:50"], "photo.jpg")).status == 200)
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(Self.stops(metrics, "memory_budget") == 1)
            #expect(harness.proxy.load == .idle)
        }
        // The estimate itself: 16-bit samples kept through a 50-megapixel render, about 1.8 GB, fit the default.
        let properties = ImageProperties(format: .png, size: PixelSize(width: 7071, height: 7071), hasAlpha: true)
        let options = try ProcessingOptions(segments: ["ph:1"])
        let plan = try SourceDecodePlan(properties: properties, options: options, output: .png,
                                        limits: DecodeLimits(maxPixels: 60_000_000), maximumFrames: 500)
        let needed = RenderMemoryEstimate.bytes(properties: properties, plan: plan, options: options)
        #expect(needed == 3 * 7071 * 7071 * 12)
        #expect(needed < ProxyConfiguration().renderMemoryBudget)
    }

    @Test func aRenderWhoseRequestsTimedOutStops() async throws {
        try await ProxyHarness.with(configuring: { $0.requestTimeout = .seconds(1) }) { harness in
            // 36 megapixels decoded, then blurred: seconds in a debug build, which outlast the request.
            harness.origin.serve("large.png", data: try Self.flat(side: 6000), contentType: "image/png")
            let answer = await harness.get(harness.plainPath(["bl:60", "sh:2"], "large.png"))
            #expect(answer.status == 504)
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            // Not run to the end: stopped at a checkpoint once its last request left, or (on a machine slow enough
            // that the second passed before the render began) never started.
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(Self.stops(metrics, "abandoned") == harness.proxy.renders.renderingsDrawn)
            #expect(Self.stops(metrics, "cpu_budget") == 0)
        }
    }

    @Test func aRenderWhoseClientLeftWhileItRanStopsAtItsNextCheck() async throws {
        try await ProxyHarness.with { harness in
            harness.origin.serve("large.png", data: try Self.flat(side: 6000), contentType: "image/png")
            let request = Task { await harness.get(harness.plainPath(["bl:60", "sh:2"], "large.png")) }
            // Leaves once the render holds its CPU slot (decoding, or already blurring): seconds of work remain.
            #expect(await ProxyLoadTests.eventually { harness.proxy.load.rendering == 1 })
            request.cancel()
            #expect(await request.value.status == 499)
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(harness.proxy.renders.renderingsDrawn == 1)
            #expect(Self.stops(metrics, "abandoned") == 1)
            #expect(Self.stops(metrics, "cpu_budget") == 0)
        }
    }
}
