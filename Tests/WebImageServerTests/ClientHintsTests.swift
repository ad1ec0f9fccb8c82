import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// Client hints (`--enable-client-hints`, imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`): which header counts, what
/// the options become, and the answers: their sizes, their `Vary`, and a result cached per hint.
@Suite struct ClientHintsTests {
    /// The headers as a request sends them.
    static func hints(secCHDPR: String? = nil, dpr: String? = nil, secCHWidth: String? = nil, width: String? = nil)
        -> ClientHints
    {
        ClientHints(secCHDPR: secCHDPR, dpr: dpr, secCHWidth: secCHWidth, width: width)
    }

    @Test func theSecCHHeaderComesFirstAndInvalidValuesAreIgnored() {
        #expect(Self.hints(dpr: "1.5").devicePixelRatio == 1.5)
        #expect(Self.hints(secCHDPR: "2.0").devicePixelRatio == 2)
        #expect(Self.hints(secCHDPR: "2.5", dpr: "3.0").devicePixelRatio == 2.5)
        // An invalid Sec-CH-DPR gives way to a valid DPR.
        #expect(Self.hints(secCHDPR: "abc", dpr: "3").devicePixelRatio == 3)
        for invalid in ["-1.0", "0", "10.0", "8.01", "abc", "", "nan"] {
            #expect(Self.hints(dpr: invalid).devicePixelRatio == nil, "DPR: \(invalid)")
        }
        #expect(Self.hints(dpr: "8").devicePixelRatio == 8)

        #expect(Self.hints(width: "800").width == 800)
        #expect(Self.hints(secCHWidth: "1024").width == 1024)
        #expect(Self.hints(secCHWidth: "1440", width: "1280").width == 1440)
        #expect(Self.hints(secCHWidth: "wide", width: "1280").width == 1280)
        for invalid in ["-800", "0", "abc", "1.5", ""] {
            #expect(Self.hints(width: invalid).width == nil, "Width: \(invalid)")
        }
        #expect(Self.hints().isEmpty)
    }

    @Test func ratiosAreRoundedToHundredths() {
        #expect(Self.hints(dpr: "1.0100001").devicePixelRatio == 1.01)
        #expect(Self.hints(secCHDPR: "1.0100002").devicePixelRatio == 1.01)
        #expect(Self.hints(dpr: "2.345678").devicePixelRatio == 2.35)
        #expect(Self.hints(dpr: "7.999").devicePixelRatio == 8)
        #expect(Self.hints(dpr: "0.009").devicePixelRatio == 0.01)
        // Above 0 but rounding to it: no ratio, so the next header counts.
        #expect(Self.hints(dpr: "0.001").devicePixelRatio == nil)
        #expect(Self.hints(secCHDPR: "0.0001", dpr: "1.5").devicePixelRatio == 1.5)
        // Equal once rounded, so equal hints (the key of a route and of a result).
        #expect(Self.hints(dpr: "1.0100001", width: "300") == Self.hints(dpr: "1.01", width: "300"))
    }

    @Test func hintsSetTheWidthAndDprTheURLLeavesUnset() throws {
        func options(_ segments: [String], _ hints: ClientHints) throws -> ProcessingOptions {
            try ProcessingOptions(segments: segments, rules: .init(), clientHints: hints)
        }
        let none = try options([], ClientHints())
        #expect(none.width == 0 && none.dpr == 1)
        let width = try options([], ClientHints(width: 100))
        #expect(width.width == 100 && width.dpr == 1)
        let ratio = try options([], ClientHints(devicePixelRatio: 2))
        #expect(ratio.width == 0 && ratio.dpr == 2)
        // Width is in physical pixels: divided by the ratio, since the width option is multiplied by dpr again.
        let both = try options([], ClientHints(devicePixelRatio: 2, width: 100))
        #expect(both.width == 50 && both.dpr == 2)
        #expect(try options([], ClientHints(devicePixelRatio: 3, width: 100)).width == 33)
        #expect(try options([], ClientHints(devicePixelRatio: 2, width: 5)).width == 3)  // halves round up
        // The URL's own width and dpr win.
        let redefined = try options(["width:150", "dpr:3.0"], ClientHints(devicePixelRatio: 2, width: 100))
        #expect(redefined.width == 150 && redefined.dpr == 3)
        let sized = try options(["rs:fit:70"], ClientHints(devicePixelRatio: 2, width: 100))
        #expect(sized.width == 70 && sized.dpr == 2)
        // So does the default preset: the hints are the starting point beneath it.
        let presets = ProxyPresets(definitions: ["default": ["w:40"]])
        let preset = try ProcessingOptions(segments: [], rules: .init(presets: presets),
                                           clientHints: ClientHints(width: 100))
        #expect(preset.width == 40)
        // A width beyond what a URL may ask for is capped at that.
        #expect(try options([], ClientHints(width: 1_000_000)).width == 16_384)
    }

    @Test func withoutTheFlagHintsChangeNothingAndAnswersDoNotVaryOnThem() async throws {
        try await ProxyHarness.with { harness throws in
            let answer = await harness.get(harness.plainPath([], "photo.jpg"),
                                           clientHints: ClientHints(devicePixelRatio: 2, width: 100))
            #expect(answer.status == 200 && answer.header("Vary") == nil)
            #expect(try ProxyHarness.decode(answer).size == PixelSize(width: 400, height: 300))
        }
    }

