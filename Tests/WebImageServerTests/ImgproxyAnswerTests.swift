import Foundation
import NIOCore
import Testing
import WebImage

@testable import WebImageServer

/// What imgproxy's handlers put around an image, through the proxy and a loopback origin: the headers, the
/// source passed through untouched, the format and quality rules, and the limits a URL may set.
@Suite struct ImgproxyAnswerTests {
    @Test func contentDispositionNamesTheFileAsImgproxyDoes() async throws {
        try await ProxyHarness.with { harness in
            func disposition(_ options: [String], ext: String? = nil) async -> String? {
                await harness.get(harness.plainPath(options, "photo.jpg", ext: ext)).header("Content-Disposition")
            }
            #expect(await disposition(["w:20"]) == "inline; filename=\"photo.jpg\"")
            #expect(await disposition(["w:20"], ext: "png") == "inline; filename=\"photo.png\"")
            #expect(await disposition(["fn:holiday"]) == "inline; filename=\"holiday.jpg\"")
            #expect(await disposition(["fn:bXkiZmlsZQ:1", "att:1"]) == "attachment; filename=\"my%22file.jpg\"")
            // Every answer, errors too, forbids scripts and loads.
            let refused = await harness.get(harness.plainPath(["nope:1"], "photo.jpg"))
            #expect(refused.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        }
    }

    @Test func theLifetimeNeverOutlivesTheURLsExpiry() async throws {
        try await ProxyHarness.with { harness in
            let soon = Int(Date().timeIntervalSince1970) + 600
            let answer = await harness.get(harness.plainPath(["w:20", "exp:\(soon)"], "photo.jpg"))
            let answered = Int(Date().timeIntervalSince1970.rounded(.up))
            let maxAge = answer.header("Cache-Control").flatMap { header in
                Int(header.dropFirst("max-age=".count).prefix { $0.isNumber })
            }
            #expect(answer.header("Cache-Control")?.hasSuffix(", public") == true)
            // The seconds left between the request and its answer, however long the answer took.
            let left = max(0, soon - answered)...600
            #expect(maxAge.map(left.contains) == true, "\(answer.header("Cache-Control") ?? "-") not in \(left)")
            let never = await harness.get(harness.plainPath(["w:21", "exp:0"], "photo.jpg"))
            #expect(never.status == 200 && never.header("Cache-Control") == "max-age=31536000, public")
        }
        try await ProxyHarness.with(configuring: { $0.timeToLive = 0 }) { harness in
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).header("Cache-Control") == "no-cache")
        }
    }

    @Test func theSourcesLastModifiedIsTheAnswersFromEveryTier() async throws {
        try await ProxyHarness.with { harness in
            let stamp = "Tue, 03 Mar 2020 10:00:00 GMT"
            harness.origin.serve("dated.png", data: try ProxyHarness.photo(width: 16, height: 16, as: .png),
                                 contentType: "image/png", lastModified: stamp)
            #expect(await harness.get(harness.plainPath(["w:8"], "dated.png")).header("Last-Modified") == stamp)
            // A second result from the cached source, and the first result again from the result cache.
            #expect(await harness.get(harness.plainPath(["w:4"], "dated.png")).header("Last-Modified") == stamp)
            #expect(await harness.get(harness.plainPath(["w:8"], "dated.png")).header("Last-Modified") == stamp)
            #expect(harness.origin.log.count("/files/dated.png") == 1)
        }
    }

    @Test func rawAndSkipProcessingAnswerTheSourceUntouched() async throws {
        try await ProxyHarness.with { harness in
            let original = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
            harness.origin.serve("same.jpg", data: original, contentType: "image/jpeg")
            for options in [["raw:1", "w:10"], ["skp:jpg", "w:10"]] {
                let answer = await harness.get(harness.plainPath(options, "same.jpg"))
                #expect(answer.status == 200 && Data(answer.body.readableBytesView) == original, "\(options)")
                #expect(answer.header("Content-Type") == "image/jpeg")
            }
            // raw ignores the extension; skip_processing does not apply to another format's source.
            let raw = await harness.get(harness.plainPath(["raw:1"], "same.jpg", ext: "png"))
            #expect(Data(raw.body.readableBytesView) == original)
            let processed = await harness.get(harness.plainPath(["skp:png", "w:10"], "same.jpg"))
            #expect(try ProxyHarness.decode(processed).size == PixelSize(width: 10, height: 8))
        }
        // A format negotiated from `Accept` is not the URL's: the source is still passed on, as imgproxy does.
        let webp = FormatNegotiation(offersAVIF: false, offersWebP: true)
        try await ProxyHarness.with(configuring: { $0.negotiation = webp }) { harness in
            let original = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
            harness.origin.serve("same.jpg", data: original, contentType: "image/jpeg")
            let skipped = await harness.get(harness.plainPath(["skp:jpg", "w:10"], "same.jpg"), accept: "image/webp")
            #expect(Data(skipped.body.readableBytesView) == original && skipped.header("Content-Type") == "image/jpeg")
            let named = await harness.get(harness.plainPath(["skp:jpg", "w:10"], "same.jpg", ext: "webp"))
            #expect(named.header("Content-Type") == "image/webp")
        }
    }

    /// imgproxy names every HEIF file `heic`: `skp:heic` passes on a file with the generic `mif1` major brand
    /// (``ImageFormat/heif`` here) as it does one with the `heic` brand. Neither is decoded, so an `ftyp` box
    /// and filler stand for the files.
    @Test func skipProcessingHEICCoversEveryHEIFBrand() async throws {
        try await ProxyHarness.with { harness in
            for major in ["heic", "mif1"] {
                let file = Data([0, 0, 0, 24] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
                    + [UInt8](repeating: 7, count: 100))
                harness.origin.serve("\(major).heic", data: file, contentType: "image/heic")
                let answer = await harness.get(harness.plainPath(["skp:heic", "w:10"], "\(major).heic"))
                #expect(answer.status == 200 && Data(answer.body.readableBytesView) == file, "\(major)")
            }
        }
    }

    @Test func sourcesOutsideThePreferredFormatsBecomeJPEGOrPNG() async throws {
        try await ProxyHarness.with { harness in
            harness.origin.serve("opaque.webp", data: try ProxyHarness.photo(width: 40, height: 30, as: .webp),
                                 contentType: "image/webp")
            harness.origin.serve("clear.webp", data: try ProxyHarness.photo(width: 40, height: 30, as: .webp,
                                                                             alpha: true), contentType: "image/webp")
            #expect(await harness.get(harness.plainPath(["w:20"], "opaque.webp")).header("Content-Type") == "image/jpeg")
            #expect(await harness.get(harness.plainPath(["w:20"], "clear.webp")).header("Content-Type") == "image/png")
            #expect(await harness.get(harness.plainPath(["w:20"], "anim.gif")).header("Content-Type") == "image/gif")
            // What the answer can hold decides, not the source: a background flattens transparency away, padding
            // and extending add some.
            func type(_ options: [String], _ name: String) async -> String? {
                await harness.get(harness.plainPath(options, name)).header("Content-Type")
            }
            #expect(await type(["w:20", "bg:ffffff"], "clear.webp") == "image/jpeg")
            #expect(await type(["w:20", "pd:4"], "opaque.webp") == "image/png")
            #expect(await type(["rs:fit:60:60", "ex:1"], "opaque.webp") == "image/png")
            #expect(await type(["w:20", "pd:4", "bg:00ff00"], "opaque.webp") == "image/jpeg")
        }
        try await ProxyHarness.with(configuring: { $0.preferredFormats = [.webp] }) { harness in
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).header("Content-Type") == "image/webp")
        }
    }

    @Test func bmpAndIcoAreWrittenAndFormatsWithoutAnEncoderAre422() async throws {
        try await ProxyHarness.with { harness throws in
            let bmp = await harness.get(harness.plainPath(["w:40"], "photo.jpg", ext: "bmp"))
            #expect(bmp.header("Content-Type") == "image/bmp" && bmp.header("Content-Disposition")?.contains(".bmp") == true)
            #expect(try ProxyHarness.decode(bmp).size == PixelSize(width: 40, height: 30))
            let ico = await harness.get(harness.plainPath(["w:32"], "logo.png", ext: "ico"))
            #expect(ico.header("Content-Type") == "image/x-icon")
            #expect(try ProxyHarness.decode(ico).size == PixelSize(width: 32, height: 24))
            for name in ["heic", "tiff"] {
                #expect(await harness.get(harness.plainPath(["w:40"], "photo.jpg", ext: name)).status == 422)
            }
        }
    }

    @Test func qualityComesFromTheURLThenTheFormatThenTheServer() async throws {
        try await ProxyHarness.with(configuring: { $0.formatQuality = [.jpeg: 15] }) { harness in
            func bytes(_ options: [String]) async -> Data {
                Data(await harness.get(harness.plainPath(options, "photo.jpg")).body.readableBytesView)
            }
            let configured = await bytes(["w:200"]), explicit = await bytes(["w:200", "q:15"])
            #expect(configured == explicit)
            #expect(await bytes(["w:200", "fq:jpg:40"]) == bytes(["w:200", "q:40"]))
            // An explicit quality wins over the format's, as in imgproxy.
            #expect(await bytes(["w:200", "q:40", "fq:jpg:90"]) == bytes(["w:200", "q:40"]))
            #expect(await bytes(["w:200", "fq:jpg:90"]) != configured)
        }
    }

    @Test func securityOptionsSetLimitsWhenTheServerAllowsThem() async throws {
        try await ProxyHarness.with(configuring: { $0.allowsSecurityOptions = true }) { harness throws in
            #expect(await harness.get(harness.plainPath(["msr:0.01"], "photo.jpg")).status == 422)
            #expect(await harness.get(harness.plainPath(["msfs:100"], "photo.jpg")).status == 422)
            #expect(await harness.get(harness.plainPath(["maf:1"], "anim.gif")).status == 422)
            #expect(await harness.get(harness.plainPath(["msr:1", "msfs:10000000"], "photo.jpg")).status == 200)
            // The result's longer side is scaled down to the limit, as imgproxy does.
            let bounded = await harness.get(harness.plainPath(["mrd:100"], "photo.jpg"))
            #expect(try ProxyHarness.decode(bounded).size == PixelSize(width: 100, height: 75))
        }
        try await ProxyHarness.with { harness in
            #expect(await harness.get(harness.plainPath(["msr:100"], "photo.jpg")).status == 403)
            #expect(harness.origin.log.requests.isEmpty)
        }
    }

    /// What one render may hold of an animation's frames is bounded (frames × canvas): 3 frames of 60 × 40 are
    /// 7 200 pixels, refused under a bound of 7 000 and drawn under one of 7 200; a still made of its first frame
    /// holds one frame only.
    @Test func animationsOverTheFrameBoundAreRefusedBeforeDecoding() async throws {
        try await ProxyHarness.with(configuring: { $0.maximumAnimationPixels = 7_000 }) { harness in
            let refused = await harness.get(harness.plainPath(["w:30"], "anim.gif"))
            #expect(refused.status == 422 && String(buffer: refused.body).contains("too large"))
            #expect(await harness.get(harness.plainPath(["w:30"], "anim.gif", ext: "jpg")).status == 200)
        }
        try await ProxyHarness.with(configuring: { $0.maximumAnimationPixels = 7_200 }) { harness throws in
            let drawn = await harness.get(harness.plainPath(["w:30"], "anim.gif"))
            #expect(try ProxyHarness.decode(drawn).frames.count == 3)
        }
    }

    @Test func originStatusesArePassedOnAsImgproxyPassesThem() async throws {
        try await ProxyHarness.with { harness in
            let source = harness.origin.url("/status/").absoluteString
            func status(of code: Int) async -> Int {
                let encoded = (source + "\(code)").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
                return await harness.get("/_/w:10/plain/" + encoded).status
            }
            #expect(await status(of: 404) == 404)
            #expect(await status(of: 403) == 403)
            #expect(await status(of: 500) == 502)
        }
    }
}

