import Testing

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

    @Test(arguments: [
        "", "nosignature", "/", "/sig", "/sig/", "//w:1/plain/http://a", "/sig/w:10", "/sig/w:10/plain/",
        "/sig/plain/%ZZ", "/sig/enc/abcd", "/sig/w:1//plain/http://a", "/sig/@@@", "/sig/aHR0cDovL2E.j-g",
    ])
    func malformedPathsAreBadRequests(path: String) {
        do {
            let parsed = try ProxyPath(parsing: path)
            Issue.record("\(path) parsed as \(parsed)")
        } catch {
            #expect(error.status == 400)
            #expect(!error.reason.isEmpty && !error.reason.contains("\n"))
        }
    }
}
