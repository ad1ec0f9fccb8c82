import Foundation
@testable import WebImage

/// Writes colour descriptions into encoded files the way other tools do, independently of the library's own
/// writers, so that the readers are tested against bytes they did not make.
enum ColorTaggedFiles {
    /// `jpeg` with `icc` in APP2 `ICC_PROFILE` segments of at most `segmentSize` profile bytes, right after SOI.
    static func jpeg(_ jpeg: Data, icc: Data, segmentSize: Int = 65_519, sequence: ((Int) -> Int)? = nil) -> Data {
        let pieces = stride(from: 0, to: icc.count, by: segmentSize).map { icc.dropFirst($0).prefix(segmentSize) }
        var segments = Data()
        for (index, piece) in pieces.enumerated() {
            let length = 16 + piece.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            segments += Array("ICC_PROFILE".utf8) + [0, UInt8(sequence?(index + 1) ?? index + 1), UInt8(pieces.count)]
            segments += piece
        }
        return jpeg.prefix(2) + segments + jpeg.dropFirst(2)
    }

    /// `png` with `chunks` (type, data) inserted after IHDR, each with its CRC.
    static func png(_ png: Data, chunks: [(String, [UInt8])]) -> Data {
        var inserted = Data()
        for (type, data) in chunks {
            let typeAndData = Array(type.utf8) + data
            inserted += bigEndian(UInt32(data.count)) + typeAndData
            inserted += bigEndian(typeAndData.withUnsafeBytes { CRC32.checksum($0) })
        }
        return png.prefix(33) + inserted + png.dropFirst(33)
    }

    /// An `iCCP` chunk's data: name, zero, method 0, and the profile as a zlib stream of stored blocks.
    static func iCCP(_ icc: Data) -> [UInt8] {
        Array("test profile".utf8) + [0, 0] + storedZlib(Array(icc))
    }

    /// A zlib stream that stores `bytes` uncompressed: valid for every inflater.
    static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + count == bytes.count ? 1 : 0
            stream += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            stream += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return stream + bigEndian(b << 16 | a)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// A PNG `gAMA` chunk's data for a file gamma (the encoding exponent, such as 1/1.8).
    static func gAMA(_ gamma: Double) -> [UInt8] { bigEndian(UInt32((gamma * 100_000).rounded())) }

    /// A PNG `cHRM` chunk's data: white, then red, green, blue.
    static func cHRM(white: (x: Double, y: Double), primaries: [(x: Double, y: Double)]) -> [UInt8] {
        ([white] + primaries).flatMap { bigEndian(UInt32(($0.x * 100_000).rounded())) + bigEndian(UInt32(($0.y * 100_000).rounded())) }
    }
}
