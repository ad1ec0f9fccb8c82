import Foundation
import Testing
import WebImage
import WebImageSVG

@Suite struct SVGCoderTests {
    @Test func detectsItsFormat() {
        #expect(SVGCoder().decodableFormats.count == 1)
    }
}
