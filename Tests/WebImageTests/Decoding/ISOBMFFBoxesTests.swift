import Foundation
import Testing
@testable import WebImage

/// The one ISO BMFF box walker the library and its HEIF, AVIF and JPEG XL modules share.
@Suite struct ISOBMFFBoxesTests {
    /// A box: 32-bit size, type, payload.
    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
    }

    private static func walk(_ bytes: [UInt8], range: Range<Int>? = nil, limit: Int = ISOBMFFBoxes.defaultLimit)
        -> (boxes: [ISOBMFFBox], end: ISOBMFFBoxes.End) {
        bytes.withUnsafeBytes { ISOBMFFBoxes.walk($0, range: range, limit: limit) }
    }

    @Test func boxesLaidEndToEndAreReadWithTheirPayloads() {
        let bytes = Self.box("ftyp", Array("avif".utf8)) + Self.box("free", []) + Self.box("meta", [1, 2, 3])
        let (boxes, end) = Self.walk(bytes)
        #expect(end == .complete)
        #expect(boxes.map(\.type) == ["ftyp", "free", "meta"])
        #expect(boxes.map(\.payload) == [8..<12, 20..<20, 28..<31])
        #expect(boxes.allSatisfy { $0.isWhole })
        // Nested: the walk of a payload reads the boxes inside it.
        let nested = Self.box("moov", Self.box("trak", Self.box("mdia", [9])))
        let path = nested.withUnsafeBytes { bytes in
            ISOBMFFBoxes.payload(at: ["moov", "trak", "mdia"], in: 0..<bytes.count, of: bytes)
        }
        #expect(path == 24..<25)
    }

    @Test func aLargeSizeFollowsTheTypeAndASizeOfZeroRunsToTheEnd() {
        var large: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8)
        large += withUnsafeBytes(of: UInt64(16 + 4).bigEndian, Array.init) + [7, 7, 7, 7]
        let toTheEnd: [UInt8] = [0, 0, 0, 0] + Array("mdat".utf8) + [1, 2, 3, 4, 5]
        let (boxes, end) = Self.walk(large + toTheEnd)
        #expect(end == .complete)
        #expect(boxes.map(\.payload) == [16..<20, 28..<33])
    }

    @Test func aCutBoxIsReportedWithWhatIsThereAndABadSizeStopsTheWalk() {
        let whole = Self.box("ftyp", [1, 2, 3, 4])
        let cutBox = Array(Self.box("mdat", [UInt8](repeating: 5, count: 100)).prefix(50))
        var (boxes, end) = Self.walk(whole + cutBox)
        #expect(end == .cut(at: 12))
        #expect(boxes.map(\.type) == ["ftyp", "mdat"] && boxes.map(\.isWhole) == [true, false])
        #expect(boxes[1].payload == 20..<62)
        let wholeOnly = (whole + cutBox).withUnsafeBytes { ISOBMFFBoxes.boxes(in: $0) }
        #expect(wholeOnly.map(\.type) == ["ftyp"])
        // A few bytes after the last box, too few for a header.
        (boxes, end) = Self.walk(whole + [0, 0, 0])
        #expect(end == .cut(at: 12) && boxes.count == 1)
        // A size smaller than the header.
        (boxes, end) = Self.walk(whole + [0, 0, 0, 4] + Array("free".utf8))
        #expect(end == .badSize(at: 12) && boxes.count == 1)
    }

    @Test func aWalkReadsAtMostItsLimitAndOnlyItsRange() {
        let bytes = (0..<10).flatMap { _ in Self.box("free", []) }
        let (boxes, end) = Self.walk(bytes, limit: 4)
        #expect(boxes.count == 4 && end == .limit)
        let inner = Self.walk(bytes, range: 16..<40)
        #expect(inner.boxes.map(\.start) == [16, 24, 32] && inner.end == .complete)
    }

    /// `meta` (a full box) → `iprp` → `ipco` holding `properties`.
    private static func itemProperties(_ properties: [UInt8]) -> [UInt8] {
        Self.box("ftyp", Array("avif".utf8)) + Self.box("meta", [0, 0, 0, 0] + Self.box("hdlr", [])
            + Self.box("iprp", Self.box("ipco", properties) + Self.box("ipma", [])))
    }

    @Test func theContentPeakIsTheLightLevelElseTheMasteringDisplays() {
        func peak(_ bytes: [UInt8]) -> Double? { bytes.withUnsafeBytes { ISOBMFFContentPeak.read($0) } }
        let clli = Self.box("clli", [0x0F, 0xA0, 0x01, 0x90])  // MaxCLL 4 000, MaxFALL 400
        // Chromaticities (16 bytes), then maximum 1 500 cd/m² and minimum 0.005 in 0.0001 cd/m².
        let mdcv = Self.box("mdcv", [UInt8](repeating: 0, count: 16) + [0x00, 0xE4, 0xE1, 0xC0, 0, 0, 0, 50])
        let colr = Self.box("colr", Array("nclx".utf8) + [0, 9, 0, 16, 0, 9, 0x80])
        #expect(peak(Self.itemProperties(colr + mdcv + clli)) == 4_000)
        #expect(peak(Self.itemProperties(colr + mdcv)) == 1_500)
        // A MaxCLL of 0 is "unknown" (CTA-861.3): the mastering display's peak is used.
        #expect(peak(Self.itemProperties(Self.box("clli", [0, 0, 0, 0]) + mdcv)) == 1_500)
        #expect(peak(Self.itemProperties(colr)) == nil)
        // Cut short: no read past the box.
        #expect(peak(Self.itemProperties(Self.box("clli", [0x0F]))) == nil)
        #expect(peak(Self.box("ftyp", Array("avif".utf8))) == nil)
    }
}
