// libFuzzer: property text, read as a properties file and as --prop, then checked on
// a fixed small model (models/resend), as mdpvi check does. Inputs with numbers of
// five digits or more are skipped: a step bound of 10^9 is slow, not wrong.
#include "expected_errors.h"
#include "io/property_parser.h"
#include "tools/check_run.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

namespace {

bool has_long_number(const std::string& text) {
  std::size_t run = 0;
  for (char c : text) {
    run = std::isdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
    if (run >= 5) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // the checker's messages about bad properties
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mdpvi;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (has_long_number(text)) return 0;
  return fuzz::refused_or_read([&] {
    io::parse_properties(io::TextFile::from_string("f.props", text));
    tools::CheckOptions options;
    options.model_file = MDPVI_FUZZ_MODEL;
    options.inline_properties = tools::split_inline_properties({text});
    options.device.solver = SolverKind::cpu;
    options.search = graph::SearchKind::cpu_parallel;
    options.threads = 1;
    options.solver.stop.max_sweeps = 10000;
    tools::run_check(options);
  });
}
