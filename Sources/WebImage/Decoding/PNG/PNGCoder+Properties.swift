import Foundation

extension PNGCoder {
    /// Reads a PNG's properties from its chunk headers: IHDR, tRNS, eXIf, and for an APNG the acTL and each
    /// fcTL (the layout the decoder checks, without inflating any image data). A file without its IEND chunk is
    /// refused, as the decoder refuses it.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            var properties = APNGFile.declaresAnimation(bytes)
                ? try Self.animationProperties(bytes) : try Self.stillProperties(bytes)
            properties.describeColor(PNGColorChunks.profile(in: bytes), untagged: PNGColorChunks.untaggedSpace(bytes))
            return properties
        }
    }

    private static func stillProperties(_ bytes: UnsafeRawBufferPointer) throws -> ImageProperties {
        var reader = try PNGChunkReader(bytes)
        let header = try PNGHeader(reading: &reader)
        let ancillary = try scanAncillaryChunks(&reader, bytes)
        let hasAlpha = colorTypeHasAlpha(header.colorType) || ancillary.hasTransparency
        return ImageProperties(format: .png, size: ancillary.orientation.displayedSize(of: header.size),
                               hasAlpha: hasAlpha, orientation: ancillary.orientation)
    }

    /// The orientation of a still PNG's stored pixels from its eXIf chunk, read from the chunk headers before
    /// any pixel is decoded (so that a thumbnail's size is known first); `.up` when the chunks cannot be read,
    /// which the decoder then reports.
    static func storedOrientation(_ bytes: UnsafeRawBufferPointer) -> Orientation {
        guard var reader = try? PNGChunkReader(bytes), (try? reader.next()) != nil else { return .up }
        return (try? scanAncillaryChunks(&reader, bytes))?.orientation ?? .up
    }

    /// Reads the chunks after IHDR up to IEND, without checking their CRCs, for tRNS and eXIf.
    private static func scanAncillaryChunks(_ reader: inout PNGChunkReader, _ bytes: UnsafeRawBufferPointer) throws
        -> (hasTransparency: Bool, orientation: Orientation)
    {
        var hasTransparency = false
        var orientation = Orientation.up
        while true {
            let chunk = try reader.next(verifyingChecksum: false)
            if chunk.type == .IEND { break }
            if chunk.type == .tRNS { hasTransparency = true }
            if chunk.type == .eXIf {
                orientation = EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[chunk.data])) ?? .up
            }
        }
        return (hasTransparency, orientation)
    }

    private static func animationProperties(_ bytes: UnsafeRawBufferPointer) throws -> ImageProperties {
        let unlimited = DecodeLimits(maxPixels: .max, maxFrames: .max, maxTotalPixels: .max)
        let file = try APNGFile(bytes, limits: unlimited, keepingFirstFrameOnly: false)
        guard !file.frames.isEmpty else { throw ImageError(.badImageData, "APNG: the animation has no frames") }
        let orientation = file.exif.flatMap { EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[$0])) }
            ?? .up
        let isStill = file.frames.count == 1
        return ImageProperties(
            format: .png, size: orientation.displayedSize(of: file.canvas), frameCount: file.frames.count,
            loopCount: isStill ? 1 : file.playCount, hasAlpha: APNGDecoder.mayShowTransparency(file),
            orientation: orientation, frameDurations: isStill ? [] : file.frames.map(\.control.duration))
    }

    /// Colour types 4 (grey + alpha) and 6 (RGBA) carry an alpha channel.
    static func colorTypeHasAlpha(_ colorType: UInt8) -> Bool { colorType == 4 || colorType == 6 }
}
