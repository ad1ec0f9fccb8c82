/// The kinds of address an image proxy must not be talked into fetching from (server-side request forgery):
/// the machine itself, its local networks, and addresses that are not one host.
package enum AddressRange: String, Sendable, Hashable, CaseIterable {
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// `10/8`, `172.16/12`, `192.168/16`, `100.64/10` (carrier-grade NAT), `fc00::/7` (unique local) and the
    /// deprecated site-local `fec0::/10`.
    case `private`
    /// `169.254/16` (cloud metadata services live here), `fe80::/10`.
    case linkLocal
    /// `224/4`, `255.255.255.255`, `ff00::/8`.
    case multicast
    /// `0.0.0.0/8`, `::`: the "any" address reaches the local host on most systems.
    case unspecified
    /// Everything else: a public address.
    case global

    /// The range `address` belongs to, after unwrapping an IPv4 address carried inside an IPv6 one.
    package init(of address: IPAddress) {
        if let inner = address.embeddedIPv4 {
            self.init(ipv4: inner.bytes)
        } else if address.isIPv4 {
            self.init(ipv4: address.bytes)
        } else {
            self.init(ipv6: address.bytes)
        }
    }

    private init(ipv4 b: [UInt8]) {
        switch (b[0], b[1]) {
        case (0, _): self = .unspecified
        case (127, _): self = .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127): self = .private
        case (169, 254): self = .linkLocal
        case (224...239, _): self = .multicast
        case (255, 255) where b[2] == 255 && b[3] == 255: self = .multicast
        default: self = .global
        }
    }

    private init(ipv6 b: [UInt8]) {
        if b.allSatisfy({ $0 == 0 }) {
            self = .unspecified
        } else if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 {
            self = .loopback
        } else if b[0] == 0xff {
            self = .multicast
        } else if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 {
            self = .linkLocal
        } else if (b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) {
            self = .private
        } else {
            self = .global
        }
    }
}
