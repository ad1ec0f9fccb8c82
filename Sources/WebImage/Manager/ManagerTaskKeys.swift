import Foundation

// The typed keys of the manager's three stages. Two loads share a stage's work exactly when its keys are equal:
// the data stage when they would send the same request through the same loader, the decode stage when they also
// decode the same way, the final stage when they also look up, transform and store the same way.

/// Who a part (loader, cache, coders) is: the instance for a class, the type for a value (values of one type
/// with equal settings behave alike).
struct PartIdentity: Hashable, Sendable {
    private let type: ObjectIdentifier
    private let instance: ObjectIdentifier?

    init(_ part: Any) {
        let dynamicType = Swift.type(of: part)
        type = ObjectIdentifier(dynamicType)
        instance = dynamicType is AnyObject.Type ? ObjectIdentifier(part as AnyObject) : nil
    }
}

/// The data stage: one load of one request.
struct DataTaskKey: Hashable, Sendable {
    let request: ImageLoadKey
    let loader: PartIdentity
    let wantsPartialData: Bool
    /// Set when the context holds a response modifier or decryptor: closures cannot be compared, so such a load
    /// shares with nobody.
    let unique: Int?
}

/// The decode stage: the loaded bytes decoded with these options by these coders.
struct DecodeTaskKey: Hashable, Sendable {
    let data: DataTaskKey
    let decodeOptions: DecodeOptions
    let coders: PartIdentity
    let progressive: Bool
}

/// The final stage: cache lookups, the decode it depends on, the transform, the stores.
struct FinalImageTaskKey: Hashable, Sendable {
    let finalCacheKey: String
    let originalCacheKey: String
    let options: ImageOptions
    let decodeOptions: DecodeOptions
    let cacheTypes: [ImageCacheType]
    let headers: [String]
    let credentials: BasicCredentials?
    let timeout: Duration?
    let parts: [PartIdentity]
    /// Set when the context holds hooks that cannot be compared (request or response modifier, decryptor, cache
    /// serializer): such a load shares with nobody.
    let unique: Int?
}

