import Foundation

/// One image load as a value: the URL, the options, the context and the priority. The whole manager reads this
/// one value; ``ImageManager/loadImage(from:options:context:)-(URL?,_,_)`` and its siblings only build one.
///
/// ```swift
/// var request = ImageRequest(url: url, context: .init(thumbnailPixelSize: PixelSize(width: 200, height: 200)))
/// request.priority = .high
/// let result = try await manager.loadImage(request)
/// ```
public struct ImageRequest: Sendable {
    /// The image's URL; `nil` fails with `ImageError.Code.invalidURL`.
    public var url: URL?
    /// The switches (the two priority flags are read into ``priority`` when the request is made).
    public var options: ImageOptions
    /// The values: parts to use, sizes, cache types, request hooks.
    public var context: ImageContext
    /// How urgent the load is; work shared with other loads runs at the highest priority among them.
    public var priority: ImagePriority

    /// Creates a request. `priority` defaults to what `options` say (``ImageOptions/lowPriority``,
    /// ``ImageOptions/highPriority``), else `.normal`.
    public init(url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
                priority: ImagePriority? = nil) {
        self.url = url
        self.options = options.subtracting([.lowPriority, .highPriority])
        self.context = context
        self.priority = priority ?? options.priority
    }
}
