import Foundation
import Testing
@testable import WebImage

/// MD5 against RFC 1321's test suite, SHA-1 and SHA-512 against FIPS 180's "abc" examples, and all four against
/// Python's hashlib at the lengths where padding changes shape (55, 56, 63, 64, 111, 112, 127, 128 bytes).
@Suite struct HashSumTests {
    @Test func md5MatchesRFC1321sSuite() {
        let suite = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"), ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"), ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (message, digest) in suite { #expect(HashSum.md5.hex(of: Data(message.utf8)) == digest) }
    }

    @Test func shaOneAndFiveTwelveMatchFIPSExamples() {
        #expect(HashSum.sha1.hex(of: Data("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(HashSum.sha512.hex(of: Data("abc".utf8)) == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test func everyDigestMatchesHashlibAcrossPaddingBoundaries() {
        for (length, md5, sha1, sha256, sha512) in Self.hashlib {
            let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
            #expect(HashSum.md5.hex(of: message) == md5, "md5 of \(length) bytes")
            #expect(HashSum.sha1.hex(of: message) == sha1, "sha1 of \(length) bytes")
            #expect(HashSum.sha256.hex(of: message) == sha256, "sha256 of \(length) bytes")
            #expect(HashSum.sha512.hex(of: message) == sha512, "sha512 of \(length) bytes")
        }
    }

    /// hashlib's digests of bytes `(i * 7 + 3) & 255` for `i` below each length.
    private static let hashlib: [(Int, String, String, String, String)] = [
        (0, "d41d8cd98f00b204e9800998ecf8427e", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        (55, "52c0e574e1198de5fe3f8f11440dcb1b", "ddf57317ef34bfee3b6df83d359098930eb278bc", "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b", "14fd424b1fcadee624da946ab03f7e1def7c0d6e00f689594319881a26ff30b875ba4c622ac13100c8cc784c9c2eb23159aecbb4a02e3999062f551193e2b256"),
        (56, "46c9907fc908ee68b1e7b8e71286a518", "a0d492bb0fc889d0eca3bc137066ab6f4f74f369", "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27", "480fa85be41ef55a41208ca28ffc8743c91cf7d24758defe6f95bfb16de614fc86b701034896b047dd571de4318853d80e0809df162f1752cb26da6ddb94a0dd"),
        (63, "a62f6d59e837867693f042f5b8f5a236", "c55856749bef509bdfe6bfebfc7bf4e793e82132", "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055", "ecd42a703a4e93e163d60d55e3785b1a763838b0351bc2e6f7c94b4bfb24f9aa15da5d744ebcebe11f0fc4315d45ba3a047b6e60e07448357f2795bf34b73502"),
        (64, "7160b8fb5e9e4023d549c3971fbaeead", "bede92be29c3874e1b54ddc77988d606fc857a8e", "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241", "8f3cc30b3fb5bf963688a46488249248ac2c67f0f85a145233c6c1e3c16dcd1df634c07d1d31da02576f65b9cf64e1c3fdb318b689b8a14e2e9552bcf30fb133"),
        (111, "13f00cb15f0c3fe588d1c17cde14b38f", "4a01b1272627e5be00f57bc3c3029c23a452e629", "67d9492e628fd376e0b2efec8ca2b99b123e202cf620deb270728df979b2f73e", "68cffa6d0d76f309c9ce0d35280939f8e25990c43b7b086ccdf709be35b07d4ddba599541ff2b1c19d34ea49aeafb9659adb7ac3c0b078bb30a22d57fc6687ef"),
        (112, "5fe6a9f76b541ec645559589da9a088a", "54c08c2a0ed21de25e3d8606c3929454eb1d3f8b", "96b928cff8528dbb99602c709a65b846cb6467acb8b722f0d758e4dc27bfc508", "d0865c524d1dddf7c23b799c413f5adcd7caefd3f66a9b49750ec81066012c25a8bcf94ddea6dc525691673097ca40e0101e897fc97218cfdb0704084e2bef4b"),
        (127, "acce2474d6cc8302120d09c818d17ef7", "34d5e582029e9b9b85b2febe31da3db7cdabaaea", "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07", "e0b6a20f1c0c88970a9340152cd5a1c1ecf3d3b8de55102741879438079473540133b812706e5dbec322c8c9523b6fc8c6d16ee626e87ad5fe3d2916afedc369"),
        (128, "10b2da1a82f16d99a81a7203fe9f02cb", "a09133e6730ffe899efb70204cb5646cd5dc24ee", "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6", "99b16f17aa0b969a5b8f08f367719d516e330ccd2660b6f0688ec031dbc783de50a1cd185a2568dba75070a2403d17d4741d163578515dfd2ff756ddfe4d47b1"),
        (1000, "10046f077f2082ac19676b8079f1cb1a", "4231a8a50a10fa9758db8ec71fdef855b751048a", "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371", "00e36fccf193e59697a92b5ab24666ce6326d7fa16bf10832d0991ddc591112e9dfa6a636950ed9c4d67344a760654c2ff7785e1d60094d651038735b5dccabd"),
    ]
}
