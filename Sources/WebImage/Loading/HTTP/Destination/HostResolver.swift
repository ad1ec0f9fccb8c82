import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names with the system resolver (`getaddrinfo`, so `/etc/hosts` and the system's DNS settings
/// count) or, when one is given, by asking a ``NameServer`` directly; on NIO's blocking-work pool rather than on
/// a cooperative thread.
enum HostResolver {
    /// The addresses of `host` in the resolver's order of preference, without duplicates: from `kept` while it
    /// holds an unexpired answer (or failure) for the name, else looked up and kept there (a failure for
    /// `failureLifetime`). Throws
    /// `ImageError.Code.invalidURL` for a host that is neither an address literal nor a DNS name (it is not
    /// looked up at all), `ImageError.Code.connectionFailed` when the name does not resolve and
    /// `ImageError.Code.timedOut` when a lookup takes longer than `limit` (the load's time left).
    static func addresses(of host: String, nameServer: NameServer? = nil, kept: ResolvedHosts? = nil,
                          failureLifetime: Duration, within limit: Duration = .seconds(3_600)) async throws
        -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        guard DNSMessage.isValidName(host) else {
            throw ImageError(.invalidURL, "\(host.prefix(80)) is not a valid host name")
        }
        let name = host.lowercased()
        let outcome: ResolvedHosts.Outcome
        if let known = kept?.outcome(for: name) {
            outcome = known
        } else {
            let (found, lifetime) = try await withTimeout(limit) {
                try await Self.lookUp(host, nameServer: nameServer, failureLifetime: failureLifetime)
            }
            kept?.keep(found, for: name, lifetime: lifetime)
            outcome = found
        }
        switch outcome {
        case .addresses(let addresses): return addresses
        case .failure(let message): throw ImageError(.connectionFailed, "cannot resolve \(host): \(message)")
        }
    }

    /// One lookup, on NIO's blocking-work pool, and how long its answer may be kept.
    private static func lookUp(_ host: String, nameServer: NameServer?, failureLifetime: Duration) async throws
        -> (ResolvedHosts.Outcome, Duration) {
        try await NIOThreadPool.singleton.runIfActive { () -> (ResolvedHosts.Outcome, Duration) in
            guard let nameServer else {
                let found = lookUp(host)
                if case .failure = found { return (found, failureLifetime) }
                return (found, ResolvedHosts.systemResolverLifetime)
            }
            switch DNSClient(server: nameServer).addresses(of: host) {
            case .success(let answer): return (.addresses(answer.addresses), answer.ttl)
            case .failure(.message(let message)): return (.failure(message), failureLifetime)
            }
        }
    }

    private static func lookUp(_ host: String) -> ResolvedHosts.Outcome {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr, let ip = ipAddress(from: address) {
                if !addresses.contains(ip) { addresses.append(ip) }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure("no IPv4 or IPv6 address") : .addresses(addresses)
    }

    private static func ipAddress(from address: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }
}

/// Runs `operation`, failing with `ImageError.Code.timedOut` if it has not finished after `timeout`; the
/// operation is then cancelled (a lookup blocked in the system resolver finishes on its pool thread, unawaited).
func withTimeout<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ImageError(.timedOut, "the download took longer than \(timeout)")
        }
        return value
    }
}
