#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks names up at one ``NameServer`` over UDP: an A and an AAAA query, each tried twice, waiting 5 s for an
/// answer (glibc's resolver defaults). Blocking socket calls, so it runs on NIO's blocking-work pool like the
/// system resolver.
struct DNSClient: Sendable {
    let server: NameServer
    /// How long one query waits for its answer.
    var attemptTimeout: Duration = .seconds(5)
    var attempts = 2

    enum Failure: Error {
        case message(String)
    }

    /// IPv4 addresses first, then IPv6, without duplicates, and the smallest time to live of their records.
    func addresses(of name: String) -> Result<(addresses: [IPAddress], ttl: Duration), Failure> {
        var addresses: [IPAddress] = []
        var failures: [String] = []
        var ttl: UInt32?
        for type in [DNSMessage.RecordType.a, .aaaa] {
            switch ask(name, type: type) {
            case .success(let found):
                addresses += found.addresses.filter { !addresses.contains($0) }
                if let recordTTL = found.ttl { ttl = min(ttl ?? .max, recordTTL) }
            case .failure(.message(let text)): failures.append(text)
            }
        }
        if !addresses.isEmpty { return .success((addresses, .seconds(Int(ttl ?? 0)))) }
        return .failure(.message(failures.first ?? "no IPv4 or IPv6 address"))
    }

    private func ask(_ name: String, type: DNSMessage.RecordType)
        -> Result<(addresses: [IPAddress], ttl: UInt32?), Failure> {
        var lastFailure = "no answer from \(server)"
        for _ in 0..<attempts {
            let id = UInt16.random(in: 0...UInt16.max)
            switch exchange(DNSMessage.query(id: id, name: name, type: type), id: id, type: type) {
            case .success(.addresses(let found, let ttl)):
                return .success((found, ttl))
            case .success(.failure(let code)):
                return .failure(.message(code == 3 ? "no such name" : "the name server answered with error \(code)"))
            case .failure(.message(let text)):
                lastFailure = text
            }
        }
        return .failure(.message(lastFailure))
    }

    /// Sends one query from a fresh socket (a new random source port each time) and waits for its answer,
    /// ignoring datagrams that answer something else.
    private func exchange(_ query: [UInt8], id: UInt16, type: DNSMessage.RecordType)
        -> Result<DNSMessage.Answer, Failure> {
        let family = server.address.isIPv4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
        let socketType = Int32(SOCK_DGRAM.rawValue)
        #else
        let socketType = SOCK_DGRAM
        #endif
        let descriptor = socket(family, socketType, 0)
        guard descriptor >= 0 else { return .failure(.message("cannot open a UDP socket")) }
        defer { close(descriptor) }
        let parts = attemptTimeout.components
        var wait = timeval(tv_sec: Int(parts.seconds), tv_usec: .init(parts.attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard attach(descriptor) else { return .failure(.message("cannot reach the name server \(server)")) }
        let sent = query.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == query.count else { return .failure(.message("cannot send to the name server \(server)")) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + attemptTimeout
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            // A signal (a child process of the server exiting) ends a receive that has a timeout early, with
            // EINTR: the wait goes on, until the attempt's own time is up.
            if received < 0 && errno == EINTR && ContinuousClock.now < deadline { continue }
            guard received > 0 else { return .failure(.message("no answer from the name server \(server)")) }
            if let answer = DNSMessage.answer(Array(buffer.prefix(received)), id: id, type: type) {
                return .success(answer)
            }
        }
    }

    /// Connects the UDP socket to the server, so only its datagrams are received.
    private func attach(_ descriptor: Int32) -> Bool {
        let port = in_port_t(UInt16(server.port).bigEndian)
        let bytes = server.address.bytes
        if server.address.isIPv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }
}
