#include "engine/pipeline/constant_sweep.h"

#include "engine/model/property_value.h"
#include "engine/pipeline/option_text.h"

#include <optional>
#include <cstdio>
#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <charconv>
#include <stdexcept>

namespace mdpvi::pipeline {

namespace {

constexpr std::size_t kMostValues = 1'000'000;

bool is_integer(const std::string& text, long long& value) {
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && at == end;
}

// A bound or step of a range: a number, or a fraction (0:1/3:1, as PRISM's tests sweep).
double number(const std::string& name, const std::string& text, const std::string& range) {
  const std::optional<double> value = read_number(text);
  if (!value) throw std::invalid_argument("--const " + name + "=" + range + ": expected a number, found '" + text + "'");
  return *value;
}

// The most digits after the point among plain decimals ("0.25": 2); nullopt where a
// number is written otherwise (an exponent), or has more places than a double keeps.
std::optional<int> decimal_places(std::initializer_list<std::string> texts) {
  int most = 0;
  for (const std::string& text : texts) {
    if (text.find_first_not_of("+-0123456789.") != std::string::npos) return std::nullopt;
    const std::size_t point = text.find('.');
    if (point != std::string::npos) most = std::max(most, static_cast<int>(text.size() - point - 1));
  }
  if (most > 15) return std::nullopt;
  return most;
}

// value rounded to places decimals, without trailing zeros ("0.50" is "0.5", "1.0" "1").
std::string in_decimals(double value, int places) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", places, value);
  std::string result(text);
  if (result.find('.') != std::string::npos) {
    result.erase(result.find_last_not_of('0') + 1);
    if (result.back() == '.') result.pop_back();
  }
  if (result == "-0") result = "0";
  return result;
}

}  // namespace

std::vector<std::string> expand_constant_range(const std::string& name, const std::string& text) {
  std::vector<std::string> parts = split_at(text, ':');
  if (parts.size() == 1) return parts;
  if (parts.size() > 3) throw std::invalid_argument("--const " + name + "=" + text + ": expected a:b or a:step:b");
  const std::string step_text = parts.size() == 3 ? parts[1] : "1";
  const std::string& first_text = parts.front();
  const std::string& last_text = parts.back();
  long long first = 0, step = 0, last = 0;
  std::vector<std::string> values;
  const auto check_count = [&](double count) {
    if (!(count >= 0)) throw std::invalid_argument("--const " + name + "=" + text + ": the range is empty");
    if (count >= kMostValues) throw std::invalid_argument("--const " + name + "=" + text + ": more than a million values");
  };
  if (is_integer(first_text, first) && is_integer(step_text, step) && is_integer(last_text, last)) {
    if (step == 0) throw std::invalid_argument("--const " + name + "=" + text + ": a step of 0");
    check_count(std::floor((static_cast<double>(last) - static_cast<double>(first)) / static_cast<double>(step)));
    for (long long v = first; step > 0 ? v <= last : v >= last; v += step) values.push_back(std::to_string(v));
    return values;
  }
  const double a = number(name, first_text, text), s = number(name, step_text, text), b = number(name, last_text, text);
  if (s == 0) throw std::invalid_argument("--const " + name + "=" + text + ": a step of 0");
  // a + i*s rather than repeated sums, so the error does not grow along the range; the
  // last value is kept when rounding leaves it a hair beyond b. Values are the decimals
  // the range is written in (0:0.1:1 gives 0.3, as PRISM, not a + 3s's
  // 0.30000000000000004), where its numbers are plain decimals.
  const double count = std::floor((b - a) / s + 1e-9);
  check_count(count);
  const std::optional<int> places = decimal_places({first_text, step_text, last_text});
  for (double i = 0; i <= count; ++i) values.push_back(places ? in_decimals(a + i * s, *places) : format_number(a + i * s));
  return values;
}

std::vector<ConstantSetting> constant_settings(const std::map<std::string, std::string>& given,
                                               const std::set<std::string>& model_constants) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;  // slowest first
  for (bool model : {true, false}) {
    for (const auto& [name, text] : given) {
      if (model_constants.count(name) == static_cast<std::size_t>(model)) axes.emplace_back(name, expand_constant_range(name, text));
    }
  }
  std::vector<ConstantSetting> settings{ConstantSetting{}};
  for (const auto& [name, values] : axes) {
    std::vector<ConstantSetting> longer;
    if (settings.size() * values.size() > kMostValues) {
      throw std::invalid_argument("--const: more than a million combinations of the constants' values");
    }
    for (const ConstantSetting& setting : settings) {
      for (const std::string& value : values) {
        longer.push_back(setting);
        longer.back()[name] = value;
      }
    }
    settings = std::move(longer);
  }
  return settings;
}

ConstantSetting model_part(const ConstantSetting& setting, const std::set<std::string>& model_constants) {
  ConstantSetting part;
  for (const auto& [name, value] : setting) {
    if (model_constants.count(name)) part[name] = value;
  }
  return part;
}

std::string describe(const ConstantSetting& setting) {
  std::string text;
  for (const auto& [name, value] : setting) text += (text.empty() ? "" : ",") + name + "=" + value;
  return text;
}

bool has_range(const std::map<std::string, std::string>& given) {
  for (const auto& [name, text] : given) {
    if (text.find(':') != std::string::npos) return true;
  }
  return false;
}

}  // namespace mdpvi::pipeline
