import Foundation
import FuzzSupport
import WebImage

/// The JPEG decoder (TurboJPEG, EXIF orientation, CMYK, DCT scaling) on any bytes: a typed error or an image.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    _ = try? JPEGCoder().decode(input.payload, options: options)
    return 0
}


/// The entry point SwiftPM's debug build links as `main`; see `runFuzzDriver`.
@_cdecl("FuzzJPEG_main")
public func fuzzJPEGMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzDriver(argc, argv, fuzzJPEG)
}
