import Foundation
import FuzzSupport
@testable import WebImage

/// The EXIF orientation reader and directory on any bytes (with or without the `Exif\0\0` header): `nil` or a
/// valid orientation, text tags, an orientation set upright, never a read out of bounds.
func fuzzEXIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    if let orientation = EXIFReader.orientation(in: bytes) {
        precondition((1...8).contains(orientation.rawValue), "orientation \(orientation.rawValue) out of range")
    }
    let block = Data(bytes)
    if var directory = EXIFDirectory(block) {
        _ = directory.text(of: EXIFDirectory.copyrightTag)
        if directory.setOrientationUp() {
            precondition(directory.data.count == EXIFDirectory(block)?.data.count, "setting the orientation resized")
        }
    }
    return 0
}
