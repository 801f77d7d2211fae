#pragma once
// PRISM's experiments: a --const value may be a range, "a:b" (step 1) or "a:s:b",
// and the properties are checked for every combination of the constants' values.
// The model is built once per setting of its own constants: the settings are
// ordered with the model's constants varying slowest.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mdpvi::pipeline {

// One value per constant, as text: what --const gives once the ranges are expanded.
using ConstantSetting = std::map<std::string, std::string>;

// "2:2:6" -> {"2", "4", "6"}; "0:0.25:1" -> {"0", "0.25", ...}; a single value as it
// is. Throws std::invalid_argument for a step of 0, an empty range, a bound that is
// not a number, or more than a million values.
std::vector<std::string> expand_constant_range(const std::string& name, const std::string& text);

// Every combination of the given constants' values (each expanded), the model's
// constants varying slowest, then the others, each group in name order.
std::vector<ConstantSetting> constant_settings(const std::map<std::string, std::string>& given,
                                               const std::set<std::string>& model_constants);

// The values of the model's constants only: settings with equal keys share a model.
ConstantSetting model_part(const ConstantSetting& setting, const std::set<std::string>& model_constants);

// "K=2,k=10" (name order); empty for no constants.
std::string describe(const ConstantSetting& setting);

// Whether any given value is a range.
bool has_range(const std::map<std::string, std::string>& given);

}  // namespace mdpvi::pipeline
