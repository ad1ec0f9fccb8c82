import Foundation

/// One request the server received.
public struct RecordedRequest: Sendable {
    /// Arrival number, from 0.
    public let sequence: Int
    /// The request target as sent (path and query).
    public let uri: String
    /// The path without the query.
    public let path: String
    /// The request headers in order.
    public let headers: [(name: String, value: String)]
    /// The connection (or HTTP/2 stream) it came on, numbered from 0.
    public let connection: Int
    /// The protocol version, `HTTP/1.1` or `HTTP/2.0`.
    public let version: String
    /// Body bytes of the answer handed to the connection so far (a client that stops reading stops this count
    /// once the socket buffers fill).
    public internal(set) var bodyBytesSent = 0

    /// The first value of the header `name` (any letter case), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A snapshot of what the server has seen, for tests to assert on and to wait for.
public struct ServerLog: Sendable {
    /// Every request in arrival order.
    public internal(set) var requests: [RecordedRequest] = []
    /// Requests whose response has not ended yet.
    public internal(set) var inFlight = 0
    /// The most requests ever in flight at once.
    public internal(set) var maxInFlight = 0
    /// Paths of requests whose connection the client closed before the response ended, in order.
    public internal(set) var clientClosedPaths: [String] = []
    /// Connections accepted (each HTTP/2 stream counts as one).
    public internal(set) var connectionCount = 0
    /// Connections accepted and not closed yet.
    public internal(set) var openConnections = 0

    /// How many requests arrived for `path` (query ignored).
    public func count(_ path: String) -> Int {
        requests.reduce(0) { $0 + ($1.path == path ? 1 : 0) }
    }

    /// The requests for `path` (query ignored), in order.
    public func requests(for path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path }
    }

    /// Paths in arrival order.
    public var paths: [String] { requests.map(\.path) }
}

/// The server's mutable state: the log, open connections, in-flight requests and waiters.
struct ServerState {
    struct Connection {
        var openRequest: Int?
        var openPath: String?
        var closingByServer = false
    }

    var log = ServerLog()
    var connections: [Int: Connection] = [:]
    var waiters: [Waiter] = []
    var nextWaiter = 0
    var isShutDown = false

    /// Someone waiting for a condition on the log; resumed with whether the condition held.
    struct Waiter {
        let id: Int
        let condition: @Sendable (ServerLog) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Removes and returns the waiters whose condition now holds (all of them once the server is shut down),
    /// each with the answer to resume it with.
    mutating func satisfiedWaiters() -> [(CheckedContinuation<Bool, Never>, Bool)] {
        var ready: [(CheckedContinuation<Bool, Never>, Bool)] = []
        waiters.removeAll { waiter in
            let holds = waiter.condition(log)
            guard isShutDown || holds else { return false }
            ready.append((waiter.continuation, holds))
            return true
        }
        return ready
    }

    /// Removes waiter `id` if it is still waiting, returning its continuation.
    mutating func removeWaiter(_ id: Int) -> CheckedContinuation<Bool, Never>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
    }

    mutating func requestStarted(connection: Int, uri: String, headers: [(name: String, value: String)],
                                 version: String) -> Int {
        let sequence = log.requests.count
        let path = String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        log.requests.append(RecordedRequest(sequence: sequence, uri: uri, path: path, headers: headers,
                                            connection: connection, version: version))
        guard connections[connection] != nil else {
            // The client left before the server got to its request (a busy machine): it can never be answered.
            if !isShutDown { log.clientClosedPaths.append(path) }
            return sequence
        }
        log.inFlight += 1
        log.maxInFlight = max(log.maxInFlight, log.inFlight)
        connections[connection]?.openRequest = sequence
        connections[connection]?.openPath = path
        return sequence
    }

    mutating func requestEnded(connection: Int, sequence: Int) {
        guard connections[connection]?.openRequest == sequence else { return }
        connections[connection]?.openRequest = nil
        connections[connection]?.openPath = nil
        log.inFlight -= 1
    }

    mutating func connectionClosed(_ id: Int) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        log.openConnections -= 1
        guard connection.openRequest != nil else { return }
        log.inFlight -= 1
        if !connection.closingByServer, !isShutDown, let path = connection.openPath {
            log.clientClosedPaths.append(path)
        }
    }
}
