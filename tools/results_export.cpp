#include "tools/results_export.h"

#include "engine/model/property_value.h"
#include "tools/output_path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace mdpvi::tools {

namespace {

struct ResultRow {
  std::string property, constants, result, lower, upper, method, epsilon, criterion, time_s, error, version;
};

// In the order of cells(); typed columns become numbers, Booleans or null in JSON,
// text columns stay text even where they look like numbers (a version "0.1").
struct Column {
  const char* name;
  bool typed;
};
const Column kColumns[] = {{"property", false}, {"constants", false}, {"result", true}, {"lower", true},
                           {"upper", true},     {"method", false},    {"epsilon", true}, {"criterion", false},
                           {"time_s", true},    {"error", false},     {"version", false}};

std::string number_text(double value) { return format_number(value); }

ResultRow row_of(const pipeline::PropertyOutcome& outcome, const pipeline::RunSettings& settings) {
  ResultRow row;
  row.property = outcome.property;
  row.constants = pipeline::constants_of(outcome, settings);
  if (outcome.value) {
    // A number bare, without the "(+/- ...)" that to_text adds to bounded ones.
    const bool number = outcome.value->kind == PropertyValue::Kind::number;
    row.result = number ? number_text(outcome.value->number) : to_text(*outcome.value);
    if (outcome.value->lower_bound) row.lower = number_text(*outcome.value->lower_bound);
    if (outcome.value->upper_bound) row.upper = number_text(*outcome.value->upper_bound);
  }
  // The method of the last solve, where one ran; graph answers and exact ones have none.
  const bool solved = outcome.computation && outcome.computation->solve.stats.iterations > 0;
  row.method = solved ? to_string(outcome.computation->solve.method) : "";
  row.epsilon = number_text(settings.epsilon);
  row.criterion = settings.criterion;
  row.time_s = number_text(outcome.time_s);
  row.error = outcome.error;
  row.version = settings.version;
  return row;
}

std::vector<std::string> cells(const ResultRow& r) {
  return {r.property, r.constants, r.result, r.lower, r.upper, r.method, r.epsilon, r.criterion, r.time_s, r.error,
          r.version};
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// "K=2,k=10" -> {K: 2, k: 10} (pipeline::describe's text).
std::map<std::string, std::string> constants_in(const std::string& text) {
  std::map<std::string, std::string> values;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::size_t equals = text.find('=', start);
    if (equals < end) values[text.substr(start, equals - start)] = text.substr(equals + 1, end - equals - 1);
    start = end + 1;
  }
  return values;
}

// As PRISM's exported results: a column per constant (every one the rows name, in
// name order; empty where a row's property does not depend on it) in place of the
// JSON's one "constants" text.
void write_csv(std::ostream& out, const std::vector<ResultRow>& rows) {
  std::vector<std::map<std::string, std::string>> constants;
  std::set<std::string> names;
  for (const ResultRow& row : rows) {
    constants.push_back(constants_in(row.constants));
    for (const auto& [name, value] : constants.back()) names.insert(name);
  }
  out << kColumns[0].name;
  for (const std::string& name : names) out << "," << csv_cell(name);
  for (std::size_t i = 2; i < std::size(kColumns); ++i) out << "," << kColumns[i].name;
  out << "\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<std::string> values = cells(rows[r]);
    out << csv_cell(values[0]);
    for (const std::string& name : names) {
      const auto value = constants[r].find(name);
      out << "," << (value == constants[r].end() ? "" : csv_cell(value->second));
    }
    for (std::size_t i = 2; i < values.size(); ++i) out << "," << csv_cell(values[i]);
    out << "\n";
  }
}

// A cell typed for JSON: null when empty, numbers and Booleans as such, else text
// (Infinity stays text, as in the JSON report).
nlohmann::json json_cell(const std::string& text) {
  if (text.empty()) return nullptr;
  if (text == "true" || text == "false") return text == "true";
  double number = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size() && std::isfinite(number)) return number;
  return text;
}

void write_json(std::ostream& out, const std::vector<ResultRow>& rows) {
  nlohmann::json array = nlohmann::json::array();
  for (const ResultRow& row : rows) {
    const std::vector<std::string> values = cells(row);
    nlohmann::json entry;
    for (std::size_t i = 0; i < values.size(); ++i) {
      entry[kColumns[i].name] = kColumns[i].typed ? json_cell(values[i]) : nlohmann::json(values[i]);
    }
    array.push_back(std::move(entry));
  }
  out << array.dump(2) << "\n";
}

}  // namespace

void export_results(const pipeline::CheckReport& report, const std::string& path, const std::string& format_of) {
  std::vector<ResultRow> rows;
  for (const pipeline::PropertyOutcome& outcome : report.properties) rows.push_back(row_of(outcome, report.settings));
  const bool json = (format_of.empty() ? path : format_of).ends_with(".json");  // "-" is CSV
  write_to_path(path, "results", [&](std::ostream& out) { json ? write_json(out, rows) : write_csv(out, rows); });
}

}  // namespace mdpvi::tools
