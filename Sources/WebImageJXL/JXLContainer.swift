import WebImage

/// The ISO BMFF box layout of a JPEG XL container, walked only to see that the data is whole.
///
/// libjxl stops reading as soon as it has emitted every subscribed event, so a header read (which never asks for
/// pixels) would accept a file cut inside its last frame. The container's boxes state their sizes: one that runs
/// past the end of the data shows the cut without decoding anything. A bare codestream has no such sizes; there
/// only a cut inside the headers (or inside an earlier frame, which libjxl must skip over) is seen.
enum JXLContainer {
    /// The 12-byte `JXL ` signature box every container starts with.
    static let signature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Throws ``ImageError/Code/badImageData`` when `bytes` is a container whose boxes do not fit in it exactly.
    /// Bare codestreams pass unchecked.
    static func checkWhole(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= signature.count, bytes.prefix(signature.count).elementsEqual(signature) else { return }
        switch ISOBMFFBoxes.walk(bytes, limit: .max).end {
        case .complete, .limit:
            return
        case .cut(let offset):
            throw cut(at: offset)
        case .badSize(let offset):
            throw ImageError(.badImageData, "JPEG XL: a container box at byte \(offset) has a bad size")
        }
    }

    private static func cut(at offset: Int) -> ImageError {
        ImageError(.badImageData, "JPEG XL: the data ends inside the container box at byte \(offset)")
    }
}
