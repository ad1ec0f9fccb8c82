import Foundation

/// PNG's international text chunk (`iTXt`) as it carries XMP: keyword `XML:com.adobe.xmp`, then the compression
/// flag and method, language tag and translated keyword (each ended by a zero), then the UTF-8 text, deflated
/// when the flag is set.
enum PNGTextChunk {
    static let xmpKeyword = "XML:com.adobe.xmp"

    /// The XMP packet in an `iTXt` chunk's data; `nil` when the chunk holds something else or is damaged.
    static func xmp(in payload: UnsafeRawBufferPointer) -> Data? {
        let keyword = Array(xmpKeyword.utf8) + [0]
        guard payload.count > keyword.count + 2, payload.prefix(keyword.count).elementsEqual(keyword) else {
            return nil
        }
        var offset = keyword.count
        let compressed = payload[offset] == 1
        offset += 2
        for _ in 0..<2 {  // the language tag and the translated keyword
            guard let end = payload[offset...].firstIndex(of: 0) else { return nil }
            offset = end + 1
        }
        let text = UnsafeRawBufferPointer(rebasing: payload[offset...])
        guard compressed else { return ImageMetadata.bounded(text) }
        guard let inflated = try? BoundedInflate.inflate(text, wrapper: .zlib, upTo: ImageMetadata.maximumBlockSize),
              inflated.complete else { return nil }
        return inflated.bytes.isEmpty ? nil : Data(inflated.bytes)
    }

    /// An uncompressed `iTXt` chunk's data holding `xmp`.
    static func chunkData(xmp: Data) -> [UInt8] {
        Array(xmpKeyword.utf8) + [0, 0, 0, 0, 0] + Array(xmp)
    }
}
