import Foundation
import FuzzSupport
import WebImage
import WebImageHEIF

/// The HEIF/HEIC coder (libheif with libde265) on any bytes: the full decode with fuzzer-chosen options (the
/// thumbnail choice takes the embedded-thumbnail path), then the header-only properties reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let data = input.payload
    let coder = HEIFCoder()
    _ = try? coder.decode(data, options: options)
    _ = try? coder.properties(of: data)
    return 0
}

/// The entry point SwiftPM's debug build links as `main`; see `runFuzzDriver`.
@_cdecl("FuzzHEIF_main")
public func fuzzHEIFMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzDriver(argc, argv, fuzzHEIF)
}
