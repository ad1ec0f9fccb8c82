import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGMarkerScannerTests {
    func scan(_ name: String) throws -> JPEGMarkers {
        try Fixtures.data("jpeg/\(name).jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
    }

    @Test func readsTheFrameHeader() throws {
        let baseline = try scan("baseline")
        #expect(baseline.frameSize == PixelSize(width: 96, height: 64))
        #expect(baseline.precision == 8)
        #expect(baseline.frameMarker == 0xC0)
        #expect(baseline.exif == nil)
        #expect(baseline.adobeTransform == nil)
        #expect(try scan("progressive").frameMarker == 0xC2)
    }

    @Test func findsTheAdobeTransform() throws {
        #expect(try scan("cmyk").adobeTransform == 0)
        #expect(try scan("ycck").adobeTransform == 2)
        #expect(try scan("cmyk-no-adobe").adobeTransform == nil)
    }

    @Test(arguments: Orientation.allCases)
    func findsTheEXIFSegment(orientation: Orientation) throws {
        let data = try Fixtures.data("jpeg/orientation-\(orientation.rawValue).jpg")
        let found = try data.withUnsafeBytes { bytes -> Orientation? in
            let markers = try JPEGMarkerScanner.scan(bytes)
            let exif = try #require(markers.exif)
            return EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[exif]))
        }
        #expect(found == orientation)
    }

    @Test func findsTheEndOfImageOnlyAfterTheScan() throws {
        for name in ["baseline", "eoi-in-comment", "trailing-data"] {
            let data = try Fixtures.data("jpeg/\(name).jpg")
            try data.withUnsafeBytes { bytes in
                let markers = try JPEGMarkerScanner.scan(bytes)
                #expect(JPEGMarkerScanner.hasEndOfImage(bytes, after: markers.scanStart), "\(name)")
            }
            // The comment's 0xFF 0xD9 sits before the scan and does not count.
            try data.prefix(data.count - 2 - (name == "trailing-data" ? 321 : 0)).withUnsafeBytes { bytes in
                let markers = try JPEGMarkerScanner.scan(bytes)
                #expect(!JPEGMarkerScanner.hasEndOfImage(bytes, after: markers.scanStart), "\(name) cut")
            }
        }
    }

    @Test func skipsFillAndStrayBytesBetweenSegments() throws {
        var data = try Fixtures.data("jpeg/baseline.jpg")
        data.insert(contentsOf: [0xFF, 0xFF, 0x00, 0x12], at: 2)
        let markers = try data.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(markers.frameSize == PixelSize(width: 96, height: 64))
    }

    @Test func refusesHeadersThatEndEarlyOrLie() {
        let cases: [[UInt8]] = [
            [],
            [0xFF, 0xD8, 0xFF],
            [0x89, 0x50, 0x4E, 0x47],
            [0xFF, 0xD8, 0xFF, 0xD9],                                   // EOI before any scan
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x40, 0x00, 0x00],           // segment longer than the data
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0x00, 0x00],           // length below 2
            [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9],           // scan without a frame
            [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x04, 0x08, 0x00, 0xFF, 0xD9], // frame header too short
        ]
        for bytes in cases {
            #expect(throws: ImageError.self, "\(bytes)") {
                try bytes.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
            }
        }
    }
}
