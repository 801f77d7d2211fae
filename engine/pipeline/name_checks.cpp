#include "engine/pipeline/name_checks.h"

#include "engine/explore/compiled_expression.h"
#include "engine/model/located_error.h"
#include "engine/pipeline/constant_sweep.h"
#include "engine/pipeline/property_names.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace mdpvi::pipeline {

namespace {

// Whether an identifier appears in a property's text (an inline property may use a
// constant that nothing declares).
bool mentions_identifier(const std::string& text, const std::string& name) {
  const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_word(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !is_word(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// The first label or identifier of f that names nothing known, as the checker would
// word it ("LINE:COLUMN: unknown label ..."); nullopt when all are known.
std::optional<std::string> first_unknown_name(const Expression& e, const KnownNames& names) {
  const auto at = [&] { return std::to_string(e.position.line) + ":" + std::to_string(e.position.column) + ": "; };
  if (e.kind == Expression::Kind::label && !names.labels.count(e.name)) return at() + "unknown label \"" + e.name + "\"";
  if (e.kind == Expression::Kind::identifier && !names.identifiers.count(e.name)) {
    return at() + "unknown identifier '" + e.name + "' (an undefined constant? give it with --const NAME=VALUE)";
  }
  for (const Expression& operand : e.operands) {
    if (auto unknown = first_unknown_name(operand, names)) return unknown;
  }
  return std::nullopt;
}

// The first reward structure f names that the model lacks, as the checker would word it.
std::optional<std::string> first_unknown_reward(const Formula& f, const KnownNames& names) {
  const std::optional<std::string>& reward = f.temporal.reward_name;
  if (f.kind == Formula::Kind::temporal && reward && !names.rewards.count(*reward)) {
    return std::to_string(f.position.line) + ":" + std::to_string(f.position.column) +
           ": the model has no reward structure \"" + *reward + "\"";
  }
  for (const Formula& operand : f.operands) {
    if (auto unknown = first_unknown_reward(operand, names)) return unknown;
  }
  return std::nullopt;
}

std::optional<std::string> first_unknown_name(const Formula& f, const KnownNames& names) {
  std::optional<std::string> unknown = first_unknown_reward(f, names);
  for_each_expression(f, [&](const Expression& e) {
    if (!unknown) unknown = first_unknown_name(e, names);
  });
  return unknown;
}

}  // namespace

void check_constants_are_known(const CheckOptions& options, const std::set<std::string>& model_constants,
                               const ParsedProperties& properties) {
  std::set<std::string> known = model_constants;
  if (properties.file) {
    for (const io::ConstantDeclaration& c : properties.file->constants) known.insert(c.name);
  }
  for (const auto& given : options.constants) {
    const std::string& name = given.first;  // a plain reference: clang 14 captures no structured binding
    if (known.count(name)) continue;
    const bool used_inline = std::any_of(options.inline_properties.begin(), options.inline_properties.end(),
                                         [&](const std::string& p) { return mentions_identifier(p, name); });
    if (used_inline) continue;
    std::string names;
    for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
    throw std::invalid_argument("--const " + name + ": no constant of that name (" +
                                (names.empty() ? std::string("the model declares none") : "declared: " + names) + ")");
  }
}

KnownNames known_names(const ResolvedModel& model, const ParsedProperties& properties, const CheckOptions& options) {
  KnownNames names;
  for (const auto& [label, body] : model.labels) names.labels.insert(label);
  for (const ResolvedVariable& v : model.variables) names.identifiers.insert(v.name);
  for (const auto& [name, value] : model.constants) names.identifiers.insert(name);
  for (const auto& [name, body] : model.formulas) names.identifiers.insert(name);
  for (const ResolvedReward& r : model.rewards) names.rewards.insert(r.name);
  for (const auto& [name, text] : options.constants) names.identifiers.insert(name);
  if (properties.file) {
    for (const io::LabelDeclaration& l : properties.file->labels) names.labels.insert(l.name);
    for (const io::ConstantDeclaration& c : properties.file->constants) names.identifiers.insert(c.name);
  }
  return names;
}

void check_property_names(ParsedProperties& properties, const KnownNames& names) {
  auto check = [&](io::PropertyEntry& entry) {
    if (!entry.formula) return;
    if (std::optional<std::string> unknown = first_unknown_name(*entry.formula, names)) {
      entry.error = entry.source + ":" + *unknown;
      entry.formula.reset();
      spdlog::error("{} (found before the build)", entry.error);
    }
  };
  std::for_each(properties.entries.begin(), properties.entries.end(), check);
}

void check_swept_values(const std::map<std::string, std::string>& given, const io::ModelDescription* model,
                        const std::string& model_name, const ParsedProperties& parsed, const CheckOptions& options) {
  auto check = [&](const std::vector<io::ConstantDeclaration>& declared, const std::string& file) {
    for (const io::ConstantDeclaration& c : declared) {
      auto text = given.find(c.name);
      if (c.value || text == given.end()) continue;
      for (const std::string& value : expand_constant_range(c.name, text->second)) {
        try {
          parse_constant_value(c.name, c.type, value);
        } catch (const std::invalid_argument& error) {
          throw LocatedError(file, c.position.line, c.position.column, error.what());
        }
      }
    }
  };
  if (model) check(model->constants, model_name);
  if (parsed.file) check(parsed.file->constants, *options.properties_file);
}

}  // namespace mdpvi::pipeline
