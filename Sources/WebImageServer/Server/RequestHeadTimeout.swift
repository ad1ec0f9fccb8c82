import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request head has not fully arrived within `limit` of its first byte: a client
/// that sends half a request and stops (or dribbles a byte at a time) would otherwise hold its connection, its
/// file descriptor and its buffers for ever, and enough of them starve every other client. Time between
/// requests is the idle timeout's business; this one starts with the first byte of each request.
///
/// It sits after the HTTP decoder (where it sees whole heads) and puts a watcher of raw bytes at the front of
/// the pipeline (where it sees the first byte arrive). A request costs a clock read: the timer is not scheduled
/// and cancelled for each one (on a keep-alive connection of cached answers that was a tenth of the work), but
/// kept, and when it fires it closes the connection only if the head it finds waiting started `limit` ago;
/// otherwise it sets itself for that head's own deadline.
final class RequestHeadTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    /// Between the end of a request and the head of the next: the next byte starts the clock.
    private var awaitingHead = true
    /// When the first byte of the head still awaited arrived; `nil` while no head is under way.
    private var headStarted: NIODeadline?
    private var deadline: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let watcher = ByteArrivalWatcher { [weak self] in
            loop.preconditionInEventLoop()
            self?.bytesArrived(context: context)
        }
        try? context.pipeline.syncOperations.addHandler(watcher, position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            awaitingHead = false
            headStarted = nil
        case .end:
            awaitingHead = true
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    private func bytesArrived(context: ChannelHandlerContext) {
        guard awaitingHead, headStarted == nil else { return }
        let now = NIODeadline.now()
        headStarted = now
        if deadline == nil { schedule(at: now + limit, context: context) }
    }

    private func schedule(at time: NIODeadline, context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [weak self] in
            guard let self else { return }
            deadline = nil
            guard awaitingHead, let headStarted else { return }
            if NIODeadline.now() >= headStarted + limit {
                context.close(promise: nil)
            } else {
                schedule(at: headStarted + limit, context: context)
            }
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }
}

/// Tells its owner that bytes arrived, before anything decodes them, and passes them on untouched.
private final class ByteArrivalWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let arrived: () -> Void

    init(_ arrived: @escaping () -> Void) {
        self.arrived = arrived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived()
        context.fireChannelRead(data)
    }
}
