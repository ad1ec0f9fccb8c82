import Foundation
import NIOCore
import Testing
import WebImage

@testable import WebImageServer

@Suite struct ImageProxyTests {
    @Test func resizesConvertsAndAnswersWithValidators() async throws {
        try await ProxyHarness.with { harness in
            let fit = await harness.get(harness.plainPath(["rs:fit:200:200"], "photo.jpg"))
            #expect(fit.status == 200)
            #expect(fit.header("Content-Type") == "image/jpeg")
            let fitSize = try ProxyHarness.decode(fit).size
            #expect(fitSize == PixelSize(width: 200, height: 150))
            #expect(fit.header("Cache-Control") == "max-age=31536000, public")
            #expect(fit.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
            #expect(fit.header("Content-Disposition") == "inline; filename=\"photo.jpg\"")
            #expect(fit.header("ETag")?.hasPrefix("\"") == true)
            #expect(fit.header("Last-Modified")?.hasSuffix(" GMT") == true)
            #expect(fit.header("Vary") == nil)
            let head = await harness.proxy.respond(to: ProxyRequest(
                method: "HEAD", path: harness.plainPath(["rs:fit:200:200"], "photo.jpg"), accept: nil, ifNoneMatch: nil))
            #expect(head.status == 200 && head.body.readableBytes == 0 && head.header("Content-Length") == String(fit.body.readableBytes))

            let fill = await harness.get(harness.plainPath(["rs:fill:100:100", "g:sm"], "photo.jpg", ext: "png"))
            #expect(fill.header("Content-Type") == "image/png")
            let fillSize = try ProxyHarness.decode(fill).size
            #expect(fillSize == PixelSize(width: 100, height: 100))

            let webp = await harness.get("/_/w:50/" + Base64URL.encode(Array(harness.origin.url("/files/photo.jpg")
                .absoluteString.utf8)) + ".webp")
            #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
            let webpSize = try ProxyHarness.decode(webp).size
            #expect(webpSize == PixelSize(width: 50, height: 38))
        }
    }

