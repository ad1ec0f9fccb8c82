import Foundation

extension ImageCoders {
    /// Decodes `data` as ``decode(_:options:)-(Data,_)`` does, on `executor`'s threads once it has a free slot (higher
    /// priorities first): the calling task waits without holding a thread, so an `async` request handler stays
    /// free for other requests while a large image decodes. ``decode(_:options:)-(Data,_)`` itself runs on the calling
    /// thread.
    ///
    /// Throws what ``decode(_:options:)-(Data,_)`` throws, `ImageError.Code.cancelled` when the task is cancelled while
    /// it waits, and ``SlotQueueFull`` when `executor`'s line is full.
    public func decode(_ data: Data, options: DecodeOptions = DecodeOptions(), on executor: CPUExecutor,
                       priority: ImagePriority = .normal) async throws -> Image {
        try await executor.run(priority: priority) { try self.decode(data, options: options) }
    }

    /// Encodes `image` as ``encode(_:as:options:)`` does, on `executor`'s threads once it has a free slot; throws
    /// as ``decode(_:options:on:priority:)-(Data,_,_,_)`` does.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions(),
                       on executor: CPUExecutor, priority: ImagePriority = .normal) async throws -> Data {
        try await executor.run(priority: priority) { try self.encode(image, as: format, options: options) }
    }
}

extension ImageTransformer {
    /// `image` transformed as ``transform(_:)`` does, on `executor`'s threads once it has a free slot; throws as
    /// ``ImageCoders/decode(_:options:on:priority:)-(Data,_,_,_)`` does.
    public func transform(_ image: Image, on executor: CPUExecutor, priority: ImagePriority = .normal) async throws
        -> Image
    {
        try await executor.run(priority: priority) { try self.transform(image) }
    }
}
