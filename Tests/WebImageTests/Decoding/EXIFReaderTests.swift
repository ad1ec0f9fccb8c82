import Testing
@testable import WebImage

@Suite struct EXIFReaderTests {
    /// A minimal TIFF block with one IFD holding the given entries (tag, type, value), in either byte order.
    private func tiff(littleEndian: Bool, entries: [(UInt16, UInt16, UInt16)], exifHeader: Bool = false) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            littleEndian ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
        }
        var bytes: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, value) in entries { bytes += u16(tag) + u16(type) + u32(1) + u16(value) + [0, 0] }
        bytes += u32(0)
        return (exifHeader ? Array("Exif".utf8) + [0, 0] : []) + bytes
    }

    private func read(_ bytes: [UInt8]) -> Orientation? {
        bytes.withUnsafeBytes { EXIFReader.orientation(in: $0) }
    }

    @Test(arguments: Orientation.allCases)
    func readsEveryValueInBothByteOrders(_ orientation: Orientation) {
        let value = UInt16(orientation.rawValue)
        #expect(read(tiff(littleEndian: true, entries: [(0x010F, 3, 7), (0x0112, 3, value)])) == orientation)
        #expect(read(tiff(littleEndian: false, entries: [(0x0112, 3, value)], exifHeader: true)) == orientation)
    }

    @Test func ignoresMissingOrInvalidTags() {
        #expect(read(tiff(littleEndian: true, entries: [(0x010F, 3, 6)])) == nil)
        #expect(read(tiff(littleEndian: true, entries: [(0x0112, 3, 9)])) == nil)
        #expect(read(tiff(littleEndian: true, entries: [(0x0112, 4, 6)])) == nil)
        #expect(read([]) == nil)
        #expect(read(Array("Exif".utf8) + [0, 0, 0x49, 0x49]) == nil)
    }

    @Test func survivesHostileOffsetsAndCounts() {
        var bytes = tiff(littleEndian: true, entries: [(0x0112, 3, 6)])
        bytes[4] = 0xFF; bytes[5] = 0xFF; bytes[6] = 0xFF; bytes[7] = 0x7F  // IFD offset far past the end
        #expect(read(bytes) == nil)
        var counted = tiff(littleEndian: true, entries: [(0x010F, 3, 1)])
        counted[8] = 0xFF; counted[9] = 0xFF  // 65 535 entries declared, one present
        #expect(read(counted) == nil)
        for cut in 0..<20 { _ = read(Array(tiff(littleEndian: false, entries: [(0x0112, 3, 3)]).prefix(cut))) }
    }
}
