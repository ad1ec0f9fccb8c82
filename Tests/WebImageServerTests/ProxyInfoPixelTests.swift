import CoderTestSupport
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// `/info`'s slow options: placeholders, colours and hashes from one reduced decode (the library's own, checked
/// against the reference implementations elsewhere), checksums of the source's bytes, alpha, pages, crops.
@Suite struct ProxyInfoPixelTests {
    static func get(_ harness: ProxyHarness, _ options: [String], _ name: String) async throws -> [String: Any] {
        try ProxyInfoTests.json(await harness.get(ProxyInfoTests.infoPath(harness, options, name)))
    }

    /// The harness's photo decoded as `/info` decodes it for pixel options.
    static func reducedPhoto() throws -> PixelBuffer {
        let data = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
        let side = DecodeOptions.describingSide
        return try ImageCoders.shared.decode(data, options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: side, height: side), firstFrameOnly: true)).pixels
    }

    @Test func placeholdersColoursAndHashesAreTheLibrarysOnTheReducedDecode() async throws {
        let pixels = try Self.reducedPhoto()
        #expect(pixels.size == PixelSize(width: 100, height: 75))
        try await ProxyHarness.with { harness in
            let info = try await Self.get(harness, ["bh:4:3", "th:1", "ph:1", "avg:1", "p:8", "dc:1:1"], "photo.jpg")
            #expect(info["blurhash"] as? String == (try BlurHash.encode(pixels, componentsX: 4, componentsY: 3)))
            let thumbHash = try ThumbHash.encode(pixels).map { String(format: "%02X", $0) }.joined()
            #expect(info["thumb_hash"] as? String == thumbHash)
            #expect(info["perceptual_hash"] as? String == PerceptualHash.hexString(try PerceptualHash.hash(pixels)))
            let average = try #require(pixels.averageColor())
            #expect(info["average"] as? [String: Int] == ["R": Int(average.r), "G": Int(average.g),
                                                          "B": Int(average.b), "A": 255])
            let palette = try #require(info["palette"] as? [[String: Int]])
            #expect(palette == (try pixels.palette(maxColors: 8)).map {
                ["R": Int($0.r), "G": Int($0.g), "B": Int($0.b), "A": Int($0.a)]
            })
            let dominant = try #require(info["dominant_colors"] as? [String: [String: Int]])
            let found = try DominantColors(of: pixels, buildingMissing: true)
            #expect(dominant["vibrant"] == found.vibrant.map { ["R": Int($0.r), "G": Int($0.g), "B": Int($0.b)] })
            #expect(dominant.count == 6)  // every role built
            // The header's fields are still there.
            #expect(info["width"] as? Int == 400 && info["size"] as? Int != nil)
        }
    }

    @Test func checksumsOfTheSourceAndAChecksumTheURLExpects() async throws {
        let source = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
        try await ProxyHarness.with { harness in
            let info = try await Self.get(harness, ["chs:md5:sha256"], "photo.jpg")
            let sums = try #require(info["hashsums"] as? [String: String])
            #expect(sums == ["md5": HashSum.md5.hex(of: source), "sha256": HashSum.sha256.hex(of: source)])
            let right = "hs:sha1:" + HashSum.sha1.hex(of: source)
            #expect(await harness.get(ProxyInfoTests.infoPath(harness, [right], "photo.jpg")).status == 200)
            let wrong = await harness.get(ProxyInfoTests.infoPath(harness, ["hs:sha1:" + String(repeating: "0", count: 40)],
                                                                  "photo.jpg"))
            #expect(wrong.status == 422 && String(buffer: wrong.body).contains("sha1"))
        }
    }

    @Test func alphaTransparencyPagesBandsAndColourspace() async throws {
        var opaque = Image(pixels: try PixelBuffer(width: 40, height: 30, filledWith: RGBA(10, 20, 30)))
        opaque.flags.insert(.hasAlpha)
        // One pixel at alpha 254: a reduced decode would average it away, the check must not.
        var bytes = Array(repeatElement([UInt8]([10, 20, 30, 255]), count: 400 * 300).joined())
        bytes[(45 * 400 + 123) * 4 + 3] = 254
        let nearly = try PixelBuffer(width: 400, height: 300, rgba: bytes)
        try await ProxyHarness.with { harness in
            harness.origin.serve("opaque.png", data: try ImageCoders.shared.encode(opaque, as: .png),
                                 contentType: "image/png")
            harness.origin.serve("nearly.png", data: try ImageCoders.shared.encode(Image(pixels: nearly), as: .png),
                                 contentType: "image/png")
            let options = ["a:1:1", "pn:1", "b:1", "cs:1", "sf:1"]
            let logo = try await Self.get(harness, options, "logo.png")  // a quarter fully transparent
            #expect(logo["alpha"] as? Bool == true && logo["transparent"] as? Bool == true)
            #expect(logo["bands"] as? Int == 4 && logo["colorspace"] as? String == "srgb")
            #expect(logo["sample_format"] as? String == "uchar" && logo["pages_number"] as? Int == 1)
            let nearlyInfo = try await Self.get(harness, options, "nearly.png")
            #expect(nearlyInfo["alpha"] as? Bool == true && nearlyInfo["transparent"] as? Bool == true)
            let opaqueInfo = try await Self.get(harness, options, "opaque.png")
            #expect(opaqueInfo["transparent"] as? Bool == false)
            let photo = try await Self.get(harness, options, "photo.jpg")
            #expect(photo["alpha"] as? Bool == false && photo["transparent"] as? Bool == false)
            #expect(photo["bands"] as? Int == 3)
            let animation = try await Self.get(harness, ["pn:1", "avg:1", "pg:2"], "anim.gif")
            #expect(animation["pages_number"] as? Int == 3)
            // Page 2 is the blue frame.
            #expect(animation["average"] as? [String: Int] == ["R": 0, "G": 0, "B": 255, "A": 255])
        }
    }

    @Test func aDisplayP3SourcesColoursAreDescribedInSRGB() async throws {
        var image = Image(pixels: try PixelBuffer(width: 64, height: 48, filledWith: RGBA(200, 100, 50)))
        image.colorProfile = .displayP3
        let source = try ImageCoders.shared.encode(image, as: .png)
        let inSRGB = try ImageCoders.shared.decode(source).pixels[0, 0]
        #expect(inSRGB != RGBA(200, 100, 50))
        try await ProxyHarness.with { harness in
            harness.origin.serve("p3.png", data: source, contentType: "image/png")
            let info = try await Self.get(harness, ["avg:1", "cs:1"], "p3.png")
            #expect(info["colorspace"] as? String == "srgb")
            #expect(info["average"] as? [String: Int] == ["R": Int(inSRGB.r), "G": Int(inSRGB.g),
                                                          "B": Int(inSRGB.b), "A": 255])
        }
    }

    @Test func cropsAsFractionsOfTheImage() async throws {
        try await ProxyHarness.with { harness in
            let centre = try await Self.get(harness, ["c:100:150"], "photo.jpg")
            let crop = try #require(centre["crop"] as? [String: Double])
            // imgproxy's centre: half of one more than the free space, halves to even (150.5 → 150, 75.5 → 76).
            #expect(crop == ["left": 150.0 / 400, "top": 76.0 / 300, "width": 0.25, "height": 0.5])
            let corner = try await Self.get(harness, ["c:0.5:0.5:soea"], "photo.jpg")
            #expect(corner["crop"] as? [String: Double] == ["left": 0.5, "top": 0.5, "width": 0.5, "height": 0.5])
            let smart = try await Self.get(harness, ["c:200:300:sm"], "photo.jpg")
            let found = try #require(smart["crop"] as? [String: Double])
            #expect(found["width"] == 0.5 && found["top"] == 0 && (0...0.5).contains(found["left"] ?? -1))
        }
    }
}
