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

/// The program: picks the harness named by the program's name, then hands over to libFuzzer.
@main
enum FuzzHarnesses {
    static func main() {
        let name = String(CommandLine.arguments.first?.split(separator: "/").last ?? "")
        guard let harness = harnesses[name] else {
            let names = harnesses.keys.sorted().joined(separator: " ")
            FileHandle.standardError.write(Data("run me through a link named after a harness: \(names)\n".utf8))
            exit(2)
        }
        do {
            exit(try runFuzzDriver(harness))
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(2)
        }
    }
}
