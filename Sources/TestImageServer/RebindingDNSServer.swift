import NIOCore
import NIOPosix

/// A DNS server on loopback UDP whose answers a test scripts: A queries for one name get the IPv4 addresses of
/// ``answers`` in turn (the last one repeated), by default with TTL 0 so nothing may cache it, which is what a
/// rebinding attacker's server does (first a harmless address that passes a check, then an internal one).
/// AAAA queries for the name get an empty answer; every other name is answered "no such name".
public final class RebindingDNSServer: Sendable {
    /// The address the server listens on.
    public let host: String
    /// The UDP port the system gave it.
    public let port: Int
    /// The name answered (compared without regard to case, as DNS does).
    public let name: String
    private let channel: any Channel
    private let state: ServerLock<DNSServerState>

    private init(host: String, port: Int, name: String, channel: any Channel, state: ServerLock<DNSServerState>) {
        self.host = host
        self.port = port
        self.name = name
        self.channel = channel
        self.state = state
    }

    /// Starts a server on 127.0.0.1 and a free port answering A queries for `name` with `answers` in turn
    /// (dotted IPv4 addresses), each record with `ttl` seconds to live.
    public static func start(name: String, answers: [String], ttl: UInt32 = 0) async throws -> RebindingDNSServer {
        let state = ServerLock(DNSServerState(name: name.lowercased(), answers: answers.compactMap(Self.ipv4Bytes),
                                              ttl: ttl))
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DNSAnswering(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw TestImageServerError.noPort
        }
        return RebindingDNSServer(host: "127.0.0.1", port: port, name: name, channel: channel, state: state)
    }

    /// `HOST:PORT`, as a resolver setting takes it.
    public var address: String { "\(host):\(port)" }

    /// How many A queries for the name were answered so far.
    public var addressQueries: Int { state.withLock { $0.addressQueries } }

    /// How many queries were read so far, for any name and type.
    public var queries: Int { state.withLock { $0.queries } }

    /// Stops listening.
    public func shutdown() async {
        try? await channel.close()
    }

    private static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".").compactMap { UInt8($0) }
        return parts.count == 4 ? parts : nil
    }
}

struct DNSServerState {
    let name: String
    let answers: [[UInt8]]
    let ttl: UInt32
    var addressQueries = 0
    var queries = 0

    /// The next A answer for the name.
    mutating func nextAddress() -> [UInt8]? {
        guard !answers.isEmpty else { return nil }
        defer { addressQueries += 1 }
        return answers[min(addressQueries, answers.count - 1)]
    }
}

/// Reads each query datagram and writes its answer back to the sender.
private final class DNSAnswering: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let state: ServerLock<DNSServerState>

    init(state: ServerLock<DNSServerState>) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let query = Array(envelope.data.readableBytesView)
        guard let reply = answer(query) else { return }
        let buffer = context.channel.allocator.buffer(bytes: reply)
        context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)),
                              promise: nil)
    }

    /// The answer to a standard query with one question; `nil` (no answer) for anything it cannot read.
    private func answer(_ query: [UInt8]) -> [UInt8]? {
        guard query.count >= 12, query[2] & 0x80 == 0, query[4] == 0, query[5] == 1 else { return nil }
        var offset = 12
        var labels: [String] = []
        while offset < query.count, query[offset] != 0 {
            let length = Int(query[offset])
            guard length < 64, offset + 1 + length <= query.count else { return nil }
            labels.append(String(decoding: query[(offset + 1)..<(offset + 1 + length)], as: UTF8.self))
            offset += 1 + length
        }
        guard offset + 5 <= query.count else { return nil }
        let questionEnd = offset + 5
        let type = UInt16(query[offset + 1]) << 8 | UInt16(query[offset + 2])
        let asked = labels.joined(separator: ".").lowercased()
        let ttl = state.withLock { state in
            state.queries += 1
            return state.ttl
        }
        // Header: the query's ID, "response, recursion available", one question, then the counts.
        var reply = [query[0], query[1], 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]
        reply.append(contentsOf: query[12..<questionEnd])
        let name = state.withLock { $0.name }
        guard asked == name else {
            reply[3] = 0x83  // no such name
            return reply
        }
        guard type == 1, let address = state.withLock({ $0.nextAddress() }) else { return reply }
        reply[7] = 1  // one answer
        // The name as a pointer to the question (offset 12), type A, class IN, the TTL, four bytes.
        reply.append(contentsOf: [0xC0, 0x0C, 0, 1, 0, 1])
        reply.append(contentsOf: withUnsafeBytes(of: ttl.bigEndian, Array.init) + [0, 4])
        reply.append(contentsOf: address)
        return reply
    }
}
