import Foundation
import FuzzSupport
@testable import WebImage

/// `data:` URL parsing (media type, `;base64`, percent escapes, the size limit) on any text.
/// The first byte picks the size limit, so that both sides of the limit check are reached.
func fuzzDataURL(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let limitChoice = bytes.first else { return 0 }
    let maximumSize = Int(limitChoice) * 16
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    // With and without the scheme, so that inputs without it still reach the payload parser.
    for candidate in [text, "data:" + text] {
        if let decoded = try? DataURLImageLoader.decode(candidate, maximumSize: maximumSize) {
            precondition(!decoded.data.isEmpty && decoded.data.count <= maximumSize,
                         "decoded \(decoded.data.count) bytes with a limit of \(maximumSize)")
        }
    }
    return 0
}
