// libFuzzer: Storm's DRN format, as io/drn_reader.h reads it.
#include "expected_errors.h"
#include "io/drn_reader.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return mdpvi::fuzz::refused_or_read([&] {
    mdpvi::io::read_drn(mdpvi::io::TextFile::from_string("f.drn", std::string(reinterpret_cast<const char*>(data), size)));
  });
}
