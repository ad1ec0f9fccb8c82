import Foundation
import Testing
@testable import WebImage

@Suite struct ImageFormatTests {
    @Test func detectsByMagicBytes() {
        #expect(ImageFormat.detect(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
    }
}
