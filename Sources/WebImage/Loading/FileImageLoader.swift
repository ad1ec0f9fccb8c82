import Foundation

/// Loads `file://` URLs from the local file system, in chunks so progress is reported and a cancelled task
/// stops between chunks. The file is examined, opened and read on the I/O lanes (`IOExecutor`), never on the
/// thread that runs the task: a slow disk must not stall the cooperative pool, or, in `webimage serve`, an event
/// loop.
///
/// A missing file, a directory or other non-regular file, and a file that cannot be opened each fail with
/// `ImageError.Code.io` and a message saying which; an empty file is `ImageError.Code.badImageData`; a file
/// over the request's size limit is `ImageError.Code.responseTooLarge` (checked before reading).
public struct FileImageLoader: ImageLoader {
    /// Bytes read per step.
    public var chunkSize: Int

    /// Creates a file loader reading `chunkSize` bytes at a time (default 256 KB).
    public init(chunkSize: Int = 256 * 1024) {
        self.chunkSize = max(4096, chunkSize)
    }

    /// `file` URLs with a path.
    public func canLoad(_ url: URL) -> Bool {
        url.isFileURL && !url.path.isEmpty
    }

    public func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        let url = request.url
        guard canLoad(url) else { throw ImageError(.invalidURL, "not a file URL: \(url.absoluteString)") }
        let io = IOExecutor.shared
        // One file's steps on one lane, in order.
        let lane = url.path.hashValue
        let (path, size) = try await io.run(lane: lane) {
            let path = url.resolvingSymlinksInPath().path
            return (path, try Self.regularFileSize(at: path))
        }
        guard size <= request.maximumBodySize else {
            throw ImageError(.responseTooLarge, "\(path) has \(size) bytes, over the limit of \(request.maximumBodySize)")
        }
        guard size > 0 else { throw ImageError(.badImageData, "\(path) is empty") }
        let handle: FileHandle
        do {
            handle = try await io.run(lane: lane) { try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) }
        } catch {
            throw ImageError(.io, "\(path) cannot be read: \(error.localizedDescription)")
        }
        defer { try? handle.close() }

        var data = Data()
        data.reserveCapacity(size)
        let expected = Int64(size)
        let metadataURL = url
        do {
            while true {
                try Task.checkCancellation()
                let limit = min(chunkSize, request.maximumBodySize + 1 - data.count)
                guard limit > 0, let chunk = try await io.run(lane: lane, { try handle.read(upToCount: limit) }),
                      !chunk.isEmpty else { break }
                data.append(chunk)
                progress?(ImageLoadProgress(receivedBytes: Int64(data.count), expectedBytes: expected,
                                            partialData: request.wantsPartialData ? data : nil))
            }
        } catch is CancellationError {
            throw ImageError(.cancelled, "loading \(path) was cancelled")
        } catch {
            throw ImageError(.io, "reading \(path) failed: \(error.localizedDescription)")
        }
        guard data.count <= request.maximumBodySize else {
            throw ImageError(.responseTooLarge, "\(path) grew past the limit of \(request.maximumBodySize) bytes")
        }
        guard !data.isEmpty else { throw ImageError(.badImageData, "\(path) is empty") }
        let format = ImageFormat.detect(data)
        let metadata = ImageResponseMetadata(url: metadataURL, statusCode: 200,
                                             mimeType: format == .unknown ? nil : format.mimeType,
                                             expectedContentLength: Int64(data.count))
        return ImageLoadResponse(data: data, metadata: metadata)
    }

    /// The size of the regular file at `path`, or a typed error for a missing path or a non-regular file.
    private static func regularFileSize(at path: String) throws -> Int {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) {
                throw ImageError(.io, "no such file: \(path)")
            }
            throw ImageError(.io, "\(path) cannot be examined: \(error.localizedDescription)")
        }
        let type = attributes[.type] as? FileAttributeType
        if type == .typeDirectory { throw ImageError(.io, "\(path) is a directory") }
        guard type == .typeRegular else { throw ImageError(.io, "\(path) is not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        return size
    }
}
