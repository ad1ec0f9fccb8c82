import Testing
import WebImage

/// The ``ImageError`` code `body` threw, or `nil` when it returned. Any other error is recorded as a test
/// failure: coders throw ``ImageError`` and nothing else.
public func errorCode<T>(_ body: () throws -> T) -> ImageError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as ImageError {
        return error.code
    } catch {
        Issue.record("not an ImageError: \(error)")
        return nil
    }
}
