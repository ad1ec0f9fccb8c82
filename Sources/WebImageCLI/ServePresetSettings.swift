import Foundation
import WebImageServer

extension ServeSettings {
    /// `--presets FILE` (or `WEBIMAGE_PRESETS`); else imgproxy's presets: those of `IMGPROXY_PRESETS` (split at
    /// `IMGPROXY_PRESETS_SEPARATOR`, a comma by default) and those of the file `IMGPROXY_PRESETS_PATH`, together.
    func presets(_ configuration: inout ProxyConfiguration) throws {
        let ours = source.text(command.presets, flag: "--presets", "PRESETS")
        guard let (text, origin) = try presetDefinitions(ours: ours, inline: "IMGPROXY_PRESETS",
                                                         file: "IMGPROXY_PRESETS_PATH") else { return }
        do {
            configuration.presets = try ProxyPresets(fileContents: text)
        } catch {
            throw ServeError("\(origin): \(error)")
        }
    }

    /// The `/info` endpoint's settings: its presets (`--info-presets FILE`, `WEBIMAGE_INFO_PRESETS`, else
    /// imgproxy's `IMGPROXY_INFO_PRESETS` and `IMGPROXY_INFO_PRESETS_PATH` together), presets-only mode
    /// (`IMGPROXY_INFO_ONLY_PRESETS`, which follows `IMGPROXY_ONLY_PRESETS` when not set) and the info options
    /// URLs may use (`IMGPROXY_ALLOWED_INFO_OPTIONS`).
    func infoEndpoint(_ configuration: inout ProxyConfiguration) throws {
        let ours = source.text(command.infoPresets, flag: "--info-presets", "INFO_PRESETS")
        if let (text, origin) = try presetDefinitions(ours: ours, inline: "IMGPROXY_INFO_PRESETS",
                                                      file: "IMGPROXY_INFO_PRESETS_PATH") {
            do {
                configuration.infoPresets = try ProxyPresets(infoFileContents: text)
            } catch {
                throw ServeError("\(origin): \(error)")
            }
        }
        if command.infoOnlyPresets {
            configuration.infoOnlyPresets = true
        } else if let found = source.find("INFO_ONLY_PRESETS", imgproxy: ["IMGPROXY_INFO_ONLY_PRESETS"]) {
            configuration.infoOnlyPresets = try ServeSettingSource.boolean(found)
        }
        if let list = source.list(command.allowedInfoOptions.map { [$0] } ?? [], flag: "--allowed-info-options",
                                  "ALLOWED_INFO_OPTIONS", imgproxy: ["IMGPROXY_ALLOWED_INFO_OPTIONS"]) {
            configuration.allowedInfoOptions = Set(list.items)
        }
    }

    /// The text of a presets file: ours (`ours`, a file name) alone, else imgproxy's `inline` variable (split at
    /// `IMGPROXY_PRESETS_SEPARATOR`) and its `file` variable together; with where it came from. `nil` for none.
    private func presetDefinitions(ours: ServeSettingSource.Found?, inline: String, file: String) throws
        -> (text: String, origin: String)?
    {
        var definitions = [String](), origin = ""
        if let ours {
            definitions = [try Self.contents(ofPresetsFile: ours.text)]
            origin = ours.origin
        } else {
            let separator = source.find("", imgproxy: ["IMGPROXY_PRESETS_SEPARATOR"])?.text ?? ","
            if let inline = source.find("", imgproxy: [inline]) {
                definitions += inline.text.components(separatedBy: separator)
                origin = inline.origin
            }
            if let file = source.find("", imgproxy: [file]) {
                definitions.append(try Self.contents(ofPresetsFile: file.text))
                origin += (origin.isEmpty ? "" : " and ") + file.origin
            }
        }
        return definitions.isEmpty ? nil : (definitions.joined(separator: "\n"), origin)
    }

    private static func contents(ofPresetsFile file: String) throws -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ServeError("cannot read the presets file \(file)")
        }
        return text
    }
}
