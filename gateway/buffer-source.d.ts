// structured-headers' types name the DOM's BufferSource, which this project's lib (ES2023, no DOM)
// lacks; without this every BareItem it returns would be an unresolved (any) type.
type BufferSource = ArrayBufferView | ArrayBuffer;
