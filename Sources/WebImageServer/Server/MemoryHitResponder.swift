import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers a request for a result the memory tier holds in the channel pipeline, on the event loop that read it.
/// Hummingbird would hand the request to a task through an async sequence, build its request and context, run the
/// middleware chain and write the answer back through another; for a hot thumbnail that machinery cost more than
/// the answer. Anything else (a miss, an endpoint, an error) goes on to Hummingbird unchanged, and gets the same
/// headers as it would here: the proxy's, then `Content-Length`, `Date` and `Server`.
///
/// It sits after Hummingbird's connection-state handler, so that handler sees every request and every answer
/// (idle timeout, graceful shutdown). A pipelining client's answers keep their order: while a request handed on
/// has not been answered, later ones are handed on too. A request that asks to close its connection is handed on,
/// since Hummingbird closes it after the answer.
final class MemoryHitResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let proxy: ImageProxy
    private let accessLog: AccessLog
    private let serverName: String
    /// The answer made here for the current request, sent when the request ends (its body, if any, is dropped).
    private var pending: (answer: ProxyResponse, request: AccessLog.Request)?
    /// Whether the current request is Hummingbird's.
    private var handingOn = false
    /// Requests handed on whose answers have not ended yet.
    private var handedOnUnanswered = 0
    private var wroteSinceFlush = false

    init(proxy: ImageProxy, accessLog: AccessLog, serverName: String) {
        self.proxy = proxy
        self.accessLog = accessLog
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if pending != nil {
            // Taken, not copied: the answer's fields and body are released with it.
            guard case .end = part, let (answer, request) = pending.take() else { return }
            write(answer, context: context)
            accessLog.record(request, status: answer.status, bytes: answer.body.readableBytes)
            return
        }
        switch part {
        case .head(let head):
            guard !handingOn else { return context.fireChannelRead(data) }
            if handedOnUnanswered == 0, head.headerFields[.connection] != "close" {
                let request = Self.proxyRequest(head)
                if let answer = proxy.immediateResponse(to: request, server: serverName) {
                    pending = (answer, AccessLog.Request(method: request.method, path: request.path))
                    return
                }
            }
            handingOn = true
            handedOnUnanswered += 1
            context.fireChannelRead(data)
        case .end:
            handingOn = false
            context.fireChannelRead(data)
        case .body:
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOnUnanswered -= 1 }
        context.write(data, promise: promise)
    }

    /// What the proxy reads of `head`, when its path is one (the path as Hummingbird's router would see it: for
    /// a target starting with `/`, what comes before any `?`, which is read here without parsing a whole URI).
    private static func proxyRequest(_ head: HTTPRequest) -> ProxyRequest {
        let target = head.path ?? ""
        let path: Substring
        if target.utf8.first == UInt8(ascii: "/") {
            path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        } else {
            path = URI(target).path[...]
        }
        return ProxyRequest(method: head.method.rawValue, path: path, headers: head.headerFields)
    }

    /// Writes `answer`, which carries every header it goes out with (``ImageProxy/immediateResponse(to:server:)``
    /// stamps `Content-Length`, `Date` and `Server`).
    private func write(_ answer: ProxyResponse, context: ChannelHandlerContext) {
        let head = HTTPResponse(status: HTTPResponse.Status(code: answer.status), headerFields: answer.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if answer.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(answer.body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        wroteSinceFlush = true
    }
}
