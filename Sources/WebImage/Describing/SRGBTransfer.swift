import Foundation

/// The sRGB transfer function, between 8-bit encoded values and linear light in 0...1, for code that averages or
/// sums colours (placeholder hashes) and must do it in light, not in encoded values.
enum SRGBTransfer {
    /// Linear light of each 8-bit encoded value, made once.
    static let linearOfByte: [Double] = (0..<256).map { linear(Double($0) / 255) }

    /// Linear light of an encoded value in 0...1.
    static func linear(_ encoded: Double) -> Double {
        encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
    }

    /// The 8-bit encoded value of linear light `value` (clamped to 0...1), rounded half up.
    static func byte(ofLinear value: Double) -> UInt8 {
        let v = min(max(value, 0), 1)
        let encoded = v <= 0.003_130_8 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(255, encoded * 255 + 0.5))
    }
}
