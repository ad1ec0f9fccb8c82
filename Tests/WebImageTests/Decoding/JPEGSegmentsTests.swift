import Foundation
import Testing
@testable import WebImage

/// The one reader of JPEG marker segments the header scanner, the prefix scanner and the eighth-scale decoder
/// share.
@Suite struct JPEGSegmentsTests {
    private static func read(_ bytes: [UInt8], at position: Int = 0) -> JPEGSegments.Read {
        bytes.withUnsafeBytes { JPEGSegments.read($0, at: position) }
    }

    @Test func aSegmentIsReadAfterItsFillBytesWithItsPayload() {
        // 0xFF fill bytes, then DQT with a length of 4: two bytes of payload.
        #expect(Self.read([0xFF, 0xFF, 0xFF, 0xDB, 0x00, 0x04, 7, 8, 0xFF]) == .marker(JPEGSegment(
            marker: 0xDB, markerIndex: 3, payload: 6..<8)))
        #expect(Self.read([0, 0xFF, 0xC4, 0x00, 0x02], at: 1) == .marker(JPEGSegment(
            marker: 0xC4, markerIndex: 2, payload: 5..<5)))
    }

    @Test func markersWithoutALengthStandAlone() {
        for marker: UInt8 in [0x00, 0x01, 0xD0, 0xD7, 0xD8, 0xD9] {
            #expect(Self.read([0xFF, marker]) == .marker(JPEGSegment(marker: marker, markerIndex: 1, payload: 2..<2)))
        }
    }

    @Test func theDataEndingEarlyOrABadLengthIsSaid() {
        #expect(Self.read([0xFF, 0xFF]) == .truncated(marker: nil))
        #expect(Self.read([0xFF, 0xE1, 0x00]) == .truncated(marker: 0xE1))
        #expect(Self.read([0xFF, 0xE1, 0x00, 0x10, 1, 2]) == .truncated(marker: 0xE1))
        #expect(Self.read([0xFF, 0xE1, 0x00, 0x01, 1, 2]) == .badLength(marker: 0xE1))
    }

    @Test func framesAreEverySOFMarkerLibjpegReadsAsOne() {
        let frames = (UInt8(0xC0)...0xCF).filter(JPEGSegments.startsFrame)
        #expect(frames == [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])
        #expect(!JPEGSegments.startsFrame(0xDA) && !JPEGSegments.startsFrame(0xE0))
    }
}
