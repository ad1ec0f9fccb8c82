import Foundation

/// BlurHash placeholders: an image reduced to a few cosine components of its colours (in linear light) and
/// written as a short base-83 string (6 characters for one component, 28 for 4 × 3, at most 164) that a client
/// draws as a blurred picture while the image loads.
///
/// The encoder reads every pixel it is given; the cost grows with the pixel count times the horizontal
/// components, so hash a thumbnail (100 px on the long side is plenty: the hash cannot hold more detail) rather
/// than a full decode. Alpha is ignored, as BlurHash's own encoders ignore it: flatten a transparent image onto
/// its background first if its hidden colours are not meant to show.
public enum BlurHash {
    /// The most components BlurHash has on either axis.
    public static let maximumComponents = BlurHashLimits.maximumComponents

    /// The BlurHash of `pixels` with `componentsX` × `componentsY` components (1 to 9 each; more components keep
    /// more detail and make a longer string). Throws `ImageError.Code.invalidParameter` for a count outside
    /// 1...9.
    public static func encode(_ pixels: PixelBuffer, componentsX: Int, componentsY: Int) throws -> String {
        let range = 1...maximumComponents
        guard range.contains(componentsX), range.contains(componentsY) else {
            throw ImageError(.invalidParameter,
                             "BlurHash takes 1 to 9 components on each axis, not \(componentsX)x\(componentsY)")
        }
        let factors = pixels.withUnsafeBytes {
            Self.factors(of: $0, width: pixels.width, height: pixels.height, componentsX: componentsX,
                         componentsY: componentsY)
        }
        var text: [UInt8] = []
        text.reserveCapacity(4 + 2 * factors.count)
        Base83.append((componentsX - 1) + (componentsY - 1) * 9, length: 1, to: &text)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if let largest = ac.map({ Swift.max(abs($0.x), abs($0.y), abs($0.z)) }).max() {
            let quantised = Int(Swift.min(82, Swift.max(0, (largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            Base83.append(quantised, length: 1, to: &text)
        } else {
            Base83.append(0, length: 1, to: &text)
        }
        let dc = factors[0]
        let dcValue = Int(SRGBTransfer.byte(ofLinear: dc.x)) << 16 | Int(SRGBTransfer.byte(ofLinear: dc.y)) << 8
            | Int(SRGBTransfer.byte(ofLinear: dc.z))
        Base83.append(dcValue, length: 4, to: &text)
        for factor in ac {
            func quantised(_ value: Double) -> Int {
                Int(Swift.min(18, Swift.max(0, (signedPower(value / maximum, 0.5) * 9 + 9.5).rounded(.down))))
            }
            Base83.append(quantised(factor.x) * 361 + quantised(factor.y) * 19 + quantised(factor.z), length: 2,
                          to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The picture `hash` describes, drawn at `width` × `height` (opaque). `punch` above 1 strengthens the
    /// contrast of the components, as BlurHash's decoders allow. Throws `ImageError.Code.badImageData` for a
    /// string that is not a BlurHash, `ImageError.Code.invalidParameter` for a punch that is not positive or a size
    /// under one pixel, and `ImageError.Code.imageTooLarge` for a size over ``DecodeLimits/default``'s.
    public static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) throws -> PixelBuffer {
        guard punch > 0, punch.isFinite else {
            throw ImageError(.invalidParameter, "a BlurHash punch must be positive, not \(punch)")
        }
        let (colours, componentsX, componentsY) = try components(of: hash, punch: punch)
        guard width > 0, height > 0 else {
            throw ImageError(.invalidParameter, "a BlurHash is drawn at 1x1 pixels or more, not \(width)x\(height)")
        }
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= DecodeLimits.default.maxPixels,
              max(width, height) <= PixelBuffer.maximumFilteredSide else {
            throw ImageError(.imageTooLarge, "a BlurHash drawn at \(width)x\(height) is over the pixel limit")
        }
        let columns = cosines(count: componentsX, length: width)
        let rows = cosines(count: componentsY, length: height)
        return try PixelBuffer(width: width, height: height) { bytes in
            var rowColours = [SIMD3<Double>](repeating: .zero, count: componentsX)
            var offset = 0
            for y in 0..<height {
                // The picture is separable: the vertical cosines fold into one colour per column component.
                for i in 0..<componentsX {
                    var sum = SIMD3<Double>.zero
                    for j in 0..<componentsY { sum += colours[j * componentsX + i] * rows[j * height + y] }
                    rowColours[i] = sum
                }
                for x in 0..<width {
                    var colour = SIMD3<Double>.zero
                    for i in 0..<componentsX { colour += rowColours[i] * columns[i * width + x] }
                    bytes[offset] = SRGBTransfer.byte(ofLinear: colour.x)
                    bytes[offset + 1] = SRGBTransfer.byte(ofLinear: colour.y)
                    bytes[offset + 2] = SRGBTransfer.byte(ofLinear: colour.z)
                    bytes[offset + 3] = 255
                    offset += 4
                }
            }
        }
    }

    /// The component colours `hash` holds (linear light, the first the average), scaled by `punch`, and their
    /// counts across and down.
    private static func components(of hash: String, punch: Double) throws
        -> (colours: [SIMD3<Double>], componentsX: Int, componentsY: Int) {
        let text = Array(hash.utf8)
        guard text.count >= 6, let sizeFlag = Base83.value(of: text, from: 0, length: 1) else {
            throw ImageError(.badImageData, "not a BlurHash: \(hash.prefix(40))")
        }
        let componentsX = sizeFlag % 9 + 1, componentsY = sizeFlag / 9 + 1
        let count = componentsX * componentsY
        guard text.count == 4 + 2 * count, let quantisedMaximum = Base83.value(of: text, from: 1, length: 1),
              let dc = Base83.value(of: text, from: 2, length: 4) else {
            throw ImageError(.badImageData, "not a BlurHash of \(componentsX)x\(componentsY) components: "
                             + "\(hash.prefix(40)) (\(text.count) characters, \(4 + 2 * count) expected)")
        }
        let maximum = Double(quantisedMaximum + 1) / 166 * punch
        var colours: [SIMD3<Double>] = [SIMD3(SRGBTransfer.linearOfByte[Swift.min(255, dc >> 16)],
                                              SRGBTransfer.linearOfByte[(dc >> 8) & 255],
                                              SRGBTransfer.linearOfByte[dc & 255])]
        for index in 1..<count {
            guard let value = Base83.value(of: text, from: 4 + 2 * index, length: 2) else {
                throw ImageError(.badImageData, "not a BlurHash: \(hash.prefix(40))")
            }
            func channel(_ quantised: Int) -> Double { signedPower((Double(quantised) - 9) / 9, 2) * maximum }
            colours.append(SIMD3(channel(value / 361), channel(value / 19 % 19), channel(value % 19)))
        }
        return (colours, componentsX, componentsY)
    }

    /// The cosine components of `bytes` in linear light, row-major (component `i`, `j` at `j * componentsX + i`),
    /// the first the average colour and the others doubled, as BlurHash scales them.
    private static func factors(of bytes: UnsafeRawBufferPointer, width: Int, height: Int, componentsX: Int,
                                componentsY: Int) -> [SIMD3<Double>] {
        let linear = SRGBTransfer.linearOfByte
        let columns = cosines(count: componentsX, length: width)
        let rows = cosines(count: componentsY, length: height)
        var factors = [SIMD3<Double>](repeating: .zero, count: componentsX * componentsY)
        var line = [SIMD3<Double>](repeating: .zero, count: width)
        var rowSums = [SIMD3<Double>](repeating: .zero, count: componentsX)
        for y in 0..<height {
            let start = y * width * 4
            for x in 0..<width {
                let offset = start + x * 4
                line[x] = SIMD3(linear[Int(bytes[offset])], linear[Int(bytes[offset + 1])],
                                linear[Int(bytes[offset + 2])])
            }
            // Separable: each row is summed against the horizontal cosines once, then spread over the vertical.
            for i in 0..<componentsX {
                var sum = SIMD3<Double>.zero
                for x in 0..<width { sum += line[x] * columns[i * width + x] }
                rowSums[i] = sum
            }
            for j in 0..<componentsY {
                let weight = rows[j * height + y]
                for i in 0..<componentsX { factors[j * componentsX + i] += rowSums[i] * weight }
            }
        }
        let area = Double(width * height)
        for index in factors.indices { factors[index] *= (index == 0 ? 1 : 2) / area }
        return factors
    }

    /// cos(π · k · p / length) for each component `k` below `count` and position `p`, at `k * length + p`.
    private static func cosines(count: Int, length: Int) -> [Double] {
        var values = [Double](repeating: 0, count: count * length)
        for k in 0..<count {
            for p in 0..<length { values[k * length + p] = cos(Double.pi * Double(k * p) / Double(length)) }
        }
        return values
    }

    private static func signedPower(_ value: Double, _ exponent: Double) -> Double {
        copysign(pow(abs(value), exponent), value)
    }
}
