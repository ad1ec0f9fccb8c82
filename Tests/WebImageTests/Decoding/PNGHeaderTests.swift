import Foundation
import Testing
@testable import WebImage

/// The IHDR check shared by the properties reader and the decoders: a header the decoder refuses must not be
/// described by `properties(of:)` (and so by `webimage info`), and both refuse it with the same code.
@Suite struct PNGHeaderTests {
    /// The bit depths the PNG specification allows for each colour type.
    static let allowedDepths: [UInt8: Set<UInt8>] = [
        0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]

    /// `data` with IHDR's field at `offset` (0 = width … 12 = interlace method) replaced by `bytes`, its CRC
    /// recomputed so that only the field itself is wrong.
    static func patchingHeader(_ data: Data, at offset: Int, with bytes: [UInt8]) -> Data {
        var file = Array(data)
        file.replaceSubrange((16 + offset)..<(16 + offset + bytes.count), with: bytes)
        let crc = file[12..<29].withUnsafeBytes { CRC32.checksum($0) }
        file.replaceSubrange(29..<33, with: withUnsafeBytes(of: crc.bigEndian) { Array($0) })
        return Data(file)
    }

    /// A PNG signature followed by an IHDR chunk with these fields (and a correct CRC), nothing after it.
    static func header(width: UInt32 = 1, height: UInt32 = 1, depth: UInt8, colorType: UInt8,
                       tail: [UInt8] = [0, 0, 0]) -> Data {
        let sides = [width, height].flatMap { side in withUnsafeBytes(of: side.bigEndian) { Array($0) } }
        let chunkStart: [UInt8] = [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]  // length 13, "IHDR"
        let zeroCRC = Data(PNGChunkReader.signature + chunkStart + sides + [depth, colorType] + tail + [0, 0, 0, 0])
        return patchingHeader(zeroCRC, at: 0, with: [])  // patches nothing: computes the CRC
    }

    /// The error `body` throws, as its code (the incremental tests' helper).
    private static func code(_ body: () throws -> Void) -> ImageError.Code? { IncrementalFeeding.errorCode(body) }

    private static func headerCode(_ data: Data) -> ImageError.Code? {
        code {
            try data.withUnsafeBytes { bytes in
                var reader = try PNGChunkReader(bytes)
                _ = try PNGHeader(reading: &reader)
            }
        }
    }

    @Test func everyColourTypeAndDepthIsCheckedAgainstTheSpecification() {
        for colorType in UInt8(0)...10 {
            for depth in UInt8(0)...32 {
                let allowed = Self.allowedDepths[colorType]?.contains(depth) ?? false
                let code = Self.headerCode(Self.header(depth: depth, colorType: colorType))
                #expect(code == (allowed ? nil : .badImageData), "colour type \(colorType), depth \(depth)")
            }
        }
    }

    @Test func methodsAndSidesOutsideTheSpecificationAreRefused() {
        #expect(Self.headerCode(Self.header(depth: 8, colorType: 2, tail: [0, 0, 1])) == nil)
        for tail: [UInt8] in [[1, 0, 0], [0, 1, 0], [0, 0, 2], [0, 0, 255]] {
            #expect(Self.headerCode(Self.header(depth: 8, colorType: 2, tail: tail)) == .badImageData, "\(tail)")
        }
        #expect(Self.headerCode(Self.header(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, depth: 8, colorType: 2)) == nil)
        for (width, height): (UInt32, UInt32) in [(0, 1), (1, 0), (0x8000_0000, 1), (1, 0xFFFF_FFFF)] {
            let data = Self.header(width: width, height: height, depth: 8, colorType: 2)
            #expect(Self.headerCode(data) == .badImageData, "\(width)x\(height)")
        }
    }

    /// PngSuite's x* files that carry a bad header (xd0n2c08, xd3n2c08, xd9n2c08, xc1n0g08, xc9n2c08) and other
    /// combinations the specification forbids, made from a sound RGB file by changing IHDR alone.
    static let refusedFields: [(name: String, offset: Int, bytes: [UInt8])] = [
        ("depth 0", 8, [0]), ("depth 3", 8, [3]), ("depth 99", 8, [99]),
        ("colour type 1", 9, [1]), ("colour type 9", 9, [9]),
        ("RGB at depth 4", 8, [4]), ("palette at depth 16", 8, [16, 3]), ("RGBA at depth 1", 8, [1, 6]),
        ("grey + alpha at depth 2", 8, [2, 4]), ("compression 1", 10, [1]), ("filter 1", 11, [1]),
        ("interlace 2", 12, [2]), ("width 0", 0, [0, 0, 0, 0]), ("width 2^31", 0, [0x80, 0, 0, 0]),
    ]

    @Test(arguments: ["png/rgb8.png", "apng/single-frame.png", "apng/blend-over.png"])
    func propertiesAndDecodingRefuseTheSameHeaders(fixture: String) throws {
        let sound = try Fixtures.data(fixture)
        #expect(Self.code { _ = try ImageCoders.shared.properties(of: sound) } == nil)
        #expect(Self.code { _ = try ImageCoders.shared.decode(sound) } == nil)
        for field in Self.refusedFields {
            let data = Self.patchingHeader(sound, at: field.offset, with: field.bytes)
            #expect(ImageFormat.detect(data) == .png)
            #expect(Self.code { _ = try ImageCoders.shared.properties(of: data) } == .badImageData, "\(field.name)")
            #expect(Self.code { _ = try PNGCoder().properties(of: data) } == .badImageData, "\(field.name)")
            #expect(Self.code { _ = try ImageCoders.shared.decode(data) } == .badImageData, "\(field.name)")
            #expect(Self.code { _ = try PNGCoder().decode(data, options: DecodeOptions()) } == .badImageData,
                    "\(field.name)")
        }
    }
}
