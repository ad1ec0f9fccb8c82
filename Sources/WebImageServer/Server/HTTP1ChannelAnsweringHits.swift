import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with one more handler, placed where its `additionalChannelHandlers` cannot go:
/// after the connection-state handler, right before the async channel that feeds Hummingbird's tasks. A handler
/// there that answers some requests itself still has each of them counted by the connection-state handler (its
/// idle timeout and graceful shutdown see them), and its answers pass through the encoders like Hummingbird's.
struct HTTP1ChannelAnsweringHits: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// A new handler for each connection.
    let makeHandler: @Sendable () -> any ChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(makeHandler(), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
