import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `webimage serve` read from an imgproxy deployment's environment: each setting from its flag, else
/// `WEBIMAGE_*`, else `IMGPROXY_*` (parsed as imgproxy parses it), else the default; imgproxy's variables without
/// a meaning here are named once on stderr, never refused.
@Suite struct ServeImgproxySettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    /// A signing pair and `variables`.
    static func signed(_ variables: [String: String]) -> [String: String] {
        pair.merging(variables) { $1 }
    }

    func settings(_ arguments: [String] = [], _ environment: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments), environment: environment)
    }

    func configuration(_ arguments: [String] = [], _ environment: [String: String]) throws -> ProxyConfiguration {
        try settings(arguments, environment).configuration()
    }

    /// Whether the settings fail to start with a message that `matches`.
    func failure(_ arguments: [String] = [], _ environment: [String: String],
                 matching matches: (String) -> Bool) -> Bool {
        do {
            _ = try configuration(arguments, environment)
            return false
        } catch {
            return matches("\(error)")
        }
    }

    @Test func theInfoEndpointsPresetsAndRulesFromImgproxysVariablesAndOurFlags() throws {
        let file = TestScratch.root.appendingPathComponent("info-presets-\(UUID()).txt")
        try "# placeholders\nplaceholder=bh:4:3/th:1\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let imgproxy = try configuration([], Self.signed([
            "IMGPROXY_INFO_PRESETS": "default=xmp:0;colours=avg:1/dc:1", "IMGPROXY_PRESETS_SEPARATOR": ";",
            "IMGPROXY_INFO_PRESETS_PATH": file.path, "IMGPROXY_ALLOWED_INFO_OPTIONS": "pr, s",
            "IMGPROXY_ONLY_PRESETS": "true", "IMGPROXY_INFO_ONLY_PRESETS": "false",
        ]))
        #expect(imgproxy.infoPresets.definitions.keys.sorted() == ["colours", "default", "placeholder"])
        #expect(imgproxy.infoPresets.definitions["colours"] == ["avg:1", "dc:1"])
        #expect(imgproxy.presets.definitions.isEmpty && imgproxy.allowedInfoOptions == ["pr", "s"])
        #expect(imgproxy.onlyPresets && imgproxy.infoOnlyPresets == false)
        // Not set: /info follows the processing setting.
        #expect(try configuration([], Self.signed([:])).infoOnlyPresets == nil)
        let ours = try configuration(["--info-presets", file.path, "--info-only-presets",
                                      "--allowed-info-options", "bh"], Self.signed([:]))
        #expect(ours.infoPresets.definitions.keys.sorted() == ["placeholder"])
        #expect(ours.infoOnlyPresets == true && ours.allowedInfoOptions == ["bh"])
        // A processing option in an info preset stops the start, naming the variable.
        #expect(failure([], Self.signed(["IMGPROXY_INFO_PRESETS": "bad=rs:fit:10:10"])) {
            $0.contains("IMGPROXY_INFO_PRESETS") && $0.contains("rs")
        })
    }

    @Test func autoqualitySettingsFromImgproxysVariablesAndOurFlags() throws {
        let imgproxy = try configuration([], Self.signed([
            "IMGPROXY_AUTOQUALITY_METHOD": "dssim", "IMGPROXY_AUTOQUALITY_TARGET": "0.03",
            "IMGPROXY_AUTOQUALITY_MIN": "60", "IMGPROXY_AUTOQUALITY_MAX": "85",
            "IMGPROXY_AUTOQUALITY_FORMAT_MIN": "avif=50,webp=55", "IMGPROXY_AUTOQUALITY_FORMAT_MAX": "avif=70",
            "IMGPROXY_AUTOQUALITY_ALLOWED_ERROR": "0.001", "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION": "4",
        ])).autoquality
        #expect(imgproxy.method == .dssim && imgproxy.target == 0.03 && imgproxy.allowedError == 0.001)
        #expect(imgproxy.minimum == 60 && imgproxy.maximum == 85 && imgproxy.maximumPixels == 4_000_000)
        #expect(imgproxy.formatMinimum == [.avif: 50, .webp: 55] && imgproxy.formatMaximum == [.avif: 70])
        #expect(try configuration([], Self.signed([:])).autoquality == AutoqualitySettings())
        let ours = try configuration(["--autoquality", "size", "--autoquality-target", "20000"], Self.signed([:]))
        #expect(ours.autoquality.method == .size && ours.autoquality.target == 20_000)
        // Without models, ml is dssim, and says so.
        let ml = try settings([], Self.signed(["IMGPROXY_AUTOQUALITY_METHOD": "ml"]))
        #expect(try ml.configuration().autoquality.method == .ml)
        #expect(ml.warnings.contains { $0.contains("IMGPROXY_AUTOQUALITY_METHOD=ml") })
        #expect(failure([], Self.signed(["IMGPROXY_AUTOQUALITY_METHOD": "best"])) { $0.contains("none, size") })
        #expect(failure([], Self.signed(["IMGPROXY_AUTOQUALITY_ALLOWED_ERROR": "3"])) { $0.contains("ALLOWED_ERROR") })
    }

    @Test func bestFormatSettingsFromImgproxysVariablesAndOurFlags() throws {
        let imgproxy = try configuration([], Self.signed([
            "IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD": "7.5", "IMGPROXY_BEST_FORMAT_MAX_RESOLUTION": "2.5",
            "IMGPROXY_BEST_FORMAT_BY_DEFAULT": "true", "IMGPROXY_BEST_FORMAT_ALLOW_SKIPS": "1",
        ])).bestFormat
        #expect(imgproxy.complexityThreshold == 7.5 && imgproxy.maximumPixels == 2_500_000)
        #expect(imgproxy.byDefault && imgproxy.allowsSkips)
        let off = try configuration([], Self.signed(["IMGPROXY_BEST_FORMAT_MAX_RESOLUTION": "0"])).bestFormat
        #expect(off == BestFormatSettings())
        let ours = try configuration(["--best-format-complexity-threshold", "3", "--best-format-max-pixels", "1000",
                                      "--best-format-by-default"], Self.signed([:])).bestFormat
        #expect(ours.complexityThreshold == 3 && ours.maximumPixels == 1_000 && ours.byDefault && !ours.allowsSkips)
        #expect(failure([], Self.signed(["IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD": "high"])) {
            $0.contains("IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD")
        })
    }

    @Test func anImgproxyEnvironmentSetsEachSettingItHasAMeaningFor() throws {
        let presets = TestScratch.root.appendingPathComponent("presets-\(UUID()).txt")
        try "# from a file\nfromfile=q:33\n".write(to: presets, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: presets) }
        let settings = try settings([], Self.signed([
            "IMGPROXY_BIND": ":9090", "IMGPROXY_QUALITY": "55", "IMGPROXY_FORMAT_QUALITY": "jpeg=70, avif=40",
            "IMGPROXY_MAX_SRC_RESOLUTION": "16.8", "IMGPROXY_MAX_SRC_FILE_SIZE": "1048576", "IMGPROXY_TTL": "600",
            "IMGPROXY_CONCURRENCY": "3", "IMGPROXY_REQUESTS_QUEUE_SIZE": "12", "IMGPROXY_TIMEOUT": "7",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "4", "IMGPROXY_READ_REQUEST_TIMEOUT": "6", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "9",
            "IMGPROXY_ENABLE_WEBP_DETECTION": "true", "IMGPROXY_AUTO_AVIF": "1", "IMGPROXY_STRIP_METADATA": "false",
            "IMGPROXY_KEEP_COPYRIGHT": "F", "IMGPROXY_ENABLE_CLIENT_HINTS": "T", "IMGPROXY_PRESERVE_HDR": "TRUE",
            "IMGPROXY_ALWAYS_RASTERIZE_SVG": "True", "IMGPROXY_ENFORCE_THUMBNAIL": "t",
            "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true", "IMGPROXY_ONLY_PRESETS": "true",
            "IMGPROXY_PRESETS": "small=rs:fit:10:10;big=rs:fit:99:99/q:90", "IMGPROXY_PRESETS_SEPARATOR": ";",
            "IMGPROXY_PRESETS_PATH": presets.path, "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w, h,rs",
            "IMGPROXY_ALLOWED_SOURCES": "https://a.example/, https://b.example/",
            "IMGPROXY_PREFERRED_FORMATS": "png,jpeg", "IMGPROXY_WATERMARK_OPACITY": "0.5",
            "IMGPROXY_WATERMARK_PATH": "/srv/mark.png",
        ]))
        let configuration = try settings.configuration()
        #expect(configuration.host == "0.0.0.0" && configuration.port == 9090)  // Go's ":PORT": every interface
        #expect(configuration.quality == 55)
        #expect(configuration.formatQuality == [.jpeg: 70, .avif: 40])
        #expect(configuration.maximumSourcePixels == 16_800_000)
        #expect(configuration.maximumSourceBytes == 1_048_576)
        #expect(configuration.timeToLive == 600)
        #expect(configuration.workers == 3 && configuration.queueLimit == 12)
        #expect(configuration.requestTimeout == .seconds(7) && configuration.downloadTimeout == .seconds(4))
        #expect(configuration.headerTimeout == .seconds(6) && configuration.idleTimeout == .seconds(9))
        #expect(configuration.negotiation == FormatNegotiation(offersAVIF: true, offersWebP: true))
        #expect(!configuration.stripsMetadata && !configuration.keepsCopyright)
        #expect(configuration.readsClientHints && configuration.preservesHDR && configuration.alwaysRasterizesSVG)
        #expect(configuration.enforcesThumbnail && configuration.allowsSecurityOptions && configuration.onlyPresets)
        #expect(["small", "big", "fromfile"].allSatisfy { configuration.presets.definitions[$0] != nil })
        #expect(configuration.allowedOptions == ["w", "h", "rs"])
        #expect(configuration.allowedSourcePrefixes == ["https://a.example/", "https://b.example/"])
        #expect(configuration.preferredFormats == [.png, .jpeg])
        #expect(configuration.watermarkOpacity == 0.5 && configuration.watermarkPath == "/srv/mark.png")
        #expect(configuration.signature?.pairCount == 1)
        // Deprecated names work and are named; nothing else is reported.
        #expect(settings.warnings == [
            "warning: IMGPROXY_CONCURRENCY is deprecated, use IMGPROXY_WORKERS instead",
            "warning: IMGPROXY_ENABLE_WEBP_DETECTION is deprecated, use IMGPROXY_AUTO_WEBP instead",
        ])
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxys() throws {
        let all = Self.signed(["WEBIMAGE_QUALITY": "60", "IMGPROXY_QUALITY": "70"])
        #expect(try configuration(["--quality", "50"], all).quality == 50)
        #expect(try configuration([], all).quality == 60)
        #expect(try configuration([], all.filter { $0.key != "WEBIMAGE_QUALITY" }).quality == 70)
        #expect(try configuration([], Self.pair).quality == ProxyConfiguration().quality)
        // imgproxy reads an empty value as none; ours and flags still win over a set one.
        #expect(try configuration([], Self.signed(["IMGPROXY_QUALITY": " "])).quality == 80)
        let switches = Self.signed(["WEBIMAGE_KEEP_METADATA": "0", "IMGPROXY_STRIP_METADATA": "false"])
        #expect(try configuration([], switches).stripsMetadata)
    }

    @Test func booleansAreGosAndAnythingElseStopsTheStartNamingTheVariable() throws {
        for text in ["1", "t", "T", "TRUE", "true", "True"] {
            #expect(try configuration([], Self.signed(["IMGPROXY_AUTO_WEBP": text])).negotiation.offersWebP)
        }
        for text in ["0", "f", "F", "FALSE", "false", "False"] {
            #expect(try !configuration([], Self.signed(["IMGPROXY_AUTO_WEBP": text])).negotiation.offersWebP)
        }
        for text in ["yes", "on", "TrUe", "2"] {
            let environment = Self.signed(["IMGPROXY_AUTO_WEBP": text])
            #expect(failure([], environment) { $0.contains("IMGPROXY_AUTO_WEBP=\(text)") })
        }
        #expect(try configuration([], Self.signed(["WEBIMAGE_AUTO_WEBP": "yes"])).negotiation.offersWebP)
        #expect(failure([], Self.signed(["IMGPROXY_WORKERS": "two"])) { $0.contains("IMGPROXY_WORKERS=two") })
        #expect(failure([], Self.signed(["IMGPROXY_MAX_SRC_RESOLUTION": "big"])) {
            $0.contains("IMGPROXY_MAX_SRC_RESOLUTION=big")
        })
    }

    @Test func imgproxysZeroMeansNoLimitOrNoKeepAlive() throws {
        let configuration = try configuration([], Self.signed([
            "IMGPROXY_REQUESTS_QUEUE_SIZE": "0", "IMGPROXY_MAX_SRC_FILE_SIZE": "0", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "0",
        ]))
        #expect(configuration.queueLimit == .max)
        #expect(configuration.maximumSourceBytes >= 1 << 50)
        #expect(configuration.idleTimeout == .seconds(1))
        // Our own 0 keeps its meaning (no waiting room at all).
        #expect(try self.configuration(["--queue", "0"], Self.pair).queueLimit == 0)
    }

    @Test func keysAndSaltsPairUpByPositionFromAnySource() throws {
        let twoPairs = ["IMGPROXY_KEY": "aa,bb", "IMGPROXY_SALT": "cc, dd"]
        #expect(try configuration([], twoPairs).signature?.pairCount == 2)
        #expect(try configuration(["--key", "aa", "--key", "bb,ee", "--salt", "cc,dd,ff"], [:])
            .signature?.pairCount == 3)
        #expect(failure([], ["IMGPROXY_KEY": "aa,bb", "IMGPROXY_SALT": "cc"]) {
            $0.contains("IMGPROXY_KEY and IMGPROXY_SALT") && $0.contains("2 keys and 1 salts")
        })
        #expect(failure([], ["IMGPROXY_KEY": "aa,", "IMGPROXY_SALT": "cc,dd"]) { $0.contains("key 2") })
        let short = try #require(try configuration([], twoPairs.merging(["IMGPROXY_SIGNATURE_SIZE": "8"]) { $1 })
            .signature)
        #expect(short.size == 8 && short.signature(for: "/x").count == 11)
        #expect(failure([], twoPairs.merging(["IMGPROXY_SIGNATURE_SIZE": "33"]) { $1 }) { $0.contains("1 to 32") })
        let trusting = try #require(try configuration(
            [], twoPairs.merging(["IMGPROXY_TRUSTED_SIGNATURES": "abc, def"]) { $1 }).signature)
        #expect(trusting.isValid("def", for: "/anything"))
        // Without any key imgproxy checks nothing; here that still takes --insecure.
        #expect(failure([], ["IMGPROXY_BIND": "127.0.0.1:0"]) { $0.contains("--insecure") })
    }

    @Test func variablesWithoutAMeaningHereAreNamedOnceAndIgnored() throws {
        let settings = try settings([], Self.signed([
            "IMGPROXY_ABS_ENDPOINT": "http://azure:9000", "IMGPROXY_SENTRY_DSN": "x", "IMGPROXY_SANITIZE_SVG": "false",
            "IMGPROXY_USE_S3": "false", "IMGPROXY_AUTO_ROTATE": "true", "IMGPROXY_LOG_FORMAT": "",
            "IMGPROXY_NETWORK": "tcp", "IMGRPOXY_SWIFT_TIMEOUT_SECONDS": "5",
        ]))
        _ = try settings.configuration()
        #expect(settings.warnings == [
            "warning: IMGPROXY_ABS_ENDPOINT is not supported by webimage serve (yet): ignored",
            "warning: IMGPROXY_SANITIZE_SVG is not supported by webimage serve (yet): ignored",
            "warning: IMGPROXY_SENTRY_DSN is not supported by webimage serve (yet): ignored",
            "warning: IMGRPOXY_SWIFT_TIMEOUT_SECONDS is not supported by webimage serve (yet): ignored",
        ])
    }

    @Test func anAllowedSourceWithAWildcardIsKeptAsWrittenAndNamed() throws {
        let settings = try settings([], Self.signed(["IMGPROXY_ALLOWED_SOURCES": "https://*.example.com/,s3://"]))
        #expect(try settings.configuration().allowedSourcePrefixes == ["https://*.example.com/", "s3://"])
        #expect(settings.warnings.count == 1 && settings.warnings[0].contains("https://*.example.com/"))
    }

    @Test func failOnDeprecationStopsTheStart() throws {
        let environment = Self.signed(["IMGPROXY_CONCURRENCY": "2", "IMGPROXY_FAIL_ON_DEPRECATION": "true"])
        #expect(failure([], environment) { $0.contains("IMGPROXY_CONCURRENCY is deprecated") })
        #expect(try configuration([], environment.merging(["IMGPROXY_WORKERS": "2"]) { $1 }).workers == 2)
    }

    @Test func anEnvFileIsReadBelowTheEnvironment() throws {
        let text = """
            # imgproxy settings
            IMGPROXY_KEY=aa
            export IMGPROXY_SALT = "bb"
            IMGPROXY_QUALITY=40 # low
            IMGPROXY_BIND='127.0.0.1:0'

            IMGPROXY_PRESETS="a=w:1\\nb=h:2"
            IMGPROXY_TRUSTED_SIGNATURES='x#y'
            """
        let variables = try EnvironmentFile.variables(in: text)
        #expect(variables == ["IMGPROXY_KEY": "aa", "IMGPROXY_SALT": "bb", "IMGPROXY_QUALITY": "40",
                              "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_PRESETS": "a=w:1\nb=h:2",
                              "IMGPROXY_TRUSTED_SIGNATURES": "x#y"])
        #expect(throws: EnvironmentFile.LineError.self) { try EnvironmentFile.variables(in: "A=1\nnot a line") }
        #expect(throws: EnvironmentFile.LineError.self) { try EnvironmentFile.variables(in: "A=\"open") }
        #expect(throws: EnvironmentFile.LineError.self) { try EnvironmentFile.variables(in: "1A=x") }

        let file = TestScratch.root.appendingPathComponent("env-\(UUID()).env")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let command = try ServeCommand.parse(["--env-file", file.path])
        let merged = try ServeSettings.environment(command: command, process: ["IMGPROXY_QUALITY": "90", "HOME": "/h"])
        #expect(merged["IMGPROXY_QUALITY"] == "90" && merged["IMGPROXY_KEY"] == "aa" && merged["HOME"] == "/h")
        #expect(try ServeSettings(command: command, environment: merged).configuration().quality == 90)
        let byVariable = try ServeSettings.environment(command: try ServeCommand.parse([]),
                                                       process: ["WEBIMAGE_ENV_FILE": file.path])
        #expect(byVariable["IMGPROXY_SALT"] == "bb")
        #expect(throws: ServeError.self) {
            try ServeSettings.environment(command: try ServeCommand.parse(["--env-file", file.path + ".missing"]),
                                          process: [:])
        }
    }
}
