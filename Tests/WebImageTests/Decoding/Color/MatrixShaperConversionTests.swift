import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// The matrix-shaper fast path against Little CMS, code by code.
@Suite struct MatrixShaperConversionTests {
    @Test(arguments: [("Display P3", ColorReference.displayP3), ("Adobe RGB", ColorReference.adobeRGB)])
    func everyCodeIsWithinOneOfLittleCMS(_ name: String, _ icc: Data) throws {
        var grid: [UInt8] = []
        for r in stride(from: 0, through: 255, by: 5) {
            for g in stride(from: 0, through: 255, by: 5) {
                for b in stride(from: 0, through: 255, by: 5) { grid += [UInt8(r), UInt8(g), UInt8(b), UInt8((r + b) & 255)] }
            }
        }
        let source = try #require(LittleCMSProfile(icc: icc)), sRGB = try #require(LittleCMSProfile.sRGB())
        let fast = try #require(MatrixShaperConversion(from: source, to: sRGB), "\(name) is a matrix-shaper profile")
        var ours = [UInt8](repeating: 0, count: grid.count)
        grid.withUnsafeBufferPointer { input in
            ours.withUnsafeMutableBufferPointer { fast.convert(input.baseAddress!, into: $0.baseAddress!, count: grid.count / 4) }
        }
        let reference = ColorReference.toSRGB(grid, from: icc)
        let worst = zip(ours, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(name): largest difference \(worst) codes")
        #expect(stride(from: 3, to: ours.count, by: 4).allSatisfy { ours[$0] == grid[$0] }, "alpha is copied")
    }

    @Test func tableProfilesAndGrayAreLeftToLittleCMS() throws {
        let cmyk = try #require(LittleCMSProfile(icc: ColorReference.cmykProfile()))
        #expect(MatrixShaperConversion(from: cmyk, to: try #require(LittleCMSProfile.sRGB())) == nil)
    }

    /// Each vector kernel this CPU runs (AVX-512, AVX2) computes what the scalar loop computes: the same bytes for
    /// every code of every channel, for colours far out of the destination's gamut, for a count that leaves a tail,
    /// and converting in place.
    @Test(arguments: [("Display P3 to sRGB", ColorReference.displayP3, false),
                      ("Adobe RGB to sRGB", ColorReference.adobeRGB, false),
                      ("sRGB to Display P3", ColorReference.sRGBProfile(), true)])
    func theVectorKernelGivesTheScalarLoopsBytes(_ name: String, _ icc: Data, _ toDisplayP3: Bool) throws {
        let source = try #require(LittleCMSProfile(icc: icc))
        let destination = try #require(
            toDisplayP3 ? LittleCMSProfile(icc: ColorProfile.displayP3.iccData) : LittleCMSProfile.sRGB())
        let conversion = try #require(MatrixShaperConversion(from: source, to: destination))
        #expect(conversion.usesVectorKernel == (MatrixShaperConversion.widestKernel > .scalar), "\(name)")
        var generator = SplitMix(seed: 7)
        var pixels: [UInt8] = []
        // Every code in each channel beside every code of the other two at their ends and middle.
        for code in 0..<256 {
            for other in [0, 128, 255] {
                pixels += [UInt8(code), UInt8(other), UInt8(255 - other), UInt8(code ^ 0x5A)]
                pixels += [UInt8(other), UInt8(code), UInt8(other), 255]
                pixels += [UInt8(255 - other), UInt8(other), UInt8(code), UInt8(code)]
            }
        }
        // Then noise; 32 001 pixels leave a tail of one after the kernels' blocks of 64 and 8.
        for _ in 0..<(32_001 - pixels.count / 4) {
            pixels += (0..<4).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        let count = pixels.count / 4
        var scalar = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { input in
            scalar.withUnsafeMutableBufferPointer {
                conversion.convert(input.baseAddress!, into: $0.baseAddress!, count: count, kernel: .scalar)
            }
        }
        let widest = MatrixShaperConversion.widestKernel
        let kernels = MatrixShaperConversion.Kernel.allCases.filter { $0 > .scalar && $0 <= widest }
        for kernel in kernels {
            var vector = [UInt8](repeating: 0, count: pixels.count)
            pixels.withUnsafeBufferPointer { input in
                vector.withUnsafeMutableBufferPointer {
                    conversion.convert(input.baseAddress!, into: $0.baseAddress!, count: count, kernel: kernel)
                }
            }
            let differing = zip(scalar, vector).filter { $0 != $1 }.count
            #expect(differing == 0, "\(name), \(kernel): \(differing) bytes differ")
            var inPlace = pixels
            inPlace.withUnsafeMutableBufferPointer {
                conversion.convert($0.baseAddress!, into: $0.baseAddress!, count: count, kernel: kernel)
            }
            let differingInPlace = zip(scalar, inPlace).filter { $0 != $1 }.count
            #expect(differingInPlace == 0, "\(name), \(kernel): converting in place, \(differingInPlace) bytes differ")
        }
        let changed = zip(scalar, pixels).filter { $0 != $1 }.count
        #expect(changed > pixels.count / 4, "\(name): the conversion changes colours (\(changed) bytes)")
    }
}

