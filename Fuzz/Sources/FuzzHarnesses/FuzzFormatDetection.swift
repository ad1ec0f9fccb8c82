import Foundation
import FuzzSupport
import WebImage

/// Format detection reads only the first bytes of any input: it must never trap or read past the end, and the
/// `Data` and raw-bytes entry points must agree.
func fuzzFormatDetection(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let fromBytes = ImageFormat.detect(bytes: bytes)
    let fromData = ImageFormat.detect(Data(bytes))
    // A failed check is how a harness reports a finding to libFuzzer.
    precondition(fromBytes == fromData, "detect(bytes:) says \(fromBytes), detect(_:) says \(fromData)")
    return 0
}
