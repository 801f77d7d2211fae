#include "engine/pipeline/result_test.h"

#include "engine/explore/compiled_expression.h"
#include "engine/explore/resolved_model.h"
#include "engine/pipeline/option_text.h"
#include "io/lexer.h"
#include "io/token_stream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace mdpvi::pipeline {

namespace {

// "K=2,k=10" as name -> value text, as --const reads it; none where it is not such a list.
std::optional<std::map<std::string, std::string>> assignments(const std::string& text) {
  try {
    return parse_constant_definitions({text});
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// A number as PRISM's RESULT comments write it: 0.5, 1/3, ~0.25 (approximate), Infinity.
std::optional<double> expected_number(std::string_view text) {
  if (text.starts_with("~")) text.remove_prefix(1);
  if (text == "Infinity") return INFINITY;
  if (text == "-Infinity") return -INFINITY;
  if (text == "NaN") return NAN;
  return read_number(text);
}

// A result as an expression of the constants, as PRISM's tests write a parametric
// one ("(5-2*p)/(10-10*p)"), at the values held; none where it is no such expression
// or names something else.
std::optional<double> expected_expression(std::string_view text, const std::map<std::string, std::string>& held) {
  try {
    const io::TextFile file = io::TextFile::from_string("RESULT", std::string(text));
    io::TokenStream tokens("RESULT", io::tokenize(file, false));
    const Expression parsed = io::parse_expression(tokens, false);
    if (!tokens.at_end()) return std::nullopt;
    ConstantValues values;
    for (const auto& [name, value] : held) {
      if (const std::optional<double> x = read_number(value)) values[name] = {ValueType::real, *x};
    }
    return evaluate_constant(substitute_constants(parsed, values), NameScope::constants_only("RESULT"));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool agree(double got, double expected) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected) || std::isinf(got)) return got == expected;
  return std::abs(got - expected) <= std::max(1e-5 * std::abs(expected), 1e-8);
}

// "[(x,y),(z,w)]": each vertex's numbers; none where the text is not such a list.
std::optional<std::vector<std::vector<double>>> expected_points(std::string_view text) {
  std::vector<std::vector<double>> points;
  std::size_t open = text.find('(');
  while (open != std::string_view::npos) {
    const std::size_t close = text.find(')', open);
    if (close == std::string_view::npos) return std::nullopt;
    std::vector<double> point;
    std::string_view inside = text.substr(open + 1, close - open - 1);
    while (!inside.empty()) {
      const std::size_t comma = inside.find(',');
      std::string_view item = inside.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      const std::optional<double> x = expected_number(item);
      if (!x) return std::nullopt;
      point.push_back(*x);
      inside = comma == std::string_view::npos ? std::string_view() : inside.substr(comma + 1);
    }
    points.push_back(std::move(point));
    open = text.find('(', close);
  }
  return points;
}

bool same_front(std::vector<std::vector<double>> got, std::vector<std::vector<double>> expected) {
  if (got.size() != expected.size()) return false;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i].size() != expected[i].size()) return false;
    for (std::size_t j = 0; j < got[i].size(); ++j) {
      if (!agree(got[i][j], expected[i][j])) return false;
    }
  }
  return true;
}

// Whether outcome meets expected (at the constants held); none where expected cannot be read.
std::optional<bool> meets(const PropertyOutcome& outcome, const std::string& expected,
                          const std::map<std::string, std::string>& held) {
  if (expected.starts_with("Error")) return !outcome.error.empty();
  if (!outcome.value) return false;
  const PropertyValue& value = *outcome.value;
  if (expected == "true" || expected == "false") {
    return value.kind == PropertyValue::Kind::boolean && value.truth == (expected == "true");
  }
  if (expected.starts_with("[")) {
    const std::optional<std::vector<std::vector<double>>> points = expected_points(expected);
    if (!points) return std::nullopt;
    return value.kind == PropertyValue::Kind::pareto && same_front(value.points, *points);
  }
  std::optional<double> x = expected_number(expected);
  if (!x) x = expected_expression(expected, held);
  if (!x) return std::nullopt;
  return value.kind == PropertyValue::Kind::number && agree(value.number, *x);
}

}  // namespace

std::optional<TestVerdict> test_result(const PropertyOutcome& outcome, const std::string& constants) {
  const std::map<std::string, std::string> held = assignments(constants).value_or(std::map<std::string, std::string>{});
  for (const io::ExpectedResult& expected : outcome.expected) {
    const std::optional<std::map<std::string, std::string>> asked = assignments(expected.constants);
    const bool applies = asked && std::all_of(asked->begin(), asked->end(), [&](const auto& a) {
      const auto it = held.find(a.first);
      if (it == held.end()) return false;
      // As numbers where both are (p=1/3 against a sweep's 0.3333333333333333).
      const std::optional<double> x = read_number(a.second), y = read_number(it->second);
      return x && y ? std::abs(*x - *y) <= 1e-12 * std::max(1.0, std::abs(*x)) : a.second == it->second;
    });
    if (!applies) continue;
    const std::string value = expected.value.substr(0, expected.value.find_first_of(" \t"));
    if (value == "?") return std::nullopt;
    const std::optional<bool> passed = meets(outcome, value, held);
    if (!passed) return std::nullopt;
    return TestVerdict{*passed, expected.value};
  }
  return std::nullopt;
}

}  // namespace mdpvi::pipeline
