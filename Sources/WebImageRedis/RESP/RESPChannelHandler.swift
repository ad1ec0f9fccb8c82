import NIOCore

/// Turns the bytes a Redis connection receives into replies.
struct RESPDecoder: NIOSingleStepByteToMessageDecoder {
    typealias InboundOut = RESPValue

    mutating func decode(buffer: inout ByteBuffer) throws -> RESPValue? {
        try RESPParser.parse(&buffer)
    }

    mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> RESPValue? {
        try decode(buffer: &buffer)
    }
}

/// A command on its way out, with the promise its reply completes.
struct RESPRequest: Sendable {
    var bytes: ByteBuffer
    var reply: EventLoopPromise<RESPValue>
}

/// Pipelining: commands are written as they come, and since Redis answers them in order, each reply completes the
/// oldest promise still waiting. A closed or failed connection fails every waiting promise at once.
final class RESPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RESPRequest
    typealias OutboundOut = ByteBuffer

    private var waiting = CircularBuffer<EventLoopPromise<RESPValue>>(initialCapacity: 16)
    private var failure: RedisError?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.reply.fail(failure)
            promise?.fail(failure)
            return
        }
        waiting.append(request.reply)
        context.write(wrapOutboundOut(request.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        if case .push = value { return }  // out of band (client tracking, pub/sub): not a command's answer
        guard let reply = waiting.popFirst() else {
            failAll(.protocolViolation("a reply nobody asked for"), context: context)
            return
        }
        reply.succeed(value)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll((error as? RedisError) ?? .connectionFailed("\(error)"), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(.connectionFailed("the connection closed"), context: nil)
        context.fireChannelInactive()
    }

    private func failAll(_ error: RedisError, context: ChannelHandlerContext?) {
        if failure == nil { failure = error }
        while let reply = waiting.popFirst() { reply.fail(error) }
        context?.close(promise: nil)
    }
}
