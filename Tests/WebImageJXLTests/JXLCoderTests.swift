import Foundation
import Testing
import WebImage
import WebImageJXL

@Suite struct JXLCoderTests {
    @Test func detectsItsFormat() {
        #expect(JXLCoder().decodableFormats.count == 1)
    }
}
