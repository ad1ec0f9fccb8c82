import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

/// Fixtures written by cjxl and their references decoded by djxl and Pillow (see Fixtures/README.md).
enum JXLFixtures {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// Every JPEG XL fixture.
    static let all = [
        "still-lossless", "alpha-lossless-container", "photo-lossy", "gray-lossless", "anim", "anim-gif", "oriented",
    ]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent("\(name).jxl"))
    }

    /// The reference RGBA bytes: every frame, one after another.
    static func reference(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent("\(name).rgba")))
    }

    static func decode(_ name: String, _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try JXLCoder().decode(data(name), options: options)
    }
}

/// Peak signal-to-noise ratio of two equal-length RGBA byte arrays, in dB (infinity when equal).
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count)
    var sum = 0.0
    for index in a.indices {
        let difference = Double(a[index]) - Double(b[index])
        sum += difference * difference
    }
    guard sum > 0 else { return .infinity }
    return 10 * log10(255 * 255 / (sum / Double(a.count)))
}

/// A bare codestream whose size header declares `side`×`side` pixels, followed by default image metadata
/// (8-bit sRGB) and no frame: enough for libjxl's basic info, nothing to decode.
func hugeCodestreamHeader(side: Int) -> Data {
    var bits: [Bool] = []
    func put(_ value: Int, _ count: Int) { for bit in 0..<count { bits.append(value >> bit & 1 == 1) } }
    put(0, 1)  // div8: no
    put(3, 2)  // height: U32 selector 3, 30 bits of (height - 1)
    put(side - 1, 30)
    put(1, 3)  // ratio 1: width = height
    put(1, 1)  // all_default image metadata
    var bytes: [UInt8] = [0xFF, 0x0A]
    for start in stride(from: 0, to: bits.count, by: 8) {
        var byte: UInt8 = 0
        for (offset, bit) in bits[start..<min(start + 8, bits.count)].enumerated() where bit { byte |= 1 << offset }
        bytes.append(byte)
    }
    return Data(bytes + [UInt8](repeating: 0, count: 32))
}
