import Foundation
import Testing
import WebImage
import WebImageAVIF

@Suite struct AVIFCoderTests {
    @Test func detectsItsFormat() {
        #expect(AVIFCoder().decodableFormats.count == 1)
    }
}
