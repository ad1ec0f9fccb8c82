import Foundation
import FuzzSupport
@testable import WebImageProxyURL

/// The proxy's URL reading on any text: the path's segments, the processing options (with a few presets that
/// name each other), the output extension, and signature checking. Nothing may crash or trap; a path that reads
/// reads the same twice (the cache key is a function of the URL); a signature made for a path is accepted and
/// one changed byte of it is not.
func fuzzProxyURL(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let path = text.hasPrefix("/") ? text : "/" + text
    if let parsed = try? ProxyPath(parsing: path) {
        precondition(parsed.signedPart.hasPrefix("/"), "the signed part \(parsed.signedPart) does not start with /")
        for onlyPresets in [false, true] {
            if let options = try? ProcessingOptions(segments: parsed.options, presets: presets, onlyPresets: onlyPresets) {
                let again = try? ProcessingOptions(segments: parsed.options, presets: presets, onlyPresets: onlyPresets)
                precondition(again?.cacheKey == options.cacheKey, "one URL read two ways: \(parsed.options)")
            }
        }
        let signature = signer.signature(for: parsed.signedPart[...])
        precondition(signer.isValid(signature[...], for: parsed.signedPart[...]), "its own signature refused")
        var tampered = Array(signature.utf8)
        if !tampered.isEmpty {
            tampered[0] = tampered[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            precondition(!signer.isValid(String(decoding: tampered, as: UTF8.self)[...], for: parsed.signedPart[...]),
                         "a changed signature accepted")
        }
        _ = signer.isValid(parsed.signature[...], for: parsed.signedPart[...])
    }
    // The text as a presets file, too.
    _ = try? ProxyPresets(fileContents: text)
    return 0
}

private let presets: ProxyPresets = {
    (try? ProxyPresets(fileContents: "default=q:80\nthumb=rs:fill:100:100/pr:sharp\nsharp=sh:0.5\nloop=pr:loop\n"))
        ?? ProxyPresets()
}()

/// A fixed key and salt (valid hex, so the initializer cannot fail for them; a failure ends the run at once).
private let signer: URLSignature = {
    guard let signer = try? URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f") else {
        preconditionFailure("the harness's own key and salt were refused")
    }
    return signer
}()
