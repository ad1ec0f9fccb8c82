/// A DNS server the HTTP loader asks directly (plain UDP, A and AAAA queries) instead of the system resolver.
///
/// Meant for tests (a resolver on loopback whose answers the test controls) and for split-horizon setups in
/// which an image server must see the public view of names while the machine's own resolver answers with
/// internal addresses. The answers go through the same ``AddressPolicy`` and hop checks as the system's.
package struct NameServer: Sendable, Hashable, CustomStringConvertible {
    /// The server's address (an IPv4 or IPv6 literal: a resolver cannot be found by name).
    package let address: IPAddress
    /// Its UDP port (53 for an ordinary server).
    package let port: Int

    /// A server at `address` and `port`.
    package init(address: IPAddress, port: Int = 53) {
        self.address = address
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPV6]:PORT` (HOST an address literal; the port defaults to 53 when left out).
    /// `nil` for anything else.
    package init?(_ text: String) {
        var hostPart = Substring(text)
        var port = 53
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            hostPart = text[..<colon]
            guard let value = Int(text[text.index(after: colon)...]) else { return nil }
            port = value
        }
        guard (1...65_535).contains(port), !hostPart.contains("%"), let address = IPAddress(String(hostPart)) else {
            return nil
        }
        self.init(address: address, port: port)
    }

    package var description: String {
        address.isIPv4 ? "\(address):\(port)" : "[\(address)]:\(port)"
    }
}
