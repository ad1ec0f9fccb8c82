/// Which addresses an HTTP loader may connect to, checked at every hop against the address it actually
/// connects to (the loader resolves the host once, checks the answer, and connects to exactly that address, so
/// a DNS answer that changes between the check and the connection cannot slip past).
///
/// The library's default is ``unrestricted``: a client fetching what its user asked for may well fetch from
/// the local network. A server fetching what strangers ask for uses ``publicOnly``.
public struct AddressPolicy: Sendable, Hashable {
    /// The ranges connections are refused to.
    package var refused: Set<AddressRange>

    /// A policy refusing `refused`.
    package init(refusing refused: Set<AddressRange>) {
        self.refused = refused
    }

    /// No address is refused (and hosts are resolved by the HTTP client as usual).
    public static let unrestricted = AddressPolicy(refusing: [])

    /// Only public addresses: loopback, private, unique-local, link-local, multicast and unspecified addresses
    /// are refused, also when wrapped in an IPv6 form (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
    /// `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, 6to4, NAT64; `IPAddress.embeddedIPv4`).
    public static let publicOnly = AddressPolicy(refusing: Set(AddressRange.allCases).subtracting([.global]))

    /// Whether any address is refused at all.
    public var isUnrestricted: Bool { refused.isEmpty }

    /// The refused range `address` falls in, or `nil` when it may be connected to.
    package func refusal(of address: IPAddress) -> AddressRange? {
        let range = AddressRange(of: address)
        return refused.contains(range) ? range : nil
    }
}
