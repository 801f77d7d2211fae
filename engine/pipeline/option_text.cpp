#include "engine/pipeline/option_text.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace mdpvi::pipeline {

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

// A whole number below 2^32 of decimal digits only, else nothing.
std::optional<std::uint32_t> index_in(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(text));
}

}  // namespace

std::vector<std::string> split_at(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::size_t from = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, from)) {
    items.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  items.push_back(text.substr(from));
  return items;
}

std::map<std::string, std::string> parse_constant_definitions(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> constants;
  for (const std::string& text : texts) {
    if (trimmed(text).empty()) continue;  // nothing given
    for (const std::string& item : split_at(text, ',')) {
      const std::size_t eq = item.find('=');
      const std::string name = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(0, eq));
      const std::string value = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(eq + 1));
      if (name.empty() || value.empty()) {
        throw std::invalid_argument("--const: expected NAME=VALUE, found '" + item + "'");
      }
      if (!constants.emplace(name, value).second) throw std::invalid_argument("--const: " + name + " is given twice");
    }
  }
  return constants;
}

std::vector<std::string> split_inline_properties(const std::vector<std::string>& texts) {
  std::vector<std::string> properties;
  for (const std::string& text : texts) {
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] == '"') quoted = !quoted;
      if (i < text.size() && (quoted || text[i] != ';')) continue;
      std::string property = trimmed(std::string_view(text).substr(start, i - start));
      if (!property.empty()) properties.push_back(std::move(property));
      start = i + 1;
    }
  }
  return properties;
}

GpuChoice gpus_named(const std::string& text) {
  const std::string given = trimmed(text);
  if (given == "all") return {};
  if (given.find(',') == std::string::npos) {
    const std::optional<std::uint32_t> count = index_in(given);
    if (!count || *count == 0) {
      throw std::invalid_argument("--gpus: expected all, a count above 0 or device indices such as 0,1, found '" +
                                  text + "'");
    }
    return {*count, {}};
  }
  GpuChoice choice;
  for (const std::string& raw : split_at(given, ',')) {
    const std::string item = trimmed(raw);
    const std::optional<std::uint32_t> index = index_in(item);
    if (!index) throw std::invalid_argument("--gpus " + given + ": expected a device index, found '" + item + "'");
    if (std::find(choice.devices.begin(), choice.devices.end(), *index) != choice.devices.end()) {
      throw std::invalid_argument("--gpus " + given + ": device " + item + " is listed twice");
    }
    choice.devices.push_back(*index);
  }
  choice.count = static_cast<std::uint32_t>(choice.devices.size());
  return choice;
}

std::string visible_devices_for(const std::vector<std::uint32_t>& devices, const char* visible) {
  std::vector<std::string> now = visible != nullptr ? split_at(visible, ',') : std::vector<std::string>{};
  for (std::string& item : now) item = trimmed(item);
  std::string value;
  for (const std::uint32_t d : devices) {
    if (visible != nullptr && d >= now.size()) {
      throw std::invalid_argument("--gpus: device " + std::to_string(d) + " is not among the " +
                                  std::to_string(now.size()) + " that CUDA_VISIBLE_DEVICES=" + visible + " shows");
    }
    if (!value.empty()) value += ',';
    value += visible != nullptr ? now[d] : std::to_string(d);
  }
  return value;
}

Method method_named(const std::string& name) {
  for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration,
                        Method::bicgstab, Method::policy_iteration, Method::automatic}) {
    if (name == option_name(method)) return method;
  }
  throw std::invalid_argument("method must be 'auto', 'ovi', 'pi', 'ii', 'vi' or 'bicgstab', found '" + name + "'");
}

SolverKind solver_named(const std::string& name) {
  if (name == "auto") return SolverKind::automatic;
  if (name == "gpu") return SolverKind::gpu;
  if (name == "cpu") return SolverKind::cpu;
  throw std::invalid_argument("solver must be 'auto', 'gpu' or 'cpu', found '" + name + "'");
}

gpu::SystemStorage system_storage_named(const std::string& name) {
  if (name == "auto") return gpu::SystemStorage::automatic;
  if (name == "copy") return gpu::SystemStorage::copy;
  if (name == "view") return gpu::SystemStorage::view;
  throw std::invalid_argument("gpu system must be 'auto', 'copy' or 'view', found '" + name + "'");
}

}  // namespace mdpvi::pipeline
