import Foundation
import WebImage

/// Metadata blocks as cameras and editors write them, made here: a little-endian EXIF directory with an
/// orientation, the camera's make and the copyright tags; an XMP packet with Dublin Core and Photoshop
/// properties; a Photoshop resource block with IPTC keywords, by-line and copyright notice. Computed on each
/// use: a `Data` held in a global is reported by LeakSanitizer at exit (RELIABILITY.md).
public enum MetadataSamples {
    public static let artist = "Ada Lovelace"
    public static let copyright = "(c) 2026 Example Photos"
    public static let make = "ExampleCam"

    /// An EXIF block (TIFF, little-endian) with Make, Orientation, Artist and Copyright in IFD0.
    public static func exif(orientation: UInt16 = 6) -> Data {
        let texts: [(UInt16, String)] = [(0x010F, make), (0x013B, artist), (0x8298, copyright)]
        let entryCount = texts.count + 1
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ value: Int) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16) }
        var values: [UInt8] = []
        let valuesStart = 8 + 2 + 12 * entryCount + 4
        u16(entryCount)
        var entries: [(UInt16, () -> Void)] = texts.map { tag, text in
            (tag, {
                let bytes = Array(text.utf8) + [0]
                u16(Int(tag)); u16(2); u32(bytes.count); u32(valuesStart + values.count)
                values += bytes
            })
        }
        entries.append((0x0112, { u16(0x0112); u16(3); u32(1); u16(Int(orientation)); u16(0) }))
        for (_, write) in entries.sorted(by: { $0.0 < $1.0 }) { write() }
        u32(0)
        return Data(out + values)
    }

    /// An XMP packet with a creator and rights (Dublin Core), a title, and a city (Photoshop's namespace).
    public static var xmp: Data { Data("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" \
        xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:City="Lisbon">\
        <dc:creator><rdf:Seq><rdf:li>Ada Lovelace</rdf:li></rdf:Seq></dc:creator>\
        <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Harbour</rdf:li></rdf:Alt></dc:title>\
        <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">All rights reserved</rdf:li></rdf:Alt></dc:rights>\
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8) }

    /// A Photoshop resource block whose IPTC has the record version, keywords (2:25), a by-line (2:80) and a
    /// copyright notice (2:116), behind another resource (a resolution record).
    public static var iptc: Data {
        func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return [0x1C, record, number, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        let iptc = [0x1C, 2, 0, 0, 2, 0, 4] + dataset(2, 25, "harbour") + dataset(2, 80, artist)
            + dataset(2, 116, copyright)
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            var out = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
            out += [0, 0, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
            return data.count % 2 == 1 ? out + [0] : out
        }
        return Data(resource(0x03ED, [UInt8](repeating: 1, count: 16)) + resource(0x0404, iptc))
    }

    public static var all: ImageMetadata { ImageMetadata(exif: exif(), xmp: xmp, iptc: iptc) }
}
