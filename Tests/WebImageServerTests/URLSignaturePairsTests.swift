import Testing

@testable import WebImageServer

/// Several key/salt pairs, signatures cut short and trusted signatures, as imgproxy takes them
/// (`IMGPROXY_KEY=k1,k2`, `IMGPROXY_SIGNATURE_SIZE`, `IMGPROXY_TRUSTED_SIGNATURES`). The expected signatures were
/// computed with Python's `hmac`, `hashlib` and `base64.urlsafe_b64encode` (cut to N bytes before encoding,
/// padding stripped), not with this package.
@Suite struct URLSignaturePairsTests {
    static let path = "/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png"
    static let first = (key: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                        salt: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
    static let second = (key: "6b6579322d726f7461746564", salt: "73616c7432")
    static let third = (key: "746869726420706169722d", salt: "73616c7433")
    /// Python's signatures of `path` under each pair, at 32, 8 and 1 bytes.
    static let expected: [Int: (first: String, second: String, third: String)] = [
        32: ("TLell5iz_DCxfoccCS2iXgZGElDq2fVTm3zPKeChaaA", "MIXetKoG5_Kdb-NR2X7wMJYuUlZLKQznG-s8-HRClCE",
             "aVOP1tnIWIhnXRCso97Vq4f25ume69VQfx9gX4PHYD4"),
        8: ("TLell5iz_DA", "MIXetKoG5_I", "aVOP1tnIWIg"),
        1: ("TA", "MA", "aQ"),
    ]

    func signer(size: Int = 32, trusted: [String] = []) throws -> URLSignature {
        try URLSignature(keysHex: [Self.first.key, Self.second.key], saltsHex: [Self.first.salt, Self.second.salt],
                         size: size, trustedSignatures: trusted)
    }

    @Test(arguments: [32, 8, 1])
    func eitherPairSignsAndAThirdDoesNot(size: Int) throws {
        let signer = try signer(size: size)
        let expected = try #require(Self.expected[size])
        #expect(signer.signature(for: Self.path[...]) == expected.first)
        #expect(signer.isValid(expected.first[...], for: Self.path[...]))
        #expect(signer.isValid(expected.second[...], for: Self.path[...]))
        #expect(!signer.isValid(expected.third[...], for: Self.path[...]))
        #expect(!signer.isValid(expected.second[...], for: "/w:1" + Self.path))
    }

    @Test func aSignatureIsCheckedAtTheConfiguredSizeOnly() throws {
        let full = try #require(Self.expected[32]), short = try #require(Self.expected[8])
        // A whole MAC is not a short signature, nor a short one a whole MAC: the size is exact, as in imgproxy.
        #expect(!(try signer(size: 8)).isValid(full.first[...], for: Self.path[...]))
        #expect(!(try signer()).isValid(short.first[...], for: Self.path[...]))
        #expect((try signer(size: 8)).isValid((short.second + "=")[...], for: Self.path[...]))  // padding is read
    }

    @Test func trustedSignaturesPassWithoutACheck() throws {
        let signer = try signer(trusted: ["anything-at-all", "sig2"])
        #expect(signer.isValid("anything-at-all", for: Self.path[...]))
        #expect(signer.isValid("sig2", for: "/w:1/plain/http://other.example/x.png"))
        #expect(!signer.isValid("sig3", for: Self.path[...]))
        #expect(!signer.isValid("SIG2", for: Self.path[...]))  // compared as written
        #expect(signer.isValid(try #require(Self.expected[32]).second[...], for: Self.path[...]))
    }

    @Test func pairsAndSizesThatCannotWorkAreRefused() {
        #expect(throws: ProxyConfigurationError.self) {
            try URLSignature(keysHex: ["00", "11"], saltsHex: ["22"])
        }
        #expect(throws: ProxyConfigurationError.self) { try URLSignature(keysHex: [], saltsHex: []) }
        #expect(throws: ProxyConfigurationError.self) {
            try URLSignature(keysHex: ["00", "1"], saltsHex: ["22", "33"])
        }
        for size in [0, 33, -1] {
            #expect(throws: ProxyConfigurationError.self) {
                try URLSignature(keysHex: ["00"], saltsHex: ["22"], size: size)
            }
        }
    }
}
