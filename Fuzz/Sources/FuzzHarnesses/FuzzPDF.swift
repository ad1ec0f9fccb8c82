import Foundation
import FuzzSupport
import WebImage
import WebImagePDF

/// The PDF coder (poppler's parser and cairo renderer, our page choice, limits and pixel conversion) on any
/// bytes: the properties reader, then one page chosen by the second byte, with decode options from the first.
func fuzzPDF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var options = FuzzLimits.options(choice: input.takeByte())
    options.frameIndex = Int(input.takeByte() % 4)
    let data = input.payload
    let properties = try? PDFCoder().properties(of: data)
    if let image = try? PDFCoder().decode(data, options: options) {
        precondition(!image.hasAlpha && image.frames.count == 1, "a PDF page is one opaque frame")
        if let properties, let page = options.frameIndex {
            precondition(page < properties.frameCount, "page \(page) of \(properties.frameCount) decoded")
        }
    }
    return 0
}
