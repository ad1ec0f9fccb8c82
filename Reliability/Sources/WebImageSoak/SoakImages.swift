import Foundation
import WebImage

/// The soak's images: `count` distinct PNGs whose colour and size follow from their index, so anything read
/// back from the cache can be checked against what it must be.
enum SoakImages {
    static func color(of index: Int) -> RGBA {
        RGBA(UInt8(index % 251), UInt8((index * 7) % 253), UInt8((index * 13) % 255))
    }

    static func size(of index: Int) -> PixelSize {
        PixelSize(width: 64 + index % 7 * 32, height: 48 + index % 5 * 32)
    }

    static func png(_ index: Int) throws -> Data {
        let size = size(of: index)
        let pixels = try PixelBuffer(width: size.width, height: size.height, filledWith: color(of: index))
        return try ImageCoders.shared.encode(Image(pixels: pixels), as: .png)
    }

    /// Whether `image` is exactly image `index`.
    static func matches(_ image: Image, index: Int) -> Bool {
        guard image.size == size(of: index) else { return false }
        let expected = color(of: index)
        let pixels = image.pixels
        return pixels[0, 0] == expected && pixels[pixels.width - 1, pixels.height - 1] == expected
            && pixels[pixels.width / 2, pixels.height / 2] == expected
    }
}

/// Process resources the soak watches.
enum ProcessProbe {
    /// Open file descriptors.
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Resident memory in bytes.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    /// Threads of this process.
    static func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }
}
