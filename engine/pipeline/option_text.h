#pragma once
// The texts a user gives for constants and properties, split into items as PRISM and
// Storm do (the command's --const and --prop, and a library caller's strings), and the
// names of the solver's choices.
#include "engine/solve/chunk_driver.h"

#include <cstdint>
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

// --gpus: "all" (count 0: every device), a count N >= 1, or device indices separated
// by commas ("0,2": those devices, the first the one the run starts on). Throws
// std::invalid_argument naming what is wrong (an index twice, not a number, 0 devices).
struct GpuChoice {
  std::uint32_t count = 0;
  std::vector<std::uint32_t> devices;  // a list's indices, in its order; empty for all or a count
};
GpuChoice gpus_named(const std::string& text);

// The CUDA_VISIBLE_DEVICES value that makes the listed devices the process's devices 0,
// 1, ... in the list's order. The indices count among the devices visible now: those
// `visible` names (the variable's present value), or every device where it is null.
// Throws std::invalid_argument where an index is past what `visible` names.
std::string visible_devices_for(const std::vector<std::uint32_t>& devices, const char* visible);

// The items of text between separators, as they are ("a,,b," at ',' gives "a", "", "b", "").
std::vector<std::string> split_at(const std::string& text, char separator);

// The names the command's --method, --solver and --gpu-system take, as the Python
// module's arguments do; std::invalid_argument naming the choices for any other.
Method method_named(const std::string& name);
SolverKind solver_named(const std::string& name);
gpu::SystemStorage system_storage_named(const std::string& name);

}  // namespace mdpvi::pipeline
