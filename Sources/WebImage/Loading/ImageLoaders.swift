import Foundation

/// A registry of loaders that is itself a loader: a URL goes to the loader added last that can load it, so a
/// plugin can take over a scheme from a built-in loader (SDWebImage's `SDImageLoadersManager`).
public final class ImageLoaders: ImageLoader {
    private let registered: LastAddedFirstRegistry<any ImageLoader>

    /// A registry holding `loaders`, asked last to first.
    public init(_ loaders: [any ImageLoader] = []) {
        registered = LastAddedFirstRegistry(loaders)
    }

    /// The registered loaders in the order they are asked (last added first).
    public var loaders: [any ImageLoader] { registered.inAskingOrder }

    /// Registers `loader` ahead of every loader already here.
    public func add(_ loader: any ImageLoader) {
        registered.add(loader)
    }

    /// Removes every loader of the same type as `loader`.
    public func remove(_ loader: any ImageLoader) {
        registered.removeAll(ofTypeOf: loader)
    }

    /// The loader that would handle `url`, if any.
    public func loader(for url: URL) -> (any ImageLoader)? {
        registered.first { $0.canLoad(url) }
    }

    public func canLoad(_ url: URL) -> Bool {
        loader(for: url) != nil
    }

    /// Loads with the first loader that accepts the URL; `ImageError.Code.invalidURL` when none does.
    public func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        guard let loader = loader(for: request.url) else {
            throw ImageError(.invalidURL, "no loader handles \(request.url.absoluteString)")
        }
        return try await loader.load(request, progress: progress)
    }
}
