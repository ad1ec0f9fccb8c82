import Foundation
import FuzzSupport
import WebImage
import WebImageHEIF

/// Whether to decode pixels too. Off unless `FUZZ_HEIF_DECODE=1`: libde265 1.0.11 recurses without bound on some
/// corrupt HEVC streams (a stack overflow this harness found in 20 s; `Fuzz/known-crashes/`), so with decoding on
/// every run ends in that library bug rather than in our code. The CI pass fuzzes the box scan, the properties
/// reader and libheif's parser; long runs can turn decoding on.
private let decodesPixels = ProcessInfo.processInfo.environment["FUZZ_HEIF_DECODE"] == "1"

/// The HEIF/HEIC coder (libheif with libde265) on any bytes: the header-only properties reader, then (see
/// ``decodesPixels``) the full decode with fuzzer-chosen options (the thumbnail choice takes the
/// embedded-thumbnail path).
func fuzzHEIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let data = input.payload
    let coder = HEIFCoder()
    _ = try? coder.properties(of: data)
    if decodesPixels { _ = try? coder.decode(data, options: options) }
    return 0
}
