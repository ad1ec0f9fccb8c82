import Foundation
import Testing
import WebImage

@testable import WebImageProxyURL
@testable import WebImageServer

@Suite struct ProxyPathTests {
    @Test func plainSourceWithExtension() throws {
        let path = try ProxyPath(parsing: "/sig/rs:fill:300:400:0/g:sm/plain/http://example.com/images/a%20b.jpg@png")
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/rs:fill:300:400:0/g:sm/plain/http://example.com/images/a%20b.jpg@png")
        #expect(path.options == ["rs:fill:300:400:0", "g:sm"])
        #expect(path.source == "http://example.com/images/a b.jpg")
        #expect(path.outputExtension == "png")
    }

    @Test func plainSourceKeepsEncodedAtSignsAndQueries() throws {
        let path = try ProxyPath(parsing: "/_/plain/https://u%40x.org/i.png%3Fv%3D2")
        #expect(path.options.isEmpty)
        #expect(path.source == "https://u@x.org/i.png?v=2")
        #expect(path.outputExtension == nil)
    }

    @Test func base64SourceSplitBySlashes() throws {
        let path = try ProxyPath(parsing: "/s/w:10/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.WEBP")
        #expect(path.options == ["w:10"])
        #expect(path.source == "http://example.com/images/curiosity.jpg")
        #expect(path.outputExtension == "webp")
        let whole = try ProxyPath(parsing: "/s/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn")
        #expect(whole.source == "http://example.com/images/curiosity.jpg")
        #expect(whole.outputExtension == nil)
    }

    /// What proxies and CDNs in front do to paths is undone before the signature is checked: escaped colons in
    /// options, and the double slash of a plain source's scheme collapsed to one.
    @Test func normalisedPathsAreRestoredAsImgproxyRestoresThem() throws {
        let escaped = try ProxyPath(parsing: "/sig/rs%3Afill%3A10%3A20/g%3Asm/plain/http:/example.com/a.jpg@png")
        #expect(escaped.options == ["rs:fill:10:20", "g:sm"])
        #expect(escaped.signedPart == "/rs:fill:10:20/g:sm/plain/http://example.com/a.jpg@png")
        #expect(escaped.source == "http://example.com/a.jpg" && escaped.outputExtension == "png")
        let plainOnly = try ProxyPath(parsing: "/sig/plain/https:/example.com/b.png")
        #expect(plainOnly.source == "https://example.com/b.png")
        // An intact URL and an encoded one are left alone; an @ in the source is written %40, as imgproxy asks:
        // a second @ names a second format, refused (404) as imgproxy refuses it.
        #expect(try ProxyPath(parsing: "/sig/plain/http://a.com/x.jpg").source == "http://a.com/x.jpg")
        #expect(try ProxyPath(parsing: "/sig/plain/http%3A%2F%2Fa.com%2Fx.jpg").source == "http://a.com/x.jpg")
        let at = try ProxyPath(parsing: "/sig/plain/http://a.com/%40me/x.jpg@webp")
        #expect(at.source == "http://a.com/@me/x.jpg" && at.outputExtension == "webp")
        for path in ["/sig/plain/http://a.com/@me/x.jpg@webp", "/sig/plain/http://a.com/x.jpg@png@webp",
                     "/sig/plain/http://a.com/x.jpg@@webp"] {
            #expect(throws: ProxyError.invalidURL("several formats are named after @")) {
                try ProxyPath(parsing: path)
            }
        }
    }

    @Test func onlyPresetsPathsNamePresetsInTheirFirstSegment() throws {
        let path = try ProxyPath(parsing: "/sig/thumb:pngify/plain/http://a.com/x.jpg", onlyPresets: true)
        #expect(path.options == ["thumb:pngify"] && path.source == "http://a.com/x.jpg")
        let single = try ProxyPath(parsing: "/sig/thumb/aHR0cDovL2EuY29tL3guanBn.png", onlyPresets: true)
        #expect(single.options == ["thumb"] && single.source == "http://a.com/x.jpg" && single.outputExtension == "png")
        #expect(throws: ProxyError.self) { try ProxyPath(parsing: "/sig/plain/http://a.com/x.jpg", onlyPresets: true) }
    }

    @Test(arguments: [
        "", "nosignature", "/", "/sig", "/sig/", "//w:1/plain/http://a", "/sig/w:10", "/sig/w:10/plain/",
        "/sig/plain/%ZZ", "/sig/enc/abcd", "/sig/w:1//plain/http://a", "/sig/@@@", "/sig/aHR0cDovL2E.j-g",
    ])
    func malformedPathsAreInvalidURLs(path: String) {
        do {
            let parsed = try ProxyPath(parsing: path)
            Issue.record("\(path) parsed as \(parsed)")
        } catch {
            #expect(error.status == 404)
            #expect(!error.reason.isEmpty && !error.reason.contains("\n"))
        }
    }
}

/// The proxy's own percent-decoding and path restoring give what Foundation's string functions gave.
@Suite struct ProxyPathDecodingTests {
    @Test func percentDecodingMatchesFoundation() {
        let samples = ["", "plain", "a%20b", "%E2%82%AC", "%e2%82%ac%2F", "http%3A%2F%2Fexample.com%2Fa.jpg", "100%",
                       "%2", "%zz", "%FF", "%C3", "a%%20", "%00x", "é%20ü", "%41%42%43"]
        for sample in samples {
            #expect(PercentDecoding.string(of: sample[...]) == sample.removingPercentEncoding, "\(sample)")
        }
    }

    @Test func restoringColonsAndTheSchemeSlash() {
        #expect(ProxyPath.restored("rs%3Afill%3A10/g%3Asm/plain/http:/example.com/a.jpg")
                == "rs:fill:10/g:sm/plain/http://example.com/a.jpg")
        #expect(ProxyPath.restored("w%3A10/plain/https://e.com/a%3A.jpg") == "w:10/plain/https://e.com/a%3A.jpg")
        #expect(ProxyPath.restored("plain/http:/e.com/x") == "plain/http://e.com/x")
        #expect(ProxyPath.restored("w:10/plainly/aHR0cDov") == "w:10/plainly/aHR0cDov")
        #expect(ProxyPath.restored("w%3a10/%3A") == "w%3a10/:")
    }
}
