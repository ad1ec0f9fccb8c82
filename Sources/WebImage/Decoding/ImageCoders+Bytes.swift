import Foundation
import NIOCore

// Request bodies arrive in Vapor and Hummingbird as a `ByteBuffer`, and some callers hold plain `[UInt8]`: these
// take them as they come. The decoders read `Data`, so the bytes are copied into one once (a memory copy, small
// beside any decode).
extension ImageCoders {
    /// ``decode(_:options:)`` of a buffer's readable bytes (a request body, say); the buffer is not consumed.
    public func decode(_ buffer: ByteBuffer, options: DecodeOptions = DecodeOptions()) throws -> Image {
        try decode(Data(buffer.readableBytesView), options: options)
    }

    /// ``decode(_:options:)`` of `bytes`.
    public func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> Image {
        try decode(Data(bytes), options: options)
    }

    /// ``properties(of:)`` of a buffer's readable bytes, from the header only; the buffer is not consumed.
    public func properties(of buffer: ByteBuffer) throws -> ImageProperties {
        try properties(of: Data(buffer.readableBytesView))
    }

    /// ``decode(_:options:on:priority:)`` of a buffer's readable bytes, on `executor`'s threads; the buffer is
    /// not consumed.
    public func decode(_ buffer: ByteBuffer, options: DecodeOptions = DecodeOptions(), on executor: CPUExecutor,
                       priority: ImagePriority = .normal) async throws -> Image {
        try await decode(Data(buffer.readableBytesView), options: options, on: executor, priority: priority)
    }

    /// ``decode(_:options:on:priority:)`` of `bytes`, on `executor`'s threads.
    public func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions(), on executor: CPUExecutor,
                       priority: ImagePriority = .normal) async throws -> Image {
        try await decode(Data(bytes), options: options, on: executor, priority: priority)
    }
}
