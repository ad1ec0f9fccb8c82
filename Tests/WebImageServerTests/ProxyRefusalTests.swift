import Dispatch
import Foundation
import NIOCore
import Testing
import WebImage

@testable import WebImageServer

/// Every refusal has its status and a one-line reason, and nothing refused reaches the origin.
/// Statuses are imgproxy's (its handlers' and tests' mapping).
@Suite struct ProxyRefusalTests {
    func expect(_ response: ProxyResponse, _ status: Int, _ reason: String,
                sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(buffer: response.body)
        #expect(response.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(text.contains(reason), "\(text)", sourceLocation: sourceLocation)
        #expect(text.split(separator: "\n").count == 1, sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8", sourceLocation: sourceLocation)
    }

    @Test func signaturesAreChecked() async throws {
        let signer = try URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f")
        try await ProxyHarness.with(configuring: { $0.signature = signer }) { harness in
            let unsigned = harness.plainPath(["w:20"], "photo.jpg")
            let signedPart = String(unsigned.dropFirst(2))  // after "/_"
            let good = "/" + signer.signature(for: signedPart[...]) + signedPart
            #expect(await harness.get(good).status == 200)
            expect(await harness.get(unsigned), 403, "signature does not match")
            expect(await harness.get("/" + signer.signature(for: "/w:21/x") + signedPart), 403, "signature")
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func badURLsOptionsAndSourcesAreRefusedBeforeAnyFetch() async throws {
        try await ProxyHarness.with(configuring: { $0.allowedSourcePrefixes = [] }) { harness in
            // imgproxy's statuses: 404 for what cannot be read or is not allowed, 403 for what needs permission,
            // 422 for a format it cannot write.
            expect(await harness.get(harness.plainPath(["zoomy:2"], "photo.jpg")), 404, "unknown option \"zoomy\"")
            expect(await harness.get(harness.plainPath(["w:10"], "photo.jpg", ext: "xyz")), 404, "extension \"xyz\"")
            expect(await harness.get(harness.plainPath(["w:10"], "photo.jpg", ext: "heic")), 422, "cannot write heic")
            expect(await harness.get(harness.plainPath(["msr:100"], "photo.jpg")), 403, "security options")
            expect(await harness.get("/_/w:10"), 404, "no source URL")
            expect(await harness.get("/w:10/plain/http://example.com/a.jpg"), 403, "signature segment is missing")
            expect(await harness.get(harness.plainPath(["exp:1000"], "photo.jpg")), 404, "expired")
            expect(await harness.get("/_/plain/file:%2F%2F%2Fetc%2Fpasswd"), 404, "only http and https")
            expect(await harness.get("/_/plain/data:image%2Fpng;base64,iVBORw0KGgo="), 404, "not data:")
            expect(await harness.get("/_/plain/http:%2F%2F%2Fa.jpg"), 404, "has no host")
            expect(await harness.get("/_/plain/ftp:%2F%2Fexample.com%2Fa.jpg"), 404, "only http and https")
            #expect(harness.origin.log.requests.isEmpty)
            let post = await harness.proxy.respond(to: ProxyRequest(method: "POST", path: "/health"))
            #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
            #expect(await harness.get("/health").status == 200)
        }
    }

    @Test func sourcesOutsideTheAllowedPrefixesAreRefused() async throws {
        let prefixes = ["https://images.example.com/"]
        try await ProxyHarness.with(configuring: { $0.allowedSourcePrefixes = prefixes }) { harness in
            expect(await harness.get(harness.plainPath([], "photo.jpg")), 404, "not under an allowed prefix")
            #expect(harness.origin.log.requests.isEmpty)
        }
    }

    @Test(arguments: ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254", "10.0.0.1", "localhost"])
    func privateAddressesAreRefusedUnlessAllowed(host: String) async throws {
        try await ProxyHarness.with(configuring: { $0.allowsLoopbackSources = false }) { harness in
            let port = harness.origin.url("/").port ?? 80
            let source = "http://\(host):\(port)/files/photo.jpg"
            let path = "/_/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = await harness.get(path)
            expect(response, 404, "not allowed")
            // The refusal names the host and the rule, never what a name resolved to.
            if host == "localhost" { #expect(!String(buffer: response.body).contains("127.0.0.1")) }
            #expect(harness.origin.log.requests.isEmpty)
        }
    }

    @Test func sourceFaultsHaveTheirStatuses() async throws {
        try await ProxyHarness.with(configuring: {
            $0.maximumSourceBytes = 2_000
            $0.maximumSourcePixels = 100 * 100
        }) { harness in
            expect(await harness.get(harness.plainPath([], "missing.jpg")), 404, "not found")
            expect(await harness.get(harness.plainPath([], "photo.jpg")), 422, "too large")
            expect(await harness.get(harness.plainPath([], "text.txt")), 422, "not an image")
            // Few bytes (one colour compresses well), too many pixels.
            let flat = try PixelBuffer(width: 200, height: 200, filledWith: RGBA(9, 9, 9))
            harness.origin.serve("big.png", data: try ImageCoders.shared.encode(Image(pixels: flat), as: .png),
                                 contentType: "image/png")
            expect(await harness.get(harness.plainPath([], "big.png")), 422, "too large")
            expect(await harness.get(harness.plainPath(["frame:7"], "anim.gif")), 404, "frame 7 does not exist")
            expect(await harness.get(harness.plainPath(["rs:fit:16000:16000:1", "dpr:8"], "anim.gif")), 422,
                   "over the limit of 50000000")
        }
    }

    @Test func aSourceThatFailedIsAskedForAgain() async throws {
        try await ProxyHarness.with { harness in
            expect(await harness.get(harness.plainPath([], "later.png")), 404, "not found")
            harness.origin.serve("later.png", data: try ProxyHarness.photo(width: 8, height: 8, as: .png),
                                 contentType: "image/png")
            #expect(await harness.get(harness.plainPath([], "later.png")).status == 200)
            #expect(harness.origin.log.count("/files/later.png") == 2)
        }
    }

    /// A request over its time is a 504 and leaves: the download nobody waits for any more is stopped, nothing
    /// is left in flight, and a later request fetches the source anew.
    @Test func aRequestOverItsTimeIs504AndLeavesNothingBehind() async throws {
        try await ProxyHarness.with(configuring: { $0.requestTimeout = .seconds(1) }) { harness in
            harness.origin.closeGate("slow")
            let path = harness.plainPath(["w:10"], "photo.jpg", path: "/gate/slow/")
            expect(await harness.get(path), 504, "took longer than")
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
            harness.origin.openGate("slow")
            // A second over its time on a loaded machine would also be a 504: ask until one is answered in time.
            var status = 0
            for _ in 0..<600 where status != 200 { status = await harness.get(path).status }
            #expect(status == 200)
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
        }
    }

    @Test func aFullQueueAnswers429WithRetryAfter() async throws {
        try await ProxyHarness.with(configuring: { $0.workers = 1; $0.queueLimit = 0 }) { harness in
            let cpu = harness.proxy.renders.cpu
            let release = DispatchSemaphore(value: 0)
            let holder = Task { try await cpu.run { release.wait() } }  // the only worker, busy
            #expect(await ProxyLoadTests.eventually { cpu.slots.running == 1 })
            let refused = await harness.get(harness.plainPath(["w:5"], "logo.png"))
            expect(refused, 429, "busy")
            #expect(refused.header("Retry-After") == "1")
            release.signal()
            try await holder.value
            #expect(await harness.get(harness.plainPath(["w:5"], "logo.png")).status == 200)
        }
    }
}
