// libFuzzer: PRISM-language models, parsed, resolved and built (at most 1,000 states,
// one thread), as mdpvi check does.
#include "engine/explore/model_builder.h"
#include "expected_errors.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mdpvi;
  return fuzz::refused_or_read([&] {
    try {
      const io::ModelDescription model = io::parse_model(
          io::TextFile::from_string("f.nm", std::string(reinterpret_cast<const char*>(data), size)));
      BuildOptions options;
      options.state_limit = 1000;
      options.threads = 1;
      options.keep_actions = true;
      build_model(resolve_model(model, {}), options);
    } catch (const BuildLimitReached&) {
    }
  });
}
