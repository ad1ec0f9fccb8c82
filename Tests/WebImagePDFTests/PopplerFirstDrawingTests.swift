import Foundation
import Testing
import WebImage
@testable import WebImagePDF

/// The process's first poppler drawing, made once before any other: its one-point page is a well-formed PDF that
/// poppler draws.
@Suite struct PopplerFirstDrawingTests {
    @Test func theOnePointPageHasAnExactCrossReferenceTable() throws {
        let bytes = Array(PopplerFirstDrawing.onePointPage)
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let startIndex = try #require(lines.firstIndex(of: "startxref"))
        let tableOffset = try #require(Int(lines[startIndex + 1]))
        #expect(Array(bytes[tableOffset...].prefix(5)) == Array("xref\n".utf8))
        let entries = text[text.index(text.startIndex, offsetBy: tableOffset)...].split(separator: "\n").dropFirst(3)
            .prefix { $0.hasSuffix(" n ") }
        #expect(entries.count == 3)
        for (index, entry) in entries.enumerated() {
            #expect(entry.utf8.count + 1 == 20, "entry \(index + 1) is \(entry.utf8.count + 1) bytes")
            let offset = try #require(Int(entry.prefix(10)))
            #expect(Array(bytes[offset...].prefix(8)) == Array("\(index + 1) 0 obj\n".utf8))
        }
    }

    @Test func popplerDrawsItOnceAndItsPageIsOnePointSquare() throws {
        #expect(PopplerFirstDrawing.made)
        let page = try PDFDocument(opening: PopplerFirstDrawing.onePointPage).page(0)
        #expect(page.pointSize == (1, 1))
        let pixels = try page.render(into: PixelSize(width: 1, height: 1))
        #expect(pixels[0, 0] == RGBA(255, 255, 255))
    }
}
