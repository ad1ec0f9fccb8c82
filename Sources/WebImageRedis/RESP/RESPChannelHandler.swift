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
    /// Overrides the handler's timeout (the handshake may take as long as connecting may).
    var timeout: TimeAmount?
}

/// Pipelining: commands are written as they come, and since Redis answers them in order, each reply completes the
/// oldest promise still waiting. A closed or failed connection fails every waiting promise at once.
///
/// Timeouts: one timer per connection looks at the waiting commands a few times per timeout and fails those past
/// their deadline (a timer per command cost a wake-up of the event loop per command). A failed command keeps its
/// place in the queue, so that its late reply, when it comes, is paired with it and dropped.
final class RESPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RESPRequest
    typealias OutboundOut = ByteBuffer

    private struct Waiting {
        let reply: EventLoopPromise<RESPValue>
        let deadline: NIODeadline
    }

    private let timeout: TimeAmount
    private var waiting = CircularBuffer<Waiting>(initialCapacity: 16)
    /// How many of the oldest waiting commands have already been failed by the timer.
    private var expired = 0
    private var failure: RedisError?
    private var sweeper: RepeatedTask?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let interval = TimeAmount.nanoseconds(max(timeout.nanoseconds / 4, TimeAmount.milliseconds(5).nanoseconds))
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        sweeper = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            loopBound.value.failOverdue()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sweeper?.cancel()
        sweeper = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.reply.fail(failure)
            promise?.fail(failure)
            return
        }
        waiting.append(Waiting(reply: request.reply, deadline: .now() + (request.timeout ?? timeout)))
        context.write(wrapOutboundOut(request.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        if case .push = value { return }  // out of band (client tracking, pub/sub): not a command's answer
        guard let oldest = waiting.popFirst() else {
            failAll(.protocolViolation("a reply nobody asked for"), context: context)
            return
        }
        if expired > 0 { expired -= 1 }
        oldest.reply.succeed(value)  // a no-op when it already timed out
    }

    private func failOverdue() {
        let now = NIODeadline.now()
        while expired < waiting.count, waiting[waiting.index(waiting.startIndex, offsetBy: expired)].deadline <= now {
            waiting[waiting.index(waiting.startIndex, offsetBy: expired)].reply.fail(RedisError.timeout)
            expired += 1
        }
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
        while let oldest = waiting.popFirst() { oldest.reply.fail(error) }
        expired = 0
        context?.close(promise: nil)
    }
}