/// imgproxy's `strip_color_profile`: by default the answer is converted to sRGB and carries no profile;
/// `scp:0` keeps the source's samples and writes its profile into the answer.
@Suite struct ProxyColorProfileTests {
    @Test func answersAreSRGBUnlessTheProfileIsKept() async throws {
        try await ProxyHarness.with { harness in
            let stored = RGBA(200, 100, 50)
            var image = Image(pixels: try PixelBuffer(width: 64, height: 48, filledWith: stored))
            image.colorProfile = .displayP3
            let source = try ImageCoders.shared.encode(image, as: .png)
            harness.origin.serve("p3.png", data: source, contentType: "image/png")
            let expected = try ImageCoders.shared.decode(source).pixels[0, 0]
            #expect(expected != stored)

            let plain = await harness.get(harness.plainPath(["w:32"], "p3.png", ext: "png"))
            let plainBody = Data(plain.body.readableBytesView)
            #expect(plain.status == 200)
            #expect(try ImageCoders.shared.properties(of: plainBody).colorProfile == nil)
            #expect(try ImageCoders.shared.decode(plainBody).pixels[16, 12] == expected)

            let kept = await harness.get(harness.plainPath(["w:32", "scp:0"], "p3.png", ext: "png"))
            let keptBody = Data(kept.body.readableBytesView)
            #expect(try ImageCoders.shared.properties(of: keptBody).colorSpace == .displayP3)
            let samples = try ImageCoders.shared.decode(keptBody, options: DecodeOptions(colorHandling: .original))
            #expect(samples.pixels[16, 12] == stored)
            #expect(try ImageCoders.shared.decode(keptBody).pixels[16, 12] == expected)

            // GIF carries no profile: kept samples would be shown as sRGB, so the answer is converted anyway.
            let gif = await harness.get(harness.plainPath(["w:32", "scp:0"], "p3.png", ext: "gif"))
            let shown = try ImageCoders.shared.decode(Data(gif.body.readableBytesView)).pixels[16, 12]
            #expect(abs(Int(shown.r) - Int(expected.r)) <= 8 && abs(Int(shown.g) - Int(expected.g)) <= 8
                        && abs(Int(shown.b) - Int(expected.b)) <= 8, "\(shown) against \(expected)")
        }
    }
}
