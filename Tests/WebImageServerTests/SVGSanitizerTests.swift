import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// SVG sources answered as SVG: what could run, submit or reach out is gone, the drawing is kept.
@Suite struct SVGSanitizerTests {
    static let hostile = """
        <?xml version="1.0"?>
        <!DOCTYPE svg [<!ENTITY boom "boom">]>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="10" \
        onload="alert(1)">
          <script>alert(2)</script>
          <style><![CDATA[rect { fill: red }]]></style>
          <rect id="r" x="0" y="0" width="10" height="10" fill="#00ff00" onclick="alert(3)"/>
          <use href="#r" x="10"/>
          <use xlink:href="https://evil.example/sprite.svg#a"/>
          <image href="javascript:alert(4)"/>
          <image href="data:image/png;base64,iVBORw0KGgo="/>
          <a href="JaVaScRiPt:alert(5)"><text>link</text></a>
          <a href="https://example.com/?a=1&amp;b=2"><text>ok &lt;3</text></a>
          <foreignObject><iframe src="https://evil.example"/><form action="/x"/></foreignObject>
        </svg>
        """

    @Test func unsafeElementsAttributesAndReferencesAreRemoved() throws {
        let clean = String(decoding: try SVGSanitizer.sanitized(Data(Self.hostile.utf8)), as: UTF8.self)
        // The allow-list keeps references inside the document only, and no `foreignObject`.
        for gone in ["<script", "alert", "onload", "onclick", "evil.example", "<iframe", "<form", "ENTITY",
                     "javascript", "JaVaScRiPt", "https://example.com", "<foreignObject"] {
            #expect(!clean.contains(gone), "\(gone) is still in \(clean)")
        }
        for kept in ["xmlns=\"http://www.w3.org/2000/svg\"", "fill=\"#00ff00\"", "href=\"#r\"",
                     "href=\"data:image/png;base64,iVBORw0KGgo=\"", "ok &lt;3", "rect { fill: red }"] {
            #expect(clean.contains(kept), "\(kept) is missing from \(clean)")
        }
        // What is written is a document librsvg still draws, at the same size.
        #expect(try SVGSanitizer.sanitized(Data(clean.utf8)) == Data(clean.utf8))
    }

    @Test func aDocumentThatIsNotXMLIsRefused() {
        for broken in ["<svg><g></svg>", "not xml", "", "<svg>"] {
            #expect(throws: SVGSanitizer.Failure.self) { try SVGSanitizer.sanitized(Data(broken.utf8)) }
        }
    }

    /// Foundation's parser traps on a name that is not UTF-8; such documents never reach it, and an SVG that is
    /// one keeps the server up and gets a 422.
    @Test func aDocumentThatIsNotUTF8IsRefusedBeforeParsing() async throws {
        let hostile = Data([0x3C, 0xFC, 0x6C, 0x74, 0x3E])  // `<\u{FC}lt>` as Latin-1 bytes
        #expect(throws: SVGSanitizer.Failure.self) { try SVGSanitizer.sanitized(hostile) }
        try await ProxyHarness.with { harness throws in
            let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\">".utf8) + hostile
                + Data("</svg>".utf8)
            harness.origin.serve("latin.svg", data: svg, contentType: "image/svg+xml")
            #expect(await harness.get(harness.plainPath([], "latin.svg")).status == 422)
            #expect(await harness.get(harness.plainPath([], "photo.jpg")).status == 200)
        }
    }

    @Test func theProxyAnswersAnSVGSourceAsSanitisedSVGUnlessARasterIsAsked() async throws {
        let webp = FormatNegotiation(offersAVIF: false, offersWebP: true)
        try await ProxyHarness.with(configuring: { $0.negotiation = webp }) { harness throws in
            harness.origin.serve("icon.svg", data: Data(Self.hostile.utf8), contentType: "image/svg+xml")
            let svg = await harness.get(harness.plainPath(["rs:fill:4:4"], "icon.svg"), accept: "image/webp")
            #expect(svg.status == 200 && svg.header("Content-Type") == "image/svg+xml")
            let text = String(buffer: svg.body)
            #expect(text.contains("<rect") && !text.contains("<script"))
            #expect(await harness.get(harness.plainPath([], "icon.svg", ext: "svg")).status == 200)
            let skipped = await harness.get(harness.plainPath(["skp:svg"], "icon.svg"))
            #expect(skipped.status == 200 && !String(buffer: skipped.body).contains("<script"))
            // A raster format draws it, with the SVG coder (`webimage serve` registers it; this proxy has none,
            // so the source is one it cannot decode).
            let png = await harness.get(harness.plainPath(["rs:fill:4:4"], "icon.svg", ext: "png"))
            #expect(png.status == 422 && String(buffer: png.body).contains("not an image this server decodes"))
            // No other source becomes an SVG.
            #expect(await harness.get(harness.plainPath([], "photo.jpg", ext: "svg")).status == 422)
        }
    }

    /// A gzipped SVG (`.svgz`, served without `Content-Encoding`) is answered as plain, sanitised SVG.
    @Test func aGzippedSVGSourceIsAnsweredInflatedAndSanitised() async throws {
        try await ProxyHarness.with { harness throws in
            harness.origin.serve("icon.svgz", data: Self.gzipStored(Data(Self.hostile.utf8)),
                                 contentType: "image/svg+xml")
            let svg = await harness.get(harness.plainPath([], "icon.svgz"))
            #expect(svg.status == 200 && svg.header("Content-Type") == "image/svg+xml")
            let text = String(buffer: svg.body)
            #expect(text.contains("<rect") && !text.contains("<script"))
        }
    }

    /// `data` (under 64 KiB) as a gzip file of one stored, uncompressed deflate block.
    static func gzipStored(_ data: Data) -> Data {
        precondition(data.count < 1 << 16)
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian) { Array($0) }
        }
        let length = UInt16(data.count)
        var file: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 0b1]  // header; the last block, stored
        file += littleEndian(length) + littleEndian(~length) + Array(data)
        file += littleEndian(~crc) + littleEndian(UInt32(data.count))
        return Data(file)
    }
}
