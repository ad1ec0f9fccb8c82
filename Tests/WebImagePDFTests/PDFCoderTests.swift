import Foundation
import Testing
import WebImage
import WebImagePDF

@Suite struct PDFCoderTests {
    @Test func detectsItsFormat() {
        #expect(PDFCoder().decodableFormats.count == 1)
    }
}
