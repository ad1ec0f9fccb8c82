import Foundation

// The typed keys of the manager's stages above the transfer stage (keyed by TransferStage.Key). Two loads share
// a stage's work exactly when its keys are equal: the decode stage when they decode the same transfer's bytes the
// same way, the final stage when they also look up, transform and store the same way.

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

/// The decode stage: the loaded bytes decoded with these options by these coders.
struct DecodeTaskKey: Hashable, Sendable {
    let transfer: TransferStage.Key
    /// Set when the context holds a response modifier or decryptor: closures cannot be compared, so the bytes
    /// decoded (the transfer's, after those hooks) are nobody else's.
    let unique: Int?
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

