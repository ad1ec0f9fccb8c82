import Foundation
import Testing
import WebImage
import WebImageAVIF
import WebImageServer

/// What isolation costs per decode: the median of many decodes of small files in a helper against the same
/// decodes in this process. Prints its numbers and asserts nothing about them; it runs only when
/// `WEBIMAGE_ISOLATION_BENCHMARK=1` (a measurement, not a test).
@Suite struct DecodeIsolationCost {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_ISOLATION_BENCHMARK"] == "1"))
    func medianCostPerDecode() throws {
        let pool = try DecodeHelperPoolTests.pool(size: 1)
        let isolated = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool,
                                             behind: DecodeHelperPoolTests.inProcess)
        let inProcess = ImageCoders(coders: DecodeHelperPoolTests.inProcess.coders.reversed() + [AVIFCoder()])
        // A 1080p frame shows what carrying 8 MB of pixels through a pipe costs.
        let gradient = try PixelBuffer(width: 1920, height: 1080) { bytes in
            for index in 0..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index / 4 % 1920 + index % 4 * 60) }
        }
        let large = try AVIFCoder().encode(Image(pixels: gradient), as: .avif, options: EncodeOptions(quality: 0.6))
        let inputs = [("HEIC", try IsolationFixtures.heic("photo"), 300),
                      ("TIFF", try IsolationFixtures.tiff("gray8"), 300),
                      ("PDF", try IsolationFixtures.pdf("shapes"), 300),
                      ("AVIF", large, 31)]
        for (name, data, runs) in inputs {
            let size = try inProcess.decode(data).size
            let here = try Self.median(runs) { _ = try inProcess.decode(data) }
            let there = try Self.median(runs) { _ = try isolated.decode(data) }
            let propertiesHere = try Self.median(runs) { _ = try inProcess.properties(of: data) }
            let propertiesThere = try Self.median(runs) { _ = try isolated.properties(of: data) }
            print("isolation cost, \(name) \(size), median of \(runs): decode \(here) µs in process, "
                  + "\(there) µs in a helper (+\(there - here)); properties \(propertiesHere) µs in process, "
                  + "\(propertiesThere) µs in a helper (+\(propertiesThere - propertiesHere))")
        }
    }

    static func median(_ runs: Int, _ body: () throws -> Void) throws -> Int {
        try body()  // warm-up
        var samples: [Int] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            try body()
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            samples.append(Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
        }
        return samples.sorted()[runs / 2]
    }
}
