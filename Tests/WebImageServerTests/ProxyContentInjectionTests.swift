import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
import WebImage

@testable import WebImageServer

/// What an origin could otherwise make the proxy answer from the proxy's own domain: a page or a script (through
/// `raw`, or an answer a browser sniffs as another type), or a file named as something else.
@Suite struct ProxyContentInjectionTests {
    /// Made anew for each use: LeakSanitizer reported this page's storage as leaked when a static held it (its scan
    /// did not find the static's reference to the heap storage of a `Data` this size).
    private static var page: Data {
        Data("<!DOCTYPE html><html><body><script>alert(document.domain)</script></body></html>".utf8)
    }

    @Test func rawAnswersAnSVGSourceSanitised() async throws {
        try await ProxyHarness.with { harness throws in
            let source = Data(SVGSanitizerTests.hostile.utf8)
            harness.origin.serve("icon.svg", data: source, contentType: "image/svg+xml")
            let sanitized = try SVGSanitizer.sanitized(source)
            #expect(sanitized != source)
            let asked: [([String], String?)] = [(["raw:1"], nil), (["raw:1"], "png"), (["raw:1", "f:svg"], nil)]
            for (options, ext) in asked {
                let answer = await harness.get(harness.plainPath(options, "icon.svg", ext: ext))
                #expect(answer.status == 200 && answer.header("Content-Type") == "image/svg+xml")
                #expect(answer.bodyData == sanitized, "\(options) \(ext ?? "")")
            }
            // Any other image is still passed on as it came.
            let jpeg = try ProxyHarness.photo(width: 8, height: 8, as: .jpeg)
            harness.origin.serve("tiny.jpg", data: jpeg, contentType: "image/jpeg")
            let raw = await harness.get(harness.plainPath(["raw:1", "w:2"], "tiny.jpg"))
            #expect(raw.status == 200 && raw.header("Content-Type") == "image/jpeg" && raw.bodyData == jpeg)
        }
    }

