// check_model MODEL PROPERTY: the property's value in the model's initial state, by
// the library's pipeline (what the mdpvi command runs), and its bounds where the
// method gives them.
#include "engine/pipeline/check_run.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: check_model MODEL PROPERTY\n";
    return 2;
  }
  mdpvi::pipeline::CheckOptions options;
  options.model_file = argv[1];
  options.inline_properties = {argv[2]};
  try {
    const mdpvi::pipeline::CheckReport report = mdpvi::pipeline::run_check(options);
    for (const mdpvi::pipeline::PropertyOutcome& outcome : report.properties) {
      if (!outcome.value) {
        std::cerr << outcome.property << ": " << outcome.error << "\n";
        return 1;
      }
      std::cout << outcome.property << ": result " << outcome.value->number;
      if (outcome.value->lower_bound) std::cout << " in [" << *outcome.value->lower_bound << ", " << *outcome.value->upper_bound << "]";
      std::cout << " (" << report.model.states << " states)\n";
    }
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
  return 0;
}
