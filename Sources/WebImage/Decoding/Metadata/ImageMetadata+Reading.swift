import Foundation

extension ImageMetadata {
    /// The EXIF, XMP and IPTC blocks of an encoded image, read from its container alone (nothing is decoded):
    /// JPEG APP1 and APP13 segments, PNG `eXIf` and `iTXt` chunks, WebP `EXIF` and `XMP ` chunks, the `Exif` and
    /// `mime` items of AVIF and HEIF files, and the `Exif` and `xml ` boxes of JPEG XL containers.
    ///
    /// `nil` when the file has none, its format holds none here (GIF, TIFF, BMP, …), or its container cannot be
    /// read; blocks over ``maximumBlockSize`` are left out. Damaged metadata is never an error: the image decodes
    /// without it.
    public static func read(from data: Data) -> ImageMetadata? {
        let format = ImageFormat.detect(data)
        return data.withUnsafeBytes { bytes -> ImageMetadata? in
            switch format {
            case .jpeg: jpeg(bytes)
            case .png: png(bytes)
            case .webp: webp(bytes)
            case .avif, .heic, .heif: ISOBMFFMetadataItems.metadata(in: bytes)
            case .jxl: jxl(bytes)
            default: nil
            }
        }?.unlessEmpty
    }

    private static func jpeg(_ bytes: UnsafeRawBufferPointer) -> ImageMetadata? {
        guard let markers = try? JPEGMarkerScanner.scan(bytes) else { return nil }
        func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[range]) }
        var metadata = ImageMetadata()
        // The APP1 range starts at `Exif\0\0`: the block is what follows it.
        metadata.exif = markers.exif.flatMap { bounded(slice($0.lowerBound + 6..<$0.upperBound)) }
        metadata.xmp = markers.xmp.flatMap { bounded(slice($0)) }
        if !markers.photoshop.isEmpty {
            var joined = Data()
            for range in markers.photoshop { joined.append(contentsOf: slice(range)) }
            metadata.iptc = joined.withUnsafeBytes(bounded)
        }
        return metadata
    }

    private static func png(_ bytes: UnsafeRawBufferPointer) -> ImageMetadata? {
        guard var reader = try? PNGChunkReader(bytes) else { return nil }
        var metadata = ImageMetadata()
        while !reader.isAtEnd, let chunk = try? reader.next(verifyingChecksum: false), chunk.type != .IEND {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[chunk.data])
            if chunk.type == .eXIf, metadata.exif == nil {
                metadata.exif = bounded(payload)
            } else if chunk.type == PNGChunkType("iTXt"), metadata.xmp == nil {
                metadata.xmp = PNGTextChunk.xmp(in: payload)
            }
        }
        return metadata
    }

    private static func webp(_ bytes: UnsafeRawBufferPointer) -> ImageMetadata? {
        guard bytes.count >= 12, fourCC(bytes, 0) == "RIFF", fourCC(bytes, 8) == "WEBP" else { return nil }
        var metadata = ImageMetadata()
        var offset = 12
        while offset <= bytes.count - 8 {
            let size = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            let payload = offset + 8
            guard size <= bytes.count - payload else { break }
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + size])
            switch fourCC(bytes, offset) {
            case "EXIF": metadata.exif = bounded(withoutEXIFHeader(chunk))
            case "XMP ": metadata.xmp = bounded(chunk)
            default: break
            }
            offset = payload + size + (size & 1)
        }
        return metadata
    }

    private static func jxl(_ bytes: UnsafeRawBufferPointer) -> ImageMetadata? {
        var metadata = ImageMetadata()
        for box in ISOBMFFBoxes.boxes(in: bytes) {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[box.payload])
            switch box.type {
            case "Exif": metadata.exif = exifItem(payload)
            case "xml ": metadata.xmp = bounded(payload)
            default: break
            }
        }
        return metadata
    }

    /// The TIFF block of an `Exif` item or box, which starts with the big-endian offset of the TIFF header
    /// (counted from after those four bytes).
    static func exifItem(_ payload: UnsafeRawBufferPointer) -> Data? {
        guard payload.count >= 4 else { return nil }
        let skip = payload[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard skip <= payload.count - 4 else { return nil }
        return bounded(withoutEXIFHeader(UnsafeRawBufferPointer(rebasing: payload[(4 + skip)...])))
    }

    /// `bytes` without the `Exif\0\0` some writers put before the TIFF header.
    static func withoutEXIFHeader(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        guard bytes.count >= 6, bytes.prefix(6).elementsEqual(header) else { return bytes }
        return UnsafeRawBufferPointer(rebasing: bytes[6...])
    }

    private static func fourCC(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
