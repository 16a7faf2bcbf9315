// libFuzzer entry for MockFuzzDriver.run (built by Fuzz/build.sh, run by `make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    MockFuzzDriver.run(count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count)))
    return 0
}
