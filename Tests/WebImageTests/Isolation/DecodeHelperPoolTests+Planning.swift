import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Planned decodes through the helpers: the source's properties come back first, the caller plans from them, and
/// the helper decodes the source it kept, in one exchange.
extension DecodeHelperPoolTests {
    struct PlanRefusal: Error, Equatable { let index: Int }

    @Test func aPlannedDecodeHandsThePlanTheHelpersPropertiesAndDecodesWithItsOptions() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        for source in [try IsolationFixtures.heic("rotated"), try IsolationFixtures.tiff("alpha-unassociated"),
                       try IsolationFixtures.pdf("shapes")] {
            let expectedProperties = try Self.inProcess.properties(of: source)
            var seen: ImageProperties?
            let image = try coders.decode(source) { properties in
                seen = properties
                // A plan that depends on the header: a thumbnail a quarter of the source's width.
                return DecodeOptions(thumbnailPixelSize: PixelSize(width: properties.size.width / 4,
                                                                   height: properties.size.height / 4))
            }
            #expect(seen == expectedProperties)
            let quarter = PixelSize(width: expectedProperties.size.width / 4,
                                    height: expectedProperties.size.height / 4)
            let reference = try Self.inProcess.decode(source, options: DecodeOptions(thumbnailPixelSize: quarter))
            #expect(image.size == reference.size && image.pixels.bytes == reference.pixels.bytes)
        }
        // A fill box is planned from the header as well: the decode covers the box, then its centre is cut.
        let photo = try IsolationFixtures.heic("photo")
        let fill = DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30), thumbnailFill: true)
        let filled = try coders.decode(photo, options: fill)
        #expect(filled.size == PixelSize(width: 30, height: 30))
        #expect(filled.pixels.bytes == (try Self.inProcess.decode(photo, options: fill)).pixels.bytes)
        #expect(pool.restartCount == 0 && pool.busyCount == 0)
    }

    @Test func aPlanThatRefusesAndADecoderThatRefusesLeaveTheHelperServing() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let helper = pool.idleHelperIDs
        let photo = try IsolationFixtures.heic("photo")
        // The plan's own error comes back unchanged, and nothing is decoded.
        #expect(throws: PlanRefusal(index: 7)) { try coders.decode(photo) { _ in throw PlanRefusal(index: 7) } }
        // A header the decoder refuses never reaches the plan.
        var planned = false
        let refusal = #expect(throws: ImageError.self) {
            try coders.decode(Data("II*\0 not a tiff".utf8)) { _ in
                planned = true
                return DecodeOptions()
            }
        }
        #expect(refusal?.code == .badImageData && !planned)
        // The same helper answers the next planned decode: it was told to drop the abandoned source.
        let image = try coders.decode(photo) { _ in DecodeOptions() }
        #expect(image.pixels.bytes == (try Self.inProcess.decode(photo)).pixels.bytes)
        #expect(pool.idleHelperIDs == helper && pool.restartCount == 0 && pool.busyCount == 0)
    }

    @Test func aHelperThatHangsBeforeItsPropertiesIsReplacedAndThePlanIsNeverAsked() throws {
        let pool = try Self.pool(size: 1, timeout: .seconds(10), extraArguments: ["--test-hang-marker", "HANG"])
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let hanging = Data([0x49, 0x49, 0x2A, 0x00]) + Data("HANG".utf8)
        var planned = false
        let error = #expect(throws: ImageError.self) {
            try coders.decode(hanging) { _ in
                planned = true
                return DecodeOptions()
            }
        }
        #expect(error?.code == .badImageData && error?.message.contains("stopped") == true && !planned)
        #expect(pool.restartCount == 1 && pool.busyCount == 0)
    }

    @Test func thousandsOfPlannedDecodesWithRefusingPlansAreAllAnsweredOnTwoHelpers() async throws {
        let pool = try Self.pool(size: 2)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let sources = [try IsolationFixtures.tiff("gray8"), try IsolationFixtures.heic("alpha")]
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8))
        let expected = try sources.map { try Self.inProcess.decode($0, options: thumbnail).pixels.bytes }
        let count = 2_000
        let outcomes = Locked<[Int: Result<[UInt8], any Error>]>([:])
        await IsolationFixtures.runOnThreads(12, count: count) { index in
            let outcome = Result { () throws -> [UInt8] in
                try coders.decode(sources[index % 2]) { _ in
                    if index % 3 == 0 { throw PlanRefusal(index: index) }
                    return thumbnail
                }.pixels.bytes
            }
            outcomes.withLock { $0[index] = outcome }
        }
        let answered = outcomes.withLock { $0 }
        #expect(answered.count == count)
        var decoded = 0, refused = 0
        for (index, outcome) in answered {
            switch outcome {
            case .success(let bytes) where index % 3 != 0:
                if bytes == expected[index % 2] { decoded += 1 }
            case .failure(let error as PlanRefusal) where index % 3 == 0 && error.index == index:
                refused += 1
            default:
                Issue.record("request \(index) got \(outcome)")
            }
        }
        #expect(decoded == count - (count + 2) / 3 && refused == (count + 2) / 3)
        #expect(pool.restartCount == 0 && pool.busyCount == 0 && pool.idleHelperIDs.count == 2)
    }
}
