import TouchRouterCore

/// libFuzzer entry point for the evemu reader (`scripts/fuzz recording-evemu SECONDS`): any UTF-8
/// text goes through `EvemuReader`, and its events through the decoder, with the text's own
/// description or else a 5-slot panel's; never a crash, hang or leak (docs/fuzzing.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemuRecording(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = FuzzRecording.text(bytes, count) else { return 0 }
    do {
        let parsed = try EvemuReader.parse(text, file: "fuzz.events")
        FuzzRecording.decode(Recording(device: parsed.device ?? panel, events: parsed.events))
    } catch {
        FuzzRecording.check(error, text: text)
    }
    return 0
}

/// The EP0430M09's description (Tests/Fixtures/recordings/evemu), for events without one.
let panel = RecordedDevice(
    name: "EP0430M09",
    absinfo: [
        EvdevCode.absX: AbsInfo(minimum: 0, maximum: 1279), EvdevCode.absY: AbsInfo(minimum: 0, maximum: 767),
        EvdevCode.absMtSlot: AbsInfo(minimum: 0, maximum: 4),
        EvdevCode.absMtPositionX: AbsInfo(minimum: 0, maximum: 1279),
        EvdevCode.absMtPositionY: AbsInfo(minimum: 0, maximum: 767),
        EvdevCode.absMtTrackingId: AbsInfo(minimum: 0, maximum: 65535),
    ],
    properties: [EvdevCode.inputPropDirect])
