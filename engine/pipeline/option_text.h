#pragma once
// The texts a user gives for constants and properties, split into items as PRISM and
// Storm do (the command's --const and --prop, and a library caller's strings), and the
// names of the solver's choices.
#include "engine/solve/chunk_driver.h"

#include <map>
#include <string>
#include <vector>

namespace mdpvi::pipeline {

// {"N=2,K=4", " k = 10"} -> {N: "2", K: "4", k: "10"} (spaces trimmed); throws
// std::invalid_argument for an item without a name or value, or a name given twice.
std::map<std::string, std::string> parse_constant_definitions(const std::vector<std::string>& texts);

// Inline properties, each text possibly several separated by ';' (Storm's habit; a
// ';' inside a quoted label does not separate), trimmed, empty ones dropped.
std::vector<std::string> split_inline_properties(const std::vector<std::string>& texts);

// The names the command's --method, --solver and --gpu-system take, as the Python
// module's arguments do; std::invalid_argument naming the choices for any other.
Method method_named(const std::string& name);
SolverKind solver_named(const std::string& name);
gpu::SystemStorage system_storage_named(const std::string& name);

}  // namespace mdpvi::pipeline
