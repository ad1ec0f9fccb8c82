import Testing
@testable import WebImage

/// Which range an address falls in, including IPv4 addresses carried inside IPv6 forms.
@Suite struct AddressPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", AddressRange.loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
        ("10.1.2.3", .private), ("172.16.0.1", .private), ("172.31.255.255", .private),
        ("192.168.0.10", .private), ("100.64.0.1", .private), ("100.127.255.1", .private),
        ("fc00::1", .private), ("fd12:3456::1", .private), ("fec0::1", .private),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("255.255.255.255", .multicast),
        ("ff02::1", .multicast),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("8.8.8.8", .global), ("172.32.0.1", .global), ("100.128.0.1", .global), ("192.169.0.1", .global),
        ("2001:4860:4860::8888", .global), ("2606:4700::1111", .global),
        // IPv4 inside IPv6: mapped, compatible, 6to4, NAT64 (well-known and local-use prefixes).
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private), ("::ffff:8.8.8.8", .global),
        ("::127.0.0.1", .loopback), ("2002:7f00:1::", .loopback), ("2002:a9fe:a9fe::1", .linkLocal),
        ("2002:0808:0808::", .global), ("64:ff9b::a00:1", .private), ("64:ff9b::7f00:1", .loopback),
        ("64:ff9b:1::c0a8:1", .private), ("64:ff9b::808:808", .global),
        ("[::ffff:192.168.1.1]", .private), ("fe80::1%eth0", .linkLocal),
        // Translated (`::ffff:0:a.b.c.d`), beside mapped; one 16-bit group off either is an ordinary address.
        ("::ffff:0:7f00:1", .loopback), ("::ffff:0:127.0.0.1", .loopback), ("[::ffff:0:a00:1]", .private),
        ("::ffff:0:169.254.169.254", .linkLocal), ("::ffff:0:0.0.0.0", .unspecified), ("::ffff:0:8.8.8.8", .global),
        ("::ffff:1:7f00:1", .global), ("::1:ffff:0:7f00:1", .global),
    ])
    func rangeOf(_ text: String, expected: AddressRange) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressRange(of: address) == expected, "\(text)")
    }

    @Test func namesAndGarbageAreNotAddresses() {
        for text in ["localhost", "example.com", "", "1.2.3", "::g", "[::1", "256.0.0.1"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
    }

    @Test func publicOnlyRefusesEveryLocalRangeAndNothingElse() throws {
        for range in AddressRange.allCases {
            #expect(AddressPolicy.publicOnly.refused.contains(range) == (range != .global))
        }
        #expect(AddressPolicy.publicOnly.refusal(of: try #require(IPAddress("::ffff:169.254.169.254"))) == .linkLocal)
        #expect(AddressPolicy.publicOnly.refusal(of: try #require(IPAddress("::ffff:0:7f00:1"))) == .loopback)
        #expect(AddressPolicy.publicOnly.refusal(of: try #require(IPAddress("93.184.216.34"))) == nil)
        #expect(AddressPolicy.unrestricted.refusal(of: try #require(IPAddress("127.0.0.1"))) == nil)
    }

    @Test func addressesPrintInTheirUsualForm() throws {
        #expect(try #require(IPAddress("127.0.0.1")).description == "127.0.0.1")
        #expect(try #require(IPAddress("0:0:0:0:0:0:0:1")).description == "::1")
        #expect(try #require(IPAddress("::ffff:10.0.0.1")).embeddedIPv4?.description == "10.0.0.1")
        #expect(try #require(IPAddress("::ffff:0:7f00:1")).embeddedIPv4?.description == "127.0.0.1")
    }
}
