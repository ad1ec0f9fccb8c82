import Foundation

/// Anything that shows one image at a time: a view, a layer, a table cell, a test double. Conforming gives it
/// ``setImage(with:placeholder:options:context:targetOptions:operationKey:manager:completion:)`` — what
/// `UIImageView+WebCache` gives image views — for any class on the main actor.
///
/// ```swift
/// final class AvatarView: ImageTarget {
///     let imageLoading = ImageTargetState()
///     func display(_ image: Image?, cacheType: ImageCacheType?) { … draw it … }
/// }
/// avatar.setImage(with: url, placeholder: silhouette)
/// ```
///
/// The latest request always wins: starting a load cancels the earlier one of the same operation key, and a
/// completion that arrives late never replaces a newer image.
@MainActor
public protocol ImageTarget: AnyObject, Sendable {
    /// Where the target's loads are tracked; a stored `let imageLoading = ImageTargetState()` is all it takes.
    var imageLoading: ImageTargetState { get }
    /// Shows `image` (`nil` clears). `cacheType` says where it came from: `nil` for placeholders and previews.
    func display(_ image: Image?, cacheType: ImageCacheType?)
}

/// The loads a target has running, by operation key, and a counter that tells the latest from stale ones.
@MainActor
public final class ImageTargetState {
    private var operations: [String: (task: ImageTask?, generation: Int)] = [:]
    private var generation = 0

    /// Creates an empty state.
    public nonisolated init() {}

    /// The URL of the load running (or last started) for `operationKey`.
    public private(set) var urls: [String: URL] = [:]

    /// Starts a new generation for `key`, cancelling the load it replaces; returns the generation.
    func begin(_ key: String, url: URL?) -> Int {
        operations[key]?.task?.cancel()
        generation += 1
        operations[key] = (nil, generation)
        urls[key] = url
        return generation
    }

    func attach(_ task: ImageTask, key: String, generation: Int) {
        guard isCurrent(generation, key: key) else { return }
        operations[key] = (task, generation)
    }

    func isCurrent(_ generation: Int, key: String) -> Bool {
        operations[key]?.generation == generation
    }

    /// Whether the load of `generation` is current and has not completed (previews are welcome).
    func isRunning(_ generation: Int, key: String) -> Bool {
        guard let operation = operations[key] else { return false }
        return operation.generation == generation && operation.task != nil
    }

    func end(_ key: String, generation: Int) {
        guard isCurrent(generation, key: key) else { return }
        operations[key] = (nil, generation)
    }

    /// Cancels the load for `key`; a completion still on its way is ignored.
    func cancel(_ key: String) {
        operations[key]?.task?.cancel()
        generation += 1
        operations[key] = (nil, generation)
    }
}
