import Foundation

/// Writes what a PNG carries beside its pixels, right after the IHDR chunk (before any palette or image data, as
/// the colour chunks and `eXIf` must be): the colour profile, EXIF as `eXIf`, and XMP as an `iTXt` chunk with
/// Adobe's keyword. PNG has no place for IPTC.
enum PNGAncillaryChunks {
    static func tagging(_ png: Data, profile: ColorProfile?, metadata: ImageMetadata?) throws -> Data {
        let ihdrEnd = PNGChunkReader.signature.count + 8 + 13 + 4
        guard png.count > ihdrEnd, profile != nil || metadata?.exif != nil || metadata?.xmp != nil else { return png }
        var writer = PNGChunkWriter()
        if let profile { try PNGColorChunks.append(profile, to: &writer) }
        if let exif = metadata?.exif { writer.append(.eXIf, data: Array(exif)) }
        if let xmp = metadata?.xmp { writer.append(PNGChunkType("iTXt"), data: PNGTextChunk.chunkData(xmp: xmp)) }
        var tagged = Data(png.prefix(ihdrEnd))
        tagged.append(contentsOf: writer.bytes.dropFirst(PNGChunkReader.signature.count))
        tagged.append(png.dropFirst(ihdrEnd))
        return tagged
    }
}
