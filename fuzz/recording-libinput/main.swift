/// libFuzzer entry point for the `libinput record` reader (`scripts/fuzz recording-libinput
/// SECONDS`): any UTF-8 text goes through libyaml and `LibinputRecordReader`, and every device it
/// gives through the decoder; never a crash, hang or leak (docs/fuzzing.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibinputRecording(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = FuzzRecording.text(bytes, count) else { return 0 }
    do {
        for recording in try LibinputRecordReader.parse(text, file: "fuzz.yml") {
            FuzzRecording.decode(recording)
        }
    } catch {
        FuzzRecording.check(error, text: text)
    }
    return 0
}
