import CoderTestSupport
import Foundation
import NIOCore
import Testing
import WebImage

/// A request body's `ByteBuffer` and plain `[UInt8]` decode as the same bytes in `Data` do.
@Suite struct ImageCodersBytesTests {
    @Test func aBufferAndAnArrayDecodeAsTheirData() async throws {
        let data = try GrainyPhoto.jpeg(width: 64, height: 48, progressive: false)
        var buffer = ByteBufferAllocator().buffer(capacity: data.count + 5)
        // Bytes already read from the buffer are not part of the image.
        buffer.writeBytes([1, 2, 3, 4, 5])
        buffer.moveReaderIndex(forwardBy: 5)
        buffer.writeBytes(data)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        let expected = try ImageCoders.shared.decode(data, options: options)
        let fromBuffer = try ImageCoders.shared.decode(buffer, options: options)
        let fromArray = try ImageCoders.shared.decode(Array(data), options: options)
        let onExecutor = try await ImageCoders.shared.decode(buffer, options: options, on: .shared)
        for image in [fromBuffer, fromArray, onExecutor] {
            #expect(image.size == expected.size)
            #expect(image.pixels.withUnsafeBytes { Array($0) } == expected.pixels.withUnsafeBytes { Array($0) })
        }
        #expect(try ImageCoders.shared.properties(of: buffer).size == PixelSize(width: 64, height: 48))
        #expect(buffer.readableBytes == data.count)
        let empty = ByteBufferAllocator().buffer(capacity: 0)
        #expect(throws: ImageError.self) { try ImageCoders.shared.decode(empty) }
    }
}
