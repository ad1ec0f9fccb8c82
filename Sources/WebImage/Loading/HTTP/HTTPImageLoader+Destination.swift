import AsyncHTTPClient
import Foundation
import NIOCore

extension HTTPImageLoader {
    /// Sends one hop. Without an address policy, a hop check or a name server the client resolves and connects
    /// as usual. With one, the host is resolved here, each answer is checked, and the request goes over a
    /// connection to the first address that passes (the next one if that connection fails), so what was checked
    /// is what is connected to.
    func send(_ request: HTTPClient.Request, url: URL, hop index: Int, deadline: NIODeadline,
              collector: () -> ResponseCollector) async throws -> HopOutcome {
        guard let pinnedClients else {
            return try await exchange(request, on: client, collector: collector(), deadline: deadline)
        }
        // The client finds its DNS override under the host exactly as it reads it from the request's URL string;
        // a pin stored under any other spelling (another case, say) is missed and the client resolves the name
        // again, which is the window a rebinding resolver needs. So the pin's key is taken from that string.
        guard let host = Self.connectionHost(of: request.url.absoluteString) else {
            throw ImageError(.invalidURL, "no host in \(url.absoluteString)")
        }
        let candidates = try await HostResolver.addresses(of: host, nameServer: configuration.nameServer,
                                                          kept: resolvedHosts,
                                                          failureLifetime: configuration.failedLookupLifetime,
                                                          within: .nanoseconds((deadline - .now()).nanoseconds))
        var refusal: ImageError?
        var lastFailure: (any Error)?
        for address in candidates {
            if let range = configuration.addressPolicy.refusal(of: address) {
                // The body of an error may reach whoever asked for the URL: it names the host and the rule, never
                // what the name resolved to (that would map an internal network for them).
                refusal = refusal ?? ImageError(.destinationRefused,
                    "\(host) resolves to a \(range.rawValue) address, and those are not allowed")
                continue
            }
            if let check = configuration.hopCheck,
               case .refuse(let reason) = check(HTTPHop(url: url, address: address, index: index)) {
                throw ImageError(.destinationRefused, "\(url.absoluteString) was refused: \(reason)")
            }
            let attempt = collector()
            do {
                return try await pinnedClients.withClient(host: host, address: address) { pinned in
                    try await exchange(request, on: pinned, collector: attempt, deadline: deadline)
                }
            } catch {
                // Only a failure to connect moves on to the next address; anything after a response began is the
                // answer.
                guard !attempt.receivedHead,
                      [.connectionFailed, .connectionRefused].contains(ImageError.fromTransport(error).code) else {
                    throw error
                }
                lastFailure = error
            }
        }
        if let lastFailure { throw lastFailure }
        throw refusal ?? ImageError(.destinationRefused, "\(host) has no address that may be connected to")
    }

    /// The host AsyncHTTPClient connects to for `urlString`, read the way it reads it (Foundation's `URL.host`,
    /// IPv6 brackets removed): the key its `dnsOverride` is looked up with.
    static func connectionHost(of urlString: String) -> String? {
        guard let host = URL(string: urlString)?.host, !host.isEmpty else { return nil }
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// `url` as it is sent: scheme and host in lower case, so that one origin spelled several ways shares its
    /// pinned client and its connections (names are case-insensitive; the path is left exactly as it was).
    static func requestURLString(_ url: URL) -> String {
        let scheme = url.scheme ?? "", host = url.host ?? ""
        // Most URLs are already lower case there; they go out exactly as they came.
        guard scheme != scheme.lowercased() || host != host.lowercased() else { return url.absoluteString }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.scheme = components.scheme?.lowercased()
        components.percentEncodedHost = components.percentEncodedHost?.lowercased()
        return components.string ?? url.absoluteString
    }
}