    /// `raw` on a page is refused as a source that does not decode is, so no HTML (and no file an attacker
    /// names `invoice.html`) is ever answered from the proxy's domain.
    @Test func rawRefusesASourceThatIsNotAnImage() async throws {
        try await ProxyHarness.with { harness throws in
            harness.origin.serve("invoice.html", data: Self.page, contentType: "text/html")
            let reason = "the source is not an image this server decodes: its format is unknown\n"
            for options in [["raw:1"], ["raw:1", "att:1", "fn:invoice.html"]] {
                let answer = await harness.get(harness.plainPath(options, "invoice.html"))
                #expect(answer.status == 422 && String(buffer: answer.body) == reason, "\(options)")
                #expect(answer.header("Content-Type") == "text/plain; charset=utf-8")
                #expect(answer.header("Content-Disposition") == nil)
            }
            let plainText = await harness.get(harness.plainPath(["raw:1"], "text.txt"))
            #expect(plainText.status == 422 && String(buffer: plainText.body) == reason)
            // Without `raw` the page was already refused: it does not decode.
            let decoded = await harness.get(harness.plainPath([], "invoice.html"))
            #expect(decoded.status == 422
                    && String(buffer: decoded.body).hasPrefix("the source is not an image this server decodes"))

            // A page that holds an inline SVG near its start is taken for SVG by its bytes: the sanitiser, which
            // `raw` no longer skips, refuses a document whose root is not SVG's `svg`.
            let inline = Data(("<html><body><svg xmlns=\"http://www.w3.org/2000/svg\"/>"
                               + "<script>alert(1)</script></body></html>").utf8)
            harness.origin.serve("inline.html", data: inline, contentType: "text/html")
            let svgPage = await harness.get(harness.plainPath(["raw:1", "att:1"], "inline.html"))
            #expect(svgPage.status == 422 && String(buffer: svgPage.body) == "the SVG source is not a well-formed "
                    + "SVG document: its root element <html> is not SVG's <svg>\n")
        }
    }

    @Test func everyAnswerSaysNoSniff() async throws {
        try await ProxyHarness.with { harness throws in
            let hot = harness.plainPath(["w:20"], "photo.jpg")
            let rendered = await harness.get(hot)
            let repeated = await harness.get(hot)  // its first repeat: from then on a memory hit
            let notModified = await harness.get(hot, ifNoneMatch: rendered.header("ETag"))
            let answers: [(ProxyResponse, Int)] = [
                (rendered, 200), (repeated, 200), (notModified, 304),
                (await harness.get(harness.plainPath([], "missing.jpg")), 404),
                (await harness.get(harness.plainPath([], "text.txt")), 422),
                (await harness.proxy.respond(to: ProxyRequest(method: "POST", path: hot)), 405),
                (await harness.get("/health"), 200), (await harness.get("/metrics"), 200),
            ]
            for (index, (answer, status)) in answers.enumerated() {
                #expect(answer.status == status, "answer \(index)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "answer \(index): \(answer.headers)")
            }

            // The memory-hit hot path, in the pipeline: the head it makes, then the head it kept for the second.
            let log = AccessLog(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            let channel = EmbeddedChannel(handler: MemoryHitResponder(proxy: harness.proxy, accessLog: log,
                                                                      serverName: "webimage"))
            let request = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: hot)
            var conditional = request
            conditional.headerFields[.ifNoneMatch] = rendered.header("ETag")
            for head in [request, request, conditional] {
                try channel.writeInbound(HTTPRequestPart.head(head))
                try channel.writeInbound(HTTPRequestPart.end(nil))
            }
            #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)  // none handed on: all hits
            var heads: [HTTPResponse] = []
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
                if case .head(let head) = part { heads.append(head) }
            }
            #expect(heads.map(\.status.code) == [200, 200, 304])
            #expect(heads.allSatisfy { $0.headerFields[ProxyResponder.contentTypeOptions] == "nosniff" })
            _ = try channel.finish()  // an unfinished embedded channel keeps its pipeline alive (LeakSanitizer)
        }
    }

    /// The file name is the stem and the answer's extension, whatever bytes the URL's `filename` holds.
    @Test func theDispositionNamesOnlyTheAnswersType() async throws {
        try await ProxyHarness.with { harness throws in
            func disposition(_ options: [String]) async -> String? {
                await harness.get(harness.plainPath(options, "photo.jpg")).header("Content-Disposition")
            }
            func base64(_ name: String) -> String { Base64URL.encode(Array(name.utf8)) }
            #expect(await disposition(["fn:invoice.html"]) == "inline; filename=\"invoice_html.jpg\"")
            #expect(await disposition(["fn:invoice.html", "att:1", "f:png"])
                    == "attachment; filename=\"invoice_html.png\"")
            // A name ending in `\` cannot escape the closing quote; `"` cannot end the string early.
            #expect(await disposition(["fn:x%5C"]) == "inline; filename=\"x%5C.jpg\"")
            #expect(await disposition(["fn:\(base64("a\\\"b\\")):1"]) == "inline; filename=\"a%5C%22b%5C.jpg\"")
            // `\r\n` is one Character but two controls; every C0 control, DEL and C1 control goes, and so do the
            // format characters that would show the name reordered.
            #expect(await disposition(["fn:\(base64("a\r\nSet-Cookie: x=1")):1"])
                    == "inline; filename=\"aSet-Cookie: x=1.jpg\"")
            #expect(await disposition(["fn:\(base64("b\u{0}\u{1F}\u{7F}\u{85}\tc")):1"])
                    == "inline; filename=\"bc.jpg\"")
            #expect(await disposition(["fn:\(base64("x\u{202E}gnp.html")):1"])
                    == "inline; filename=\"xgnp_html.jpg\"")
            #expect(await disposition(["fn:\(base64("\r\n")):1"]) == "inline; filename=\"image.jpg\"")
            #expect(await disposition(["fn:caf%C3%A9"]) == "inline; filename=\"café.jpg\"")
        }
    }
}
