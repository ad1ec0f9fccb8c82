import WebImage
import NIOCore

/// Cancels the work of a request whose client went away. Hummingbird runs a request's responder to the end
/// even when its connection closed, so without this a client that gave up would still hold its place in the
/// line of renders, and a render nobody waits for would still start. Like nginx, a client that closes its
/// sending side counts as gone.
final class ClientDisconnects: Sendable {
    /// One connection: whether its client is gone, and what to cancel when it goes.
    private final class Connection: Sendable {
        private struct State {
            var gone = false
            var cancellations: [Int: @Sendable () -> Void] = [:]
            var nextID = 0
        }

        private let state = Locked(State())

        /// Runs `cancel` when the client goes (at once when it has); the returned id withdraws it.
        func onGone(_ cancel: @escaping @Sendable () -> Void) -> Int? {
            let id = state.withLock { state -> Int? in
                guard !state.gone else { return nil }
                defer { state.nextID += 1 }
                state.cancellations[state.nextID] = cancel
                return state.nextID
            }
            if id == nil { cancel() }
            return id
        }

        func withdraw(_ id: Int?) {
            guard let id else { return }
            _ = state.withLock { $0.cancellations.removeValue(forKey: id) }
        }

        func clientWent() {
            let cancellations = state.withLock { state -> [@Sendable () -> Void] in
                state.gone = true
                defer { state.cancellations = [:] }
                return Array(state.cancellations.values)
            }
            for cancel in cancellations { cancel() }
        }
    }

    private let connections = Locked<[ObjectIdentifier: Connection]>([:])

    init() {}

    /// The handler that watches one connection (one per connection, in its pipeline).
    func makeHandler() -> any RemovableChannelHandler {
        ConnectionWatcher(registry: self)
    }

    /// Connections being watched now.
    var count: Int { connections.withLock { $0.count } }

    /// `body`'s value, computed in a task that is cancelled if the client of `channel` goes away first.
    func run<T: Sendable>(on channel: any Channel, _ body: @escaping @Sendable () async -> T) async -> T {
        guard let connection = connections.withLock({ $0[ObjectIdentifier(channel)] }) else {
            return await body()
        }
        let task = Task { await body() }
        let id = connection.onGone { task.cancel() }
        defer { connection.withdraw(id) }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    fileprivate func opened(_ channel: any Channel) {
        connections.withLock { $0[ObjectIdentifier(channel)] = Connection() }
    }

    fileprivate func closed(_ channel: any Channel) {
        connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }?.clientWent()
    }

    fileprivate func inputClosed(_ channel: any Channel) {
        connections.withLock { $0[ObjectIdentifier(channel)] }?.clientWent()
    }
}

/// Tells the registry when its connection opens, when its client stops sending, and when it closes.
private final class ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let registry: ClientDisconnects
    private var registered = false

    init(registry: ClientDisconnects) {
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registered = true
        registry.opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guard registered else { return }
        registered = false
        registry.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if registered {
            registered = false
            registry.closed(context.channel)
        }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { registry.inputClosed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }
}
