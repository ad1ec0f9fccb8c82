import CoderTestSupport
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// Autoquality (imgproxy Pro's `autoquality`, `aq`): each result's quality searched for, to a DSSIM against the
/// unencoded result or to a byte size, within the server's or the URL's range.
@Suite struct ProxyAutoqualityTests {
    static func dssim(_ answer: ProxyResponse, against reference: ProxyResponse) throws -> Double {
        let encoded = try ProxyHarness.decode(answer).pixels
        let exact = try ProxyHarness.decode(reference).pixels
        return EncodeTarget.dssim(ofSSIM: try StructuralSimilarity.index(exact, encoded))
    }

    static func withPhoto(configuring adjust: @escaping (inout ProxyConfiguration) -> Void = { _ in },
                          _ body: (ProxyHarness) async throws -> Void) async throws {
        try await ProxyHarness.with(configuring: adjust) { harness in
            harness.origin.serve("grain.jpg", data: try ProxyBestFormatTests.photo(), contentType: "image/jpeg")
            try await body(harness)
        }
    }

    @Test func aDSSIMTargetIsMetWithinTheAllowedErrorOnTheResultsOwnPixels() async throws {
        try await Self.withPhoto { harness in
            // The unencoded result: the same render, lossless.
            let exact = await harness.get(harness.plainPath(["w:160"], "grain.jpg", ext: "png"))
            var bytes: [Int] = []
            for target in [0.02, 0.04] {
                let answer = await harness.get(harness.plainPath(["w:160", "aq:dssim:\(target):20:95:0.002"],
                                                                 "grain.jpg", ext: "jpg"))
                #expect(answer.status == 200)
                let measured = try Self.dssim(answer, against: exact)
                #expect(abs(measured - target) <= 0.002, "target \(target): \(measured)")
                bytes.append(answer.body.readableBytes)
            }
            #expect(bytes[0] > bytes[1])  // a lower target costs more bytes
        }
    }

    @Test func aSizeTargetGetsTheHighestQualityThatFits() async throws {
        try await Self.withPhoto { harness in
            let fixed = { (quality: Int) async -> Int in
                await harness.get(harness.plainPath(["w:160", "q:\(quality)"], "grain.jpg", ext: "jpg"))
                    .body.readableBytes
            }
            let budget = await fixed(50) + 100
            let answer = await harness.get(harness.plainPath(["w:160", "aq:size:\(budget):10:90"], "grain.jpg",
                                                             ext: "jpg"))
            #expect(answer.body.readableBytes <= budget)
            // It is the bytes of some quality of at least 50 whose next one does not fit.
            var quality = 90
            while await fixed(quality) > budget { quality -= 1 }
            let fitting = await fixed(quality)
            #expect(quality >= 50 && answer.body.readableBytes == fitting)
        }
    }

    @Test func theServersSettingsApplyToURLsWithoutTheOptionAndNoneTurnsThemOff() async throws {
        try await Self.withPhoto(configuring: {
            $0.autoquality.method = .dssim
            $0.autoquality.target = 0.03
            $0.autoquality.minimum = 20
            $0.autoquality.maximum = 95
        }) { harness throws in
            let exact = await harness.get(harness.plainPath(["w:160"], "grain.jpg", ext: "png"))
            let searched = await harness.get(harness.plainPath(["w:160"], "grain.jpg", ext: "jpg"))
            #expect(abs(try Self.dssim(searched, against: exact) - 0.03) <= 0.002)
            // The URL turns it off: the fixed quality, the same bytes as q:80.
            let off = await harness.get(harness.plainPath(["w:160", "aq:none"], "grain.jpg", ext: "jpg"))
            let fixed = await harness.get(harness.plainPath(["w:160", "q:80", "aq:none"], "grain.jpg", ext: "jpg"))
            #expect(off.bodyData == fixed.bodyData && off.bodyData != searched.bodyData)
            // Lossless answers are not searched: the PNG is the same whatever the method.
            #expect(exact.status == 200)
            #expect(await harness.get(harness.plainPath(["w:160"], "grain.jpg", ext: "png")).bodyData == exact.bodyData)
            let searches = harness.proxy.metrics.exposition()
                .split(separator: "\n").first { $0.hasPrefix("webimage_serve_quality_searches_total ") }
            #expect(searches == "webimage_serve_quality_searches_total 1")
        }
    }

    @Test func aSearchedAnswerKeepsTheMetadataAFixedOneKeeps() async throws {
        try await ProxyHarness.with { harness in
            harness.origin.serve("tagged.jpg", data: try ProxyMetadataTests.taggedPhoto(), contentType: "image/jpeg")
            let fixed = await harness.get(harness.plainPath(["w:20", "sm:0"], "tagged.jpg", ext: "jpg"))
            let searched = await harness.get(harness.plainPath(["w:20", "sm:0", "aq:dssim:0.02:20:95"], "tagged.jpg",
                                                               ext: "jpg"))
            #expect(searched.status == 200 && searched.bodyData != fixed.bodyData)
            let kept = ImageMetadata.read(from: searched.bodyData)
            #expect(kept != nil && kept == ImageMetadata.read(from: fixed.bodyData))
        }
    }

    @Test func unreadableAutoqualityOptionsAre404() async throws {
        try await Self.withPhoto { harness in
            for option in ["aq:fast", "aq:dssim:x", "aq:size:1000:0", "aq:dssim:0.02:70:80:2", "aq:a:b:c:d:e:f"] {
                #expect(await harness.get(harness.plainPath(["w:30", option], "grain.jpg")).status == 404, "\(option)")
            }
        }
    }
}
