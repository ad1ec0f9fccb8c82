import Foundation
import FuzzSupport

/// Every harness, by the name `scripts/fuzz` runs it under: one executable for all of them, started through a
/// symbolic link with the harness's name (`FuzzJPEG -> FuzzHarnesses`). One link step instead of nineteen: in CI
/// each harness executable took as long to link as the library took to compile.
let harnesses: [String: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt] = [
    "FuzzFormatDetection": fuzzFormatDetection, "FuzzJPEG": fuzzJPEG, "FuzzPNG": fuzzPNG, "FuzzGIF": fuzzGIF,
    "FuzzWebP": fuzzWebP, "FuzzAnimatedImage": fuzzAnimatedImage, "FuzzEXIF": fuzzEXIF,
    "FuzzIncremental": fuzzIncremental, "FuzzDataURL": fuzzDataURL, "FuzzDiskEntryHeader": fuzzDiskEntryHeader,
    "FuzzProperties": fuzzProperties, "FuzzBMP": fuzzBMP, "FuzzICO": fuzzICO, "FuzzAVIF": fuzzAVIF,
    "FuzzHEIF": fuzzHEIF, "FuzzJXL": fuzzJXL, "FuzzSVG": fuzzSVG, "FuzzPDF": fuzzPDF, "FuzzTIFF": fuzzTIFF,
    "FuzzRESP": fuzzRESP, "FuzzProxyURL": fuzzProxyURL, "FuzzColorProfile": fuzzColorProfile,
    "FuzzJPEGPrefix": fuzzJPEGPrefix, "FuzzFramePrefix": fuzzFramePrefix,
]

/// The harness this process runs, chosen in `main` before libFuzzer starts.
nonisolated(unsafe) private var chosen: (@convention(c) (UnsafePointer<UInt8>?, Int) -> CInt)?

/// libFuzzer's entry point, which its runtime expects to find: the chosen harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChosenHarness(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    chosen?(start, count) ?? 0
}

/// The entry point SwiftPM's debug build links as `main` (see `runFuzzDriver`): picks the harness named by the
/// program's name, then hands over to libFuzzer.
@_cdecl("FuzzHarnesses_main")
public func fuzzHarnessesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    let program = argv[0].map { String(cString: $0) } ?? ""
    let name = String(program.split(separator: "/").last ?? "")
    guard let harness = harnesses[name] else {
        let names = harnesses.keys.sorted().joined(separator: " ")
        FileHandle.standardError.write(Data("run me through a link named after a harness: \(names)\n".utf8))
        return 2
    }
    chosen = harness
    return runFuzzDriver(argc, argv, harness)
}
