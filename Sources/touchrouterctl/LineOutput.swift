import Foundation

/// Writes whole lines to stdout unbuffered, so a test harness reading a pipe or file sees each
/// line as soon as it happens.
enum LineOutput {
    static func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
