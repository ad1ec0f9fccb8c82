import Foundation
import FuzzSupport
import WebImage

/// The WebP decoder, still and animated (WebPDecode and WebPAnimDecoder), on any bytes.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    _ = try? WebPCoder().decode(input.payload, options: options)
    return 0
}


/// The entry point SwiftPM's debug build links as `main`; see `runFuzzDriver`.
@_cdecl("FuzzWebP_main")
public func fuzzWebPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzDriver(argc, argv, fuzzWebP)
}
