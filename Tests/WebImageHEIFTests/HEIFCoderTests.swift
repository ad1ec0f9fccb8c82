import Foundation
import Testing
import WebImage
import WebImageHEIF

@Suite struct HEIFCoderTests {
    @Test func detectsItsFormat() {
        #expect(HEIFCoder().decodableFormats.count == 1)
    }
}
