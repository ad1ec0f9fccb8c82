#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes, parsed from the textual forms the resolver and URLs use.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes for IPv4, sixteen for IPv6, in network order.
    package let bytes: [UInt8]

    /// Parses dotted IPv4 (`10.0.0.1`) or IPv6 (`fe80::1`, `::ffff:127.0.0.1`; brackets and a zone suffix such
    /// as `%eth0` are accepted). `nil` for anything else, including host names.
    ///
    /// Only an IPv6 literal has a zone: `8.8.8.8%x.example` is a (malformed) host name, not 8.8.8.8, since a
    /// resolver would look it up as a name and a check must not see an address the connection never goes to.
    package init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        if let zone = text.firstIndex(of: "%") {
            guard text.index(after: zone) < text.endIndex else { return nil }
            text = text[..<zone]
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// An address from its raw bytes (4 or 16 of them).
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Whether this is an IPv4 address.
    package var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 address carries inside it, by the encodings that reach an IPv4 host: mapped
    /// (`::ffff:a.b.c.d`, `::ffff:0:0/96`), translated (`::ffff:0:a.b.c.d`, `::ffff:0:0:0/96`, RFC 2765's
    /// stateless translation), compatible (`::a.b.c.d`, deprecated), 6to4 (`2002:AABB:CCDD::/16`) and NAT64
    /// (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`). Without unwrapping, `::ffff:127.0.0.1` would pass
    /// a loopback check written for IPv4, and a translated `::ffff:0:7f00:1` would leave by the default route
    /// for whatever translator (or host on the path) answers for it.
    package var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let tail = Array(bytes[12..<16])
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return IPAddress(bytes: tail)
        }
        if bytes[0..<8].allSatisfy({ $0 == 0 }) && bytes[8] == 0xff && bytes[9] == 0xff
            && bytes[10] == 0 && bytes[11] == 0 {
            return IPAddress(bytes: tail)
        }
        // `::` and `::1` are IPv6's own unspecified and loopback addresses, not compatible-form IPv4.
        if bytes[0..<12].allSatisfy({ $0 == 0 }) && !(tail[0] == 0 && tail[1] == 0 && tail[2] == 0) {
            return IPAddress(bytes: tail)
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        if bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xff && bytes[3] == 0x9b {
            if bytes[4..<12].allSatisfy({ $0 == 0 }) { return IPAddress(bytes: tail) }
            if bytes[4] == 0x00 && bytes[5] == 0x01 { return IPAddress(bytes: tail) }
        }
        return nil
    }

    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
