import CZlib
import Foundation

/// The colour description in a PNG's chunks before its image data, in the order PNG (third edition) ranks them:
/// `cICP`, then `iCCP`, then `sRGB`, then `gAMA` with `cHRM`. Damaged or unknown descriptions are ignored and
/// the image is read as sRGB, as browsers do; nothing here makes a readable image fail.
enum PNGColorChunks {
    static let iCCP = PNGChunkType("iCCP")
    static let sRGB = PNGChunkType("sRGB")
    static let gAMA = PNGChunkType("gAMA")
    static let cHRM = PNGChunkType("cHRM")
    static let cICP = PNGChunkType("cICP")

    /// The profile the file's colour chunks describe; `nil` for sRGB or none.
    static func profile(in bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard var reader = try? PNGChunkReader(bytes) else { return nil }
        var codePoints: ColorCodePoints?
        var icc: ColorProfile?
        var isSRGB = false
        var gamma: Double?
        var chromaticities: [ChromaticityXY]?
        while let chunk = try? reader.next(verifyingChecksum: false), chunk.type != .IDAT, chunk.type != .IEND {
            let data = UnsafeRawBufferPointer(rebasing: bytes[chunk.data])
            switch chunk.type {
            case cICP where data.count == 4:
                codePoints = ColorCodePoints(primaries: UInt16(data[0]), transfer: UInt16(data[1]),
                                             matrix: UInt16(data[2]), fullRange: data[3] == 1)
            case iCCP where icc == nil:
                icc = embeddedProfile(data)
            case sRGB:
                isSRGB = true
            case gAMA where data.count == 4:
                gamma = Double(reader.uint32(at: chunk.data.lowerBound)) / 100_000
            case cHRM where data.count == 32:
                let values = (0..<8).map { Double(reader.uint32(at: chunk.data.lowerBound + 4 * $0)) / 100_000 }
                chromaticities = stride(from: 0, to: 8, by: 2).map { ChromaticityXY(x: values[$0], y: values[$0 + 1]) }
            default:
                break
            }
        }
        if let codePoints, let profile = ColorProfile(codePoints: codePoints) {
            return profile.unlessSRGB
        }
        if let icc { return icc.unlessSRGB }
        if isSRGB { return nil }
        guard gamma != nil || chromaticities != nil else { return nil }
        return ColorCodePointProfiles.pngProfile(gamma: gamma, white: chromaticities?.first,
                                                 primaries: chromaticities.map { Array($0.dropFirst()) })
    }

    /// Gray for the gray colour types (0 and 4, read from IHDR), else sRGB.
    static func untaggedSpace(_ bytes: UnsafeRawBufferPointer) -> ColorSpace {
        bytes.count > 25 && bytes[25] & ~4 == 0 ? .gray : .sRGB
    }

    /// An `iCCP` chunk's profile: a name of 1 to 79 bytes, a zero, compression method 0, then the zlib stream.
    private static func embeddedProfile(_ data: UnsafeRawBufferPointer) -> ColorProfile? {
        guard let nameEnd = data.prefix(80).firstIndex(of: 0), nameEnd >= 1, data.count > nameEnd + 2,
              data[nameEnd + 1] == 0 else { return nil }
        let stream = UnsafeRawBufferPointer(rebasing: data[(nameEnd + 2)...])
        guard let inflated = try? BoundedInflate.inflate(stream, wrapper: .zlib, upTo: ColorProfile.maximumICCSize),
              inflated.complete else { return nil }
        return ColorProfile(icc: Data(inflated.bytes))
    }
}

extension PNGColorChunks {
    /// Appends the chunks that describe `profile`: an `iCCP` chunk, and a `cICP` chunk too when the profile came
    /// as code points (readers that know `cICP` prefer it; the rest use the ICC profile).
    static func append(_ profile: ColorProfile, to writer: inout PNGChunkWriter) throws {
        if let points = profile.codePoints {
            writer.append(cICP, data: [UInt8(clamping: points.primaries), UInt8(clamping: points.transfer),
                                       0, points.fullRange ? 1 : 0])
        }
        writer.append(iCCP, data: Array("ICC profile".utf8) + [0, 0] + (try zlibCompressed(profile.iccData)))
    }

    private static func zlibCompressed(_ data: Data) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(compressBound(uLong(data.count))))
        var length = uLongf(output.count)
        let status = data.withUnsafeBytes { source in
            compress2(&output, &length, source.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(data.count), 9)
        }
        guard status == Z_OK else { throw ImageError(.badImageData, "PNG: could not compress the ICC profile") }
        return Array(output.prefix(Int(length)))
    }
}
