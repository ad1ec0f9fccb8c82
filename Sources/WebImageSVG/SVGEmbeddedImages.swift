import Foundation
import WebImage

/// Checks the raster images an SVG embeds as `data:` URLs against the pixel limit before librsvg sees them.
///
/// Why: librsvg hands an embedded PNG, JPEG or GIF to gdk-pixbuf, which decodes it at its own size whatever size
/// it is drawn at: an 83 KB SVG holding an 8 000 × 8 000 PNG takes 450 MB to draw at 20×20. External references
/// are never loaded (see `SVGDocument`), so `data:` URLs are the only way in. Each one is decoded as the
/// downloader decodes `data:` URLs and its size read by ``ImageCoders/shared``'s header readers; one over
/// ``DecodeLimits/maxPixels`` refuses the document. A payload no registered coder reads is left to librsvg.
/// What this cannot see: a URL spelled with XML character or entity references, which the parser expands.
enum SVGEmbeddedImages {
    static func check(_ data: Data, limits: DecodeLimits) throws {
        let bytes = [UInt8](data)
        let scheme = Array("data:".utf8)
        var index = 0
        while let start = find(scheme, in: bytes, from: index) {
            var end = start + scheme.count
            while end < bytes.count, !isURLEnd(bytes[end]) { end += 1 }
            index = end
            // The library's own `data:` decoder (percent escapes, then base64); a URL it refuses is left to librsvg.
            let url = String(decoding: bytes[start..<end], as: UTF8.self)
            guard let payload = try? DataURLImageLoader.decode(url, maximumSize: bytes.count).data, !payload.isEmpty
            else { continue }
            let properties: ImageProperties
            do {
                properties = try ImageCoders.shared.properties(of: payload)
            } catch let error as ImageError where error.code == .imageTooLarge {
                // A coder without a header reader decodes with the default limits, and may hit them.
                throw ImageError(.imageTooLarge, "SVG: an embedded image is too large: \(error.message)")
            } catch {
                continue  // not an image the registered coders read: librsvg decides
            }
            guard properties.format == .svg || properties.size.area <= limits.maxPixels else {
                throw ImageError(.imageTooLarge, "SVG: an embedded \(properties.format.rawValue) image is "
                                 + "\(properties.size), over the limit of \(limits.maxPixels) pixels")
            }
        }
    }

    /// Where a URL in an attribute or a CSS `url()` ends.
    private static func isURLEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ")")
            || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var position = start
        while position + needle.count <= bytes.count,
              let hit = bytes[position...].firstIndex(of: needle[0]) {
            guard hit + needle.count <= bytes.count else { return nil }
            if needle.indices.allSatisfy({ bytes[hit + $0] == needle[$0] }) { return hit }
            position = hit + 1
        }
        return nil
    }
}
