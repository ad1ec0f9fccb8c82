import WebImage
import Foundation
import HTTPTypes

extension ImageProxy {
    /// The answer to `request` when it is a result the memory tier holds (or a 304 for one), made without a task
    /// or a suspension, so that a hot result is answered on the thread that read the request; `nil` for anything
    /// else, which ``respond(to:)`` answers (a result's first repeat among them: it writes the result to disk).
    ///
    /// - Parameter server: for an answer written to the connection as it is, the `Server` it names: the answer
    ///   then carries `Content-Length`, `Date` and `Server` too, and a hot result's plain `GET` is answered with
    ///   the head its route made earlier in the same second.
    public func immediateResponse(to request: ProxyRequest, server: String? = nil) -> ProxyResponse? {
        let started = ContinuousClock.now
        // A request without the secret is left to respond(to:), which refuses it.
        guard request.method == "GET" || request.method == "HEAD",
              let inner = access.inside(request), access.admits(request),
              case .image(let image)? = try? route(inner),
              let result = results.memoryResult(forKey: image.key)
        else { return nil }
        metrics.resultLookup(.memory)
        let trace = tracer?.start(traceparent: request.traceparent)
        trace?.note("webimage.result_cache", .string("memory"))
        let now = Date().timeIntervalSince1970
        let second = Int(now)
        let plain = request.method == "GET" && request.ifNoneMatch == nil, bytes = result.body.readableBytes
        if plain, let fields = image.hitHead.fields(etag: result.etag, bytes: bytes, second: second, server: server) {
            metrics.answered(status: 200, after: ContinuousClock.now - started)
            trace?.end(method: request.method, path: request.path, status: 200, reason: "")
            return ProxyResponse(status: 200, headers: fields, body: result.body)
        }
        var response = finish(responder.image(result, for: image, ifNoneMatch: request.ifNoneMatch, now: now),
                              for: request, started: started, trace: trace)
        // Before the head is kept: a hit answered from the kept head carries them too.
        access.addCORS(to: &response)
        if let server { Self.stamp(&response, server: server, second: second) }
        if plain {
            image.hitHead.keep(response.headers, etag: result.etag, bytes: bytes, second: second, server: server)
        }
        return response
    }

    /// Adds what the HTTP server would add to `response`: its length, the date (of `second`) and `server`.
    private static func stamp(_ response: inout ProxyResponse, server: String, second: Int) {
        if !response.headers.contains(.contentLength) {
            response.headers[.contentLength] = String(response.body.readableBytes)
        }
        response.headers[.date] = HTTPDate.string(secondsSince1970: Double(second))
        response.headers[.server] = server
    }
}
