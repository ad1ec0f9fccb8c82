import Testing
import WebImage

@testable import WebImageProxyURL
@testable import WebImageServer

@Suite struct ProcessingOptionsTests {
    func options(_ segments: [String], presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false)
        throws(ProxyError) -> ProcessingOptions
    {
        try ProcessingOptions(segments: segments, presets: presets, onlyPresets: onlyPresets)
    }

    func reason(_ segments: [String], presets: ProxyPresets = ProxyPresets(), onlyPresets: Bool = false) -> String? {
        do {
            _ = try options(segments, presets: presets, onlyPresets: onlyPresets)
            return nil
        } catch {
            #expect(error.status == 400)
            return error.reason
        }
    }

    @Test func longAndShortNamesMeanTheSame() throws {
        let long = try options(["resize:fill:300:200:1", "gravity:noea:5:0.25", "quality:80", "format:webp",
                                "blur:2", "sharpen:0.5", "rotate:270", "dpr:2", "background:255:0:10",
                                "strip_metadata:false", "cachebuster:v2", "expires:4102444800", "max_bytes:20000",
                                "crop:100:0.5:so"])
        let short = try options(["rs:fill:300:200:t", "g:noea:5:0.25", "q:80", "f:webp", "bl:2", "sh:0.5",
                                 "rot:-90", "dpr:2", "bg:ff000a", "sm:0", "cb:v2", "exp:4102444800", "mb:20000",
                                 "c:100:0.5:so"])
        #expect(long == short)
        #expect(long.resizingType == .fill && long.width == 300 && long.height == 200 && long.enlarge)
        #expect(long.gravity == Gravity(.northEast, x: 5, y: 0.25))
        #expect(long.quality == 80 && long.format == .webp && long.blur == 2 && long.sharpen == 0.5)
        #expect(long.rotate == 270 && long.dpr == 2 && long.background == RGBA(255, 0, 10))
        #expect(long.stripMetadata == false && long.cacheBuster == "v2" && long.expires == 4_102_444_800)
        #expect(long.maxBytes == 20_000)
        #expect(long.crop == ProcessingOptions.Crop(width: 100, height: 0.5, gravity: Gravity(.south)))
    }

    @Test func omittedArgumentsKeepEarlierValues() throws {
        let parsed = try options(["w:100", "h:50", "rs:fill", "s::80"])
        #expect(parsed.resizingType == .fill && parsed.width == 100 && parsed.height == 80)
        #expect(try options(["rs:force:10:20", "rt:fill-down"]).resizingType == .fillDown)
        #expect(try options(["f:JPEG"]).format == .jpeg)
        #expect(try options(["bg:F00"]).background == RGBA(255, 0, 0))
        #expect(try options(["bg:F00", "bg"]).background == nil)
        #expect(try options(["g:fp:0.25:0.75"]).gravity == Gravity(.focusPoint, x: 0.25, y: 0.75))
        #expect(try options(["g:sm"]).gravity == Gravity(.smart))
        #expect(try options(["frame:3", "round:12.5"]).frame == 3)
        #expect(try options(["round:12.5"]).cornerRadius == 12.5)
    }

    @Test func everyBadOptionIsA400NamingIt() {
        let cases: [([String], String)] = [
            (["unknown:1"], "unknown option \"unknown\""),
            (["rs:squash:10:10"], "resizing type \"squash\""),
            (["w:-1"], "w: \"-1\""),
            (["w:20000"], "w: \"20000\""),
            (["q:101"], "q: \"101\""),
            (["f:bmp"], "format \"bmp\""),
            (["rot:45"], "multiples of 90"),
            (["dpr:0"], "dpr must be above 0"),
            (["dpr:9"], "dpr: \"9\""),
            (["el:yes"], "el: \"yes\""),
            (["g:middle"], "gravity \"middle\""),
            (["g:sm:1:1"], "g takes at most 1 argument"),
            (["g:fp:2:0"], "g: \"2\""),
            (["bg:12345"], "bg: \"12345\" is not a hex colour"),
            (["bg:1:2"], "bg takes R:G:B or one hex colour"),
            (["bg:1:2:256"], "bg: \"256\""),
            (["rs:fit:10:10:0:1"], "extend is not supported"),
            (["w:1:2"], "w takes at most 1 argument, not 2"),
            (["w"], "w is missing its argument"),
            (["pr:nope"], "unknown preset \"nope\""),
            (["bl:NaN"], "bl: \"NaN\""),
        ]
        for (segments, expected) in cases {
            let reason = self.reason(segments)
            #expect(reason?.contains(expected) == true, "\(segments): \(reason ?? "accepted")")
        }
    }

