import CoderTestSupport
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// `/info` (imgproxy Pro's info endpoint): what the source is, as JSON, from its header alone when nothing asked
/// for needs more, checked and signed like every URL.
@Suite struct ProxyInfoTests {
    /// `/info/_/OPTIONS/plain/SOURCE` for the origin's file `name`.
    static func infoPath(_ harness: ProxyHarness, _ options: [String], _ name: String, path: String = "/files/")
        -> String
    {
        "/info" + harness.plainPath(options, name, path: path)
    }

    static func json(_ response: ProxyResponse) throws -> [String: Any] {
        #expect(response.status == 200, "\(String(buffer: response.body))")
        #expect(response.headers[.contentType] == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any])
    }

    /// Where a JPEG's first scan header ends: its header, in bytes.
    static func headerLength(of jpeg: Data) -> Int? {
        let bytes = [UInt8](jpeg)
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            let end = position + 2 + (Int(bytes[position + 2]) << 8 | Int(bytes[position + 3]))
            if marker == 0xDA { return end }
            position = end
        }
        return nil
    }

    @Test func aLargePhotosSizeFormatAndTurnedDimensionsComeFromItsHeaderAlone() async throws {
        var image = Image(pixels: try GrainyPhoto.pixels(width: 2400, height: 1800))
        image.metadata = MetadataSamples.all  // EXIF orientation 6: stored turned
        let source = try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.9))
        let header = try #require(Self.headerLength(of: source))
        try await ProxyHarness.with { harness in
            harness.origin.serve("big.jpg", data: source, contentType: "image/jpeg")
            // The origin sends the header and a few bytes more, then nothing until the proxy leaves: the answer
            // can only come if the header was all it read.
            let sent = header + 16
            let info = try Self.json(await harness.get(Self.infoPath(harness, [], "big.jpg?after=\(sent)",
                                                                     path: "/stall-once/")))
            #expect(info["size"] as? Int == source.count)
            #expect(info["format"] as? String == "jpeg" && info["mime_type"] as? String == "image/jpeg")
            #expect(info["width"] as? Int == 1800 && info["height"] as? Int == 2400)
            #expect(info["orientation"] as? Int == 6)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: "/stall-once/big.jpg").map(\.bodyBytesSent) == [sent])
            #expect(sent * 50 < source.count)  // under 2% of the file
            // Defaults on, as in imgproxy: the metadata blocks too, by their titles.
            let exif = try #require(info["exif"] as? [String: String])
            #expect(exif["Manufacturer"] == MetadataSamples.make && exif["Orientation"] == "6")
            #expect(exif["Artist"] == MetadataSamples.artist && exif["Copyright"] == MetadataSamples.copyright)
            let iptc = try #require(info["iptc"] as? [String: Any])
            #expect(iptc["Keywords"] as? [String] == ["harbour"])
            #expect(iptc["By-line"] as? [String] == [MetadataSamples.artist])
            #expect(iptc["Copyright Notice"] as? String == MetadataSamples.copyright)
            let xmp = try #require(info["xmp"] as? [String: [String: Any]])
            #expect(xmp["dc"]?["creator"] as? [String] == ["Ada Lovelace"])
            #expect(xmp["dc"]?["title"] as? String == "Harbour")
            #expect(xmp["photoshop"]?["City"] as? String == "Lisbon")
            // Nothing slow was asked for: no pixel field.
            #expect(info["blurhash"] == nil && info["alpha"] == nil && info["hashsums"] == nil)
        }
    }

    @Test func placeholdersOfAProgressivePhotoReadItsFirstScansAlone() async throws {
        // The library's soft progressive photo: its 100 px decode needs the DC scan only. The origin sends that
        // and the marker after it, then stalls: the answer can only come if that was all it read.
        let source = try ProxyEarlyStopTests.softProgressivePhoto()
        let firstScanEnd = try #require(ProxyEarlyStopTests.firstScanEnd(source))
        try await ProxyHarness.with { harness in
            harness.origin.serve("soft.jpg", data: source, contentType: "image/jpeg")
            let name = "soft.jpg?after=\(firstScanEnd + 2)"
            let info = try Self.json(await harness.get(Self.infoPath(harness, ["bh:4:3", "avg:1"], name,
                                                                     path: "/stall-once/")))
            #expect(info["blurhash"] is String && info["size"] as? Int == source.count)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: "/stall-once/soft.jpg").map(\.bodyBytesSent) == [firstScanEnd + 2])
            // A checksum needs every byte: the whole file, fetched again (a start is never kept).
            let sums = try Self.json(await harness.get(Self.infoPath(harness, ["chs:md5"], name, path: "/stall-once/")))
            #expect((sums["hashsums"] as? [String: String])?["md5"] == HashSum.md5.hex(of: source))
        }
    }

    @Test func exifSubdirectoriesByCanonicalNameOrTitle() async throws {
        var image = Image(pixels: try PixelBuffer(width: 16, height: 8, filledWith: RGBA(90, 120, 150)))
        image.metadata = ImageMetadata(exif: Self.cameraEXIF())
        let source = try ImageCoders.shared.encode(image, as: .jpeg)
        try await ProxyHarness.with { harness in
            harness.origin.serve("camera.jpg", data: source, contentType: "image/jpeg")
            let titled = try Self.json(await harness.get(Self.infoPath(harness, ["exif:1"], "camera.jpg")))
            let byTitle = try #require(titled["exif"] as? [String: String])
            #expect(byTitle["Model"] == "X100" && byTitle["Date and Time (Original)"] == "2016:09:11 22:15:03")
            #expect(byTitle["F-Number"] == "16/1" && byTitle["ISO Speed Ratings"] == "200")
            #expect(byTitle["Latitude"] == "38/1 42/1 0/1" && byTitle["North or South Latitude"] == "N")
            let canonical = try Self.json(await harness.get(Self.infoPath(harness, ["exif:1:1"], "camera.jpg")))
            let byName = try #require(canonical["exif"] as? [String: String])
            #expect(byName["DateTimeOriginal"] == "2016:09:11 22:15:03" && byName["FNumber"] == "16/1")
            #expect(byName["GPSLatitude"] == "38/1 42/1 0/1" && byName["Model"] == "X100")
            let none = try Self.json(await harness.get(Self.infoPath(harness, ["exif:0", "s:0", "d:0"], "camera.jpg")))
            #expect(none.keys.sorted() == ["format", "mime_type"])
        }
    }

    @Test func signedLikeEveryURLOverThePathAfterInfo() async throws {
        let signer = try URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f")
        try await ProxyHarness.with(configuring: { $0.signature = signer }) { harness in
            let unsigned = Self.infoPath(harness, ["bh:4:3"], "photo.jpg")
            let signedPart = String(unsigned.dropFirst("/info/_".count))
            let signed = "/info/" + signer.signature(for: signedPart[...]) + signedPart
            #expect(await harness.get(signed).status == 200)
            #expect(await harness.get(unsigned).status == 403)
            // Signed with the prefix: not what imgproxy signs.
            let withInfo = "/info" + signedPart
            #expect(await harness.get("/info/" + signer.signature(for: withInfo[...]) + signedPart).status == 403)
            // A processing URL's signature for the same tail does not make it an image URL, nor the reverse.
            #expect(await harness.get("/" + signer.signature(for: signedPart[...]) + signedPart).status == 404)
        }
    }

    @Test func unknownOptionsExpiredURLsSourcesAndModelsAreRefusedBeforeAnyFetch() async throws {
        try await ProxyHarness.with { harness in
            for (options, status) in [(["rs:fit:10:10"], 404), (["bh:10:3"], 404), (["p:1"], 404), (["chs:crc32"], 404),
                                      (["exp:1000"], 404), (["do:1"], 422), (["cl:3"], 422),
                                      (["msr:1"], 403), (["hs:md4:00"], 404)] {
                let answer = await harness.get(Self.infoPath(harness, options, "photo.jpg"))
                #expect(answer.status == status, "\(options): \(String(buffer: answer.body))")
            }
            #expect(await harness.get("/info/_/plain/file:///etc/passwd").status == 404)
            // Read and ignored, as imgproxy ignores them for an image: video, cache and object options.
            let ignored = ["vm:1", "vts:3", "bc:1", "ct:a:b", "op:ce", "do:0", "cl:0", "cb:7"]
            #expect(await harness.get(Self.infoPath(harness, ignored, "photo.jpg")).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func infoPresetsOnlyPresetsAndAllowedOptions() async throws {
        let presets = try ProxyPresets(infoFileContents: "default=exif:0/iptc:0/xmp:0\nplaceholder=bh:3:3/th:1")
        try await ProxyHarness.with(configuring: {
            $0.infoPresets = presets
            $0.allowedInfoOptions = ["pr", "s"]
        }) { harness in
            let info = try Self.json(await harness.get(Self.infoPath(harness, ["pr:placeholder", "s:0"], "photo.jpg")))
            #expect(info["blurhash"] is String && info["thumb_hash"] is String && info["size"] == nil)
            #expect(await harness.get(Self.infoPath(harness, ["bh:3:3"], "photo.jpg")).status == 404)
            #expect(await harness.get(Self.infoPath(harness, ["pr:nothing"], "photo.jpg")).status == 404)
        }
        try await ProxyHarness.with(configuring: { $0.infoPresets = presets; $0.onlyPresets = true }) { harness in
            // Presets-only follows the processing setting unless the info one is set.
            let info = try Self.json(await harness.get(Self.infoPath(harness, ["placeholder"], "photo.jpg")))
            #expect(info["blurhash"] is String && info["exif"] == nil)
        }
        // An info preset's options are checked as info options when the presets are read.
        #expect(throws: ProxyConfigurationError.self) { try ProxyPresets(infoFileContents: "bad=rs:fit:10:10") }
        #expect(throws: ProxyConfigurationError.self) { try ProxyPresets(fileContents: "bad=bh:4:3") }
    }

    @Test func anAnswerIsCachedWithValidatorsAndAFailureIsRemembered() async throws {
        try await ProxyHarness.with { harness in
            let path = Self.infoPath(harness, ["th:1", "chs:md5"], "photo.jpg")
            let first = await harness.get(path)
            let etag = try #require(first.headers[.eTag])
            let second = await harness.get(path)
            #expect(second.bodyData == first.bodyData && second.headers[.eTag] == etag)
            #expect(harness.proxy.renders.renderingsStarted == 0)  // descriptions are not renders
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            let notModified = await harness.get(path, ifNoneMatch: etag)
            #expect(notModified.status == 304 && notModified.body.readableBytes == 0)
            #expect(first.headers[.cacheControl]?.hasPrefix("max-age=") == true)
            // A source that is not an image: 422, and the next request is answered from memory of the failure.
            #expect(await harness.get(Self.infoPath(harness, [], "text.txt")).status == 422)
            #expect(await harness.get(Self.infoPath(harness, [], "text.txt")).status == 422)
            #expect(harness.origin.log.count("/files/text.txt") == 1)
            #expect(await harness.get(Self.infoPath(harness, [], "missing.jpg")).status == 404)
            // A source read for its header alone is not kept (nothing proved its pixels decode); one whose pixels
            // were decoded for the answer is, as a render keeps one.
            #expect(await harness.get(Self.infoPath(harness, ["cb:1"], "logo.png")).status == 200)
            #expect(await harness.get(harness.plainPath(["w:10"], "logo.png")).status == 200)
            #expect(harness.origin.log.count("/files/logo.png") == 2)
            harness.origin.serve("colour.png", data: try ProxyHarness.photo(width: 40, height: 30, as: .png),
                                 contentType: "image/png")
            #expect(await harness.get(Self.infoPath(harness, ["avg:1"], "colour.png")).status == 200)
            #expect(await harness.get(harness.plainPath(["w:10"], "colour.png")).status == 200)
            #expect(harness.origin.log.count("/files/colour.png") == 1)
        }
    }

    /// Thousands of `/info` requests for a few answers, a third of their clients leaving at random points, beside
    /// renders of the same sources: every request that stayed is answered, and nothing is left in flight.
    @Test func thousandsOfInfoRequestsWithLeaversLeaveNothingInFlight() async throws {
        try await ProxyHarness.with(configuring: { $0.workers = 2 }) { harness in
            let total = 2_000
            // The first answer of each kind other than 200, to say what went wrong if anything does.
            let unexpected = Locked<[String: String]>([:])
            let answered = await ProxyLoadTests.statusesWithEveryThirdLeaving(total) { index in
                let response: ProxyResponse
                switch index % 4 {
                case 0: response = await harness.get(harness.plainPath(["w:\(20 + index % 30)"], "photo.jpg"))
                case 1: response = await harness.get(Self.infoPath(harness, ["bh:\(1 + index % 9):3"], "photo.jpg"))
                case 2: response = await harness.get(Self.infoPath(harness, ["cb:\(index % 50)"], "logo.png"))
                default:
                    response = await harness.get(Self.infoPath(harness, ["pn:1", "avg:\(index % 2)"], "anim.gif"))
                }
                if response.status != 200, index % 3 != 0 {
                    let reason = String(buffer: response.body)
                    let kind = "kind \(index % 4), \(response.status)"
                    unexpected.withLock { $0[kind] = $0[kind] ?? reason }
                }
                return response
            }
            let statuses = Dictionary(answered.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(answered.count == total - (total + 2) / 3 && statuses == [200: answered.count],
                    "statuses: \(statuses), first reasons: \(unexpected.withLock { $0 })")
            #expect(await ProxyLoadTests.eventually { harness.proxy.load == .idle })
        }
    }

    /// Big-endian EXIF: IFD0 with Model and pointers to an Exif directory (FNumber, ISO, DateTimeOriginal) and a
    /// GPS directory (latitude and its reference). Layout: IFD0 at 8 (3 entries, to 50), Exif IFD at 50 (to 92),
    /// GPS IFD at 100 (to 130), then the values that do not fit in their entries at 140 and on.
    static func cameraEXIF() -> Data {
        var out: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        func u16(_ value: Int) { out += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) { u16(value >> 16); u16(value & 0xFFFF) }
        func pad(to offset: Int) { out += [UInt8](repeating: 0, count: offset - out.count) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) { u16(tag); u16(type); u32(count); u32(value) }
        u16(3)
        entry(0x0110, 2, 5, 220)  // Model "X100\0"
        entry(0x8769, 4, 1, 50)
        entry(0x8825, 4, 1, 100)
        u32(0)
        u16(3)
        entry(0x829D, 5, 1, 160)  // FNumber 16/1
        u16(0x8827); u16(3); u32(1); u16(200); u16(0)  // ISO 200, inside the entry
        entry(0x9003, 2, 20, 140)  // DateTimeOriginal
        u32(0)
        pad(to: 100)
        u16(2)
        u16(0x0001); u16(2); u32(2); out += Array("N".utf8) + [0, 0, 0]  // inside the entry
        entry(0x0002, 5, 3, 168)  // latitude 38° 42' 0"
        u32(0)
        pad(to: 140)
        out += Array("2016:09:11 22:15:03".utf8) + [0]
        pad(to: 160)
        u32(16); u32(1)
        u32(38); u32(1); u32(42); u32(1); u32(0); u32(1)
        pad(to: 220)
        out += Array("X100".utf8) + [0]
        return Data(out)
    }
}
