#include "engine/pipeline/option_text.h"

#include <stdexcept>
#include <string_view>

namespace mdpvi::pipeline {

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

}  // namespace

std::map<std::string, std::string> parse_constant_definitions(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> constants;
  for (const std::string& text : texts) {
    if (trimmed(text).empty()) continue;  // nothing given
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(start, end - start);
      const std::size_t eq = item.find('=');
      const std::string name = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(0, eq));
      const std::string value = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(eq + 1));
      if (name.empty() || value.empty()) {
        throw std::invalid_argument("--const: expected NAME=VALUE, found '" + item + "'");
      }
      if (!constants.emplace(name, value).second) throw std::invalid_argument("--const: " + name + " is given twice");
      start = end + 1;
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
