import Foundation
import FuzzSupport
import WebImage

/// The BMP decoder (header parser, palette and bit-field unpackers, RLE4/RLE8) and its header-only properties
/// reader on any bytes. The first byte picks the decode options. A decode that succeeds must agree with the
/// properties read from the same bytes.
func fuzzBMP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let data = input.payload
    let properties = try? BMPCoder().properties(of: data)
    if let image = try? BMPCoder().decode(data, options: DecodeOptions(limits: FuzzLimits.decode)) {
        precondition(properties?.size == image.size, "BMP properties disagree with the decode on the size")
        precondition(properties?.hasAlpha == image.hasAlpha, "BMP properties disagree with the decode on alpha")
    }
    _ = try? BMPCoder().decode(data, options: options)
    return 0
}
