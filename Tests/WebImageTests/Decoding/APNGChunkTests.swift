import Foundation
import Testing
@testable import WebImage

/// The pieces under the APNG decoder: CRC-32, chunk walking, frame-control parsing.
@Suite struct APNGChunkTests {
    /// The CRC-32 one bit at a time, straight from its definition.
    private func bitwiseCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func crcOfTheStandardCheckString() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    @Test func crcMatchesTheBitwiseDefinitionAtEveryLengthAndAlignment() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
        for start in 0..<9 {
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 291 - start] {
                let slice = Array(bytes[start..<(start + length)])
                let fast = bytes.withUnsafeBytes {
                    CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)]))
                }
                #expect(fast == bitwiseCRC(slice), "start \(start), length \(length)")
            }
        }
    }

    @Test func crcContinuesAcrossPieces() {
        let bytes = Array("IDATsome compressed bytes".utf8)
        let whole = bytes.withUnsafeBytes { CRC32.checksum($0) }
        let pieces = bytes.withUnsafeBytes {
            CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[11...]),
                           continuing: CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<11])))
        }
        #expect(pieces == whole)
    }

    @Test func chunkTypesAreCriticalByTheirFirstLetter() {
        #expect(PNGChunkType.IDAT.isCritical)
        #expect(!PNGChunkType.fdAT.isCritical)
        #expect(PNGChunkType.fcTL.description == "fcTL")
        #expect(PNGChunkType("IDAT").rawValue == 0x4944_4154)
    }

    @Test func readerWalksEveryChunkOfAFixture() throws {
        let data = try Fixtures.data("apng/default-is-first-frame.png")
        let types = try data.withUnsafeBytes { bytes in
            var reader = try PNGChunkReader(bytes)
            var types: [String] = []
            while !reader.isAtEnd { types.append(try reader.next().type.description) }
            return types
        }
        #expect(types == ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fcTL", "fdAT", "IEND"])
    }

    @Test func detectionNeedsAnAnimationControlBeforeTheImageData() throws {
        let animated = try Fixtures.data("apng/dispose-none.png")
        #expect(animated.withUnsafeBytes(APNGFile.declaresAnimation))
        let late = try Fixtures.data("apng/actl-after-idat.png")
        #expect(!late.withUnsafeBytes(APNGFile.declaresAnimation))
        let still = try Fixtures.data("png/rgb8.png")
        #expect(!still.withUnsafeBytes(APNGFile.declaresAnimation))
        #expect(!Data([0x89, 0x50]).withUnsafeBytes(APNGFile.declaresAnimation))
    }

    @Test func frameControlDurationUsesHundredthsForAZeroDenominator() throws {
        let data = try Fixtures.data("apng/delays.png")
        let controls = try data.withUnsafeBytes { bytes in
            try APNGFile(bytes, limits: .default, keepingFirstFrameOnly: false).frames.map(\.control)
        }
        #expect(controls.map(\.delayNumerator) == [1, 0, 5, 1, 11, 3])
        #expect(controls.map(\.delayDenominator) == [100, 0, 0, 30, 1000, 2])
        #expect(controls[2].duration == 0.05)
    }

    @Test func firstFrameOnlyKeepsOneFrameButReadsTheWholeLayout() throws {
        let data = try Fixtures.data("apng/dispose-previous-twice.png")
        let file = try data.withUnsafeBytes { bytes in
            try APNGFile(bytes, limits: .default, keepingFirstFrameOnly: true)
        }
        #expect(file.frames.count == 1)
        #expect(file.frameCount == 4)
        #expect(file.defaultImageIsFirstFrame)
    }
}
