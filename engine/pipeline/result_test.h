#pragma once
// PRISM's -test: a result compared with the RESULT comment above its property
// (io::ExpectedResult), as PRISM's regression tests annotate them.
#include "engine/pipeline/check_run.h"

#include <optional>
#include <string>

namespace mdpvi::pipeline {

struct TestVerdict {
  bool passed = false;
  std::string expected;  // the RESULT comment's value
};

// The verdict on outcome, computed where constants ("K=2,k=10") held: against the first
// of its expected results whose constants all hold (or that names none). None where no
// expected result applies, or it is "?" (unknown) or one this cannot read. Numbers
// agree within a relative 1e-5 (an absolute 1e-8 near 0); "Error..." is met by any
// error; a Pareto front "[(x,y),...]" by the same vertices in any order.
std::optional<TestVerdict> test_result(const PropertyOutcome& outcome, const std::string& constants);

}  // namespace mdpvi::pipeline
