import Foundation
import Testing
@testable import WebImage

/// The DC read a download's scanner makes to judge a 4:2:0 prefix is the one its decode uses, and it is the same
/// read the decode would have made.
@Suite struct JPEGPrefixReadsTests {
    /// `data` with a comment segment holding `text` after its start marker: bytes no other test decodes, so the
    /// process-wide store's entry for them is this test's alone.
    static func commented(_ data: Data, _ text: String) -> Data {
        let body = Array(text.utf8)
        let length = body.count + 2
        var marked = Data(data.prefix(2))
        marked.append(contentsOf: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + body)
        marked.append(data.dropFirst(2))
        return marked
    }

    static func pixels(_ read: (JPEGEighthScaleDecoder.Frame, JPEGEighthScaleDecoder.Tables)) -> [UInt8]? {
        JPEGEighthScaleImage.pixels(read.0, tables: read.1).map { Array($0.bytes) }
    }

    @Test func theScannersReadIsTakenOnceByTheDecodeOfTheSameBytes() throws {
        let data = Self.commented(try Fixtures.data("prefix/progressive-soft.jpg"), UUID().uuidString)
        let prefix = try #require(JPEGPrefixScannerTests.earlyStopPrefix(data))
        // Cut after DC alone: the scanner read it to try the chroma prediction, and kept the read.
        #expect(prefix.count == JPEGPrefixScannerTests.scanEnds(data)[0] + 2)
        let kept = try #require(prefix.withUnsafeBytes { JPEGPrefixReads.take(readFrom: $0) })
        #expect(prefix.withUnsafeBytes { JPEGPrefixReads.take(readFrom: $0) } == nil)
        // The kept read is the one reading the bytes again gives.
        let fresh = try #require(prefix.withUnsafeBytes(JPEGEighthScaleDecoder.read))
        let pixels = try #require(Self.pixels(kept))
        #expect(pixels == Self.pixels(fresh))
        // And the decode the coder runs gives those pixels whether a read was kept or not.
        let decoded = try #require(prefix.withUnsafeBytes { JPEGEighthScaleDecoder.decode($0) })
        #expect(Array(decoded.bytes) == pixels)
    }

    @Test func onlyTheExactBytesFindAReadAndTheOldestGoFirst() throws {
        let data = try Fixtures.data("prefix/progressive-soft.jpg")
        let cut = JPEGPrefixScanner.prefix(of: data, length: JPEGPrefixScannerTests.scanEnds(data)[0])
        let read = try #require(cut.withUnsafeBytes(JPEGEighthScaleDecoder.read))
        // Unique keys: the same read under bytes that differ in their last byte only, then in their length.
        let first = [UInt8](Self.commented(cut, UUID().uuidString))
        JPEGPrefixReads.keep(read.0, read.1, readFrom: first)
        var altered = first
        altered[altered.count - 1] ^= 1
        #expect(altered.withUnsafeBytes { JPEGPrefixReads.take(readFrom: $0) } == nil)
        #expect(Array(first.dropLast()).withUnsafeBytes { JPEGPrefixReads.take(readFrom: $0) } == nil)
        // As many newer reads as the store holds push the first out (other tests' reads only push it sooner).
        for _ in 0..<JPEGPrefixReads.countLimit {
            JPEGPrefixReads.keep(read.0, read.1, readFrom: [UInt8](Self.commented(cut, UUID().uuidString)))
        }
        #expect(first.withUnsafeBytes { JPEGPrefixReads.take(readFrom: $0) } == nil)
        #expect(JPEGPrefixReads.count <= JPEGPrefixReads.countLimit)
    }
}
