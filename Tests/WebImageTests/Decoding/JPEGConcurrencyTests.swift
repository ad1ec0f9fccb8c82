import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGConcurrencyTests {
    /// Many decodes and encodes at once, sharing the TurboJPEG handle pools, all return the reference pixels.
    @Test func manyDecodesInATaskGroup() async throws {
        let coder = JPEGCoder()
        let names = ["baseline", "progressive", "restart", "extraneous-bytes"]
        let files = try names.map { try Fixtures.data("jpeg/\($0).jpg") }
        let reference = try JPEGReference.load("jpeg/baseline.ppm").rgba
        let corrupt = try Fixtures.data("jpeg/corrupt-restart.jpg")

        let results = try await withThrowingTaskGroup(of: (matched: Bool, refused: Bool).self) { group in
            for index in 0..<96 {
                group.addTask {
                    switch index % 3 {
                    case 0:
                        // Failures in between must not poison the handles other tasks receive.
                        do {
                            _ = try coder.decode(corrupt, options: DecodeOptions())
                            return (false, false)
                        } catch let error as ImageError {
                            return (false, error.code == .badImageData)
                        }
                    case 1:
                        let image = try coder.decode(files[index % files.count], options: DecodeOptions())
                        let again = try coder.decode(coder.encode(image, as: .jpeg, options: EncodeOptions()),
                                                     options: DecodeOptions())
                        return (again.size == image.size, false)
                    default:
                        let image = try coder.decode(files[index % files.count], options: DecodeOptions())
                        return (image.pixels.bytes == reference, false)
                    }
                }
            }
            var collected: [(matched: Bool, refused: Bool)] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 96)
        #expect(results.filter(\.matched).count == 64)
        #expect(results.filter(\.refused).count == 32)
    }
}
