// libFuzzer: UMB archives, as io/umb_reader.h reads them (from memory).
#include "expected_errors.h"
#include "io/umb_reader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return mdpvi::fuzz::refused_or_read([&] { mdpvi::io::read_umb_bytes("f.umb", data, size); });
}