    @Test func withTheFlagHintsSizeTheAnswer() async throws {
        try await ProxyHarness.with(configuring: { $0.readsClientHints = true }) { harness throws in
            func size(_ options: [String], _ hints: ClientHints) async throws -> PixelSize {
                let answer = await harness.get(harness.plainPath(options, "photo.jpg"), clientHints: hints)
                #expect(answer.status == 200)
                #expect(answer.header("Vary") == "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
                return try ProxyHarness.decode(answer).size
            }
            #expect(try await size([], ClientHints()) == PixelSize(width: 400, height: 300))
            #expect(try await size([], Self.hints(width: "200")) == PixelSize(width: 200, height: 150))
            #expect(try await size([], Self.hints(secCHWidth: "120", width: "300")) == PixelSize(width: 120, height: 90))
            // Physical pixels: 200 at a ratio of 2 is 100 CSS pixels, times 2 again.
            #expect(try await size([], Self.hints(dpr: "2", width: "200")) == PixelSize(width: 200, height: 150))
            #expect(try await size(["w:50"], Self.hints(secCHDPR: "2")) == PixelSize(width: 100, height: 75))
            #expect(try await size(["w:40"], Self.hints(dpr: "9", width: "300")) == PixelSize(width: 40, height: 30))
            #expect(try await size(["w:80", "dpr:1"], Self.hints(dpr: "3", width: "30"))
                        == PixelSize(width: 80, height: 60))
        }
    }

    @Test func theVaryHeaderNamesAcceptToWhenTheServerNegotiates() async throws {
        try await ProxyHarness.with(configuring: {
            $0.readsClientHints = true
            $0.negotiation = FormatNegotiation(offersAVIF: false, offersWebP: true)
        }) { harness throws in
            let negotiated = await harness.get(harness.plainPath([], "photo.jpg"), accept: "image/webp")
            #expect(negotiated.header("Vary") == "Accept, Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
            #expect(negotiated.header("Content-Type") == "image/webp")
            let named = await harness.get(harness.plainPath([], "photo.jpg", ext: "png"), accept: "image/webp")
            // imgproxy names Accept whenever it negotiates, a format in the URL or not.
            #expect(named.header("Vary") == "Accept, Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
            // A 304 says it too, as imgproxy's does.
            let etag = try #require(named.header("ETag"))
            let unchanged = await harness.get(harness.plainPath([], "photo.jpg", ext: "png"), ifNoneMatch: etag)
            #expect(unchanged.status == 304 && unchanged.header("Vary") == "Accept, Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
        }
    }

    @Test func ratiosThatRoundAlikeMakeOneRender() async throws {
        try await ProxyHarness.with(configuring: { $0.readsClientHints = true }) { harness throws in
            let path = harness.plainPath(["w:100"], "photo.jpg", ext: "png")
            let first = await harness.get(path, clientHints: Self.hints(secCHDPR: "1.0100001"))
            let second = await harness.get(path, clientHints: Self.hints(secCHDPR: "1.0100002"))
            let third = await harness.get(path, clientHints: Self.hints(dpr: "1.014999"))
            #expect(first.status == 200 && second.status == 200 && third.status == 200)
            #expect(try ProxyHarness.decode(first).size.width == 101)
            #expect(second.bodyData == first.bodyData && third.bodyData == first.bodyData)
            #expect(harness.proxy.renderingsStarted == 1)
            // A hundredth more is another result.
            let next = await harness.get(path, clientHints: Self.hints(dpr: "1.02"))
            #expect(try ProxyHarness.decode(next).size.width == 102)
            #expect(harness.proxy.renderingsStarted == 2)
        }
    }

    @Test func answersForDifferentHintsAreCachedApart() async throws {
        try await ProxyHarness.with(configuring: { $0.readsClientHints = true }) { harness throws in
            let path = harness.plainPath([], "photo.jpg", ext: "png")
            func width(_ hints: ClientHints) async throws -> Int {
                try ProxyHarness.decode(await harness.get(path, clientHints: hints)).size.width
            }
            #expect(try await width(Self.hints(width: "100")) == 100)
            #expect(try await width(Self.hints(width: "200")) == 200)
            #expect(try await width(Self.hints(dpr: "2", width: "200")) == 200)
            #expect(try await width(ClientHints()) == 400)
            #expect(harness.proxy.renderingsStarted == 4)
            // The same hints again are answered from the cache.
            #expect(try await width(Self.hints(width: "100")) == 100)
            #expect(try await width(Self.hints(secCHWidth: "200")) == 200)
            #expect(harness.proxy.renderingsStarted == 4)
            // Hints the URL overrides make no other result.
            let fixed = harness.plainPath(["w:50", "dpr:1"], "photo.jpg", ext: "png")
            for hints in [Self.hints(width: "300"), Self.hints(dpr: "3", width: "90"), ClientHints()] {
                #expect(try ProxyHarness.decode(await harness.get(fixed, clientHints: hints)).size.width == 50)
            }
            #expect(harness.proxy.renderingsStarted == 5)
        }
    }
}
