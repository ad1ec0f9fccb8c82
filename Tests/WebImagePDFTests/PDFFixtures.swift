import CoderTestSupport
import Foundation
import Testing
import WebImage

/// The fixtures folder, comparisons against the `pdftoppm` references (raw RGB files), and PDFs built at test
/// time for the cases no file should be committed for (thousands of pages, huge pages).
enum PDFFixtures {
    static let folder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// A raw RGB reference with an opaque alpha byte added after each pixel.
    static func reference(_ name: String) throws -> [UInt8] {
        let rgb = try data(name)
        var rgba = [UInt8]()
        rgba.reserveCapacity(rgb.count / 3 * 4)
        for index in stride(from: 0, to: rgb.count - 2, by: 3) {
            rgba += [rgb[index], rgb[index + 1], rgb[index + 2], 255]
        }
        return rgba
    }

    /// How far a cairo render is from Splash's (`pdftoppm`): the two rasterisers antialias edges differently,
    /// so interiors agree exactly and edges by a few levels.
    struct Difference {
        var mean: Double
        /// The share of channels more than 16 levels apart.
        var farShare: Double
    }

    /// With `partialEdges` false, the last column and row are left out: on a page whose size is not a whole
    /// number of points they are partly covered, and Splash paints such pixels whole or not at all where cairo
    /// blends them.
    static func difference(_ pixels: PixelBuffer, _ reference: [UInt8], partialEdges: Bool = true) -> Difference {
        let bytes = pixels.bytes
        guard bytes.count == reference.count, !bytes.isEmpty else { return Difference(mean: .infinity, farShare: 1) }
        let width = pixels.width - (partialEdges ? 0 : 1), height = pixels.height - (partialEdges ? 0 : 1)
        let compared = (0..<height).flatMap { y in (y * pixels.width * 4)..<((y * pixels.width + width) * 4) }
        var total = 0, far = 0
        for index in compared {
            let delta = abs(Int(bytes[index]) - Int(reference[index]))
            total += delta
            if delta > 16 { far += 1 }
        }
        return Difference(mean: Double(total) / Double(compared.count), farShare: Double(far) / Double(compared.count))
    }

    /// A PDF of `pages` pages of `mediaBox`, each its own page object sharing one content stream that fills the
    /// page's lower-left 10×10 points with green.
    static func document(pages: Int, mediaBox: String = "0 0 30 20") -> Data {
        var out = "%PDF-1.4\n"
        var offsets = [Int]()
        func add(_ body: String) {
            offsets.append(out.utf8.count)
            out += "\(offsets.count) 0 obj\n\(body)\nendobj\n"
        }
        add("<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pages).map { "\($0 + 4) 0 R" }.joined(separator: " ")
        add("<< /Type /Pages /Kids [\(kids)] /Count \(pages) /MediaBox [\(mediaBox)] >>")
        let content = "0 1 0 rg 0 0 10 10 re f"
        add("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        for _ in 0..<pages { add("<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>") }
        let xref = out.utf8.count
        out += "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            out += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n"
        }
        out += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(out.utf8)
    }

    /// A one-page 20×20 pt PDF drawing one image XObject that declares `width` × `height` RGB pixels, with
    /// `hex` as its ASCIIHex-encoded samples (a declared size need not match the data to be refused).
    static func document(imageWidth width: Int, height: Int, hex: String) -> Data {
        let content = "q 20 0 0 20 0 0 cm /Im Do Q"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 20 20] /Resources << /XObject << /Im 5 0 R >> >> "
                + "/Contents 4 0 R >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB "
                + "/BitsPerComponent 8 /Filter /ASCIIHexDecode /Length \(hex.utf8.count) >>\nstream\n\(hex)\nendstream",
        ]
        var out = "%PDF-1.4\n"
        var offsets = [Int]()
        for (index, body) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            out += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n"
        }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(out.utf8)
    }
}
