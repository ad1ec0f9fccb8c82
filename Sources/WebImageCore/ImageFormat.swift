import Foundation

/// An encoded image format, recognised from the first bytes of the data (never from a file name or MIME type,
/// which lie too often).
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, gif, webp, heic, heif, avif, jxl, tiff, bmp, ico, pdf, svg, unknown

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .unknown: "bin"
        default: rawValue
        }
    }

    /// The usual MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        case .unknown: "application/octet-stream"
        }
    }

    /// The format named by a file extension or a format name (`jpg`, `jpeg`, `PNG`, …), if any.
    public init?(fileExtension: String) {
        let name = fileExtension.lowercased()
        switch name {
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "tif": self = .tiff
        case "cur": self = .ico
        case "heics", "hif": self = .heic
        case "unknown", "bin": return nil
        default:
            guard let format = ImageFormat(rawValue: name) else { return nil }
            self = format
        }
    }

    /// Recognises the format of encoded image data by its magic bytes.
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { detect(bytes: $0) }
    }

    /// Recognises the format of encoded image bytes by their magic bytes.
    public static func detect(bytes: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            for (index, byte) in prefix.enumerated() where bytes[offset + index] != byte { return false }
            return true
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        // JPEG XL: a bare codestream starts FF 0A; the ISO BMFF container with its own 12-byte signature box.
        if starts(with: [0xFF, 0x0A]) { return .jxl }
        if starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts(with: Array("ftyp".utf8), at: 4) { return isoMediaFormat(bytes) }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(with: Array("%PDF".utf8)) { return .pdf }
        if starts(with: [0x00, 0x00, 0x01, 0x00]) || starts(with: [0x00, 0x00, 0x02, 0x00]) { return .ico }
        if starts(with: Array("BM".utf8)) && bytes.count >= 26 { return .bmp }
        if Gzip.isCompressed(bytes) { return compressedSVG(bytes) ? .svg : .unknown }
        if looksLikeSVG(bytes) { return .svg }
        return .unknown
    }

    /// Whether gzip data holds an SVG document (an `.svgz` file), judged from the first 4 KiB it inflates to:
    /// detection never inflates more, however large the document or the bomb.
    private static func compressedSVG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let prefix = try? Gzip.inflate(bytes, upTo: 4096) else { return false }
        return prefix.bytes.withUnsafeBytes(looksLikeSVG)
    }

    /// HEIC, HEIF or AVIF from an ISO base media `ftyp` box: the major brand, then the compatible brands.
    ///
    /// A major brand of `mif1` or `msf1` (the generic image and sequence brands) is HEIF whatever codec brands
    /// follow, as SDWebImage reports it; HEIC is for the HEVC major brands (`heic`, `heix`, `hevc`, `hevx` …).
    /// AV1 is the exception: a `mif1` file listing `avif` holds AV1 images, which only the AVIF coder reads.
    private static func isoMediaFormat(_ bytes: UnsafeRawBufferPointer) -> ImageFormat {
        func brand(at offset: Int) -> String? {
            guard bytes.count >= offset + 4 else { return nil }
            return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        }
        let boxSize = bytes.count >= 4 ? Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3]) : 0
        var brands: [String] = []
        if let major = brand(at: 8) { brands.append(major) }
        var offset = 16
        while offset + 4 <= min(boxSize, bytes.count, 256), let compatible = brand(at: offset) {
            brands.append(compatible)
            offset += 4
        }
        let av1Brands: Set = ["avif", "avis"]
        let heicBrands: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
        let genericBrands: Set = ["mif1", "msf1"]
        if let major = brands.first, genericBrands.contains(major) {
            return brands.contains(where: av1Brands.contains) ? .avif : .heif
        }
        for name in brands {
            if av1Brands.contains(name) { return .avif }
            if heicBrands.contains(name) { return .heic }
        }
        if brands.contains(where: genericBrands.contains) { return .heif }
        return .unknown
    }

    /// SVG is text: an `<svg` tag near the start (after an XML declaration or comments) or `</svg>` at the end.
    /// Compared byte by byte, ignoring ASCII case: this runs on every input no other format claimed, so it must
    /// stay cheap on arbitrary bytes.
    private static func looksLikeSVG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        contains(Array("<svg".utf8), in: UnsafeRawBufferPointer(rebasing: bytes.prefix(1024)))
            || contains(Array("</svg>".utf8), in: UnsafeRawBufferPointer(rebasing: bytes.suffix(100)))
    }

    /// Whether `needle` (lowercase ASCII) occurs in `haystack`, ignoring ASCII case.
    private static func contains(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            var index = 1
            while index < needle.count {
                let byte = haystack[start + index]
                let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte  // A-Z to a-z only
                guard folded == needle[index] else { break }
                index += 1
            }
            if index == needle.count { return true }
        }
        return false
    }
}
