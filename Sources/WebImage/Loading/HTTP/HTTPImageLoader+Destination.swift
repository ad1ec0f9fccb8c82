import AsyncHTTPClient
import Foundation
import NIOCore

extension HTTPImageLoader {
    /// Sends one hop. Without an address policy or a hop check the client resolves and connects as usual. With
    /// one, the host is resolved here, each answer is checked, and the request goes over a connection to the
    /// first address that passes (the next one if that connection fails), so what was checked is what is
    /// connected to.
    func send(_ request: HTTPClientRequest, url: URL, hop index: Int, deadline: NIODeadline) async throws
        -> HTTPClientResponse {
        guard let pinnedClients, let host = url.host.map(Self.withoutBrackets) else {
            return try await client.execute(request, deadline: deadline, logger: logger)
        }
        let candidates = try await HostResolver.addresses(of: host)
        var refusal: ImageError?
        var lastFailure: (any Error)?
        for address in candidates {
            if let range = configuration.addressPolicy.refusal(of: address) {
                refusal = refusal ?? ImageError(.destinationRefused,
                    "\(url.absoluteString) resolves to \(address), a \(range.rawValue) address, which is not allowed")
                continue
            }
            if let check = configuration.hopCheck,
               case .refuse(let reason) = check(HTTPHop(url: url, address: address, index: index)) {
                throw ImageError(.destinationRefused, "\(url.absoluteString) (\(address)) was refused: \(reason)")
            }
            do {
                if IPAddress(host) != nil {
                    // An address literal is connected to as written: nothing to pin.
                    return try await client.execute(request, deadline: deadline, logger: logger)
                }
                return try await pinnedClients.withClient(host: host, address: address) { pinned in
                    try await pinned.execute(request, deadline: deadline, logger: logger)
                }
            } catch {
                // Only a failure to connect moves on to the next address; anything later is the answer.
                guard ImageError.fromTransport(error).code == .connectionFailed else { throw error }
                lastFailure = error
            }
        }
        if let lastFailure { throw lastFailure }
        throw refusal ?? ImageError(.destinationRefused, "\(host) has no address that may be connected to")
    }

    /// `[::1]` → `::1`: the host as AsyncHTTPClient keys its DNS overrides.
    private static func withoutBrackets(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
