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
            #expect(error.status == 404)  // imgproxy's "Invalid URL"
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

    @Test func everyBadOptionIsA404NamingIt() {
        let cases: [([String], String)] = [
            (["unknown:1"], "unknown option \"unknown\""),
            (["rs:squash:10:10"], "resizing type \"squash\""),
            (["w:-1"], "w: \"-1\""),
            (["w:20000"], "w: \"20000\""),
            (["q:101"], "q: \"101\""),
            (["f:pdf"], "format \"pdf\""),
            (["rot:45"], "multiples of 90"),
            (["dpr:0"], "dpr: the value must be above 0"),
            (["dpr:9"], "dpr: \"9\""),
            (["g:middle"], "gravity \"middle\""),
            (["g:sm:1:1"], "g takes at most 1 argument"),
            (["g:fp:2:0"], "g: \"2\""),
            (["bg:12345"], "bg: \"12345\" is not a hex colour"),
            (["bg:1:2"], "bg takes R:G:B or one hex colour"),
            (["bg:1:2:256"], "bg: \"256\""),
            (["rs:fit:10:10:0:1:sm"], "extending takes no smart gravity"),
            (["g:fp:0.5"], "fp takes an x and a y"),
            (["z:0"], "z: the value must be above 0"),
            (["pd:-1"], "pd: \"-1\""),
            (["pd:1:2:3:4:5"], "pd takes at most 4 arguments"),
            (["fq:webp"], "pairs of format and quality"),
            (["fq:doc:50"], "\"doc\" is not a format"),
            (["wm:2"], "wm: \"2\""),
            (["wm:0.5:sm"], "position \"sm\""),
            (["skp:doc"], "\"doc\" is not a format"),
            (["t:300"], "t: \"300\""),
            (["t:10:zz"], "\"zz\" is not a hex colour"),
            (["fn:@@@:1"], "not URL-safe Base64"),
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
        #expect(parsed.presets == ["default", "thumb"])
        #expect(try options([], presets: presets).quality == 70)
        // Only presets: the segment is preset names (`thumb:sharp`); `pr:thumb` is read the same way.
        #expect(reason(["w:10"], presets: presets, onlyPresets: true)?.contains("unknown preset \"w\"") == true)
        let named = try options(["thumb:sharp"], presets: presets, onlyPresets: true)
        #expect(named.width == 100 && named.sharpen == 0.7 && named.presets == ["default", "thumb", "sharp"])
        #expect(try options(["pr:thumb"], presets: presets, onlyPresets: true).width == 100)
    }

    @Test func presetFilesAreCheckedWhenRead() {
        for (text, expected) in [("thumb", "line 1: expected name=options"), ("=w:1", "expected name=options"),
                                 ("a=w:1\na=w:2", "line 2: preset \"a\" is defined twice"),
                                 ("a=w:x", "line 1: w: \"x\""), ("a=w:1\nb=pr:c", "line 2: unknown preset \"c\"")] {
            do {
                _ = try ProxyPresets(fileContents: text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }

    @Test func presetsNameOtherPresetsAndACycleIsExpandedOnce() throws {
        let presets = try ProxyPresets(fileContents: """
            card=pr:square/q:60
            square=rs:fill:200:200/pr:card
            """)
        let parsed = try options(["pr:card"], presets: presets)
        #expect(parsed.width == 200 && parsed.resizingType == .fill && parsed.quality == 60)
        #expect(parsed.presets == ["card", "square"])
    }

    @Test func everyImgproxyOptionIsReadUnderItsLongAndShortName() throws {
        let long = try options([
            "min-width:10", "min-height:20", "zoom:1.5:2", "extend:1:so:0:5", "extend_aspect_ratio:1:no",
            "padding:1:2:3:4", "auto_rotate:0", "flip:1:0", "pixelate:8", "trim:10:ff0000:1:0",
            "watermark:0.5:soea:10:20:0.25", "format_quality:webp:60:avif:40", "skip_processing:svg:jpg", "raw:1",
            "filename:my%20photo", "return_attachment:1", "keep_copyright:0", "strip_color_profile:1",
            "enforce_thumbnail:1",
        ])
        let short = try options([
            "mw:10", "mh:20", "z:1.5:2", "ex:1:so:0:5", "exar:1:no", "pd:1:2:3:4", "ar:0", "fl:t:f", "pix:8",
            "t:10:ff0000:1:0", "wm:0.5:soea:10:20:0.25", "fq:webp:60:avif:40", "skp:svg:jpg", "raw:t",
            "fn:bXkgcGhvdG8:1", "att:true", "kcr:false", "scp:1", "eth:1",
        ])
        #expect(long == short)
        #expect(long.minWidth == 10 && long.minHeight == 20 && long.zoomX == 1.5 && long.zoomY == 2)
        #expect(long.extend == Gravity(.south, x: 0, y: 5) && long.extendAspectRatio == Gravity(.north))
        #expect(long.padding == ProcessingOptions.Padding(top: 1, right: 2, bottom: 3, left: 4))
        #expect(long.autoRotate == false && long.flipHorizontal && !long.flipVertical && long.pixelate == 8)
        #expect(long.trim == ProcessingOptions.Trim(threshold: 10, color: RGBA(255, 0, 0), equalHorizontal: true))
        #expect(long.watermark == ProcessingOptions.Watermark(opacity: 0.5, position: .southEast, x: 10, y: 20,
                                                                scale: 0.25))
        #expect(long.formatQuality == [.webp: 60, .avif: 40] && long.skipProcessing == ["svg", "jpeg"])
        #expect(long.raw && long.filename == "my photo" && long.returnAttachment)
        #expect(long.keepCopyright == false && long.stripColorProfile == true && long.enforceThumbnail == true)
    }

    @Test func argumentsFollowImgproxysShorthands() throws {
        // Padding is CSS's: one value for all sides, two for vertical and horizontal, three for top, sides, bottom.
        #expect(try options(["pd:5"]).padding == ProcessingOptions.Padding(top: 5, right: 5, bottom: 5, left: 5))
        #expect(try options(["pd:5:7"]).padding == ProcessingOptions.Padding(top: 5, right: 7, bottom: 5, left: 7))
        #expect(try options(["pd:1:2:3"]).padding == ProcessingOptions.Padding(top: 1, right: 2, bottom: 3, left: 2))
        #expect(try options(["z:3"]).zoomY == 3)
        // The extend arguments of size and resize, with their gravity.
        #expect(try options(["rs:fit:10:20:0:1:we:3"]).extend == Gravity(.west, x: 3))
        #expect(try options(["s:10:20:1:1"]).extend == .center)
        #expect(try options(["ex:1", "ex:0"]).extend == nil)
        // Go's boolean spellings; anything else is false, as imgproxy reads it.
        for yes in ["1", "t", "T", "true", "TRUE", "True"] { #expect(try options(["el:" + yes]).enlarge) }
        for no in ["0", "f", "F", "false", "FALSE", "False", "yes"] { #expect(try !options(["el:" + no]).enlarge) }
        // expires:0 (or below) never expires.
        #expect(try options(["exp:0"]).expires == nil && options(["exp:-5"]).expires == nil)
        #expect(try options(["wm:0"]).watermark == nil)
        #expect(try options(["wm:1:re"]).watermark?.position == nil)
        #expect(try options(["f:tif"]).format == .tiff && options(["f:bmp"]).format == .bmp)
    }

    @Test func securityOptionsNeedTheServersPermissionOrAPreset() throws {
        let segments = ["msr:2.5", "msfs:1000", "maf:3", "mafr:0.5", "mrd:800"]
        for segment in segments {
            do {
                _ = try ProcessingOptions(segments: [segment])
                Issue.record("\(segment) was accepted without permission")
            } catch {
                #expect(error.status == 403, "\(segment)")
            }
        }
        let allowed = try ProcessingOptions(segments: segments, rules: .init(allowsSecurityOptions: true))
        #expect(allowed.limits.maximumSourcePixels == 2_500_000 && allowed.limits.maximumSourceBytes == 1000)
        #expect(allowed.limits.maximumAnimationFrames == 3 && allowed.limits.maximumAnimationFramePixels == 500_000)
        #expect(allowed.limits.maximumResultDimension == 800)
        // A preset is the server's own configuration: it may set them.
        let presets = ProxyPresets(definitions: ["safe": ["msr:1"]])
        #expect(try options(["pr:safe"], presets: presets).limits.maximumSourcePixels == 1_000_000)
    }

    @Test func allowedOptionsLimitURLsButNotPresets() throws {
        let presets = ProxyPresets(definitions: ["soft": ["bl:10"]])
        let rules = ProcessingOptions.ParsingRules(presets: presets, allowedOptions: ["w", "h", "pr"])
        #expect(try ProcessingOptions(segments: ["w:100", "h:200", "pr:soft"], rules: rules).blur == 10)
        do {
            _ = try ProcessingOptions(segments: ["w:100", "bl:10"], rules: rules)
            Issue.record("bl was allowed")
        } catch {
            #expect(error.status == 404 && error.reason.contains("\"bl\" is not allowed"))
        }
        #expect(throws: ProxyError.self) { try ProcessingOptions(segments: ["width:100"], rules: rules) }
        // Off is one cache key however it was asked for (`ph:0`, or nothing).
        #expect(try options(["ph:1"]).preserveHDR == true && options(["preserve_hdr:0"]).preserveHDR == nil)
        #expect(try ProcessingOptions(segments: [], rules: .init(preservesHDR: true)).preserveHDR == true)
        #expect(try ProcessingOptions(segments: ["ph:f"], rules: .init(preservesHDR: true)).preserveHDR == nil)
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
            ["sm:0"], ["mb:1000"], ["frame:1"], ["round:4"], ["cb:x"], ["cb:y"], ["mw:5"], ["mh:5"],
            ["z:2"], ["ex:1"], ["ex:1:no"], ["exar:1"], ["pd:2"], ["ar:0"], ["fl:1"], ["fl:0:1"], ["pix:4"], ["t:5"],
            ["wm:0.5"], ["fq:webp:50"], ["skp:png"], ["raw:1"], ["kcr:0"], ["scp:1"], ["eth:1"], ["ph:1"],
        ]
        let keys = try variants.map { try ProcessingOptions(segments: $0).cacheKey }
        #expect(Set(keys).count == variants.count)
        // The server's metadata defaults are settled while parsing: spelling them out renders the same bytes,
        // and a server with other defaults keys its results apart.
        #expect(try ProcessingOptions(segments: []).cacheKey == ProcessingOptions(segments: ["sm:1", "kcr:1"]).cacheKey)
        #expect(try ProcessingOptions(segments: []).cacheKey == ProcessingOptions(segments: ["eth:0"]).cacheKey)
        let keeping = ProcessingOptions.ParsingRules(stripsMetadata: false)
        #expect(try ProcessingOptions(segments: [], rules: keeping).cacheKey != ProcessingOptions(segments: []).cacheKey)
    }

    @Test func theExpiryAndPresetNamesDoNotChangeTheKey() throws {
        let presets = ProxyPresets(definitions: ["small": ["w:10"]])
        let named = try ProcessingOptions(segments: ["pr:small", "exp:4102444800"], presets: presets)
        #expect(named.cacheKey == (try ProcessingOptions(segments: ["w:10"])).cacheKey)
    }
}
