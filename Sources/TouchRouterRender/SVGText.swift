import TouchRouterCore

// Writing the SVG document: elements one per line, attributes escaped, numbers short.

/// The document being written, one element per line.
struct SVGText {
    var text: String

    init(header: Bool = true) {
        text = header ? #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" : ""
    }

    /// `<name a="v" …/>`, or `<name …>text</name>` with `text`.
    mutating func element(_ name: String, _ attributes: [(String, String)], text content: String? = nil) {
        text += "<" + name
        appendAttributes(attributes)
        if let content {
            text += ">" + Self.escaped(content) + "</" + name + ">\n"
        } else {
            text += "/>\n"
        }
    }

    /// `<name a="v" …>`: the caller closes it with `close`.
    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name
        appendAttributes(attributes)
        text += ">\n"
    }

    mutating func close(_ name: String) {
        text += "</" + name + ">\n"
    }

    private mutating func appendAttributes(_ attributes: [(String, String)]) {
        for (key, value) in attributes {
            text += " " + key + "=\"" + Self.escaped(value) + "\""
        }
    }

    /// XML text with `&`, `<`, `>` and `"` escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { "&<>\"".contains($0) }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Up to two decimals, no trailing zeros: `12`, `12.5`, `-0.33`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = cFormat("%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
