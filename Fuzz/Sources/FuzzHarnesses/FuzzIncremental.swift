import Foundation
import FuzzSupport
import WebImage

/// The incremental decoder with the input split at fuzzer-chosen points.
///
/// Input layout: byte 0 picks the decode options; byte 1's low 4 bits give n, the number of chunk lengths, and
/// its bit 4 asks for a partial image after every chunk; the next n bytes are chunk lengths (value + 1), used
/// in turn until the payload is used up; the rest is the payload.
func fuzzIncremental(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let shape = input.takeByte()
    let lengths = (0..<Int(shape & 0x0F)).map { _ in Int(input.takeByte()) + 1 }
    let wantsPartials = shape & 0x10 != 0
    let payload = input.payload

    let decoder = IncrementalDecoder(options: options, partialImagePolicy: .everyChange)
    var offset = 0
    var turn = 0
    while offset < payload.count {
        let length = lengths.isEmpty ? payload.count : lengths[turn % lengths.count]
        let end = min(payload.count, offset + length)
        do {
            try decoder.append(payload.subdata(in: offset..<end))
        } catch {
            // Once failed, the decoder keeps failing: every later call throws again.
            precondition((try? decoder.finish()) == nil, "finish() succeeded after append() failed")
            return 0
        }
        if wantsPartials { _ = decoder.currentImage() }
        offset = end
        turn += 1
    }
    _ = try? decoder.finish()
    return 0
}
