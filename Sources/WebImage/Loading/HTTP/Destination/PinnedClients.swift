import AsyncHTTPClient

/// HTTP clients that connect a host name to one checked address. AsyncHTTPClient resolves names itself when it
/// connects, which leaves a window between our check and its connection (DNS rebinding); a client whose
/// `dnsOverride` maps the host to the checked address connects exactly there and still sends the host name for
/// TLS (SNI and certificate verification). Such a client pools its connections like any other, so a server
/// talking to a few origins keeps a few of them; the least recently used idle ones are shut down beyond
/// ``capacity``.
final class PinnedClients: Sendable {
    private struct Pin: Hashable {
        let host: String
        let address: IPAddress
    }

    private struct Entry {
        let client: HTTPClient
        var leases = 0
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Pin: Entry] = [:]
        var clock: UInt64 = 0
        var isShutDown = false
    }

    /// How many pinned clients are kept.
    let capacity: Int
    private let makeClient: @Sendable ([String: String]) -> HTTPClient
    private let state = Locked(State())

    /// `makeClient` builds a client with the loader's settings and the given DNS override.
    init(capacity: Int = 32, makeClient: @escaping @Sendable ([String: String]) -> HTTPClient) {
        self.capacity = capacity
        self.makeClient = makeClient
    }

    deinit {
        // A client must be shut down before it goes away; nobody can be using these any more.
        for entry in state.withLock({ $0.entries.values }) { _ = entry.client.shutdown() }
    }

    /// Runs `body` with the client pinned to `address` for `host`. `host` must be spelled exactly as the client
    /// will read it from the request's URL (see ``HTTPImageLoader/connectionHost(of:)``): the client looks its
    /// override up with that string as it is, and a miss means it resolves the name itself.
    func withClient<T>(host: String, address: IPAddress, _ body: (HTTPClient) async throws -> T) async throws -> T {
        let pin = Pin(host: host, address: address)
        let (client, evicted) = try lease(pin)
        for old in evicted { Task { try? await old.shutdown() } }
        defer { release(pin) }
        return try await body(client)
    }

    private func lease(_ pin: Pin) throws -> (HTTPClient, [HTTPClient]) {
        try state.withLock { state in
            guard !state.isShutDown else {
                throw ImageError(.connectionFailed, "the HTTP loader was shut down")
            }
            state.clock += 1
            if var entry = state.entries[pin] {
                entry.leases += 1
                entry.lastUse = state.clock
                state.entries[pin] = entry
                return (entry.client, [])
            }
            let client = makeClient([pin.host: pin.address.description])
            state.entries[pin] = Entry(client: client, leases: 1, lastUse: state.clock)
            var evicted: [HTTPClient] = []
            while state.entries.count > capacity,
                  let idle = state.entries.filter({ $0.value.leases == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                evicted.append(idle.value.client)
                state.entries.removeValue(forKey: idle.key)
            }
            return (client, evicted)
        }
    }

    private func release(_ pin: Pin) {
        state.withLock { state in
            state.entries[pin]?.leases -= 1
        }
    }

    /// Shuts every pinned client down; later leases fail.
    func shutdown() async {
        let clients = state.withLock { state -> [HTTPClient] in
            state.isShutDown = true
            defer { state.entries = [:] }
            return state.entries.values.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
    }
}