    @Test func theSameResultIsFetchedAndRenderedOnce() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["rs:fill:120:90", "q:70"], "photo.jpg")
            let statuses = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<1_000 { group.addTask { await harness.get(path).status } }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 1_000 && statuses.allSatisfy { $0 == 200 })
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            #expect(harness.proxy.renderingsStarted == 1)
            // Another rendering of the same source needs no second download either.
            #expect(await harness.get(harness.plainPath(["w:10"], "photo.jpg")).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    /// A request that found no result, then reached the render service only after the rendering that stored the
    /// result had ended, is answered from memory: no second download, no second rendering.
    @Test func aLateRequestForAResultJustStoredIsNotRenderedAgain() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["rs:fill:64:48"], "photo.jpg")
            let first = await harness.get(path)
            #expect(first.status == 200 && harness.proxy.renderingsStarted == 1)
            guard case .image(let image) = try harness.proxy.route(ProxyRequest(method: "GET", path: path)) else {
                Issue.record("the path is no image route")
                return
            }
            let late = try await harness.proxy.renders.result(for: image)
            #expect(late.tier == .memory)
            #expect(late.result.etag == first.header("ETag") && late.result.body == first.body)
            #expect(harness.proxy.renderingsStarted == 1 && harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func ifNoneMatchGetsA304AndResultsSurviveARestart() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:100"], "photo.jpg")
            let first = await harness.get(path)
            let etag = try #require(first.header("ETag"))
            let again = await harness.get(path, ifNoneMatch: "\"other\", " + etag)
            #expect(again.status == 304 && again.body.readableBytes == 0 && again.header("ETag") == etag)
            // A second proxy on the same cache folder answers from disk: same bytes, same tag, no download.
            var configuration = harness.proxy.configuration
            configuration.cacheDirectory = harness.folder
            let restarted = ImageProxy(configuration: configuration)
            let fromDisk = await restarted.respond(to: ProxyRequest(method: "GET", path: path))
            #expect(fromDisk.body == first.body && fromDisk.header("ETag") == etag)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    /// A result goes to disk when it is asked for again, not when it is rendered: a proxy restarted on the same
    /// folder renders again only the result that was asked for once.
    @Test func aResultIsWrittenToDiskWhenAskedForAgain() async throws {
        try await ProxyHarness.with { harness in
            let once = harness.plainPath(["w:60"], "photo.jpg"), twice = harness.plainPath(["w:70"], "photo.jpg")
            let first = await harness.get(once)
            #expect(first.status == 200)
            #expect(await harness.get(twice).status == 200)
            #expect(await harness.get(twice).status == 200)
            #expect(harness.proxy.renderingsStarted == 2)
            var configuration = harness.proxy.configuration
            configuration.cacheDirectory = harness.folder
            let restarted = ImageProxy(configuration: configuration)
            let again = await restarted.respond(to: ProxyRequest(method: "GET", path: twice))
            #expect(again.status == 200 && restarted.renderingsStarted == 0)
            let rendered = await restarted.respond(to: ProxyRequest(method: "GET", path: once))
            #expect(rendered.status == 200 && rendered.body == first.body && restarted.renderingsStarted == 1)
        }
    }

    /// A result too large for the memory tier goes to disk with its first answer: no repeat could find it in
    /// memory to write it, and it would be rendered again every time.
    @Test func aResultTooLargeForMemoryIsWrittenToDiskAtOnce() async throws {
        try await ProxyHarness.with(configuring: { $0.memoryBytes = 1 }) { harness in
            let path = harness.plainPath(["w:80"], "photo.jpg")
            let first = await harness.get(path)
            #expect(first.status == 200)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)) == nil)
            let again = await harness.get(path)
            #expect(again.body == first.body && harness.proxy.renderingsStarted == 1)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func negotiationPicksWebPAndSaysVary() async throws {
        let webp = FormatNegotiation(offersAVIF: false, offersWebP: true)
        try await ProxyHarness.with(configuring: { $0.negotiation = webp }) { harness in
            let path = harness.plainPath(["w:40"], "photo.jpg")
            let modern = await harness.get(path, accept: "image/webp,*/*")
            #expect(modern.header("Content-Type") == "image/webp" && modern.header("Vary") == "Accept")
            let old = await harness.get(path, accept: "*/*")
            #expect(old.header("Content-Type") == "image/jpeg" && old.header("Vary") == "Accept")
            let explicit = await harness.get(harness.plainPath(["w:40"], "photo.jpg", ext: "png"), accept: "image/webp")
            // imgproxy says Vary whenever it negotiates, a format in the URL or not.
            #expect(explicit.header("Content-Type") == "image/png" && explicit.header("Vary") == "Accept")
        }
    }

    @Test func animationsStayAnimatedWithEveryFrameResized() async throws {
        try await ProxyHarness.with { harness in
            let animated = await harness.get(harness.plainPath(["w:30"], "anim.gif"))
            #expect(animated.header("Content-Type") == "image/gif")
            let image = try ProxyHarness.decode(animated)
            #expect(image.frames.count == 3 && image.size == PixelSize(width: 30, height: 20))
            #expect(image.frames.map { ($0.duration * 1000).rounded() } == [100, 100, 100])
            #expect(image.frames[1].pixels[15, 10] == RGBA(0, 255, 0))
            let still = try ProxyHarness.decode(await harness.get(harness.plainPath(["w:30"], "anim.gif", ext: "jpg")))
            #expect(still.frames.count == 1)
            let thirdFrame = await harness.get(harness.plainPath(["frame:2"], "anim.gif", ext: "png"))
            let second = try ProxyHarness.decode(thirdFrame)
            #expect(second.frames.count == 1 && second.pixels[5, 5] == RGBA(0, 0, 255))
        }
    }

    @Test func backgroundRoundingAndRotation() async throws {
        try await ProxyHarness.with { harness in
            let flattened = try ProxyHarness.decode(await harness.get(harness.plainPath(["bg:ff0000"], "logo.png")))
            #expect(flattened.pixels[2, 2] == RGBA(255, 0, 0))  // the transparent left quarter, now red
            let rounded = try ProxyHarness.decode(await harness.get(harness.plainPath(["round:10"], "logo.png")))
            #expect(rounded.pixels[63, 0].a == 0 && rounded.pixels[32, 24].a == 255)
            let turned = try ProxyHarness.decode(await harness.get(harness.plainPath(["rot:90"], "logo.png")))
            #expect(turned.size == PixelSize(width: 48, height: 64))
            // Clockwise: the transparent left quarter ends up at the top.
            #expect(turned.pixels[24, 2].a == 0 && turned.pixels[24, 60].a == 255)
        }
    }

    @Test func maxBytesLowersTheQualityUntilItFits() async throws {
        try await ProxyHarness.with { harness in
            let full = await harness.get(harness.plainPath(["q:95"], "photo.jpg"))
            let limit = full.body.readableBytes / 3
            let limited = await harness.get(harness.plainPath(["q:95", "mb:\(limit)"], "photo.jpg"))
            #expect(limited.status == 200 && limited.body.readableBytes <= limit)
            let limitedSize = try ProxyHarness.decode(limited).size
            #expect(limitedSize == PixelSize(width: 400, height: 300))
        }
    }
}

@Suite struct ProxyMetricsTests {
    @Test func metricsCountRequestsCacheTiersAndTheLibrarysWork() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:20"], "photo.jpg")
            #expect(await harness.get(path).status == 200)
            #expect(await harness.get(path).status == 200)
            #expect(await harness.get(harness.plainPath(["nope:1"], "photo.jpg")).status == 404)
            let metrics = await harness.get("/metrics")
            #expect(metrics.status == 200 && metrics.header("Content-Type") == "text/plain; version=0.0.4")
            let text = String(buffer: metrics.body)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains(#"webimage_serve_requests_total{status="200"} 2"#))
            #expect(lines.contains(#"webimage_serve_requests_total{status="404"} 1"#))
            #expect(lines.contains(#"webimage_serve_result_hits_total{tier="memory"} 1"#))
            #expect(lines.contains("webimage_serve_result_misses_total 1"))
            #expect(lines.contains { $0.hasPrefix("webimage_serve_encode_seconds_count") && $0.hasSuffix(" 1") })
            #expect(lines.contains { $0.hasPrefix("webimage_serve_decode_seconds_count") && $0.hasSuffix(" 1") })
            #expect(lines.contains { $0.hasPrefix("webimage_serve_queue_depth") })
        }
    }
}

@Suite struct HTTPDateTests {
    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.string(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(secondsSince1970: 0.9) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(ProxyResponder.matches("W/\"a\", \"b\"", etag: "\"a\"") && ProxyResponder.matches("*", etag: "\"x\""))
        #expect(!ProxyResponder.matches("\"ab\"", etag: "\"a\""))
    }
}
