// libFuzzer: property text, read as --prop and as a properties file, and checked on a fixed small
// model (models/resend) built once, as mdpvi check does: the file's constants and
// labels in the scope, each property through check_property on the CPU. Inputs with
// numbers of five digits or more are skipped: a step bound of 10^9 is slow, not wrong.
// The answers a checker gives for bad properties (located errors, "not supported",
// no convergence) end the input quietly; a logic_error or bad_alloc is a crash.
#include "engine/explore/model_builder.h"
#include "engine/check/property_checker.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "io/prism_model.h"
#include "io/property_parser.h"
#include "io/property_references.h"
#include "engine/pipeline/property_scope.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace mdpvi;

bool has_long_number(const std::string& text) {
  std::size_t run = 0;
  for (char c : text) {
    run = std::isdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
    if (run >= 5) return true;
  }
  return false;
}

// The model, its search graph and its scope, made once for every input.
struct FixedModel {
  SparseMdp mdp;
  std::unique_ptr<graph::SearchBackend> search;
  PropertyScope scope;
};

FixedModel* fixed_model = nullptr;

void make_fixed_model() {
  static FixedModel model;
  const char* path = std::getenv("MDPVI_FUZZ_MODEL");  // where the checkout moved (another machine)
  const ResolvedModel resolved =
      resolve_model(io::parse_model(io::TextFile::load(path != nullptr ? path : MDPVI_FUZZ_MODEL)), {});
  BuildOptions options;
  options.threads = 1;
  model.mdp = build_model(resolved, options).mdp;
  model.search = graph::make_search_backend(model.mdp, graph::SearchKind::cpu_parallel);
  model.scope.constants = resolved.constants;
  model.scope.formulas = resolved.formulas;
  fixed_model = &model;
}

void check_all(const std::string& text) {
  io::PropertyFile file = io::parse_properties(io::TextFile::from_string("f.props", text));
  const std::vector<io::PropertyEntry> named = file.properties;
  io::resolve_property_references(file.properties, named, pipeline::label_names(fixed_model->mdp, &file));
  PropertyScope scope = fixed_model->scope;
  pipeline::add_property_constants(file, "f.props", {}, scope);
  pipeline::add_property_labels(file, "f.props", fixed_model->mdp, scope);
  for (const io::PropertyEntry& entry : file.properties) {
    if (!entry.formula) continue;
    CheckContext context{fixed_model->mdp, *fixed_model->search, scope, {}, {}};
    context.solver.stop.max_sweeps = 10000;
    context.device.solver = SolverKind::cpu;
    try {
      check_property(*entry.formula, context);
    } catch (const LocatedError&) {
    } catch (const std::runtime_error&) {  // not supported, no convergence, unfit rewards
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // the checker's messages about bad properties
  make_fixed_model();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (has_long_number(text)) return 0;
  try {
    io::parse_property(text, "--prop");  // the command line's reading of the same text
    check_all(text);
  } catch (const LocatedError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
