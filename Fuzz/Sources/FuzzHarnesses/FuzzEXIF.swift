import Foundation
import FuzzSupport
@_spi(CoderSupport) import WebImage

/// The EXIF orientation reader on any bytes (with or without the `Exif\0\0` header): `nil` or a valid
/// orientation, never a read out of bounds.
func fuzzEXIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    if let orientation = EXIFReader.orientation(in: bytes) {
        precondition((1...8).contains(orientation.rawValue), "orientation \(orientation.rawValue) out of range")
    }
    return 0
}
