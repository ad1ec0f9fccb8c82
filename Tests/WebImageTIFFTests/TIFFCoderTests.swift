import Foundation
import Testing
import WebImage
import WebImageTIFF

@Suite struct TIFFCoderTests {
    @Test func detectsItsFormat() {
        #expect(TIFFCoder().decodableFormats.count == 1)
    }
}
