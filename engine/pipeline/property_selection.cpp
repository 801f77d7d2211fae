#include "engine/pipeline/property_selection.h"

#include "engine/pipeline/property_names.h"
#include "io/property_references.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace mdpvi::pipeline {

namespace {

// A --prop that selects a property of the file: a bare number N (PRISM's habit:
// the N-th property, 1-based) or a property's name, quoted or not. nullopt for a
// property to check as written.
std::optional<std::size_t> selected_index(const std::string& text, const std::vector<io::PropertyEntry>& all,
                                          bool have_file) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (!have_file) throw std::invalid_argument("--prop " + text + ": a number selects a property of the properties file, and none is given");
    const std::size_t index = text.size() > 18 ? 0 : std::stoull(text);
    if (index < 1 || index > all.size()) {
      throw std::invalid_argument("--prop " + text + ": the properties file has " + std::to_string(all.size()) +
                                  " properties (numbered from 1)");
    }
    return index - 1;
  }
  const std::string name = text.size() > 1 && text.front() == '"' && text.back() == '"' ? text.substr(1, text.size() - 2) : text;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].name.empty() && all[i].name == name) return i;
  }
  return std::nullopt;
}

// The file's properties that --prop selects, in that order, then the other --prop
// properties; all of the file's when none is selected and all_of_the_file says so.
// Throws std::invalid_argument for N out of range, or a number without a file.
std::vector<io::PropertyEntry> chosen_properties(std::vector<io::PropertyEntry> file, std::vector<io::PropertyEntry> given,
                                                 const std::vector<std::string>& inline_texts, bool have_file,
                                                 bool all_of_the_file) {
  std::vector<io::PropertyEntry> chosen, written;
  for (std::size_t i = 0; i < inline_texts.size(); ++i) {
    if (const std::optional<std::size_t> index = selected_index(inline_texts[i], file, have_file)) {
      chosen.push_back(file[*index]);
    } else {
      written.push_back(std::move(given[i]));
    }
  }
  if (chosen.empty() && all_of_the_file) chosen = std::move(file);
  std::move(written.begin(), written.end(), std::back_inserter(chosen));
  return chosen;
}

// A JANI model's properties as entries of a properties file: each parsed from its
// PRISM text under its name, or, where it has none, "not supported yet" with the reason.
std::vector<io::PropertyEntry> jani_entries(const std::vector<io::JaniProperty>& properties, const std::string& model) {
  std::vector<io::PropertyEntry> entries;
  for (const io::JaniProperty& p : properties) {
    if (!p.error.empty()) {
      io::PropertyEntry entry;
      entry.name = p.name;
      entry.text = "\"" + p.name + "\" (JANI)";
      entry.error = p.error;
      entry.source = model;
      entry.unsupported = true;
      entries.push_back(std::move(entry));
      continue;
    }
    entries.push_back(io::parse_property("\"" + p.name + "\": " + p.text, model + ", property " + p.name));
  }
  return entries;
}

bool uses_rewards(const Formula& formula) {
  if (formula.kind == Formula::Kind::temporal && formula.temporal.kind == TemporalOperator::Kind::reward) return true;
  return std::any_of(formula.operands.begin(), formula.operands.end(), uses_rewards);
}

}  // namespace

void resolve_references(ParsedProperties& properties, const std::set<std::string>& labels) {
  io::resolve_property_references(properties.entries, properties.named, labels);
  properties.use_rewards = std::any_of(properties.entries.begin(), properties.entries.end(),
                                       [](const io::PropertyEntry& e) { return e.formula && uses_rewards(*e.formula); });
}

ParsedProperties parse_all_properties(const CheckOptions& options, const std::vector<io::JaniProperty>* model_properties) {
  ParsedProperties parsed;
  std::vector<io::PropertyEntry> given, in_file;
  const bool from_model = !options.properties_file && model_properties != nullptr;
  if (options.properties_file) {
    parsed.file = io::parse_properties(io::TextFile::load(*options.properties_file), options.model_file.value_or(""));
    in_file = std::move(parsed.file->properties);
  } else if (from_model) {
    in_file = jani_entries(*model_properties, options.model_file.value_or("JANI model"));
  }
  for (std::size_t i = 0; i < options.inline_properties.size(); ++i) {
    given.push_back(io::parse_property(options.inline_properties[i], "--prop " + std::to_string(i + 1),
                                       options.model_file.value_or("")));
  }
  // A property that cannot be read leaves the file unread, as PRISM's: said before the
  // model is built (a property asking for what mdpvi lacks is only that property's error).
  for (const std::vector<io::PropertyEntry>* entries : {&in_file, &given}) {
    for (const io::PropertyEntry& entry : *entries) {
      if (!entry.formula && !entry.unsupported) throw std::invalid_argument(entry.error);
    }
  }
  // A properties file that holds no property, and nothing else to check: the run would
  // say nothing and succeed, which hides a wrong file.
  if (parsed.file && in_file.empty() && given.empty()) {
    throw std::invalid_argument(*options.properties_file + ": no property in the properties file (nothing to check)");
  }
  parsed.named = in_file;  // references are resolved once the model's labels are known
  const bool all_of_the_file = !from_model || options.inline_properties.empty();
  parsed.entries = chosen_properties(std::move(in_file), std::move(given), options.inline_properties,
                                     parsed.file.has_value() || from_model, all_of_the_file);
  return parsed;  // use_rewards is known once references are resolved (resolve_references)
}

namespace {

bool lists_states(const Formula& f) {
  if (f.kind == Formula::Kind::filter && (f.filter == FilterOp::print || f.filter == FilterOp::printall ||
                                          f.filter == FilterOp::argmin || f.filter == FilterOp::argmax)) {
    return true;
  }
  return std::any_of(f.operands.begin(), f.operands.end(), lists_states);
}

}  // namespace

bool reads_valuations(const ParsedProperties& properties, const ResolvedModel& model) {
  std::vector<const Formula*> formulas;
  for (const io::PropertyEntry& entry : properties.entries) {
    if (entry.formula) formulas.push_back(&*entry.formula);
  }
  if (std::any_of(formulas.begin(), formulas.end(), [](const Formula* f) { return lists_states(*f); })) return true;
  std::set<std::string> names = identifiers_named(formulas, properties.file ? &*properties.file : nullptr);
  // The model's formulas come expanded (their bodies name variables and constants only).
  for (const auto& [name, body] : model.formulas) {
    if (names.count(name)) add_identifiers(body, names);
  }
  return std::any_of(model.variables.begin(), model.variables.end(),
                     [&](const ResolvedVariable& v) { return names.count(v.name) > 0; });
}

std::set<std::string> labels_to_build(const ParsedProperties& properties) {
  std::vector<const Formula*> formulas;
  for (const io::PropertyEntry& entry : properties.entries) {
    if (entry.formula) formulas.push_back(&*entry.formula);
  }
  return labels_named(formulas, properties.file ? &*properties.file : nullptr);
}

}  // namespace mdpvi::pipeline
