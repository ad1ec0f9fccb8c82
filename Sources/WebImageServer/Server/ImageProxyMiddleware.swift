import HTTPTypes
import Hummingbird
import NIOCore

/// The image proxy as a Hummingbird middleware: requests whose path starts with `prefix` are answered by the
/// proxy (the rest of the path is the imgproxy URL, signed as imgproxy signs it); every other request goes on to
/// the next responder. Any Hummingbird application can mount it:
///
/// ```swift
/// let router = Router()
/// router.get("/hello") { _, _ in "hello" }
/// router.add(middleware: ImageProxyMiddleware(proxy, mountedAt: "/images"))
/// try await Application(router: router).runService()
/// // GET /images/SIGNATURE/w:300/plain/https%3A%2F%2Fexample.com%2Fa.jpg@webp
/// ```
///
/// Add the proxy to the application's service group, before the application (`ServiceGroup(services: [proxy,
/// application], …)`): it then starts up (Redis, the watermark, the fallback image), sends its traces, and closes
/// its source connections after the application stops.
///
/// A request is answered to the end even when its client disconnects meanwhile (`webimage serve`'s own server
/// stops waiting for such a client).
public struct ImageProxyMiddleware<Context: RequestContext>: RouterMiddleware {
    private let proxy: ImageProxy
    private let prefix: String
    private let disconnects: ClientDisconnects?
    /// Whether a handler before the router already answered what the memory tier holds (``MemoryHitResponder``):
    /// what reaches the middleware then is a miss, but for a rare hit behind a pipelined request.
    private let hitsAnsweredEarlier: Bool

    /// Answers requests under `prefix` (`""` for all; otherwise a path such as `/images`, without a trailing
    /// slash) with `proxy`.
    public init(_ proxy: ImageProxy, mountedAt prefix: String = "") {
        self.init(proxy, mountedAt: prefix, disconnects: nil, hitsAnsweredEarlier: false)
    }

    init(_ proxy: ImageProxy, mountedAt prefix: String, disconnects: ClientDisconnects?, hitsAnsweredEarlier: Bool) {
        self.proxy = proxy
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        self.disconnects = disconnects
        self.hitsAnsweredEarlier = hitsAnsweredEarlier
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(prefix), prefix.isEmpty || path.dropFirst(prefix.count).first == "/" else {
            return try await next(request, context)
        }
        let proxyRequest = ProxyRequest(method: request.method.rawValue, path: path.dropFirst(prefix.count),
                                        headers: request.headers)
        let answer: ProxyResponse
        if !hitsAnsweredEarlier, let immediate = proxy.immediateResponse(to: proxyRequest) {
            // A result in memory: nothing to wait for, so nothing to cancel when the client goes.
            answer = immediate
        } else if let disconnects, let channel = (context as? any ChannelRequestContext)?.channel {
            answer = await disconnects.run(on: channel) { await proxy.respond(to: proxyRequest) }
        } else {
            answer = await proxy.respond(to: proxyRequest)
        }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: answer.headers,
                        body: ResponseBody(byteBuffer: answer.body))
    }
}

extension ProxyRequest {
    /// What the proxy reads of a request with `headers`: the first field of each name, as imgproxy reads them (a
    /// repeated field is not joined into a list).
    init(method: String, path: Substring, headers: HTTPFields) {
        let hints = ClientHints(
            secCHDPR: headers[values: HintHeaders.secCHDPR].first, dpr: headers[values: HintHeaders.dpr].first,
            secCHWidth: headers[values: HintHeaders.secCHWidth].first, width: headers[values: HintHeaders.width].first)
        self.init(method: method, path: String(path), accept: headers[.accept], ifNoneMatch: headers[.ifNoneMatch],
                  clientHints: hints, authorization: headers[values: .authorization].first,
                  traceparent: headers[values: HintHeaders.traceparent].first)
    }
}

/// The client hints' request headers, and the trace context's (their names match whatever their case).
private enum HintHeaders {
    static let traceparent = HTTPField.Name("traceparent")!
    static let secCHDPR = HTTPField.Name("Sec-CH-DPR")!
    static let dpr = HTTPField.Name("DPR")!
    static let secCHWidth = HTTPField.Name("Sec-CH-Width")!
    static let width = HTTPField.Name("Width")!
}

/// A request context that knows its connection's channel (so the proxy can notice its client leaving).
package protocol ChannelRequestContext: RequestContext {
    /// The channel the request arrived on.
    var channel: any Channel { get }
}
