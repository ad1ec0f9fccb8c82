import Foundation
import Testing

@testable import WebImage

/// The digest behind disk cache names must be standard SHA-256: entries written by earlier versions (named through
/// swift-crypto) keep their names.
@Suite struct SHA256Tests {
    static func hex(_ words: SIMD8<UInt32>) -> String {
        (0..<8).map { String(format: "%08x", words[$0]) }.joined()
    }

    static func digest(_ bytes: [UInt8]) -> SIMD8<UInt32> {
        bytes.withUnsafeBytes { SHA256.hash($0) }
    }

    @Test func nistVectors() {
        #expect(Self.hex(Self.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(Self.digest(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Self.hex(Self.digest(twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(Self.digest(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length from 0 to 200 bytes (each padding case around the 56- and 64-byte boundaries, three blocks):
    /// the digest of all 201 digests, against Python's hashlib on the same messages.
    @Test func everyLengthAcrossThreeBlocks() {
        var all = [UInt8]()
        for length in 0...200 {
            let message = (0..<length).map { UInt8(($0 * 31 + length * 7) % 251) }
            let words = Self.digest(message)
            for index in 0..<8 { withUnsafeBytes(of: words[index].bigEndian) { all.append(contentsOf: $0) } }
        }
        #expect(Self.hex(Self.digest(all)) == "d523144e7bf94d03144d1e47763eb8c1c59885d80f9af076333cdcae551763e5")
    }

    @Test func piecesGiveTheSameDigestAsTheWhole() {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<1_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let whole = Self.digest(message)
        for _ in 0..<50 {
            var hasher = SHA256()
            var start = 0
            while start < message.count {
                let end = min(message.count, start + Int.random(in: 0...130, using: &generator))
                message[start..<end].withUnsafeBytes { hasher.update($0) }
                start = end
            }
            #expect(hasher.finalize() == whole)
        }
    }

    @Test func diskEntryNamesAreTheKeysDigest() {
        let name = DiskEntryName(key: "https://example.com/a/b.jpg")
        #expect(name.fileName == "27a052d92643a7db6b236e608035c1deea33730b2e6283ad5873bdd2cb9c6aa4.jpg")
    }
}
