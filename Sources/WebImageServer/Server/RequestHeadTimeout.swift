import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request head has not fully arrived within `limit` of its first byte: a client
/// that sends half a request and stops (or dribbles a byte at a time) would otherwise hold its connection, its
/// file descriptor and its buffers for ever, and enough of them starve every other client. Time between
/// requests is the idle timeout's business; this one starts with the first byte of each request.
///
/// It sits after the HTTP decoder (where it sees whole heads) and puts a watcher of raw bytes at the front of
/// the pipeline (where it sees the first byte arrive).
final class RequestHeadTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    /// Between the end of a request and the head of the next: the next byte starts the clock.
    private var awaitingHead = true
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
            cancelDeadline()
        case .end:
            awaitingHead = true
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    private func bytesArrived(context: ChannelHandlerContext) {
        guard awaitingHead, deadline == nil else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: limit) { [weak self] in
            guard let self, awaitingHead else { return }
            deadline = nil
            context.close(promise: nil)
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
