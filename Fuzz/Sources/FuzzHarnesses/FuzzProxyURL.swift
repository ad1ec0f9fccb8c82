import Foundation
import FuzzSupport
@testable import WebImageProxyURL

/// The proxy's URL reading on any text: the path's segments (both forms, and the only-presets form), the
/// processing options (with presets that name each other and one that names itself, security options allowed
/// or not), the output extension, and signature checking. Nothing may crash or trap; a path that reads reads the
/// same twice (the cache key is a function of the URL), and its restored form reads as itself (undoing a CDN's
/// rewriting is done once); a signature made for a path is accepted and one changed byte of it is not.
func fuzzProxyURL(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let path = text.hasPrefix("/") ? text : "/" + text
    for onlyPresets in [false, true] {
        guard let parsed = try? ProxyPath(parsing: path, onlyPresets: onlyPresets) else { continue }
        let restored = try? ProxyPath(parsing: "/" + parsed.signature + parsed.signedPart, onlyPresets: onlyPresets)
        precondition(restored == parsed, "a restored path reads differently: \(parsed.signedPart)")
        for allowsSecurityOptions in [false, true] {
            let rules = ProcessingOptions.ParsingRules(presets: presets, onlyPresets: onlyPresets,
                                                       allowsSecurityOptions: allowsSecurityOptions)
            if let options = try? ProcessingOptions(segments: parsed.options, rules: rules) {
                let again = try? ProcessingOptions(segments: parsed.options, rules: rules)
                precondition(again?.cacheKey == options.cacheKey, "one URL read two ways: \(parsed.options)")
            }
        }
    }
    if let parsed = try? ProxyPath(parsing: path) {
        precondition(parsed.signedPart.hasPrefix("/"), "the signed part \(parsed.signedPart) does not start with /")
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
    guard let presets = try? ProxyPresets(fileContents:
        "default=q:80\nthumb=rs:fill:100:100/pr:sharp\nsharp=sh:0.5/pr:thumb\nloop=pr:loop\nsafe=msr:1\n")
    else { preconditionFailure("the harness's own presets were refused") }
    return presets
}()

/// A fixed key and salt (valid hex, so the initializer cannot fail for them; a failure ends the run at once).
private let signer: URLSignature = {
    guard let signer = try? URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f") else {
        preconditionFailure("the harness's own key and salt were refused")
    }
    return signer
}()