    @Test func presetsExpandInPlaceAfterTheDefault() throws {
        let presets = try ProxyPresets(fileContents: """
            # comments and blank lines are skipped

            default=q:70/f:webp
            thumb=rs:fill:100:100/g:sm
            sharp = sh:0.7
            """)
        #expect(presets.definitions["sharp"] == ["sh:0.7"])
        let parsed = try options(["w:300", "pr:thumb", "q:90"], presets: presets)
        #expect(parsed.quality == 90 && parsed.format == .webp)  // the URL's q wins over the default's
        #expect(parsed.width == 100 && parsed.resizingType == .fill && parsed.gravity == Gravity(.smart))
        #expect(parsed.presets == ["thumb"])
        #expect(try options([], presets: presets).quality == 70)
        #expect(reason(["w:10"], presets: presets, onlyPresets: true)?.contains("only presets") == true)
        #expect(try options(["pr:thumb"], presets: presets, onlyPresets: true).width == 100)
    }

    @Test func presetFilesAreCheckedWhenRead() {
        for (text, expected) in [("thumb", "line 1: expected name=options"), ("=w:1", "expected name=options"),
                                 ("a=w:1\na=w:2", "line 2: preset \"a\" is defined twice"),
                                 ("a=w:x", "line 1: w: \"x\""), ("a=pr:b", "cannot name other presets")] {
            do {
                _ = try ProxyPresets(fileContents: text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }

    @Test func negotiationPicksAVIFThenWebPFromExplicitTypes() {
        let both = FormatNegotiation(offersAVIF: true, offersWebP: true)
        #expect(both.format(forAccept: "image/avif,image/webp,image/apng,*/*;q=0.8") == .avif)
        #expect(both.format(forAccept: "image/avif;q=0, image/webp") == .webp)
        #expect(both.format(forAccept: "image/*, */*") == nil)
        #expect(both.format(forAccept: nil) == nil)
        let webpOnly = FormatNegotiation(offersAVIF: false, offersWebP: true)
        #expect(webpOnly.format(forAccept: "image/avif,image/webp") == .webp)
        let none = FormatNegotiation(offersAVIF: false, offersWebP: false)
        #expect(none.format(forAccept: "image/webp") == nil && !none.dependsOnAccept)
    }
}

@Suite struct ResultKeyTests {
    @Test func everyOptionThatChangesTheResultChangesTheKey() throws {
        let variants: [[String]] = [
            [], ["w:10"], ["h:10"], ["rs:fill:10:10"], ["rs:fit:10:10:1"], ["g:no"], ["g:no:1:2"], ["c:5:5"],
            ["c:5:5:ea"], ["q:50"], ["f:png"], ["bl:1"], ["sh:1"], ["rot:90"], ["dpr:2"], ["bg:ff0000"],
            ["sm:0"], ["sm:1"], ["mb:1000"], ["frame:1"], ["round:4"], ["cb:x"], ["cb:y"],
        ]
        let keys = try variants.map { try ProcessingOptions(segments: $0).cacheKey }
        #expect(Set(keys).count == variants.count)
    }

    @Test func theExpiryAndPresetNamesDoNotChangeTheKey() throws {
        let presets = ProxyPresets(definitions: ["small": ["w:10"]])
        let named = try ProcessingOptions(segments: ["pr:small", "exp:4102444800"], presets: presets)
        #expect(named.cacheKey == (try ProcessingOptions(segments: ["w:10"])).cacheKey)
    }
}
